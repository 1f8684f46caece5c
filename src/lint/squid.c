/* squid.conf reader and http_access evaluator (see squid.h). */
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "lint/checkreg.h"
#include "lint/squid.h"

#define SQUID_MAX_INCLUDE_DEPTH 8
#define SQUID_MAX_ACL_FILE (16u << 20)

void sp_lint_squid_free(struct sp_squid *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nacls; i++) {
		free(s->acls[i].name);
		free(s->acls[i].type);
		sp_strv_free(&s->acls[i].vals);
		for (size_t k = 0; k < s->acls[i].nre; k++)
			regfree(&s->acls[i].re[k]);
		free(s->acls[i].re);
	}
	free(s->acls);
	for (size_t i = 0; i < s->nacc; i++) {
		for (size_t k = 0; k < s->acc[i].nt; k++)
			free(s->acc[i].t[k].acl);
		free(s->acc[i].t);
		free(s->acc[i].text);
	}
	free(s->acc);
	for (size_t i = 0; i < s->nports; i++)
		free(s->ports[i].addr);
	free(s->ports);
	sp_strmap_free(&s->dom);
	free(s->memo_host);
	free(s->memo_acls);
	free(s);
}

static struct squid_acl *acl_find(const struct sp_squid *s, const char *name)
{
	for (size_t i = 0; i < s->nacls; i++)
		if (!strcmp(s->acls[i].name, name))
			return &s->acls[i];
	return NULL;
}

static bool acl_builtin(const char *name)
{
	static const char *const b[] = {"all", "localhost", "manager", "CONNECT", "to_localhost", "to_linklocal"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(b); i++)
		if (!strcmp(name, b[i]))
			return true;
	return false;
}

struct reader {
	const char *path; /* the file given on the command line, for messages */
	const char *dir;  /* its directory, for relative names */
	struct sp_squid *s;
	sp_error *err;
	bool no_external;
};

/* split a line into tokens (whitespace; "quoted" kept with a leading '"') */
static void tokenize(char *line, sp_strv *out)
{
	sp_strv_split(out, NULL, " ");
	char *p = line;
	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p)
			break;
		char *start = p;
		if (*p == '"') {
			char *q = strchr(p + 1, '"');
			p = q ? q + 1 : p + strlen(p);
		} else {
			while (*p && *p != ' ' && *p != '\t' && *p != '\r')
				p++;
		}
		char save = *p;
		*p = '\0';
		sp_strv_push(out, start);
		*p = save;
	}
}

static char *resolve(const struct reader *r, const char *name)
{
	if (name[0] == '/' || !r->dir)
		return sp_xstrdup(name);
	return sp_xasprintf("%s/%s", r->dir, name);
}

/* values of an acl line; a "quoted" value names a file of values */
static int acl_values(const struct reader *r, unsigned line, const char *tok, sp_strv *vals)
{
	if (tok[0] != '"' || r->no_external) {
		sp_strv_push(vals, tok);
		return 0;
	}
	size_t tl = strlen(tok);
	_cleanup_free_ char *name = sp_xstrndup(tok + 1, tl >= 2 && tok[tl - 1] == '"' ? tl - 2 : tl - 1);
	_cleanup_free_ char *path = resolve(r, name);
	int e = 0;
	_cleanup_free_ char *text = sp_read_file_alloc(path, SQUID_MAX_ACL_FILE, NULL, &e);
	if (!text)
		return sp_usage(r->err, "%s:%u: acl file %s: %s", r->path, line, path, strerror(e));
	for (char *p = text; *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		char *hash = strchr(p, '#');
		if (hash)
			*hash = '\0';
		char *t = sp_trim(p);
		if (*t)
			sp_strv_push(vals, t);
		p = nl ? nl + 1 : p + strlen(p);
	}
	return 0;
}

static int parse_port(const struct reader *r, unsigned line, unsigned col, const char *tok)
{
	/* [addr:]port, [v6]:port */
	const char *colon = tok[0] == '[' ? strstr(tok, "]:") : strrchr(tok, ':');
	const char *num = colon ? colon + (tok[0] == '[' ? 2 : 1) : tok;
	unsigned long long port;
	if (sp_parse_u64(num, &port) < 0 || port == 0 || port > 65535)
		return sp_usage(r->err, "%s:%u:%u: http_port '%s': expected [address:]port", r->path, line, col, tok);
	struct sp_squid *s = r->s;
	s->ports = sp_xrealloc(s->ports, (s->nports + 1) * sizeof *s->ports);
	char *addr;
	if (!colon)
		addr = sp_xstrdup("");
	else if (tok[0] == '[')
		addr = sp_xstrndup(tok + 1, (size_t)(colon - tok - 1));
	else
		addr = sp_xstrndup(tok, (size_t)(colon - tok));
	s->ports[s->nports++] = (struct squid_port){.addr = addr, .port = (unsigned)port, .line = line};
	return 0;
}

static int parse_text(struct reader *r, char *text, unsigned base_line, int depth);

static int do_include(struct reader *r, unsigned line, const char *pattern, int depth)
{
	if (r->no_external)
		return 0;
	if (depth >= SQUID_MAX_INCLUDE_DEPTH)
		return sp_usage(r->err, "%s:%u: include nested deeper than %d", r->path, line, SQUID_MAX_INCLUDE_DEPTH);
	_cleanup_free_ char *pat = resolve(r, pattern);
	glob_t g;
	int gr = glob(pat, 0, NULL, &g);
	if (gr == GLOB_NOMATCH)
		return 0;
	if (gr != 0)
		return sp_usage(r->err, "%s:%u: include %s: cannot expand", r->path, line, pattern);
	int rc = 0;
	for (size_t i = 0; i < g.gl_pathc && rc == 0; i++) {
		int e = 0;
		_cleanup_free_ char *t = sp_read_file_alloc(g.gl_pathv[i], SP_LINT_MAX_FILE, NULL, &e);
		if (!t) {
			rc = sp_usage(r->err, "%s:%u: include %s: %s", r->path, line, g.gl_pathv[i], strerror(e));
			break;
		}
		/* findings in included text point at the include line */
		rc = parse_text(r, t, line, depth + 1);
	}
	globfree(&g);
	return rc;
}

static int parse_line(struct reader *r, unsigned line, char *text, int depth)
{
	_cleanup_free_ char *copy = sp_xstrdup(text);
	sp_strv tok;
	tokenize(text, &tok);
	int rc = 0;
	if (!tok.n)
		goto out;
	const char *d = tok.v[0];
	if (!strcmp(d, "acl")) {
		if (tok.n < 3) {
			rc = sp_usage(r->err, "%s:%u:1: acl needs a name, a type and values", r->path, line);
			goto out;
		}
		struct squid_acl *a = acl_find(r->s, tok.v[1]);
		if (a && strcmp(a->type, tok.v[2])) {
			rc = sp_usage(r->err, "%s:%u:1: acl %s redefined with type %s (was %s on line %u)", r->path, line,
				      tok.v[1], tok.v[2], a->type, a->line);
			goto out;
		}
		if (!a) {
			struct sp_squid *s = r->s;
			s->acls = sp_xrealloc(s->acls, (s->nacls + 1) * sizeof *s->acls);
			a = &s->acls[s->nacls++];
			memset(a, 0, sizeof *a);
			a->name = sp_xstrdup(tok.v[1]);
			a->type = sp_xstrdup(tok.v[2]);
			a->line = line;
			sp_strv_split(&a->vals, NULL, " ");
		}
		for (size_t i = 3; i < tok.n && rc == 0; i++) {
			if (tok.v[i][0] == '-' && tok.v[i][1] && !isdigit((unsigned char)tok.v[i][1])) {
				if (!strcmp(tok.v[i], "-i"))
					a->icase = true;
				continue; /* -n, -i, -m=... flags */
			}
			rc = acl_values(r, line, tok.v[i], &a->vals);
		}
	} else if (!strcmp(d, "http_access")) {
		if (tok.n < 2 || (strcmp(tok.v[1], "allow") && strcmp(tok.v[1], "deny"))) {
			rc = sp_usage(r->err, "%s:%u:1: http_access needs allow or deny", r->path, line);
			goto out;
		}
		struct sp_squid *s = r->s;
		s->acc = sp_xrealloc(s->acc, (s->nacc + 1) * sizeof *s->acc);
		struct squid_access *x = &s->acc[s->nacc++];
		memset(x, 0, sizeof *x);
		x->allow = !strcmp(tok.v[1], "allow");
		x->line = line;
		x->text = sp_xstrdup(sp_trim(copy));
		x->t = sp_xcalloc(tok.n, sizeof *x->t);
		for (size_t i = 2; i < tok.n; i++) {
			const char *n = tok.v[i];
			bool neg = n[0] == '!';
			x->t[x->nt].neg = neg;
			x->t[x->nt++].acl = sp_xstrdup(neg ? n + 1 : n);
		}
	} else if (!strcmp(d, "http_port") || !strcmp(d, "https_port")) {
		if (tok.n < 2) {
			rc = sp_usage(r->err, "%s:%u:1: %s needs a port", r->path, line, d);
			goto out;
		}
		const char *at = strstr(copy, tok.v[1]);
		rc = parse_port(r, line, at ? (unsigned)(at - copy + 1) : 1, tok.v[1]);
	} else if (!strcmp(d, "ssl_bump")) {
		if (tok.n >= 2 && (!strcmp(tok.v[1], "bump") || !strcmp(tok.v[1], "stare") || !strcmp(tok.v[1], "client-first") ||
				   !strcmp(tok.v[1], "server-first")))
			r->s->ssl_bump = true;
	} else if (!strcmp(d, "include")) {
		for (size_t i = 1; i < tok.n && rc == 0; i++)
			rc = do_include(r, line, tok.v[i], depth);
	}
out:
	sp_strv_free(&tok);
	return rc;
}

static int parse_text(struct reader *r, char *text, unsigned base_line, int depth)
{
	unsigned line = 0, extra = 0;
	for (char *p = text; *p;) {
		line++;
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		/* a trailing backslash continues the line: join it with the next */
		size_t pl = strlen(p);
		if (pl && p[pl - 1] == '\\' && nl) {
			p[pl - 1] = ' ';
			*nl = ' ';
			extra++;
			line--;
			continue;
		}
		/* comments: a whole line, or " # ..." after the values */
		char *hash = p;
		while ((hash = strchr(hash, '#'))) {
			if (hash == p || hash[-1] == ' ' || hash[-1] == '\t') {
				*hash = '\0';
				break;
			}
			hash++;
		}
		int rc = parse_line(r, base_line ? base_line : line, p, depth);
		if (rc < 0)
			return rc;
		line += extra;
		extra = 0;
		p = nl ? nl + 1 : p + pl;
	}
	return 0;
}

int sp_lint_squid_parse(sp_lint_file *f, sp_error *err)
{
	struct sp_squid *s = sp_xcalloc(1, sizeof *s);
	f->squid = s;
	_cleanup_free_ char *dir = sp_xstrdup(f->path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	struct reader r = {.path = f->path, .dir = slash ? dir : NULL, .s = s, .err = err, .no_external = f->no_external};
	_cleanup_free_ char *text = sp_xstrndup(f->text, f->len);
	if (parse_text(&r, text, 0, 0) < 0)
		return -1;
	for (size_t i = 0; i < s->nacc; i++)
		for (size_t k = 0; k < s->acc[i].nt; k++)
			if (!acl_find(s, s->acc[i].t[k].acl) && !acl_builtin(s->acc[i].t[k].acl))
				return sp_usage(err, "%s:%u:1: http_access uses undefined acl '%s'", f->path, s->acc[i].line,
						s->acc[i].t[k].acl);
	for (size_t i = 0; i < s->nacls; i++) {
		struct squid_acl *a = &s->acls[i];
		if (!strcmp(a->type, "dstdomain")) {
			for (size_t k = 0; k < a->vals.n; k++)
				sp_strmap_add(&s->dom, a->vals.v[k], (int)i);
		} else if (!strcmp(a->type, "dstdom_regex") || !strcmp(a->type, "url_regex")) {
			a->re = sp_xcalloc(a->vals.n, sizeof *a->re);
			for (size_t k = 0; k < a->vals.n; k++) {
				int e = regcomp(&a->re[k], a->vals.v[k], REG_EXTENDED | REG_NOSUB | (a->icase ? REG_ICASE : 0));
				if (e != 0)
					return sp_usage(err, "%s:%u:1: acl %s: invalid regular expression '%s'", f->path,
							a->line, a->name, a->vals.v[k]);
				a->nre++;
			}
		}
	}
	return 0;
}

/* squid's dstdomain: "example.com" matches the host exactly, ".example.com"
 * matches it and every subdomain. The dstdomain acls that match host are
 * found through the value index (O(labels), not O(values)) and remembered
 * for the next call with the same host. */
static void dom_matches(const struct sp_squid *cs, const char *host)
{
	struct sp_squid *s = (struct sp_squid *)cs; /* the memo only */
	if (s->memo_host && !strcmp(s->memo_host, host))
		return;
	free(s->memo_host);
	s->memo_host = sp_xstrdup(host);
	s->memo_n = 0;
	size_t hl = strlen(host);
	if (!hl || hl > 1024)
		return;
	char buf[1100];
	const sp_lint_strmap_ent *cand[130];
	size_t nc = 0;
	if ((cand[nc] = sp_strmap_get(&s->dom, host)))
		nc++;
	buf[0] = '.';
	memcpy(buf + 1, host, hl + 1);
	if ((cand[nc] = sp_strmap_get(&s->dom, buf)))
		nc++;
	for (size_t i = 1; i < hl && nc < SP_ARRAY_SIZE(cand); i++)
		if (host[i] == '.' && (cand[nc] = sp_strmap_get(&s->dom, host + i)))
			nc++;
	for (size_t c = 0; c < nc; c++)
		for (size_t k = 0; k < cand[c]->nv; k++) {
			s->memo_acls = sp_xrealloc(s->memo_acls, (s->memo_n + 1) * sizeof *s->memo_acls);
			s->memo_acls[s->memo_n++] = cand[c]->vals[k];
		}
}

static bool dom_match_acl(const struct sp_squid *s, const char *host, int acl)
{
	dom_matches(s, host);
	for (size_t i = 0; i < s->memo_n; i++)
		if (s->memo_acls[i] == acl)
			return true;
	return false;
}

static bool regex_any(const struct squid_acl *a, const char *subject)
{
	for (size_t i = 0; i < a->nre; i++)
		if (regexec(&a->re[i], subject, 0, NULL, 0) == 0)
			return true;
	return false;
}

static bool port_match(const sp_strv *vals, unsigned port)
{
	for (size_t i = 0; i < vals->n; i++) {
		unsigned long lo, hi;
		char *end;
		lo = strtoul(vals->v[i], &end, 10);
		hi = lo;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (port >= lo && port <= hi)
			return true;
	}
	return false;
}

static bool acl_match(const struct sp_squid *s, const char *name, const char *host, const char *method, unsigned port)
{
	const struct squid_acl *a = acl_find(s, name);
	if (!a) {
		if (!strcmp(name, "all") || !strcmp(name, "localhost"))
			return true;
		if (!strcmp(name, "CONNECT"))
			return !strcmp(method, "CONNECT");
		return false; /* manager, to_localhost, to_linklocal */
	}
	const char *t = a->type;
	if (!strcmp(t, "dstdomain"))
		return dom_match_acl(s, host, (int)(a - s->acls));
	if (!strcmp(t, "dstdom_regex"))
		return regex_any(a, host);
	if (!strcmp(t, "url_regex")) {
		_cleanup_free_ char *url = !strcmp(method, "CONNECT") ? sp_xasprintf("%s:%u", host, port)
								      : sp_xasprintf("https://%s/", host);
		return regex_any(a, url);
	}
	if (!strcmp(t, "method"))
		return sp_strv_contains(&a->vals, method);
	if (!strcmp(t, "port"))
		return port_match(&a->vals, port);
	if (!strcmp(t, "proto"))
		return true;
	/* the client side: assumed to be the sandbox, which the proxy serves */
	static const char *const client[] = {"src", "srcdomain", "srcdom_regex", "arp", "eui64", "proxy_auth",
					     "proxy_auth_regex", "ident", "ident_regex", "ext_user", "myip", "myport",
					     "localip", "localport", "myportname", "time", "browser", "client_connection_mark"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(client); i++)
		if (!strcmp(t, client[i]))
			return true;
	return false;
}

bool sp_squid_allows(const struct sp_squid *s, const char *host, const char *method, unsigned port, unsigned *line)
{
	for (size_t i = 0; i < s->nacc; i++) {
		const struct squid_access *x = &s->acc[i];
		bool all = true;
		for (size_t k = 0; k < x->nt && all; k++)
			if (acl_match(s, x->t[k].acl, host, method, port) == x->t[k].neg)
				all = false;
		if (all) {
			if (line)
				*line = x->line;
			return x->allow;
		}
	}
	if (line)
		*line = 0;
	/* squid: with no match, the opposite of the last rule; no rules: deny */
	return s->nacc ? !s->acc[s->nacc - 1].allow : false;
}

const struct squid_acl *sp_squid_dstdomain_for(const struct sp_squid *s, const char *host)
{
	dom_matches(s, host);
	int first = -1;
	for (size_t i = 0; i < s->memo_n; i++)
		if (first < 0 || s->memo_acls[i] < first)
			first = s->memo_acls[i];
	return first >= 0 ? &s->acls[first] : NULL;
}

/* A squid config's rules: each check below joins this table where it is
 * defined and they run in the order they are written (checkreg.h). */
typedef void squid_check(sp_lint *l, size_t fi, const struct sp_squid *s);
SP_LINT_CHECKS(squid_checks, squid_check);

static void check_open_proxy(sp_lint *l, size_t fi, const struct sp_squid *s)
{
	/* a host no allowlist would ever name */
	static const char probe[] = "unlisted-host.sandprobe.invalid";
	unsigned line = 0;
	if (sp_squid_allows(s, probe, "GET", 443, &line) || sp_squid_allows(s, probe, "CONNECT", 443, &line)) {
		const char *text = "(no http_access rule matched; the default is the opposite of the last rule)";
		for (size_t i = 0; i < s->nacc; i++)
			if (s->acc[i].line == line)
				text = s->acc[i].text;
		sp_lint_report(l, fi, SP_LR_SQUID_OPEN_PROXY, NULL, line ? line : 1, 1,
			       "requests to any host are forwarded: %s (client ACLs are assumed to match the sandbox)", text);
	}
}
SP_LINT_CHECK(squid_checks, check_open_proxy);

void sp_lint_squid_check(sp_lint *l, size_t fi)
{
	for (const struct squid_checks_entry *c = squid_checks; c; c = c->next)
		c->fn(l, fi, l->files[fi].squid);
}
