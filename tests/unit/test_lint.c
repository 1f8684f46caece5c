/* Unit tests of the lint internals: IP notations, DNS names, JSON pointer
 * positions, the squid evaluator, findings from buffers. */
#include <stdlib.h>
#include <string.h>

#include "lint/lint.h"
#include "lint/squid.h"
#include "unit/tap.h"

static void test_raw_ip(void)
{
	static const char *const ips[] = {"127.0.0.1", "0177.0.0.1", "0x7f.0.0.1", "0x7f000001", "2130706433",
					  "127.1", "10.0.0.1.", "[::1]", "::1", "fe80::1%eth0", "169.254.169.254",
					  "0x7F.1", "017700000001", "1.2.3.4"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(ips); i++)
		ok(sp_lint_is_raw_ip(ips[i]), "raw IP: %s", ips[i]);
	static const char *const names[] = {"api.example.com", "1e100.net", "123.example", "0x7f.example.com",
					    "localhost", "pypi.org", "a.b.c.d.e"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(names); i++)
		ok(!sp_lint_is_raw_ip(names[i]), "not an IP: %s", names[i]);
}

static void test_dns(void)
{
	static const char *const good[] = {"pypi.org", "files.pythonhosted.org", "xn--bcher-kva.example", "a-b.c0"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(good); i++)
		ok(sp_lint_is_dns_name(good[i]), "valid DNS name: %s", good[i]);
	char long_label[80];
	memset(long_label, 'a', 64);
	memcpy(long_label + 64, ".com", 5);
	const char *bad[] = {"localhost", "bad_name.example.com", "-lead.example.com", "trail-.example.com",
			     "a..b.com", "example.com.", "exa mple.com", "1.2.3.4", "", long_label, "caf\xc3\xa9.example"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(bad); i++)
		ok(!sp_lint_is_dns_name(bad[i]), "invalid DNS name: '%s'", bad[i]);
}

static void test_jpos(void)
{
	const char *text = "{\n"
			   "  \"a\": {\"b\": [10, {\"c\": true}]},\n"
			   "  \"x/y\": 1, \"t~\": 2,\n"
			   "  \"\\u00e9\\u0301\": 3,\n"
			   "  \"esc\\\"q\": [\n"
			   "     \"s\"\n"
			   "  ]\n"
			   "}\n";
	char *p_ab1c = "/a/b/1/c", *p_missing = "/a/b/1/zz", *p_xy = "/x~1y", *p_t = "/t~0", *p_root = "",
	     *p_u = "/\xc3\xa9\xcc\x81", *p_q = "/esc\"q/0", *p_far = "/nope/deeper";
	char *ptrs[] = {p_ab1c, p_missing, p_xy, p_t, p_root, p_u, p_q, p_far};
	unsigned lines[8], cols[8];
	sp_jpos_resolve(text, strlen(text), ptrs, 8, lines, cols);
	is_int(lines[0], 2, "nested member line");
	is_int(cols[0], 20, "nested member column (the key)");
	is_int(lines[1], 2, "a missing member falls back to its parent: line");
	is_int(cols[1], 19, "a missing member falls back to its parent (array element): column");
	is_int(lines[2] * 100 + cols[2], 303, "'/' in a key is ~1");
	is_int(lines[3] * 100 + cols[3], 313, "'~' in a key is ~0");
	is_int(lines[4] * 100 + cols[4], 101, "the root pointer is the first value");
	is_int(lines[5] * 100 + cols[5], 403, "\\u escapes are decoded before matching");
	is_int(lines[6] * 100 + cols[6], 606, "an escaped quote in a key, then an array element");
	is_int(lines[7] * 100 + cols[7], 101, "an unknown top-level member falls back to the root");
	char *j = sp_jptr_join("/a", "x/y~");
	is_str(j, "/a/x~1y~0", "sp_jptr_join escapes");
	free(j);
	char *q = sp_jptr_index("/a", 7);
	is_str(q, "/a/7", "sp_jptr_index");
	free(q);
}

static sp_lint *lint_buf(sp_lint *l, const char *name, const char *text, sp_lint_kind kind, sp_error *err)
{
	sp_lint_init(l, NULL);
	sp_error_clear(err);
	if (sp_lint_add_buffer(l, name, text, strlen(text), kind, err) < 0)
		return NULL;
	sp_lint_run(l);
	return l;
}

static bool has_rule(const sp_lint *l, sp_lint_rule_id r)
{
	for (size_t i = 0; i < l->nf; i++)
		if (l->f[i].rule == r)
			return true;
	return false;
}

static void test_squid(void)
{
	const char *conf = "http_port 3128\n"
			   "acl rw dstdomain .example.com\n"
			   "acl ro dstdomain pypi.org\n"
			   "acl ro dstdomain \\\n"
			   "   files.pythonhosted.org # continued line, trailing comment\n"
			   "acl get method GET HEAD\n"
			   "acl re dstdom_regex -i ^cdn[0-9]+\\.example\\.net$\n"
			   "http_access deny CONNECT ro\n"
			   "http_access allow rw\n"
			   "http_access allow ro get\n"
			   "http_access allow re\n";
	sp_lint l;
	sp_error err;
	ok(lint_buf(&l, "squid.conf", conf, SP_LK_SQUID, &err) != NULL, "squid config parses: %s", err.msg);
	const struct sp_squid *s = l.files[0].squid;
	unsigned line = 0;
	ok(sp_squid_allows(s, "example.com", "POST", 443, &line) && line == 9, ".example.com matches the domain itself");
	ok(sp_squid_allows(s, "api.EXAMPLE.com", "PUT", 443, NULL), ".example.com matches subdomains, any case");
	ok(!sp_squid_allows(s, "badexample.com", "GET", 443, NULL), ".example.com does not match badexample.com");
	ok(sp_squid_allows(s, "files.pythonhosted.org", "GET", 443, NULL), "a continued acl line is read");
	ok(!sp_squid_allows(s, "pypi.org", "POST", 443, &line), "ro host: POST denied");
	ok(!sp_squid_allows(s, "pypi.org", "CONNECT", 443, &line) && line == 8, "ro host: CONNECT denied by line 8");
	ok(sp_squid_allows(s, "CDN12.example.net", "GET", 443, NULL), "dstdom_regex -i matches");
	ok(!sp_squid_allows(s, "cdn.example.net", "GET", 443, NULL), "dstdom_regex does not match others");
	/* no rule matched: squid does the opposite of the last rule (allow -> deny) */
	ok(!sp_squid_allows(s, "other.org", "GET", 443, &line) && line == 0, "implicit default is the opposite of the last rule");
	ok(!has_rule(&l, SP_LR_SQUID_OPEN_PROXY), "not an open proxy");
	is_int(s->nports, 1, "one listener");
	sp_lint_free(&l);

	ok(lint_buf(&l, "open.conf", "http_port 3128\nacl a dstdomain x.org\nhttp_access deny a\n", SP_LK_SQUID, &err) != NULL,
	   "a last deny rule parses");
	ok(has_rule(&l, SP_LR_SQUID_OPEN_PROXY), "a last deny makes the default allow: open proxy");
	sp_lint_free(&l);
}

static void test_allowlist_buffer(void)
{
	sp_lint l;
	sp_error err;
	const char *al = "{\"domains\": {\"pypi.org\": \"ro\", \"2130706433\": \"ro\", \"*.x.org\": \"ro\", \"up.io\": \"rw\"},"
			 " \"inference_providers\": [\"api.example.com\"], \"forbidden_hosts\": [\"pypi.org\"]}";
	ok(lint_buf(&l, "al.json", al, SP_LK_AUTO, &err) != NULL, "allowlist detected and parsed");
	is_str(sp_lint_kind_name(l.files[0].kind), "allowlist", "kind detected from content");
	ok(has_rule(&l, SP_LR_ALLOW_RAW_IP), "integer IP reported");
	ok(has_rule(&l, SP_LR_ALLOW_WILDCARD), "wildcard reported");
	ok(has_rule(&l, SP_LR_ALLOW_RW_NOT_PROVIDER), "rw host that is not a provider reported");
	ok(has_rule(&l, SP_LR_ALLOW_FORBIDDEN), "forbidden host reported");
	is_int(sp_lint_worst(&l), SP_SEV_ERROR, "worst severity is error");
	for (size_t i = 0; i < l.nf; i++)
		ok(l.f[i].line == 1 && l.f[i].column > 1, "finding %s located at 1:%u", sp_lint_rules[l.f[i].rule].id,
		   l.f[i].column);
	sp_lint_free(&l);
	ok(lint_buf(&l, "dup.json", "{\"domains\": {\"a.org\": \"ro\", \"a.org\": \"rw\"}}", SP_LK_ALLOWLIST, &err) == NULL,
	   "duplicate keys refused");
	like_str(err.msg, "dup.json:1:", "the error has a position");
	is_int(err.exit_code, SP_EXIT_USAGE, "exit 2");
	sp_lint_free(&l);
}

static void test_catalogue(void)
{
	for (size_t i = 0; i < SP_LR__COUNT; i++) {
		const sp_lint_rule *r = &sp_lint_rules[i];
		/* lint.input_invalid is about the input, not a technique */
		bool tech = r->techniques[0] || i == SP_LR_INPUT_INVALID;
		if (!r->id || !r->title || !r->rationale || !tech || sp_lint_rule_find(r->id) != r)
			ok(0, "rule %zu is complete and unique", i);
	}
	ok(1, "every rule has an id, title, rationale and techniques, and ids are unique (%d rules)", SP_LR__COUNT);
}

int main(void)
{
	test_raw_ip();
	test_dns();
	test_jpos();
	test_squid();
	test_allowlist_buffer();
	test_catalogue();
	return done_testing();
}
