#!/usr/bin/env bash
# sandprobe live: bad input is a one-line error with exit 2 and launches
# nothing; a runtime that cannot run here is a skip naming the exact reason,
# and --strict turns it into a failure; the text and HTML matrices.
. "$(dirname "$0")/../lib/tap.sh"
need_root
need bwrap
need jq
DOCTOR=$SP_DOCTOR
[ "${SP_SAN:-0}" = 1 ] && DOCTOR=$SP_ROOT/build/sandprobe-doctor
tmp=$(sp_tmpdir)
RUNTIMES="bwrap unshare runc crun runsc podman docker docker-runsc containerd-runc containerd-runsc firejail systemd-nspawn qemu"
# lane dirs go to a dir of this test's own: what is left there is this test's (others run lanes at the same time)
export SP_LIVE_TMPDIR=$tmp/lanes
mkdir -p "$SP_LIVE_TMPDIR"
chmod 755 "$TAP_TMPBASE" "$tmp" "$SP_LIVE_TMPDIR" # bwrap lanes run as nobody
lane_dirs() { ls -d "$SP_LIVE_TMPDIR"/sandprobe-live.* 2>/dev/null | wc -l; }
before=$(lane_dirs)

usage_case() { # name expected-regex args...
	local name=$1 re=$2
	shift 2
	"$SP_BIN" live "$@" >"$tmp/o" 2>"$tmp/e"
	is "$?" 2 "$name: exit 2"
	is "$(wc -l <"$tmp/e" | tr -d ' ')" 1 "$name: one line on stderr"
	like "$(cat "$tmp/e")" "$re" "$name: message names the fault"
}
usage_case "unknown option" "--bogus" --bogus
usage_case "unknown runtime" "unknown runtime 'nope'" --runtime nope --doctor "$DOCTOR"
usage_case "unknown variant" "unknown variant 'loose'" --runtime bwrap --variant loose --doctor "$DOCTOR"
usage_case "runtime and matrix" "exclude" --runtime bwrap --matrix
usage_case "neither" "--runtime NAME or --matrix"
usage_case "bad format" "--format 'xml'" --runtime bwrap --format xml
usage_case "bad accel" "--accel 'fast'" --runtime qemu --accel fast
usage_case "dynamic doctor" "dynamically linked" --runtime bwrap --doctor /bin/ls
usage_case "missing doctor" "/nonexistent/doctor" --runtime bwrap --doctor /nonexistent/doctor
usage_case "variant the runtime cannot launch" "unshare cannot launch the 'kept-caps' variant" \
	--runtime unshare --variant kept-caps --doctor "$DOCTOR"
usage_case "bad timeout" "--timeout-ms" --runtime bwrap --timeout-ms 5
usage_case "--set without =" "--set 'kernel.separate_kernel': expected KEY=VALUE" --runtime bwrap --doctor "$DOCTOR" --set kernel.separate_kernel
usage_case "--set without a key" "--set '=x': expected KEY=VALUE" --runtime bwrap --doctor "$DOCTOR" --set =x
usage_case "--set the doctor refuses" "the doctor refuses a --set: --set kernel.separate_kernel=martian: kernel.separate_kernel: 'martian': expected user-space or guest" \
	--runtime bwrap --doctor "$DOCTOR" --set kernel.separate_kernel=martian
usage_case "unwritable output" "/nonexistent/dir/out.json" --runtime bwrap --doctor "$DOCTOR" --output /nonexistent/dir/out.json
is "$(lane_dirs)" "$before" "usage errors launched nothing"

# a runtime that cannot run here: skip with the reason; --strict makes it a failure
if docker info >/dev/null 2>&1; then
	skip "docker engine reachable: no skip to observe"
	skip "docker engine reachable"
	skip "docker engine reachable"
else
	"$SP_BIN" live --runtime docker --doctor "$DOCTOR" --format json >"$tmp/d.json"
	is "$?" 0 "docker without an engine: exit 0 (skipped)"
	like "$(jq -r '.lanes[0].status + ": " + .lanes[0].reason' "$tmp/d.json")" '^skip: (docker CLI not installed|no docker engine answers at .*`docker info`)' \
		"docker lane skips with the exact reason and the command tried"
	"$SP_BIN" live --runtime docker --doctor "$DOCTOR" --strict >/dev/null
	is "$?" 1 "--strict turns the skip into a failure"
fi
if [ "$(stat -fc %T /sys/fs/cgroup)" = tmpfs ] && [ -n "$(cat /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null)" ] && command -v crun >/dev/null; then
	"$SP_BIN" live --runtime crun --doctor "$DOCTOR" --format json >"$tmp/crun.json"
	is "$?" 0 "crun on a hybrid cgroup host: the strict lane passes"
	like "$(jq -r '.lanes[0].notes' "$tmp/crun.json")" "hybrid cgroup host .*private mount namespace without /sys/fs/cgroup/unified.*--cgroup-manager=disabled" \
		"crun on a hybrid cgroup host: the report says how it ran"
	is "$(jq -r '.lanes[0].claims.own_cgroup' "$tmp/crun.json")" false "and it claims no cgroup of its own"
else
	skip "not a hybrid cgroup host with crun"
	skip "not a hybrid cgroup host with crun"
	skip "not a hybrid cgroup host with crun"
fi

# text matrix: the controls are marked, and the run passes
"$SP_BIN" live --matrix --runtimes bwrap --doctor "$DOCTOR" >"$tmp/m.txt"
is "$?" 0 "bwrap matrix passes"
is "$(grep -c 'FAILED AS EXPECTED' "$tmp/m.txt")" 7 "seven negative controls failed as expected"
like "$(grep '^bwrap  *strict' "$tmp/m.txt")" "PASS \(" "strict row passes"
like "$(grep '^bwrap  *host-net' "$tmp/m.txt")" "FAIL\*" "host-net row marks the expected failure"

# HTML matrix: one self-contained page
"$SP_BIN" live --matrix --runtimes bwrap,unshare --doctor "$DOCTOR" --format html --output "$tmp/m.html"
is "$?" 0 "html matrix written"
like "$(head -1 "$tmp/m.html")" '^<!DOCTYPE html>' "html: a document"
is "$(grep -c "<tr>" "$tmp/m.html")" 15 "html: header + 14 lanes (8 bwrap, 6 unshare)"
unlike "$(cat "$tmp/m.html")" '<script|<link|src=|href=|@import|url\(' "html: no scripts and no external assets"
if command -v xmllint >/dev/null; then
	ok xmllint --html --noout "$tmp/m.html"
fi
"$SP_BIN" live --list-runtimes >"$tmp/l"
is "$(awk '{print $1}' "$tmp/l" | tr '\n' ' ')" "$RUNTIMES " "--list-runtimes lists every adapter"
is "$(lane_dirs)" "$before" "no lane temp dir left"
done_testing
