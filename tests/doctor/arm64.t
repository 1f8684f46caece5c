#!/usr/bin/env bash
# The aarch64 doctor (make doctor-arm64: build-arm64/sandprobe-doctor) under
# qemu-user (qemu-aarch64-static, run explicitly, no binfmt registration)
# against the x86_64 doctor, in the same bwrap boxes of lib.sh: the strict
# box (must PASS), the same box without its seccomp filter and the root box
# (weakened: must FAIL). Every check's status must be the same for both
# builds, except these, whose arm64 result is a skip saying why:
#  - arch-dependent: seccomp.abi32 and seccomp.abix32 probe the i386 and x32
#    ABIs, which exist only on x86_64 (arm64's compat ABI, AArch32, needs a
#    32-bit ARM executable and is not probed)
#  - cannot run under user-mode emulation (SP_CHECK_NOEMU): the emulator,
#    not the kernel, answers what they judge. Measured with qemu 7.2: ptrace,
#    clone3, bpf, keyctl, add_key, request_key, perf_event_open, userfaultfd,
#    io_uring_setup, init_module return ENOSYS from qemu whatever the sandbox allows (a
#    false PASS); clone with namespace flags and mount/open_by_handle_at are
#    refused or translated by qemu (false FAIL in the strict box); the
#    caps.sys_ptrace and caps.sys_time probes hang or abort qemu's child;
#    kernel.userns saw "refused" in the root box that can create one;
#    wf.fork_exec cannot exec /proc/self/exe (qemu's own binary).
# Ground truth for the negative control: CapEff read in the same box by sh.
. "$(dirname "$0")/lib.sh"
# the arm64 doctor is one build (no sanitizer build of it), and the x86_64
# doctor it is compared with is the normal static one: the normal run says it all
[ "${SP_SAN:-0}" = 1 ] && skip_na "the arm64 doctor has no sanitizer build: compared in the normal run"
need qemu-aarch64-static "qemu-aarch64-static not installed (qemu-user-static, tools/deps.sh --cross arm64)"
need file
ARM=$SP_ROOT/build-arm64/sandprobe-doctor
[ -x "$ARM" ] || skip_all "build-arm64/sandprobe-doctor missing (run make doctor-arm64)"
QEMU=$(command -v qemu-aarch64-static)

desc=$(file -b "$ARM")
like "$desc" "ARM aarch64" "the arm64 doctor is an aarch64 ELF ($desc)"
like "$desc" "static" "the arm64 doctor is statically linked"
unlike "$desc" "interpreter" "the arm64 doctor has no ELF interpreter"
size=$(stat -c %s "$ARM")
TAP_NAME="the arm64 doctor is at most 2.5 MiB ($size bytes)" ok test "$size" -le 2621440

NOEMU="caps.sys_ptrace caps.sys_time caps.sys_module kernel.userns wf.fork_exec"
for s in mount umount2 unshare clone clone3 setns keyctl add_key request_key bpf perf_event_open userfaultfd \
	io_uring_setup ptrace kexec_load init_module finit_module open_by_handle_at personality; do
	NOEMU="$NOEMU seccomp.$s"
done
ARCHDEP="seccomp.abi32 seccomp.abix32"

cp "$ARM" "$CAT/doctor-arm64"
chmod 755 "$CAT/doctor-arm64"
x86() { DOCTOR_BIN=$CAT/doctor; RUNNER=(); "$@"; }
arm() { DOCTOR_BIN=$CAT/doctor-arm64; RUNNER=("$QEMU"); "$@"; }

# id<TAB>status<TAB>detail, sorted
table() { jq -r '.results[] | "\(.id)\t\(.status)\t\(.detail)"' <"$CAT/$1.json" | sort; }

compare() { # BOX
	local box=$1 id xs as ad bad=0 n=0 emu=0
	while IFS=$'\t' read -r id xs _; do
		n=$((n + 1))
		as=$(st "arm-$box" "$id")
		ad=$(jq -r --arg id "$id" '.results[] | select(.id == $id) | .detail' <"$CAT/arm-$box.json")
		if [[ " $ARCHDEP " == *" $id "* ]]; then
			[ "$as" = skip ] || { bad=1; echo "# $box: $id arch-dependent but arm64 says $as: $ad"; }
		elif [[ " $NOEMU " == *" $id "* ]]; then
			emu=$((emu + 1))
			if [ "$as" != skip ] || [[ "$ad" != *"cannot run under user-mode emulation"*"$QEMU"* ]]; then
				bad=1
				echo "# $box: $id should skip under emulation naming $QEMU, got $as: $ad"
			fi
		elif [ "$as" != "$xs" ]; then
			bad=1
			echo "# $box: $id x86_64 $xs, arm64 ${as:-missing}: $ad"
		fi
	done < <(table "x86-$box")
	_tap_result $bad "$box: $n checks, arm64 equals x86_64 on all but the listed exceptions ($emu skipped under emulation)"
	is "$(jq '.results | length' <"$CAT/arm-$box.json")" "$n" "$box: both doctors ran the same number of checks"
}

for box in strict_box nofilter_box root_box; do
	run_json "x86-$box" x86 $box -- || continue
	run_json "arm-$box" arm $box -- || continue
	compare $box
done

# the native doctor is not emulated: its NOEMU checks ran
for id in seccomp.mount kernel.userns caps.sys_ptrace wf.fork_exec; do
	isnt "$(st x86-strict_box $id)" skip "x86_64 doctor ran $id natively"
done
unlike "$(jq -r '.results[].detail' <"$CAT/x86-strict_box.json")" "user-mode emulation" \
	"x86_64 doctor never claims emulation"

# negative control: the root box has CAP_SYS_ADMIN (bit 21, read by sh in the
# same box), the strict box none; both doctors judge caps.sys_admin the same
capeff() { $1 -- 2>/dev/null | awk '/^CapEff:/ {print $2}'; }
RUNNER=(/bin/sh -c 'grep CapEff /proc/self/status' sh)
DOCTOR_BIN=$CAT/doctor
root_caps=$(capeff root_box)
strict_caps=$(capeff strict_box)
RUNNER=()
TAP_NAME="root box: CAP_SYS_ADMIN effective (ground truth, CapEff $root_caps)" ok test $((0x${root_caps:-0} >> 21 & 1)) = 1
is "$strict_caps" 0000000000000000 "strict box: no capabilities (ground truth)"
is_status x86-root_box caps.sys_admin fail
is_status arm-root_box caps.sys_admin fail
is_status x86-strict_box caps.sys_admin pass
is_status arm-strict_box caps.sys_admin pass
# the weakened boxes fail the same checks on both builds, and some at all
fails() { jq -r '.results[] | select(.status == "fail") | .id' <"$CAT/$1.json" | sort | tr '\n' ' '; }
xf=$(fails x86-root_box)
af=$(fails arm-root_box)
isnt "$af" "" "the arm64 doctor fails checks in the root box ($af)"
for id in $NOEMU $ARCHDEP; do xf=${xf/"$id "/}; done
is "$af" "$xf" "root box: same failing checks on both builds (exceptions aside)"
done_testing
