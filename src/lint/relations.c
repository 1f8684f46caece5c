/* Relationships between files given together, read from both sides:
 * - every allowlisted host is allowed by the proxy (named in a dstdomain ACL
 *   and GET forwarded); read-only hosts get nothing but GET and HEAD (no
 *   write methods, no CONNECT tunnel unless squid bumps TLS); forbidden hosts
 *   are refused;
 * - the proxy address a sandbox is given (HTTPS_PROXY in config.json
 *   process.env or a compose service's environment) is one squid listens on. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "lint/checkreg.h"
#include "lint/squid.h"

static const char *const write_methods[] = {"POST", "PUT", "PATCH", "DELETE"};

static void allowlist_vs_squid(sp_lint *l, size_t ai, size_t si)
{
	const sp_lint_file *af = &l->files[ai], *sf = &l->files[si];
	const struct sp_squid *s = sf->squid;
	json_t *root = af->json;
	const char *host;
	json_t *v;
	json_object_foreach(json_object_get(root, "domains"), host, v) {
		_cleanup_free_ char *p = sp_jptr_join("/domains", host);
		const char *mode = json_string_value(v);
		unsigned line = 0;
		const struct squid_acl *acl = sp_squid_dstdomain_for(s, host);
		if (!acl) {
			sp_lint_report(l, ai, SP_LR_REL_HOST_NOT_IN_PROXY, p, 0, 0, "'%s' is in no dstdomain acl of %s", host,
				       sf->path);
			continue;
		}
		if (!sp_squid_allows(s, host, "GET", 443, &line))
			sp_lint_report(l, ai, SP_LR_REL_HOST_NOT_IN_PROXY, p, 0, 0,
				       "'%s' is in acl %s (%s:%u) but GET is denied (%s:%u)", host, acl->name, sf->path,
				       acl->line, sf->path, line);
		if (strcmp(mode, "ro"))
			continue;
		char bad[128] = "";
		unsigned bad_line = 0;
		for (size_t m = 0; m < SP_ARRAY_SIZE(write_methods); m++)
			if (sp_squid_allows(s, host, write_methods[m], 443, &line)) {
				size_t bl = strlen(bad);
				snprintf(bad + bl, sizeof bad - bl, "%s%s", bl ? ", " : "", write_methods[m]);
				if (!bad_line)
					bad_line = line;
			}
		if (bad[0])
			sp_lint_report(l, ai, SP_LR_REL_RO_NOT_ENFORCED, p, 0, 0,
				       "read-only '%s' accepts %s at the proxy (%s:%u)", host, bad, sf->path, bad_line);
		else if (!s->ssl_bump && sp_squid_allows(s, host, "CONNECT", 443, &line))
			sp_lint_report(l, ai, SP_LR_REL_RO_NOT_ENFORCED, p, 0, 0,
				       "read-only '%s' accepts CONNECT (%s:%u) and squid does not bump TLS: any method "
				       "passes inside the tunnel",
				       host, sf->path, line);
	}
	size_t i;
	json_array_foreach(json_object_get(root, "forbidden_hosts"), i, v) {
		const char *h = json_string_value(v);
		unsigned line = 0;
		if (sp_squid_allows(s, h, "GET", 443, &line) || sp_squid_allows(s, h, "CONNECT", 443, &line)) {
			_cleanup_free_ char *p = sp_jptr_index("/forbidden_hosts", i);
			sp_lint_report(l, ai, SP_LR_REL_FORBIDDEN_ALLOWED, p, 0, 0, "forbidden '%s' is forwarded by %s:%u", h,
				       sf->path, line);
		}
	}
}

/* host and port of a proxy URL ("http://user:pw@host:port/", "host:port") */
static bool parse_proxy(const char *url, char *host, size_t hsz, unsigned *port)
{
	const char *p = strstr(url, "://");
	bool https = sp_startswith(url, "https://");
	p = p ? p + 3 : url;
	const char *end = p + strcspn(p, "/?#");
	const char *at = memchr(p, '@', (size_t)(end - p));
	while (at) { /* the last '@' of the authority */
		p = at + 1;
		at = memchr(p, '@', (size_t)(end - p));
	}
	const char *hend, *colon = NULL;
	if (*p == '[') {
		hend = memchr(p, ']', (size_t)(end - p));
		if (!hend)
			return false;
		snprintf(host, hsz, "%.*s", (int)(hend - p - 1), p + 1);
		if (hend + 1 < end && hend[1] == ':')
			colon = hend + 1;
	} else {
		colon = memchr(p, ':', (size_t)(end - p));
		hend = colon ? colon : end;
		snprintf(host, hsz, "%.*s", (int)(hend - p), p);
	}
	if (!host[0])
		return false;
	if (colon) {
		char num[8];
		size_t nl = (size_t)(end - colon - 1);
		if (nl == 0 || nl >= sizeof num)
			return false;
		memcpy(num, colon + 1, nl);
		num[nl] = '\0';
		unsigned long long v;
		if (sp_parse_u64(num, &v) < 0 || v == 0 || v > 65535)
			return false;
		*port = (unsigned)v;
	} else {
		*port = https ? 443 : 80;
	}
	return true;
}

static bool loopback(const char *h)
{
	return !strcasecmp(h, "localhost") || sp_startswith(h, "127.") || !strcmp(h, "::1");
}

static bool listener_matches(const struct squid_port *lp, const char *host, unsigned port)
{
	if (lp->port != port)
		return false;
	const char *a = lp->addr;
	if (!a[0] || !strcmp(a, "0.0.0.0") || !strcmp(a, "::"))
		return true;
	return !strcasecmp(a, host) || (loopback(a) && loopback(host));
}

static void sandbox_vs_squid(sp_lint *l, size_t fi)
{
	sp_lint_file *f = &l->files[fi];
	if (!f->nproxies) {
		bool oci = f->kind == SP_LK_OCI;
		sp_lint_report(l, fi, SP_LR_REL_PROXY_UNSET, oci ? "/process/env" : NULL, oci ? 0 : 1, oci ? 0 : 1,
			       "a proxy config was given but %s sets no HTTPS_PROXY", oci ? "process.env" : "no service");
		return;
	}
	for (size_t k = 0; k < f->nproxies; k++) {
		const sp_lint_proxyref *pr = &f->proxies[k];
		char host[256];
		unsigned port = 0;
		if (!parse_proxy(pr->value, host, sizeof host, &port)) {
			sp_lint_report(l, fi, SP_LR_REL_PROXY_ADDRESS, pr->pointer, pr->line, pr->column,
				       "%s='%s' is not a proxy URL (scheme://host:port)", pr->name, pr->value);
			continue;
		}
		bool match = false;
		char listeners[512] = "";
		for (size_t si = 0; si < l->nfiles && !match; si++) {
			const struct sp_squid *s = l->files[si].squid;
			if (!s || l->files[si].failed)
				continue;
			for (size_t i = 0; i < s->nports; i++) {
				if (listener_matches(&s->ports[i], host, port))
					match = true;
				size_t ll = strlen(listeners);
				snprintf(listeners + ll, sizeof listeners - ll, "%s%s%s%u", ll ? ", " : "",
					 s->ports[i].addr[0] ? s->ports[i].addr : "*", ":", s->ports[i].port);
			}
		}
		if (!match)
			sp_lint_report(l, fi, SP_LR_REL_PROXY_ADDRESS, pr->pointer, pr->line, pr->column,
				       "%s=%s (%s port %u) is not a listener of the proxy (http_port %s)", pr->name, pr->value,
				       host, port, listeners[0] ? listeners : "none");
	}
}

/* The relation rules: each check below joins this table where it is
 * defined and they run in the order they are written (checkreg.h). */
typedef void relation_check(sp_lint *l);
SP_LINT_CHECKS(relation_checks, relation_check);

static bool any_squid(const sp_lint *l)
{
	for (size_t si = 0; si < l->nfiles; si++)
		if (l->files[si].kind == SP_LK_SQUID && !l->files[si].failed)
			return true;
	return false;
}

/* every allowlist against every squid config */
static void check_allowlists(sp_lint *l)
{
	for (size_t si = 0; si < l->nfiles; si++) {
		if (l->files[si].kind != SP_LK_SQUID || l->files[si].failed)
			continue;
		for (size_t ai = 0; ai < l->nfiles; ai++)
			if (l->files[ai].kind == SP_LK_ALLOWLIST && !l->files[ai].failed)
				allowlist_vs_squid(l, ai, si);
	}
}
SP_LINT_CHECK(relation_checks, check_allowlists);

/* every sandbox config's proxy settings, when a squid config is given */
static void check_sandboxes(sp_lint *l)
{
	if (!any_squid(l))
		return;
	for (size_t fi = 0; fi < l->nfiles; fi++)
		if (l->files[fi].is_sandbox && !l->files[fi].failed)
			sandbox_vs_squid(l, fi);
}
SP_LINT_CHECK(relation_checks, check_sandboxes);

void sp_lint_relations_check(sp_lint *l)
{
	for (const struct relation_checks_entry *c = relation_checks; c; c = c->next)
		c->fn(l);
}
