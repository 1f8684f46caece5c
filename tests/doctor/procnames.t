#!/usr/bin/env bash
# proc.required / proc.forbidden / proc.pid1 match a process by its
# executable (/proc/PID/exe) and argv[0] (and the script an interpreter
# runs), not by the kernel's 15-character comm, which truncates long names
# and which any process may rewrite. Ground truth: the test starts each
# process itself and reads its comm and exe from /proc before asking.
. "$(dirname "$0")/../lib/tap.sh"
need_root
need jq
need python3
T=$(sp_tmpdir)
chmod 755 "$T"
LONG="sp-agent-supervisor-$$"   # longer than 15 characters
FAKE="sp-fake-sshd-$$"
cp /bin/sleep "$T/$LONG"
cp /bin/bash "$T/$FAKE"
mkfifo "$T/fifo"
"$T/$LONG" 300 &
P_LONG=$!
at_exit "kill $P_LONG"
# the forbidden program renames itself (comm is writable by the process only)
"$T/$FAKE" -c 'echo innocent >/proc/$$/comm; read -r -t 300 <>"$1"' - "$T/fifo" &
P_FAKE=$!
at_exit "kill $P_FAKE"
bash -c "exec -a sp-argv-agent-$$ sleep 300" &
P_ARGV=$!
at_exit "kill $P_ARGV"
printf 'import time\ntime.sleep(300)\n' >"$T/sp-script-agent-$$.py"
python3 "$T/sp-script-agent-$$.py" &
P_PY=$!
at_exit "kill $P_PY"
sleep 0.3

# ground truth, read here: comm is cut or rewritten, exe is not
is "$(cat /proc/$P_LONG/comm)" "${LONG:0:15}" "the kernel cuts the long name's comm to 15 characters"
is "$(cat /proc/$P_FAKE/comm)" innocent "the forbidden program's comm was rewritten"
is "$(readlink /proc/$P_FAKE/exe)" "$T/$FAKE" "its executable still names it"
is "$(tr '\0' ' ' </proc/$P_ARGV/cmdline)" "sp-argv-agent-$$ 300 " "argv[0] of the renamed sleep"

doc() { # doctor on the host (it sees every process), JSON
	"$SP_DOCTOR" --profile host --format json -k 'proc.required or proc.forbidden or proc.pid1' \
		--set expect.proc.required=required \
		--set expect.proc.forbidden=required --set expect.proc.pid1=required "$@" 2>/dev/null
}
stat_of() { jq -r --arg id "$1" '.results[] | select(.id == $id) | .status'; }
obs_of() { jq -r --arg id "$1" '.results[] | select(.id == $id) | "\(.detail) | \(.observed)"'; }

out=$(doc --set "proc.required=$LONG,sp-argv-agent-$$,sp-script-agent-$$.py,$T/$LONG" --set proc.forbidden=sp-none-$$)
is "$(stat_of proc.required <<<"$out")" pass "required: a long name, an argv[0], a script and a full path are all found"
like "$(obs_of proc.required <<<"$out")" "$LONG running \\(pid $P_LONG, by exe\\)" "the long name is found by its executable"
like "$(obs_of proc.required <<<"$out")" "sp-argv-agent-$$ running \\(pid $P_ARGV, by argv0\\)" "the renamed sleep by argv[0]"
like "$(obs_of proc.required <<<"$out")" "sp-script-agent-$$.py running \\(pid $P_PY, by script\\)" "the python script by its path"
is "$(stat_of proc.forbidden <<<"$out")" pass "forbidden: a name nobody runs is not found"

# the truncated comm of a running long-named process is not the name asked for
out=$(doc --set "proc.required=${LONG:0:15}")
is "$(stat_of proc.required <<<"$out")" fail "required: the 15-character comm prefix is not a running program"
like "$(obs_of proc.required <<<"$out")" "${LONG:0:15} MISSING" "said missing"
out=$(doc --set "proc.required=/nonexistent/$LONG")
is "$(stat_of proc.required <<<"$out")" fail "required: a path matches only that path"

out=$(doc --set "proc.forbidden=$FAKE,$LONG")
is "$(stat_of proc.forbidden <<<"$out")" fail "forbidden: found by executable despite the rewritten comm and the long name"
like "$(obs_of proc.forbidden <<<"$out")" "$P_FAKE\\($FAKE by exe" "the renamed program is named"
like "$(obs_of proc.forbidden <<<"$out")" "$P_LONG\\($LONG by exe" "the long-named program is named"
out=$(doc --set proc.forbidden=innocent)
is "$(stat_of proc.forbidden <<<"$out")" pass "forbidden: a rewritten comm alone does not make a process what it claims"

# pid 1 by its executable (or argv[0], where its exe link is unreadable)
init_exe=$(basename "$(readlink /proc/1/exe 2>/dev/null || tr '\0' '\n' </proc/1/cmdline | head -1)")
out=$(doc --set "proc.pid1_forbidden=$init_exe")
is "$(stat_of proc.pid1 <<<"$out")" fail "pid1: the host's init found by its executable ($init_exe)"
# pid 1 is judged only where it is the sandbox's own: on the host (the initial
# PID namespace) a name that does not match is still no pass
out=$(doc --set "proc.pid1_forbidden=sp-no-init-$$")
is "$(stat_of proc.pid1 <<<"$out")" fail "pid1: in the initial PID namespace no name makes pid 1 the sandbox's own"
# in a PID namespace of this test's own (ground truth: its pid 1 is the sh
# below, its /proc that namespace's), another name does not match
out=$(unshare --pid --fork --mount-proc sh -c '"$@"; exit $?' sh "$SP_DOCTOR" --profile host --format json \
	-k 'proc.pid1' --set expect.proc.pid1=required --set "proc.pid1_forbidden=sp-no-init-$$" 2>/dev/null)
is "$(stat_of proc.pid1 <<<"$out")" pass "pid1: another name does not match pid 1 of a PID namespace of its own"
out=$(unshare --pid --fork --mount-proc sh -c '"$@"; exit $?' sh "$SP_DOCTOR" --profile host --format json \
	-k 'proc.pid1' --set expect.proc.pid1=required --set "proc.pid1_forbidden=sh,dash,bash" 2>/dev/null)
is "$(stat_of proc.pid1 <<<"$out")" fail "pid1: the namespace's pid 1 (sh) found by its name"
done_testing
