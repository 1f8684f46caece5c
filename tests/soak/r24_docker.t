#!/usr/bin/env bash
# The R24/E72 variant on Docker (workloads/r24-docker.yaml), run as R0: its
# own dockerd (runc and runsc), the seed's 40/20/15/15/10 composition.
# - the bundle: complete, `sandprobe verify` passes, the recorded class mix
#   is 40/20/15/15/10 and every class has operations (none failed) and
#   cycles; F01 and F02 recovered; the R24 profile's duration is not run here.
# - ground truth from the host, outside the run: a runc container's limits
#   read in its cgroup while it runs, and a container's loopback port
#   answering this test's own client while the network cycle runs; the
#   workload's own inventory, then, lists the containers, the image, the
#   daemon, a container's state on disk and the container's listener.
# - the host as found: processes, mounts, cgroups, runc states, listeners,
#   the system engine's containers naming the prefix, the state root: the
#   same before and after (tests/soak/r24lib.sh host_state), a reading
#   that sees the run while it goes.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/r24lib.sh"
need jq
need dockerd
need docker
need runc
need runsc
need curl
need ss
need python3
need_root
[ -x /bin/busybox ] || skip_all "/bin/busybox (busybox-static) missing"
tmp=$(sp_tmpdir)
at_exit "rm -rf '$tmp'"
mkdir -p "$tmp/sr"
w=$tmp/r24-docker.yaml
workload_copy "$SP_ROOT/workloads/r24-docker.yaml" "$w" "$tmp/sr"
# this test's own reading, while the run goes: the first runc lifecycle
# container's memory limit from its cgroup, the network cycle's port answered
sed -i 's#^      - op: limits-set$#      - {op: hold, argv: [sh, -c, "touch {state}/{id}.hold; for i in $(seq 100); do test -e {state}/{id}.hold || exit 0; sleep 0.1; done; exit 1"]}\n      - op: limits-set#' "$w"
sed -i 's#^      - op: connection-pressure$#      - {op: hold, argv: [sh, -c, "touch {state}/{id}.hold; for i in $(seq 100); do test -e {state}/{id}.hold || exit 0; sleep 0.1; done; exit 1"]}\n      - op: connection-pressure#' "$w"
is "$(grep -c 'op: hold' "$w")" "2" "the copy waits for this test twice"

before=$(host_state spr24d "$tmp")
out=$tmp/r0
"$SP_BIN" soak --workload "$w" --profile R0 --out "$out" --quiet >/dev/null 2>&1 &
pid=$!
for i in $(seq 600); do test -f "$out/metadata.txt" && break; sleep 0.1; done
state=$(meta "$out" state_root)
prefix=$(meta "$out" prefix)
at_exit "kill_all_of_run '$prefix' '$state'"
for i in $(seq 600); do h=$(ls "$state"/*-r24lc-1.hold 2>/dev/null) && break; sleep 0.1; done
cid=$(DOCKER_CONFIG=$state/dcli docker -H "unix://$state/d.sock" inspect -f '{{.Id}}' "$prefix-r24lc-1" 2>/dev/null)
lim=$(cat "/sys/fs/cgroup/memory/$prefix/$cid/memory.limit_in_bytes" "/sys/fs/cgroup/$prefix/$cid/memory.max" 2>/dev/null | head -1)
is "$lim" "33554432" "host: the lifecycle container's cgroup holds its 32 MiB limit"
mid=$(host_state spr24d "$tmp") # the reading sees the run while it goes
like "$(echo "$mid" | grep '^processes:')" 'processes:.*dockerd' "host reading during the run: the run's dockerd"
like "$(echo "$mid" | grep '^cgroups:')" "cgroups:.*$prefix" "host reading during the run: the run's cgroups"
inv=$(sh "$state/inventory.sh" | jq -r '.resources[] | .type + " " + .id')
like "$(echo "$inv" | grep -c '^container ')" '^[3-9]$' "the workload's inventory, during the run: the containers (the two services, the cycle's)"
ok grep -q "^image " <<<"$inv"
ok grep -q "^process [0-9]*:dockerd$" <<<"$inv"
ok grep -q "^container-state ${cid:0:12}$" <<<"$inv"
rm -f "$h"
for i in $(seq 600); do h=$(ls "$state"/*-r24net-1.hold 2>/dev/null) && break; sleep 0.1; done
port=$(cat "$state/$prefix-r24net-1.port" 2>/dev/null)
is "$(curl -s --max-time 5 "http://127.0.0.1:$port/")" "ok-$prefix" "host: this test's client gets the container's page on 127.0.0.1:$port"
like "$(sh "$state/inventory.sh" | jq -r '.resources[] | select(.type == "listener") | .id')" "^127.0.0.1:$port\$" "the workload's inventory, during the run: the container's listener"
rm -f "$h"
wait "$pid"
rc=$?
check_bundle "$out"
check_exit_is_verifiers "$out" "$rc"
is "$rc" "0" "r24-docker: the verifier accepts the R0 bundle"
is "$(jq -r '.unexpected_failures' "$out/summary.json") $(jq -r .cleanup "$out/summary.json")" "0 ok" "no unexpected failure, cleanup ok"
check_composition "$out" "$w"
is "$(awk -F'\t' 'NR > 1 { print $1 }' "$out/faults.tsv" | sort | paste -sd,)" "F01,F02" "faults: F01 and F02"
is "$(jq -c '.resources' "$out/inventory-final.json")" "[]" "inventory-final: nothing of the run"
is "$(ss -Hltn "sport = :$port" | wc -l)" "0" "host: the port the run published is closed"
check_nothing_left "$out"
is "$(host_state spr24d "$tmp")" "$before" "host: as found (processes, mounts, cgroups, runc, listeners, engine, state root)"
done_testing
