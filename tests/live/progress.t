#!/usr/bin/env bash
# live's progress reaches the terminal only through the verb (cmd/live.c):
# with SP_LIVE_TIMING=1 every phase of a lane is one line on stderr, in
# order, with its time; without it the lane's library code writes nothing to
# stderr, and the report on stdout is the same either way.
. "$(dirname "$0")/../lib/tap.sh"
need_root
need bwrap
need jq
DOCTOR=$SP_DOCTOR
# the sanitizer build's doctor is not static: the sandbox gets the normal build's
[ "${SP_SAN:-0}" = 1 ] && DOCTOR=$SP_ROOT/build/sandprobe-doctor && export ASAN_OPTIONS=detect_leaks=0
[ -x "$DOCTOR" ] || skip_all "no static doctor at $DOCTOR (make)"
T=$(sp_tmpdir)
run() { "$SP_BIN" live --runtime bwrap --doctor "$DOCTOR" --format json "$@"; }

SP_LIVE_TIMING=1 run >"$T/on.json" 2>"$T/on.err"
is "$?" 0 "strict bwrap lane passes with SP_LIVE_TIMING=1"
env -u SP_LIVE_TIMING "$SP_BIN" live --runtime bwrap --doctor "$DOCTOR" --format json >"$T/off.json" 2>"$T/off.err"
is "$?" 0 "strict bwrap lane passes without it"
is "$(wc -c <"$T/off.err" | tr -d ' ')" 0 "without SP_LIVE_TIMING nothing reaches stderr"
phases=$(sed -nE 's/^sandprobe: live: bwrap\/strict ([a-z. ]+[a-z]) +[0-9]+\.[0-9]{2} ms$/\1/p' "$T/on.err" | paste -sd, -)
is "$phases" "plan,launched,started,found,report,checked,td.reaped,td.scanned,td.mounts,td.rm,torn down" \
	"every phase once, in order, with its time"
is "$(grep -cv '^sandprobe: live: bwrap/strict ' "$T/on.err")" 0 "no other line on stderr"
verdicts() { jq -r '[.lanes[] | .status, (.results[] | "\(.id)=\(.status)")] | join(" ")' "$1"; }
is "$(verdicts "$T/on.json")" "$(verdicts "$T/off.json")" "the report's verdicts do not depend on it"
done_testing
