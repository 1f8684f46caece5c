/* net.resolver.*: DNS as an agent sandbox uses it, asked of the resolver the
 * sandbox is given (net.dns.server, else the first nameserver of
 * /etc/resolv.conf) with queries the doctor builds and replies it parses
 * itself (net_probe.c; no libc resolver). A reply counts only when it is a
 * DNS response to that query (its id, the QR bit, a well-formed body): an
 * echo or garbage is not an answer, and no answer is an error naming the
 * resolver, never a pass.
 *   net.resolver.transports  net.dns.query (and net.dns.large) is answered over
 *                            UDP and over TCP; net.dns.large's answer does not
 *                            fit in UDP (TC) and comes whole over TCP
 *   net.resolver.nxdomain    each net.dns.nxdomain name gets NXDOMAIN
 *   net.resolver.fake        each net.dns.fake NAME=IP resolves to IP and only IP */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "checks/net_probe.h"
#include "core/check.h"
#include "core/cleanup.h"
#include "core/policy.h"
#include "core/util.h"
#include "catalog/catalog.h"

#define DNS_KEYS_COMMON "net.dns.server:resolver,net.egress.timeout_ms:int"

/* the resolver: net.dns.server, else the first nameserver line of
 * /etc/resolv.conf. 0, or -1 with the reason in r (error). */
static int dns_server(const sp_ctx *ctx, struct sockaddr_storage *sa, socklen_t *len, char *label, size_t lsz,
		      sp_result *r)
{
	sp_outcome o = {0};
	const char *v = sp_policy_get(ctx->policy, "net.dns.server");
	if (v && *v) {
		if (sp_net_parse_hostport(v, 53, sa, len, &o) < 0) {
			sp_errorr(r, "net.dns.server: %s", o.why);
			return -1;
		}
		snprintf(label, lsz, "%s (net.dns.server)", v);
		return 0;
	}
	int e = 0;
	_cleanup_free_ char *rc = sp_read_file_alloc("/etc/resolv.conf", 1 << 16, NULL, &e);
	if (!rc) {
		sp_errorr(r, "no resolver to ask: net.dns.server is unset and /etc/resolv.conf is unreadable (%s)",
			  strerror(e));
		return -1;
	}
	char *save = NULL;
	for (char *line = strtok_r(rc, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char ns[80], b[96];
		if (sscanf(line, " nameserver %79s", ns) != 1)
			continue;
		ns[strcspn(ns, "%")] = '\0'; /* an IPv6 zone */
		snprintf(b, sizeof b, strchr(ns, ':') ? "[%s]:53" : "%s", ns);
		if (sp_net_parse_hostport(b, 53, sa, len, &o) < 0) {
			sp_errorr(r, "/etc/resolv.conf: nameserver %s: %s", ns, o.why);
			return -1;
		}
		snprintf(label, lsz, "%s (first nameserver of /etc/resolv.conf)", b);
		return 0;
	}
	sp_errorr(r, "no resolver to ask: net.dns.server is unset and /etc/resolv.conf has no nameserver line");
	return -1;
}

static unsigned dns_timeout(const sp_ctx *ctx)
{
	long long t = sp_policy_int(ctx->policy, "net.egress.timeout_ms", 1000);
	if (t < 50)
		return 50u;
	return t > 10000 ? 10000u : (unsigned)t;
}

typedef enum {
	DQ_ANSWER,
	DQ_NOANSWER,
	DQ_NOTDNS,
} dq_result;

/* one query over UDP or TCP; what came back, described in how */
static dq_result dns_ask(const struct sockaddr_storage *sa, socklen_t len, bool tcp, const char *name,
			 uint16_t qtype, unsigned timeout_ms, sp_dns_answer *a, char *how, size_t hsz)
{
	uint8_t q[300], rb[4096];
	uint16_t id = 0;
	if (getrandom(&id, sizeof id, 0) != (ssize_t)sizeof id)
		id = (uint16_t)(sp_now_ns() & 0xffff);
	int ql = sp_dns_build_query(q, sizeof q, id, name, qtype);
	if (ql < 0) {
		snprintf(how, hsz, "the query for %s could not be built", name);
		return DQ_NOANSWER;
	}
	uint64_t deadline = sp_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	_cleanup_close_ int fd = socket(sa->ss_family, (tcp ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(how, hsz, "socket: %s", strerror(errno));
		return DQ_NOANSWER;
	}
	if (connect(fd, (const struct sockaddr *)sa, len) < 0 && errno != EINPROGRESS) {
		snprintf(how, hsz, "connect: %s", strerror(errno));
		return DQ_NOANSWER;
	}
	ssize_t n;
	if (tcp) {
		int ev = sp_net_wait(fd, POLLOUT, deadline);
		int err = 0;
		socklen_t el = sizeof err;
		if (ev < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err) {
			int why = ev < 0 ? -ev : err;
			snprintf(how, hsz, "no TCP connection (%s)", strerror(why ? why : errno));
			return DQ_NOANSWER;
		}
		uint8_t msg[302];
		msg[0] = (uint8_t)(ql >> 8);
		msg[1] = (uint8_t)ql;
		memcpy(msg + 2, q, (size_t)ql);
		int w = sp_net_send_all(fd, msg, (size_t)ql + 2, deadline, false);
		if (w < 0) {
			snprintf(how, hsz, "sending the query: %s", strerror(-w));
			return DQ_NOANSWER;
		}
		uint8_t lb[2];
		n = sp_net_read_exact(fd, lb, 2, deadline);
		if (n != 2) {
			snprintf(how, hsz, "no reply over TCP (%s)",
				 n == 0 ? "the connection was closed" : strerror(n < 0 ? (int)-n : EIO));
			return DQ_NOANSWER;
		}
		size_t rl = (size_t)(lb[0] << 8 | lb[1]);
		if (rl > sizeof rb || rl == 0) {
			snprintf(how, hsz, "a TCP reply of %zu bytes: not a DNS reply to this query", rl);
			return DQ_NOTDNS;
		}
		n = sp_net_read_exact(fd, rb, rl, deadline);
		if (n != (ssize_t)rl) {
			snprintf(how, hsz, "the TCP reply ended early");
			return DQ_NOANSWER;
		}
	} else {
		if (send(fd, q, (size_t)ql, MSG_NOSIGNAL) != ql) {
			snprintf(how, hsz, "send: %s", strerror(errno));
			return DQ_NOANSWER;
		}
		int ev = sp_net_wait(fd, POLLIN, deadline);
		if (ev < 0) {
			snprintf(how, hsz, "no reply over UDP in %u ms", timeout_ms);
			return DQ_NOANSWER;
		}
		n = recv(fd, rb, sizeof rb, MSG_DONTWAIT);
		if (n < 0) {
			snprintf(how, hsz, "no reply over UDP (%s)", strerror(errno));
			return DQ_NOANSWER;
		}
	}
	if (sp_dns_parse_reply(rb, (size_t)n, id, a) < 0) {
		snprintf(how, hsz, "%zd bytes that are not a DNS reply to this query", n);
		return DQ_NOTDNS;
	}
	static const char *const rc[] = {"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED"};
	char rcs[16];
	snprintf(rcs, sizeof rcs, "rcode %d", a->rcode);
	size_t o = (size_t)snprintf(how, hsz, "%s%s", a->truncated ? "truncated (TC) " : "",
				    a->rcode >= 0 && a->rcode < 6 ? rc[a->rcode] : rcs);
	for (unsigned i = 0; i < a->nanswers && i < SP_ARRAY_SIZE(a->addrs) && o < hsz; i++)
		o += (size_t)snprintf(how + o, hsz - o, "%s%s", i ? ", " : " ", a->addrs[i]);
	if (a->nanswers > SP_ARRAY_SIZE(a->addrs) && o < hsz)
		snprintf(how + o, hsz - o, " (%u addresses)", a->nanswers);
	return DQ_ANSWER;
}

/* a query as a client asks it: over UDP, and when the reply is truncated
 * (TC) again over TCP; how tells both */
static dq_result dns_ask_client(const struct sockaddr_storage *sa, socklen_t len, const char *name, uint16_t qtype,
				unsigned timeout_ms, sp_dns_answer *a, char *how, size_t hsz)
{
	dq_result d = dns_ask(sa, len, false, name, qtype, timeout_ms, a, how, hsz);
	if (d != DQ_ANSWER || !a->truncated)
		return d;
	char th[200];
	d = dns_ask(sa, len, true, name, qtype, timeout_ms, a, th, sizeof th);
	size_t o = strlen(how);
	if (o < hsz)
		snprintf(how + o, hsz - o, "; over TCP: %s", th);
	/* an answer still cut over TCP is no answer */
	return d == DQ_ANSWER && a->truncated ? DQ_NOTDNS : d;
}

static void run_transports(const sp_ctx *ctx, sp_result *r)
{
	const char *names[2] = {sp_policy_get(ctx->policy, "net.dns.query"), sp_policy_get(ctx->policy, "net.dns.large")};
	sp_expected(r, "the sandbox's resolver answers net.dns.query over UDP and over TCP; net.dns.large's answer is "
		       "truncated over UDP (TC) and comes whole over TCP");
	if ((!names[0] || !*names[0]) && (!names[1] || !*names[1])) {
		sp_skip(r, "net.dns.query and net.dns.large are unset: no name declared to ask the resolver");
		return;
	}
	struct sockaddr_storage sa;
	socklen_t len;
	char label[128];
	if (dns_server(ctx, &sa, &len, label, sizeof label, r) < 0)
		return;
	sp_observed(r, "resolver %s", label);
	unsigned to = dns_timeout(ctx);
	/* replies seen at all, transports missing, a large name that fit in UDP */
	int replies = 0, bad = 0, unproven = 0;
	for (int k = 0; k < 2; k++) {
		const char *name = names[k];
		if (!name || !*name)
			continue;
		bool large = k == 1;
		sp_dns_answer a[2];
		dq_result d[2];
		for (int t = 0; t < 2; t++) {
			char how[200];
			d[t] = dns_ask(&sa, len, t == 1, name, 1, to, &a[t], how, sizeof how);
			sp_observed_add(r, "%s %s: %s", t ? "TCP" : "UDP", name, how);
			replies += d[t] != DQ_NOANSWER;
		}
		bool udp_ok = d[0] == DQ_ANSWER;
		/* over TCP the answer must be whole; a large name's must carry addresses */
		bool tcp_ok = d[1] == DQ_ANSWER && !a[1].truncated && (!large || (a[1].rcode == 0 && a[1].nanswers > 0));
		if (!udp_ok || !tcp_ok) {
			bad++;
			if (udp_ok && a[0].truncated && !tcp_ok)
				sp_observed_add(r, "%s: truncated over UDP and not answered whole over TCP: a client gets no answer",
						name);
		} else if (large && !a[0].truncated) {
			unproven++;
			sp_observed_add(r, "%s: the answer fit in a UDP reply (%u addresses): it does not exercise the TCP path",
					name, a[0].nanswers);
		}
	}
	if (replies == 0)
		sp_errorr(r, "the resolver %s answered neither over UDP nor over TCP", label);
	else if (bad)
		sp_failr(r, "the resolver %s did not give a whole DNS answer over both transports for %d name%s", label, bad,
			 bad == 1 ? "" : "s");
	else if (unproven)
		sp_errorr(r, "net.dns.large was answered whole over UDP: the name is not large enough to prove the TCP path "
			     "for truncated answers");
	else
		sp_pass(r, "the resolver answered over UDP and over TCP%s",
			names[1] && *names[1] ? ", and the truncated answer came whole over TCP" : "");
}

static void run_nxdomain(const sp_ctx *ctx, sp_result *r)
{
	sp_strv names;
	sp_policy_list(ctx->policy, "net.dns.nxdomain", &names);
	sp_expected(r, "every net.dns.nxdomain name gets NXDOMAIN from the sandbox's resolver");
	if (names.n == 0) {
		sp_skip(r, "net.dns.nxdomain is empty: no name declared that must not resolve");
		sp_strv_free(&names);
		return;
	}
	struct sockaddr_storage sa;
	socklen_t len;
	char label[128];
	if (dns_server(ctx, &sa, &len, label, sizeof label, r) < 0) {
		sp_strv_free(&names);
		return;
	}
	sp_observed(r, "resolver %s", label);
	unsigned to = dns_timeout(ctx);
	size_t nx = 0, bad = 0, silent = 0;
	for (size_t i = 0; i < names.n && i < SP_DNS_MAX_NAMES; i++) {
		sp_dns_answer a;
		char how[200];
		dq_result d = dns_ask_client(&sa, len, names.v[i], 1, to, &a, how, sizeof how);
		sp_observed_add(r, "%s: %s", names.v[i], how);
		if (d == DQ_ANSWER && a.rcode == 3 && a.nanswers == 0)
			nx++;
		else if (d == DQ_NOANSWER)
			silent++;
		else
			bad++;
	}
	size_t n = names.n < SP_DNS_MAX_NAMES ? names.n : SP_DNS_MAX_NAMES;
	if (bad)
		sp_failr(r, "%zu of %zu name%s that must not resolve did not get NXDOMAIN", bad, n, n == 1 ? "" : "s");
	else if (silent)
		sp_errorr(r, "the resolver %s did not answer for %zu of %zu name%s", label, silent, n, n == 1 ? "" : "s");
	else
		sp_pass(r, "all %zu name%s got NXDOMAIN", nx, nx == 1 ? "" : "s");
	sp_strv_free(&names);
}

/* NAME=IP: 0, or -1 with why; the parts into name and canonical ip */
static int fake_split(const char *s, char *name, size_t nsz, char *ip, size_t isz, sp_outcome *o)
{
	const char *eq = strchr(s, '=');
	if (!eq || eq == s || (size_t)(eq - s) >= nsz) {
		sp_why(o, "'%.80s': expected NAME=IP", s);
		return -1;
	}
	memcpy(name, s, (size_t)(eq - s));
	name[eq - s] = '\0';
	if (sp_dns_name_check(name, o) < 0)
		return -1;
	return sp_net_parse_ip(eq + 1, ip, isz, o);
}

static int fake_parse(const char *s, sp_outcome *o)
{
	char name[256], ip[INET6_ADDRSTRLEN];
	if (fake_split(s, name, sizeof name, ip, sizeof ip, o) == 0)
		return 0;
	return -1;
}

const sp_policy_type sp_ptype_dns_fakes = {.name = "dns_fakes", .what = "NAME=IP (a name and the address it must resolve to)", .list = true, .max = SP_DNS_MAX_NAMES, .parse = fake_parse};

static void run_fake(const sp_ctx *ctx, sp_result *r)
{
	sp_strv v;
	sp_policy_list(ctx->policy, "net.dns.fake", &v);
	sp_expected(r, "every net.dns.fake NAME resolves to its IP and to no other address");
	if (v.n == 0) {
		sp_skip(r, "net.dns.fake is empty: no faked name declared");
		sp_strv_free(&v);
		return;
	}
	struct sockaddr_storage sa;
	socklen_t len;
	char label[128];
	if (dns_server(ctx, &sa, &len, label, sizeof label, r) < 0) {
		sp_strv_free(&v);
		return;
	}
	sp_observed(r, "resolver %s", label);
	unsigned to = dns_timeout(ctx);
	size_t good = 0, bad = 0, silent = 0, n = 0;
	for (size_t i = 0; i < v.n && i < SP_DNS_MAX_NAMES; i++, n++) {
		char name[256], ip[INET6_ADDRSTRLEN], how[200];
		sp_outcome o = {0};
		if (fake_split(v.v[i], name, sizeof name, ip, sizeof ip, &o) < 0) {
			sp_errorr(r, "net.dns.fake: %s", o.why);
			sp_strv_free(&v);
			return;
		}
		sp_dns_answer a;
		dq_result d = dns_ask_client(&sa, len, name, strchr(ip, ':') ? 28 : 1, to, &a, how, sizeof how);
		sp_observed_add(r, "%s: %s", name, how);
		if (d == DQ_NOANSWER) {
			silent++;
			continue;
		}
		bool only = d == DQ_ANSWER && a.rcode == 0 && a.nanswers >= 1 && a.nanswers <= SP_ARRAY_SIZE(a.addrs);
		for (unsigned j = 0; only && j < a.nanswers; j++)
			only = strcmp(a.addrs[j], ip) == 0;
		if (only)
			good++;
		else
			bad++;
	}
	if (bad)
		sp_failr(r, "%zu of %zu faked name%s did not resolve to the declared address alone", bad, n, n == 1 ? "" : "s");
	else if (silent)
		sp_errorr(r, "the resolver %s did not answer for %zu of %zu name%s", label, silent, n, n == 1 ? "" : "s");
	else
		sp_pass(r, "all %zu faked name%s resolved to the declared address", good, good == 1 ? "" : "s");
	sp_strv_free(&v);
}

/* with nothing declared the runner skips the check without a probe child */
static bool declared(const sp_ctx *ctx, const char *key, sp_outcome *o)
{
	const char *v = sp_policy_get(ctx->policy, key);
	if (v && *v)
		return true;
	sp_why(o, "%s is unset: nothing declared", key);
	return false;
}
static bool has_query(const sp_ctx *c, sp_outcome *o)
{
	if (declared(c, "net.dns.large", o) || declared(c, "net.dns.query", o))
		return true;
	sp_why(o, "net.dns.query and net.dns.large are unset: nothing declared");
	return false;
}
static bool has_nx(const sp_ctx *c, sp_outcome *o) { return declared(c, "net.dns.nxdomain", o); }
static bool has_fake(const sp_ctx *c, sp_outcome *o) { return declared(c, "net.dns.fake", o); }

const sp_check sp_check_net_dns_transports = {
	.id = SP_CKID(net_dns_transports),
	.supported = has_query,
	.category = "network",
	.title = "the sandbox's resolver answers over UDP and over TCP, and a truncated answer comes whole over TCP",
	.rationale = "a resolver that drops TCP breaks large answers (DNSSEC, long TXT) the agent's tools need, "
		     "and one that does not answer leaves every DNS verdict unproven",
	.techniques = "",
	.policy_keys = "net.dns.query:dns_name,net.dns.large:dns_name," DNS_KEYS_COMMON,
	.method = "action",
	.run = run_transports,
};

const sp_check sp_check_net_dns_nxdomain = {
	.id = SP_CKID(net_dns_nxdomain),
	.supported = has_nx,
	.category = "network",
	.title = "names that must not resolve get NXDOMAIN from the sandbox's resolver",
	.rationale = "a resolver that answers for names outside the allowlist maps the outside and carries data out",
	.techniques = "AML.T0025,T1071.004,T1048",
	.policy_keys = "net.dns.nxdomain:dns_names," DNS_KEYS_COMMON,
	.method = "action",
	.run = run_nxdomain,
};

const sp_check sp_check_net_dns_fake = {
	.id = SP_CKID(net_dns_fake),
	.supported = has_fake,
	.category = "network",
	.title = "faked names resolve to the declared address and no other",
	.rationale = "a sandbox that steers names to its proxy or sinkhole must not leak the real address",
	.techniques = "AML.T0025,T1071.004",
	.policy_keys = "net.dns.fake:dns_fakes," DNS_KEYS_COMMON,
	.method = "action",
	.run = run_fake,
};
