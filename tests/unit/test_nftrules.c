/* The nftables ruleset judge (src/checks/nftrules.c) on rulesets written as
 * libnftables prints them: a sealed ruleset passes; each way of being wider
 * than the policy (no default drop, an accept to any or to a range, an
 * accept reached through a jump, a missing or misdirected redirect, IPv6
 * left open) is named; constructs it cannot judge are counted, never
 * passed; input that is not a ruleset is refused. Plus the TLS fingerprint
 * normaliser. */
#include <stdlib.h>
#include <string.h>

#include "checks/nftrules.h"
#include "checks/tls_probe.h"
#include "core/util.h"
#include "tap.h"

#define CH(name, type, hook, pol)                                                                                   \
	"{\"chain\": {\"family\": \"inet\", \"table\": \"t\", \"name\": \"" name "\", \"handle\": 1, \"type\": \"" type \
	"\", \"hook\": \"" hook "\", \"prio\": 0, \"policy\": \"" pol "\"}}"
#define RULE(chain, ...) "{\"rule\": {\"family\": \"inet\", \"table\": \"t\", \"chain\": \"" chain "\", \"handle\": 7, \"expr\": [" __VA_ARGS__ "]}}"
#define M(left, right) "{\"match\": {\"op\": \"==\", \"left\": " left ", \"right\": " right "}}"
#define DADDR "{\"payload\": {\"protocol\": \"ip\", \"field\": \"daddr\"}}"
#define TCPD "{\"payload\": {\"protocol\": \"tcp\", \"field\": \"dport\"}}"
#define UDPD "{\"payload\": {\"protocol\": \"udp\", \"field\": \"dport\"}}"
#define OIF "{\"meta\": {\"key\": \"oifname\"}}"
#define ACCEPT "{\"accept\": null}"
#define RS(body) "{\"nftables\": [{\"metainfo\": {\"json_schema_version\": 1}}, {\"table\": {\"family\": \"inet\", \"name\": \"t\", \"handle\": 1}}, " body "]}"

#define SEALED_FILTER                                                                                                \
	CH("out", "filter", "output", "drop") "," RULE("out", M(OIF, "\"lo\"") ", " ACCEPT) ","                            \
		"{\"rule\": {\"family\": \"inet\", \"table\": \"t\", \"chain\": \"out\", \"handle\": 8, \"expr\": [{\"match\": {\"op\": \"in\", \"left\": {\"ct\": {\"key\": \"state\"}}, \"right\": [\"established\", \"related\"]}}, {\"accept\": null}]}}" "," \
		RULE("out", M(DADDR, "\"10.0.0.1\"") ", " M(TCPD, "{\"set\": [3128, 8443]}") ", {\"counter\": {\"packets\": 0, \"bytes\": 0}}, " ACCEPT) "," \
		RULE("out", M(DADDR, "\"10.0.0.53\"") ", " M(UDPD, "53") ", " ACCEPT)
#define NAT CH("nat", "nat", "output", "accept") "," \
	RULE("nat", "{\"match\": {\"op\": \"!=\", \"left\": " DADDR ", \"right\": \"10.0.0.1\"}}, " M(TCPD, "443") ", {\"dnat\": {\"family\": \"ip\", \"addr\": \"10.0.0.1\", \"port\": 8443}}") "," \
	RULE("nat", M(UDPD, "53") ", {\"redirect\": {\"port\": 5353}}")

static sp_nft_policy policy(void)
{
	sp_nft_policy p;
	memset(&p, 0, sizeof p);
	snprintf(p.allow[0].addr, sizeof p.allow[0].addr, "10.0.0.1");
	p.allow[0].port = 3128;
	p.allow[0].proto = SP_NFT_TCP;
	snprintf(p.allow[1].addr, sizeof p.allow[1].addr, "10.0.0.1");
	p.allow[1].port = 8443;
	p.allow[1].proto = SP_NFT_TCP;
	snprintf(p.allow[2].addr, sizeof p.allow[2].addr, "10.0.0.53");
	p.allow[2].port = 53;
	/* the resolver the udp/53 redirect lands on: a port of the sandbox's own */
	snprintf(p.allow[3].addr, sizeof p.allow[3].addr, "127.0.0.1");
	p.allow[3].port = 5353;
	p.allow[3].proto = SP_NFT_UDP;
	p.allow[3].local = true;
	p.nallow = 4;
	p.redirect[0].proto = SP_NFT_TCP;
	p.redirect[0].port = 443;
	p.redirect[1].proto = SP_NFT_UDP;
	p.redirect[1].port = 53;
	p.nredirect = 2;
	return p;
}

static int judge(const char *text, sp_nft_policy *p, sp_nft_report *rep)
{
	sp_outcome o = {0};
	return sp_nft_judge(text, strlen(text), p, rep, &o);
}

static bool has_problem(const sp_nft_report *rep, const char *needle)
{
	for (size_t i = 0; i < rep->nproblem && i < SP_ARRAY_SIZE(rep->problem); i++)
		if (strstr(rep->problem[i], needle))
			return true;
	return false;
}

int main(void)
{
	sp_nft_policy p = policy();
	sp_nft_report rep;

	is_int(judge(RS(SEALED_FILTER "," NAT), &p, &rep), 0, "sealed ruleset parses");
	is_int(rep.nproblem, 0, "sealed: no problem");
	is_int(rep.nunknown, 0, "sealed: nothing unjudgeable");
	ok(rep.drop_v4 && rep.drop_v6, "sealed: inet output drops for both families");
	is_int(rep.accepts, 4, "sealed: four accept rules");
	is_int(rep.accepts_ok, 4, "sealed: all within the policy");
	ok(p.redirect[0].covered && p.redirect[0].target_ok, "tcp/443 redirected to the proxy");
	is_str(p.redirect[0].to, "10.0.0.1:8443", "the dnat target");
	ok(p.redirect[1].covered && p.redirect[1].target_ok, "udp/53 redirected locally");

	p = policy();
	p.nallow = 3; /* no allowed endpoint of the sandbox's own on port 5353 */
	judge(RS(SEALED_FILTER "," NAT), &p, &rep);
	ok(!p.redirect[1].target_ok && has_problem(&rep, "udp/53"),
	   "a local redirect to a port that is no allowed endpoint of the sandbox is named");

	p = policy();
	judge(RS(CH("out", "filter", "output", "accept") "," RULE("out", M(OIF, "\"lo\"") ", " ACCEPT) "," NAT), &p, &rep);
	ok(has_problem(&rep, "no output filter chain for IPv4 drops"), "default accept: no drop named");

	p = policy();
	judge(RS(CH("out", "filter", "output", "accept") "," RULE("out", M(OIF, "\"lo\"") ", " ACCEPT) "," RULE("out", "{\"drop\": null}") "," NAT),
	      &p, &rep);
	ok(rep.drop_v4 && rep.nproblem == 0, "default accept ending in an unconditional drop counts as default-drop");

	p = policy();
	judge(RS(SEALED_FILTER "," RULE("out", M(TCPD, "443") ", " ACCEPT) "," NAT), &p, &rep);
	ok(has_problem(&rep, "accepts any destination tcp dport 443"), "an accept by port only is named");

	p = policy();
	judge(RS(SEALED_FILTER "," RULE("out", M(DADDR, "{\"prefix\": {\"addr\": \"10.0.0.0\", \"len\": 8}}") ", " ACCEPT) "," NAT), &p,
	      &rep);
	ok(has_problem(&rep, "a destination range"), "an accept of a /8 is named");

	p = policy();
	judge(RS(SEALED_FILTER "," RULE("out", M(DADDR, "\"10.0.0.1\"") ", " M(TCPD, "22") ", " ACCEPT) "," NAT), &p, &rep);
	ok(has_problem(&rep, "to 10.0.0.1 tcp dport 22"), "the proxy's address on another port is named");

	p = policy();
	judge(RS(SEALED_FILTER "," RULE("out", M(DADDR, "\"10.0.0.1\"") ", " ACCEPT) "," NAT), &p, &rep);
	ok(has_problem(&rep, "to 10.0.0.1"), "the proxy's address on every port is named");

	p = policy();
	judge(RS(SEALED_FILTER "," RULE("out", M(DADDR, "\"10.9.9.9\"") ", {\"jump\": {\"target\": \"more\"}}") ","
		 "{\"chain\": {\"family\": \"inet\", \"table\": \"t\", \"name\": \"more\", \"handle\": 3}}" ","
		 RULE("more", M(TCPD, "80") ", " ACCEPT) "," NAT),
	      &p, &rep);
	ok(has_problem(&rep, "to 10.9.9.9 tcp dport 80"), "an accept reached by a jump inherits the jump's address");

	p = policy();
	judge(RS(SEALED_FILTER "," RULE("out", "{\"vmap\": {\"key\": {\"meta\": {\"key\": \"l4proto\"}}, \"data\": {\"set\": []}}}") "," NAT),
	      &p, &rep);
	is_int(rep.nunknown, 1, "a verdict map cannot be judged and is counted");

	p = policy();
	judge(RS(SEALED_FILTER), &p, &rep);
	ok(has_problem(&rep, "no redirect (dnat or redirect in an output nat chain) for tcp/443"), "missing TLS redirect named");
	ok(has_problem(&rep, "for udp/53"), "missing DNS redirect named");

	p = policy();
	judge(RS(SEALED_FILTER "," CH("nat", "nat", "output", "accept") ","
		 RULE("nat", M(TCPD, "443") ", {\"dnat\": {\"family\": \"ip\", \"addr\": \"10.6.6.6\", \"port\": 443}}")),
	      &p, &rep);
	ok(has_problem(&rep, "goes to 10.6.6.6:443"), "a redirect to another host is named");

	p = policy();
	judge(RS(SEALED_FILTER "," CH("nat", "nat", "output", "accept") ","
		 RULE("nat", M(DADDR, "\"192.0.2.1\"") ", " M(TCPD, "443") ", {\"redirect\": {\"port\": 8443}}")),
	      &p, &rep);
	ok(!p.redirect[0].covered, "a redirect limited to one destination is no catch-all");

	/* IPv6 */
	p = policy();
	p.need_v6 = true;
	const char *v4only = "{\"nftables\": [{\"chain\": {\"family\": \"ip\", \"table\": \"t\", \"name\": \"out\", \"type\": "
			     "\"filter\", \"hook\": \"output\", \"policy\": \"drop\"}}]}";
	judge(v4only, &p, &rep);
	ok(rep.drop_v4 && has_problem(&rep, "IPv6"), "an ip-only drop leaves IPv6 open when the sandbox has IPv6");
	p = policy();
	p.nredirect = 0;
	judge(v4only, &p, &rep);
	is_int(rep.nproblem, 0, "without IPv6 addresses an ip-only drop is enough");

	/* not rulesets */
	p = policy();
	ok(judge("", &p, &rep) < 0, "empty text refused");
	ok(judge("{\"nftables\": 1}", &p, &rep) < 0, "no nftables array refused");
	ok(judge("[1,2]", &p, &rep) < 0, "an array refused");
	is_int(judge("{\"nftables\": []}", &p, &rep), 0, "an empty ruleset parses");
	ok(has_problem(&rep, "no output filter chain"), "and has no default drop");

	int proto;
	unsigned port;
	ok(sp_nft_parse_redirect("udp/53", &proto, &port) == 0 && proto == SP_NFT_UDP && port == 53, "udp/53");
	ok(sp_nft_parse_redirect("443", &proto, &port) == 0 && proto == SP_NFT_TCP && port == 443, "443 is tcp");
	ok(sp_nft_parse_redirect("tcp/0", &proto, &port) < 0, "port 0 refused");
	ok(sp_nft_parse_redirect("icmp/1", &proto, &port) < 0, "unknown protocol refused");

	char f[65];
	ok(sp_tls_fpr_normalise("AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89", f) == 0 &&
		   !strcmp(f, "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"),
	   "openssl's fingerprint spelling normalised");
	ok(sp_tls_fpr_normalise("sha256:abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789", f) == 0,
	   "sha256: prefix accepted");
	ok(sp_tls_fpr_normalise("abcdef", f) < 0, "too short refused");
	ok(sp_tls_fpr_normalise("zz", f) < 0, "not hex refused");
	ok(sp_tls_fpr_normalise("abcdef0123456789abcdef0123456789abcdef0123456789abcdef01234567890", f) < 0, "too long refused");
	done_testing();
}
