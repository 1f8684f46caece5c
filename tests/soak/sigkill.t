#!/usr/bin/env bash
# SIGKILL mid-run, for the shipped bwrap, services, runc and podman
# workloads: within 5 s nothing of the run is alive (no process, container,
# mount or cgroup of it, asserted from outside and scoped to what the run
# owns: its environment marker, cgroup paths with its prefix, command lines
# naming its state dir or bundle); the bundle stays incomplete; a following
# run on the same state root refuses, naming the leftover; and
# `soak --reconcile` removes it and proves it gone.
# Three ways to die: the process the user started (the supervisor) is
# killed, and the runner cleans up alone; the runner is killed, and the
# supervisor cleans up; both are killed at once (nobody is left: the
# processes survive, the next run names them, --reconcile kills them).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need bwrap
need jq
need nsenter
need_root
[ -x /bin/busybox ] || skip_all "/bin/busybox (busybox-static) missing"
tmp=$(sp_tmpdir)
at_exit "rm -rf '$tmp'" # sp_tmpdir ran in a subshell: register the cleanup here

# kill_case NAME WORKLOAD HOW(supervisor|runner|both) MIN_ROWS [STATE_ROOT]
kill_case() {
	local name=$1 w=$2 how=$3 rows=$4 root=${5:-$tmp/$1} out=$tmp/$1.out pid runner prefix state a t0 t1 err rc
	mkdir -p "$root"
	workload_copy "$SP_ROOT/workloads/$w.yaml" "$tmp/$name.yaml" "$root"
	"$SP_BIN" soak --workload "$tmp/$name.yaml" --profile G2 --duration 300 --sample-interval 1 --out "$out" --quiet \
		>/dev/null 2>"$tmp/$name.err" &
	pid=$!
	TAP_NAME="$name: the run is under way ($rows operations)" ok wait_rows "$out/operations.tsv" "$rows" 90
	prefix=$(meta "$out" prefix)
	state=$(meta "$out" state_root)
	at_exit "kill_all_of_run '$prefix' '$state'"
	# the runner itself is in the run's cgroup: more than one means the workload's processes too
	a=$(alive_of_run "$prefix" "$state" "$out")
	ok test "$(echo "$a" | sed 's/[a-z_]*=//g' | awk '{print $1 + $2}')" -gt 1
	runner=$(runner_of "$pid")
	case $how in
	supervisor) kill -KILL "$pid" ;;
	runner) kill -KILL "$runner" ;;
	both) kill -STOP "$pid" "$runner"; kill -KILL "$pid" "$runner" ;;
	esac
	t0=$(date +%s.%N)
	wait "$pid" 2>/dev/null
	if [ "$how" = both ]; then
		sleep 0.5
		a=$(alive_of_run "$prefix" "$state" "$out")
		isnt "$a" "$NOTHING_ALIVE" "$name: with runner and supervisor both killed, the run's processes live on ($a)"
	else
		a=$(wait_nothing_alive "$prefix" "$state" "$out" 5)
		t1=$(date +%s.%N)
		is "$a" "$NOTHING_ALIVE" "$name: nothing of the run alive after the $how's SIGKILL"
		ok awk -v a="$t0" -v b="$t1" 'BEGIN{exit !(b - a <= 5.5)}'
		if [ "$w" = runc-lifecycle ]; then
			is "$(runc --root "$state/runc" list -f json 2>/dev/null | jq '[.[]? | select(.status == "running" or .status == "created")] | length' 2>/dev/null || echo 0)" \
				"0" "$name: no runc container of the run running or created"
		fi
	fi
	ok test ! -e "$out/summary.json" -a ! -e "$out/MANIFEST"
	ok test -e "$root/$prefix.journal"
	# the next run on that state root refuses and names the leftover
	err=$("$SP_BIN" soak --workload "$tmp/$name.yaml" --profile R0 --out "$tmp/$name.again" 2>&1 >/dev/null)
	rc=$?
	is "$rc" "2" "$name: the next run refuses (exit 2)"
	like "$err" "holds what an earlier run of this workload.s prefix .[^ ]*. left behind: run [0-9TZ]+-${prefix##*-} \(journal $root/$prefix.journal" "$name: ... naming the run and its journal"
	like "$err" "sandprobe soak --reconcile $root" "$name: ... and how to reconcile"
	is "$(printf '%s\n' "$err" | wc -l | tr -d ' ')" "1" "$name: one line"
	if [ "$how" = both ]; then
		like "$err" "[1-9][0-9]* live process" "$name: ... with the live processes counted"
	fi
	ok test ! -e "$tmp/$name.again"
	is "$(ls -d "$root/${prefix%-*}"-* 2>/dev/null | grep -vc '\.journal$')" "1" "$name: the refused run created no state dir"
	if [ "$name" = bwrap ]; then
		# a dead run blocks only its own prefix: another workload on the same state root runs
		workload_copy "$SP_ROOT/workloads/services.yaml" "$tmp/other.yaml" "$root"
		"$SP_BIN" soak --workload "$tmp/other.yaml" --profile R0 --out "$tmp/other.out" --quiet >/dev/null 2>"$tmp/other.err"
		is "$?" "0" "$name: a run of another workload prefix (spsvc) on the same state root is admitted and passes ($(tail -1 "$tmp/other.err"))"
		ok test ! -e "$root/$(meta "$tmp/other.out" prefix).journal"
		ok test -e "$root/$prefix.journal"
	fi
	if [ "${REBOOT:-0}" = 1 ]; then
		# F08: as after a host reboot (another boot id in the journal; the
		# runner has already killed every process of the run)
		sed -i 's/"boot_id":"[^"]*"/"boot_id":"00000000-0000-0000-0000-000000000000"/' "$root/$prefix.journal"
	fi
	# reconcile removes exactly what the journal names, and proves it gone
	"$SP_BIN" soak --reconcile "$root" > "$tmp/$name.rec" 2>&1
	is "$?" "0" "$name: --reconcile succeeds"
	like "$(cat "$tmp/$name.rec")" "proven gone" "$name: --reconcile reports the proof"
	if [ "${REBOOT:-0}" = 1 ]; then
		like "$(cat "$tmp/$name.rec")" "the host rebooted since the run" "$name: --reconcile knows the run is from another boot"
		like "$(cat "$tmp/$name.rec")" "cleanup step delete-leftovers: ok" "$name: ... and still runs its journaled cleanup"
	fi
	like "$(cat "$tmp/$name.rec")" "removed journal $root/$prefix.journal" "$name: --reconcile removes the journal last"
	# (a process killed a moment ago may still be leaving /proc)
	is "$(wait_nothing_alive "$prefix" "$state" "$out" 2)" "$NOTHING_ALIVE" "$name: nothing of the run alive after --reconcile"
	ok test ! -e "$state" -a ! -e "$root/$prefix.journal"
	"$SP_BIN" soak --reconcile "$root" > "$tmp/$name.rec2" 2>&1
	like "$(cat "$tmp/$name.rec2")" "nothing to remove" "$name: a second --reconcile finds nothing"
}

kill_case bwrap bwrap-churn supervisor 10
kill_case bwrap-runner bwrap-churn runner 10
kill_case services services supervisor 6
if command -v runc >/dev/null; then
	kill_case runc runc-lifecycle supervisor 12
	kill_case runc-both runc-lifecycle both 12
	REBOOT=1 kill_case runc-reboot runc-lifecycle supervisor 12
else
	skip "runc not installed"
fi
if command -v podman >/dev/null && command -v runc >/dev/null; then
	# podman refuses a --runroot longer than 50 characters: a short state root
	short=$(mktemp -d /tmp/sp.XXXXXX)
	at_exit "rm -rf '$short'"
	kill_case podman podman supervisor 4 "$short"
	short2=$(mktemp -d /tmp/sp.XXXXXX)
	at_exit "rm -rf '$short2'"
	kill_case podman-runner podman runner 4 "$short2"
elif [ "${SP_MUST_WORK:-0}" = 1 ]; then
	TAP_NAME="podman and runc installed (SP_MUST_WORK=1)" ok false
else
	skip "podman or runc missing"
fi
done_testing
