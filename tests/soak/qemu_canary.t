#!/usr/bin/env bash
# F08 (reboot of an isolated canary VM) and workloads/canary-qemu.yaml.
# - the shipped workload (R0): a qemu VM the run owns (TCG) keeps a marker
#   and a boot count on its own disk image; F08 resets it through QMP after
#   its first boot; the bundle verifies, the record passes with the state
#   reconciled and the same qemu process; ground truth from the guest's own
#   serial port (kept in the recover step's log): boot 1 and boot 2 with the
#   same marker; nothing of the run left (no qemu, no disk image, no socket).
# - negative control: a canary that loses its state at every boot (its init
#   wipes the disk's first sector): the guest boots again (the workload's
#   own check passes), the marker differs, and verify rejects the bundle.
# - failure paths: the VM gone before the fault (target-gone), a QMP socket
#   that does not answer (qmp-unreachable), nothing injected in either; the
#   runner killed in the middle of the fault (nothing of the run alive, the
#   VM included; --reconcile removes the rest).
# The two booting runs go at the same time (one TCG guest each), the
# failure paths meanwhile (none of them waits for a boot).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need_root
need jq
need cpio
need qemu-system-x86_64 "qemu not installed (package qemu-system-x86)"
[ -x /bin/busybox ] || skip_all "/bin/busybox (busybox-static) missing"
ls /boot/vmlinuz-* >/dev/null 2>&1 || skip_all "no kernel in /boot (apt-get install linux-image-amd64)"
tmp=$(sp_tmpdir)
at_exit "rm -rf '$tmp'"

variant() { # NAME SED-EXPR...: a copy of the shipped workload with its own prefix, edited
	local name=$1
	shift
	workload_copy "$SP_ROOT/workloads/canary-qemu.yaml" "$tmp/$name.yaml" "$tmp"
	sed -i "s/^prefix: spvm/prefix: spvm$name/" "$tmp/$name.yaml"
	local e
	for e in "$@"; do sed -i "$e" "$tmp/$name.yaml"; done
}
nothing_of_vm() { # OUT
	local state
	state=$(meta "$1" state_root)
	is "$(pgrep -f "[q]emu-system-x86_64 .*$state/" | wc -l)" "0" "no qemu of the run left"
	ok test ! -e "$state/canary.img"
}

# ---- the shipped workload and the lost-state canary, booting side by side
workload_copy "$SP_ROOT/workloads/canary-qemu.yaml" "$tmp/ok.yaml" "$tmp"
variant lost 's#^        for i in $(busybox seq 100); do test -b /dev/vda \&\& break; busybox sleep 0.1; done$#&\n        busybox dd if=/dev/zero of=/dev/vda bs=512 count=1 2>/dev/null#'
is "$(grep -c 'dd if=/dev/zero of=/dev/vda' "$tmp/lost.yaml")" 1 "lost-state variant: its init wipes the disk at each boot"
"$SP_BIN" soak --workload "$tmp/ok.yaml" --profile R0 --out "$tmp/ok.out" --quiet >/dev/null 2>&1 &
p_ok=$!
"$SP_BIN" soak --workload "$tmp/lost.yaml" --profile R0 --out "$tmp/lost.out" --quiet >/dev/null 2>&1 &
p_lost=$!

# ---- failure path: the VM gone before the fault (the step before it kills qemu, which leaves its pid file)
variant gone 's#^        argv: \[sh, -c, "for i in $(seq 2400); do n=$(grep -c .^canary-boot . {state}/serial.log.*#        argv: [sh, -c, "p=$(cat {state}/vm.pid); kill -KILL $p; for i in $(seq 100); do test -e /proc/$p || exit 0; sleep 0.1; done; exit 1"]#'
ok grep -q 'kill -KILL $p' "$tmp/gone.yaml"
out=$tmp/gone.out
"$SP_BIN" soak --workload "$tmp/gone.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1
rc=$?
isnt "$rc" "0" "VM gone: verify rejects the bundle"
is "$(awk -F'\t' '$4 == "F08"{print $6" "$8}' "$out/operations.tsv")" "fail target-gone" "VM gone: not injected, the operation says why"
is "$(awk -F'\t' 'NR>1{print $1" "$8}' "$out/faults.tsv")" "F08 fail" "VM gone: the record fails"
is "$(awk -F'\t' '$4 == "canary-rebooted"{print $6}' "$out/operations.tsv")" "fail" "VM gone: the recover step fails at once"
check_nothing_left "$out"

# ---- failure path: a QMP socket that does not answer (the state is not read from a booted guest here)
variant noqmp 's#^      qmp: "{state}/qmp.sock"#      qmp: "{state}/none.sock"#' 's#^      state: \[sh, "{state}/state.sh"\]#      state: [echo, marker=x]#' \
	's#^        argv: \[sh, -c, "for i in $(seq 2400); do n=$(grep -c .^canary-boot . {state}/serial.log.*#        argv: ["true"]#' \
	's#^        argv: \[sh, -c, "b=$(cat {state}/boots.before.*#        argv: ["true"]#'
ok grep -q 'qmp: "{state}/none.sock"' "$tmp/noqmp.yaml"
out=$tmp/noqmp.out
"$SP_BIN" soak --workload "$tmp/noqmp.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1
rc=$?
isnt "$rc" "0" "QMP unreachable: verify rejects the bundle"
is "$(awk -F'\t' '$4 == "F08"{print $6" "$8}' "$out/operations.tsv")" "fail qmp-unreachable" "QMP unreachable: not injected, the operation says why"
like "$(awk -F'\t' 'NR>1{print $1" "$2" "$8}' "$out/faults.tsv")" '^F08 vm:pid:[0-9]+\(.*/vm\.pid\) state:1 fail$' "QMP unreachable: the record fails, the VM was pinned and its state read"
check_nothing_left "$out"
nothing_of_vm "$out"

# ---- failure path: the runner killed while the VM reboots (the recovery sleeps first)
variant killed 's#^      state: \[sh, "{state}/state.sh"\]#      state: [echo, marker=x]#' \
	's#^        argv: \[sh, -c, "for i in $(seq 2400); do n=$(grep -c .^canary-boot . {state}/serial.log.*#        argv: ["true"]#' \
	's#^    recover:$#    recover:\n      - {op: slow, argv: [sleep, "60"]}#'
out=$tmp/killed.out
"$SP_BIN" soak --workload "$tmp/killed.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1 &
pid=$!
for i in $(seq 300); do grep -q '	F08	' "$out/operations.tsv" 2>/dev/null && break; sleep 0.1; done
ok grep -q '	F08	[0-9.]*	expected_fault	[0-9]*	system_reset$' "$out/operations.tsv"
prefix=$(meta "$out" prefix)
state=$(meta "$out" state_root)
at_exit "kill_all_of_run '$prefix' '$state'"
vm=$(cat "$state/vm.pid" 2>/dev/null)
ok test -n "$vm" -a -e "/proc/$vm"
kill -KILL "$(runner_of "$pid")"
wait "$pid" 2>/dev/null
is "$(wait_nothing_alive "$prefix" "$state" "$out" 10)" "$NOTHING_ALIVE" "killed mid-fault: nothing of the run alive"
ok test ! -e "/proc/$vm"
ok test ! -e "$out/summary.json"
"$SP_BIN" soak --reconcile "$tmp" >/dev/null 2>&1
ok test ! -e "$state"

# ---- the shipped workload
wait "$p_ok"
rc=$?
out=$tmp/ok.out
check_bundle "$out"
check_exit_is_verifiers "$out" "$rc"
is "$rc" "0" "canary-qemu: the verifier accepts the R0 bundle"
is "$(jq -r '.unexpected_failures' "$out/summary.json") $(jq -r .cleanup "$out/summary.json")" "0 ok" "canary-qemu: no unexpected failure, cleanup ok"
is "$(awk -F'\t' 'NR>1{print $1" "$8}' "$out/faults.tsv")" "F08 pass" "canary-qemu: F08 injected and recovered"
like "$(awk -F'\t' 'NR>1{print $2}' "$out/faults.tsv")" '^vm:pid:[0-9]+\(.*/vm\.pid\) state:1 state:1-reconciled vm:same-process$' \
	"canary-qemu: the marker read back after the reboot, the same qemu process"
is "$(awk -F'\t' 'NR>1 && $7 > 0 && $6 <= $7 {print "in-rto"}' "$out/faults.tsv")" "in-rto" "canary-qemu: recovered inside the RTO"
is "$(awk -F'\t' '$4 == "F08"{print $6" "$8}' "$out/operations.tsv")" "expected_fault system_reset" "canary-qemu: the reset is an expected fault"
# ground truth: the guest's own serial port, two boots with the same marker
boots=$(grep -ho 'canary-boot [0-9]* marker=[0-9a-f]*' "$out"/logs/*canary-rebooted*.log | sort -u)
is "$(echo "$boots" | awk '{print $2}' | paste -sd,)" "1,2" "guest: booted twice (serial port)"
is "$(echo "$boots" | awk '{print $3}' | sort -u | wc -l)" "1" "guest: the second boot read the first boot's marker from its disk"
is "$(jq -r '.resources | length' "$out/inventory-final.json")" "0" "canary-qemu: the final inventory is empty (no VM, disk or socket)"
check_nothing_left "$out"
nothing_of_vm "$out"

# ---- negative control: the state lost across the reboot
wait "$p_lost"
rc=$?
out=$tmp/lost.out
isnt "$rc" "0" "lost state: verify rejects the bundle"
is "$(awk '$2 == "faults.recovered"{print $1}' "$out/verify.out")" "FAIL" "lost state: the faults.recovered gate fails"
like "$(awk -F'\t' 'NR>1{print $2" "$8}' "$out/faults.tsv")" 'state:before=1,after=1,differ vm:same-process fail$' "lost state: the record fails, naming the state"
is "$(awk -F'\t' '$4 == "canary-rebooted"{print $6}' "$out/operations.tsv")" "ok" "lost state: although the guest booted again (the workload's own check)"
boots=$(grep -ho 'canary-boot [0-9]* marker=[0-9a-f]*' "$out"/logs/*canary-rebooted*.log | sort -u)
is "$(echo "$boots" | awk '{print $3}' | sort -u | wc -l)" "2" "guest: two different markers (serial port)"
check_nothing_left "$out"
nothing_of_vm "$out"
done_testing
