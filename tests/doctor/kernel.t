#!/usr/bin/env bash
# Kernel hardening. Passing sandbox: the strict box (nobody, no capabilities,
# own network namespace, user namespaces disabled). Failing sandboxes: real
# root with every capability (kallsyms addresses, debugfs mountable, kernel
# log readable), a shared network namespace under a no-IPv6 policy, a box
# that may create user namespaces.
# Sysctls are global to the host: a sandbox cannot change them, so each
# sysctl check is made to fail by a policy that demands more than this host
# provides, and to pass by one that demands what it has.
# Cannot fail on a kernel without module support or /proc/kcore (this
# machine: init_module is ENOSYS, /proc/modules and /proc/kcore absent):
# kernel.modules, kernel.proc_modules, kernel.kcore are then asserted as pass
# in the root box, and as fail where the kernel has them. Cannot fail here
# at all (asserted as pass): kernel.devmem (no /dev/mem driver: ENXIO even on a
# node made with mknod), kernel.kcore (no /proc/kcore), kernel.swap (no swap,
# and turning it on would change the host), kernel.unprivileged_userfaultfd
# (the sysctl is 0; raising it would change the host).
. "$(dirname "$0")/lib.sh"

val() { cat "/proc/sys/$1" 2>/dev/null || echo absent; }

run_json strict strict_box -- -k kernel --set kernel.ipv6_allowed=false
for id in kernel.modules kernel.proc_modules kernel.kallsyms kernel.debugfs kernel.devmem kernel.kcore kernel.dmesg \
	kernel.swap kernel.ipv6 kernel.userns kernel.unprivileged_userfaultfd kernel.cmdline; do
	is_status strict $id pass
done

run_json root root_box -- -k kernel
is_status root kernel.kallsyms fail
is_status root kernel.debugfs fail
# nowhere to try the mount (every scratch place read-only; ground truth: touch refused in each):
# "not mountable" would rest on nothing, so no pass
ro_box() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- bwrap --unshare-all --unshare-user --die-with-parent \
		--cap-drop ALL --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$CAT/doctor" $D \
		--remount-ro /tmp --remount-ro /dev "$@"
}
is "$(ro_box sh -c 'n=0; for d in /tmp /dev/shm /var/tmp /run; do touch $d/.sp 2>/dev/null && n=$((n + 1)); done; echo $n')" 0 \
	"truth: no writable place in the read-only box"
run_json rodbg ro_box $D --profile strict --format json -k kernel.debugfs
is_status rodbg kernel.debugfs skip
is_status root kernel.dmesg fail
for id in kernel.devmem kernel.swap; do is_status root $id pass; done
# with module support, real root reaches the module loader and reads /proc/modules
if have_modules; then want=fail; else want=pass; fi
is_status root kernel.modules $want
is_status root kernel.proc_modules $want
if [ -e /proc/kcore ]; then is_status root kernel.kcore fail; else is_status root kernel.kcore pass; fi

run_json sharednet setpriv --reuid=65534 --regid=65534 --clear-groups -- bwrap --unshare-pid --die-with-parent \
	--ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$CAT/doctor" $D \
	$D --profile strict --format json -k kernel.ipv6 --set kernel.ipv6_allowed=false
if grep -qv " lo$" /proc/net/if_inet6; then
	is_status sharednet kernel.ipv6 fail
else
	skip "host has no IPv6 address"
fi

run_json userns setpriv --reuid=65534 --regid=65534 --clear-groups -- bwrap --unshare-all --die-with-parent \
	--ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$CAT/doctor" $D \
	$D --profile strict --format json -k kernel.userns
is_status userns kernel.userns fail

# sysctl thresholds: what the host has passes, one more fails
sysctl_pair() { # ID KEY FILE
	local v
	v=$(val "$3")
	[ "$v" = absent ] && v=0
	run_json "$1-have" strict_box -- -k "$1" --set "$2=$v" --set "expect.$1=required"
	is_status "$1-have" "$1" pass
	run_json "$1-more" strict_box -- -k "$1" --set "$2=$((v + 1))" --set "expect.$1=required"
	is_status "$1-more" "$1" fail
}
sysctl_pair kernel.unprivileged_bpf kernel.unprivileged_bpf_disabled_min kernel/unprivileged_bpf_disabled
sysctl_pair kernel.perf_event_paranoid kernel.perf_event_paranoid_min kernel/perf_event_paranoid
sysctl_pair kernel.ptrace_scope kernel.ptrace_scope_min kernel/yama/ptrace_scope
sysctl_pair kernel.kptr_restrict kernel.kptr_restrict_min kernel/kptr_restrict
sysctl_pair kernel.dmesg_restrict kernel.dmesg_restrict_min kernel/dmesg_restrict
# under the strict profile these are advisory: a shortfall warns
run_json advisory strict_box -- -k kernel.kptr_restrict --set "kernel.kptr_restrict_min=$(($(val kernel/kptr_restrict) + 1))"
is_status advisory kernel.kptr_restrict warn

FLAG=$(tr ' ' '\n' </proc/cmdline | grep -v '=' | grep -v -- '--' | head -1)
run_json cmdline-have strict_box -- -k kernel.cmdline --set "kernel.cmdline=$FLAG"
is_status cmdline-have kernel.cmdline pass
run_json cmdline-missing strict_box -- -k kernel.cmdline --set kernel.cmdline=sandprobe_no_such_flag
is_status cmdline-missing kernel.cmdline fail

# the userfaultfd sysctl hidden (as on kernels before 5.2): judged by the call. As
# nobody the kernel refuses it (ground truth: python3 calling the syscall gets EPERM
# or ENOSYS) and that passes; as root with CAP_SYS_PTRACE nothing is proven: no pass
UFFD='import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.syscall(323, os.O_CLOEXEC)
print("created" if fd >= 0 else os.strerror(ctypes.get_errno()))'
if [ "$(uname -m)" = x86_64 ] && [ "$(cat /proc/sys/vm/unprivileged_userfaultfd 2>/dev/null)" = 0 ]; then
	like "$(setpriv --reuid=65534 --regid=65534 --clear-groups -- /usr/bin/python3 -c "$UFFD")" \
		"Operation not permitted|Function not implemented" "ground truth: nobody cannot create a userfaultfd"
	run_json uffdhidden strict_box --tmpfs /proc/sys/vm -- -k kernel.unprivileged_userfaultfd
	is_status uffdhidden kernel.unprivileged_userfaultfd pass
	run_json uffdroot bwrap --unshare-pid --die-with-parent --cap-add ALL --ro-bind / / --proc /proc \
		--tmpfs /proc/sys/vm --dev /dev --tmpfs /tmp --ro-bind "$CAT/doctor" $D \
		$D --profile strict --format json -k kernel.unprivileged_userfaultfd
	isnt "$(st uffdroot kernel.unprivileged_userfaultfd)" pass "with CAP_SYS_PTRACE and no sysctl: no pass"
else
	skip "userfaultfd sysctl test needs x86_64 and vm.unprivileged_userfaultfd = 0"
fi
done_testing
