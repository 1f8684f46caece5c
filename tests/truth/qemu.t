#!/usr/bin/env bash
# Ground truth in the qemu microVM lane: a guest kernel (the host's
# /boot/vmlinuz-*, software emulation here) boots an initramfs this test
# builds around busybox, the truth helper and the static doctor; /init
# mounts /proc, /sys, /dev, a tmpfs /tmp, makes / read-only and runs the
# cell script. The host sees no process of the guest, so every fact comes
# from the helper inside and from the VM's configuration (a guest kernel,
# no filesystem shared with the host). Under the shipped profiles a
# separate guest kernel satisfies what it provides (namespaces, seccomp,
# kernel knobs, capabilities over the guest's own files) and NoNewPrivs,
# which the guest's init does not set, still fails.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need qemu-system-x86_64 "qemu-system-x86 not installed"
need cpio
K=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)
[ -n "$K" ] || skip_all "no kernel in /boot (apt-get install linux-image-amd64)"
[ "$(uname -m)" = x86_64 ] || skip_na "the qemu cell is written for x86_64"

V=$TR/vm
mkdir -p "$V/bin" "$V/dev" "$V/proc" "$V/sys" "$V/tmp"
cp /bin/busybox "$V/bin/busybox" && ln -s busybox "$V/bin/sh"
cp "$TDOCTOR" "$V/doctor" && cp "$TRUTH" "$V/truth"
vm() {
	cat >"$V/init" <<EOF2
#!/bin/sh
export PATH=/bin HOME=/
busybox mount -t proc proc /proc
busybox mount -t sysfs sysfs /sys
busybox mount -t devtmpfs devtmpfs /dev
busybox mkdir -p /dev/pts /dev/shm
busybox mount -t devpts devpts /dev/pts
busybox mount -t tmpfs -o mode=1777,nosuid,nodev shm /dev/shm
busybox mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp
busybox mount -o remount,ro /
/bin/sh -c '$1' >/dev/ttyS0 2>&1
busybox reboot -f
EOF2
	chmod 755 "$V/init"
	(cd "$V" && find . | cpio -o -H newc 2>/dev/null) >"$TR/initramfs.cpio"
	timeout 600 qemu-system-x86_64 -accel tcg -M pc -m 256M -smp 1 -nodefaults -no-user-config -display none \
		-no-reboot -serial stdio -kernel "$K" -initrd "$TR/initramfs.cpio" \
		-append "console=ttyS0 quiet loglevel=1 panic=-1 rdinit=/init"
}
TRUTH_WAIT=6000 cell_inside qemu guest vm && assert_cell qemu
assert_boundary_verdicts qemu guest
expect_engine qemu "" qemu
is "$(fact qemu uname)" "$(basename "$K" | sed 's/^vmlinuz-//')" "truth: the report's kernel is the guest's ($(basename "$K"))"
is "$(jq -r '.environment.kernel_boundary.signals | index("sole-workload") != null' "$TR/qemu.strict.json")" true \
	"the guest is the doctor's alone (the boundary's proof)"
is "$(dstatus qemu strict priv.no_new_privs)" fail "what the boundary does not provide still fails: NoNewPrivs"
is "$(jq -r .result "$TR/qemu.strict.json")" fail "so the strict verdict is fail"
done_testing
