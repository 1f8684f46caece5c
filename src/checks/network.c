/* Network: interfaces, routes, DNS, IPv6 state, and egress probes.
 *
 * Every egress probe of every net.* check runs in one parallel batch (see
 * net_probe.c): the first of these checks to run starts all of them at once,
 * each bounded by its own deadline (net.egress.timeout_ms, default 1000 ms),
 * and the later checks read the same results. So the whole category costs
 * one probe timeout, not one per probe. The batch-reading checks run in the
 * doctor process (they share the cached results); the batch itself runs in
 * a forked child with a hard deadline, so a seccomp filter that kills on
 * socket() costs a verdict ("filtered: SIGSYS"), not the doctor. Probes only
 * go to targets the policy names: shipped profiles name none.
 *
 * A probe that connects, gets any UDP answer, or is refused (RST, ICMP port
 * unreachable) proves a packet left the sandbox: FAIL, unless the target is
 * the sandbox's own address or the ICMP refusal came from one (a redirect to
 * a closed local port): that proves nothing either way. Unreachable, timeout,
 * EPERM/EACCES from a filter, or a missing address family prove a block. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "checks/types.h"
#include "checks/net_ext.h"
#include "checks/net_probe.h"
#include "checks/net_proxy.h"
#include "checks/network.h"
#include "checks/probe.h"
#include "core/runner.h"
#include "core/util.h"
#include "catalog/catalog.h"

#define NET_KEYS_EGRESS "net.egress.deny:targets,net.egress.allow:targets,net.egress.timeout_ms:int"

/* ---- interfaces ---------------------------------------------------------- */

static bool iface_allowed(const sp_strv *allowed, const char *name)
{
	for (size_t i = 0; i < allowed->n; i++)
		if (sp_glob_match(allowed->v[i], name))
			return true;
	return false;
}

static void run_interfaces(const sp_ctx *ctx, sp_result *r)
{
	sp_strv allowed;
	sp_policy_list(ctx->policy, "net.interfaces", &allowed);
	if (allowed.n == 0) {
		sp_expected(r, "any (net.interfaces not set)");
	} else {
		char list[200] = "";
		for (size_t i = 0; i < allowed.n; i++) {
			size_t l = strlen(list);
			snprintf(list + l, sizeof list - l, "%s%s", i ? "," : "", allowed.v[i]);
		}
		sp_expected(r, "only interfaces matching %s", list);
	}
	struct if_nameindex *ifs = if_nameindex();
	if (!ifs) {
		int e = errno;
		sp_strv_free(&allowed);
		sp_errorr(r, "cannot list interfaces (if_nameindex): %s", strerror(e));
		return;
	}
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	char extra[256] = "";
	size_t count = 0, bad = 0;
	r->observed[0] = '\0';
	for (struct if_nameindex *i = ifs; i->if_index; i++) {
		count++;
		struct ifreq ifr;
		memset(&ifr, 0, sizeof ifr);
		snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", i->if_name);
		const char *state = "?";
		if (s >= 0 && ioctl(s, SIOCGIFFLAGS, &ifr) == 0)
			state = (ifr.ifr_flags & IFF_UP) ? "up" : "down";
		sp_observed_add(r, "%s(%s)", i->if_name, state);
		if (allowed.n && !iface_allowed(&allowed, i->if_name)) {
			bad++;
			size_t l = strlen(extra);
			snprintf(extra + l, sizeof extra - l, "%s%s", l ? "," : "", i->if_name);
		}
	}
	if (s >= 0)
		close(s);
	if_freenameindex(ifs);
	sp_strv_free(&allowed);
	if (count == 0)
		sp_errorr(r, "the interface list is empty (not even lo): cannot judge");
	else if (bad)
		sp_failr(r, "%zu interface%s outside the policy: %s", bad, bad == 1 ? "" : "s", extra);
	else
		sp_pass(r, "%zu interface%s, all allowed", count, count == 1 ? "" : "s");
}

/* ---- routes -------------------------------------------------------------- */

/* default routes from /proc/net/route and /proc/net/ipv6_route; -1 unreadable */
static int proc_default_routes(char *desc, size_t size, int *n4, int *n6)
{
	*n4 = *n6 = 0;
	desc[0] = '\0';
	int e = 0, readable = 0;
	_cleanup_free_ char *v4 = sp_read_file_alloc("/proc/net/route", 1 << 20, NULL, &e);
	if (v4) {
		readable++;
		char *save = NULL;
		for (char *line = strtok_r(v4, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char dev[64];
			unsigned dst, gw, flags, mask;
			if (sscanf(line, "%63s %x %x %x %*d %*d %*d %x", dev, &dst, &gw, &flags, &mask) != 5)
				continue;
			if (dst == 0 && mask == 0 && (flags & 0x1) /* RTF_UP */) {
				(*n4)++;
				struct in_addr a = {.s_addr = gw};
				size_t l = strlen(desc);
				snprintf(desc + l, size - l, "%sv4 default via %s dev %s", l ? ", " : "", inet_ntoa(a), dev);
			}
		}
	}
	_cleanup_free_ char *v6 = sp_read_file_alloc("/proc/net/ipv6_route", 1 << 20, NULL, &e);
	if (v6) {
		readable++;
		char *save = NULL;
		for (char *line = strtok_r(v6, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char dst[40], plen[4], dev[64];
			unsigned flags;
			if (sscanf(line, "%39s %3s %*s %*s %*s %*s %*s %*s %x %63s", dst, plen, &flags, dev) != 4)
				continue;
			if (strcmp(dst, "00000000000000000000000000000000") || strcmp(plen, "00"))
				continue;
			if ((flags & 0x0200) /* RTF_REJECT */ || !strcmp(dev, "lo"))
				continue;
			(*n6)++;
			size_t l = strlen(desc);
			snprintf(desc + l, size - l, "%sv6 default dev %s", l ? ", " : "", dev);
		}
	}
	return readable ? 0 : -1;
}

static void run_default_route(const sp_ctx *ctx, sp_result *r)
{
	bool allowed = sp_policy_bool(ctx->policy, "net.default_route", false);
	sp_expected(r, "%s", allowed ? "any (a default route is allowed)" : "no default route (IPv4 or IPv6)");
	char desc[400];
	int n4, n6;
	int pr = proc_default_routes(desc, sizeof desc, &n4, &n6);
	/* TEST-NET-1 and the IPv6 documentation prefix: never routed publicly */
	sp_outcome o4 = {0}, o6 = {0};
	int l4 = sp_net_route_lookup(AF_INET, "192.0.2.1", &o4), l6 = sp_net_route_lookup(AF_INET6, "2001:db8::1", &o6);
	const char *table = desc[0] ? desc : "no default route in /proc/net";
	if (pr < 0)
		table = "/proc/net/route unreadable";
	const char *w4 = l4 == 0 ? "routable" : strerrorname_np(o4.errnum);
	const char *w6 = l6 == 0 ? "routable" : strerrorname_np(o6.errnum);
	sp_observed(r, "%s; route lookup (UDP connect, nothing sent) to 192.0.2.1: %s, to 2001:db8::1: %s", table, w4, w6);
	bool routable = l4 == 0 || l6 == 0 || n4 > 0 || n6 > 0;
	/* true allows a route, it does not demand one: a pass must still rest on
	 * a route seen (the table or a routed lookup); where none exists there is
	 * nothing to prove, and net.iface.default_route = present demands one */
	if (allowed && routable)
		sp_pass(r, "a default route exists (%s), allowed by policy",
			l4 == 0 || l6 == 0 ? "a lookup off the host is routed" : "in the route table");
	else if (allowed)
		sp_skip(r, "a default route is allowed and none exists: nothing to judge "
			   "(net.iface.default_route = present demands one)");
	else if (routable)
		sp_failr(r, "the sandbox has a route off the host%s", l4 == 0 || l6 == 0 ? " (proven by route lookup)" : "");
	else
		sp_pass(r, "no default route: off-host addresses are unreachable");
}

/* ---- IPv6 state ------------------------------------------------------------ */

static const char *const ipv6_modes[] = {"off", "loopback", "any", NULL};
const sp_policy_type sp_ptype_ipv6_mode = {.name = "ipv6", .what = "off, loopback or any", .choices = ipv6_modes};

static void run_ipv6(const sp_ctx *ctx, sp_result *r)
{
	const char *want = sp_policy_get(ctx->policy, "net.ipv6");
	if (!want || !*want)
		want = "any";
	sp_outcome o = {0};
	if (sp_policy_value_check(&sp_ptype_ipv6_mode, want, &o) < 0) {
		sp_errorr(r, "net.ipv6: %.199s", o.why);
		return;
	}
	sp_expected(r, "%s", !strcmp(want, "off") ? "IPv6 unavailable (no addresses, or the family refused)"
			     : !strcmp(want, "loopback") ? "no IPv6 address other than ::1 and no IPv6 route off the host"
							   : "any (reported only)");
	int s = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int se = s < 0 ? errno : 0;
	if (s >= 0)
		close(s);
	int e = 0;
	_cleanup_free_ char *if6 = sp_read_file_alloc("/proc/net/if_inet6", 1 << 20, NULL, &e);
	unsigned nonloop = 0, total = 0;
	char addrs[400] = "";
	if (if6) {
		char *save = NULL;
		for (char *line = strtok_r(if6, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char hex[33], dev[64];
			unsigned idx, plen, scope, flags;
			if (sscanf(line, "%32s %x %x %x %x %63s", hex, &idx, &plen, &scope, &flags, dev) != 6)
				continue;
			struct in6_addr a;
			for (int i = 0; i < 16; i++) {
				unsigned b;
				sscanf(hex + 2 * i, "%2x", &b);
				a.s6_addr[i] = (uint8_t)b;
			}
			char txt[INET6_ADDRSTRLEN];
			inet_ntop(AF_INET6, &a, txt, sizeof txt);
			total++;
			if (!IN6_IS_ADDR_LOOPBACK(&a))
				nonloop++;
			size_t l = strlen(addrs);
			snprintf(addrs + l, sizeof addrs - l, "%s%s/%u(%s)", l ? " " : "", txt, plen, dev);
		}
	}
	sp_outcome o6 = {0};
	int l6 = sp_net_route_lookup(AF_INET6, "2001:db8::1", &o6);
	sp_observed(r, "AF_INET6 socket: %s; addresses: %s; route to 2001:db8::1: %s",
		    s >= 0 ? "ok" : strerrorname_np(se),
		    if6 ? (addrs[0] ? addrs : "none") : "/proc/net/if_inet6 absent",
		    l6 == 0 ? "routable" : strerrorname_np(o6.errnum));
	bool off = s < 0 || (if6 && total == 0) || (!if6 && e == ENOENT);
	if (!strcmp(want, "any"))
		sp_pass(r, "IPv6 %s (reported only)", off ? "unavailable" : "available");
	else if (!strcmp(want, "off"))
		off ? sp_pass(r, "IPv6 unavailable") : sp_failr(r, "IPv6 is available (%u address%s)", total, total == 1 ? "" : "es");
	else if (off || (nonloop == 0 && l6 != 0))
		sp_pass(r, "IPv6 limited to loopback");
	else if (nonloop)
		sp_failr(r, "%u IPv6 address%s beyond ::1", nonloop, nonloop == 1 ? "" : "es");
	else
		sp_failr(r, "an IPv6 route off the host exists");
}

/* ---- the parallel batch ------------------------------------------------------ */

typedef struct net_cfgerr {
	const char *check;
	char msg[240];
} net_cfgerr;

typedef struct net_dnsmeta {
	char name[128];
	uint16_t id;
} net_dnsmeta;

static struct net_batch {
	bool ran;
	const sp_policy *policy; /* the policy it was built for */
	sp_netprobe *p;
	net_dnsmeta *dns;        /* parallel to p (used by DNS probes) */
	size_t n, cap;
	net_cfgerr err[16];
	size_t nerr;
	sp_proxy_plan proxy;
	uint64_t elapsed_us;
	char resolvers_src[64];
	char fault[240];         /* the prober itself died: every batch check errors */
} batch;

static void cfg_error(const char *check, const char *fmt, ...) SP_PRINTF(2, 3);
static void cfg_error(const char *check, const char *fmt, ...)
{
	if (batch.nerr >= SP_ARRAY_SIZE(batch.err))
		return;
	net_cfgerr *e = &batch.err[batch.nerr++];
	e->check = check;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
}

static sp_netprobe *add_probe(const char *check, int socktype, const struct sockaddr_storage *sa, socklen_t len,
			      unsigned timeout_ms)
{
	if (batch.n == batch.cap) {
		batch.cap = batch.cap ? batch.cap * 2 : 32;
		batch.p = sp_xrealloc(batch.p, batch.cap * sizeof *batch.p);
		batch.dns = sp_xrealloc(batch.dns, batch.cap * sizeof *batch.dns);
	}
	sp_netprobe *p = &batch.p[batch.n];
	memset(p, 0, sizeof *p);
	memset(&batch.dns[batch.n], 0, sizeof batch.dns[0]);
	batch.n++;
	p->check = check;
	p->socktype = socktype;
	p->sa = *sa;
	p->salen = len;
	p->timeout_ms = timeout_ms;
	p->fd = -1;
	char t[80];
	sp_net_format_sa((const struct sockaddr *)sa, t, sizeof t);
	snprintf(p->label, sizeof p->label, "%s %s", socktype == SOCK_STREAM ? "tcp" : "udp", t);
	return p;
}

/* ICMP echo through an unprivileged ping socket (what ping(8) and tunnels
 * like ptunnel use without CAP_NET_RAW); the kernel fills id and checksum */
static void add_icmp_probe(const char *check, const struct sockaddr_storage *sa, socklen_t len, unsigned timeout_ms)
{
	struct sockaddr_storage s = *sa;
	bool v6 = s.ss_family == AF_INET6;
	if (v6)
		((struct sockaddr_in6 *)&s)->sin6_port = 0;
	else
		((struct sockaddr_in *)&s)->sin_port = 0;
	sp_netprobe *p = add_probe(check, SOCK_DGRAM, &s, len, timeout_ms);
	p->proto = v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	static const uint8_t echo[] = {0, 0, 0, 0, 0, 0, 0, 1, 's', 'a', 'n', 'd', 'p', 'r', 'o', 'b', 'e'};
	memcpy(p->payload, echo, sizeof echo);
	p->payload[0] = v6 ? 128 : 8;
	p->plen = sizeof echo;
	char t[80];
	sp_net_format_sa((const struct sockaddr *)&s, t, sizeof t);
	t[strlen(t) - 2] = '\0'; /* drop ":0" */
	snprintf(p->label, sizeof p->label, "icmp echo %s", t);
}

static sp_netprobe *add_udp_probe(const char *check, const struct sockaddr_storage *sa, socklen_t len,
				  unsigned timeout_ms)
{
	sp_netprobe *p = add_probe(check, SOCK_DGRAM, sa, len, timeout_ms);
	static const char hello[] = "sandprobe egress probe\n";
	memcpy(p->payload, hello, sizeof hello - 1);
	p->plen = sizeof hello - 1;
	return p;
}

static bool check_on(const sp_ctx *ctx, const char *id)
{
	return sp_policy_expect(ctx->policy, id) != SP_EXPECT_OFF;
}

static uint16_t next_id(void)
{
	static uint16_t seq;
	return (uint16_t)((sp_now_ns() >> 10) ^ (uint64_t)getpid() ^ (uint16_t)(++seq * 40503u));
}

static void add_dns_probe(const char *check, const struct sockaddr_storage *sa, socklen_t len, const char *name,
			  uint16_t qtype, unsigned timeout_ms)
{
	sp_netprobe *p = add_probe(check, SOCK_DGRAM, sa, len, timeout_ms);
	net_dnsmeta *m = &batch.dns[p - batch.p];
	m->id = next_id();
	snprintf(m->name, sizeof m->name, "%s", name);
	int q = sp_dns_build_query(p->payload, sizeof p->payload, m->id, name, qtype);
	if (q < 0) {
		batch.n--;
		cfg_error(check, "'%s' is not a valid DNS name", name);
		return;
	}
	p->plen = (size_t)q;
	size_t l = strlen(p->label);
	snprintf(p->label + l, sizeof p->label - l, " %s? %.60s", qtype == 1 ? "A" : "AAAA", name);
}

/* the same query over TCP (RFC 7766): a 2-byte length, then the message */
static void add_dns_tcp_probe(const char *check, const struct sockaddr_storage *sa, socklen_t len, const char *name,
			      uint16_t qtype, unsigned timeout_ms)
{
	sp_netprobe *p = add_probe(check, SOCK_STREAM, sa, len, timeout_ms);
	net_dnsmeta *m = &batch.dns[p - batch.p];
	m->id = next_id();
	snprintf(m->name, sizeof m->name, "%s", name);
	int q = sp_dns_build_query(p->payload + 2, sizeof p->payload - 2, m->id, name, qtype);
	if (q < 0) {
		batch.n--;
		cfg_error(check, "'%s' is not a valid DNS name", name);
		return;
	}
	p->payload[0] = (uint8_t)(q >> 8);
	p->payload[1] = (uint8_t)q;
	p->plen = (size_t)q + 2;
	size_t l = strlen(p->label);
	snprintf(p->label + l, sizeof p->label - l, " %s? %.60s", qtype == 1 ? "A" : "AAAA", name);
}

/* resolvers: net.dns.resolvers, else /etc/resolv.conf, else glibc's default */
static void dns_resolvers(const sp_ctx *ctx, sp_strv *out)
{
	sp_policy_list(ctx->policy, "net.dns.resolvers", out);
	if (out->n) {
		snprintf(batch.resolvers_src, sizeof batch.resolvers_src, "net.dns.resolvers");
		return;
	}
	int e = 0;
	_cleanup_free_ char *rc = sp_read_file_alloc("/etc/resolv.conf", 1 << 16, NULL, &e);
	if (rc) {
		char *save = NULL;
		for (char *line = strtok_r(rc, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char ns[80];
			if (sscanf(line, " nameserver %79s", ns) != 1)
				continue;
			ns[strcspn(ns, "%")] = '\0'; /* drop an IPv6 zone */
			if (strchr(ns, ':')) {
				char b[90];
				snprintf(b, sizeof b, "[%s]:53", ns);
				sp_strv_push(out, b);
			} else {
				sp_strv_push(out, ns);
			}
			if (out->n == 3)
				break;
		}
		snprintf(batch.resolvers_src, sizeof batch.resolvers_src, "/etc/resolv.conf");
	}
	if (out->n == 0) {
		/* what glibc does without a nameserver line: loopback only */
		sp_strv_push(out, "127.0.0.1:53");
		snprintf(batch.resolvers_src, sizeof batch.resolvers_src, "%s",
			 rc ? "no nameserver in /etc/resolv.conf: 127.0.0.1" : "no /etc/resolv.conf: 127.0.0.1");
	}
}

/* parse a policy list of targets; bad entries become config errors */
static size_t targets(const sp_ctx *ctx, const char *key, const char *check, int defport,
		      struct sockaddr_storage *out, socklen_t *lens, char (*text)[80], size_t max)
{
	sp_strv v;
	sp_policy_list(ctx->policy, key, &v);
	size_t n = 0;
	for (size_t i = 0; i < v.n && n < max; i++) {
		sp_outcome o = {0};
		if (sp_net_parse_hostport(v.v[i], defport, &out[n], &lens[n], &o) < 0) {
			cfg_error(check, "%s: %s", key, o.why);
			continue;
		}
		if (text)
			snprintf(text[n], sizeof text[n], "%s", v.v[i]);
		n++;
	}
	sp_strv_free(&v);
	return n;
}

#define MAXT SP_NET_MAX_TARGETS

static void build_dns(const sp_ctx *ctx, unsigned to)
{
	if (check_on(ctx, "net.lookup")) {
		sp_strv names, res;
		sp_policy_list(ctx->policy, "net.dns.unlisted", &names);
		dns_resolvers(ctx, &res);
		for (size_t i = 0; i < res.n; i++) {
			struct sockaddr_storage sa;
			socklen_t len;
			sp_outcome o = {0};
			if (sp_net_parse_hostport(res.v[i], 53, &sa, &len, &o) < 0) {
				cfg_error("net.lookup", "resolver %s", o.why);
				continue;
			}
			for (size_t j = 0; j < names.n && j < SP_DNS_MAX_NAMES; j++) {
				/* over TCP too: a transport the agent has, and the one
				 * that completes a truncated (TC) UDP answer */
				for (uint16_t t = 1; t; t = t == 1 ? 28 : 0) {
					add_dns_probe("net.lookup", &sa, len, names.v[j], t, to);
					add_dns_tcp_probe("net.lookup", &sa, len, names.v[j], t, to);
				}
			}
		}
		sp_strv_free(&names);
		sp_strv_free(&res);
	}
	if (check_on(ctx, "net.egress.resolver")) {
		struct sockaddr_storage sa[MAXT];
		socklen_t len[MAXT];
		size_t n = targets(ctx, "net.egress.dns", "net.egress.resolver", 53, sa, len, NULL, MAXT);
		for (size_t i = 0; i < n; i++)
			add_dns_probe("net.egress.resolver", &sa[i], len[i], "example.com", 1, to);
	}
}

/* net.listening: the services the sandbox needs answer where declared */
static void build_listening(const sp_ctx *ctx, unsigned to)
{
	if (!check_on(ctx, "net.listening"))
		return;
	struct sockaddr_storage sa[MAXT];
	socklen_t len[MAXT];
	size_t n = targets(ctx, "net.listening.tcp", "net.listening", 0, sa, len, NULL, MAXT);
	for (size_t i = 0; i < n; i++)
		add_probe("net.listening", SOCK_STREAM, &sa[i], len[i], to);
	n = targets(ctx, "net.listening.dns", "net.listening", 53, sa, len, NULL, MAXT);
	for (size_t i = 0; i < n; i++)
		add_dns_probe("net.listening", &sa[i], len[i], "sandprobe-listening.invalid", 1, to);
}

static void build_egress(const sp_ctx *ctx, unsigned to)
{
	struct sockaddr_storage sa[MAXT];
	socklen_t len[MAXT];
	size_t n = targets(ctx, "net.egress.deny", "net.egress", 0, sa, len, NULL, MAXT);
	bool on_tcp = check_on(ctx, "net.egress"), on6 = check_on(ctx, "net.egress.ipv6"),
	     on_direct = check_on(ctx, "net.egress.direct_ip");
	bool on_udp = check_on(ctx, "net.egress.udp"), on_icmp = check_on(ctx, "net.egress.icmp");
	for (size_t i = 0; i < n; i++) {
		bool v4 = sa[i].ss_family == AF_INET;
		if (v4 ? on_tcp : on6)
			add_probe(v4 ? "net.egress" : "net.egress.ipv6", SOCK_STREAM, &sa[i], len[i], to);
		if (on_udp)
			add_udp_probe("net.egress.udp", &sa[i], len[i], to);
		/* one echo per address, whatever the ports */
		bool seen = false;
		for (size_t k = 0; k < i; k++)
			if (sa[k].ss_family == sa[i].ss_family &&
			    (v4 ? !memcmp(&((struct sockaddr_in *)&sa[k])->sin_addr, &((struct sockaddr_in *)&sa[i])->sin_addr, 4)
				: !memcmp(&((struct sockaddr_in6 *)&sa[k])->sin6_addr, &((struct sockaddr_in6 *)&sa[i])->sin6_addr, 16)))
				seen = true;
		if (on_icmp && !seen)
			add_icmp_probe("net.egress.icmp", &sa[i], len[i], to);
		if (!v4)
			continue;
		const struct sockaddr_in *in4 = (const struct sockaddr_in *)&sa[i];
		uint32_t a = ntohl(in4->sin_addr.s_addr);
		if (on_direct) {
			/* each textual form, decoded the way a permissive client decodes it */
			for (sp_ipform f = SP_IPF_OCTAL; f <= SP_IPF_HEXINT; f++) {
				char txt[64];
				uint32_t back;
				sp_ipv4_format(a, f, txt, sizeof txt);
				if (sp_net_parse_ipv4_any(txt, &back) < 0 || back != a) {
					cfg_error("net.egress.direct_ip", "internal: form %s of %08x decodes wrong", txt, a);
					continue;
				}
				struct sockaddr_storage f4;
				memset(&f4, 0, sizeof f4);
				struct sockaddr_in *p4 = (struct sockaddr_in *)&f4;
				p4->sin_family = AF_INET;
				p4->sin_port = in4->sin_port;
				p4->sin_addr.s_addr = htonl(back);
				sp_netprobe *p = add_probe("net.egress.direct_ip", SOCK_STREAM, &f4, sizeof *p4, to);
				snprintf(p->label, sizeof p->label, "tcp %s:%u (%s)", txt, ntohs(in4->sin_port),
					 sp_ipform_name(f));
			}
			/* IPv4 through an IPv6 socket: filters keyed on AF_INET miss it */
			struct sockaddr_storage m6;
			memset(&m6, 0, sizeof m6);
			struct sockaddr_in6 *p6 = (struct sockaddr_in6 *)&m6;
			p6->sin6_family = AF_INET6;
			p6->sin6_port = in4->sin_port;
			p6->sin6_addr.s6_addr[10] = 0xff;
			p6->sin6_addr.s6_addr[11] = 0xff;
			memcpy(&p6->sin6_addr.s6_addr[12], &in4->sin_addr.s_addr, 4);
			add_probe("net.egress.direct_ip", SOCK_STREAM, &m6, sizeof *p6, to);
		}
		if (on6) {
			/* NAT64 well-known prefix 64:ff9b::/96 reaches IPv4 hosts over IPv6 */
			struct sockaddr_storage n6;
			memset(&n6, 0, sizeof n6);
			struct sockaddr_in6 *p6 = (struct sockaddr_in6 *)&n6;
			p6->sin6_family = AF_INET6;
			p6->sin6_port = in4->sin_port;
			p6->sin6_addr.s6_addr[1] = 0x64;
			p6->sin6_addr.s6_addr[2] = 0xff;
			p6->sin6_addr.s6_addr[3] = 0x9b;
			memcpy(&p6->sin6_addr.s6_addr[12], &in4->sin_addr.s_addr, 4);
			sp_netprobe *p = add_probe("net.egress.ipv6", SOCK_STREAM, &n6, sizeof *p6, to);
			size_t l = strlen(p->label);
			snprintf(p->label + l, sizeof p->label - l, " (nat64)");
		}
	}
	if (check_on(ctx, "net.egress.metadata")) {
		size_t m = targets(ctx, "net.egress.metadata", "net.egress.metadata", 80, sa, len, NULL, MAXT);
		for (size_t i = 0; i < m; i++)
			add_probe("net.egress.metadata", SOCK_STREAM, &sa[i], len[i], to);
	}
	/* allowed targets: positive control, and their other ports must be closed */
	size_t na = targets(ctx, "net.egress.allow", "net.egress.allow", 0, sa, len, NULL, MAXT);
	if (check_on(ctx, "net.egress.allow"))
		for (size_t i = 0; i < na; i++)
			add_probe("net.egress.allow", SOCK_STREAM, &sa[i], len[i], to);
	if (check_on(ctx, "net.egress.ports")) {
		sp_strv ports;
		sp_policy_list(ctx->policy, "net.egress.ports", &ports);
		for (size_t j = 0; j < ports.n; j++) {
			unsigned pv;
			if (sp_net_parse_port(ports.v[j], &pv) < 0) {
				cfg_error("net.egress.ports", "net.egress.ports: '%s' is not a port", ports.v[j]);
				continue;
			}
			for (size_t i = 0; i < na; i++) {
				struct sockaddr_storage o = sa[i];
				bool listed = false;
				for (size_t k = 0; k < na; k++) {
					struct sockaddr_in *a = (struct sockaddr_in *)&sa[k];
					struct sockaddr_in6 *b = (struct sockaddr_in6 *)&sa[k];
					uint16_t port = sa[k].ss_family == AF_INET ? ntohs(a->sin_port) : ntohs(b->sin6_port);
					bool same = sa[k].ss_family == sa[i].ss_family &&
						    (sa[i].ss_family == AF_INET
							     ? !memcmp(&a->sin_addr, &((struct sockaddr_in *)&sa[i])->sin_addr, 4)
							     : !memcmp(&b->sin6_addr, &((struct sockaddr_in6 *)&sa[i])->sin6_addr, 16));
					if (same && port == pv)
						listed = true;
				}
				bool dup = false;
				for (size_t k = 0; k < i; k++)
					if (sa[k].ss_family == sa[i].ss_family && !memcmp(&sa[k], &sa[i], len[i]))
						dup = true;
				if (listed || dup)
					continue;
				if (o.ss_family == AF_INET)
					((struct sockaddr_in *)&o)->sin_port = htons((uint16_t)pv);
				else
					((struct sockaddr_in6 *)&o)->sin6_port = htons((uint16_t)pv);
				add_probe("net.egress.ports", SOCK_STREAM, &o, len[i], to);
			}
		}
		sp_strv_free(&ports);
	}
}

/* Run the batch in a child and copy the results back: a sandbox whose
 * seccomp filter kills on socket() or connect() must cost a verdict, not
 * the doctor. Returns 0, or the signal that killed the child (-1: other). */
static int run_isolated(unsigned to)
{
	sp_proxy_plan *pl = &batch.proxy;
	size_t pn = pl->child ? pl->n : 0;
	/* the tls.* and net.transparent.* children run in the same parallel run */
	size_t en;
	sp_netchild *ec = sp_net_ext_children(&en);
	size_t need = sizeof batch.elapsed_us + batch.n * sizeof *batch.p + pn * (sizeof *pl->req + sizeof *pl->child) +
		      sizeof pl->log_error + sp_net_ext_wire_size();
	int pfd[2];
	fflush(NULL);
	pid_t pid = sp_fork_piped(pfd);
	if (pid < 0)
		return -1;
	if (pid == 0) {
		signal(SIGPIPE, SIG_IGN);
		uint64_t t0 = sp_now_ns();
		sp_netchild *all = sp_xcalloc(pn + en + 1, sizeof *all);
		if (pn)
			memcpy(all, pl->child, pn * sizeof *all);
		if (en)
			memcpy(all + pn, ec, en * sizeof *all);
		sp_net_run_parallel(batch.p, batch.n, all, pn + en);
		if (pn)
			memcpy(pl->child, all, pn * sizeof *all);
		if (en)
			memcpy(ec, all + pn, en * sizeof *all);
		batch.elapsed_us = (sp_now_ns() - t0) / 1000;
		sp_proxy_plan_collect(pl);
		int w = sp_write_all(pfd[1], &batch.elapsed_us, sizeof batch.elapsed_us);
		if (!w && batch.n)
			w = sp_write_all(pfd[1], batch.p, batch.n * sizeof *batch.p);
		if (!w && pn)
			w = sp_write_all(pfd[1], pl->req, pn * sizeof *pl->req);
		if (!w && pn)
			w = sp_write_all(pfd[1], pl->child, pn * sizeof *pl->child);
		if (!w)
			w = sp_write_all(pfd[1], pl->log_error, sizeof pl->log_error);
		if (!w)
			w = sp_net_ext_write(pfd[1]);
		_exit(w ? 3 : 0);
	}
	_cleanup_free_ char *buf = sp_xmalloc(need);
	size_t got = 0;
	/* every probe has its own deadline; this one only guards against a wedged child */
	uint64_t deadline = sp_now_ns() + ((uint64_t)to + 3000) * 1000000ull;
	while (got < need) {
		uint64_t now = sp_now_ns();
		if (now >= deadline)
			break;
		struct pollfd pf = {.fd = pfd[0], .events = POLLIN};
		int r = poll(&pf, 1, (int)((deadline - now) / 1000000ull) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		ssize_t k = read(pfd[0], buf + got, need - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(pfd[0]);
	kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got != need)
		return WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL ? WTERMSIG(status) : -1;
	char *at = buf;
	memcpy(&batch.elapsed_us, at, sizeof batch.elapsed_us);
	at += sizeof batch.elapsed_us;
	if (batch.n)
		memcpy(batch.p, at, batch.n * sizeof *batch.p);
	at += batch.n * sizeof *batch.p;
	if (pn) {
		memcpy(pl->req, at, pn * sizeof *pl->req);
		at += pn * sizeof *pl->req;
		memcpy(pl->child, at, pn * sizeof *pl->child);
		at += pn * sizeof *pl->child;
	}
	memcpy(pl->log_error, at, sizeof pl->log_error);
	sp_net_ext_read(at + sizeof pl->log_error);
	return 0;
}

/* Which socket kinds does a seccomp filter kill outright? Each is tried in
 * its own short-lived child; probes of a killed kind are decided as
 * filtered without being run. Returns how many kinds were killed. */
static size_t preflight_sigsys(void)
{
	size_t killed_kinds = 0;
	for (size_t i = 0; i < batch.n; i++) {
		sp_netprobe *p = &batch.p[i];
		if (p->decided)
			continue;
		pid_t pid = fork();
		if (pid < 0)
			break;
		if (pid == 0) {
			int fd = socket(p->sa.ss_family, p->socktype | SOCK_CLOEXEC, p->proto);
			_exit(fd >= 0 ? 0 : 1);
		}
		int st = 0;
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS))
			continue;
		killed_kinds++;
		/* decide every probe of the same kind */
		for (size_t k = i; k < batch.n; k++) {
			sp_netprobe *q = &batch.p[k];
			if (q->sa.ss_family == p->sa.ss_family && q->socktype == p->socktype && q->proto == p->proto) {
				q->decided = true;
				q->cls = SP_NC_FILTERED;
				q->err = 0; /* shown as SIGSYS */
				q->fd = -1;
			}
		}
	}
	return killed_kinds;
}

static const struct net_batch *get_batch(const sp_ctx *ctx)
{
	if (batch.ran && batch.policy == ctx->policy)
		return &batch;
	sp_net_batch_reset();
	batch.policy = ctx->policy;
	unsigned to = (unsigned)sp_policy_int(ctx->policy, "net.egress.timeout_ms", 1000);
	if (to == 0 || to > 60000)
		to = 1000;
	build_dns(ctx, to);
	build_egress(ctx, to);
	build_listening(ctx, to);
	sp_proxy_plan_build(ctx, &batch.proxy, to);
	unsigned ext_to = sp_net_ext_build(ctx, &batch.proxy, to);
	size_t en;
	sp_net_ext_children(&en);
	for (size_t i = 0; i < batch.n; i++)
		batch.p[i].fd = -1;
	/* nothing to send: no child needed */
	unsigned guard = ext_to > to ? ext_to : to;
	int sig = batch.n || batch.proxy.n || en ? run_isolated(guard) : 0;
	if (sig > 0 && sig == SIGSYS && preflight_sigsys() > 0)
		sig = run_isolated(guard);
	if (sig != 0) {
		if (sig > 0)
			snprintf(batch.fault, sizeof batch.fault,
				 "the probe process was killed by signal %d (%s)%s: egress not proven", sig, strsignal(sig),
				 sig == SIGSYS ? ", a seccomp filter kills a call it needs besides socket()" : "");
		else
			snprintf(batch.fault, sizeof batch.fault, "the probe process gave no results: egress not proven");
	}
	batch.ran = true;
	return &batch;
}

const char *sp_net_batch_ensure(const sp_ctx *ctx)
{
	return get_batch(ctx)->fault;
}

/* The declared batch of every DNS, egress and proxy probe: one child runs
 * them all at once (each with its own deadline, sp_net_run_parallel), and
 * each net.* member judges its own from the results. Other network checks
 * join by naming it (.batch = &sp_batch_net) and reading get_batch(). */
static void net_batch_run(const sp_ctx *ctx)
{
	get_batch(ctx);
}

static unsigned net_batch_budget(const sp_ctx *ctx)
{
	unsigned to = (unsigned)sp_policy_int(ctx->policy, "net.egress.timeout_ms", 1000);
	if (to == 0 || to > 60000)
		to = 1000;
	/* the run, a second run after a SIGSYS preflight, and slack */
	return 2 * to + 5000 > ctx->timeout_ms ? 2 * to + 5000 : ctx->timeout_ms;
}

const sp_batch sp_batch_net = {
	.id = "net.probes",
	.what = "every DNS, egress and proxy probe in one child, in parallel, each with its own deadline",
	.budget_ms = net_batch_budget,
	.run = net_batch_run,
};

void sp_net_batch_reset(void)
{
	sp_net_ext_reset();
	free(batch.p);
	free(batch.dns);
	sp_proxy_plan_free(&batch.proxy);
	memset(&batch, 0, sizeof batch);
}

/* ---- judging ---------------------------------------------------------------- */

static const char *errname(int e)
{
	const char *n = e ? strerrorname_np(e) : NULL;
	return n ? n : "-";
}

static void describe(sp_result *r, const sp_netprobe *p)
{
	if (p->decided && p->cls == SP_NC_FILTERED && p->err == 0)
		sp_observed_add(r, "%s: filtered (socket() killed by seccomp: SIGSYS)", p->label);
	else if (p->cls == SP_NC_CONNECTED || p->cls == SP_NC_REPLIED)
		sp_observed_add(r, "%s: %s in %.1f ms", p->label, sp_netclass_name(p->cls), (double)p->elapsed_us / 1000);
	else
		sp_observed_add(r, "%s: %s (%s, %.1f ms)", p->label, sp_netclass_name(p->cls), errname(p->err),
				(double)p->elapsed_us / 1000);
}

static bool config_errors(const struct net_batch *b, const char *check, sp_result *r)
{
	if (b->fault[0]) {
		sp_errorr(r, "%s", b->fault);
		return true;
	}
	for (size_t i = 0; i < b->nerr; i++)
		if (!strcmp(b->err[i].check, check)) {
			sp_errorr(r, "%s", b->err[i].msg);
			return true;
		}
	return false;
}

/* the common verdict: every probe of the check must be blocked. A probe
 * whose target is the sandbox's own address, or whose refusal came from
 * the sandbox's own stack (a UDP ICMP error sent from a local address),
 * proves nothing about the outside: neither a leak nor a block. */
static void judge_blocked(const sp_ctx *ctx, sp_result *r, const char *check, const char *key)
{
	const struct net_batch *b = get_batch(ctx);
	if (config_errors(b, check, r))
		return;
	size_t n = 0, leaked = 0, errors = 0, local = 0;
	/* leaks first, so they survive truncation of observed */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < b->n; i++) {
			const sp_netprobe *p = &b->p[i];
			if (strcmp(p->check, check))
				continue;
			bool leak = sp_netprobe_reached_outside(p);
			if ((pass == 0) != leak)
				continue;
			n++;
			leaked += leak;
			errors += p->cls == SP_NC_ERROR;
			bool mine = !leak && sp_netclass_leaked(p->cls);
			local += mine;
			describe(r, p);
			if (mine && p->own_dest)
				sp_observed_add(r, "  (the target is this sandbox's own address: nothing left the sandbox)");
			else if (mine)
				sp_observed_add(r, "  (refused by %s, this sandbox's own address: not an answer from outside)",
						p->refused_by);
			else if (leak && p->cls == SP_NC_REFUSED && p->refused_by[0])
				sp_observed_add(r, "  (refused by %s)", p->refused_by);
		}
	if (n == 0) {
		sp_skip(r, "no targets for this probe in %s", key);
		return;
	}
	if (leaked)
		sp_failr(r, "%zu of %zu probe%s reached the outside (a refusal from outside is an answer)", leaked, n,
			 n == 1 ? "" : "s");
	else if (errors || local)
		sp_errorr(r, "%zu probe%s ended at this sandbox's own stack, %zu could not run: blockage not proven", local,
			  local == 1 ? "" : "s", errors);
	else
		sp_pass(r, "all %zu probe%s blocked (batch of %zu probes took %.1f ms)", n, n == 1 ? "" : "s", b->n,
			(double)b->elapsed_us / 1000);
}

static void run_egress(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "TCP connect to every IPv4 target in net.egress.deny is blocked (unreachable, timeout, EPERM)");
	judge_blocked(ctx, r, "net.egress", "net.egress.deny (IPv4 entries)");
}

static void run_egress_ipv6(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "TCP to the IPv6 targets in net.egress.deny and to NAT64 forms of the IPv4 ones is blocked");
	judge_blocked(ctx, r, "net.egress.ipv6", "net.egress.deny");
}

static void run_egress_direct(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "octal, hex, integer and v4-mapped IPv6 forms of each IPv4 deny target are blocked");
	judge_blocked(ctx, r, "net.egress.direct_ip", "net.egress.deny (IPv4 entries)");
}

static void run_egress_ports(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "ports in net.egress.ports on each net.egress.allow host, other than the allowed one, are blocked");
	judge_blocked(ctx, r, "net.egress.ports", "net.egress.allow x net.egress.ports");
}

static void run_egress_udp(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "a UDP datagram to each net.egress.deny target gets no answer and no ICMP refusal");
	judge_blocked(ctx, r, "net.egress.udp", "net.egress.deny");
	/* silence is all UDP can show: say so, rather than claim a proof */
	if (r->status == SP_STATUS_PASS && strstr(r->observed, "timeout"))
		sp_observed_add(r, "note: a UDP timeout means nothing came back, which a filter and a silent peer look alike in");
}

static void run_egress_icmp(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "ICMP echo to each net.egress.deny address gets no reply (or ping sockets are refused)");
	judge_blocked(ctx, r, "net.egress.icmp", "net.egress.deny");
}

static void run_egress_metadata(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "cloud metadata endpoints (net.egress.metadata) unreachable");
	judge_blocked(ctx, r, "net.egress.metadata", "net.egress.metadata");
}

static void run_egress_dns(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "a UDP DNS query to each outside resolver (net.egress.dns) gets no answer and no refusal");
	judge_blocked(ctx, r, "net.egress.resolver", "net.egress.dns");
}

static void run_egress_allow(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "every net.egress.allow target accepts a TCP connection (positive control)");
	const struct net_batch *b = get_batch(ctx);
	if (config_errors(b, "net.egress.allow", r))
		return;
	size_t n = 0, reached = 0, own = 0;
	for (size_t i = 0; i < b->n; i++) {
		const sp_netprobe *p = &b->p[i];
		if (strcmp(p->check, "net.egress.allow"))
			continue;
		n++;
		reached += p->cls == SP_NC_CONNECTED && !p->own_dest;
		own += p->own_dest;
		describe(r, p);
		if (p->own_dest)
			sp_observed_add(r, "  (the target is this sandbox's own address: no path out is tested)");
	}
	if (n == 0)
		sp_skip(r, "net.egress.allow is empty: no positive control");
	else if (own)
		sp_errorr(r, "%zu allowed target%s %s this sandbox's own address: not a positive control of the path out", own,
			  own == 1 ? "" : "s", own == 1 ? "is" : "are");
	else if (reached == n)
		sp_pass(r, "all %zu allowed target%s reachable", n, n == 1 ? "" : "s");
	else
		sp_failr(r, "%zu of %zu allowed target%s unreachable: the sandbox's declared path out is broken", n - reached,
			 n, n == 1 ? "" : "s");
}

static void run_listening(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "every net.listening.tcp address accepts a TCP connection, every net.listening.dns address "
		       "answers a DNS query over UDP");
	const struct net_batch *b = get_batch(ctx);
	if (config_errors(b, "net.listening", r))
		return;
	size_t n = 0, up = 0;
	for (size_t i = 0; i < b->n; i++) {
		const sp_netprobe *p = &b->p[i];
		if (strcmp(p->check, "net.listening"))
			continue;
		n++;
		sp_dns_answer a;
		bool ok = p->socktype == SOCK_STREAM ? p->cls == SP_NC_CONNECTED
						     : p->cls == SP_NC_REPLIED &&
							       sp_dns_parse_reply(p->reply, p->rlen, b->dns[i].id, &a) == 0;
		up += ok;
		if (p->socktype == SOCK_DGRAM && p->cls == SP_NC_REPLIED)
			sp_observed_add(r, "%s: %s", p->label, ok ? "a DNS answer" : "a reply that is not DNS to this query");
		else
			describe(r, p);
	}
	if (n == 0)
		sp_skip(r, "net.listening.tcp and net.listening.dns are empty: nothing declared");
	else if (up < n)
		sp_failr(r, "%zu of %zu declared service%s not answering", n - up, n, n == 1 ? "" : "s");
	else
		sp_pass(r, "all %zu declared service%s answered", n, n == 1 ? "" : "s");
}

static void run_dns(const sp_ctx *ctx, sp_result *r)
{
	const char *fake = sp_policy_get(ctx->policy, "net.dns.fake_address");
	char canon[INET6_ADDRSTRLEN];
	sp_outcome o = {0};
	if (fake && *fake && sp_net_parse_ip(fake, canon, sizeof canon, &o) < 0) {
		sp_errorr(r, "net.dns.fake_address: %s", o.why);
		return;
	}
	/* the replies' addresses are in inet_ntop's form: compare in it */
	fake = fake && *fake ? canon : NULL;
	sp_expected(r, "a resolver answers, and names in net.dns.unlisted do not resolve%s%s", fake ? " or resolve only to " : "",
		    fake ? fake : "");
	const struct net_batch *b = get_batch(ctx);
	if (config_errors(b, "net.lookup", r))
		return;
	size_t n = 0, resolved = 0, odd = 0, answered = 0, over_tcp = 0, truncated = 0;
	sp_observed(r, "resolvers from %s", b->resolvers_src);
	for (size_t i = 0; i < b->n; i++) {
		const sp_netprobe *p = &b->p[i];
		if (strcmp(p->check, "net.lookup"))
			continue;
		n++;
		bool tcp = p->socktype == SOCK_STREAM;
		if (tcp && p->cls == SP_NC_CONNECTED) {
			sp_observed_add(r, "%s: connected, no DNS reply (%s)", p->label,
					p->err ? errname(p->err) : "closed");
			continue;
		}
		if (p->cls != SP_NC_REPLIED) {
			describe(r, p);
			continue;
		}
		sp_dns_answer a;
		if (tcp && p->rlen < p->rwant) {
			odd++;
			sp_observed_add(r, "%s: a reply of %zu bytes, more than the doctor reads (%zu)", p->label, p->rwant,
					sizeof p->reply);
			continue;
		}
		if (sp_dns_parse_reply(p->reply, p->rlen, b->dns[i].id, &a) < 0) {
			odd++;
			sp_observed_add(r, "%s: malformed reply (%zu bytes)", p->label, p->rlen);
			continue;
		}
		bool only_fake = a.nanswers > 0;
		for (unsigned k = 0; k < a.nanswers && k < 4; k++)
			if (!fake || strcmp(a.addrs[k], fake))
				only_fake = false;
		/* a truncated UDP reply without an address is no answer: the
		 * answer is over TCP, asked alongside */
		bool cut = !tcp && a.truncated;
		if (!cut || a.nanswers)
			answered++;
		over_tcp += tcp && (!cut || a.nanswers);
		truncated += cut;
		if (a.nanswers == 0) {
			static const char *const rc[] = {"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED"};
			sp_observed_add(r, "%s: %s, no address%s", p->label, a.rcode < 6 ? rc[a.rcode] : "rcode?",
					cut ? ", truncated (TC): the answer is only over TCP" : "");
		} else if (only_fake) {
			sp_observed_add(r, "%s: fake address %s", p->label, a.addrs[0]);
		} else {
			resolved++;
			sp_observed_add(r, "%s: RESOLVED to %s%s", p->label, a.addrs[0], a.nanswers > 1 ? " ..." : "");
		}
	}
	if (n == 0)
		sp_skip(r, "net.dns.unlisted is empty");
	else if (resolved)
		sp_failr(r, "%zu quer%s for unlisted names resolved to real addresses", resolved, resolved == 1 ? "y" : "ies");
	else if (odd)
		sp_errorr(r, "%zu malformed DNS repl%s: cannot judge", odd, odd == 1 ? "y" : "ies");
	else if (answered == 0)
		sp_errorr(r, "no resolver answered any of %zu quer%s%s: no resolver was tested (a name that does not resolve "
			     "because nothing answers proves nothing about the resolver)",
			  n, n == 1 ? "y" : "ies",
			  truncated ? " (UDP replies were truncated and TCP gave no answer)" : "");
	else
		sp_pass(r, "no unlisted name resolved (%zu of %zu queries answered by a resolver, %zu over TCP)", answered, n,
			over_tcp);
}

static void run_proxy(const sp_ctx *ctx, sp_result *r, const char *id)
{
	const struct net_batch *b = get_batch(ctx);
	if (b->fault[0] && b->proxy.configured) {
		sp_errorr(r, "%s", b->fault);
		return;
	}
	sp_proxy_judge(ctx, &b->proxy, id, r);
}

#define PROXY_RUN(sym) \
	static void run_##sym(const sp_ctx *ctx, sp_result *r) { run_proxy(ctx, r, SP_CKID(net_##sym)); }
PROXY_RUN(proxy_allowed)
PROXY_RUN(proxy_canary)
PROXY_RUN(proxy_readonly)
PROXY_RUN(proxy_body)
PROXY_RUN(proxy_late_body)
PROXY_RUN(proxy_connect_ip)
PROXY_RUN(proxy_connect_nontls)
PROXY_RUN(proxy_private_dest)

/* ---- descriptors ---------------------------------------------------------- */

/* technique ids as in the ATLAS crosswalk (src/report/atlas_data.c) */
#define NET_TECH_EXFIL "AML.T0086,AML.T0025,T1048"
#define NET_TECH_TCP "AML.T0086,AML.T0025,AML.T0072,T1048"
#define PROXY_KEYS                                                                                                  \
	"net.proxy:proxy_url,net.proxy.allowed_hosts:proxy_hosts,net.proxy.readonly_hosts:proxy_hosts,"            \
	"net.proxy.canary_host:proxy_host,net.proxy.access_log:str,net.proxy.private_host:proxy_host,"            \
	"net.proxy.body_bytes:int,net.proxy.late_ms:int,"                                                          \
	"net.egress.timeout_ms:int"

/* the reads of the sandbox's own network configuration share one child */
static const sp_batch net_config = {
	.id = "net.config",
	.what = "interfaces, the route lookup and the IPv6 state",
};

const sp_check sp_check_net_interfaces = {
	.id = SP_CKID(net_interfaces),
	.category = "network",
	.title = "network interfaces limited to the policy's list",
	.rationale = "every extra interface is a path out of the sandbox that the egress policy may not cover",
	.techniques = "AML.T0086,AML.T0025",
	.policy_keys = "net.interfaces:list",
	.method = "read",
	.run = run_interfaces,
	.batch = &net_config,
};

const sp_check sp_check_net_default_route = {
	.id = SP_CKID(net_default_route),
	.category = "network",
	.title = "no default route unless the policy allows one",
	.rationale = "without a route off the host, direct egress fails before any packet is built",
	.techniques = "AML.T0086,AML.T0025",
	.policy_keys = "net.default_route:bool",
	.method = "action",
	.run = run_default_route,
	.batch = &net_config,
};

const sp_check sp_check_net_ipv6 = {
	.id = SP_CKID(net_ipv6),
	.category = "network",
	.title = "IPv6 state matches the policy",
	.rationale = "IPv6 is often left open when only IPv4 egress is filtered",
	.techniques = "AML.T0086,AML.T0025",
	.policy_keys = "net.ipv6:ipv6",
	.method = "action",
	.run = run_ipv6,
	.batch = &net_config,
};

const sp_check sp_check_net_dns = {
	.id = SP_CKID(net_dns),
	.category = "network",
	.title = "unlisted names do not resolve (or resolve to the policy's fake address)",
	.rationale = "a resolver that answers for any name is both a covert channel and a map of the outside",
	.techniques = "AML.T0025,T1071.004,T1048",
	.policy_keys = "net.dns.unlisted:dns_names,net.dns.fake_address:ip,net.dns.resolvers:resolvers,net.egress.timeout_ms:int",
	.method = "action",
	.run = run_dns,
	.batch = &sp_batch_net,
};

const sp_check sp_check_net_listening = {
	.id = SP_CKID(net_listening),
	.category = "network",
	.title = "the services the sandbox needs (a proxy, a DNS forwarder) answer where declared",
	.rationale = "a proxy or forwarder that is not there turns every egress block into a broken sandbox, "
		     "and every 'blocked' verdict into one that proves nothing",
	.techniques = "",
	.policy_keys = "net.listening.tcp:targets,net.listening.dns:resolvers,net.egress.timeout_ms:int",
	.method = "action",
	.run = run_listening,
	.batch = &sp_batch_net,
};

const sp_check sp_check_net_egress = {
	.id = SP_CKID(net_egress),
	.category = "network",
	.title = "TCP egress to the policy's deny targets is blocked",
	.rationale = "direct egress lets an agent exfiltrate data through any tool call that opens a socket",
	.techniques = NET_TECH_TCP,
	.policy_keys = NET_KEYS_EGRESS,
	.method = "action",
	.run = run_egress,
	.batch = &sp_batch_net,
};

const sp_check sp_check_net_egress_ipv6 = {
	.id = SP_CKID(net_egress_ipv6),
	.category = "network",
	.title = "IPv6 egress (including NAT64) is blocked",
	.rationale = "filters written for IPv4 routinely leave IPv6 and NAT64 paths open",
	.techniques = NET_TECH_TCP,
	.policy_keys = NET_KEYS_EGRESS,
	.method = "action",
	.run = run_egress_ipv6,
	.batch = &sp_batch_net,
};

const sp_check sp_check_net_egress_direct_ip = {
	.id = SP_CKID(net_egress_direct_ip),
	.category = "network",
	.title = "direct-IP forms (octal, hex, integer, v4-mapped IPv6) are blocked",
	.rationale = "alternate address spellings and IPv6 sockets slip past filters keyed on text or on AF_INET",
	.techniques = NET_TECH_TCP,
	.policy_keys = NET_KEYS_EGRESS,
	.method = "action",
	.run = run_egress_direct,
	.batch = &sp_batch_net,
};

const sp_check sp_check_net_egress_ports = {
	.id = SP_CKID(net_egress_ports),
	.category = "network",
	.title = "only the allowed port is open on allowed hosts",
	.rationale = "an allowlist by host alone leaves every other service on that host reachable",
	.techniques = NET_TECH_TCP,
	.policy_keys = NET_KEYS_EGRESS ",net.egress.ports:ports",
	.method = "action",
	.run = run_egress_ports,
	.batch = &sp_batch_net,
};

const sp_check sp_check_net_egress_udp = {
	.id = SP_CKID(net_egress_udp),
	.category = "network",
	.title = "UDP egress to the policy's deny targets is blocked",
	.rationale = "QUIC and home-made UDP channels pass filters that only watch TCP",
	.techniques = NET_TECH_EXFIL,
	.policy_keys = NET_KEYS_EGRESS,
	.method = "action",
	.run = run_egress_udp,
	.batch = &sp_batch_net,
};

const sp_check sp_check_net_egress_icmp = {
	.id = SP_CKID(net_egress_icmp),
	.category = "network",
	.title = "ICMP echo to the policy's deny targets gets no reply",
	.rationale = "ICMP tunnels carry data wherever ping works",
	.techniques = "AML.T0025,T1048",
	.policy_keys = NET_KEYS_EGRESS,
	.method = "action",
	.run = run_egress_icmp,
	.batch = &sp_batch_net,
};

const sp_check sp_check_net_egress_metadata = {
	.id = SP_CKID(net_egress_metadata),
	.category = "network",
	.title = "cloud metadata endpoints are unreachable",
	.rationale = "link-local metadata services hand out cloud credentials to whoever asks",
	.techniques = "T1552.005,AML.T0055,AML.T0075",
	.policy_keys = "net.egress.metadata:targets80,net.egress.timeout_ms:int",
	.method = "action",
	.run = run_egress_metadata,
	.batch = &sp_batch_net,
};

const sp_check sp_check_net_egress_dns = {
	.id = SP_CKID(net_egress_dns),
	.category = "network",
	.title = "UDP DNS to outside resolvers is blocked",
	.rationale = "DNS to an arbitrary resolver is the classic exfiltration channel past HTTP-only filters",
	.techniques = "AML.T0025,T1071.004,T1048",
	.policy_keys = "net.egress.dns:resolvers,net.egress.timeout_ms:int",
	.method = "action",
	.run = run_egress_dns,
	.batch = &sp_batch_net,
};

const sp_check sp_check_net_egress_allow = {
	.id = SP_CKID(net_egress_allow),
	.category = "network",
	.title = "allowed targets reachable (positive control)",
	.rationale = "a block proves nothing if the network probe cannot reach what it is allowed to reach",
	.techniques = "",
	.policy_keys = NET_KEYS_EGRESS,
	.method = "action",
	.run = run_egress_allow,
	.batch = &sp_batch_net,
};

#define PROXY_CHECK(sym, ttl, why, tech) \
	const sp_check sp_check_net_##sym = { \
		.id = SP_CKID(net_##sym), \
		.category = "network", \
		.title = ttl, \
		.rationale = why, \
		.techniques = tech, \
		.policy_keys = PROXY_KEYS, \
		.method = "action", \
		.run = run_##sym, \
		.batch = &sp_batch_net, \
	};

PROXY_CHECK(proxy_allowed, "allowed hosts reachable through the proxy (positive control)",
	    "a dead proxy must not be mistaken for a blocking one", "")
PROXY_CHECK(proxy_canary, "the canary host is denied by the proxy",
	    "a proxy that forwards unlisted hosts is no allowlist at all", "AML.T0086,AML.T0025,AML.T0011.001")
PROXY_CHECK(proxy_readonly, "POST and PUT to read-only hosts are refused",
	    "a host an agent may read from must not become a place to write data to", "AML.T0086,T1567")
PROXY_CHECK(proxy_body, "a large request body is refused and never reaches the origin",
	    "bulk exfiltration rides in request bodies", "AML.T0086,T1567")
PROXY_CHECK(proxy_late_body, "a chunked body sent late is refused",
	    "a proxy that judges only the headers lets a body follow once the request is forwarded", "AML.T0086,T1567")
PROXY_CHECK(proxy_connect_ip, "CONNECT to a raw IP (any spelling) is refused",
	    "raw-IP tunnels bypass a name allowlist", "AML.T0086,AML.T0025,T1572")
PROXY_CHECK(proxy_connect_nontls, "a CONNECT tunnel does not carry non-TLS bytes",
	    "an open tunnel carries any protocol, not just TLS to the named host", "AML.T0086,AML.T0025,T1572")
PROXY_CHECK(proxy_private_dest, "a name resolving to a private or metadata address is refused",
	    "DNS rebinding turns an allowed name into a path to internal services", "AML.T0086,T1552.005")
