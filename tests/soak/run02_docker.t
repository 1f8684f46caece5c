#!/usr/bin/env bash
# RUN-02 on Docker (workloads/run-02-docker.yaml): a dockerd the run starts
# itself (own socket, data root, exec root; never the system's engine), runc
# and runsc containers, an image imported from a rootfs the run builds.
# - R0: complete bundle, verified; runc's limits bounded (fork bomb), the
#   runsc container in gVisor; nothing of the run left (daemon, shims,
#   cgroups at any depth, the state dir, the CLI's config in $HOME), and the
#   system's engine (if any) untouched: its container list is the same.
# - negative controls rejected by `verify`: a memory limit not set (the
#   host's cgroup shows no limit), an unsupported option whose failed run
#   leaves a container behind (docker run without --rm; the cycle's slow
#   enforcement steps left out of that variant).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need jq
need dockerd
need docker
need runc
need runsc
need_root
[ -x /bin/busybox ] || skip_all "/bin/busybox (busybox-static) missing"
tmp=$(sp_tmpdir)
at_exit "rm -rf '$tmp'"

sys_before=$(docker ps -aq --no-trunc 2>/dev/null | sort | paste -sd,)
home_docker_before=$(test -e "$HOME/.docker" && echo present || echo absent)

nothing_of_run() { # OUT
	local state prefix
	state=$(meta "$1" state_root)
	prefix=$(meta "$1" prefix)
	is "$(pgrep -f "[d]ockerd .*$state/|[c]ontainerd.*$state/|[c]ontainerd-shim.* $state/" | wc -l)" "0" "no dockerd, containerd or shim of the run left"
	is "$(find /sys/fs/cgroup -path "*$prefix*" 2>/dev/null | wc -l)" "0" "no cgroup of the run left, at any depth"
}

out=$tmp/r0
workload_copy "$SP_ROOT/workloads/run-02-docker.yaml" "$tmp/r0.yaml" "$tmp"
"$SP_BIN" soak --workload "$tmp/r0.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1
rc=$?
check_bundle "$out"
check_exit_is_verifiers "$out" "$rc"
is "$rc" "0" "run-02-docker: the verifier accepts the R0 bundle"
is "$(jq -r '.unexpected_failures' "$out/summary.json") $(jq -r .cleanup "$out/summary.json")" "0 ok" "no unexpected failure, cleanup ok"
is "$(awk -F'\t' '$2 == "RUN-02" && $6 == "ok" {print $4}' "$out/operations.tsv" | paste -sd,)" \
	"daemon-wait,run,limits-set,logs,exec,pause,unpause,cpu-throttled,pids-bounded,unsupported-runtime,unsupported-rt-cpu,unsupported-device,memory-bounded,remove,gone" \
	"runc: every step of the cycle ran and passed"
is "$(awk -F'\t' '$2 == "RUN-02G" && $6 == "ok" {print $4}' "$out/operations.tsv" | paste -sd,)" \
	"daemon-wait,run,in-gvisor,logs,exec,pause,unpause,unsupported-runtime,unsupported-device,remove,gone" \
	"runsc: every step of the cycle ran and passed"
like "$(grep -h '^current=' "$out/logs/RUN-02.pids-bounded.log")" '^current=2[0-4] refused=[1-9]' "the fork bomb stopped at 24 pids, forks refused"
check_nothing_left "$out"
nothing_of_run "$out"
is "$(docker ps -aq --no-trunc 2>/dev/null | sort | paste -sd,)" "$sys_before" "the system's engine: the same containers as before"
is "$(test -e "$HOME/.docker" && echo present || echo absent)" "$home_docker_before" "the docker CLI's config in \$HOME untouched"

variant() { # NAME SED-EXPR...: a copy with its own prefix and only the runc scenario's cycle, edited
	local name=$1
	shift
	workload_copy "$SP_ROOT/workloads/run-02-docker.yaml" "$tmp/$name.yaml" "$tmp"
	sed -i "s/^prefix: sprun2d/prefix: sp2d$name/" "$tmp/$name.yaml"
	sed -i '/^  - id: RUN-02G$/,$d' "$tmp/$name.yaml"
	local e
	for e in "$@"; do sed -i "$e" "$tmp/$name.yaml"; done
}
run_variant() { # NAME: sets out, rc
	out=$tmp/$1.out
	"$SP_BIN" soak --workload "$tmp/$1.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1
	rc=$?
}

# ---- negative: the memory limit not set
variant nomem 's/ --memory, 32m, --memory-swap, 32m,//'
is "$(grep -c -- '--memory, 32m' "$tmp/nomem.yaml")" "0" "nomem: docker run has no memory limit"
run_variant nomem
isnt "$rc" "0" "memory limit not enforced: verify rejects the bundle"
is "$(awk '$2 == "ops.success"{print $1}' "$out/verify.out")" "FAIL" "memory limit not enforced: the ops.success gate fails"
is "$(awk -F'\t' '$6 == "fail"{print $4}' "$out/operations.tsv")" "limits-set" "memory limit not enforced: the host's cgroup shows it (limits-set)"
check_nothing_left "$out"
nothing_of_run "$out"

# ---- negative: an unsupported option that changes something (without --rm,
# the container whose start the kernel refused stays, Created)
variant keeps '/^      - op: cpu-throttled$/,/^        argv:/d' '/^      - op: pids-bounded$/,/^        argv:/d' '/^      - op: memory-bounded$/,/^        argv:/d' \
	's/{state}\/docker.sh run --rm --network none --cpu-rt-runtime 1000/{state}\/docker.sh run --network none --cpu-rt-runtime 1000/'
ok grep -q 'docker.sh run --network none --cpu-rt-runtime 1000' "$tmp/keeps.yaml"
run_variant keeps
isnt "$rc" "0" "unsupported option that changed something: verify rejects the bundle"
is "$(awk -F'\t' '$6 == "fail"{print $4}' "$out/operations.tsv" | paste -sd,)" "unsupported-rt-cpu,rmi" \
	"the refused run left a container: unsupported-rt-cpu fails (and the image it holds cannot be removed at the drain)"
like "$(jq -c '[.resources[] | select(.type == "container")] | length' "$out/inventory-final.json")" '^0$' "the cleanup removed it"
check_nothing_left "$out"
nothing_of_run "$out"
done_testing
