#!/usr/bin/env bash
# The first checks against real sandboxes: a strict bwrap sandbox (every
# namespace, no capabilities, NoNewPrivs, a real seccomp filter, read-only
# root, /proc of its own, tmpfs /tmp) must PASS all of them under `strict`;
# for each check, a sandbox that lacks exactly that property must FAIL it.
. "$(dirname "$0")/../lib/tap.sh"
need_root
need bwrap
need unshare
need setpriv
need jq
D=$SP_DOCTOR
T=$(sp_tmpdir)
# LeakSanitizer cannot stop the world where the filter refuses ptrace
[ "${SP_SAN:-0}" = 1 ] && export ASAN_OPTIONS=detect_leaks=0
BPF=$T/filter.bpf
"$SP_HELPERS/mkseccomp" > "$BPF" || skip_all "mkseccomp helper missing (make tests)"

# a strict sandbox; extra bwrap options go before the command
strict() { bwrap --unshare-all --cap-drop ALL --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$D" "$D" --seccomp 9 "$@" 9<"$BPF"; }
# same, with the namespaces spelled out so one can be left out
ns_all_but() {
	local skip=$1; shift
	local args=()
	for ns in user pid net ipc uts cgroup; do [ "$ns" = "$skip" ] || args+=("--unshare-$ns"); done
	bwrap "${args[@]}" --cap-drop ALL --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$D" "$D" --seccomp 9 "$@" 9<"$BPF"
}
status_of() { jq -r --arg id "$1" '.results[] | select(.id == $id) | .status'; }

FIRST=(ns.pid ns.net ns.mnt ns.uts ns.ipc ns.user ns.cgroup proc.host_visible caps.effective caps.bounding priv.no_new_privs seccomp.mode fs.rootfs_readonly fs.writable_paths)

# --- the strict sandbox passes everything
out=$(strict "$D" --format json); rc=$?
is "$rc" 0 "strict bwrap sandbox: doctor exits 0"
for id in "${FIRST[@]}"; do
	is "$(printf '%s' "$out" | status_of "$id")" pass "strict bwrap: $id passes"
done
is "$(printf '%s' "$out" | jq -r .result)" pass "strict bwrap: result pass"
like "$(strict "$D" | tail -1)" "^RESULT: PASS -- [0-9]+ passed, 0 failed" "strict bwrap: text verdict"

# --- one weakened sandbox per property
expect_fail() { # name id json
	is "$(printf '%s' "$3" | status_of "$2")" fail "$1: $2 fails"
}
for ns in pid net uts ipc user cgroup; do
	out=$(ns_all_but $ns "$D" --format json -k "ns.$ns")
	expect_fail "no --unshare-$ns" "ns.$ns" "$out"
	# and the same sandbox with it passes (positive control of the helper)
done
out=$(ns_all_but none "$D" --format json -k ns)
is "$(printf '%s' "$out" | jq -r '[.results[] | select(.id != "ns.time") | .status] | unique | join(",")')" pass "all unshared: every ns.* passes"

# mount namespace: bwrap always makes one, so use unshare without -m
out=$(unshare -U -r -p -f -n -u -i -C "$D" --format json -k ns)
expect_fail "unshare without -m" ns.mnt "$out"
is "$(printf '%s' "$out" | status_of ns.pid)" pass "unshare without -m: ns.pid still passes"
out=$(unshare -U -r -p -f -n -u -i -C -m --mount-proc "$D" --format json -k ns.mnt)
is "$(printf '%s' "$out" | status_of ns.mnt)" pass "unshare with -m: ns.mnt passes"

# processes: the host's /proc bound into a pid-namespaced sandbox
out=$(bwrap --unshare-all --cap-drop ALL --ro-bind / / --dev /dev --tmpfs /tmp --ro-bind "$D" "$D" --ro-bind /proc /proc "$D" --format json -k proc.host_visible)
expect_fail "host /proc bound in" proc.host_visible "$out"
like "$(printf '%s' "$out" | jq -r '.results[0].observed')" "outer PID namespace|kernel threads" "host /proc: evidence names what leaked"
out=$(ns_all_but pid "$D" --format json -k proc.host_visible)
expect_fail "no pid namespace" proc.host_visible "$out"

# capabilities kept
out=$(bwrap --unshare-all --cap-add ALL --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$D" "$D" "$D" --format json -k caps)
expect_fail "--cap-add ALL" caps.effective "$out"
expect_fail "--cap-add ALL" caps.bounding "$out"
out=$(bwrap --unshare-all --cap-drop ALL --cap-add CAP_NET_RAW --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$D" "$D" "$D" --format json -k caps.effective)
expect_fail "--cap-add CAP_NET_RAW" caps.effective "$out"
like "$(printf '%s' "$out" | jq -r '.results[0].detail')" "cap_net_raw" "kept capability named"
out=$(bwrap --unshare-all --cap-drop ALL --cap-add CAP_NET_RAW --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$D" "$D" "$D" --format json -k caps.effective --set caps.effective=cap_net_raw)
is "$(printf '%s' "$out" | status_of caps.effective)" pass "policy allowing cap_net_raw: passes"
# bounding set: an unprivileged user has no effective caps but a full bounding set
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$D" --format json -k caps)
is "$(printf '%s' "$out" | status_of caps.effective)" pass "nobody: effective set empty"
expect_fail "nobody with a full bounding set" caps.bounding "$out"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups --bounding-set=-all "$D" --format json -k caps)
is "$(printf '%s' "$out" | status_of caps.bounding)" pass "nobody with an empty bounding set passes"

# no_new_privs: unshare does not set it, setpriv can
out=$(unshare -U -r "$D" --format json -k no_new_privs)
expect_fail "unshare (no NNP)" priv.no_new_privs "$out"
out=$(setpriv --no-new-privs "$D" --format json -k no_new_privs)
is "$(printf '%s' "$out" | status_of priv.no_new_privs)" pass "setpriv --no-new-privs passes"

# seccomp: the same strict sandbox without its filter
out=$(bwrap --unshare-all --cap-drop ALL --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$D" "$D" "$D" --format json -k seccomp)
expect_fail "no --seccomp" seccomp.mode "$out"

# writable root: a rootfs directory of its own, bound read-write
if [ "${SP_SAN:-0}" = 1 ]; then
	skip "sanitizer doctor is not static: cannot run alone in a rootfs"
	skip "sanitizer doctor is not static"
	skip "sanitizer doctor is not static"
else
R=$T/rootfs
mkdir -p "$R"
cp "$D" "$R/sandprobe-doctor"
out=$(bwrap --unshare-all --cap-drop ALL --bind "$R" / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$D" "$D" --seccomp 9 /sandprobe-doctor --format json -k rootfs 9<"$BPF")
expect_fail "rootfs bound rw" fs.rootfs_readonly "$out"
is "$(find "$R" -maxdepth 1 -name '.sandprobe-*' | wc -l | tr -d ' ')" 0 "the write probe removed its file"
out=$(bwrap --unshare-all --cap-drop ALL --bind "$R" / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$D" "$D" --remount-ro / --seccomp 9 /sandprobe-doctor --format json -k rootfs 9<"$BPF")
is "$(printf '%s' "$out" | status_of fs.rootfs_readonly)" pass "same rootfs remounted ro passes"
fi

# writable paths: no tmpfs on /tmp under a read-only root
out=$(bwrap --unshare-all --cap-drop ALL --ro-bind / / --proc /proc --dev /dev --ro-bind "$D" "$D" --seccomp 9 "$D" --format json -k writable 9<"$BPF")
expect_fail "no tmpfs on /tmp" fs.writable_paths "$out"
mkdir -p "$T/ws"
out=$(strict --bind "$T/ws" /mnt "$D" --format json -k writable --set fs.writable=/tmp,/mnt)
is "$(printf '%s' "$out" | status_of fs.writable_paths)" pass "/tmp and a bound workspace (/mnt) pass"
is "$(ls -A "$T/ws" | wc -l | tr -d ' ')" 0 "workspace probe cleaned up"
out=$(strict "$D" --format json -k writable --set fs.writable=/tmp,/workspace)
expect_fail "declared workspace missing" fs.writable_paths "$out"
done_testing
