/* The seccomp filter of a strict lane: allow by default; refuse with EPERM
 * the syscalls an agent sandbox never needs and that widen the kernel's
 * attack surface, plus whatever the doctor's profile demands be refused
 * (its seccomp.deny list, read from the catalogue). clone is refused only
 * when it asks for a new namespace (fork must work), clone3 with ENOSYS (libc
 * falls back to clone, whose flags the filter can see). Only the native ABI
 * is allowed: 32-bit and x32 syscalls are refused by architecture. bwrap takes
 * the filter as BPF (generated with libseccomp), runc and podman as the OCI
 * linux.seccomp JSON. */
#include <errno.h>
#include <jansson.h>
#include <sched.h>
#include <seccomp.h>
#include <string.h>
#include <linux/filter.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "live/live.h"

const char *const sp_live_denied_syscalls[] = {
	"add_key", "bpf", "delete_module", "finit_module", "init_module", "kexec_file_load", "kexec_load", "keyctl",
	"open_by_handle_at", "perf_event_open", "request_key", "userfaultfd", "acct", "swapon", "swapoff", "reboot",
	"iopl", "ioperm", "mount", "umount2", "unshare", "setns", "pivot_root", "io_uring_setup", "io_uring_enter",
	"io_uring_register", "ptrace", "personality", "fsopen", "fsmount", "open_tree", "move_mount", NULL,
};

static const unsigned long ns_flags[] = {CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
					 CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWCGROUP};

/* every syscall to refuse outright: the base list and the profile's demands */
void sp_seccomp_deny_list(const sp_live_cfg *cfg, sp_strv *out)
{
	sp_strv_split(out, NULL, ",");
	for (const char *const *s = sp_live_denied_syscalls; *s; s++)
		sp_strv_push(out, *s);
	for (size_t i = 0; cfg && i < cfg->seccomp_deny.n; i++) {
		const char *s = cfg->seccomp_deny.v[i];
		if (strcmp(s, "clone") && strcmp(s, "clone3") && !sp_strv_contains(out, s))
			sp_strv_push(out, s);
	}
}

char *sp_seccomp_deny_arg(const sp_live_cfg *cfg, const char *prefix, const char *sep)
{
	sp_strv deny;
	sp_seccomp_deny_list(cfg, &deny);
	size_t len = strlen(prefix) + 1;
	for (size_t i = 0; i < deny.n; i++)
		len += strlen(deny.v[i]) + strlen(sep);
	char *arg = sp_xmalloc(len);
	char *w = arg + snprintf(arg, len, "%s", prefix);
	for (size_t i = 0; i < deny.n; i++)
		w += snprintf(w, len - (size_t)(w - arg), "%s%s", i ? sep : "", deny.v[i]);
	sp_strv_free(&deny);
	return arg;
}

/* the lane's filter in libseccomp: the deny list but the syscalls named in keep (NULL: none kept);
 * clone refused with any namespace flag, or (newuser_only) with CLONE_NEWUSER alone */
static scmp_filter_ctx build_filter(const sp_live_cfg *cfg, const char *const *keep, bool newuser_only, sp_error *err)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		sp_fail_errno(err, ENOMEM, "seccomp_init");
		return NULL;
	}
	int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(EPERM));
	sp_strv deny;
	sp_seccomp_deny_list(cfg, &deny);
	for (size_t i = 0; i < deny.n && rc == 0; i++) {
		bool kept = false;
		for (const char *const *k = keep; k && *k && !kept; k++)
			kept = !strcmp(*k, deny.v[i]);
		int nr = seccomp_syscall_resolve_name(deny.v[i]);
		if (kept || nr == __NR_SCMP_ERROR)
			continue; /* kept, or not on this architecture */
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
	}
	sp_strv_free(&deny);
	for (size_t i = 0; i < SP_ARRAY_SIZE(ns_flags) && rc == 0; i++)
		if (!newuser_only || ns_flags[i] == CLONE_NEWUSER)
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
					      SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i]));
	int nr3 = seccomp_syscall_resolve_name("clone3");
	if (rc == 0 && nr3 != __NR_SCMP_ERROR)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr3, 0);
	if (rc < 0) {
		seccomp_release(ctx);
		sp_fail_errno(err, -rc, "seccomp_rule_add");
		return NULL;
	}
	return ctx;
}

static int export_fd(scmp_filter_ctx ctx, sp_error *err)
{
	/* no CLOEXEC: bwrap reads it as --seccomp FD */
	int fd = memfd_create("sandprobe-seccomp", 0);
	if (fd < 0) {
		seccomp_release(ctx);
		return sp_fail_errno(err, errno, "memfd_create");
	}
	int rc = seccomp_export_bpf(ctx, fd);
	seccomp_release(ctx);
	if (rc < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return sp_fail_errno(err, rc < 0 ? -rc : errno, "seccomp_export_bpf");
	}
	return fd;
}

int sp_seccomp_bpf_fd(const sp_live_cfg *cfg, sp_error *err)
{
	scmp_filter_ctx ctx = build_filter(cfg, NULL, false, err);
	return ctx ? export_fd(ctx, err) : -1;
}

void *sp_seccomp_prefilter(const sp_live_cfg *cfg, const char *const *keep, sp_error *err)
{
	scmp_filter_ctx ctx = build_filter(cfg, keep, true, err);
	if (!ctx)
		return NULL;
	_cleanup_close_ int fd = export_fd(ctx, err);
	if (fd < 0)
		return NULL;
	off_t len = lseek(fd, 0, SEEK_END);
	if (len <= 0 || len % (off_t)sizeof(struct sock_filter) || len > 65536 || lseek(fd, 0, SEEK_SET) < 0) {
		sp_fail_errno(err, EINVAL, "seccomp filter of %lld bytes", (long long)len);
		return NULL;
	}
	struct sock_fprog *prog = sp_xcalloc(1, sizeof *prog + (size_t)len);
	prog->filter = (struct sock_filter *)(prog + 1);
	prog->len = (unsigned short)((size_t)len / sizeof(struct sock_filter));
	if (read(fd, prog->filter, (size_t)len) != (ssize_t)len) {
		free(prog);
		sp_fail_errno(err, errno ? errno : EIO, "read the seccomp filter");
		return NULL;
	}
	return prog;
}

void *sp_seccomp_oci(const sp_live_cfg *cfg)
{
	sp_strv deny;
	sp_seccomp_deny_list(cfg, &deny);
	json_t *names = json_array();
	for (size_t i = 0; i < deny.n; i++)
		json_array_append_new(names, json_string(deny.v[i]));
	sp_strv_free(&deny);
	json_t *syscalls = json_array();
	json_array_append_new(syscalls, json_pack("{s:o,s:s,s:i}", "names", names, "action", "SCMP_ACT_ERRNO", "errnoRet", EPERM));
	for (size_t i = 0; i < SP_ARRAY_SIZE(ns_flags); i++)
		json_array_append_new(syscalls, json_pack("{s:[s],s:s,s:i,s:[{s:i,s:I,s:I,s:s}]}", "names", "clone", "action",
							  "SCMP_ACT_ERRNO", "errnoRet", EPERM, "args", "index", 0, "value",
							  (json_int_t)ns_flags[i], "valueTwo", (json_int_t)ns_flags[i], "op",
							  "SCMP_CMP_MASKED_EQ"));
	json_array_append_new(syscalls, json_pack("{s:[s],s:s,s:i}", "names", "clone3", "action", "SCMP_ACT_ERRNO",
						  "errnoRet", ENOSYS));
	/* only the native architecture: the i386 and x32 ABIs are refused */
	return json_pack("{s:s,s:[s],s:o}", "defaultAction", "SCMP_ACT_ALLOW", "architectures", "SCMP_ARCH_X86_64",
			 "syscalls", syscalls);
}
