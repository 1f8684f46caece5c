# TAP helpers for shell tests (source it). Each assertion prints one TAP line.
#   plan N | done_testing
#   ok CMD...          : passes when CMD succeeds (name from $TAP_NAME or CMD)
#   is GOT WANT NAME   : string equality
#   like GOT REGEX NAME: extended regex match
#   skip REASON        : one skipped test
#   need CMD [REASON]  : skip the whole file when CMD is missing
#                        (a failure instead under SP_MUST_WORK=1, as CI sets)
#   sp_tmpdir          : a temp dir removed at exit (echoes its path)
#   need_lane_doctor   : DOCTOR= the doctor that live lanes run in sandboxes
TAP_N=0
TAP_FAILED=0
TAP_PLANNED=""
_tap_cleanup=()
_tap_exit() {
	local rc=$?
	for c in "${_tap_cleanup[@]}"; do eval "$c" >/dev/null 2>&1; done
	if [ -z "$TAP_PLANNED" ] && [ "$TAP_N" -gt 0 ]; then echo "1..$TAP_N"; fi
	[ "$TAP_FAILED" -eq 0 ] && exit $rc
	exit 1
}
trap _tap_exit EXIT
at_exit() { _tap_cleanup=("$*" "${_tap_cleanup[@]}"); }
plan() { TAP_PLANNED=$1; echo "1..$1"; }
done_testing() { if [ -z "$TAP_PLANNED" ]; then TAP_PLANNED=$TAP_N; echo "1..$TAP_N"; fi; }
_tap_result() { # status name [diag]
	TAP_N=$((TAP_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $TAP_N - $2"
	else
		TAP_FAILED=$((TAP_FAILED + 1))
		echo "not ok $TAP_N - $2"
		[ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/#   /'
	fi
	return "$1"
}
ok() { local name=${TAP_NAME:-$*}; "$@"; _tap_result $? "$name"; }
is() {
	if [ "$1" = "$2" ]; then _tap_result 0 "$3"; else _tap_result 1 "$3" "got:  '$1'
want: '$2'"; fi
}
isnt() {
	if [ "$1" != "$2" ]; then _tap_result 0 "$3"; else _tap_result 1 "$3" "got '$1', wanted anything else"; fi
}
like() {
	if printf '%s' "$1" | grep -qE -- "$2"; then _tap_result 0 "$3"; else _tap_result 1 "$3" "got:  '$(printf '%s' "$1" | head -c 2000)'
want match: '$2'"; fi
}
unlike() {
	if ! printf '%s' "$1" | grep -qE -- "$2"; then _tap_result 0 "$3"; else _tap_result 1 "$3" "got:  '$(printf '%s' "$1" | head -c 2000)'
want no match: '$2'"; fi
}
skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N # SKIP $*"; }
skip_all() {
	if [ "${SP_MUST_WORK:-0}" = 1 ]; then
		echo "1..1"; echo "not ok 1 - prerequisite missing under SP_MUST_WORK=1: $*"; TAP_PLANNED=1; TAP_FAILED=1; exit 1
	fi
	echo "1..0 # SKIP $*"; TAP_PLANNED=0; exit 0
}
# not applicable here (not a missing prerequisite): always a skip
skip_na() { echo "1..0 # SKIP $*"; TAP_PLANNED=0; exit 0; }
need() { command -v "$1" >/dev/null 2>&1 || skip_all "${2:-$1 not installed}"; }
need_root() { [ "$(id -u)" = 0 ] || skip_all "needs root"; }
# the doctor a lane runs inside its sandbox, which has no libc: $SP_DOCTOR, but under the sanitizers
# (whose doctor is dynamic) the static build/sandprobe-doctor; the whole file skips without it
need_lane_doctor() {
	DOCTOR=$SP_DOCTOR
	if [ "${SP_SAN:-0}" = 1 ]; then
		DOCTOR=$SP_ROOT/build/sandprobe-doctor
		[ -x "$DOCTOR" ] || skip_all "static build/sandprobe-doctor missing (run make)"
	fi
}
# one base directory per test file, made here in the test's own shell, so
# that sp_tmpdir (usually called inside $(...)) needs no cleanup of its own
TAP_TMPBASE=$(mktemp -d /tmp/sandprobe-test.XXXXXX)
at_exit "rm -rf '$TAP_TMPBASE'"
sp_tmpdir() { mktemp -d "$TAP_TMPBASE/d.XXXXXX"; }
# status of check ID in a doctor JSON report on stdin
json_status() { jq -r --arg id "$1" '.results[] | select(.id == $id) | .status'; }
