/* Egress allowlists:
 *   {"domains": {"api.example.com": "rw", "pypi.org": "ro"},
 *    "inference_providers": ["api.example.com"],
 *    "forbidden_hosts": ["telemetry.example.net"]}
 * Duplicate keys are refused by the parser (JSON_REJECT_DUPLICATES). */
#include <ctype.h>
#include <jansson.h>
#include <string.h>

#include "lint/checkreg.h"
#include "lint/lint.h"
#include "lint/strmap.h"

static const sp_lint_jschema allowlist_schema[] = {
	{"", 'o'},
	{"/domains", 'o'},
	{"/domains/*", 's'},
	{"/inference_providers", 'a'},
	{"/inference_providers/*", 's'},
	{"/forbidden_hosts", 'a'},
	{"/forbidden_hosts/*", 's'},
};

int sp_lint_allowlist_validate(sp_lint_file *f, sp_error *err)
{
	if (sp_lint_json_schema(f, f->json, "", allowlist_schema, SP_ARRAY_SIZE(allowlist_schema), err) < 0)
		return -1;
	if (!json_object_get(f->json, "domains"))
		return sp_lint_json_type_error(f, "", err, "\"domains\" is required (an object of host: \"ro\"|\"rw\")");
	return 0;
}

/* one part of an inet_aton() address: decimal, 0-octal or 0x-hex */
static bool aton_part(const char *s, size_t n)
{
	if (!n)
		return false;
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (size_t i = 2; i < n; i++)
			if (!isxdigit((unsigned char)s[i]))
				return false;
		return true;
	}
	if (n == 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return true; /* "0x" alone is 0 to inet_aton */
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* An address in any notation a resolver or URL parser accepts: dotted quad,
 * fewer parts (127.1), octal (0177.0.0.1), hex (0x7f.0.0.1, 0x7f000001),
 * a single integer (2130706433), IPv6 with or without brackets. */
bool sp_lint_is_raw_ip(const char *h)
{
	if (!*h)
		return false;
	if (h[0] == '[' || strchr(h, ':'))
		return true;
	size_t n = strlen(h);
	if (n && h[n - 1] == '.')
		n--; /* "1.2.3.4." */
	size_t parts = 0, start = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || h[i] == '.') {
			if (!aton_part(h + start, i - start))
				return false;
			parts++;
			start = i + 1;
		}
	}
	return parts >= 1 && parts <= 4;
}

bool sp_lint_is_dns_name(const char *h)
{
	size_t n = strlen(h);
	if (n == 0 || n > 253)
		return false;
	size_t labels = 0, start = 0;
	bool tld_alpha = false;
	for (size_t i = 0; i <= n; i++) {
		if (i == n || h[i] == '.') {
			size_t ll = i - start;
			if (ll == 0 || ll > 63 || h[start] == '-' || h[i - 1] == '-')
				return false;
			tld_alpha = false;
			for (size_t k = start; k < i; k++)
				if (isalpha((unsigned char)h[k]))
					tld_alpha = true;
			labels++;
			start = i + 1;
			continue;
		}
		unsigned char c = (unsigned char)h[i];
		if (!(isalnum(c) || c == '-'))
			return false;
	}
	return labels >= 2 && tld_alpha;
}

static void map_of(json_t *a, sp_lint_strmap *m)
{
	size_t i;
	json_t *v;
	json_array_foreach(a, i, v)
		sp_strmap_add(m, json_string_value(v), (int)i);
}

/* wildcard, raw IP, invalid name: one finding at most, the most specific */
static void check_host(sp_lint *l, size_t fi, const char *host, const char *pointer, const char *what)
{
	if (strchr(host, '*') || host[0] == '.')
		sp_lint_report(l, fi, SP_LR_ALLOW_WILDCARD, pointer, 0, 0, "%s '%s' is a wildcard", what, host);
	else if (sp_lint_is_raw_ip(host))
		sp_lint_report(l, fi, SP_LR_ALLOW_RAW_IP, pointer, 0, 0, "%s '%s' is a raw IP address", what, host);
	else if (!sp_lint_is_dns_name(host))
		sp_lint_report(l, fi, SP_LR_ALLOW_INVALID_NAME, pointer, 0, 0,
			       "%s '%s' is not a valid DNS name (letters, digits and '-' in dot-separated labels of "
			       "1-63 characters, at least two labels)",
			       what, host);
}

/* An allowlist's rules: each check below joins this table where it is
 * defined and they run in the order they are written (checkreg.h). */
typedef void allowlist_check(sp_lint *l, size_t fi, json_t *root);
SP_LINT_CHECKS(allowlist_checks, allowlist_check);

/* each domain: its name, its mode, and whether it is also forbidden */
static void check_domains(sp_lint *l, size_t fi, json_t *root)
{
	json_t *domains = json_object_get(root, "domains");
	json_t *providers = json_object_get(root, "inference_providers");
	json_t *forbidden = json_object_get(root, "forbidden_hosts");
	sp_lint_strmap prov = {0}, forb = {0};
	map_of(providers, &prov);
	map_of(forbidden, &forb);
	const char *host;
	json_t *v;
	json_object_foreach(domains, host, v) {
		_cleanup_free_ char *p = sp_jptr_join("/domains", host);
		const char *mode = json_string_value(v);
		check_host(l, fi, host, p, "host");
		if (strcmp(mode, "ro") && strcmp(mode, "rw"))
			sp_lint_report(l, fi, SP_LR_ALLOW_MODE, p, 0, 0, "'%s' has mode '%s' (only \"ro\" or \"rw\")", host,
				       mode);
		else if (!strcmp(mode, "rw") && !sp_strmap_get(&prov, host))
			sp_lint_report(l, fi, SP_LR_ALLOW_RW_NOT_PROVIDER, p, 0, 0,
				       "'%s' is read-write but not a declared inference provider", host);
		if (sp_strmap_get(&forb, host))
			sp_lint_report(l, fi, SP_LR_ALLOW_FORBIDDEN, p, 0, 0, "'%s' is allowlisted and also forbidden",
				       host);
	}
	sp_strmap_free(&prov);
	sp_strmap_free(&forb);
}
SP_LINT_CHECK(allowlist_checks, check_domains);

/* each inference provider's name */
static void check_providers(sp_lint *l, size_t fi, json_t *root)
{
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(root, "inference_providers"), i, v) {
		_cleanup_free_ char *p = sp_jptr_index("/inference_providers", i);
		check_host(l, fi, json_string_value(v), p, "inference provider");
	}
}
SP_LINT_CHECK(allowlist_checks, check_providers);

void sp_lint_allowlist_check(sp_lint *l, size_t fi)
{
	for (const struct allowlist_checks_entry *c = allowlist_checks; c; c = c->next)
		c->fn(l, fi, l->files[fi].json);
}
