/* Kernel hardening: module loading, symbol and memory exposure, debugfs,
 * dmesg, and sysctls compared with the policy. Module loading is probed with
 * invalid arguments only (a NULL image, a non-module fd), so nothing loads. */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* linux/capability.h clashes with libc; the bit is ABI */
#define CAP_SYS_PTRACE_BIT 19

#include "checks/probe.h"
#include "checks/runtime.h"
#include "core/util.h"
#include "catalog/catalog.h"

/* the kernel's action probes (each with its own bounded sub-child where a
 * filter may kill it) share one child: a declared batch */
static const sp_batch kernel_probes = {
	.id = "kernel.probes",
	.what = "module loading, debugfs, raw memory devices, the kernel log, IPv6 sockets, user namespaces",
	.timeout_ms = 15000,
};

static long pr_modules(void *a)
{
	(void)a;
	/* init_module: NULL image of length 0 -> ENOEXEC when loading is allowed */
	long r1 = syscall(SYS_init_module, NULL, 0UL, "");
	int e1 = errno;
	if (r1 == 0 || e1 == ENOEXEC || e1 == EFAULT || e1 == EINVAL) {
		errno = e1;
		return 1;
	}
	/* finit_module on a non-module fd (/dev/null or our own stdin) */
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	long r2 = syscall(SYS_finit_module, fd >= 0 ? fd : 0, "", 0);
	int e2 = errno;
	if (fd >= 0)
		close(fd);
	if (r2 == 0 || e2 == ENOEXEC || e2 == EINVAL || e2 == EBADF || e2 == EFBIG) {
		errno = e2;
		return 2;
	}
	errno = e1;
	return 0;
}

static void run_modules(const sp_ctx *ctx, sp_result *r)
{
	bool must = !sp_policy_bool(ctx->policy, "kernel.modules_allowed", false);
	sp_expected(r, "%s", must ? "init_module and finit_module refused (EPERM, ENOSYS or SIGSYS)" : "any (allowed by policy)");
	sp_call c;
	int rc = sp_child_call(pr_modules, NULL, 2000, &c);
	if (rc < 0 || c.timed_out) {
		sp_errorr(r, "probe failed: %s", rc < 0 ? strerror(-rc) : "timed out");
		return;
	}
	if (c.sig) {
		sp_observed(r, "probe killed by signal %d%s", c.sig, c.sig == SIGSYS ? " (seccomp)" : "");
		if (c.sig == SIGSYS)
			sp_pass(r, "module syscalls killed by the seccomp filter");
		else
			sp_errorr(r, "probe crashed with signal %d", c.sig);
		return;
	}
	long modules_disabled = -1;
	sp_sysctl_long("/proc/sys/kernel/modules_disabled", &modules_disabled);
	sp_observed(r, "%s: %s; modules_disabled %ld", c.ret == 2 ? "finit_module" : "init_module",
		    c.ret ? "reached the loader" : sp_errname(c.err), modules_disabled);
	if (!c.ret)
		sp_pass(r, "module loading refused (%s%s)", sp_errname(c.err),
			c.err == ENOSYS ? ": no module support or filtered" : "");
	else if (must)
		sp_failr(r, "the kernel's module loader accepts calls from the sandbox (invalid image refused only by format)");
	else
		sp_pass(r, "module loading possible, allowed by policy");
}

const sp_check sp_check_kernel_modules = {
	.id = SP_CKID(kernel_modules),
	.category = "kernel",
	.title = "module loading refused",
	.rationale = "a loaded module runs arbitrary code in the host kernel",
	.techniques = "T1547.006,T1611",
	.policy_keys = "kernel.modules_allowed:bool",
	.method = "action",
	.run = run_modules,
	.flags = SP_CHECK_KERNEL,
	.batch = &kernel_probes,
};

static void run_proc_modules(const sp_ctx *ctx, sp_result *r)
{
	(void)ctx;
	sp_expected(r, "/proc/modules absent, unreadable or empty");
	char buf[256];
	ssize_t n = sp_read_file("/proc/modules", buf, sizeof buf);
	if (n < 0) {
		sp_observed(r, "/proc/modules: %s", sp_errname((int)-n));
		sp_pass(r, "/proc/modules not readable (%s)", sp_errname((int)-n));
		return;
	}
	char *nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	sp_observed(r, "/proc/modules %zd+ bytes%s%s", n, n ? ", first: " : "", buf);
	if (n == 0)
		sp_pass(r, "/proc/modules empty");
	else
		sp_failr(r, "/proc/modules lists the host's modules (addresses and versions for exploits)");
}

const sp_check sp_check_kernel_proc_modules = {
	.id = SP_CKID(kernel_proc_modules),
	.category = "kernel",
	.title = "/proc/modules empty",
	.rationale = "the module list tells an attacker which vulnerable drivers are loaded",
	.techniques = "T1613",
	.policy_keys = "",
	.method = "read",
	.run = run_proc_modules,
	.flags = SP_CHECK_INPROCESS | SP_CHECK_KERNEL,
};

static void run_kallsyms(const sp_ctx *ctx, sp_result *r)
{
	(void)ctx;
	sp_expected(r, "kallsyms unreadable or every address zero");
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		sp_observed(r, "/proc/kallsyms: %s", sp_errname(errno));
		sp_pass(r, "kallsyms unreadable (%s)", sp_errname(errno));
		return;
	}
	char buf[8192];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0) {
		sp_observed(r, "/proc/kallsyms read %zd", n);
		sp_pass(r, "kallsyms empty or unreadable");
		return;
	}
	buf[n] = '\0';
	size_t lines = 0, nonzero = 0;
	char first[80] = "";
	char *save = NULL;
	for (char *l = strtok_r(buf, "\n", &save); l && lines < 64; l = strtok_r(NULL, "\n", &save)) {
		unsigned long long a = strtoull(l, NULL, 16);
		lines++;
		if (a && !nonzero++)
			snprintf(first, sizeof first, "%.60s", l);
	}
	sp_observed(r, "%zu symbols sampled, %zu with non-zero addresses%s%s", lines, nonzero, nonzero ? "; e.g. " : "",
		    first);
	if (nonzero)
		sp_failr(r, "kernel symbol addresses visible: KASLR defeated");
	else
		sp_pass(r, "kallsyms addresses zeroed (%zu sampled)", lines);
}

const sp_check sp_check_kernel_kallsyms = {
	.id = SP_CKID(kernel_kallsyms),
	.category = "kernel",
	.title = "kernel symbol addresses hidden",
	.rationale = "symbol addresses defeat KASLR, the first step of most kernel exploits",
	.techniques = "T1613,T1068",
	.policy_keys = "",
	.method = "read",
	.run = run_kallsyms,
	.flags = SP_CHECK_INPROCESS | SP_CHECK_KERNEL,
};

struct dbg_arg {
	char dir[512];
};

static long pr_debugfs(void *a)
{
	struct dbg_arg *p = a;
	sp_private_mountns();
	if (mount("debugfs", p->dir, "debugfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, NULL) == 0) {
		umount2(p->dir, MNT_DETACH);
		return 1;
	}
	return 0;
}

struct fs_seen {
	const char *type;
	char where[256];
};

static int fs_seen_cb(const sp_mount *m, void *arg)
{
	struct fs_seen *s = arg;
	if (!strcmp(m->fstype, s->type)) {
		snprintf(s->where, sizeof s->where, "%s", m->mountpoint);
		return 1;
	}
	return 0;
}

static void run_debugfs(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "debugfs neither mounted nor mountable");
	struct fs_seen s = {.type = "debugfs"};
	sp_mountinfo_each(fs_seen_cb, &s);
	size_t entries = 0;
	DIR *d = opendir("/sys/kernel/debug");
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)))
			entries += de->d_name[0] != '.';
		closedir(d);
	}
	struct dbg_arg a;
	bool mountable = false;
	const char *how = "no private dir";
	sp_outcome o = {0};
	if (sp_private_dir(ctx, a.dir, sizeof a.dir, &o) == 0) {
		sp_call c;
		int rc = sp_child_call(pr_debugfs, &a, 3500, &c);
		int rm = sp_private_dir_remove(a.dir, &o);
		if (rm < 0) {
			sp_errorr(r, "probe directory %s not removed", a.dir);
			return;
		}
		mountable = rc == 0 && c.ran && c.ret == 1;
		how = rc == 0 && c.ran ? (mountable ? "MOUNTED (then unmounted)" : sp_errname(c.err)) : "probe failed";
	}
	sp_observed(r, "debugfs %s%s; /sys/kernel/debug %zu entries; mount probe: %s", s.where[0] ? "mounted at " : "not mounted",
		    s.where, entries, how);
	bool tried = strcmp(how, "no private dir") && strcmp(how, "probe failed");
	if (s.where[0] || entries)
		sp_failr(r, "debugfs is mounted and visible (%s)", s.where[0] ? s.where : "/sys/kernel/debug");
	else if (mountable)
		sp_failr(r, "debugfs can be mounted from the sandbox");
	else if (!strcmp(how, "probe failed"))
		sp_errorr(r, "debugfs not mounted, but the mount probe failed: mountable not proven either way");
	else if (!tried)
		/* the mount was never tried: "not mountable" would rest on nothing */
		sp_skip(r, "cannot tell: debugfs is not mounted, but no writable directory was found to try a mount in");
	else
		sp_pass(r, "debugfs not mounted and not mountable");
}

const sp_check sp_check_kernel_debugfs = {
	.id = SP_CKID(kernel_debugfs),
	.category = "kernel",
	.title = "debugfs not mounted and not mountable",
	.rationale = "debugfs exposes raw kernel internals and writable debug knobs",
	.techniques = "T1613,T1611",
	.policy_keys = "",
	.method = "action",
	.run = run_debugfs,
	.flags = SP_CHECK_KERNEL,
	.batch = &kernel_probes,
};

static void run_devmem(const sp_ctx *ctx, sp_result *r)
{
	(void)ctx;
	static const char *const nodes[] = {"/dev/mem", "/dev/kmem", "/dev/port"};
	sp_expected(r, "/dev/mem, /dev/kmem, /dev/port absent or unopenable");
	size_t bad = 0;
	for (size_t i = 0; i < SP_ARRAY_SIZE(nodes); i++) {
		struct stat st;
		if (stat(nodes[i], &st) < 0) {
			sp_observed_add(r, "%s absent", nodes[i]);
			continue;
		}
		/* opening read-only changes nothing; no byte is read */
		int fd = open(nodes[i], O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (fd >= 0) {
			close(fd);
			bad++;
			sp_observed_add(r, "%s OPENS", nodes[i]);
		} else {
			sp_observed_add(r, "%s present, open %s", nodes[i], sp_errname(errno));
		}
	}
	if (bad)
		sp_failr(r, "%zu raw memory/port device(s) can be opened", bad);
	else
		sp_pass(r, "no raw memory or port device can be opened");
}

const sp_check sp_check_kernel_devmem = {
	.id = SP_CKID(kernel_devmem),
	.category = "kernel",
	.title = "/dev/mem, /dev/kmem, /dev/port unavailable",
	.rationale = "raw physical memory and I/O port access is total control of the host",
	.techniques = "T1611,T1006",
	.policy_keys = "",
	.method = "action",
	.run = run_devmem,
	.flags = SP_CHECK_KERNEL,
	.batch = &kernel_probes,
};

static void run_kcore(const sp_ctx *ctx, sp_result *r)
{
	(void)ctx;
	sp_expected(r, "/proc/kcore absent, unreadable or empty");
	int fd = open("/proc/kcore", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		sp_observed(r, "/proc/kcore: %s", sp_errname(errno));
		sp_pass(r, "/proc/kcore not readable (%s)", sp_errname(errno));
		return;
	}
	char hdr[4];
	ssize_t n = read(fd, hdr, sizeof hdr);
	int e = errno;
	close(fd);
	sp_observed(r, "/proc/kcore opened, read %zd bytes%s", n, n < 0 ? sp_errname(e) : "");
	if (n == 4 && !memcmp(hdr, "\x7f" "ELF", 4))
		sp_failr(r, "/proc/kcore readable: kernel memory image exposed");
	else
		sp_pass(r, "/proc/kcore yields no kernel image");
}

const sp_check sp_check_kernel_kcore = {
	.id = SP_CKID(kernel_kcore),
	.category = "kernel",
	.title = "/proc/kcore unreadable",
	.rationale = "/proc/kcore is the kernel's memory as an ELF core file",
	.techniques = "T1003,T1613",
	.policy_keys = "",
	.method = "read",
	.run = run_kcore,
	.flags = SP_CHECK_INPROCESS | SP_CHECK_KERNEL,
};

static void run_dmesg(const sp_ctx *ctx, sp_result *r)
{
	(void)ctx;
	sp_expected(r, "the kernel log cannot be read (syslog and /dev/kmsg refused)");
	char buf[4096];
	/* SYSLOG_ACTION_READ_ALL (3) does not consume the log */
	int n = klogctl(3, buf, sizeof buf - 1);
	int e = errno;
	buf[n > 0 ? n : 0] = '\0';
	/* gVisor answers syslog with canned lines of its own ("Starting
	 * gVisor...", jokes): not a kernel log of the host, so say what it is */
	bool canned = n > 0 && strstr(buf, "gVisor") && sp_boundary_get()->kind == SP_KERNEL_USERSPACE;
	char kbuf[64];
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int fe = errno;
	ssize_t kn = -1;
	if (fd >= 0) {
		kn = read(fd, kbuf, sizeof kbuf);
		fe = errno;
		close(fd);
	}
	long restrict_ = -1;
	sp_sysctl_long("/proc/sys/kernel/dmesg_restrict", &restrict_);
	sp_observed(r, "syslog(READ_ALL): %s; /dev/kmsg: %s; dmesg_restrict %ld",
		    n >= 0 ? (canned ? "READ gVisor's canned boot lines (the sentry's, not a host kernel log)" : "READ")
			   : sp_errname(e),
		    fd < 0 ? sp_errname(fe) : kn > 0 || (kn < 0 && fe == EINVAL) ? "READ" : sp_errname(fe), restrict_);
	bool kmsg = fd >= 0 && (kn > 0 || (kn < 0 && fe == EINVAL));
	if (n >= 0 || kmsg)
		sp_failr(r, "%s is readable (%s)", canned ? "the user-space kernel's log" : "the kernel log",
			 n >= 0 ? "syslog" : "/dev/kmsg");
	else
		sp_pass(r, "kernel log refused");
}

const sp_check sp_check_kernel_dmesg = {
	.id = SP_CKID(kernel_dmesg),
	.category = "kernel",
	.title = "kernel log restricted",
	.rationale = "the kernel log leaks addresses, hardware and other tenants' activity",
	.techniques = "T1613",
	.policy_keys = "",
	.method = "action",
	.run = run_dmesg,
	.flags = SP_CHECK_KERNEL,
	.batch = &kernel_probes,
};

static void run_swap(const sp_ctx *ctx, sp_result *r)
{
	bool allowed = sp_policy_bool(ctx->policy, "kernel.swap_allowed", true);
	sp_expected(r, "%s", allowed ? "any (swap allowed by policy)" : "no active swap");
	char buf[1024];
	ssize_t n = sp_read_file("/proc/swaps", buf, sizeof buf);
	if (n < 0) {
		sp_observed(r, "/proc/swaps: %s", sp_errname((int)-n));
		if (allowed)
			sp_pass(r, "swap allowed by policy (/proc/swaps unreadable: %s)", sp_errname((int)-n));
		else
			sp_errorr(r, "cannot read /proc/swaps: whether swap is on is not known");
		return;
	}
	size_t lines = 0;
	for (char *p = buf; *p; p++)
		lines += *p == '\n';
	size_t active = lines ? lines - 1 : 0;
	sp_observed(r, "%zu active swap area(s)", active);
	if (active && !allowed)
		sp_failr(r, "swap is on: secrets in memory can reach disk");
	else
		sp_pass(r, "%s", active ? "swap on, allowed by policy" : "swap off");
}

const sp_check sp_check_kernel_swap = {
	.id = SP_CKID(kernel_swap),
	.category = "kernel",
	.title = "swap off (per policy)",
	.rationale = "swapped-out pages put keys and tokens on persistent storage",
	.techniques = "T1005",
	.policy_keys = "kernel.swap_allowed:bool",
	.method = "read",
	.run = run_swap,
	.flags = SP_CHECK_INPROCESS,
};

static void run_ipv6(const sp_ctx *ctx, sp_result *r)
{
	bool allowed = sp_policy_bool(ctx->policy, "kernel.ipv6_allowed", true);
	sp_expected(r, "%s", allowed ? "any (IPv6 allowed by policy)" : "no IPv6 address configured");
	char buf[2048];
	ssize_t n = sp_read_file("/proc/net/if_inet6", buf, sizeof buf);
	size_t addrs = 0, lo = 0;
	if (n > 0) {
		char *save = NULL;
		for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			/* the last field is the interface: loopback (::1) carries nothing out */
			size_t len = strlen(l);
			if (len >= 3 && !strcmp(l + len - 3, " lo"))
				lo++;
			else
				addrs++;
		}
	}
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int e = errno;
	if (fd >= 0)
		close(fd);
	sp_observed(r, "%zu IPv6 address(es) beyond loopback (%zu on lo); AF_INET6 socket %s", addrs, lo,
		    fd >= 0 ? "ok" : sp_errname(e));
	if (addrs && !allowed)
		sp_failr(r, "IPv6 is configured: a second, often unfiltered, path out");
	else
		sp_pass(r, "%s", addrs ? "IPv6 on, allowed by policy" : "no IPv6 address");
}

const sp_check sp_check_kernel_ipv6 = {
	.id = SP_CKID(kernel_ipv6),
	.category = "kernel",
	.title = "IPv6 off (per policy)",
	.rationale = "IPv6 is often left out of egress rules written for IPv4",
	.techniques = "T1048",
	.policy_keys = "kernel.ipv6_allowed:bool",
	.method = "read",
	.run = run_ipv6,
	.batch = &kernel_probes,
};

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

/* Every call that creates a user namespace: a filter that refuses unshare
 * may still let clone or clone3 through. One child tries them in turn,
 * unshare last (it moves the child itself into the new namespace); when a
 * filter kills it, a new child resumes with the next way. */
enum userns_way { UW_CLONE, UW_CLONE3, UW_UNSHARE, UW_N };
static const char *const userns_way_name[] = {"clone(CLONE_NEWUSER)", "clone3(CLONE_NEWUSER)", "unshare(CLONE_NEWUSER)"};

/* 1 created, 0 refused (errno set) */
static int try_userns(enum userns_way w)
{
	if (w == UW_UNSHARE)
		return unshare(CLONE_NEWUSER) == 0;
	long pid;
	if (w == UW_CLONE) {
		pid = syscall(SYS_clone, (long)(CLONE_NEWUSER | SIGCHLD), 0L, 0L, 0L, 0L);
	} else {
		/* struct clone_args, version 0 (64 bytes): flags, pidfd, child_tid,
		 * parent_tid, exit_signal, stack, stack_size, tls */
		unsigned long long args[8] = {CLONE_NEWUSER, 0, 0, 0, SIGCHLD, 0, 0, 0};
		pid = syscall(SYS_clone3, args, sizeof args);
	}
	if (pid == 0)
		_exit(0); /* the new process, in its new user namespace */
	if (pid < 0)
		return 0;
	int e = errno;
	waitpid((pid_t)pid, NULL, 0);
	errno = e;
	return 1;
}

struct uw_rec {
	int made, err;
};

struct uw_state {
	char how[UW_N][48];
	bool done[UW_N];
};

static void uw_run(size_t i, void *rec, void *arg)
{
	(void)arg;
	struct uw_rec *u = rec;
	errno = 0;
	u->made = try_userns((enum userns_way)i);
	u->err = u->made ? 0 : errno;
}

static void uw_got(size_t i, const void *rec, void *arg)
{
	const struct uw_rec *u = rec;
	struct uw_state *st = arg;
	snprintf(st->how[i], sizeof st->how[i], "%s", u->made ? "CREATED" : sp_errname(u->err));
	st->done[i] = true;
}

static bool uw_lost(size_t i, int sig, bool timed_out, void *arg)
{
	struct uw_state *st = arg;
	if (sig) {
		snprintf(st->how[i], sizeof st->how[i], "killed by signal %d%s", sig, sig == SIGSYS ? " (SIGSYS)" : "");
		st->done[i] = sig == SIGSYS; /* a killing filter refused it */
	} else {
		snprintf(st->how[i], sizeof st->how[i], "%s", timed_out ? "timed out" : "no result");
	}
	return true;
}

static void run_userns(const sp_ctx *ctx, sp_result *r)
{
	bool allowed = sp_policy_bool(ctx->policy, "kernel.userns_allowed", true);
	sp_expected(r, "%s", allowed ? "any (user namespaces allowed by policy)"
				     : "creating a user namespace is refused (clone, clone3 and unshare)");
	long maxns = -1, clone = -1;
	sp_sysctl_long("/proc/sys/user/max_user_namespaces", &maxns);
	sp_sysctl_long("/proc/sys/kernel/unprivileged_userns_clone", &clone);
	struct uw_state st = {.done = {false}};
	char(*how)[48] = st.how;
	bool *done = st.done;
	for (int w = 0; w < UW_N; w++)
		snprintf(how[w], sizeof how[w], "no result");
	sp_probe_seq seq = {.n = UW_N,
			    .rec_size = sizeof(struct uw_rec),
			    .timeout_ms = 3000,
			    .run = uw_run,
			    .got = uw_got,
			    .lost = uw_lost,
			    .arg = &st};
	sp_outcome o = {0};
	sp_probe_seq_run(&seq, &o);
	const char *made = NULL;
	size_t unknown = 0;
	for (int w = 0; w < UW_N; w++) {
		if (w == 0)
			sp_observed(r, "%s in a child: %s", userns_way_name[w], how[w]);
		else
			sp_observed_add(r, "%s: %s", userns_way_name[w], how[w]);
		if (!strcmp(how[w], "CREATED") && !made)
			made = userns_way_name[w];
		unknown += !done[w];
	}
	sp_observed_add(r, "max_user_namespaces %ld; unprivileged_userns_clone %ld", maxns, clone);
	if (made && !allowed)
		sp_failr(r, "the sandbox can create user namespaces through %s (root-in-namespace kernel attack surface)",
			 made);
	else if (made)
		sp_pass(r, "user namespaces creatable (%s), allowed by policy", made);
	else if (unknown && !allowed)
		sp_errorr(r, "%zu way(s) of creating a user namespace could not be probed", unknown);
	else
		sp_pass(r, "user namespace creation refused every way it was tried");
}

const sp_check sp_check_kernel_userns = {
	.id = SP_CKID(kernel_userns),
	.category = "kernel",
	.title = "user namespace creation per policy",
	.rationale = "nested user namespaces hand namespace-root to the sandbox, the door to many kernel bugs",
	.techniques = "T1068,T1611",
	.policy_keys = "kernel.userns_allowed:bool",
	.method = "action",
	.run = run_userns,
	.flags = SP_CHECK_KERNEL | SP_CHECK_NOEMU,
	.batch = &kernel_probes,
};

/* a sysctl that must be at least a policy minimum */
static void run_sysctl_min(const char *path, const char *key, long def, const char *what, const sp_ctx *ctx,
			   sp_result *r)
{
	long long min = sp_policy_int(ctx->policy, key, def);
	sp_expected(r, "%s >= %lld", path, min);
	long v;
	int rc = sp_sysctl_long(path, &v);
	if (rc == -ENOENT) {
		sp_observed(r, "%s absent", path);
		if (min <= 0)
			sp_pass(r, "%s absent, policy demands nothing", path);
		else
			sp_failr(r, "%s absent: the kernel lacks %s", path, what);
		return;
	}
	if (rc < 0) {
		sp_observed(r, "%s: %s", path, strerror(-rc));
		sp_errorr(r, "cannot read %s: %s", path, strerror(-rc));
		return;
	}
	sp_observed(r, "%s = %ld", path, v);
	if (v >= min)
		sp_pass(r, "%s = %ld", path, v);
	else
		sp_failr(r, "%s = %ld, policy demands >= %lld", path, v, min);
}

#define SYSCTL_CHECK(sym, id_, path_, key_, def_, what_, title_, why_, tech_)                                  \
	static void run_##sym(const sp_ctx *ctx, sp_result *r) { run_sysctl_min(path_, key_, def_, what_, ctx, r); } \
	const sp_check sp_check_##sym = {                                                                     \
		.id = id_, .category = "kernel", .title = title_, .rationale = why_, .techniques = tech_,        \
		.policy_keys = key_ ":int", .method = "read", .run = run_##sym, .flags = SP_CHECK_INPROCESS | SP_CHECK_KERNEL, \
	}

SYSCTL_CHECK(kernel_bpf, SP_CKID(kernel_bpf), "/proc/sys/kernel/unprivileged_bpf_disabled",
	     "kernel.unprivileged_bpf_disabled_min", 1, "the sysctl", "unprivileged BPF disabled",
	     "unprivileged eBPF is a large attack surface and a source of Spectre gadgets", "T1068");
SYSCTL_CHECK(kernel_perf, SP_CKID(kernel_perf), "/proc/sys/kernel/perf_event_paranoid",
	     "kernel.perf_event_paranoid_min", 2, "perf events", "perf_event_paranoid per policy",
	     "perf events leak kernel addresses and have a long history of privilege escalations", "T1068,T1613");
SYSCTL_CHECK(kernel_ptrace_scope, SP_CKID(kernel_ptrace_scope), "/proc/sys/kernel/yama/ptrace_scope",
	     "kernel.ptrace_scope_min", 1, "Yama", "Yama ptrace scope per policy",
	     "a permissive ptrace scope lets any process read the memory of its siblings", "T1055.008");
SYSCTL_CHECK(kernel_kptr_restrict, SP_CKID(kernel_kptr_restrict), "/proc/sys/kernel/kptr_restrict",
	     "kernel.kptr_restrict_min", 1, "the sysctl", "kptr_restrict per policy",
	     "kernel pointers printed in /proc defeat KASLR", "T1613");
SYSCTL_CHECK(kernel_dmesg_restrict, SP_CKID(kernel_dmesg_restrict), "/proc/sys/kernel/dmesg_restrict",
	     "kernel.dmesg_restrict_min", 1, "the sysctl", "dmesg_restrict per policy",
	     "an unrestricted kernel log leaks addresses and activity", "T1613");

static void run_userfaultfd_sysctl(const sp_ctx *ctx, sp_result *r)
{
	bool allowed = sp_policy_bool(ctx->policy, "kernel.unprivileged_userfaultfd_allowed", false);
	sp_expected(r, "%s", allowed ? "any (allowed by policy)" : "vm.unprivileged_userfaultfd = 0 (or, without it, the call refused)");
	long v;
	int rc = sp_sysctl_long("/proc/sys/vm/unprivileged_userfaultfd", &v);
	if (rc < 0) {
		/* No sysctl proves nothing: kernels before 5.2 have none and let
		 * anyone create one. The call itself (the fd closed at once) says
		 * whether this kernel, or a filter, refuses it. */
		sp_observed(r, "/proc/sys/vm/unprivileged_userfaultfd: %s", sp_errname(-rc));
		long fd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
		int e = errno;
		if (fd >= 0)
			close((int)fd);
		bool ptrace_cap = sp_has_cap(CAP_SYS_PTRACE_BIT);
		sp_observed_add(r, "userfaultfd(): %s%s", fd >= 0 ? "created" : sp_errname(e),
				ptrace_cap ? " (with CAP_SYS_PTRACE)" : " (without CAP_SYS_PTRACE)");
		if (fd < 0 && (e == ENOSYS || e == EPERM || e == EACCES))
			sp_pass(r, "sysctl absent, userfaultfd refused (%s)", sp_errname(e));
		else if (fd >= 0 && !ptrace_cap && !allowed)
			sp_failr(r, "sysctl absent and userfaultfd created without CAP_SYS_PTRACE");
		else if (fd >= 0 && !ptrace_cap)
			sp_pass(r, "unprivileged userfaultfd works, allowed by policy");
		else
			sp_skip(r, "sysctl absent and %s: whether an unprivileged process may use userfaultfd is not proven",
				fd >= 0 ? "this process holds CAP_SYS_PTRACE" : sp_errname(e));
		return;
	}
	sp_observed(r, "vm.unprivileged_userfaultfd = %ld", v);
	if (v && !allowed)
		sp_failr(r, "unprivileged userfaultfd enabled: kernel races become reliable");
	else
		sp_pass(r, "vm.unprivileged_userfaultfd = %ld", v);
}

const sp_check sp_check_kernel_userfaultfd = {
	.id = SP_CKID(kernel_userfaultfd),
	.category = "kernel",
	.title = "unprivileged userfaultfd disabled",
	.rationale = "userfaultfd turns kernel race conditions into reliable exploits",
	.techniques = "T1068",
	.policy_keys = "kernel.unprivileged_userfaultfd_allowed:bool",
	.method = "read",
	.run = run_userfaultfd_sysctl,
	.flags = SP_CHECK_INPROCESS | SP_CHECK_KERNEL,
};

static void run_cmdline(const sp_ctx *ctx, sp_result *r)
{
	sp_strv need;
	sp_policy_list(ctx->policy, "kernel.cmdline", &need);
	sp_expected(r, "kernel command line contains: %s", need.n ? sp_policy_get(ctx->policy, "kernel.cmdline") : "(nothing required)");
	char buf[4096];
	ssize_t n = sp_read_file("/proc/cmdline", buf, sizeof buf);
	if (n < 0) {
		sp_observed(r, "/proc/cmdline: %s", sp_errname((int)-n));
		if (need.n)
			sp_errorr(r, "cannot read /proc/cmdline");
		else
			sp_pass(r, "nothing required (cmdline unreadable)");
		sp_strv_free(&need);
		return;
	}
	sp_strv have;
	sp_strv_split(&have, buf, " \t\n");
	size_t missing = 0;
	sp_observed(r, "%zu kernel parameters", have.n);
	for (size_t i = 0; i < need.n; i++)
		if (!sp_strv_contains(&have, need.v[i])) {
			missing++;
			sp_observed_add(r, "missing %s", need.v[i]);
		}
	if (missing)
		sp_failr(r, "%zu required kernel parameter(s) missing", missing);
	else
		sp_pass(r, "%s", need.n ? "all required kernel parameters present" : "nothing required by policy");
	sp_strv_free(&need);
	sp_strv_free(&have);
}

const sp_check sp_check_kernel_cmdline = {
	.id = SP_CKID(kernel_cmdline),
	.category = "kernel",
	.title = "kernel command line flags per policy",
	.rationale = "microVM guests rely on hardening flags (init_on_alloc, slab_nomerge ...) being set",
	.techniques = "",
	.policy_keys = "kernel.cmdline:list",
	.method = "read",
	.run = run_cmdline,
	.flags = SP_CHECK_INPROCESS,
};
