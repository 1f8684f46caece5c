/* Test helper: write a seccomp BPF program (as bwrap --seccomp reads it) to
 * stdout. Default allow; the syscalls a sandbox commonly refuses return
 * EPERM (or kill with --kill); clone is refused only with namespace flags,
 * clone3 returns ENOSYS (its flags cannot be inspected).
 *   mkseccomp [--kill] [--native-only] [--omit NAME,NAME...]
 * --omit leaves syscalls out (a deliberately weakened filter);
 * --native-only does not add the i386/x32 ABIs (bad-arch calls are allowed);
 * --kill-only NAME,... builds a filter that kills those syscalls only. */
#include <errno.h>
#include <sched.h>
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

static int omitted(const char *omit, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = omit; p && *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && !strncmp(p, name, n))
			return 1;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int kill = 0, native = 0;
	const char *omit = "", *only = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--kill"))
			kill = 1;
		else if (!strcmp(argv[i], "--native-only"))
			native = 1;
		else if (!strcmp(argv[i], "--omit") && i + 1 < argc)
			omit = argv[++i];
		else if (!strcmp(argv[i], "--kill-only") && i + 1 < argc)
			only = argv[++i];
		else {
			fprintf(stderr, "usage: mkseccomp [--kill] [--native-only] [--omit NAME,...] [--kill-only NAME,...]\n");
			return 2;
		}
	}
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return 1;
	if (!native) {
		seccomp_arch_add(ctx, SCMP_ARCH_X86);
		seccomp_arch_add(ctx, SCMP_ARCH_X32);
	} else {
		/* calls from other ABIs are allowed: the weakness seccomp.abi32 finds */
		seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
	}
	if (only) {
		/* a filter that kills exactly the named syscalls, nothing else */
		char buf[512];
		snprintf(buf, sizeof buf, "%s", only);
		for (char *save = NULL, *n = strtok_r(buf, ",", &save); n; n = strtok_r(NULL, ",", &save)) {
			int nr = seccomp_syscall_resolve_name(n);
			if (nr == __NR_SCMP_ERROR || seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, nr, 0) < 0) {
				fprintf(stderr, "mkseccomp: cannot add %s\n", n);
				return 1;
			}
		}
		if (seccomp_export_bpf(ctx, STDOUT_FILENO) < 0)
			return 1;
		seccomp_release(ctx);
		return 0;
	}
	uint32_t act = kill ? SCMP_ACT_KILL_PROCESS : SCMP_ACT_ERRNO(EPERM);
	for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) {
		if (omitted(omit, denied[i]))
			continue;
		int nr = seccomp_syscall_resolve_name(denied[i]);
		if (nr == __NR_SCMP_ERROR)
			continue;
		if (seccomp_rule_add(ctx, act, nr, 0) < 0) {
			fprintf(stderr, "mkseccomp: cannot add %s\n", denied[i]);
			return 1;
		}
	}
	if (!omitted(omit, "clone") &&
	    seccomp_rule_add(ctx, act, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) < 0) {
		fprintf(stderr, "mkseccomp: cannot add clone\n");
		return 1;
	}
	if (!omitted(omit, "clone3") && seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) < 0) {
		fprintf(stderr, "mkseccomp: cannot add clone3\n");
		return 1;
	}
	if (seccomp_export_bpf(ctx, STDOUT_FILENO) < 0)
		return 1;
	seccomp_release(ctx);
	return 0;
}
