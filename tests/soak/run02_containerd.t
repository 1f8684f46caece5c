#!/usr/bin/env bash
# RUN-02 on containerd (workloads/run-02-containerd.yaml): ctr against a
# containerd the run owns, containers with CPU, memory and pid limits.
# - R0 on the real containerd and runc: complete bundle, verified; the limits
#   are read by this test too, from the host's cgroup files while a container
#   of a variant runs (ground truth independent of the workload's checks);
#   nothing of the run left (process, shim, mount, cgroup, dir).
# - negative controls rejected by `verify`: a pid limit not set (the fork
#   bomb is not bounded), an unsupported option whose failed run leaves a
#   container record (ctr run without --rm).
# - the guard: the runner SIGKILLed while a container runs in a cgroup named
#   without the run prefix under the run's containerd-namespace cgroup, with
#   no workload step that removes cgroups (nor runc delete, which would): the
#   supervisor leaves no cgroup of the run (find /sys/fs/cgroup), and
#   --reconcile the rest.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need jq
need containerd
need ctr
need runc
need containerd-shim-runc-v2
need_root
[ -x /bin/busybox ] || skip_all "/bin/busybox (busybox-static) missing"
tmp=$(sp_tmpdir)
at_exit "rm -rf '$tmp'"

nothing_of_run() { # OUT
	local state prefix
	state=$(meta "$1" state_root)
	prefix=$(meta "$1" prefix)
	is "$(pgrep -f "[c]ontainerd.* $state/|[c]ontainerd-shim-runc-v2 .*-address $state/" | wc -l)" "0" "no containerd or shim of the run left"
	is "$(find /sys/fs/cgroup -path "*$prefix*" 2>/dev/null | wc -l)" "0" "no cgroup of the run left, at any depth"
}

# ---- the shipped workload, R0
out=$tmp/r0
workload_copy "$SP_ROOT/workloads/run-02-containerd.yaml" "$tmp/r0.yaml" "$tmp"
"$SP_BIN" soak --workload "$tmp/r0.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1
rc=$?
check_bundle "$out"
check_exit_is_verifiers "$out" "$rc"
is "$rc" "0" "run-02-containerd: the verifier accepts the R0 bundle"
is "$(jq -r '.unexpected_failures' "$out/summary.json") $(jq -r .cleanup "$out/summary.json")" "0 ok" "no unexpected failure, cleanup ok"
is "$(awk -F'\t' '$2 == "RUN-02" && $6 == "ok" {print $4}' "$out/operations.tsv" | paste -sd,)" \
	"daemon-wait,spec,run,limits-set,logs,exec,pause,resume,cpu-throttled,pids-bounded,unsupported-runtime,unsupported-rdt,memory-bounded,remove,gone" \
	"every step of the cycle ran and passed"
like "$(grep -h '^current=' "$out/logs/RUN-02.pids-bounded.log")" '^current=2[0-4] refused=[1-9]' "the fork bomb stopped at 24 pids, forks refused"
check_nothing_left "$out"
nothing_of_run "$out"

variant() { # NAME SED-EXPR...: a copy with its own prefix, edited
	local name=$1
	shift
	workload_copy "$SP_ROOT/workloads/run-02-containerd.yaml" "$tmp/$name.yaml" "$tmp"
	sed -i "s/^prefix: sprun2c/prefix: sp2c$name/" "$tmp/$name.yaml"
	local e
	for e in "$@"; do sed -i "$e" "$tmp/$name.yaml"; done
}
run_variant() { # NAME: sets out, rc
	out=$tmp/$1.out
	"$SP_BIN" soak --workload "$tmp/$1.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1
	rc=$?
}

# ---- negative: no pid limit in the spec (the fork bomb is not bounded)
variant nopids 's/ | .linux.resources.pids={limit:24}//'
isnt "$(grep -c 'pids={limit' "$tmp/nopids.yaml")" "1" "nopids: the pid limit is gone from the spec"
run_variant nopids
isnt "$rc" "0" "pid limit not enforced: verify rejects the bundle"
is "$(awk '$2 == "ops.success"{print $1}' "$out/verify.out")" "FAIL" "pid limit not enforced: the ops.success gate fails"
is "$(awk -F'\t' '$6 == "fail"{print $4}' "$out/operations.tsv")" "limits-set" "pid limit not enforced: the host's cgroup shows it (limits-set)"
check_nothing_left "$out"
nothing_of_run "$out"

# ---- negative: an unsupported option that changes something (ctr run
# without --rm leaves the container record of its failed run)
variant keeps 's/{state}\/ctr.sh run --rm --null-io --runtime io.containerd.nosuch.v1/{state}\/ctr.sh run --null-io --runtime io.containerd.nosuch.v1/'
ok grep -q 'ctr.sh run --null-io --runtime io.containerd.nosuch.v1' "$tmp/keeps.yaml"
run_variant keeps
isnt "$rc" "0" "unsupported option that changed something: verify rejects the bundle"
is "$(awk -F'\t' '$6 == "fail"{print $4}' "$out/operations.tsv")" "unsupported-runtime" "the failed run left a container record: unsupported-runtime fails"
check_nothing_left "$out"
nothing_of_run "$out"

# ---- the guard: runner killed while a container runs; no workload cleanup of cgroups
variant killed 's#^      - op: limits-set$#      - {op: hold, argv: [sleep, "60"]}\n      - op: limits-set#' \
	'/^  - op: cgroups$/,/^    argv:/d' \
	's#runc --root {state}/runc/{prefix} delete --force $(basename $c) || exit 1#rm -rf $c#'
ok grep -q 'op: hold' "$tmp/killed.yaml"
ok grep -q 'test ! -d $c || rm -rf $c;' "$tmp/killed.yaml" # runc's state dropped, not deleted by runc (which would remove the cgroups)
is "$(grep -c 'op: cgroups' "$tmp/killed.yaml")" "0" "killed: the workload removes no cgroup itself"
out=$tmp/killed.out
"$SP_BIN" soak --workload "$tmp/killed.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1 &
pid=$!
for i in $(seq 300); do grep -q '	run	[0-9.]*	ok	' "$out/operations.tsv" 2>/dev/null && break; sleep 0.1; done
prefix=$(meta "$out" prefix)
state=$(meta "$out" state_root)
at_exit "kill_all_of_run '$prefix' '$state'"
ok test -n "$(find /sys/fs/cgroup -path "*/$prefix/c1" -type d 2>/dev/null)" # a cgroup named without the prefix, below one named with it
kill -KILL "$(runner_of "$pid")"
wait "$pid" 2>/dev/null
is "$(wait_nothing_alive "$prefix" "$state" "$out" 10)" "$NOTHING_ALIVE" "killed: nothing of the run alive"
is "$(find /sys/fs/cgroup -path "*$prefix*" -type d 2>/dev/null | wc -l)" "0" "killed: the supervisor removed every cgroup of the run, its containers' too"
"$SP_BIN" soak --reconcile "$tmp" >/dev/null 2>&1
ok test ! -e "$state"
nothing_of_run "$out"
done_testing
