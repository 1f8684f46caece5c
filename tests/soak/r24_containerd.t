#!/usr/bin/env bash
# The R24/E72 variant on containerd (workloads/r24-containerd.yaml), run as
# R0: the run's own containerd, the seed's 40/20/15/15/10 composition.
# - the bundle: complete, `sandprobe verify` passes, the recorded class mix
#   is 40/20/15/15/10 and every class has operations (none failed) and
#   cycles; F04 reconciled the services' tasks.
# - ground truth from the host, outside the run: while the storage cycle
#   holds its lease and committed snapshot, this test lists them through the
#   run's socket; the run's containerd and shims are seen, then gone; the
#   workload's own inventory, then, lists the lease, the snapshot, the
#   namespace, the image, a service's task, content blobs and the shims.
# - the host as found: processes, mounts, cgroups, runc states, listeners,
#   the system containerd's namespaces naming the prefix, the state root:
#   the same before and after (tests/soak/r24lib.sh host_state).
# - negative control: a copy whose storage cycle and cleanup leave the lease
#   behind (the cleanup removes neither it nor the namespace, whose removal
#   would take its leases with it): verify rejects it on cleanup.inventory
#   alone (the inventory-final lists the lease from the cleanup's census),
#   and the host is still left as found (the run's state dir goes with it).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/r24lib.sh"
need jq
need containerd
need ctr
need runc
need containerd-shim-runc-v2
need flock
need curl
need ss
need python3
need_root
[ -x /bin/busybox ] || skip_all "/bin/busybox (busybox-static) missing"
tmp=$(sp_tmpdir)
at_exit "rm -rf '$tmp'"
mkdir -p "$tmp/sr"
w=$tmp/r24-containerd.yaml
workload_copy "$SP_ROOT/workloads/r24-containerd.yaml" "$w" "$tmp/sr"
# this test's own reading while the storage cycle holds its lease and snapshot
sed -i 's#^      - op: snapshot-child$#      - {op: hold, argv: [sh, -c, "touch {state}/{id}.hold; for i in $(seq 100); do test -e {state}/{id}.hold || exit 0; sleep 0.1; done; exit 1"]}\n      - op: snapshot-child#' "$w"
is "$(grep -c 'op: hold' "$w")" "1" "the copy waits for this test once"

before=$(host_state spr24c "$tmp")
out=$tmp/r0
"$SP_BIN" soak --workload "$w" --profile R0 --out "$out" --quiet >/dev/null 2>&1 &
pid=$!
for i in $(seq 600); do test -f "$out/metadata.txt" && break; sleep 0.1; done
state=$(meta "$out" state_root)
prefix=$(meta "$out" prefix)
at_exit "kill_all_of_run '$prefix' '$state'"
for i in $(seq 600); do h=$(ls "$state"/*-r24sto-1.hold 2>/dev/null) && break; sleep 0.1; done
x="ctr -a $state/c.sock -n $prefix"
is "$($x leases ls -q 2>/dev/null)" "l$prefix-r24sto-1" "host: the run's containerd holds the storage cycle's lease"
like "$($x snapshots ls 2>/dev/null | awk '$1 == "c'"$prefix"'-r24sto-1" { print $NF }')" '^Committed$' "host: and its committed snapshot"
mid=$(host_state spr24c "$tmp")
like "$(echo "$mid" | grep '^processes:')" 'processes:.*containerd.*containerd-shim' "host reading during the run: the run's containerd and shims"
like "$(echo "$mid" | grep '^cgroups:')" "cgroups:.*$prefix" "host reading during the run: the run's cgroups"
inv=$(sh "$state/inventory.sh" | jq -r '.resources[] | .type + " " + .id')
ok grep -qx "lease $prefix/l$prefix-r24sto-1" <<<"$inv"
ok grep -qx "snapshot $prefix/c$prefix-r24sto-1" <<<"$inv"
ok grep -qx "namespace $prefix" <<<"$inv"
ok grep -qx "image $prefix/$prefix.local/bb:1" <<<"$inv"
ok grep -qx "task $prefix/svc-a" <<<"$inv"
ok grep -q "^blob " <<<"$inv"
ok grep -q "^process [0-9]*:containerd-shim" <<<"$inv"
rm -f "$h"
wait "$pid"
rc=$?
check_bundle "$out"
check_exit_is_verifiers "$out" "$rc"
is "$rc" "0" "r24-containerd: the verifier accepts the R0 bundle"
is "$(jq -r '.unexpected_failures' "$out/summary.json") $(jq -r .cleanup "$out/summary.json")" "0 ok" "no unexpected failure, cleanup ok"
check_composition "$out" "$w"
like "$(awk -F'\t' 'NR > 1 { print $1, $2 }' "$out/faults.tsv")" '^F04 .* tasks:2-reconciled$' "F04: the two services' tasks reconciled"
is "$(jq -c '.resources' "$out/inventory-final.json")" "[]" "inventory-final: nothing of the run"
check_nothing_left "$out"
is "$(host_state spr24c "$tmp")" "$before" "host: as found (processes, mounts, cgroups, runc, listeners, engine, state root)"

# ---- negative control: the lease left behind by the cycle and by the cleanup
n=$tmp/leak.yaml
workload_copy "$SP_ROOT/workloads/r24-containerd.yaml" "$n" "$tmp/sr"
sed -i -e '/op: lease-delete,/d' \
	-e 's/x={state}\/ctr.sh; ! $x leases ls -q | grep -qx l{id} \&\& /x={state}\/ctr.sh; /' \
	-e '/for l in $($x leases ls -q); do $x leases rm $l; done/d' \
	-e '/ctr -a {state}\/c.sock namespaces rm {prefix}/d' "$n"
is "$(grep -c -e 'lease-delete' -e 'leases rm' -e '! $x leases ls -q | grep -qx l{id}' -e 'namespaces rm' "$n")" "0" "leak: the lease is deleted nowhere, nor its namespace (which takes its leases with it)"
out=$tmp/leak
"$SP_BIN" soak --workload "$n" --profile R0 --out "$out" --quiet >/dev/null 2>&1
rc=$?
isnt "$rc" "0" "leak: verify rejects the bundle"
is "$(awk '$1 == "FAIL" { print $2 }' "$out/verify.out" | paste -sd,)" "cleanup.inventory" "leak: cleanup.inventory is the one gate that fails"
prefix=$(meta "$out" prefix)
is "$(jq -r '.resources[] | select(.type == "lease") | .id' "$out/inventory-final.json")" "$prefix/l$prefix-r24sto-1" "leak: inventory-final names the lease"
is "$(jq -c '.resources' "$out/inventory-start.json")" "[]" "leak: inventory-start had none"
check_nothing_left "$out"
is "$(host_state spr24c "$tmp")" "$before" "leak: the host as found all the same"
done_testing
