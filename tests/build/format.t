#!/usr/bin/env bash
# tools/format-check: the C lines a change touches, held to .clang-format
# (clang-format 14). Proven on throw-away git repositories with the tree's
# .clang-format: a mis-formatted change fails (exit 1, the reformatting
# shown), a well-formatted one passes, a mis-formatted line nobody touched is
# never judged, and the default base is the merge-base with main (or HEAD^
# on a clone of main). Then the check itself runs on this checkout.
. "$SP_ROOT/tests/lib/tap.sh"
need git
need clang-format-diff-14 "clang-format (14) not installed"
[ "${SP_SAN:-0}" = 1 ] && skip_na "a source check: the normal run covers it"

FC=$SP_ROOT/tools/format-check
R=$(sp_tmpdir)/repo
mkdir -p "$R/src"
cp "$SP_ROOT/.clang-format" "$R/"
g() { git -C "$R" -c user.name=t -c user.email=t@example.invalid "$@" >/dev/null 2>&1; }
# a file whose old lines break the style (a line the change does not touch must not count)
printf 'int old_bad(int a){return a+1;}\n\nint ok(int a)\n{\n\treturn a;\n}\n' >"$R/src/a.c"
g init -q -b main && g add -A && g commit -q -m base
base=$(git -C "$R" rev-parse HEAD)
check() { (cd "$R" && "$FC" "$@" >"$R.out" 2>"$R.err"); }

g checkout -q -b topic
printf '\nint good(int a, int b)\n{\n\tif (a > b)\n\t\treturn a - b;\n\treturn b - a;\n}\n' >>"$R/src/a.c"
check "$base"; is "$?" 0 "a well-formatted change passes (the untouched mis-formatted line is not judged)"
check; is "$?" 0 "the same with the default base (the merge-base with main)"
g commit -qam good
check; is "$?" 0 "a committed well-formatted change passes"

printf '\nint bad(int a,int b) {\n    return a*b;\n}\n' >>"$R/src/a.c"
check; rc=$?
is "$rc" 1 "a mis-formatted change (not yet committed) fails"
like "$(cat "$R.out")" '\+int bad\(int a, int b\)' "the reformatting it wants is shown"
like "$(cat "$R.err")" 'differ from .clang-format' "a one-line reason on stderr"
unlike "$(cat "$R.out")" 'old_bad' "the line nobody touched is not in it"
g commit -qam bad
check; is "$?" 1 "the mis-formatted change fails once committed"
printf 'void h(void){}\n' >"$R/src/h.h"
g add -A && g commit -qm header
check HEAD^; is "$?" 1 "a mis-formatted header fails (since HEAD^)"
check; like "$(cat "$R.out")" 'int bad' "by default an earlier commit of the branch is judged too (base: the merge-base, not HEAD^)"

# a clone of main: the default base is HEAD^, the last commit alone
g checkout -q main && g merge -q --no-ff -m merge topic
check; is "$?" 1 "on main the default base is HEAD^: the merge's mis-formatted lines fail"
printf '# docs\n' >"$R/NOTES"
g add -A && g commit -qm notes
check; is "$?" 0 "a last commit that touches no C line passes"

check no-such-ref; is "$?" 2 "an unknown base is a usage error (exit 2)"
like "$(cat "$R.err")" '^format-check: no-such-ref: not a commit$' "naming the base"

# this checkout: the C lines changed since the merge-base with main (a clone
# of main: since HEAD^)
if git -C "$SP_ROOT" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	out=$(cd "$SP_ROOT" && "$FC" 2>&1)
	TAP_NAME="this checkout's changed C lines match .clang-format" ok test -z "$out"
	[ -n "$out" ] && printf '%s\n' "$out" | head -40 | sed 's/^/# /'
else
	skip "not a git checkout"
fi
done_testing
