#!/usr/bin/env bash
# live --matrix's progress lines (stderr, with -o FILE) say what the user
# should read: a negative control that failed as it must is "expected
# failure: ok", never a bare "fail"; the report agrees lane by lane.
. "$(dirname "$0")/../lib/tap.sh"
need_root
need bwrap
need jq
DOCTOR=$SP_DOCTOR
[ "${SP_SAN:-0}" = 1 ] && DOCTOR=$SP_ROOT/build/sandprobe-doctor && export ASAN_OPTIONS=detect_leaks=0
[ -x "$DOCTOR" ] || skip_all "no static doctor at $DOCTOR (make)"
T=$(sp_tmpdir)
"$SP_BIN" live --matrix --runtimes bwrap --variants strict,host-pid --doctor "$DOCTOR" --format json -o "$T/m.json" 2>"$T/err"
is "$?" 0 "the bwrap matrix (strict, host-pid) holds"
like "$(grep '^\[1/2\]' "$T/err")" '^\[1/2\] lane bwrap/strict: pass \(' "the strict lane: pass"
like "$(grep '^\[2/2\]' "$T/err")" '^\[2/2\] lane bwrap/host-pid: expected failure: ok \(negative control\) \(' \
	"the negative control: expected failure, ok"
unlike "$(cat "$T/err")" ': fail \(' "no bare 'fail' for a control that failed as it must"
is "$(jq -r '[.lanes[] | "\(.variant)=\(.status)"] | join(" ")' "$T/m.json")" "strict=pass host-pid=fail" \
	"the report: the control's doctor verdict is fail, as the progress line explains"
done_testing
