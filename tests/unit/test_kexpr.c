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
	if (sp_kexpr_parse(expr, NULL, &e, &err) < 0)
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
	/* the exact forms: id:, cat:, globs over the whole id or category */
	is_int(m("ns", "seccomp.unshare", "seccomp"), 1, "a bare word is a substring (ns in seccomp.unshare)");
	is_int(m("ns.*", "seccomp.unshare", "seccomp"), 0, "a glob matches the whole id: ns.* not seccomp.unshare");
	is_int(m("ns.*", "kernel.userns", "kernel"), 0, "ns.* not kernel.userns");
	is_int(m("ns.*", "ns.pid", "namespaces"), 1, "ns.* selects ns.pid");
	is_int(m("caps.*", "priv.caps_x", "privileges"), 0, "caps.* not an id merely containing caps");
	is_int(m("cat:namespaces", "ns.pid", "namespaces"), 1, "cat: exact category");
	is_int(m("cat:namespace", "ns.pid", "namespaces"), 0, "cat: is not a substring");
	is_int(m("cat:ns", "ns.pid", "namespaces"), 0, "cat: does not look at the id");
	is_int(m("id:fs.ro", "fs.ro", "filesystem"), 1, "id: exact id");
	is_int(m("id:fs.ro", "fs.rootfs_readonly", "filesystem"), 0, "id: is not a prefix");
	is_int(m("id:fs.ro*", "fs.rootfs_readonly", "filesystem"), 1, "id: with a glob");
	is_int(m("id:namespaces", "ns.pid", "namespaces"), 0, "id: does not look at the category");
	is_int(m("namespaces", "ns.pid", "namespaces"), 1, "a bare category word still selects");
	is_int(m("ns.* and not id:ns.time", "ns.time", "namespaces"), 0, "exact forms combine with not");
	is_int(m("ns.* and not id:ns.time", "ns.pid", "namespaces"), 1, "exact forms combine with and");
	is_int(m("net.transparent.*", "net.transparent.tcp", "network"), 1, "a dotted prefix glob");
	ok(bad("id:", "names nothing after ':'"), "id: alone");
	ok(bad("cat:", "names nothing after ':'"), "cat: alone");
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
