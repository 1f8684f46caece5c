#!/usr/bin/env bash
# Seccomp and LSM. Passing sandbox: the strict box with a real filter loaded
# by bwrap --seccomp (mkseccomp: EPERM, and a SIGSYS-killing variant).
# Failing sandbox: the same box without a filter, where every probe reaches
# the kernel; and a filter without the i386/x32 ABIs (int 0x80 bypass).
# Cannot fail on this machine:
#  - seccomp.kexec_load, seccomp.init_module, seccomp.finit_module: this kernel
#    has neither kexec nor module support, so the calls return ENOSYS even
#    without a filter (reported "unavailable", which is a pass)
#  - seccomp.abix32: the kernel lacks the x32 ABI (ENOSYS without a filter)
#  - lsm.label: no AppArmor or SELinux in this kernel; only its failing side
#    (lsm.required=true) is asserted
. "$(dirname "$0")/lib.sh"

SYSCALLS="mount umount2 unshare clone clone3 setns keyctl add_key request_key bpf perf_event_open userfaultfd
io_uring_setup ptrace open_by_handle_at personality"
NOKERNEL="kexec_load init_module finit_module"

run_json strict strict_box -- -k seccomp
is_status strict seccomp.mode pass
for s in $SYSCALLS $NOKERNEL abi32 abix32; do is_status strict seccomp.$s pass; done
like "$(detail strict seccomp.mount)" "EPERM from the filter" "mount refusal attributed to the filter"

STRICT_FILTER=$CAT/filter-kill run_json kill strict_box -- -k seccomp
for s in $SYSCALLS abi32; do is_status kill seccomp.$s pass; done
like "$(detail kill seccomp.bpf)" "SIGSYS" "a SIGSYS kill counts as blocked"

run_json nofilter nofilter_box -- -k seccomp
is_status nofilter seccomp.mode fail
for s in $SYSCALLS abi32; do is_status nofilter seccomp.$s fail; done
# without kexec/module support the calls are ENOSYS even unfiltered ("unavailable": pass)
have_kexec && want=fail || want=pass
is_status nofilter seccomp.kexec_load $want
have_modules && want=fail || want=pass
is_status nofilter seccomp.init_module $want
is_status nofilter seccomp.finit_module $want
is_status nofilter seccomp.abix32 pass
like "$(detail nofilter seccomp.mount)" "EFAULT: reached the kernel" \
	"without a filter, mount(NULL...) fails in the kernel's argument check, not with EPERM"

# a filter that leaves the 32-bit ABI open, and one that omits ptrace
STRICT_FILTER=$CAT/filter-native run_json native strict_box -- -k seccomp
is_status native seccomp.abi32 fail
is_status native seccomp.mount pass
"$SP_HELPERS/mkseccomp" --omit ptrace,bpf >"$CAT/filter-omit"
STRICT_FILTER=$CAT/filter-omit run_json omit strict_box -- -k seccomp
is_status omit seccomp.ptrace fail
is_status omit seccomp.bpf fail
is_status omit seccomp.keyctl pass

# LSM: no AppArmor/SELinux here
run_json lsm strict_box -- -k lsm.label --set lsm.required=true
is_status lsm lsm.label fail

# Landlock: a domain that hides /etc (allows only what the doctor needs)
run_json landlock "$SP_HELPERS/landlock-exec" /usr:/tmp:/proc:/dev:/sys:"$CAT" "$CAT/doctor" --profile strict \
	--format json -k lsm.landlock --set lsm.landlock=true --set lsm.landlock_hidden=/etc/hostname
is_status landlock lsm.landlock pass
run_json nolandlock "$CAT/doctor" --profile strict --format json -k lsm.landlock --set lsm.landlock=true \
	--set lsm.landlock_hidden=/etc/hostname
is_status nolandlock lsm.landlock fail
# a hidden path whose own mode refuses the uid (0600 root, read by nobody), no Landlock:
# the EACCES proves nothing about a domain (ground truth: nobody's cat is refused too)
printf x >"$CAT/rootonly" && chmod 600 "$CAT/rootonly"
TAP_NAME="truth: nobody cannot read the 0600 file" ok eval '! setpriv --reuid=65534 --regid=65534 --clear-groups cat "$CAT/rootonly" >/dev/null 2>&1'
run_json modeonly setpriv --reuid=65534 --regid=65534 --clear-groups -- "$CAT/doctor" --profile strict --format json \
	-k lsm.landlock --set lsm.landlock=true --set "lsm.landlock_hidden=$CAT/rootonly"
is_status modeonly lsm.landlock skip
like "$(detail modeonly lsm.landlock)" "its mode refuses this uid anyway" "the mode-only refusal is named"
done_testing
