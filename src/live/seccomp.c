/* The seccomp filter of a strict lane: allow by default, refuse with EPERM
 * the syscalls an agent sandbox never needs and that widen the kernel's
 * attack surface. bwrap takes it as BPF (generated with libseccomp), runc
 * and podman as the OCI linux.seccomp JSON. */
#include <errno.h>
#include <jansson.h>
#include <seccomp.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "live/live.h"

const char *const sp_live_denied_syscalls[] = {
	"add_key", "bpf", "delete_module", "finit_module", "init_module", "kexec_file_load", "kexec_load", "keyctl",
	"open_by_handle_at", "perf_event_open", "request_key", "userfaultfd", "acct", "swapon", "swapoff", "reboot",
	"iopl", "ioperm", NULL,
};

int sp_seccomp_bpf_fd(sp_error *err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return sp_fail_errno(err, ENOMEM, "seccomp_init");
	int rc = 0;
	for (const char *const *s = sp_live_denied_syscalls; *s && rc == 0; s++) {
		int nr = seccomp_syscall_resolve_name(*s);
		if (nr == __NR_SCMP_ERROR)
			continue; /* not on this architecture */
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
	}
	if (rc < 0) {
		seccomp_release(ctx);
		return sp_fail_errno(err, -rc, "seccomp_rule_add");
	}
	/* no CLOEXEC: bwrap reads it as --seccomp FD */
	int fd = memfd_create("sandprobe-seccomp", 0);
	if (fd < 0) {
		seccomp_release(ctx);
		return sp_fail_errno(err, errno, "memfd_create");
	}
	rc = seccomp_export_bpf(ctx, fd);
	seccomp_release(ctx);
	if (rc < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return sp_fail_errno(err, rc < 0 ? -rc : errno, "seccomp_export_bpf");
	}
	return fd;
}

void *sp_seccomp_oci(void)
{
	json_t *names = json_array();
	for (const char *const *s = sp_live_denied_syscalls; *s; s++)
		json_array_append_new(names, json_string(*s));
	return json_pack("{s:s,s:[s,s],s:[{s:o,s:s,s:i}]}", "defaultAction", "SCMP_ACT_ALLOW", "architectures",
			 "SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "syscalls", "names", names, "action", "SCMP_ACT_ERRNO",
			 "errnoRet", EPERM);
}
