#!/usr/bin/env bash
# Verify gates are named by enum (SP_GATE_LIST in src/evidence/evidence.h):
# a misspelled gate id in code that reports or expects a gate (the verifier,
# the A3S judge, the self-test cases, gate/) does not compile, and a string
# literal where a gate is expected does not either. The correct spellings
# compile (the control), and every catalogue id is printed as before.
. "$(dirname "$0")/../lib/tap.sh"
need cc
need jq
T=$(mktemp -d /tmp/sandprobe-test.XXXXXX) && at_exit "rm -rf '$T'"
INC="-D_GNU_SOURCE -I$SP_ROOT/src"
fails_to_compile() { ! compiles "$1"; }
compiles() { # file
	cc -std=gnu11 -Werror -fsyntax-only $INC "$1" >"$T/cc.out" 2>&1
}
snippet() { # name body
	printf '#include "evidence/evidence.h"\nint f(sp_ev_verdict *v);\nint f(sp_ev_verdict *v)\n{\n%s\n\treturn 0;\n}\n' "$2" >"$T/$1.c"
}
snippet good '	sp_verdict_add(v, true, SP_GREF(SAMPLES_SPAN), "1", "1", "ok");
	sp_verdict_na(v, SP_GFAM(TYPES, "operations"), "why");
	(void)sp_verdict_find(v, SP_GREF(INTEGRITY_MANIFEST));'
TAP_NAME="the correct gate names compile" ok compiles "$T/good.c"
snippet typo '	sp_verdict_add(v, true, SP_GREF(SAMPLES_SPAM), "1", "1", "ok");'
TAP_NAME="a misspelled exact gate (SAMPLES_SPAM) is a compile error" ok fails_to_compile "$T/typo.c"
like "$(cat "$T/cc.out")" "SP_G_SAMPLES_SPAM" "the compiler names the misspelled gate"
snippet fam '	sp_verdict_na(v, SP_GFAM(TYPOS, "operations"), "why");'
TAP_NAME="a misspelled gate family (TYPOS) is a compile error" ok fails_to_compile "$T/fam.c"
snippet exact_as_family '	sp_verdict_na(v, SP_GFAM(SAMPLES_SPAN, "x"), "why");'
TAP_NAME="an exact gate used as a family is a compile error" ok fails_to_compile "$T/exact_as_family.c"
snippet literal '	sp_verdict_add(v, true, "samples.span", "1", "1", "ok");'
TAP_NAME="a string literal where a gate is expected is a compile error" ok fails_to_compile "$T/literal.c"
snippet find_literal '	(void)sp_verdict_find(v, "integrity.manifest");'
TAP_NAME="sp_verdict_find takes a gate, not a string" ok fails_to_compile "$T/find_literal.c"

# the printed ids are the catalogue's: a bundle's verdict names each gate as
# docs/man/sandprobe-verify.1 lists them
"$SP_ROOT/tests/verify/mkbundle.sh" "$T/b" >/dev/null 2>&1
"$SP_BIN" verify --format json "$T/b" >"$T/v.json"; rc=$?
is "$rc" 0 "a generated bundle passes"
ids=$(jq -r '.gates[].id' "$T/v.json" | sort -u | tr '\n' ' ')
for id in files.present columns.operations types.samples samples.span leak.rss_slope cleanup.owned_processes integrity.manifest logs.redacted; do
	like " $ids" " $id " "verdict reports gate $id"
done
done_testing
