/* TLS interception trust (tls.*). An AI-agent sandbox whose egress proxy
 * inspects TLS re-signs every server certificate with its own CA; every
 * client in the sandbox must trust that CA, or agents switch verification
 * off. These checks prove that the CA the policy names (tls.ca, a PEM or DER
 * file, or tls.ca_fingerprint, SHA-256) is in the system trust store the
 * clients read (tls.store, default the distribution's bundle), that the CA
 * variables clients honour point at readable files that hold it, and, by a
 * real handshake through the proxy, that an allowed host's certificate
 * verifies against that store and was issued by that CA, while a denied
 * host is refused. The handshakes ride in the network batch (network.c,
 * net_ext.h): they run at the same moment as the net.* probes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/types.h"
#include "checks/net_ext.h"
#include "checks/network.h"
#include "checks/net_probe.h"
#include "checks/probe.h"
#include "checks/tls_probe.h"
#include "core/outcome.h"
#include "core/runner.h"
#include "core/util.h"
#include "catalog/catalog.h"

#define TLS_KEYS_CA "tls.ca:str,tls.ca_fingerprint:sha256s,tls.store:list"
#define TLS_KEYS_PROBE                                                                                            \
	TLS_KEYS_CA ",tls.allowed_hosts:tls_hosts,tls.denied_hosts:tls_hosts,tls.timeout_ms:int,net.proxy:proxy_url"

/* the CA variables clients read: files, except SSL_CERT_DIR */
static const char *const ca_vars[] = {"SSL_CERT_FILE",  "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
				      "CURL_CA_BUNDLE", "GIT_SSL_CAINFO",     "SSL_CERT_DIR"};

/* the most hosts tls.allowed_hosts and tls.denied_hosts are probed at */
#define TLS_MAX_HOSTS 4

static void ca_expect_text(const sp_ctx *ctx, char *out, size_t size)
{
	const char *file = sp_policy_get(ctx->policy, "tls.ca");
	const char *fp = sp_policy_get(ctx->policy, "tls.ca_fingerprint");
	snprintf(out, size, "%s%s%s%.20s%s", file && *file ? "tls.ca " : "", file && *file ? file : "",
		 file && *file && fp && *fp ? ", sha256 " : fp && *fp ? "sha256 " : "", fp && *fp ? fp : "",
		 fp && strlen(fp) > 20 ? "..." : "");
}

/* ---- tls.ca_store --------------------------------------------------------------- */

static void run_ca_store(const sp_ctx *ctx, sp_result *r)
{
	char ca[200];
	ca_expect_text(ctx, ca, sizeof ca);
	sp_expected(r, "the interception CA (%s) is in every system trust store file (tls.store)", ca[0] ? ca : "none named");
	sp_tls_trust t;
	sp_outcome o = {0};
	int rc = sp_tls_trust_from_policy(ctx, &t, &o);
	if (rc < 0) {
		sp_errorr(r, "%s", o.why);
		sp_tls_trust_free(&t);
		return;
	}
	if (rc == 0) {
		sp_skip(r, "policy names no interception CA (tls.ca, tls.ca_fingerprint)");
		sp_tls_trust_free(&t);
		return;
	}
	if (t.store.n == 0) {
		sp_errorr(r, "no system trust store: tls.store unset and none of the usual bundles exists "
			     "(/etc/ssl/certs/ca-certificates.crt ...)");
		sp_tls_trust_free(&t);
		return;
	}
	size_t absent = 0, unreadable = 0;
	for (size_t i = 0; i < t.store.n; i++) {
		size_t n = 0;
		int has = sp_tls_bundle_has(t.store.v[i], &t.fpr, &n, &o);
		if (has < 0) {
			unreadable++;
			sp_observed_add(r, "%s: %s", t.store.v[i], o.why);
		} else {
			absent += has == 0;
			sp_observed_add(r, "%s: %zu certificates, the CA %s", t.store.v[i], n, has ? "present" : "ABSENT");
		}
	}
	/* OpenSSL's hashed directory, where clients look up issuers by name */
	if (t.ca && access("/etc/ssl/certs", F_OK) == 0) {
		int d = sp_tls_dir_has("/etc/ssl/certs", t.ca, &o);
		const char *state = d > 0 ? "present" : "absent";
		if (d < 0)
			state = o.why;
		sp_observed_add(r, "/etc/ssl/certs (hashed): the CA %s", state);
	}
	if (unreadable)
		sp_errorr(r, "%zu trust store file%s unreadable: cannot judge", unreadable, unreadable == 1 ? "" : "s");
	else if (absent)
		sp_failr(r, "the interception CA is missing from %zu of %zu trust store file%s: clients will reject the proxy's "
			    "certificates", absent, t.store.n, t.store.n == 1 ? "" : "s");
	else
		sp_pass(r, "the interception CA is in the system trust store");
	sp_tls_trust_free(&t);
}

/* ---- tls.ca_env ------------------------------------------------------------------ */

static void run_ca_env(const sp_ctx *ctx, sp_result *r)
{
	sp_strv need;
	sp_policy_list(ctx->policy, "tls.ca_env", &need);
	sp_expected(r, "%s%s; every CA variable that is set names a readable file (SSL_CERT_DIR: directory) holding "
		       "the interception CA", need.n ? "set: " : "", need.n ? sp_policy_get(ctx->policy, "tls.ca_env") : "no variable required");
	sp_tls_trust t;
	sp_outcome o = {0};
	int rc = sp_tls_trust_from_policy(ctx, &t, &o);
	if (rc <= 0) {
		if (rc < 0)
			sp_errorr(r, "%s", o.why);
		else
			sp_skip(r, "policy names no interception CA (tls.ca, tls.ca_fingerprint)");
		sp_tls_trust_free(&t);
		sp_strv_free(&need);
		return;
	}
	sp_strv vars;
	sp_strv_split(&vars, NULL, ",");
	for (size_t i = 0; i < need.n; i++)
		if (!sp_strv_contains(&vars, need.v[i]))
			sp_strv_push(&vars, need.v[i]);
	for (size_t i = 0; i < SP_ARRAY_SIZE(ca_vars); i++)
		if (getenv(ca_vars[i]) && !sp_strv_contains(&vars, ca_vars[i]))
			sp_strv_push(&vars, ca_vars[i]);
	size_t bad = 0, checked = 0, nmemo = 0;
	char badlist[300] = "";
	struct {
		char path[512];
		int has;
		size_t n;
		sp_outcome o; /* why not, when has < 0 */
	} memo[8];
	for (size_t i = 0; i < vars.n; i++) {
		const char *name = vars.v[i], *v = getenv(name);
		bool required = sp_strv_contains(&need, name);
		const char *problem = NULL;
		char note[320] = "";
		if (!v) {
			problem = "unset";
		} else if (!*v) {
			problem = "empty";
		} else if (!strcmp(name, "SSL_CERT_DIR")) {
			/* a colon-separated list of hashed directories */
			sp_strv dirs;
			sp_strv_split(&dirs, v, ":");
			int found = 0;
			sp_outcome err = {0}; /* the last directory that could not be read */
			for (size_t k = 0; k < dirs.n && found <= 0; k++) {
				sp_outcome dk = {0};
				int d = sp_tls_dir_has(dirs.v[k], t.ca, &dk);
				if (d < 0)
					err = dk;
				else
					found = d;
			}
			sp_strv_free(&dirs);
			if (!t.ca)
				problem = "cannot be judged (the CA certificate itself is not available)";
			else if (found <= 0 && err.errnum)
				snprintf(note, sizeof note, "unreadable or lacks the CA: %s", err.why), problem = note;
			else if (found <= 0)
				problem = "lacks the CA";
		} else {
			size_t n = 0;
			/* variables often name the same bundle: read each file once */
			int has = 0;
			sp_outcome ho = {0};
			size_t k = 0;
			for (; k < nmemo && strcmp(memo[k].path, v); k++)
				;
			if (k < nmemo) {
				has = memo[k].has;
				n = memo[k].n;
				ho = memo[k].o;
			} else {
				has = sp_tls_bundle_has(v, &t.fpr, &n, &ho);
				if (nmemo < SP_ARRAY_SIZE(memo)) {
					snprintf(memo[nmemo].path, sizeof memo[nmemo].path, "%s", v);
					memo[nmemo].has = has;
					memo[nmemo].o = ho;
					memo[nmemo++].n = n;
				}
			}
			if (has < 0)
				snprintf(note, sizeof note, "%s: %s", v, ho.errnum == EBADMSG ? "holds no certificate" : ho.why),
					problem = note;
			else if (has == 0)
				snprintf(note, sizeof note, "%s holds %zu certificate%s, not the CA", v, n, n == 1 ? "" : "s"),
					problem = note;
		}
		if (!v && !required)
			continue;
		checked++;
		if (problem) {
			bad++;
			size_t l = strlen(badlist);
			snprintf(badlist + l, sizeof badlist - l, "%s%s", l ? "," : "", name);
			sp_observed_add(r, "%s %s", name, problem);
		} else {
			sp_observed_add(r, "%s=%s holds the CA", name, v);
		}
	}
	if (checked == 0)
		sp_observed(r, "no CA variable set (%s ...), none required (tls.ca_env)", ca_vars[0]);
	if (bad)
		sp_failr(r, "%zu CA variable%s wrong: %s", bad, bad == 1 ? "" : "s", badlist);
	else if (checked)
		sp_pass(r, "%zu CA variable%s name the interception CA", checked, checked == 1 ? "" : "s");
	else
		sp_pass(r, "no CA variable set and none required: clients read the system store");
	sp_strv_free(&vars);
	sp_strv_free(&need);
	sp_tls_trust_free(&t);
}

/* ---- the handshakes (planned into the network batch) ---------------------------- */

static struct tls_plan {
	bool built;
	int have_ca;             /* sp_tls_trust_from_policy's answer */
	char error[320];         /* a configuration problem: both probe checks error */
	bool proxy_configured;
	char proxy[200];         /* "http://... (from HTTPS_PROXY)" */
	sp_tls_trust trust;
	sp_tls_req *req;
	size_t *child;           /* index of each request's child in the batch */
	size_t n;
} plan;

static void tls_plan_reset(void)
{
	sp_tls_trust_free(&plan.trust);
	free(plan.req);
	free(plan.child);
	memset(&plan, 0, sizeof plan);
}

static bool on(const sp_ctx *ctx, const char *id)
{
	return sp_policy_expect(ctx->policy, id) != SP_EXPECT_OFF;
}

/* "host[:port]" with the default port 443 */
static int split_host(const char *s, char *host, size_t hsz, unsigned *port, sp_outcome *o)
{
	return sp_net_parse_name_port(s, 443, host, hsz, port, o);
}

static int tls_host_parse(const char *s, sp_outcome *o)
{
	char host[128];
	unsigned port;
	if (split_host(s, host, sizeof host, &port, o) == 0)
		return 0;
	return -1;
}

const sp_policy_type sp_ptype_tls_hosts = {.name = "tls_hosts", .what = "HOST[:PORT], port 443 when absent",
					   .list = true, .max = TLS_MAX_HOSTS, .parse = tls_host_parse};

static void add_reqs(const sp_ctx *ctx, const sp_proxy_plan *pp, const char *key, const char *check, bool positive,
		     unsigned to)
{
	sp_strv hosts;
	sp_policy_list(ctx->policy, key, &hosts);
	for (size_t i = 0; i < hosts.n && i < TLS_MAX_HOSTS; i++) {
		char host[128];
		unsigned port;
		sp_outcome o = {0};
		if (split_host(hosts.v[i], host, sizeof host, &port, &o) < 0) {
			snprintf(plan.error, sizeof plan.error, "%s: %s", key, o.why);
			break;
		}
		plan.req = sp_xrealloc(plan.req, (plan.n + 1) * sizeof *plan.req);
		sp_tls_req *q = &plan.req[plan.n++];
		memset(q, 0, sizeof *q);
		q->check = check;
		snprintf(q->host, sizeof q->host, "%s", host);
		q->port = port;
		q->tls = true;
		q->via_proxy = true;
		q->socks = pp->socks;
		q->positive = positive;
		q->addr = pp->proxy;
		q->addrlen = pp->proxylen;
		q->timeout_ms = to;
		snprintf(q->label, sizeof q->label, "TLS to %s:%u via %s", host, port, pp->socks ? "SOCKS5" : "CONNECT");
	}
	sp_strv_free(&hosts);
}

static void tls_plan_build(const sp_ctx *ctx, const sp_proxy_plan *pp, unsigned egress_timeout_ms)
{
	(void)egress_timeout_ms;
	tls_plan_reset();
	plan.built = true;
	bool want_allowed = on(ctx, "tls.intercept") || on(ctx, "tls.denied");
	bool want_denied = on(ctx, "tls.denied");
	if (!want_allowed)
		return;
	plan.proxy_configured = pp->configured;
	if (pp->configured)
		snprintf(plan.proxy, sizeof plan.proxy, "%s (from %s)", pp->url, pp->source);
	sp_outcome o = {0};
	plan.have_ca = sp_tls_trust_from_policy(ctx, &plan.trust, &o);
	if (plan.have_ca < 0)
		snprintf(plan.error, sizeof plan.error, "%s", o.why);
	if (plan.have_ca < 0 || !pp->configured)
		return;
	if (pp->error[0]) {
		snprintf(plan.error, sizeof plan.error, "%s", pp->error);
		return;
	}
	unsigned to = (unsigned)sp_policy_int(ctx->policy, "tls.timeout_ms", 3000);
	if (to == 0 || to > 60000)
		to = 3000;
	add_reqs(ctx, pp, "tls.allowed_hosts", "tls.intercept", true, to);
	if (want_denied && !plan.error[0])
		add_reqs(ctx, pp, "tls.denied_hosts", "tls.denied", false, to);
	if (plan.error[0]) {
		plan.n = 0;
		return;
	}
	for (size_t i = 0; i < plan.n; i++)
		plan.req[i].trust = &plan.trust;
	plan.child = sp_xcalloc(plan.n ? plan.n : 1, sizeof *plan.child);
	for (size_t i = 0; i < plan.n; i++)
		plan.child[i] = sp_net_ext_add(sp_tls_child, &plan.req[i], &plan.req[i].out, sizeof plan.req[i].out, to);
}

/* the handshakes join the network batch first (order 10), before the
 * transparent probes */
static const sp_net_ext_module tls_ext = {
	.name = "tls", .order = 10, .build = tls_plan_build, .reset = tls_plan_reset};

__attribute__((constructor)) static void tls_ext_register(void)
{
	sp_net_ext_register(&tls_ext);
}

/* what one request saw, as one observed item */
static void describe(sp_result *r, size_t i)
{
	const sp_tls_req *q = &plan.req[i];
	const sp_tls_out *o = &q->out;
	const char *gone = sp_net_ext_failure(plan.child[i]);
	if (gone) {
		sp_observed_add(r, "%s: %s", q->label, gone);
		return;
	}
	char cert[300] = "";
	if (o->stage >= SP_TS_HANDSHAKE)
		snprintf(cert, sizeof cert, "; certificate %s; verify: %s%s%s; %s", o->leaf[0] ? o->leaf : "(none)",
			 o->verify == 0 ? "ok" : sp_tls_verify_text(o->verify), o->anchor[0] ? ", anchor sha256 " : "",
			 o->anchor, o->issued_by_ca ? "issued by the policy's CA" : "NOT issued by the policy's CA");
	if (o->stage == SP_TS_HTTP)
		sp_observed_add(r, "%s: answered %d (%s)%s", q->label, o->http_status, o->head, cert);
	else
		sp_observed_add(r, "%s: %s%s", q->label, o->fail[0] ? o->fail : "no answer", cert);
}

static bool common_gate(const sp_ctx *ctx, sp_result *r, const char *check, const char *hosts_key)
{
	const char *fault = sp_net_batch_ensure(ctx);
	if (plan.error[0]) {
		sp_errorr(r, "%s", plan.error);
		return false;
	}
	if (plan.have_ca == 0 && !strcmp(check, "tls.intercept")) {
		sp_skip(r, "policy names no interception CA (tls.ca, tls.ca_fingerprint)");
		return false;
	}
	if (!plan.proxy_configured) {
		sp_skip(r, "no proxy named (net.proxy unset, no HTTPS_PROXY/HTTP_PROXY/ALL_PROXY in the environment)");
		return false;
	}
	size_t n = 0;
	for (size_t i = 0; i < plan.n; i++)
		n += !strcmp(plan.req[i].check, check);
	if (n == 0) {
		sp_skip(r, "%s is empty: nothing to probe", hosts_key);
		return false;
	}
	if (fault[0]) {
		sp_errorr(r, "%s", fault);
		return false;
	}
	if (plan.trust.store.n == 0) {
		sp_errorr(r, "no system trust store to verify against (tls.store)");
		return false;
	}
	sp_observed(r, "proxy %s; verifying against %s", plan.proxy, plan.trust.store.v[0]);
	return true;
}

static bool intercept_ok(size_t i)
{
	const sp_tls_out *o = &plan.req[i].out;
	return !sp_net_ext_failure(plan.child[i]) && o->stage == SP_TS_HTTP && o->verify == 0 && o->anchor_is_ca;
}

static void run_intercept(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "a TLS handshake through the proxy to each tls.allowed_hosts entry verifies against the system "
		       "store (name included), chains to the interception CA, and carries an HTTP answer");
	if (!common_gate(ctx, r, "tls.intercept", "tls.allowed_hosts"))
		return;
	size_t n = 0, good = 0, down = 0, untrusted = 0, foreign = 0, other = 0;
	for (size_t i = 0; i < plan.n; i++) {
		if (strcmp(plan.req[i].check, "tls.intercept"))
			continue;
		const sp_tls_out *o = &plan.req[i].out;
		n++;
		describe(r, i);
		if (intercept_ok(i)) {
			good++;
		} else if (sp_net_ext_failure(plan.child[i]) || o->stage == SP_TS_NONE) {
			down++;
		} else if (o->stage >= SP_TS_HANDSHAKE && o->verify != 0 && o->issued_by_ca) {
			untrusted++;
		} else if (o->stage >= SP_TS_HANDSHAKE && (!o->issued_by_ca || (o->verify == 0 && !o->anchor_is_ca))) {
			foreign++;
		} else {
			other++;
		}
	}
	if (good == n)
		sp_pass(r, "%zu allowed host%s verified, issued by the interception CA", n, n == 1 ? "" : "s");
	else if (down == n)
		sp_errorr(r, "no handshake could be tried (proxy unreachable or the probe gave no result): nothing is proven");
	else if (foreign)
		sp_failr(r, "%zu handshake%s presented a certificate the interception CA did not issue (another CA re-signs, "
			    "or TLS is not intercepted)", foreign, foreign == 1 ? "" : "s");
	else if (untrusted)
		sp_failr(r, "%zu certificate%s issued by the interception CA did not verify against the system store (the CA "
			    "is not trusted there)", untrusted, untrusted == 1 ? "" : "s");
	else
		sp_failr(r, "%zu of %zu allowed host%s not reached over verified TLS", n - good, n, n == 1 ? "" : "s");
}

/* a denied request: was it refused (1), did it get through (0), or is the
 * outcome unknown (-1, with a reason)? */
static int refused(size_t i, const char **why)
{
	const sp_tls_out *o = &plan.req[i].out;
	*why = sp_net_ext_failure(plan.child[i]);
	if (*why)
		return -1;
	if (o->stage == SP_TS_NONE) {
		*why = "the proxy is unreachable";
		return -1;
	}
	if (o->stage == SP_TS_TCP) {
		if (o->closed || (o->connect_status >= 400 && o->connect_status < 500))
			return 1;
		*why = o->connect_status >= 500 ? "the proxy tried the host and failed (5xx): not a refusal"
						: "no answer to CONNECT";
		return -1;
	}
	if (o->stage == SP_TS_TUNNEL || o->stage == SP_TS_HANDSHAKE) {
		if (o->closed)
			return 1;
		*why = o->err == ETIMEDOUT ? "the tunnel opened and then nothing came back" : "the tunnel opened, then an error";
		return o->err == ETIMEDOUT ? -1 : 1;
	}
	/* an HTTP answer inside TLS: only a refusal status counts as refused */
	return o->http_status == 403 || o->http_status == 451 || o->http_status == 407 ? 1 : 0;
}

static void run_denied(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "a TLS connection through the proxy to each tls.denied_hosts entry is refused (CONNECT refused, "
		       "the tunnel closed, or a refusal status inside)");
	if (!common_gate(ctx, r, "tls.denied", "tls.denied_hosts"))
		return;
	size_t n = 0, through = 0, unknown = 0, controls = 0, controls_ok = 0;
	for (size_t i = 0; i < plan.n; i++) {
		if (!strcmp(plan.req[i].check, "tls.intercept")) {
			controls++;
			/* the proxy forwards an allowed host (trusted or not: that is tls.intercept's) */
			controls_ok += !sp_net_ext_failure(plan.child[i]) && plan.req[i].out.stage == SP_TS_HTTP;
			continue;
		}
		if (strcmp(plan.req[i].check, "tls.denied"))
			continue;
		n++;
		const char *why = NULL;
		int rf = refused(i, &why);
		describe(r, i);
		if (rf == 0)
			through++;
		else if (rf < 0) {
			unknown++;
			sp_observed_add(r, "%s: %s", plan.req[i].label, why);
		}
	}
	if (through)
		sp_failr(r, "%zu of %zu denied host%s answered through the proxy", through, n, n == 1 ? "" : "s");
	else if (unknown)
		sp_errorr(r, "%zu request%s ended without a refusal: denial not proven", unknown, unknown == 1 ? "" : "s");
	else if (controls && controls_ok < controls)
		sp_errorr(r, "refused, but an allowed host was not answered either: a proxy that refuses everything proves "
			     "nothing");
	else
		sp_pass(r, "all %zu denied host%s refused%s", n, n == 1 ? "" : "s",
			controls ? "" : " (no positive control: tls.allowed_hosts is empty)");
}

/* ---- descriptors ---------------------------------------------------------------- */

const sp_check sp_check_tls_ca_store = {
	.id = SP_CKID(tls_ca_store),
	.category = "tls",
	.title = "the interception CA is in the system trust store",
	.rationale = "clients that do not trust the proxy's CA fail, and agents then switch verification off",
	.techniques = "AML.T0086,T1557",
	.policy_keys = TLS_KEYS_CA,
	.method = "read",
	.run = run_ca_store,
};

const sp_check sp_check_tls_ca_env = {
	.id = SP_CKID(tls_ca_env),
	.category = "tls",
	.title = "CA variables name readable files holding the interception CA",
	.rationale = "a CA variable pointing at a missing or wrong bundle overrides the store for that client",
	.techniques = "AML.T0086,T1557",
	.policy_keys = TLS_KEYS_CA ",tls.ca_env:list",
	.method = "read",
	.run = run_ca_env,
};

const sp_check sp_check_tls_intercept = {
	.id = SP_CKID(tls_intercept),
	.category = "tls",
	.title = "TLS to an allowed host through the proxy verifies and chains to the interception CA",
	.rationale = "only a handshake shows that the proxy re-signs with the CA the clients trust",
	.techniques = "AML.T0086,T1557,T1573",
	.policy_keys = TLS_KEYS_PROBE,
	.method = "action",
	.run = run_intercept,
	.batch = &sp_batch_net,
};

const sp_check sp_check_tls_denied = {
	.id = SP_CKID(tls_denied),
	.category = "tls",
	.title = "TLS to a denied host through the proxy is refused",
	.rationale = "an intercepting proxy that forwards unlisted hosts gives agents an encrypted way out",
	.techniques = "AML.T0086,AML.T0025,T1573,T1048",
	.policy_keys = TLS_KEYS_PROBE,
	.method = "action",
	.run = run_denied,
	.batch = &sp_batch_net,
};
