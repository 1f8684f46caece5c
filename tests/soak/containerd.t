#!/usr/bin/env bash
# F04 (a containerd the run owns restarted) and the K8S-01-shaped workload.
# - workloads/k8s-01.yaml rehearses (R0) on the real containerd and runc with
#   its own config, root, state and socket under the run's state dir:
#   complete bundle, verified, F04 recovered with the services' task list
#   (id, pid, status) the same before and after, the containers still
#   manageable with ctr, nothing of the run left (process, shim, mount,
#   cgroup, dir).
# - negative control rejected by `verify`: a daemon restart after which a
#   service's task was re-created rather than reconciled (new pid), although
#   the workload's own manageability check passes; a service left running
#   at the drain, which the workload's inventory (containerd's state on
#   disk) names, so that cleanup.inventory fails.
# - failure paths: no task listed (nothing injected), a task list that cannot
#   be read, and the runner killed in the middle of the fault (nothing alive,
#   --reconcile removes the rest).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need jq
need containerd
need ctr
need runc
need containerd-shim-runc-v2
need runsc
need_root
[ -x /bin/busybox ] || skip_all "/bin/busybox (busybox-static) missing"
tmp=$(sp_tmpdir)
at_exit "rm -rf '$tmp'" # sp_tmpdir ran in a subshell: register the cleanup here

# nothing of the run: no daemon or shim naming its state dir, no cgroup
# named with its prefix in any hierarchy (runc's per-namespace parents too)
nothing_of_containerd() { # OUT
	local state prefix
	state=$(meta "$1" state_root)
	prefix=$(meta "$1" prefix)
	is "$(pgrep -f "[c]ontainerd.* $state/|[c]ontainerd-shim-runc-v2 .*-address $state/" | wc -l)" "0" "no containerd or shim of the run left"
	is "$(find /sys/fs/cgroup -maxdepth 2 -name "$prefix" 2>/dev/null | wc -l)" "0" "no cgroup of the run's containerd namespace left"
}

# ---- the shipped workload, R0
out=$tmp/k8s
workload_copy "$SP_ROOT/workloads/k8s-01.yaml" "$tmp/k8s.yaml" "$tmp"
"$SP_BIN" soak --workload "$tmp/k8s.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1
rc=$?
check_bundle "$out"
check_exit_is_verifiers "$out" "$rc"
is "$rc" "0" "k8s-01: the verifier accepts the R0 bundle"
is "$(jq -r '.unexpected_failures' "$out/summary.json") $(jq -r .cleanup "$out/summary.json")" "0 ok" "k8s-01: no unexpected failure, cleanup ok"
is "$(awk -F'\t' 'NR>1{print $1" "$8}' "$out/faults.tsv")" "F04 pass" "k8s-01: F04 injected and recovered"
like "$(awk -F'\t' 'NR>1{print $2}' "$out/faults.tsv")" '^pid:[0-9]+\(.*/ctrd\.pid\) tasks:3 tasks:3-reconciled$' \
	"k8s-01: three service tasks before (runc and runsc handlers), the same three after"
is "$(awk -F'\t' '$4 == "F04"{print $6" "$8}' "$out/operations.tsv")" "expected_fault TERM" "k8s-01: the restart is an expected fault"
is "$(awk -F'\t' '$4 == "still-manageable" || $4 == "containerd-restart"{print $4" "$6}' "$out/operations.tsv" | sort | paste -sd,)" \
	"containerd-restart ok,still-manageable ok" "k8s-01: restarted, the containers still manageable with ctr"
is "$(awk -F'\t' 'NR>1{print $6}' "$out/capability-results.tsv" | sort -u)" "pass" "k8s-01: every scenario passes"
ok grep -q '	job	[0-9.]*	ok	' "$out/operations.tsv"
ok grep -q '	job-runsc	[0-9.]*	ok	' "$out/operations.tsv" # the runsc handler: a gVisor kernel through the runc shim
check_nothing_left "$out"
nothing_of_containerd "$out"

# ---- variants of the shipped workload
variant() { # NAME SED-EXPR...: a copy with its own prefix, edited
	local name=$1
	shift
	workload_copy "$SP_ROOT/workloads/k8s-01.yaml" "$tmp/$name.yaml" "$tmp"
	sed -i "s/^prefix: spk8s/prefix: spk$name/" "$tmp/$name.yaml"
	local e
	for e in "$@"; do sed -i "$e" "$tmp/$name.yaml"; done
}
run_variant() { # NAME: sets out, rc
	out=$tmp/$1.out
	"$SP_BIN" soak --workload "$tmp/$1.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1
	rc=$?
}

# negative: after the restart a service's task is re-created (new pid), not reconciled
variant recreate 's#^      - {op: containerd-restart, argv: \(.*\)}$#      - {op: containerd-restart, argv: \1}\n      - {op: recreate-task, argv: [sh, -c, "{state}/ctr.sh task kill -s KILL svc-b; sleep 0.5; {state}/ctr.sh task rm -f svc-b; {state}/ctr.sh task start --null-io -d svc-b"]}#'
ok grep -q 'op: recreate-task' "$tmp/recreate.yaml"
run_variant recreate
isnt "$rc" "0" "re-created task: verify rejects the bundle"
is "$(awk '$2 == "faults.recovered"{print $1}' "$out/verify.out")" "FAIL" "re-created task: the faults.recovered gate fails"
like "$(awk -F'\t' 'NR>1{print $2" "$8}' "$out/faults.tsv")" 'tasks:before=3,after=3,duplicated=0,differ fail$' "re-created task: the record fails, naming the task list"
is "$(awk -F'\t' '$4 == "still-manageable"{print $6}' "$out/operations.tsv")" "ok" "re-created task: although the workload's own check passed"
check_nothing_left "$out"
nothing_of_containerd "$out"

# negative: a service left running when the run drains (its stop forgets
# svc-b, the cleanup does nothing): the inventory, read from containerd's
# state on disk, names the task, runc's state and the shim: verify rejects
variant leak 's/for c in svc-a svc-b; do {state}\/ctr.sh task kill -s KILL $c; done; sleep 0.5; for c in svc-a svc-b;/for c in svc-a; do {state}\/ctr.sh task kill -s KILL $c; done; sleep 0.5; for c in svc-a;/' \
	's#^    argv: \[sh, -c, "if test -s {state}/ctrd.pid.*#    argv: ["true"]#'
run_variant leak
isnt "$rc" "0" "leaked service: verify rejects the bundle"
is "$(awk '$2 == "cleanup.inventory"{print $1}' "$out/verify.out")" "FAIL" "leaked service: the cleanup.inventory gate fails"
is "$(jq -r '[.resources[] | .type + ":" + (.id | sub("^[0-9]+:"; "") | sub("^[^/]*/"; ""))] | sort | join(",")' "$out/inventory-final.json")" \
	"process:containerd-shim,runc-state:svc-b,task:svc-b" "leaked service: the final inventory names its task, runc state and shim"
is "$(jq -r '.resources | length' "$out/inventory-start.json")" "0" "leaked service: the start inventory was empty"
# the runner killed the processes; runc's cgroups of the forgotten container stay: removed here (scoped to the prefix)
lp=$(meta "$out" prefix)
for h in /sys/fs/cgroup/"$lp" /sys/fs/cgroup/*/"$lp"; do
	[ -d "$h" ] || continue
	for c in "$h"/*/; do [ -d "$c" ] && rmdir "$c"; done
	rmdir "$h"
done
check_nothing_left "$out"
nothing_of_containerd "$out"

# failure path: the task list is empty: nothing to reconcile, nothing injected
variant notasks 's#      tasks: \["{state}/tasks.sh"\]#      tasks: [sh, -c, "true"]#'
run_variant notasks
isnt "$rc" "0" "no tasks: verify rejects the bundle"
is "$(awk -F'\t' '$4 == "F04"{print $6" "$8}' "$out/operations.tsv")" "fail no-tasks" "no tasks: not injected, the operation says why"
is "$(awk -F'\t' 'NR>1{print $1" "$8}' "$out/faults.tsv")" "F04 fail" "no tasks: the record fails"
is "$(awk -F'\t' '$4 == "containerd-restart"{print $6}' "$out/operations.tsv")" "ok" "no tasks: the recover steps still ran"
check_nothing_left "$out"
nothing_of_containerd "$out"

# failure path: the task list cannot be read
variant badtasks 's#      tasks: \["{state}/tasks.sh"\]#      tasks: [sh, -c, "exit 3"]#'
run_variant badtasks
is "$(awk -F'\t' '$4 == "F04"{print $6" "$8}' "$out/operations.tsv")" "fail tasks-unreadable" "unreadable task list: not injected, the operation says why"
is "$(awk -F'\t' 'NR>1{print $1" "$8}' "$out/faults.tsv")" "F04 fail" "unreadable task list: the record fails"
check_nothing_left "$out"
nothing_of_containerd "$out"

# failure path: the runner killed while containerd is down (the recovery sleeps first)
variant killed 's#^    recover:$#    recover:\n      - {op: slow, argv: [sleep, "60"]}#'
out=$tmp/killed.out
"$SP_BIN" soak --workload "$tmp/killed.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1 &
pid=$!
for i in $(seq 300); do grep -q '	F04	' "$out/operations.tsv" 2>/dev/null && break; sleep 0.1; done
ok grep -q '	F04	[0-9.]*	expected_fault	' "$out/operations.tsv"
prefix=$(meta "$out" prefix)
state=$(meta "$out" state_root)
at_exit "kill_all_of_run '$prefix' '$state'"
kill -KILL "$(runner_of "$pid")"
wait "$pid" 2>/dev/null
is "$(wait_nothing_alive "$prefix" "$state" "$out" 5)" "$NOTHING_ALIVE" "killed mid-fault: nothing of the run alive"
is "$(pgrep -f "[c]ontainerd-shim-runc-v2 .*-address $state/" | wc -l)" "0" "killed mid-fault: no shim of the run alive"
ok test ! -e "$out/summary.json"
"$SP_BIN" soak --reconcile "$tmp" >/dev/null 2>&1
ok test ! -e "$state"
is "$(grep -c " $state" /proc/self/mountinfo)" "0" "killed mid-fault: no mount under the state dir"
done_testing
