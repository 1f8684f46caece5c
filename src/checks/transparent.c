/* Transparent egress (net.transparent.*): traffic is forced through the
 * proxy even when a program ignores HTTPS_PROXY. With no proxy in play, a
 * direct connection to an outside address (net.transparent.targets) must be
 * refused by the sandbox's own firewall or land at the proxy, which is seen
 * by who answers: a certificate issued by the interception CA (tls.ca) on a
 * TLS port, or the proxy's mark (net.transparent.proxy_match) in a plain
 * HTTP answer; never by the target. DNS to an outside resolver
 * (net.transparent.dns) gets no answer, or the very answer the sandbox's
 * own resolver gives for a name only it knows (net.transparent.dns_name).
 * And the namespace's nftables ruleset, when readable, drops output by
 * default, accepts only the proxy and the resolver, and redirects what the
 * policy says (net.transparent.redirect): read from both sides, the policy
 * and the ruleset. The connection and DNS probes ride in the network batch
 * (net_ext.h), in parallel with every other network probe. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checks/types.h"
#include "checks/net_ext.h"
#include "checks/network.h"
#include "checks/net_probe.h"
#include "checks/net_proxy.h"
#include "checks/nftrules.h"
#include "checks/probe.h"
#include "checks/tls_probe.h"
#include "core/outcome.h"
#include "core/runner.h"
#include "core/spawn.h"
#include "core/util.h"
#include "catalog/catalog.h"

#define TP_KEYS_DIRECT                                                                                           \
	"net.transparent.targets:targets,net.transparent.tls_ports:ports,net.transparent.sni:host,"               \
	"net.transparent.proxy_match:str,tls.ca:str,tls.ca_fingerprint:sha256s,tls.store:list,tls.timeout_ms:int"
#define TP_KEYS_DNS                                                                                              \
	"net.transparent.dns:resolvers,net.transparent.dns_name:dns_name,net.transparent.resolver:resolver,"      \
	"net.egress.timeout_ms:int"
#define TP_KEYS_VIA \
	"net.transparent.proxy:target,net.transparent.via:target,net.transparent.allowed_hosts:dns_names," \
	"net.transparent.denied_hosts:dns_names,net.transparent.targets:targets,net.transparent.tls_ports:ports," \
	"net.transparent.proxy_match:str,tls.ca:str,tls.ca_fingerprint:sha256s,tls.store:list,tls.timeout_ms:int"
#define TP_KEYS_RULESET \
	"net.transparent.ruleset:str,net.transparent.allow:endpoints,net.transparent.redirect:redirects," \
	"net.transparent.resolver:resolver,net.proxy:proxy_url,net.transparent.proxy:target,net.transparent.listing:str"

static int tcp_listening(const struct sockaddr_storage *sa, unsigned timeout_ms);

/* ---- DNS queries in a child ----------------------------------------------------- */

typedef struct dns_out {
	sp_netclass cls;
	int err;
	bool parsed;
	sp_dns_answer ans;
} dns_out;

typedef struct dns_req {
	char label[120];
	bool own;                 /* the sandbox's own resolver: the reference answer */
	struct sockaddr_storage sa;
	socklen_t salen;
	char name[128];
	uint16_t id;
	unsigned timeout_ms;
	dns_out out;
} dns_req;

static int dns_child(void *arg, int fd)
{
	dns_req *q = arg;
	dns_out *o = &q->out;
	memset(o, 0, sizeof *o);
	uint8_t buf[512];
	int len = sp_dns_build_query(buf, sizeof buf, q->id, q->name, 1);
	uint64_t deadline = sp_now_ns() + (uint64_t)q->timeout_ms * 1000000ull;
	int s = len < 0 ? -1 : socket(q->sa.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0) {
		o->err = len < 0 ? EINVAL : errno;
		o->cls = len < 0 ? SP_NC_ERROR : sp_net_classify_errno(errno);
	} else if (connect(s, (struct sockaddr *)&q->sa, q->salen) < 0 || send(s, buf, (size_t)len, MSG_NOSIGNAL) < 0) {
		o->err = errno;
		o->cls = sp_net_classify_errno(errno);
	} else {
		o->cls = SP_NC_TIMEOUT;
		o->err = ETIMEDOUT;
		for (;;) {
			uint64_t now = sp_now_ns();
			if (now >= deadline)
				break;
			struct pollfd p = {.fd = s, .events = POLLIN};
			int r = poll(&p, 1, (int)((deadline - now + 999999) / 1000000ull));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			ssize_t n = recv(s, buf, sizeof buf, MSG_DONTWAIT);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n < 0) {
				o->err = errno;
				o->cls = sp_net_classify_errno(errno);
				break;
			}
			o->cls = SP_NC_REPLIED;
			o->err = 0;
			o->parsed = sp_dns_parse_reply(buf, (size_t)n, q->id, &o->ans) == 0;
			break;
		}
	}
	if (s >= 0)
		close(s);
	return sp_write_all(fd, o, sizeof *o) == 0 ? 0 : 3;
}

/* ---- the plan ------------------------------------------------------------------- */

static struct tp_plan {
	char direct_error[300];
	char dns_error[300];
	int have_ca;
	sp_tls_trust trust;
	sp_tls_req *direct;
	size_t *direct_child;
	size_t nd;
	dns_req *dns;             /* dns[0] is the own resolver when there are queries */
	size_t *dns_child;
	size_t nq;
	char resolver_src[64];
	/* net.transparent.proxied / .denied: names through the redirect */
	char via_error[300];
	char via_skip[200];
	char proxy_text[96];
	char via_text[96];
	struct sockaddr_storage proxy_sa;
	int listen_err; /* the proxy's listening probe: 0 accepted, else errno */
	size_t listen_child;
	bool listen_probed;
	sp_tls_req *via; /* allowed names first, then denied */
	size_t *via_child;
	size_t nvia, nallowed;
	int via_have_ca;
	sp_tls_trust via_trust;
} tp;

static void transparent_plan_reset(void)
{
	sp_tls_trust_free(&tp.trust);
	sp_tls_trust_free(&tp.via_trust);
	free(tp.via);
	free(tp.via_child);
	free(tp.direct);
	free(tp.direct_child);
	free(tp.dns);
	free(tp.dns_child);
	memset(&tp, 0, sizeof tp);
}

static bool on(const sp_ctx *ctx, const char *id)
{
	return sp_policy_expect(ctx->policy, id) != SP_EXPECT_OFF;
}

static unsigned sa_port(const struct sockaddr_storage *sa)
{
	return sa->ss_family == AF_INET6 ? ntohs(((const struct sockaddr_in6 *)sa)->sin6_port)
					 : ntohs(((const struct sockaddr_in *)sa)->sin_port);
}

/* the sandbox's own resolver: net.transparent.resolver, else the first
 * nameserver of /etc/resolv.conf; "" when neither */
static void own_resolver(const sp_ctx *ctx, char *out, size_t size, char *src, size_t srcsz)
{
	const char *r = sp_policy_get(ctx->policy, "net.transparent.resolver");
	out[0] = '\0';
	if (r && *r) {
		snprintf(out, size, "%s", r);
		snprintf(src, srcsz, "net.transparent.resolver");
		return;
	}
	int e = 0;
	_cleanup_free_ char *rc = sp_read_file_alloc("/etc/resolv.conf", 1 << 16, NULL, &e);
	char *save = NULL;
	for (char *line = rc ? strtok_r(rc, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char ns[80];
		if (sscanf(line, " nameserver %79s", ns) != 1)
			continue;
		ns[strcspn(ns, "%")] = '\0';
		snprintf(out, size, strchr(ns, ':') ? "[%s]" : "%s", ns);
		snprintf(src, srcsz, "/etc/resolv.conf");
		return;
	}
}

static void build_direct(const sp_ctx *ctx, unsigned egress_to)
{
	sp_strv targets, tlsports;
	sp_policy_list(ctx->policy, "net.transparent.targets", &targets);
	sp_policy_list(ctx->policy, "net.transparent.tls_ports", &tlsports);
	if (tlsports.n == 0)
		sp_strv_push(&tlsports, "443");
	unsigned tls_port[64];
	size_t ntls = 0;
	for (size_t i = 0; i < tlsports.n && ntls < SP_ARRAY_SIZE(tls_port); i++)
		if (sp_net_parse_port(tlsports.v[i], &tls_port[ntls]) == 0)
			ntls++;
		else
			snprintf(tp.direct_error, sizeof tp.direct_error, "net.transparent.tls_ports: '%s' is not a port",
				 tlsports.v[i]);
	if (tp.direct_error[0])
		targets.n = 0;
	const char *sni = sp_policy_get(ctx->policy, "net.transparent.sni");
	unsigned to = (unsigned)sp_policy_int(ctx->policy, "tls.timeout_ms", 3000);
	if (to == 0 || to > 60000)
		to = 3000;
	if (targets.n) {
		sp_outcome o = {0};
		tp.have_ca = sp_tls_trust_from_policy(ctx, &tp.trust, &o);
		if (tp.have_ca < 0) {
			snprintf(tp.direct_error, sizeof tp.direct_error, "%s", o.why);
			targets.n = 0; /* the error is reported */
		}
	}
	for (size_t i = 0; i < targets.n && i < SP_NET_MAX_TARGETS; i++) {
		struct sockaddr_storage sa;
		socklen_t len;
		sp_outcome po = {0};
		if (sp_net_parse_hostport(targets.v[i], 0, &sa, &len, &po) < 0) {
			snprintf(tp.direct_error, sizeof tp.direct_error, "net.transparent.targets: %s", po.why);
			tp.nd = 0;
			break;
		}
		tp.direct = sp_xrealloc(tp.direct, (tp.nd + 1) * sizeof *tp.direct);
		sp_tls_req *q = &tp.direct[tp.nd++];
		memset(q, 0, sizeof *q);
		q->check = "net.transparent.direct";
		q->addr = sa;
		q->addrlen = len;
		q->port = sa_port(&sa);
		for (size_t k = 0; k < ntls; k++)
			q->tls = q->tls || tls_port[k] == q->port;
		if (sni && *sni)
			snprintf(q->host, sizeof q->host, "%s", sni);
		/* TLS waits for the proxy's own upstream handshake; plain TCP does not */
		q->timeout_ms = q->tls ? to : egress_to;
		q->trust = &tp.trust;
		char a[80];
		sp_net_format_sa((struct sockaddr *)&sa, a, sizeof a);
		snprintf(q->label, sizeof q->label, "%s %s (direct, no proxy)", q->tls ? "TLS" : "HTTP", a);
	}
	sp_strv_free(&targets);
	sp_strv_free(&tlsports);
	if (tp.nd) {
		tp.direct_child = sp_xcalloc(tp.nd, sizeof *tp.direct_child);
		for (size_t i = 0; i < tp.nd; i++)
			tp.direct_child[i] = sp_net_ext_add(sp_tls_child, &tp.direct[i], &tp.direct[i].out,
							    sizeof tp.direct[i].out, tp.direct[i].timeout_ms);
	}
}

static uint16_t query_id(size_t i)
{
	return (uint16_t)((sp_now_ns() >> 12) ^ (uint64_t)getpid() ^ (uint16_t)((i + 1) * 40503u));
}

static dns_req *add_dns(const struct sockaddr_storage *sa, socklen_t len, const char *name, bool own, unsigned to)
{
	tp.dns = sp_xrealloc(tp.dns, (tp.nq + 1) * sizeof *tp.dns);
	dns_req *q = &tp.dns[tp.nq];
	memset(q, 0, sizeof *q);
	q->sa = *sa;
	q->salen = len;
	q->own = own;
	q->timeout_ms = to;
	q->id = query_id(tp.nq);
	snprintf(q->name, sizeof q->name, "%s", name);
	char a[80];
	sp_net_format_sa((const struct sockaddr *)sa, a, sizeof a);
	snprintf(q->label, sizeof q->label, "udp %s A? %.60s%s", a, name, own ? " (own resolver)" : "");
	tp.nq++;
	return q;
}

static void build_dns(const sp_ctx *ctx, unsigned to)
{
	sp_strv outside;
	sp_policy_list(ctx->policy, "net.transparent.dns", &outside);
	if (outside.n == 0) {
		sp_strv_free(&outside);
		return;
	}
	const char *name = sp_policy_get(ctx->policy, "net.transparent.dns_name");
	char res[96];
	sp_outcome po = {0};
	own_resolver(ctx, res, sizeof res, tp.resolver_src, sizeof tp.resolver_src);
	struct sockaddr_storage sa;
	socklen_t len;
	if (!name || !*name)
		snprintf(tp.dns_error, sizeof tp.dns_error,
			 "net.transparent.dns_name is not set: a name only the sandbox's resolver answers is needed to tell "
			 "the resolvers apart");
	else if (!res[0])
		snprintf(tp.dns_error, sizeof tp.dns_error,
			 "no own resolver (net.transparent.resolver unset, no nameserver in /etc/resolv.conf)");
	else if (sp_net_parse_hostport(res, 53, &sa, &len, &po) < 0)
		snprintf(tp.dns_error, sizeof tp.dns_error, "resolver from %s: %s", tp.resolver_src, po.why);
	if (!tp.dns_error[0]) {
		add_dns(&sa, len, name, true, to);
		for (size_t i = 0; i < outside.n && i < SP_NET_MAX_TARGETS; i++) {
			if (sp_net_parse_hostport(outside.v[i], 53, &sa, &len, &po) < 0) {
				snprintf(tp.dns_error, sizeof tp.dns_error, "net.transparent.dns: %s", po.why);
				tp.nq = 0;
				break;
			}
			add_dns(&sa, len, name, false, to);
		}
	}
	sp_strv_free(&outside);
	if (tp.nq) {
		tp.dns_child = sp_xcalloc(tp.nq, sizeof *tp.dns_child);
		for (size_t i = 0; i < tp.nq; i++)
			tp.dns_child[i] = sp_net_ext_add(dns_child, &tp.dns[i], &tp.dns[i].out, sizeof tp.dns[i].out, to);
	}
}

/* the precondition of the name probes: the declared proxy accepts a TCP
 * connection (made straight to it, not through a redirect) */
static int listen_child(void *arg, int fd)
{
	const struct tp_plan *p = arg;
	int e = tcp_listening(&p->proxy_sa, 2000);
	return sp_write_all(fd, &e, sizeof e) == 0 ? 0 : 3;
}

static void build_via(const sp_ctx *ctx)
{
	const char *px = sp_policy_get(ctx->policy, "net.transparent.proxy");
	sp_strv allowed, denied;
	sp_policy_list(ctx->policy, "net.transparent.allowed_hosts", &allowed);
	sp_policy_list(ctx->policy, "net.transparent.denied_hosts", &denied);
	sp_outcome po = {0};
	struct sockaddr_storage via;
	socklen_t vlen, plen;
	if (!px || !*px) {
		snprintf(tp.via_skip, sizeof tp.via_skip, "net.transparent.proxy is not set: no proxy declared to reach");
		goto out;
	}
	if (allowed.n == 0) {
		snprintf(tp.via_skip, sizeof tp.via_skip,
			 "net.transparent.allowed_hosts is empty: no name to send through the redirect");
		goto out;
	}
	if (sp_net_parse_hostport(px, 0, &tp.proxy_sa, &plen, &po) < 0) {
		snprintf(tp.via_error, sizeof tp.via_error, "net.transparent.proxy: %s", po.why);
		goto out;
	}
	snprintf(tp.proxy_text, sizeof tp.proxy_text, "%s", px);
	/* the address dialled: net.transparent.via, else the first target on a TLS port */
	const char *v = sp_policy_get(ctx->policy, "net.transparent.via");
	char vbuf[96] = "";
	if (v && *v) {
		snprintf(vbuf, sizeof vbuf, "%s", v);
	} else {
		sp_strv targets, tlsports;
		sp_policy_list(ctx->policy, "net.transparent.targets", &targets);
		sp_policy_list(ctx->policy, "net.transparent.tls_ports", &tlsports);
		if (tlsports.n == 0)
			sp_strv_push(&tlsports, "443");
		for (size_t i = 0; i < targets.n && !vbuf[0]; i++) {
			struct sockaddr_storage sa;
			socklen_t l;
			if (sp_net_parse_hostport(targets.v[i], 0, &sa, &l, &po) < 0)
				continue;
			for (size_t k = 0; k < tlsports.n; k++) {
				unsigned tpp;
				if (sp_net_parse_port(tlsports.v[k], &tpp) == 0 && tpp == sa_port(&sa)) {
					snprintf(vbuf, sizeof vbuf, "%s", targets.v[i]);
					break;
				}
			}
		}
		sp_strv_free(&targets);
		sp_strv_free(&tlsports);
	}
	if (!vbuf[0]) {
		snprintf(tp.via_error, sizeof tp.via_error,
			 "no outside address to dial: net.transparent.via unset and no net.transparent.targets entry on a TLS "
			 "port");
		goto out;
	}
	if (sp_net_parse_hostport(vbuf, 0, &via, &vlen, &po) < 0) {
		snprintf(tp.via_error, sizeof tp.via_error, "net.transparent.via: %s", po.why);
		goto out;
	}
	snprintf(tp.via_text, sizeof tp.via_text, "%s", vbuf);
	sp_outcome o = {0};
	tp.via_have_ca = sp_tls_trust_from_policy(ctx, &tp.via_trust, &o);
	if (tp.via_have_ca < 0) {
		snprintf(tp.via_error, sizeof tp.via_error, "%s", o.why);
		goto out;
	}
	unsigned to = (unsigned)sp_policy_int(ctx->policy, "tls.timeout_ms", 3000);
	if (to == 0 || to > 60000)
		to = 3000;
	size_t total = allowed.n + denied.n;
	tp.via = sp_xcalloc(total, sizeof *tp.via);
	tp.via_child = sp_xcalloc(total, sizeof *tp.via_child);
	for (size_t i = 0; i < total; i++) {
		bool ok = i < allowed.n;
		const char *name = ok ? allowed.v[i] : denied.v[i - allowed.n];
		sp_tls_req *q = &tp.via[i];
		q->check = ok ? "net.transparent.proxied" : "net.transparent.denied";
		q->addr = via;
		q->addrlen = vlen;
		q->port = sa_port(&via);
		q->tls = true;
		q->positive = ok;
		q->trust = &tp.via_trust;
		q->timeout_ms = to;
		snprintf(q->host, sizeof q->host, "%s", name);
		snprintf(q->label, sizeof q->label, "TLS %s to %s (redirected)", name, vbuf);
	}
	tp.nvia = total;
	tp.nallowed = allowed.n;
	tp.listen_child = sp_net_ext_add(listen_child, &tp, &tp.listen_err, sizeof tp.listen_err, 2000);
	tp.listen_probed = true;
	for (size_t i = 0; i < total; i++)
		tp.via_child[i] = sp_net_ext_add(sp_tls_child, &tp.via[i], &tp.via[i].out, sizeof tp.via[i].out, to);
out:
	sp_strv_free(&allowed);
	sp_strv_free(&denied);
}

static void transparent_plan_build(const sp_ctx *ctx, const sp_proxy_plan *proxy, unsigned egress_timeout_ms)
{
	(void)proxy;
	transparent_plan_reset();
	if (on(ctx, "net.transparent.direct"))
		build_direct(ctx, egress_timeout_ms);
	if (on(ctx, "net.transparent.dns"))
		build_dns(ctx, egress_timeout_ms);
	if (on(ctx, "net.transparent.proxied") || on(ctx, "net.transparent.denied"))
		build_via(ctx);
}

/* after the tls.* handshakes in the network batch (order 20) */
static const sp_net_ext_module transparent_ext = {
	.name = "transparent", .order = 20, .build = transparent_plan_build, .reset = transparent_plan_reset};

__attribute__((constructor)) static void transparent_ext_register(void)
{
	sp_net_ext_register(&transparent_ext);
}

/* ---- net.transparent.direct --------------------------------------------------- */

static void run_direct(const sp_ctx *ctx, sp_result *r)
{
	const char *match = sp_policy_get(ctx->policy, "net.transparent.proxy_match");
	if (match && !*match)
		match = NULL;
	sp_expected(r, "a direct connection (no proxy) to each net.transparent.targets address is blocked by the firewall, "
		       "or answered by the proxy (TLS: certificate issued by the interception CA%s%s%s)",
		    match ? "; HTTP: answer carrying '" : "", match ? match : "", match ? "'" : "");
	const char *fault = sp_net_batch_ensure(ctx);
	if (tp.direct_error[0]) {
		sp_errorr(r, "%s", tp.direct_error);
		return;
	}
	if (tp.nd == 0) {
		sp_skip(r, "net.transparent.targets is empty: nothing to probe");
		return;
	}
	if (fault[0]) {
		sp_errorr(r, "%s", fault);
		return;
	}
	size_t blocked = 0, proxied = 0, leaked = 0, unknown = 0;
	for (size_t i = 0; i < tp.nd; i++) {
		const sp_tls_req *q = &tp.direct[i];
		const sp_tls_out *o = &q->out;
		const char *gone = sp_net_ext_failure(tp.direct_child[i]);
		if (gone) {
			unknown++;
			sp_observed_add(r, "%s: %s", q->label, gone);
			continue;
		}
		if (o->stage == SP_TS_NONE) {
			sp_netclass c = o->err == ETIMEDOUT ? SP_NC_TIMEOUT : sp_net_classify_errno(o->err);
			if (sp_netclass_blocked(c)) {
				blocked++;
				sp_observed_add(r, "%s: blocked (%s, %s)", q->label, sp_netclass_name(c), sp_errname(o->err));
			} else if (c == SP_NC_REFUSED) {
				leaked++;
				sp_observed_add(r, "%s: REFUSED (%s): an answer came back; a sandbox firewall drops (or rejects "
						   "with admin-prohibited), it does not answer for the target", q->label,
						sp_errname(o->err));
			} else {
				unknown++;
				sp_observed_add(r, "%s: %s", q->label, o->fail);
			}
			continue;
		}
		bool mark = match && strstr(o->head, match);
		bool by_proxy = (q->tls && o->stage >= SP_TS_HANDSHAKE && o->issued_by_ca) || mark;
		char what[400];
		if (o->stage >= SP_TS_HANDSHAKE)
			snprintf(what, sizeof what, "certificate %s (%s)%s%s", o->leaf,
				 o->issued_by_ca ? "issued by the interception CA" : "NOT issued by the interception CA",
				 o->head[0] ? "; answer " : "", o->head);
		else if (o->stage == SP_TS_HTTP)
			snprintf(what, sizeof what, "answer %s", o->head);
		else
			snprintf(what, sizeof what, "connected, then %s", o->fail[0] ? o->fail : "nothing");
		if (by_proxy) {
			proxied++;
			sp_observed_add(r, "%s: landed at the proxy: %s", q->label, what);
		} else {
			leaked++;
			sp_observed_add(r, "%s: CONNECTED and nothing shows the proxy answered: %s", q->label, what);
		}
	}
	if (leaked)
		sp_failr(r, "%zu of %zu direct connection%s reached something other than the proxy", leaked, tp.nd,
			 tp.nd == 1 ? "" : "s");
	else if (unknown)
		sp_errorr(r, "%zu direct probe%s ended without a verdict", unknown, unknown == 1 ? "" : "s");
	else if (tp.have_ca == 0 && !match && proxied == 0)
		sp_pass(r, "all %zu direct connection%s blocked", blocked, blocked == 1 ? "" : "s");
	else
		sp_pass(r, "%zu direct connection%s blocked, %zu landed at the proxy", blocked, blocked == 1 ? "" : "s", proxied);
}

/* ---- net.transparent.dns ------------------------------------------------------ */

/* the answer's addresses, sorted, as one string (for comparing answers) */
static void answer_key(const sp_dns_answer *a, char *out, size_t size)
{
	unsigned n = a->nanswers < 4 ? a->nanswers : 4;
	const char *v[4];
	for (unsigned i = 0; i < n; i++)
		v[i] = a->addrs[i];
	for (unsigned i = 1; i < n; i++)
		for (unsigned k = i; k > 0 && strcmp(v[k - 1], v[k]) > 0; k--) {
			const char *t = v[k];
			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	size_t l = 0;
	out[0] = '\0';
	for (unsigned i = 0; i < n && l < size; i++)
		l += (size_t)snprintf(out + l, size - l, "%s%s", i ? "," : "", v[i]);
}

static void run_dns(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "a query to each outside resolver (net.transparent.dns) gets no answer, or exactly the answer "
		       "the sandbox's own resolver gives for net.transparent.dns_name");
	const char *fault = sp_net_batch_ensure(ctx);
	if (tp.dns_error[0]) {
		sp_errorr(r, "%s", tp.dns_error);
		return;
	}
	if (tp.nq == 0) {
		sp_skip(r, "net.transparent.dns is empty: nothing to probe");
		return;
	}
	if (fault[0]) {
		sp_errorr(r, "%s", fault);
		return;
	}
	const dns_req *own = &tp.dns[0];
	const char *gone = sp_net_ext_failure(tp.dns_child[0]);
	char ref[300] = "";
	if (!gone && own->out.cls == SP_NC_REPLIED && own->out.parsed)
		answer_key(&own->out.ans, ref, sizeof ref);
	sp_observed(r, "own resolver from %s: %s: %s", tp.resolver_src, own->label,
		    gone ? gone : ref[0] ? ref : own->out.cls == SP_NC_REPLIED ? "no address in the answer"
									 : sp_netclass_name(own->out.cls));
	if (!ref[0]) {
		sp_errorr(r, "the sandbox's own resolver gave no address for %s: no reference to tell the resolvers apart "
			     "(pick a name only it answers)", own->name);
		return;
	}
	size_t blocked = 0, same = 0, foreign = 0, unknown = 0;
	for (size_t i = 1; i < tp.nq; i++) {
		const dns_req *q = &tp.dns[i];
		const dns_out *o = &q->out;
		gone = sp_net_ext_failure(tp.dns_child[i]);
		if (gone) {
			unknown++;
			sp_observed_add(r, "%s: %s", q->label, gone);
		} else if (sp_netclass_blocked(o->cls)) {
			blocked++;
			sp_observed_add(r, "%s: no answer (%s)", q->label, sp_netclass_name(o->cls));
		} else if (o->cls == SP_NC_REPLIED && o->parsed) {
			char k[300];
			answer_key(&o->ans, k, sizeof k);
			bool eq = !strcmp(k, ref) && o->ans.rcode == own->out.ans.rcode;
			same += eq;
			foreign += !eq;
			sp_observed_add(r, "%s: answered %s%s", q->label, k[0] ? k : "no address",
					eq ? " (the own resolver's answer: redirected)" : " (NOT the own resolver's answer)");
		} else if (o->cls == SP_NC_REPLIED || sp_netclass_leaked(o->cls)) {
			foreign++;
			sp_observed_add(r, "%s: %s%s", q->label, sp_netclass_name(o->cls),
					o->cls == SP_NC_REPLIED ? " (a reply that is not DNS to this query)" : ": an answer came back");
		} else {
			unknown++;
			sp_observed_add(r, "%s: %s (%s)", q->label, sp_netclass_name(o->cls), sp_errname(o->err));
		}
	}
	size_t n = tp.nq - 1;
	if (foreign)
		sp_failr(r, "%zu of %zu outside resolver%s answered themselves", foreign, n, n == 1 ? "" : "s");
	else if (unknown)
		sp_errorr(r, "%zu quer%s could not run: not proven", unknown, unknown == 1 ? "y" : "ies");
	else
		sp_pass(r, "%zu blocked, %zu answered by the sandbox's own resolver", blocked, same);
}

/* ---- net.transparent.ruleset ---------------------------------------------------- */

/* Run `nft -j list ruleset` (json) or `nft -a list ruleset` (found on
 * PATH, /usr/sbin, /sbin), bounded in time. Returns the output, or NULL
 * with o's reason. */
static char *run_nft(bool json, size_t *len, sp_outcome *o)
{
	static const char *const dirs[] = {"/usr/sbin", "/sbin", "/usr/bin", "/bin", "/usr/local/sbin"};
	char nft[256] = "";
	const char *path = getenv("PATH");
	sp_strv pd;
	sp_strv_split(&pd, path ? path : "", ":");
	for (size_t i = 0; i < SP_ARRAY_SIZE(dirs); i++)
		sp_strv_push(&pd, dirs[i]);
	for (size_t i = 0; i < pd.n && !nft[0]; i++) {
		char p[256];
		snprintf(p, sizeof p, "%s/nft", pd.v[i]);
		if (access(p, X_OK) == 0)
			snprintf(nft, sizeof nft, "%s", p);
	}
	sp_strv_free(&pd);
	if (!nft[0]) {
		sp_why(o, "no nft program (PATH, /usr/sbin, /sbin) and net.transparent.ruleset unset");
		return NULL;
	}
	char *const argv[] = {"nft", json ? "-j" : "-a", "list", "ruleset", NULL};
	/* stdout up to 16 MiB (more kills it: a failure), the first line of stderr */
	sp_spawn_opts so = {.capture_out = true, .capture_err = true, .err_max = 299, .overflow_kills = true, .path = nft};
	sp_child c;
	sp_error serr;
	sp_child_init(&c);
	sp_error_clear(&serr);
	fflush(NULL);
	if (sp_spawn(&c, argv, &so, &serr) < 0) { /* exec failed: what the child's exit 127 said */
		sp_why(o, "%s failed", nft);
		return NULL;
	}
	bool timed_out = sp_child_wait(&c, sp_now_ns() + 3000000000ull) == -ETIMEDOUT;
	if (timed_out || c.overflowed || sp_child_code(&c) != 0) {
		char ebuf[300] = "";
		if (c.err_buf.data)
			snprintf(ebuf, sizeof ebuf, "%s", c.err_buf.data);
		ebuf[strcspn(ebuf, "\n")] = '\0';
		const char *what = ebuf[0] ? ebuf : "failed";
		sp_why(o, "%s %s", nft, timed_out ? "did not finish in 3 s" : what);
		sp_child_free(&c);
		return NULL;
	}
	char *buf = c.out_buf.data ? c.out_buf.data : sp_xstrdup("");
	*len = c.out_buf.len;
	c.out_buf.data = NULL; /* ours now */
	sp_child_free(&c);
	return buf;
}

static void add_allow(sp_nft_policy *pol, const struct sockaddr_storage *sa, bool anyport, int proto, const char *what)
{
	bool local = sp_net_addr_is_own((const struct sockaddr *)sa);
	if (pol->nallow >= SP_ARRAY_SIZE(pol->allow))
		return;
	sp_nft_endpoint *e = &pol->allow[pol->nallow++];
	memset(e, 0, sizeof *e);
	if (sa->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, e->addr, sizeof e->addr);
	else
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, e->addr, sizeof e->addr);
	e->port = anyport ? 0 : sa_port(sa);
	e->proto = proto;
	e->local = local;
	snprintf(e->what, sizeof e->what, "%s", what);
}

/* Does something accept a TCP connection at sa? Blocking, bounded; the
 * check runs in its own child. 0, or the errno. */
static int tcp_listening(const struct sockaddr_storage *sa, unsigned timeout_ms)
{
	socklen_t len = sa->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	int fd = sp_net_connect_deadline((const struct sockaddr *)sa, len, sp_now_ns() + (uint64_t)timeout_ms * 1000000ull);
	if (fd < 0)
		return -fd;
	close(fd);
	return 0;
}

static bool have_ipv6(void)
{
	int e = 0;
	_cleanup_free_ char *if6 = sp_read_file_alloc("/proc/net/if_inet6", 1 << 20, NULL, &e);
	if (!if6)
		return false;
	char *save = NULL;
	for (char *line = strtok_r(if6, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "00000000000000000000000000000001", 32))
			return true;
	return false;
}

/* net.transparent.redirect's entries: what sp_nft_parse_redirect takes */
static int redirect_parse(const char *s, sp_outcome *o)
{
	int proto;
	unsigned port;
	if (sp_nft_parse_redirect(s, &proto, &port) == 0)
		return 0;
	sp_why(o, "'%.80s': expected tcp/PORT, udp/PORT or PORT", s);
	return -1;
}

const sp_policy_type sp_ptype_redirects = {.name = "redirects", .what = "tcp/PORT, udp/PORT or PORT (tcp)", .list = true,
					   .max = SP_NFT_MAX_REDIRECTS, .parse = redirect_parse};

static void run_ruleset(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "output drops by default, accepts only loopback, replies, the proxy and the resolver "
		       "(net.transparent.allow too), and redirects every net.transparent.redirect entry to them");
	const char *rs = sp_policy_get(ctx->policy, "net.transparent.ruleset"),
		   *rd = sp_policy_get(ctx->policy, "net.transparent.redirect"),
		   *tg = sp_policy_get(ctx->policy, "net.transparent.targets");
	if (!(rs && *rs) && !(rd && *rd) && !(tg && *tg)) {
		sp_skip(r, "the policy declares no transparent egress (net.transparent.redirect, .targets, .ruleset unset)");
		return;
	}
	sp_nft_policy pol;
	memset(&pol, 0, sizeof pol);
	sp_outcome po = {0};
	/* the policy's side: the proxy, the resolver, extra endpoints, redirects */
	sp_proxy_plan pp;
	sp_proxy_plan_build(ctx, &pp, 1000);
	if (pp.configured && !pp.error[0])
		add_allow(&pol, &pp.proxy, false, SP_NFT_TCP, "proxy");
	const char *tpx = sp_policy_get(ctx->policy, "net.transparent.proxy");
	struct sockaddr_storage tpsa;
	socklen_t tplen;
	if (tpx && *tpx) {
		if (sp_net_parse_hostport(tpx, 0, &tpsa, &tplen, &po) < 0) {
			sp_errorr(r, "net.transparent.proxy: %s", po.why);
			sp_proxy_plan_free(&pp);
			return;
		}
		add_allow(&pol, &tpsa, false, SP_NFT_TCP, "transparent proxy");
	}
	if (pp.error[0]) {
		sp_errorr(r, "%s", pp.error);
		sp_proxy_plan_free(&pp);
		return;
	}
	char res[96], src[64] = "";
	own_resolver(ctx, res, sizeof res, src, sizeof src);
	struct sockaddr_storage sa;
	socklen_t len;
	if (res[0] && sp_net_parse_hostport(res, 53, &sa, &len, &po) == 0)
		add_allow(&pol, &sa, false, SP_NFT_ANY, "resolver");
	sp_strv extra, red;
	sp_policy_list(ctx->policy, "net.transparent.allow", &extra);
	sp_policy_list(ctx->policy, "net.transparent.redirect", &red);
	bool bad = false;
	for (size_t i = 0; i < extra.n && !bad; i++) {
		bool anyport;
		if (sp_net_parse_endpoint(extra.v[i], &sa, &len, &anyport, &po) < 0) {
			sp_errorr(r, "net.transparent.allow: %s", po.why);
			bad = true;
			break;
		}
		add_allow(&pol, &sa, anyport, SP_NFT_ANY, "net.transparent.allow");
	}
	for (size_t i = 0; i < red.n && !bad && pol.nredirect < SP_ARRAY_SIZE(pol.redirect); i++) {
		sp_nft_redirect *w = &pol.redirect[pol.nredirect++];
		memset(w, 0, sizeof *w);
		if (sp_nft_parse_redirect(red.v[i], &w->proto, &w->port) < 0) {
			sp_outcome ro = {0};
			redirect_parse(red.v[i], &ro);
			sp_errorr(r, "net.transparent.redirect: %.299s", ro.why);
			bad = true;
		}
	}
	sp_strv_free(&extra);
	sp_strv_free(&red);
	sp_proxy_plan_free(&pp);
	if (bad)
		return;
	pol.need_v6 = have_ipv6();
	/* the ruleset's side */
	const char *file = sp_policy_get(ctx->policy, "net.transparent.ruleset");
	size_t tlen = 0;
	char *text;
	char source[300];
	if (file && *file) {
		int e = 0;
		text = sp_read_file_alloc(file, 16u << 20, &tlen, &e);
		if (!text) {
			sp_errorr(r, "net.transparent.ruleset %s: %s", file, strerror(e));
			return;
		}
		snprintf(source, sizeof source, "%s", file);
	} else {
		sp_outcome o = {0};
		text = run_nft(true, &tlen, &o);
		if (!text) {
			sp_skip(r, "the ruleset is not readable: %s", o.why);
			return;
		}
		snprintf(source, sizeof source, "nft -j list ruleset");
	}
	/* the text listing: what iptables-nft's xt expressions mean */
	const char *lfile = sp_policy_get(ctx->policy, "net.transparent.listing");
	char *listing = NULL;
	size_t llen = 0;
	if (lfile && *lfile) {
		int e = 0;
		listing = sp_read_file_alloc(lfile, 16u << 20, &llen, &e);
		if (!listing) {
			sp_errorr(r, "net.transparent.listing %s: %s", lfile, strerror(e));
			free(text);
			return;
		}
	} else if (!(file && *file)) {
		sp_outcome lo = {0}; /* a listing nft cannot give is left out */
		listing = run_nft(false, &llen, &lo);
	}
	pol.listing = listing;
	pol.listing_len = llen;
	sp_nft_report rep;
	sp_outcome jo = {0};
	int rc = sp_nft_judge(text, tlen, &pol, &rep, &jo);
	free(text);
	free(listing);
	pol.listing = NULL;
	if (rc < 0) {
		sp_errorr(r, "%s: %s", source, jo.why);
		return;
	}
	sp_observed(r, "%s: %zu tables, %zu chains, %zu rules; default-drop output: IPv4 %s, IPv6 %s%s%s%s; %zu of %zu "
		       "accept rules within the policy", source, rep.tables, rep.chains, rep.rules, rep.drop_v4 ? "yes" : "NO",
		    rep.drop_v6 ? "yes" : pol.need_v6 ? "NO" : "no (no IPv6 address)", rep.drop_chain[0] ? " (" : "",
		    rep.drop_chain, rep.drop_chain[0] ? ")" : "", rep.accepts_ok, rep.accepts);
	for (size_t i = 0; i < pol.nallow; i++)
		sp_observed_add(r, "allowed %s %s%s%u", pol.allow[i].what, pol.allow[i].addr, pol.allow[i].port ? ":" : "",
				pol.allow[i].port);
	for (size_t i = 0; i < pol.nredirect; i++)
		sp_observed_add(r, "redirect %s/%u: %s", pol.redirect[i].proto == SP_NFT_UDP ? "udp" : "tcp",
				pol.redirect[i].port, pol.redirect[i].covered ? pol.redirect[i].to : "NONE");
	for (size_t i = 0; i < rep.nproblem && i < SP_ARRAY_SIZE(rep.problem); i++)
		sp_observed_add(r, "%s", rep.problem[i]);
	if (rep.nunknown)
		sp_observed_add(r, "cannot judge: %s", rep.unknown);
	/* blocked is not delivered: something must accept at each TCP redirect's target */
	size_t dead = 0, probed = 0;
	char dead_what[200] = "";
	for (size_t i = 0; i < pol.nredirect && !rep.nproblem && !rep.nunknown; i++) {
		const sp_nft_redirect *w = &pol.redirect[i];
		if (!w->covered || !w->target_ok)
			continue;
		if (w->proto != SP_NFT_TCP) {
			sp_observed_add(r, "udp/%u's target %s: delivery not probed here (net.transparent.dns shows it)", w->port,
					w->to);
			continue;
		}
		char at[96];
		if (!w->to_addr[0])
			snprintf(at, sizeof at, "127.0.0.1:%u", w->to_port);
		else
			snprintf(at, sizeof at, strchr(w->to_addr, ':') ? "[%s]:%u" : "%s:%u", w->to_addr, w->to_port);
		if (sp_net_parse_hostport(at, 0, &sa, &len, &po) < 0) {
			sp_observed_add(r, "tcp/%u's target %s: %s", w->port, at, po.why);
			dead++;
			continue;
		}
		probed++;
		int e = tcp_listening(&sa, 2000);
		sp_observed_add(r, "tcp/%u's target %s: %s", w->port, at, e ? sp_errname(e) : "accepts a connection");
		if (e && !dead++)
			snprintf(dead_what, sizeof dead_what, "tcp/%u goes to %s, where nothing accepts a connection (%s)",
				 w->port, at, sp_errname(e));
	}
	if (rep.rules == 0 && rep.chains == 0)
		sp_failr(r, "the namespace has no nftables ruleset: nothing forces traffic through the proxy");
	else if (rep.nproblem)
		sp_failr(r, "%s%s", rep.problem[0], rep.nproblem > 1 ? " (and more)" : "");
	else if (rep.nunknown)
		sp_errorr(r, "the ruleset uses constructs this check cannot judge: %s", rep.unknown);
	else if (dead)
		sp_errorr(r, "%s: redirected traffic is dropped there, not delivered to a proxy", dead_what[0] ? dead_what : "a redirect target cannot be probed");
	else
		sp_pass(r, "output default-drop, %zu accept rule%s within the policy, %zu redirect%s in place (%zu TCP target%s "
			   "accepting)",
			rep.accepts, rep.accepts == 1 ? "" : "s", pol.nredirect, pol.nredirect == 1 ? "" : "s",
			probed, probed == 1 ? "" : "s");
}

/* ---- net.transparent.proxied / .denied ----------------------------------------- */

/* was the answer the proxy's? (a certificate the interception CA issued, or
 * the proxy's mark in the HTTP answer) */
static bool proxy_answered(const sp_ctx *ctx, const sp_tls_out *o)
{
	const char *match = sp_policy_get(ctx->policy, "net.transparent.proxy_match");
	return (o->stage >= SP_TS_HANDSHAKE && o->issued_by_ca) || (match && *match && strstr(o->head, match));
}

static void via_what(const sp_tls_out *o, char *out, size_t size)
{
	if (o->stage >= SP_TS_HANDSHAKE)
		snprintf(out, size, "handshake, certificate %s (%s)%s%s", o->leaf,
			 o->issued_by_ca ? "issued by the interception CA" : "NOT issued by the interception CA",
			 o->head[0] ? "; answer " : o->fail[0] ? "; then "
							       : "",
			 o->head[0] ? o->head : o->fail);
	else if (o->stage == SP_TS_TCP)
		snprintf(out, size, "connected, no handshake: %s", o->fail[0] ? o->fail : "closed");
	else
		snprintf(out, size, "no connection: %s", o->fail[0] ? o->fail : sp_errname(o->err));
}

/* the shared preconditions; false when r has its verdict */
static bool via_ready(const sp_ctx *ctx, sp_result *r)
{
	const char *fault = sp_net_batch_ensure(ctx);
	if (tp.via_error[0]) {
		sp_errorr(r, "%s", tp.via_error);
		return false;
	}
	if (tp.via_skip[0]) {
		sp_skip(r, "%s", tp.via_skip);
		return false;
	}
	if (fault[0]) {
		sp_errorr(r, "%s", fault);
		return false;
	}
	const char *match = sp_policy_get(ctx->policy, "net.transparent.proxy_match");
	if (tp.via_have_ca == 0 && !(match && *match)) {
		sp_errorr(r, "neither tls.ca nor net.transparent.proxy_match is set: nothing tells the proxy's answer from "
			     "the target's");
		return false;
	}
	const char *gone = sp_net_ext_failure(tp.listen_child);
	sp_observed(r, "the declared proxy %s (connected to directly): %s", tp.proxy_text,
		    gone ? gone : tp.listen_err ? sp_errname(tp.listen_err)
						: "accepts a connection");
	if (gone || tp.listen_err) {
		sp_errorr(r, "the declared proxy %s does not accept a connection (%s): there is nothing for redirected "
			     "traffic to reach, so the path through it is not proven",
			  tp.proxy_text,
			  gone ? gone : sp_errname(tp.listen_err));
		return false;
	}
	return true;
}

/* did an allowed name go through the proxy to its origin? */
static bool allowed_ok(const sp_ctx *ctx, size_t i)
{
	const sp_tls_out *o = &tp.via[i].out;
	return !sp_net_ext_failure(tp.via_child[i]) && proxy_answered(ctx, o) && o->stage >= SP_TS_HTTP &&
	       o->http_status >= 200 && o->http_status < 400;
}

static void run_proxied(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "a TLS connection to an outside address on a redirected port (net.transparent.via), for each "
		       "net.transparent.allowed_hosts name, completes through the declared proxy (net.transparent.proxy): "
		       "the proxy's certificate or mark, and the origin's answer");
	if (!via_ready(ctx, r))
		return;
	size_t ok = 0, bypass = 0, lost = 0, refused = 0;
	for (size_t i = 0; i < tp.nallowed; i++) {
		const sp_tls_req *q = &tp.via[i];
		const char *gone = sp_net_ext_failure(tp.via_child[i]);
		char what[420];
		if (gone) {
			lost++;
			sp_observed_add(r, "%s: %s", q->label, gone);
			continue;
		}
		via_what(&q->out, what, sizeof what);
		if (allowed_ok(ctx, i)) {
			ok++;
			sp_observed_add(r, "%s: through the proxy: %s", q->label, what);
		} else if (q->out.stage >= SP_TS_HANDSHAKE && !proxy_answered(ctx, &q->out)) {
			bypass++;
			sp_observed_add(r, "%s: BYPASSED the proxy: %s", q->label, what);
		} else if (proxy_answered(ctx, &q->out)) {
			refused++;
			sp_observed_add(r, "%s: the proxy answered but did not relay the origin: %s", q->label, what);
		} else {
			lost++;
			sp_observed_add(r, "%s: did NOT reach the proxy: %s", q->label, what);
		}
	}
	if (bypass)
		sp_failr(r, "%zu of %zu allowed name%s reached something other than the proxy", bypass, tp.nallowed,
			 tp.nallowed == 1 ? "" : "s");
	else if (lost || refused)
		sp_failr(r, "%zu of %zu allowed name%s did not come back through the proxy while it listens: redirected "
			    "traffic is %s",
			 lost + refused, tp.nallowed, tp.nallowed == 1 ? "" : "s",
			 lost ? "not delivered to it" : "refused by it");
	else
		sp_pass(r, "%zu allowed name%s reached the origin through the proxy on the redirected path", ok,
			ok == 1 ? "" : "s");
}

static void run_denied(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "on the same redirected path, each net.transparent.denied_hosts name is refused by the proxy "
		       "(no answer from the origin), while an allowed name gets through");
	if (!via_ready(ctx, r))
		return;
	if (tp.nvia == tp.nallowed) {
		sp_skip(r, "net.transparent.denied_hosts is empty: nothing to refuse");
		return;
	}
	size_t control = 0;
	for (size_t i = 0; i < tp.nallowed; i++)
		control += allowed_ok(ctx, i);
	sp_observed_add(r, "positive control: %zu of %zu allowed name%s through the proxy", control, tp.nallowed,
			tp.nallowed == 1 ? "" : "s");
	size_t leaked = 0, refused = 0, lost = 0;
	for (size_t i = tp.nallowed; i < tp.nvia; i++) {
		const sp_tls_req *q = &tp.via[i];
		const sp_tls_out *o = &q->out;
		const char *gone = sp_net_ext_failure(tp.via_child[i]);
		char what[420];
		if (gone) {
			lost++;
			sp_observed_add(r, "%s: %s", q->label, gone);
			continue;
		}
		via_what(o, what, sizeof what);
		bool answered = o->stage >= SP_TS_HTTP && o->http_status >= 200 && o->http_status < 400;
		if (answered || (o->stage >= SP_TS_HANDSHAKE && !proxy_answered(ctx, o))) {
			leaked++;
			sp_observed_add(r, "%s: NOT refused: %s", q->label, what);
		} else if (o->stage == SP_TS_NONE && o->err != ECONNRESET && o->err != EPIPE) {
			lost++;
			sp_observed_add(r, "%s: no connection at all, unlike the allowed names: %s", q->label, what);
		} else {
			refused++;
			sp_observed_add(r, "%s: refused: %s", q->label, what);
		}
	}
	size_t nd = tp.nvia - tp.nallowed;
	if (leaked)
		sp_failr(r, "%zu of %zu denied name%s got through the transparent path", leaked, nd, nd == 1 ? "" : "s");
	else if (control == 0)
		sp_errorr(r, "no allowed name got through the proxy in this run: a refusal proves nothing without the "
			     "positive control");
	else if (lost)
		sp_errorr(r, "%zu denied probe%s ended before reaching the proxy: not proven", lost, lost == 1 ? "" : "s");
	else
		sp_pass(r, "%zu denied name%s refused by the proxy on the redirected path", refused, refused == 1 ? "" : "s");
}

/* ---- descriptors ---------------------------------------------------------------- */

const sp_check sp_check_net_transparent_direct = {
	.id = SP_CKID(net_transparent_direct),
	.category = "network",
	.title = "a direct connection that ignores the proxy is blocked or lands at the proxy",
	.rationale = "programs that ignore HTTPS_PROXY must still be forced through the proxy, not straight out",
	.techniques = "AML.T0086,T1090,T1048,T1573",
	.policy_keys = TP_KEYS_DIRECT,
	.method = "action",
	.run = run_direct,
	.batch = &sp_batch_net,
};

const sp_check sp_check_net_transparent_dns = {
	.id = SP_CKID(net_transparent_dns),
	.category = "network",
	.title = "DNS answers come only from the sandbox's own resolver",
	.rationale = "a query that an outside resolver answers is an exfiltration channel past the proxy",
	.techniques = "AML.T0025,T1071.004,T1048",
	.policy_keys = TP_KEYS_DNS,
	.method = "action",
	.run = run_dns,
	.batch = &sp_batch_net,
};

const sp_check sp_check_net_transparent_ruleset = {
	.id = SP_CKID(net_transparent_ruleset),
	.category = "network",
	.title = "the namespace's nftables ruleset drops output and allows only the proxy and resolver",
	.rationale = "the rules, read beside the policy, show the hole a probe to the policy's targets cannot reach",
	.techniques = "AML.T0086,T1090,T1048",
	.policy_keys = TP_KEYS_RULESET,
	.method = "read",
	.run = run_ruleset,
};

const sp_check sp_check_net_transparent_proxied = {
	.id = SP_CKID(net_transparent_proxied),
	.category = "network",
	.title = "traffic on a redirected port reaches the declared proxy and, for an allowed name, its origin",
	.rationale = "a redirect to a proxy that is not there, or not the declared one, blocks or leaks instead of proxying",
	.techniques = "AML.T0086,T1090",
	.policy_keys = TP_KEYS_VIA,
	.method = "action",
	.run = run_proxied,
	.batch = &sp_batch_net,
};

const sp_check sp_check_net_transparent_denied = {
	.id = SP_CKID(net_transparent_denied),
	.category = "network",
	.title = "a denied name is refused by the proxy on the redirected path",
	.rationale = "the transparent path must apply the same allowlist as the explicit proxy",
	.techniques = "AML.T0086,AML.T0025,T1090,T1048",
	.policy_keys = TP_KEYS_VIA,
	.method = "action",
	.run = run_denied,
	.batch = &sp_batch_net,
};
