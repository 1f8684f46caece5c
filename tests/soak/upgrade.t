#!/usr/bin/env bash
# F09 (the runtime binary upgraded and rolled back under live resources) and
# the UPG-01 workload.
# - workloads/upgrade-01.yaml rehearses (R0) on the real runc: two containers
#   made under N (/usr/sbin/runc), the link moved to N+1 (a second build
#   path), the same containers, pids and states listed, usable under N+1
#   (state, exec, pause/resume), rolled back unchanged; verified; nothing of
#   the run left.
# - negative control rejected by `verify`: crun as N+1, under which the
#   containers runc made are not listed (crun lists nothing and says
#   nothing: resources lost without an error), whatever the recover steps
#   said.
# - `next: fail-closed`: an N+1 that refuses N's state (fails) passes when
#   the workload declares it, and fails under `next: keep`.
# - failure paths: no live resource (nothing injected), a link that cannot
#   be moved back (rollback-failed, stop=error), a link outside the run
#   (invariant), the runner killed during the fault (nothing alive, no
#   container of the run in runc's state, --reconcile removes the rest).
# Ground truth outside the runner: runc's own state (runc list against the
# run's root), readlink, /proc.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need jq
need runc
need crun
need_root
[ -x /bin/busybox ] || skip_all "/bin/busybox (busybox-static) missing"
[ "$(command -v runc)" = /usr/sbin/runc ] || skip_all "runc is not /usr/sbin/runc (the shipped workload's version N)"
tmp=$(sp_tmpdir)
at_exit "rm -rf '$tmp'" # sp_tmpdir ran in a subshell: register the cleanup here

verdict() { awk '$2 == "'"$2"'"{print $1}' "$1/verify.out"; }
frow() { awk -F'\t' 'NR>1{print $1" "$8}' "$1/faults.tsv"; }
ftarget() { awk -F'\t' 'NR>1{print $2}' "$1/faults.tsv"; }
fop() { awk -F'\t' '$4 == "F09"{print $6" "$8}' "$1/operations.tsv"; }
opres() { awk -F'\t' -v o="$2" '$4 == o{print $6}' "$1/operations.tsv"; }
# no container of the run in runc's state, seen with runc itself
no_containers() { # OUT
	local s
	s=$(meta "$1" state_root)
	is "$(runc --root "$s/runc" list -q 2>/dev/null | wc -l)" "0" "no container of the run left in runc's state"
}

variant() { # NAME SED-EXPR...: a copy with its own prefix, edited
	local name=$1
	shift
	workload_copy "$SP_ROOT/workloads/upgrade-01.yaml" "$tmp/$name.yaml" "$tmp"
	sed -i "s/^prefix: spupg/prefix: spu$name/" "$tmp/$name.yaml"
	local e
	for e in "$@"; do sed -i "$e" "$tmp/$name.yaml"; done
}
start_variant() { # NAME: runs it R0 in the background; pid in pids[NAME]
	"$SP_BIN" soak --workload "$tmp/$1.yaml" --profile R0 --out "$tmp/$1.out" --quiet >/dev/null 2>&1 &
	pids[$1]=$!
}
finish() { # NAME: waits for it; sets out, rc
	out=$tmp/$1.out
	wait "${pids[$1]}"
	rc=$?
}
declare -A pids

# the runs that end by themselves go in parallel (own prefixes, own state dirs)
workload_copy "$SP_ROOT/workloads/upgrade-01.yaml" "$tmp/shipped.yaml" "$tmp"
start_variant shipped
# crun as N+1: runc's containers are not crun's
variant crun 's#      to: "{state}/runc-next"#      to: /usr/bin/crun#' 's#      - {op: at-next, .*#      - {op: at-next, argv: [sh, -c, "test \\"$(readlink {state}/bin/runc)\\" = /usr/bin/crun"]}#'
start_variant crun
# an N+1 that refuses N's state: declared fail-closed (passes), or keep (fails)
printf '#!/bin/sh\necho "unsupported state format" >&2\nexit 1\n' >"$tmp/refuse"
chmod +x "$tmp/refuse"
refuse="s#      to: \"{state}/runc-next\"#      to: $tmp/refuse#"
refuse_at="s#      - {op: at-next, .*#      - {op: at-next, argv: [sh, -c, \"test \\\\\"\$(readlink {state}/bin/runc)\\\\\" = $tmp/refuse\"]}#"
refuse_recover='s#^      - {op: next-\(state\|exec\|pause-resume\), argv: \(.*\)}$#      - {op: next-\1, expect: fail, argv: \2}#'
variant closed "$refuse" "$refuse_at" "$refuse_recover" 's/      next: keep/      next: fail-closed/'
start_variant closed
variant refkeep "$refuse" "$refuse_at" "$refuse_recover"
start_variant refkeep
# no live resource: nothing injected
variant notasks 's#      tasks: \[sh, "{state}/resources.sh"\]#      tasks: [sh, -c, "true"]#'
start_variant notasks
# the link cannot be moved back (its directory replaced by a file under N+1)
variant stuck 's#      - {op: next-pause-resume, .*#      - {op: jam, argv: [sh, -c, "rm -rf {state}/bin \&\& touch {state}/bin"]}#'
start_variant stuck
# a link outside the run's state dir
variant outside "s#      link: \"{state}/bin/runc\"#      link: \"$tmp/foreign-link\"#"
ln -s /usr/sbin/runc "$tmp/foreign-link"
start_variant outside

finish shipped
check_bundle "$out"
check_exit_is_verifiers "$out" "$rc"
is "$rc" "0" "upgrade-01: the verifier accepts the R0 bundle"
is "$(jq -r '.unexpected_failures' "$out/summary.json") $(jq -r .cleanup "$out/summary.json")" "0 ok" "upgrade-01: no unexpected failure, cleanup ok"
is "$(frow "$out")" "F09 pass" "upgrade-01: F09 injected and rolled back"
like "$(ftarget "$out")" '^link:.*/bin/runc N:/usr/sbin/runc N\+1:.*/runc-next tasks:2 next:2-same rollback:2-same$' \
	"upgrade-01: two containers under N, the same under N+1, the same after the rollback"
is "$(fop "$out")" "expected_fault upgraded" "upgrade-01: the upgrade is an expected fault"
for op in at-next next-state next-exec next-pause-resume svc-exec svc-health create start exec kill delete gone svc-delete; do
	is "$(opres "$out" "$op")" "ok" "upgrade-01: $op"
done
is "$(jq -c .resources "$out/inventory-start.json") $(jq -c .resources "$out/inventory-final.json")" "[] []" "upgrade-01: no container in the start and final inventories"
check_nothing_left "$out"
no_containers "$out"

finish crun
isnt "$rc" "0" "crun as N+1: verify rejects the bundle"
is "$(verdict "$out" faults.recovered)" "FAIL" "crun as N+1: the faults.recovered gate fails"
like "$(ftarget "$out")" 'N\+1:/usr/bin/crun tasks:2 next:before=2,now=0,lost=2,differ rollback:2-same$' \
	"crun as N+1: both containers lost under N+1 (crun listed nothing, no error), back after the rollback"
is "$(opres "$out" at-next)" "ok" "crun as N+1: the link pointed at crun during the fault"
check_nothing_left "$out"
no_containers "$out"

finish closed
is "$rc $(frow "$out")" "0 F09 pass" "N+1 refuses, next: fail-closed: F09 passes, verify accepts"
like "$(ftarget "$out")" 'next:refused rollback:2-same$' "N+1 refuses, next: fail-closed: refused, then restored"
is "$(opres "$out" next-state)" "ok" "N+1 refuses: the workload's own check saw the refusal"
check_nothing_left "$out"
no_containers "$out"

finish refkeep
isnt "$rc" "0" "N+1 refuses, next: keep: verify rejects the bundle"
is "$(frow "$out")" "F09 fail" "N+1 refuses, next: keep: the record fails"
check_nothing_left "$out"
no_containers "$out"

finish notasks
isnt "$rc" "0" "no live resource: verify rejects the bundle"
is "$(fop "$out")" "fail no-tasks" "no live resource: not injected, the operation says why"
is "$(opres "$out" at-next)" "fail" "no live resource: the link was never moved"
check_nothing_left "$out"
no_containers "$out"

finish stuck
isnt "$rc" "0" "rollback impossible: verify rejects the bundle"
like "$(ftarget "$out")" 'rollback-failed$' "rollback impossible: the record says so"
is "$(frow "$out")" "F09 fail" "rollback impossible: the record fails"
is "$(jq -r .stop_condition "$out/summary.json")" "error" "rollback impossible: the run stopped (error)"
check_nothing_left "$out"
no_containers "$out"

finish outside
isnt "$rc" "0" "link outside the run: verify rejects the bundle"
is "$(fop "$out")" "fail target-not-owned" "link outside the run: not injected"
is "$(jq -r .stop_condition "$out/summary.json")" "invariant" "link outside the run: the run stops (invariant)"
is "$(readlink "$tmp/foreign-link")" "/usr/sbin/runc" "link outside the run: left as it was"
check_nothing_left "$out"
no_containers "$out"

# the runner killed during the fault (under N+1, the recovery sleeps)
variant killed 's#^    recover:$#    recover:\n      - {op: slow, argv: [sleep, "60"]}#'
out=$tmp/killed.out
"$SP_BIN" soak --workload "$tmp/killed.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1 &
pid=$!
for i in $(seq 300); do grep -q '	F09	' "$out/operations.tsv" 2>/dev/null && break; sleep 0.1; done
ok grep -q '	F09	[0-9.]*	expected_fault	' "$out/operations.tsv"
prefix=$(meta "$out" prefix)
state=$(meta "$out" state_root)
at_exit "kill_all_of_run '$prefix' '$state'"
is "$(readlink "$state/bin/runc")" "$state/runc-next" "killed mid-fault: the link is at N+1 when the runner dies"
is "$(runc --root "$state/runc" list -q | wc -l)" "2" "killed mid-fault: two containers live"
kill -KILL "$(runner_of "$pid")"
wait "$pid" 2>/dev/null
is "$(wait_nothing_alive "$prefix" "$state" "$out" 5)" "$NOTHING_ALIVE" "killed mid-fault: nothing of the run alive"
ok test ! -e "$out/summary.json"
"$SP_BIN" soak --reconcile "$tmp" >/dev/null 2>&1
ok test ! -e "$state"
is "$(grep -c " $state" /proc/self/mountinfo)" "0" "killed mid-fault: no mount under the state dir"
done_testing
