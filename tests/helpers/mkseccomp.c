/* Test helper: write a seccomp BPF program (as bwrap --seccomp reads it) to
 * stdout. Default allow; the syscalls a sandbox commonly refuses return
 * EPERM (or kill with --kill). Used to build sandboxes that have a filter. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const denied[] = {
	"mount", "umount2", "unshare", "setns", "keyctl", "add_key", "request_key", "bpf", "perf_event_open",
	"userfaultfd", "io_uring_setup", "kexec_load", "kexec_file_load", "init_module", "finit_module",
	"delete_module", "open_by_handle_at", "ptrace", "personality", "pivot_root", "chroot", "swapon",
	"swapoff", "reboot", "syslog", "acct", "quotactl", "lookup_dcookie", "name_to_handle_at",
};

int main(int argc, char **argv)
{
	int kill = argc > 1 && !strcmp(argv[1], "--kill");
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return 1;
	seccomp_arch_add(ctx, SCMP_ARCH_X86);
	seccomp_arch_add(ctx, SCMP_ARCH_X32);
	for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) {
		int nr = seccomp_syscall_resolve_name(denied[i]);
		if (nr == __NR_SCMP_ERROR)
			continue;
		if (seccomp_rule_add(ctx, kill ? SCMP_ACT_KILL_PROCESS : SCMP_ACT_ERRNO(EPERM), nr, 0) < 0) {
			fprintf(stderr, "mkseccomp: cannot add %s\n", denied[i]);
			return 1;
		}
	}
	if (seccomp_export_bpf(ctx, STDOUT_FILENO) < 0)
		return 1;
	seccomp_release(ctx);
	return 0;
}
