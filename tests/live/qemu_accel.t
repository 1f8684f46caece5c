#!/usr/bin/env bash
# qemu lanes: the accelerator is detected and reported, and a KVM that passes
# its probe but does not boot the guest is caught by the boot watchdog and
# the lane falls back to software emulation (TCG), saying why. On this kind
# of host (/dev/kvm whose CPUID lacks the x86-64 baseline) the probe itself
# already says KVM is not usable; SP_LIVE_ASSUME_KVM=1 skips that verdict so
# the watchdog path runs for real.
. "$(dirname "$0")/../lib/tap.sh"
need_root
need qemu-system-x86_64
need jq
ls /boot/vmlinuz-* >/dev/null 2>&1 || skip_all "no kernel in /boot (apt-get install linux-image-amd64)"
DOCTOR=$SP_DOCTOR
[ "${SP_SAN:-0}" = 1 ] && DOCTOR=$SP_ROOT/build/sandprobe-doctor
tmp=$(sp_tmpdir)

"$SP_BIN" live --runtime qemu --doctor "$DOCTOR" --format json >"$tmp/auto.json"
is "$?" 0 "qemu strict lane passes with the detected accelerator"
usable=$(jq -r .platform.kvm.usable "$tmp/auto.json")
accel=$(jq -r '.lanes[0].results[] | select(.id == "host.vm.accel") | .observed' "$tmp/auto.json")
if [ "$usable" = true ]; then
	like "$accel" '^kvm' "KVM usable: the lane ran under KVM"
else
	like "$accel" '^tcg \(software emulation: .+\)' "KVM not usable: TCG, with the probe's reason ($accel)"
fi
isnt "$(jq -r .platform.kvm.reason "$tmp/auto.json")" "" "platform names why KVM is (not) usable"

if [ -w /dev/kvm ] && [ "$usable" != true ]; then
	SP_LIVE_ASSUME_KVM=1 SP_LIVE_KVM_WATCHDOG_MS=4000 "$SP_BIN" live --runtime qemu --doctor "$DOCTOR" --format json >"$tmp/fb.json"
	is "$?" 0 "KVM that does not boot: the lane still passes"
	like "$(jq -r '.lanes[0].results[] | select(.id == "host.vm.accel") | .observed' "$tmp/fb.json")" \
		'^tcg \(KVM passed its probe, but the guest printed nothing in 4000 ms' "fell back to TCG and says why"
	is "$(jq -r '.lanes[0].results[] | select(.id == "host.vm.kernel") | .status' "$tmp/fb.json")" pass \
		"the report still comes from the booted guest kernel"
else
	skip "no unusable /dev/kvm to exercise the fallback"
	skip "no unusable /dev/kvm"
	skip "no unusable /dev/kvm"
fi
"$SP_BIN" live --runtime qemu --accel tcg --doctor "$DOCTOR" --variant writable-root --format json >"$tmp/wr.json"
is "$?" 0 "writable-root control under TCG fails as it must (exit 0)"
is "$(jq -r '.lanes[0].results[] | select(.id == "fs.rootfs_readonly") | .status' "$tmp/wr.json")" fail \
	"the guest's root accepted a write"
# the lanes' own dirs (other engineers' lanes may run on this machine at the same time)
is "$(for j in "$tmp"/*.json; do jq -r '.lanes[] | select(.dir) | .dir' "$j"; done | while read -r d; do [ -e "$d" ] && echo "$d"; done)" "" \
	"no lane temp dir left"
done_testing
