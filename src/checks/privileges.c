/* Privileges: capability sets and NoNewPrivs. Each value is read from two
 * sources (/proc/self/status and the syscall) which must agree, and the
 * effective set is proven by the operation one capability guards. Setuid
 * files, file capabilities and sudo: priv_files.c; runtime sockets:
 * priv_sockets.c. */
#include <errno.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <time.h>
#include <sys/wait.h>
#include <poll.h>
#include <sys/xattr.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <dirent.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <linux/fs.h>

#include "checks/probe.h"
#include "checks/runtime.h"
#include "core/emul.h"
#include "core/util.h"
#include "catalog/catalog.h"

/* Capabilities that act on files and identities. The sandbox shares files
 * with the host through its mounts (a gVisor gofer, a VM's shared folder
 * serves them with the host's permissions), so no separate kernel makes
 * these harmless; every other capability acts on the kernel's own objects. */
static uint64_t file_facing_caps(void)
{
	static const unsigned caps[] = {CAP_CHOWN,   CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER,
					CAP_FSETID,  CAP_SETUID,       CAP_SETGID,	    CAP_SETFCAP,
					CAP_LINUX_IMMUTABLE, CAP_LEASE};
	uint64_t m = 0;
	for (size_t i = 0; i < SP_ARRAY_SIZE(caps); i++)
		m |= 1ull << caps[i];
	return m;
}

/* Filesystem types through which a sandbox reaches files that live on the
 * host (or on other machines): file-facing capabilities act on those. */
static const char *const shared_fs[] = {"9p", "virtiofs", "nfs", "nfs4", "cifs", "smb3", "vboxsf", "vmhgfs",
					"ceph", "glusterfs", "fuse", "fuseblk", "fuse.sshfs"};

static int shared_fs_cb(const sp_mount *m, void *arg)
{
	char *where = arg;
	for (size_t i = 0; i < SP_ARRAY_SIZE(shared_fs); i++)
		if (!strcmp(m->fstype, shared_fs[i]) || (!strcmp(shared_fs[i], "fuse") && sp_startswith(m->fstype, "fuse."))) {
			snprintf(where, 160, "%s on %s", m->fstype, m->mountpoint);
			return 1;
		}
	return 0;
}

/* Are the files the sandbox can touch its own? Only behind a guest kernel
 * the policy accepts, with no mount of a filesystem served from outside
 * (a VM's virtiofs or 9p share, NFS ...). gVisor's own root is served by
 * its gofer from the host, so never there. o says which. */
static bool files_confined(const sp_ctx *ctx, sp_outcome *o)
{
	const sp_boundary *b = sp_boundary_get();
	if (b->kind != SP_KERNEL_GUEST || !sp_boundary_accepted(ctx, SP_CHECK_KERNEL_GUEST)) {
		sp_why(o, "the files are shared with the kernel's other users");
		return false;
	}
	char where[160] = "";
	if (sp_mountinfo_each(shared_fs_cb, where) < 0) {
		sp_why(o, "mountinfo unreadable");
		return false;
	}
	if (where[0]) {
		sp_why(o, "the guest mounts files from outside (%s)", where);
		return false;
	}
	sp_why(o, "a guest kernel (%s) with no filesystem shared from outside", b->kernel);
	return true;
}

/* A capability set, from /proc/self/status and, where the field is absent
 * (gVisor omits CapAmb) or to cross-check it, from the syscall that answers
 * the same question. Returns 0, or -1 with r set to error. */
enum capset_kind { SET_EFF, SET_PRM, SET_INH, SET_BND, SET_AMB };

static const char *const set_field[] = {"CapEff", "CapPrm", "CapInh", "CapBnd", "CapAmb"};

/* the syscall's view (how: which call answered); 0, or -1 with o (errnum:
 * the call's errno) */
static int syscall_caps(enum capset_kind k, uint64_t *out, char *how, size_t howsz, sp_outcome *o)
{
	*out = 0;
	if (k == SET_EFF || k == SET_PRM || k == SET_INH) {
		struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
		struct __user_cap_data_struct data[2];
		memset(data, 0, sizeof data);
		if (syscall(SYS_capget, &hdr, data) < 0)
			return sp_why_errno(o, errno, "capget: %s", strerror(errno));
		for (int i = 0; i < 2; i++) {
			uint32_t v = k == SET_EFF ? data[i].effective : k == SET_PRM ? data[i].permitted : data[i].inheritable;
			*out |= (uint64_t)v << (32 * i);
		}
		snprintf(how, howsz, "capget");
		return 0;
	}
	int op = k == SET_BND ? PR_CAPBSET_READ : PR_CAP_AMBIENT;
	unsigned last = sp_cap_last(), c;
	for (c = 0; c <= last && c < 64; c++) {
		int v = k == SET_BND ? prctl(op, c, 0, 0, 0) : prctl(op, PR_CAP_AMBIENT_IS_SET, c, 0, 0);
		if (v < 0 && errno == EINVAL && c > 0)
			break; /* beyond the capabilities this kernel knows */
		if (v < 0 && errno == EINVAL && k == SET_AMB) {
			/* no PR_CAP_AMBIENT at all (Linux before 4.3, gVisor): no
			 * ambient capability can exist */
			snprintf(how, howsz, "PR_CAP_AMBIENT (EINVAL: no ambient capabilities in this kernel)");
			return 0;
		}
		if (v < 0)
			return sp_why_errno(o, errno, "%s for capability %u: %s",
					    k == SET_BND ? "PR_CAPBSET_READ" : "PR_CAP_AMBIENT_IS_SET", c, strerror(errno));
		if (v)
			*out |= 1ull << c;
	}
	snprintf(how, howsz, "%s for capabilities 0..%u", k == SET_BND ? "PR_CAPBSET_READ" : "PR_CAP_AMBIENT_IS_SET",
		 c ? c - 1 : 0);
	return 0;
}

static int read_capset(enum capset_kind k, uint64_t *out, sp_result *r)
{
	const char *field = set_field[k];
	char v[64], how[96] = "";
	uint64_t st = 0, sc = 0;
	int e = sp_status_field("/proc/self/status", field, v, sizeof v);
	bool have_st = e == 0 && sp_caps_parse(v, &st) == 0;
	sp_outcome so = {0};
	int se = syscall_caps(k, &sc, how, sizeof how, &so);
	if (have_st && se == 0) {
		if (st != sc) {
			sp_observed(r, "%s %016llx, %s %016llx", field, (unsigned long long)st, how, (unsigned long long)sc);
			sp_errorr(r, "/proc/self/status (%016llx) and %s (%016llx) disagree", (unsigned long long)st, how,
				  (unsigned long long)sc);
			return -1;
		}
		*out = st;
		sp_observed(r, "%s %016llx (status and %s agree)", field, (unsigned long long)st, how);
		return 0;
	}
	if (have_st) {
		*out = st;
		sp_observed(r, "%s %016llx (status; %s: %s)", field, (unsigned long long)st, how[0] ? how : "syscall",
			    sp_errname(so.errnum));
		return 0;
	}
	if (se == 0) {
		*out = sc;
		sp_observed(r, "%s absent from /proc/self/status (%s); %s: %016llx", field,
			    e < 0 ? sp_errname(-e) : "unparseable", how, (unsigned long long)sc);
		return 0;
	}
	sp_errorr(r, "neither /proc/self/status %s (%s) nor the syscall (%s) answers", field,
		  e < 0 ? sp_errname(-e) : "unparseable", sp_errname(so.errnum));
	return -1;
}

static int policy_mask(const sp_ctx *ctx, const char *key, uint64_t *out)
{
	sp_strv names;
	const char *bad;
	sp_policy_list(ctx->policy, key, &names);
	int r = sp_caps_mask(names.v, names.n, out, &bad);
	sp_strv_free(&names);
	return r;
}

/* the verdict on a set against the policy's mask, with the kernel boundary */
static void judge_set(const sp_ctx *ctx, sp_result *r, const char *what, uint64_t v, uint64_t allowed)
{
	char buf[1024];
	sp_caps_format(v, buf, sizeof buf);
	sp_observed_add(r, "%s", buf);
	uint64_t extra = v & ~allowed;
	if (!extra) {
		sp_pass(r, "%s set within policy%s", what, !strcmp(what, "effective") ? (v ? " (non-empty)" : " (empty)") : "");
		return;
	}
	uint64_t kernel_only = sp_boundary_accepted(ctx, SP_CHECK_KERNEL) ? extra & ~file_facing_caps() : 0;
	const sp_boundary *b = sp_boundary_get();
	sp_outcome fo = {0};
	if (kernel_only && files_confined(ctx, &fo))
		kernel_only = extra; /* the file-facing ones too: every file is the guest's own */
	if (kernel_only) {
		sp_caps_format(kernel_only, buf, sizeof buf);
		sp_observed_add(r, "%s act only on the objects of the %s kernel (%s), which kernel.separate_kernel accepts", buf,
				sp_kernel_kind_name(b->kind), b->kernel);
	}
	uint64_t bad = extra & ~kernel_only;
	sp_caps_format(bad ? bad : extra, buf, sizeof buf);
	if (bad)
		sp_failr(r, "%s set beyond policy: %s", what, buf);
	else
		sp_pass(r, "%s set beyond policy only by capabilities confined to the %s kernel (%s)", what,
			sp_kernel_kind_name(b->kind), buf);
}

/* the six reads of capability sets and NoNewPrivs share one child: each
 * makes syscalls (capget, prctl) that a filter may kill */
static const sp_batch caps_sets = {
	.id = "caps.sets",
	.what = "the capability sets and NoNewPrivs, each read from /proc/self/status and from its syscall",
};

static void run_effective(const sp_ctx *ctx, sp_result *r)
{
	uint64_t eff, allowed = 0;
	policy_mask(ctx, "caps.effective", &allowed);
	char buf[1024];
	sp_caps_format(allowed, buf, sizeof buf);
	sp_expected(r, "effective capabilities within: %s", buf);
	if (read_capset(SET_EFF, &eff, r) < 0)
		return;
	/* action: CAP_NET_RAW guards raw sockets */
	bool has_raw = eff & (1ull << CAP_NET_RAW);
	int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
	int e = errno;
	if (fd >= 0)
		close(fd);
	if (fd >= 0)
		sp_observed_add(r, "raw socket opened");
	else
		sp_observed_add(r, "raw socket refused (%s)", sp_errname(e));
	if (!has_raw && fd >= 0 && !sp_boundary_accepted(ctx, SP_CHECK_KERNEL)) {
		sp_failr(r, "CapEff lacks cap_net_raw but a raw socket opened: the capability view is wrong");
		return;
	}
	judge_set(ctx, r, "effective", eff, allowed);
}

static void run_bounding(const sp_ctx *ctx, sp_result *r)
{
	uint64_t bnd, allowed = 0;
	const char *key = sp_policy_get(ctx->policy, "caps.bounding") ? "caps.bounding" : "caps.effective";
	policy_mask(ctx, key, &allowed);
	char buf[1024];
	sp_caps_format(allowed, buf, sizeof buf);
	sp_expected(r, "bounding set within: %s", buf);
	if (read_capset(SET_BND, &bnd, r) < 0)
		return;
	judge_set(ctx, r, "bounding", bnd, allowed);
}

static void run_nnp(const sp_ctx *ctx, sp_result *r)
{
	bool must = sp_expect_required(ctx, r, "priv.no_new_privs", "NoNewPrivs set");
	char v[16];
	int e = sp_status_field("/proc/self/status", "NoNewPrivs", v, sizeof v);
	errno = 0;
	int p = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	int pe = errno;
	if (e < 0 && p < 0) {
		sp_observed(r, "NoNewPrivs: %s in status, PR_GET_NO_NEW_PRIVS: %s", sp_errname(-e), sp_errname(pe));
		sp_errorr(r, "neither /proc/self/status nor prctl tells NoNewPrivs");
		return;
	}
	if (e == 0 && p >= 0) {
		sp_observed(r, "NoNewPrivs %s in status, %d from prctl", v, p);
		if ((strcmp(v, "1") == 0) != (p == 1)) {
			sp_errorr(r, "status and prctl disagree");
			return;
		}
	} else if (p >= 0) {
		sp_observed(r, "NoNewPrivs absent from /proc/self/status (%s); %d from prctl", sp_errname(-e), p);
	} else {
		sp_observed(r, "NoNewPrivs %s in status; PR_GET_NO_NEW_PRIVS: %s", v, sp_errname(pe));
		p = !strcmp(v, "1");
	}
	if (p == 1)
		sp_pass(r, "no_new_privs set: setuid and file capabilities cannot raise privileges");
	else if (must)
		sp_failr(r, "no_new_privs not set: a setuid binary could raise privileges");
	else
		sp_pass(r, "no_new_privs not set, not required by policy");
}

const sp_check sp_check_caps_effective = {
	.id = SP_CKID(caps_effective),
	.category = "privileges",
	.title = "effective capabilities within policy",
	.rationale = "every capability is a kernel privilege the sandbox can use against its host",
	.techniques = "T1611,T1068",
	.policy_keys = "caps.effective:caps",
	.method = "action",
	.run = run_effective,
	.batch = &caps_sets,
};

const sp_check sp_check_caps_bounding = {
	.id = SP_CKID(caps_bounding),
	.category = "privileges",
	.title = "bounding capability set within policy",
	.rationale = "the bounding set caps what exec of a privileged file can regain",
	.techniques = "T1611,T1548",
	.policy_keys = "caps.bounding:caps",
	.method = "read",
	.run = run_bounding,
	.batch = &caps_sets,
};

const sp_check sp_check_priv_no_new_privs = {
	.id = SP_CKID(priv_no_new_privs),
	.category = "privileges",
	.title = "NoNewPrivs set",
	.rationale = "without no_new_privs, setuid binaries and file capabilities raise privileges",
	.techniques = "T1548.001,T1068",
	.policy_keys = "priv.no_new_privs:bool",
	.method = "read",
	.run = run_nnp,
	.batch = &caps_sets,
};

/* ---- the other capability sets ---- */

static void run_capset(enum capset_kind k, const char *what, const sp_ctx *ctx, sp_result *r)
{
	uint64_t v, allowed = 0;
	policy_mask(ctx, "caps.effective", &allowed);
	char buf[1024];
	sp_caps_format(allowed, buf, sizeof buf);
	sp_expected(r, "%s set within: %s", what, buf);
	if (read_capset(k, &v, r) < 0)
		return;
	judge_set(ctx, r, what, v, allowed);
}

static void run_permitted(const sp_ctx *ctx, sp_result *r) { run_capset(SET_PRM, "permitted", ctx, r); }
static void run_inheritable(const sp_ctx *ctx, sp_result *r) { run_capset(SET_INH, "inheritable", ctx, r); }
static void run_ambient(const sp_ctx *ctx, sp_result *r) { run_capset(SET_AMB, "ambient", ctx, r); }

#define CAPSET_CHECK(sym, id_, title_, why_, run_)                                                            \
	const sp_check sp_check_##sym = {                                                                   \
		.id = id_,                                                                                  \
		.category = "privileges",                                                                   \
		.title = title_,                                                                            \
		.rationale = why_,                                                                          \
		.techniques = "T1611,T1548",                                                                \
		.policy_keys = "caps.effective:caps",                                                       \
		.method = "read",                                                                           \
		.run = run_,                                                                                \
		.batch = &caps_sets,                                                                        \
	}
CAPSET_CHECK(caps_permitted, SP_CKID(caps_permitted), "permitted capabilities within policy",
	     "a permitted capability can be raised into the effective set at any time", run_permitted);
CAPSET_CHECK(caps_inheritable, SP_CKID(caps_inheritable), "inheritable capabilities within policy",
	     "inheritable capabilities pass to programs with matching file capabilities", run_inheritable);
CAPSET_CHECK(caps_ambient, SP_CKID(caps_ambient), "ambient capabilities within policy",
	     "ambient capabilities survive execve of ordinary programs", run_ambient);

/* ---- each capability proven by the operation it guards ---- */

enum cap_outcome { CAP_USED, CAP_REFUSED, CAP_NA };

struct cap_probe_arg {
	char dir[512]; /* private dir, "" when none */
	char why[256];
};

/* each probe returns 1 when the guarded operation succeeded, 0 when refused,
 * -1 when it cannot be judged (errno tells why); it runs in a child */
static long pr_net_raw(void *a)
{
	(void)a;
	int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
	if (fd >= 0)
		return 1;
	return errno == EPERM || errno == EACCES ? 0 : -1;
}

static long pr_sys_admin(void *a)
{
	struct cap_probe_arg *p = a;
	/* a private mount namespace first, so nothing can propagate out */
	sp_private_mountns();
	if (p->dir[0]) {
		if (mount("sandprobe", p->dir, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k") == 0) {
			umount2(p->dir, MNT_DETACH);
			return 1;
		}
	} else if (mount("sandprobe", "/", "sandprobe-nonexistent-fs", 0, NULL) == 0 || errno == ENODEV) {
		/* the capability check comes before the filesystem type lookup */
		return 1;
	}
	return errno == EPERM || errno == EACCES ? 0 : -1;
}

static long pr_sys_ptrace(void *a)
{
	(void)a;
	int pfd[2];
	if (pipe(pfd) < 0)
		return -1;
	pid_t t = fork();
	if (t < 0)
		return -1;
	if (t == 0) {
		/* dies with the prober, even when a filter kills it mid-probe */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		/* a non-dumpable target needs CAP_SYS_PTRACE to attach */
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		close(pfd[0]);
		if (write(pfd[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pfd[1]);
	char c;
	long res = -1;
	if (read(pfd[0], &c, 1) == 1) {
		long pr = ptrace(PTRACE_SEIZE, t, 0, 0);
		int e = errno;
		res = pr == 0 ? 1 : (e == EPERM || e == EACCES) ? 0 : -1;
		errno = e;
	}
	kill(t, SIGKILL);
	waitpid(t, NULL, 0);
	return res;
}

static long pr_mknod(void *a)
{
	struct cap_probe_arg *p = a;
	if (!p->dir[0]) {
		errno = ENOENT;
		return -1;
	}
	char path[600];
	snprintf(path, sizeof path, "%s/null", p->dir);
	if (mknod(path, S_IFCHR | 0600, makedev(1, 3)) == 0) {
		unlink(path);
		return 1;
	}
	return errno == EPERM || errno == EACCES ? 0 : -1;
}

static long pr_sys_module(void *a)
{
	(void)a;
	/* a NULL image of length 0: with the capability ENOEXEC, nothing loads */
	if (syscall(SYS_init_module, NULL, 0UL, "") == 0)
		return 1;
	if (errno == ENOEXEC || errno == EFAULT || errno == EINVAL)
		return 1;
	return errno == EPERM ? 0 : -1;
}

/* a probe's verdict from a call's return: 1 when it succeeded (rc == 0), 0
 * when refused with EPERM, -1 otherwise (errno as the call left it) */
static long eperm_verdict(long rc)
{
	if (rc == 0)
		return 1;
	return errno == EPERM ? 0 : -1;
}

static int make_file(const struct cap_probe_arg *p, char *path, size_t size, mode_t mode)
{
	if (!p->dir[0]) {
		errno = ENOENT;
		return -1;
	}
	snprintf(path, size, "%s/f", p->dir);
	unlink(path); /* left by an earlier probe that a filter killed */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	close(fd);
	return chmod(path, mode);
}

static long pr_dac_override(void *a)
{
	char path[600];
	if (make_file(a, path, sizeof path, 0) < 0)
		return -1;
	/* a write open of a mode-000 file: only CAP_DAC_OVERRIDE allows it */
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int e = errno;
	unlink(path);
	if (fd >= 0)
		return 1;
	errno = e;
	return e == EACCES || e == EPERM ? 0 : -1;
}

static char probe_note[160];

/* an id this user namespace does not map (-1: every candidate is mapped) */
static long unmapped_id(bool gid)
{
	static const unsigned cand[] = {1000, 1, 2, 4242, 40000, 65533};
	for (size_t i = 0; i < SP_ARRAY_SIZE(cand); i++)
		if (!sp_id_mapped(cand[i], gid))
			return (long)cand[i];
	return -1;
}

/* no other id is mapped: the change is tried towards an unmapped one, which
 * the kernel refuses (EINVAL) whatever the capability, so no change of owner
 * or identity exists to make here; 0 refused, -1 EXDEV (not tried) */
static long other_unmapped(int (*op)(long id, void *arg), bool gid, void *arg)
{
	long un = unmapped_id(gid);
	if (un < 0) {
		errno = EXDEV;
		return -1;
	}
	int rc = op(un, arg);
	int e = errno;
	if (rc == 0)
		return 1;
	snprintf(probe_note, sizeof probe_note, "no other %s mapped: tried %ld (unmapped): %s", gid ? "gid" : "uid", un,
		 sp_errname(e));
	errno = e;
	return e == EINVAL || e == EPERM ? 0 : -1;
}

static int chown_to(long id, void *arg) { return chown(arg, (uid_t)id, (gid_t)-1); }
static int setres_uid(long id, void *arg)
{
	(void)arg;
	return setresuid((uid_t)id, (uid_t)id, (uid_t)id);
}
static int setres_gid(long id, void *arg)
{
	(void)arg;
	return setresgid((gid_t)id, (gid_t)id, (gid_t)id);
}

static long pr_chown(void *a)
{
	char path[600];
	if (make_file(a, path, sizeof path, 0600) < 0)
		return -1;
	long other = sp_other_mapped_id((unsigned)geteuid(), false);
	if (other < 0) {
		long v = other_unmapped(chown_to, false, path);
		int e = errno;
		unlink(path);
		errno = e;
		return v;
	}
	int rc = chown(path, (uid_t)other, (gid_t)-1);
	int e = errno;
	unlink(path);
	errno = e;
	return eperm_verdict(rc);
}

/* setres[ug]id to another mapped id: 1 done, 0 EPERM, -1 other (EXDEV: none) */
static long set_other_id(bool gid)
{
	long other = sp_other_mapped_id((unsigned)(gid ? getegid() : geteuid()), gid);
	if (other < 0)
		return other_unmapped(gid ? setres_gid : setres_uid, gid, NULL);
	int rc = gid ? setresgid((gid_t)other, (gid_t)other, (gid_t)other)
		     : setresuid((uid_t)other, (uid_t)other, (uid_t)other);
	return eperm_verdict(rc);
}

static long pr_setuid(void *a)
{
	(void)a;
	return set_other_id(false);
}

static long pr_setgid(void *a)
{
	(void)a;
	return set_other_id(true);
}

static long pr_net_admin(void *a)
{
	(void)a;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	int v = 65536;
	/* SO_RCVBUFFORCE on our own socket: only CAP_NET_ADMIN may exceed rmem_max */
	int rc = setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof v);
	int e = errno;
	close(fd);
	errno = e;
	return eperm_verdict(rc);
}

static long pr_sys_time(void *a)
{
	(void)a;
	/* both NULL: the capability check runs, the clock is not touched */
	return eperm_verdict(syscall(SYS_settimeofday, NULL, NULL));
}

static long pr_sys_chroot(void *a)
{
	(void)a;
	return eperm_verdict(chroot("/"));
}

static long pr_sys_boot(void *a)
{
	(void)a;
	/* bad magic numbers: EINVAL with the capability, EPERM without */
	if (syscall(SYS_reboot, 0L, 0L, 0L, NULL) == 0)
		return 1;
	if (errno == EINVAL)
		return 1;
	return errno == EPERM ? 0 : -1;
}

static long pr_sys_rawio(void *a)
{
	char path[600];
	if (make_file(a, path, sizeof path, 0600) < 0)
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unlink(path);
	if (fd < 0)
		return -1;
	/* FIBMAP checks CAP_SYS_RAWIO first; it only reads a block number. On
	 * Linux it is a generic VFS ioctl: with the capability it answers (0, or
	 * EINVAL where the filesystem maps no blocks). ENOTTY means no kernel
	 * code behind it (gVisor implements no FIBMAP): nothing was performed,
	 * so nothing is proven either way. */
	int blk = 0;
	int rc = ioctl(fd, FIBMAP, &blk);
	int e = errno;
	close(fd);
	errno = e;
	if (rc == 0 || e == EINVAL)
		return 1;
	return e == EPERM ? 0 : -1;
}

static long pr_sys_nice(void *a)
{
	(void)a;
	errno = 0;
	int cur = getpriority(PRIO_PROCESS, 0);
	if (cur <= -20 && errno == 0) {
		errno = EXDEV;
		return -1;
	}
	struct rlimit rl;
	if (getrlimit(RLIMIT_NICE, &rl) == 0 && rl.rlim_cur >= (rlim_t)(20 - (cur - 1))) {
		/* RLIMIT_NICE already allows it: lower it first (child only) */
		rl.rlim_cur = rl.rlim_max = 0;
		setrlimit(RLIMIT_NICE, &rl);
	}
	if (setpriority(PRIO_PROCESS, 0, cur - 1) == 0)
		return 1;
	return errno == EPERM || errno == EACCES ? 0 : -1;
}

static long pr_sys_resource(void *a)
{
	(void)a;
	struct rlimit rl;
	if (getrlimit(RLIMIT_FSIZE, &rl) < 0 || rl.rlim_max < 4096) {
		errno = EXDEV;
		return -1;
	}
	rlim_t hard = rl.rlim_max;
	rl.rlim_max = hard == RLIM_INFINITY ? (rlim_t)1 << 40 : hard - 1;
	if (rl.rlim_cur > rl.rlim_max)
		rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
		return -1;
	/* raising a hard limit back needs CAP_SYS_RESOURCE (child only) */
	rl.rlim_max = hard;
	return eperm_verdict(setrlimit(RLIMIT_FSIZE, &rl));
}

static long pr_setfcap(void *a)
{
	const struct cap_probe_arg *p = a;
	/* a v2 capability xattr granting nothing, on a probe file in the
	 * private dir; where that filesystem has no security.capability, on
	 * every other writable place before concluding there is none */
	struct vfs_cap_data data;
	memset(&data, 0, sizeof data);
	data.magic_etc = VFS_CAP_REVISION_2;
	const char *dirs[] = {p->dir, "/tmp", "/var/tmp", "/dev/shm", "/run", "/"};
	int last = ENOENT;
	for (size_t i = 0; i < SP_ARRAY_SIZE(dirs); i++) {
		if (!dirs[i][0])
			continue;
		char path[640];
		sp_probe_name(path, sizeof path, dirs[i]);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0700);
		if (fd < 0)
			continue;
		close(fd);
		int rc = setxattr(path, "security.capability", &data, XATTR_CAPS_SZ_2, 0);
		int e = errno;
		unlink(path);
		if (rc == 0)
			return 1;
		if (e == EPERM)
			return errno = EPERM, 0;
		last = e;
		if (e != EOPNOTSUPP)
			break;
	}
	errno = last;
	return -1;
}

/* what a probe wants said in observed (which target it acted on) */

/* a process of another uid to signal: one already visible, else a child
 * this probe makes (it dies with the probe); pid in *pid, 0 when none */
/* a process's start time (field 22 of stat), 0 when unreadable: a pid
 * reused between two reads has another */
static unsigned long long proc_start(pid_t pid)
{
	char p[64], st[1024];
	snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
	ssize_t n = sp_read_file(p, st, sizeof st);
	char *rp = n > 0 ? strrchr(st, ')') : NULL;
	unsigned long long v = 0;
	if (rp && sscanf(rp + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &v) != 1)
		v = 0;
	return v;
}

/* is pid's real and saved uid neither our uid nor our euid (what kill(2)
 * compares without CAP_KILL)? false when its status is unreadable */
static bool of_other_uid(pid_t pid)
{
	char p[64], v[64];
	snprintf(p, sizeof p, "/proc/%d/status", (int)pid);
	unsigned ruid, euid, suid;
	if (sp_status_field(p, "Uid", v, sizeof v) < 0 || sscanf(v, "%u %u %u", &ruid, &euid, &suid) != 3)
		return false;
	return ruid != (unsigned)getuid() && ruid != (unsigned)geteuid() && suid != (unsigned)getuid() &&
	       suid != (unsigned)geteuid();
}

/* does pid still belong to another uid, and is it the same process? */
static bool still_other(pid_t pid, unsigned long long start)
{
	return of_other_uid(pid) && proc_start(pid) == start;
}

/* the write end the probe's own kill target waits on (-1: none) */
static int kill_hold = -1;

/* end the probe's own kill target: it exits when kill_hold closes (a
 * SIGKILL beside, for a target still of our uid) */
static void end_made(pid_t t)
{
	if (kill_hold >= 0) {
		close(kill_hold);
		kill_hold = -1;
	}
	kill(t, SIGKILL);
	while (waitpid(t, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Every visible process of another uid is tried with signal 0 (a
 * permission check that delivers nothing): the first one this process may
 * signal is the target, else the first refused one (the verdict is then
 * "refused" for all of them). Trying one only would judge by whichever
 * process /proc lists first: a target in a user namespace this process's
 * uid owns (every capability there, CapEff or not) is signallable while a
 * process of the host's refuses. */
static pid_t kill_target(pid_t *made, unsigned long long *start)
{
	*made = 0;
	*start = 0;
	DIR *d = opendir("/proc");
	unsigned scanned = 0;
	pid_t refused = 0;
	unsigned long long refused_start = 0;
	struct dirent *de;
	while (d && (de = readdir(d)) && scanned < 4096) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		scanned++;
		pid_t pid = atoi(de->d_name);
		if (!of_other_uid(pid))
			continue;
		unsigned long long st = proc_start(pid);
		if (kill(pid, 0) == 0 && still_other(pid, st)) {
			closedir(d);
			*start = st;
			return pid;
		}
		if (!refused) {
			refused = pid;
			refused_start = st;
		}
	}
	if (d)
		closedir(d);
	if (refused) {
		*start = refused_start;
		return refused;
	}
	/* none visible: a child that moves to another mapped uid (needs
	 * CAP_SETUID; without it, no target can exist here) */
	long other = sp_other_mapped_id((unsigned)geteuid(), false);
	if (other < 0 || (uid_t)other == getuid())
		return 0;
	/* The child cannot be signalled once it is another uid (this process
	 * may lack CAP_KILL: that is what is probed), and the uid change clears
	 * a death signal set before it. So it sets its death signal after the
	 * change and waits on a pipe: closing kill_hold ends it, whatever this
	 * process may signal. */
	int pfd[2], hold[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return 0;
	if (pipe2(hold, O_CLOEXEC) < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return 0;
	}
	pid_t parent = getpid();
	pid_t t = fork();
	if (t < 0) {
		close(pfd[0]);
		close(pfd[1]);
		close(hold[0]);
		close(hold[1]);
		return 0;
	}
	if (t == 0) {
		close(pfd[0]);
		close(hold[1]);
		char ok = setresuid((uid_t)other, (uid_t)other, (uid_t)other) == 0 ? 'y' : 'n';
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() != parent) /* the prober died before the death signal was set */
			_exit(1);
		if (write(pfd[1], &ok, 1) != 1)
			_exit(1);
		char c;
		while (read(hold[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(pfd[1]);
	close(hold[0]);
	char ok = 'n';
	if (read(pfd[0], &ok, 1) != 1)
		ok = 'n';
	close(pfd[0]);
	*made = t;
	kill_hold = hold[1];
	if (ok != 'y') {
		end_made(t);
		*made = 0;
		return 0;
	}
	*start = proc_start(t);
	return t;
}

static long pr_kill(void *a)
{
	(void)a;
	pid_t made;
	unsigned long long start;
	pid_t t = kill_target(&made, &start);
	if (!t) {
		errno = EXDEV;
		return -1;
	}
	/* signal 0 checks permission only */
	long res = kill(t, 0) == 0 ? 1 : -1;
	int e = errno;
	if (res < 0 && e == EPERM)
		res = 0;
	/* a success proves the capability only on the process that was chosen:
	 * a visible one may have exited and its pid gone to one of ours */
	if (res == 1 && !still_other(t, start)) {
		res = -1;
		e = EXDEV;
	}
	if (res >= 0) {
		/* the owner of a user namespace holds every capability in it, CapEff
		 * or not: say where the target lives */
		char p[64], v[64] = "?", mine[256] = "", its[256] = "";
		snprintf(p, sizeof p, "/proc/%d/status", (int)t);
		sp_status_field(p, "Uid", v, sizeof v);
		/* the ns link needs ptrace access; the uid map (world-readable)
		 * differs as soon as the user namespace does */
		snprintf(p, sizeof p, "/proc/%d/uid_map", (int)t);
		bool other_ns = sp_read_file(p, its, sizeof its) > 0 && sp_read_file("/proc/self/uid_map", mine, sizeof mine) > 0 &&
				strcmp(mine, its) != 0;
		char *sq = sp_trim(its);
		for (char *q = v; *q; q++)
			if (*q == '\t')
				*q = ' ';
		for (char *q = sq; *q; q++)
			if (*q == '\n' || *q == '\t')
				*q = ' ';
		snprintf(probe_note, sizeof probe_note, "target pid %d (%s), uids %s%s%.48s%s", (int)t,
			 made ? "made by the probe" : "already running", v, other_ns ? ", in another user namespace (uid_map " : "",
			 other_ns ? sq : "", other_ns ? ")" : "");
	}
	if (made)
		end_made(made);
	errno = res == 1 ? 0 : e;
	return res;
}

struct cap_def {
	unsigned cap;
	long (*fn)(void *);
	bool needs_dir;
	const char *how;
};

/* All capability probes run in one child, in this order: those that change
 * nothing first, those that change the child's limits, mount namespace and
 * ids last. The child reports each result before the next probe; when a
 * filter kills it, the probe it was in is the first unreported one and a new
 * child resumes after it. They are the declared batch caps.probes: the
 * runner runs cap_batch once in the batch's child and each caps.* check
 * judges its own result from the cache. */
static const struct cap_def cap_defs[] = {
	{CAP_NET_RAW, pr_net_raw, false, ""},	      {CAP_SYS_PTRACE, pr_sys_ptrace, false, ""},
	{CAP_MKNOD, pr_mknod, true, ""},	      {CAP_SYS_MODULE, pr_sys_module, false, ""},
	{CAP_DAC_OVERRIDE, pr_dac_override, true, ""}, {CAP_CHOWN, pr_chown, true, ""},
	{CAP_NET_ADMIN, pr_net_admin, false, ""},     {CAP_SYS_TIME, pr_sys_time, false, ""},
	{CAP_SYS_BOOT, pr_sys_boot, false, ""},	      {CAP_SYS_RAWIO, pr_sys_rawio, true, ""},
	{CAP_SETFCAP, pr_setfcap, true, ""},	      {CAP_KILL, pr_kill, false, ""},
	{CAP_SYS_CHROOT, pr_sys_chroot, false, ""},   {CAP_SYS_NICE, pr_sys_nice, false, ""},
	{CAP_SYS_RESOURCE, pr_sys_resource, false, ""}, {CAP_SYS_ADMIN, pr_sys_admin, true, ""},
	{CAP_SETGID, pr_setgid, false, ""},	      {CAP_SETUID, pr_setuid, false, ""},
};

struct cap_rec {
	long ret;
	int err;
	char note[160];
};

static sp_call cap_cache[SP_ARRAY_SIZE(cap_defs)];
static char cap_notes[SP_ARRAY_SIZE(cap_defs)][160];
static bool cap_cached;
static int cap_dir_rm;
static sp_outcome cap_dir_why; /* why not, when cap_dir_rm < 0 */
static char cap_dir[512];
static int cap_fork_err;

static void cap_seq_run(size_t i, void *rec, void *arg)
{
	struct cap_rec *cr = rec;
	/* caps.sys_ptrace and caps.sys_time skip under emulation (SP_CHECK_NOEMU):
	 * qemu-user has no ptrace and its child hangs or aborts in these probes */
	if ((cap_defs[i].cap == CAP_SYS_PTRACE || cap_defs[i].cap == CAP_SYS_TIME) && sp_user_emulation(NULL, 0)) {
		cr->ret = -1;
		cr->err = ENOSYS;
		snprintf(cr->note, sizeof cr->note, "not probed under user-mode emulation");
		return;
	}
	errno = 0;
	cr->ret = cap_defs[i].fn(arg);
	cr->err = cr->ret <= 0 ? errno : 0;
	snprintf(cr->note, sizeof cr->note, "%s", probe_note);
	probe_note[0] = '\0';
}

static void cap_seq_got(size_t i, const void *rec, void *arg)
{
	(void)arg;
	const struct cap_rec *cr = rec;
	cap_cache[i].ran = true;
	cap_cache[i].ret = cr->ret;
	cap_cache[i].err = cr->err;
	snprintf(cap_notes[i], sizeof cap_notes[i], "%s", cr->note);
}

static bool cap_seq_lost(size_t i, int sig, bool timed_out, void *arg)
{
	(void)timed_out;
	(void)arg;
	if (sig)
		cap_cache[i].sig = sig;
	else
		cap_cache[i].timed_out = true;
	return true;
}

static void cap_batch(const sp_ctx *ctx)
{
	if (cap_cached)
		return;
	cap_cached = true;
	struct cap_probe_arg arg;
	memset(&arg, 0, sizeof arg);
	sp_outcome o = {0};
	if (sp_private_dir(ctx, arg.dir, sizeof arg.dir, &o) < 0)
		arg.dir[0] = '\0';
	snprintf(cap_dir, sizeof cap_dir, "%s", arg.dir);
	sp_probe_seq seq = {.n = SP_ARRAY_SIZE(cap_defs),
			    .rec_size = sizeof(struct cap_rec),
			    .timeout_ms = 3000,
			    .run = cap_seq_run,
			    .got = cap_seq_got,
			    .lost = cap_seq_lost,
			    .arg = &arg};
	if (sp_probe_seq_run(&seq, &o) < 0)
		cap_fork_err = o.errnum;
	cap_dir_rm = arg.dir[0] ? sp_private_dir_remove(arg.dir, &cap_dir_why) : 0;
}

static void caps_probe_run(const sp_ctx *ctx)
{
	cap_batch(ctx);
}

static const sp_batch caps_probes = {
	.id = "caps.probes",
	.what = "each capability's guarded operation, in order, in one child; a probe a filter kills costs only "
		"itself and the rest resume in a new child",
	.timeout_ms = 20000,
	.run = caps_probe_run,
};

static void run_cap(const struct cap_def *d, const sp_ctx *ctx, sp_result *r)
{
	uint64_t allowed = 0;
	policy_mask(ctx, "caps.effective", &allowed);
	bool may = (allowed >> d->cap) & 1;
	bool has = sp_has_cap(d->cap);
	const char *name = sp_cap_name(d->cap);
	sp_expected(r, "%s", may ? "any (capability allowed by policy)" : "the guarded operation refused");
	cap_batch(ctx);
	size_t idx = SP_ARRAY_SIZE(cap_defs);
	for (size_t i = 0; i < SP_ARRAY_SIZE(cap_defs); i++)
		if (cap_defs[i].cap == d->cap)
			idx = i;
	sp_call c = idx < SP_ARRAY_SIZE(cap_defs) ? cap_cache[idx] : (sp_call){0};
	sp_observed(r, "%s in CapEff: %s; %s: ", name, has ? "yes" : "no", d->how);
	if (cap_dir_rm < 0) {
		sp_errorr(r, "private probe directory %s not removed: %s", cap_dir, cap_dir_why.why);
		return;
	}
	if (c.sig == SIGSYS) {
		/* a killing seccomp filter refused the guarded syscall */
		sp_observed_add(r, "killed by SIGSYS (seccomp)");
		sp_pass(r, "%s: operation refused by a killing seccomp filter", name);
		return;
	}
	if (c.timed_out || c.sig || !c.ran) {
		sp_observed_add(r, "probe did not finish");
		sp_errorr(r, "probe failed: %s", cap_fork_err ? strerror(cap_fork_err) : c.timed_out ? "timed out"
															: "killed");
		return;
	}
	enum cap_outcome o = c.ret == 1 ? CAP_USED : c.ret == 0 ? CAP_REFUSED : CAP_NA;
	size_t len = strlen(r->observed);
	snprintf(r->observed + len, sizeof r->observed - len, "%s",
		 o == CAP_USED ? "succeeded" : o == CAP_REFUSED ? "refused (" : "not exercisable (");
	if (o != CAP_USED) {
		len = strlen(r->observed);
		snprintf(r->observed + len, sizeof r->observed - len, "%s)", sp_errname(c.err));
	}
	if (idx < SP_ARRAY_SIZE(cap_defs) && cap_notes[idx][0])
		sp_observed_add(r, "%s", cap_notes[idx]);
	sp_outcome fo = {0};
	if (o == CAP_USED && !may && (file_facing_caps() >> d->cap & 1) && files_confined(ctx, &fo)) {
		sp_observed_add(r, "; %.199s", fo.why);
		sp_pass(r, "%s usable, on files only the guest holds: %.199s", name, fo.why);
		return;
	}
	if (o == CAP_USED && !has && !may) {
		if (d->cap == CAP_KILL && strstr(cap_notes[idx], "in another user namespace"))
			sp_failr(r, "%s is not in CapEff, yet a process in a user namespace this sandbox's uid owns can be "
				    "signalled (an owner holds every capability there)", name);
		else
			sp_failr(r, "%s is not in CapEff but its operation succeeded", name);
	} else if (o == CAP_USED) {
		if (may)
			sp_pass(r, "%s usable, allowed by policy", name);
		else
			sp_failr(r, "%s usable: %s succeeded", name, d->how);
	} else if (o == CAP_REFUSED) {
		sp_pass(r, "%s: operation refused%s", name, has ? " although the capability is in CapEff (namespace or LSM)" : "");
	} else if (!has) {
		/* nothing was tried: CapEff alone is a reading, not an event (caps.effective judges the set) */
		sp_observed_add(r, "ground: CapEff only (the operation was not tried)");
		sp_skip(r, "cannot tell by the operation (not exercisable here: %s); %s is absent from CapEff, which "
			   "caps.effective judges",
			sp_errname(c.err), name);
		return;
	} else if (c.err == ENOSYS) {
		sp_pass(r, "%s: the guarded operation does not exist in this kernel", name);
	} else if (c.err == EOPNOTSUPP && d->cap == CAP_SETFCAP) {
		sp_pass(r, "%s: no writable filesystem here stores file capabilities (EOPNOTSUPP on each)", name);
	} else if (may) {
		sp_pass(r, "%s allowed by policy (not exercisable here)", name);
	} else if (c.err == EXDEV) {
		/* held, and nothing refused it: no target exists and none could be
		 * made, which proves nothing about a target that appears later */
		sp_failr(r, "%s is in CapEff and not allowed by policy; nothing here refuses it (no other mapped id or "
			    "process of another uid to act on, and none could be made)", name);
	} else {
		sp_errorr(r, "%s is in CapEff but its operation could not be exercised here (%s): not proven either way",
			  name, sp_errname(c.err));
	}
}

#define CAP_CHECK(sym, id_, kf_, capn, fn_, dir_, how_, title_, why_, tech_)                                        \
	static const struct cap_def def_##sym = {capn, fn_, dir_, how_};                                     \
	static void run_##sym(const sp_ctx *ctx, sp_result *r) { run_cap(&def_##sym, ctx, r); }             \
	const sp_check sp_check_##sym = {                                                                   \
		.id = id_,                                                                     \
		.category = "privileges",                                                                   \
		.title = title_,                                                                            \
		.rationale = why_,                                                                          \
		.techniques = tech_,                                                                        \
		.policy_keys = "caps.effective:caps",                                                       \
		.method = "action",                                                                         \
		.run = run_##sym,                                                                           \
		.flags = (kf_),                                                                             \
		.batch = &caps_probes,                                                                      \
	}

/* SP_CHECK_KERNEL: the capability acts on the kernel's own objects, so a
 * separate kernel the policy accepts confines it; the file-facing ones
 * (file_facing_caps) act on files the sandbox may share with the host */
CAP_CHECK(caps_net_raw, SP_CKID(caps_net_raw), SP_CHECK_KERNEL, CAP_NET_RAW, pr_net_raw, false, "raw ICMP socket", "CAP_NET_RAW refused",
	  "raw sockets forge packets and sniff traffic on the sandbox's interfaces", "T1048");
CAP_CHECK(caps_sys_admin, SP_CKID(caps_sys_admin), SP_CHECK_KERNEL, CAP_SYS_ADMIN, pr_sys_admin, true, "tmpfs mount on a private dir",
	  "CAP_SYS_ADMIN refused", "CAP_SYS_ADMIN allows mounts, the usual first step out of a container", "T1611");
CAP_CHECK(caps_sys_ptrace, SP_CKID(caps_sys_ptrace), SP_CHECK_KERNEL | SP_CHECK_NOEMU, CAP_SYS_PTRACE, pr_sys_ptrace, false,
	  "PTRACE_SEIZE of a non-dumpable child", "CAP_SYS_PTRACE refused",
	  "CAP_SYS_PTRACE lets the sandbox inject code into any process it can see", "T1055.008");
CAP_CHECK(caps_mknod, SP_CKID(caps_mknod), SP_CHECK_KERNEL, CAP_MKNOD, pr_mknod, true, "mknod c 1 3 in a private dir", "CAP_MKNOD refused",
	  "device nodes give direct access to host disks and memory", "T1006,T1611");
CAP_CHECK(caps_sys_module, SP_CKID(caps_sys_module), SP_CHECK_KERNEL | SP_CHECK_NOEMU, CAP_SYS_MODULE, pr_sys_module, false,
	  "init_module with a NULL image", "CAP_SYS_MODULE refused", "module loading runs code in the host kernel",
	  "T1547.006");
CAP_CHECK(caps_dac_override, SP_CKID(caps_dac_override), 0, CAP_DAC_OVERRIDE, pr_dac_override, true,
	  "write open of a mode-000 file", "CAP_DAC_OVERRIDE refused",
	  "CAP_DAC_OVERRIDE ignores file permissions, including on bind-mounted host files", "T1548");
CAP_CHECK(caps_chown, SP_CKID(caps_chown), 0, CAP_CHOWN, pr_chown, true, "chown of a probe file to another mapped uid",
	  "CAP_CHOWN refused", "CAP_CHOWN hands files to other users, for example to plant setuid binaries", "T1548");
CAP_CHECK(caps_setuid, SP_CKID(caps_setuid), 0, CAP_SETUID, pr_setuid, false, "setresuid to another mapped uid",
	  "CAP_SETUID refused", "CAP_SETUID becomes any user, including host-mapped ones", "T1548");
CAP_CHECK(caps_setgid, SP_CKID(caps_setgid), 0, CAP_SETGID, pr_setgid, false, "setresgid to another mapped gid",
	  "CAP_SETGID refused", "CAP_SETGID joins any group, for example disk or docker", "T1548");
CAP_CHECK(caps_net_admin, SP_CKID(caps_net_admin), SP_CHECK_KERNEL, CAP_NET_ADMIN, pr_net_admin, false, "SO_RCVBUFFORCE on a UDP socket",
	  "CAP_NET_ADMIN refused", "CAP_NET_ADMIN reconfigures interfaces, routes and firewall rules", "T1611");
CAP_CHECK(caps_sys_time, SP_CKID(caps_sys_time), SP_CHECK_KERNEL | SP_CHECK_NOEMU, CAP_SYS_TIME, pr_sys_time, false, "settimeofday(NULL, NULL)",
	  "CAP_SYS_TIME refused", "the clock is shared with the host: changing it breaks logs and certificates",
	  "");
CAP_CHECK(caps_sys_chroot, SP_CKID(caps_sys_chroot), SP_CHECK_KERNEL, CAP_SYS_CHROOT, pr_sys_chroot, false, "chroot(\"/\") in a child",
	  "CAP_SYS_CHROOT refused", "chroot combined with other capabilities escapes a chroot jail", "T1611");
CAP_CHECK(caps_sys_boot, SP_CKID(caps_sys_boot), SP_CHECK_KERNEL, CAP_SYS_BOOT, pr_sys_boot, false, "reboot with bad magic numbers",
	  "CAP_SYS_BOOT refused", "CAP_SYS_BOOT reboots the machine or loads a new kernel", "T1499");
CAP_CHECK(caps_sys_rawio, SP_CKID(caps_sys_rawio), SP_CHECK_KERNEL, CAP_SYS_RAWIO, pr_sys_rawio, true, "FIBMAP ioctl on a probe file",
	  "CAP_SYS_RAWIO refused", "raw I/O reaches hardware ports and memory directly", "T1611");
CAP_CHECK(caps_sys_nice, SP_CKID(caps_sys_nice), SP_CHECK_KERNEL, CAP_SYS_NICE, pr_sys_nice, false, "lower own nice value",
	  "CAP_SYS_NICE refused", "CAP_SYS_NICE starves the host's processes of CPU", "T1499");
CAP_CHECK(caps_sys_resource, SP_CKID(caps_sys_resource), SP_CHECK_KERNEL, CAP_SYS_RESOURCE, pr_sys_resource, false,
	  "raise a lowered RLIMIT_FSIZE hard limit", "CAP_SYS_RESOURCE refused",
	  "CAP_SYS_RESOURCE overrides resource limits and quotas", "T1499");
CAP_CHECK(caps_setfcap, SP_CKID(caps_setfcap), 0, CAP_SETFCAP, pr_setfcap, true, "set security.capability on a probe file",
	  "CAP_SETFCAP refused", "CAP_SETFCAP plants file capabilities that raise privileges on exec", "T1548");
CAP_CHECK(caps_kill, SP_CKID(caps_kill), SP_CHECK_KERNEL, CAP_KILL, pr_kill, false, "kill(pid, 0) on a process of another uid",
	  "CAP_KILL refused", "CAP_KILL signals processes of other users", "T1499");
