/* -k expressions: precedence, parentheses, negation, errors. */
#include "core/select.h"
#include "core/util.h"
#include "tap.h"

static bool known(const char *w)
{
	static const char *const words[] = {"ns", "pid", "net", "caps", "fs", "namespaces", "privileges", "egress", "writable"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(words); i++)
		if (!strcmp(w, words[i]))
			return true;
	return false;
}

static int m(const char *expr, const char *id, const char *cat)
{
	sp_kexpr *e;
	sp_error err;
	if (sp_kexpr_parse(expr, known, &e, &err) < 0)
		return -1;
	int r = sp_kexpr_match(e, id, cat);
	sp_kexpr_free(e);
	return r;
}

static int bad(const char *expr, const char *want)
{
	sp_kexpr *e = NULL;
	sp_error err;
	int r = sp_kexpr_parse(expr, known, &e, &err);
	sp_kexpr_free(e);
	return r < 0 && err.exit_code == SP_EXIT_USAGE && strstr(err.msg, want) != NULL;
}

int main(void)
{
	is_int(m("ns", "ns.pid", "namespaces"), 1, "substring of id");
	is_int(m("namespaces", "ns.pid", "namespaces"), 1, "substring of category");
	is_int(m("net", "ns.pid", "namespaces"), 0, "no match");
	is_int(m("ns and pid", "ns.pid", "namespaces"), 1, "and");
	is_int(m("ns and net", "ns.pid", "namespaces"), 0, "and false");
	is_int(m("net or pid", "ns.pid", "namespaces"), 1, "or");
	is_int(m("not net", "ns.pid", "namespaces"), 1, "not");
	is_int(m("not not pid", "ns.pid", "namespaces"), 1, "double not");
	is_int(m("ns and not pid", "ns.pid", "namespaces"), 0, "and not");
	is_int(m("caps or ns and net", "ns.pid", "namespaces"), 0, "and binds tighter than or");
	is_int(m("caps or ns and net", "caps.effective", "privileges"), 1, "and binds tighter than or (2)");
	is_int(m("(caps or ns) and net", "ns.net", "namespaces"), 1, "parentheses");
	is_int(m("(caps or ns) and net", "ns.pid", "namespaces"), 0, "parentheses (2)");
	is_int(m("((pid))", "ns.pid", "namespaces"), 1, "nested parentheses");
	is_int(m("(caps)or(pid)", "ns.pid", "namespaces"), 1, "parentheses without spaces");
	ok(bad("", "empty"), "empty expression");
	ok(bad("(ns", "missing ')'"), "unclosed parenthesis");
	ok(bad("ns)", "unexpected ')'"), "stray parenthesis");
	ok(bad("ns and", "ends too early"), "dangling and");
	ok(bad("not", "ends too early"), "dangling not");
	ok(bad("and ns", "unexpected 'and'"), "leading and");
	ok(bad("ns or or pid", "unexpected 'or'"), "double or");
	ok(bad("ns pid", "unexpected 'pid'"), "two words without operator");
	ok(bad("nosuchcheck", "'nosuchcheck' matches no check id or category"), "unknown word");
	ok(bad("ns and (pid or bogus)", "'bogus'"), "unknown word deep inside");
	return done_testing();
}
