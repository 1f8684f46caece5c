# Shared by tests/doctor/<category>.t: real sandboxes to run the doctor in.
#   strict_box [bwrap args...] -- [doctor args...]   every isolation the strict
#        profile demands: nobody, all namespaces, no caps, NoNewPrivs, a seccomp
#        filter, masked /proc and /sys paths, minimal /dev, tmpfs /tmp
#   root_box [bwrap args...] -- [doctor args...]     weakened: real root, full
#        capabilities, no user namespace, no filter, host /proc/sys writable
#   run_json NAME CMD...   run CMD (a doctor run) and keep its JSON as NAME
#   st NAME ID             status of check ID in run NAME
# Every doctor run prints JSON; a run whose output is not JSON fails the test.
. "$SP_ROOT/tests/lib/tap.sh"
need_root
need bwrap
need jq
need setpriv
need unshare

# LeakSanitizer stops the world with ptrace, which the seccomp filters under
# test refuse: it would spin forever at exit. Leaks are checked elsewhere.
if [ "${SP_SAN:-0}" = 1 ]; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi

CAT=$(sp_tmpdir)
# sandboxes run as nobody: the per-file temp base must be traversable
[ -n "${TAP_TMPBASE:-}" ] && chmod 755 "$TAP_TMPBASE"
chmod 755 "$CAT"
cp "$SP_DOCTOR" "$CAT/doctor"
chmod 755 "$CAT/doctor"
"$SP_HELPERS/mkseccomp" >"$CAT/filter"
"$SP_HELPERS/mkseccomp" --kill >"$CAT/filter-kill"
"$SP_HELPERS/mkseccomp" --native-only >"$CAT/filter-native"
D=/tmp/sandprobe-doctor
# another build of the doctor in the same boxes: DOCTOR_BIN (bound at $D) run
# through RUNNER (e.g. qemu-aarch64-static), both set by the caller
DOCTOR_BIN=${DOCTOR_BIN:-$CAT/doctor}
RUNNER=()

_split() { # bwrap args before --, doctor args after
	BOX=()
	DOC=()
	local seen=0
	for a in "$@"; do
		if [ $seen = 0 ] && [ "$a" = -- ]; then seen=1; continue; fi
		if [ $seen = 0 ]; then BOX+=("$a"); else DOC+=("$a"); fi
	done
}

# kernel information files a strict sandbox masks, where this kernel has them
MASKS=()
for f in /proc/kallsyms /proc/modules /proc/kcore /proc/sched_debug /proc/latency_stats; do
	[ -e "$f" ] && MASKS+=(--ro-bind /dev/null "$f")
done
# feature probes: a check whose operation the kernel lacks cannot fail here
have_modules() { [ -e /proc/modules ]; }
have_kexec() { [ -e /proc/sys/kernel/kexec_load_disabled ]; }

STRICT_FILTER=${STRICT_FILTER:-$CAT/filter}
strict_box() {
	_split "$@"
	setpriv --reuid=65534 --regid=65534 --clear-groups -- \
		bwrap --unshare-all --unshare-user --disable-userns --die-with-parent --new-session --cap-drop ALL \
		--ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --tmpfs /sys/firmware --tmpfs /sys/fs/cgroup \
		--ro-bind /dev/null /proc/keys --ro-bind /dev/null /proc/timer_list "${MASKS[@]}" \
		"${BOX[@]}" --ro-bind "$DOCTOR_BIN" $D --seccomp 9 \
		"${RUNNER[@]}" $D --profile strict --format json "${DOC[@]}" 9<"$STRICT_FILTER"
}

# same isolation without the seccomp filter
nofilter_box() {
	_split "$@"
	setpriv --reuid=65534 --regid=65534 --clear-groups -- \
		bwrap --unshare-all --unshare-user --disable-userns --die-with-parent --new-session --cap-drop ALL \
		--ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --tmpfs /sys/firmware --tmpfs /sys/fs/cgroup \
		--ro-bind /dev/null /proc/keys --ro-bind /dev/null /proc/timer_list "${MASKS[@]}" \
		"${BOX[@]}" --ro-bind "$DOCTOR_BIN" $D \
		"${RUNNER[@]}" $D --profile strict --format json "${DOC[@]}"
}

root_box() {
	_split "$@"
	bwrap --unshare-pid --unshare-net --unshare-ipc --unshare-uts --unshare-cgroup --die-with-parent --new-session \
		--cap-add ALL --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp \
		"${BOX[@]}" --ro-bind "$DOCTOR_BIN" $D \
		"${RUNNER[@]}" $D --profile strict --format json "${DOC[@]}"
}

run_json() {
	local name=$1
	shift
	"$@" >"$CAT/$name.json" 2>"$CAT/$name.err"
	if ! [ -s "$CAT/$name.json" ] || ! jq -e .results >/dev/null 2>&1 <"$CAT/$name.json"; then
		_tap_result 1 "run $name produced a report" "$(head -c 1500 "$CAT/$name.err")"
		return 1
	fi
}

st() { jq -r --arg id "$2" '.results[] | select(.id == $id) | .status' <"$CAT/$1.json"; }
detail() { jq -r --arg id "$2" '.results[] | select(.id == $id) | "\(.detail) | \(.observed)"' <"$CAT/$1.json"; }

# is_status RUN ID WANT: assert, with the check's evidence on failure
is_status() {
	local got
	got=$(st "$1" "$2")
	if [ "$got" = "$3" ]; then
		_tap_result 0 "$2 $3 in $1"
	else
		_tap_result 1 "$2 $3 in $1" "got '$got': $(detail "$1" "$2" | head -c 600)"
	fi
}
