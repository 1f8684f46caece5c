#!/usr/bin/env bash
# caps.kill tries every visible process of another uid, not the first one
# /proc lists. In a pid namespace of the test's own, the doctor runs as root
# with CAP_KILL out of every set; beside it a process of uid 65534 in the
# host's user namespace (signal refused without CAP_KILL) and, listed after
# it, a process of the same uid inside a user namespace root owns (the owner
# holds every capability there: signalled). Ground truth is the operation
# itself: kill -0 from a shell with the same capabilities. With the second
# target present caps.kill must FAIL; with the first alone it must PASS;
# with none visible the probe makes its own target of another uid (which it
# cannot signal: it ends it by closing a pipe) and PASSes at once, leaving
# no process behind.
. "$(dirname "$0")/../lib/tap.sh"
need_root
need jq
need setpriv
need python3
unshare --pid --fork --mount-proc true 2>/dev/null || skip_all "cannot make a pid namespace"
T=$(sp_tmpdir)
cat >"$T/owned.py" <<'PY'
# a process of kuid 65534 in a user namespace this (root) process owns; prints its pid
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
r, w = os.pipe(); r2, w2 = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r); os.close(w2)
    if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
        os._exit(1)
    os.write(w, b"u"); os.read(r2, 1)
    os.setresgid(0, 0, 0); os.setresuid(0, 0, 0)
    os.execvp("sleep", ["sleep", "120"])
os.close(w); os.close(r2)
os.read(r, 1)
for f, m in (("setgroups", "deny"), ("uid_map", "0 65534 1"), ("gid_map", "0 65534 1")):
    with open(f"/proc/{pid}/{f}", "w") as fh:
        fh.write(m)
os.write(w2, b"g")
print(pid, flush=True)
PY
cat >"$T/inside.sh" <<'SH'
# in the test's pid namespace: $1 = the targets: 1 both, 0 the host one, none
host_t= owned_t=
if [ "$1" != none ]; then
	setpriv --reuid 65534 --regid 65534 --clear-groups sleep 120 &
	host_t=$!
fi
if [ "$1" = 1 ]; then # (a file, not $(...): the target keeps a pipe open)
	python3 "$2/owned.py" >"$2/owned.pid"
	owned_t=$(cat "$2/owned.pid")
fi
sleep 0.2
nocap() { setpriv --inh-caps=-kill --ambient-caps=-kill --bounding-set=-kill -- "$@"; }
[ -n "$host_t" ] && { nocap sh -c "kill -0 $host_t" 2>/dev/null && echo "truth-host signalled" || echo "truth-host refused"; }
[ -n "$owned_t" ] && { nocap sh -c "kill -0 $owned_t" 2>/dev/null && echo "truth-owned signalled" || echo "truth-owned refused"; }
echo "order $host_t ${owned_t:-none}"
nocap "$SP_DOCTOR" --profile strict --format json -k caps.kill >"$2/doctor-$1.json"
kill $host_t $owned_t 2>/dev/null
wait
echo "left: $(ps -eo pid=,uid=,comm= | awk '$2 != 0' | tr '\n' ' ')" # every target is of another uid
SH
for with in 1 0 none; do
	SP_DOCTOR=$SP_DOCTOR timeout 120 unshare --pid --fork --mount-proc bash "$T/inside.sh" "$with" "$T" >"$T/out-$with" 2>&1
done
st() { jq -r '.results[] | select(.id == "caps.kill") | .status' "$T/doctor-$1.json"; }
obs() { jq -r '.results[] | select(.id == "caps.kill") | .observed' "$T/doctor-$1.json"; }
is "$(grep truth-host "$T/out-1")" "truth-host refused" "ground truth: the host-namespace process of uid 65534 refuses the signal without CAP_KILL"
is "$(grep truth-owned "$T/out-1")" "truth-owned signalled" "ground truth: the one in a user namespace root owns takes it"
read -r _ h o < <(grep '^order' "$T/out-1")
ok test "$h" -lt "$o" # the refusing target is listed first in /proc
is "$(st 1)" fail "caps.kill FAILs when any visible process of another uid can be signalled"
like "$(obs 1)" "target pid $o .*in another user namespace" "... and names that target and its namespace"
is "$(grep truth-host "$T/out-0")" "truth-host refused" "ground truth (control): the host-namespace target alone refuses"
is "$(st 0)" pass "caps.kill PASSes when every visible target refuses"
like "$(obs 0)" "refused \\(EPERM\\)" "... with the refusal in observed"
is "$(st none)" pass "no target visible: caps.kill PASSes on a target the probe made"
like "$(obs none)" "refused \\(EPERM\\); target pid [0-9]+ \\(made by the probe\\)" "... refused on the target it made"
ok test "$(jq '.results[] | select(.id == "caps.kill") | .duration_ms // 0 | floor' "$T/doctor-none.json")" -lt 1500 # not its timeout
is "$(grep '^left:' "$T/out-none")" "left: " "... and the target it made (which it may not signal) is gone after the run"
done_testing
