/* Filesystems and mounts: the root and writable paths, masked and read-only
 * kernel paths, escape knobs, host paths and mounts (mount options and space:
 * fs_mounts.c). Every write probe uses an exclusive-create unique name,
 * removes what it made and proves the removal. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "checks/roundtrip.h"
#include "checks/types.h"
#include "checks/probe.h"
#include "core/suid_probe.h"
#include "core/util.h"
#include "catalog/catalog.h"

/* Declared batches (see docs/CONTRIBUTING.md, execution model): the reads
 * and zero-byte write probes of kernel paths in /proc and /sys share one
 * child; so do the escapes (the mount-flag reads: fs_mounts.c). */
static const sp_batch fs_kernel_paths = {
	.id = "fs.kernel_paths",
	.what = "masked and read-only kernel paths and the escape knobs, opened in /proc and /sys (zero-byte writes)",
};
static const sp_batch fs_escapes = {
	.id = "fs.escapes",
	.what = "a write to the root, /proc/1/root, the root's mount propagation and a cgroup release_agent",
	.timeout_ms = 10000,
};

static void run_rootfs_readonly(const sp_ctx *ctx, sp_result *r)
{
	bool must = sp_expect_required(ctx, r, "fs.rootfs_readonly",
				       "a create at / fails with EROFS, and / is mounted ro");
	sp_mount m;
	int mr = sp_mountinfo_find("/", &m);
	bool flag_ro = mr == 0 && (sp_opt_has(m.opts, "ro") || sp_opt_has(m.super_opts, "ro"));
	char name[256];
	int e;
	int made = sp_create_probe("/", name, sizeof name, &e);
	if (made != 0) {
		sp_observed(r, "created %s (%s); mountinfo / %s%s", name,
			    made == 1 ? "removed, verified gone" : "COULD NOT REMOVE", mr == 0 ? m.opts : "unreadable",
			    mr == 0 ? "" : "");
		if (made < 0) {
			sp_errorr(r, "root is writable and the probe file %s could not be removed", name);
			return;
		}
		if (must)
			sp_failr(r, "the root filesystem accepted a new file");
		else
			sp_pass(r, "root writable, not required by policy");
		return;
	}
	sp_observed(r, "create at / failed with %s; mountinfo / %s (%s)", strerrorname_np(e) ? strerrorname_np(e) : "?",
		    mr == 0 ? m.opts : "unreadable", mr == 0 ? m.fstype : "-");
	if (mr != 0) {
		sp_errorr(r, "cannot read /proc/self/mountinfo to cross-check: %s", strerror(-mr));
		return;
	}
	if (e == EROFS) {
		if (flag_ro)
			sp_pass(r, "write refused with EROFS, / mounted ro");
		else
			sp_pass(r, "write refused with EROFS (mountinfo shows rw on a read-only superblock)");
	} else if (e == EACCES || e == EPERM) {
		if (flag_ro)
			sp_pass(r, "write refused with %s, / mounted ro", strerrorname_np(e));
		else if (must)
			sp_warn(r, "write refused by permissions only: / is mounted rw, a more privileged user could write");
		else
			sp_pass(r, "write refused by permissions, not required by policy");
	} else {
		sp_errorr(r, "unexpected error from the write probe: %s", strerror(e));
	}
}

/* create, write, read back, delete, and prove the deletion */
static int probe_dir(const char *dir, sp_outcome *o)
{
	char name[512];
	sp_probe_name(name, sizeof name, dir);
	int fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		return sp_why_errno(o, errno, "create: %s", strerror(errno));
	}
	char pattern[4096], back[4096];
	for (size_t i = 0; i < sizeof pattern; i++)
		pattern[i] = (char)('a' + (i * 7 + (size_t)fd) % 26);
	int ok = sp_write_all(fd, pattern, sizeof pattern) == 0 && lseek(fd, 0, SEEK_SET) == 0;
	ssize_t got = ok ? read(fd, back, sizeof back) : -1;
	int rerr = errno;
	close(fd);
	int u = unlink(name);
	struct stat st;
	bool gone = lstat(name, &st) < 0 && errno == ENOENT;
	if (!ok || got != (ssize_t)sizeof back || memcmp(pattern, back, sizeof back) != 0) {
		sp_why_errno(o, got < 0 ? rerr : 0, "write/read back failed: %s", got < 0 ? strerror(rerr) : "content differs");
		return -1;
	}
	if (u != 0 || !gone) {
		sp_why(o, "probe %s could not be removed", name);
		return -2;
	}
	sp_why(o, "create/write/read/delete ok");
	return 0;
}

static void run_writable_paths(const sp_ctx *ctx, sp_result *r)
{
	sp_strv paths;
	sp_policy_list(ctx->policy, "fs.writable", &paths);
	if (paths.n == 0) {
		sp_expected(r, "no writable paths declared");
		sp_skip(r, "policy declares no writable paths (fs.writable)");
		sp_strv_free(&paths);
		return;
	}
	sp_expected(r, "create/read/delete works in %s", sp_policy_get(ctx->policy, "fs.writable"));
	size_t bad = 0, leaked = 0;
	for (size_t i = 0; i < paths.n; i++) {
		sp_outcome o = {0};
		int pr = probe_dir(paths.v[i], &o);
		sp_observed_add(r, "%s: %.599s", paths.v[i], o.why);
		bad += pr < 0;
		leaked += pr == -2;
	}
	if (leaked)
		sp_errorr(r, "a probe file could not be removed");
	else if (bad)
		sp_failr(r, "%zu of %zu writable paths refused create/read/delete", bad, paths.n);
	else
		sp_pass(r, "all %zu writable paths accept create/read/delete (probes removed)", paths.n);
	sp_strv_free(&paths);
}

const sp_check sp_check_fs_rootfs_readonly = {
	.id = SP_CKID(fs_rootfs_readonly),
	.category = "filesystem",
	.title = "root filesystem read-only",
	.rationale = "a writable root lets a compromised workload persist and tamper with its own tools",
	.techniques = "T1554,T1611,AML.T0101,AML.T0110,AML.T0011.001",
	.policy_keys = "fs.rootfs_readonly:bool",
	.method = "action",
	.run = run_rootfs_readonly,
	.batch = &fs_escapes,
};

const sp_check sp_check_fs_writable_paths = {
	.id = SP_CKID(fs_writable_paths),
	.category = "filesystem",
	.title = "declared writable paths usable",
	.rationale = "a sandbox must stay usable: its scratch and workspace paths must accept files",
	.techniques = "",
	.policy_keys = "fs.writable:paths",
	.method = "action",
	.run = run_writable_paths,
};

/* ---- masked and read-only paths ---- */

/* 1 readable with content, 0 masked (absent, refused or empty) */
static int masked_probe(const char *p, char *how, size_t hsz)
{
	struct stat st;
	if (stat(p, &st) < 0) {
		snprintf(how, hsz, "%s", sp_errname(errno));
		return 0;
	}
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(p);
		if (!d) {
			snprintf(how, hsz, "dir, %s", sp_errname(errno));
			return 0;
		}
		size_t n = 0;
		struct dirent *de;
		while ((de = readdir(d)))
			n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
		closedir(d);
		snprintf(how, hsz, "dir with %zu entries", n);
		return n > 0;
	}
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		snprintf(how, hsz, "open %s", sp_errname(errno));
		return 0;
	}
	char c[16];
	ssize_t n = read(fd, c, sizeof c);
	int e = errno;
	close(fd);
	if (n <= 0) {
		snprintf(how, hsz, "%s", n == 0 ? "empty" : sp_errname(e));
		return 0;
	}
	if (S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3) {
		snprintf(how, hsz, "/dev/null bind");
		return 0;
	}
	snprintf(how, hsz, "READABLE");
	return 1;
}

/* Probe one path of a list-valued policy key: add an observed line and say
 * whether the path is bad; name (preset to path) is what a failure names. */
typedef bool (*path_probe)(const char *path, sp_result *r, char *name, size_t nsz);

/* expected "<expect>: <list>"; fail "N <bad_what> (first: NAME)", pass
 * "<pass_pre> N <pass_post>" */
static void run_path_list(const sp_ctx *ctx, sp_result *r, const char *key, const char *expect, path_probe probe,
			  const char *bad_what, const char *pass_pre, const char *pass_post)
{
	sp_strv paths;
	sp_policy_list(ctx->policy, key, &paths);
	sp_expected(r, "%s: %s", expect, paths.n ? sp_policy_get(ctx->policy, key) : "(none)");
	size_t bad = 0;
	char first[128] = "";
	for (size_t i = 0; i < paths.n; i++) {
		char name[128];
		snprintf(name, sizeof name, "%s", paths.v[i]);
		if (probe(paths.v[i], r, name, sizeof name) && !bad++)
			snprintf(first, sizeof first, "%s", name);
	}
	if (bad)
		sp_failr(r, "%zu %s (first: %s)", bad, bad_what, first);
	else
		sp_pass(r, "%s %zu %s", pass_pre, paths.n, pass_post);
	sp_strv_free(&paths);
}

static bool masked_bad(const char *path, sp_result *r, char *name, size_t nsz)
{
	(void)name;
	(void)nsz;
	char how[64];
	int m = masked_probe(path, how, sizeof how);
	sp_observed_add(r, "%s: %s", path, how);
	return m == 1;
}

static void run_masked(const sp_ctx *ctx, sp_result *r)
{
	run_path_list(ctx, r, "fs.masked", "absent, unreadable or empty", masked_bad, "masked path(s) readable", "all",
		      "masked paths hidden");
}

const sp_check sp_check_fs_masked_paths = {
	.id = SP_CKID(fs_masked_paths),
	.category = "filesystem",
	.title = "kernel information paths masked",
	.rationale = "/proc/kcore, /proc/keys, timer_list and firmware tables leak kernel memory, keys and layout",
	.techniques = "T1613,T1552",
	.policy_keys = "fs.masked:paths",
	.method = "action",
	.run = run_masked,
	.flags = SP_CHECK_KERNEL,
	.batch = &fs_kernel_paths,
};

/* a writable-looking file under dir (depth <= 2), for the write probe */
static bool find_writable_file(const char *dir, int depth, char *out, size_t osz)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	struct dirent *de;
	bool found = false;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char p[512];
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		struct stat st;
		if (lstat(p, &st) < 0)
			continue;
		if (S_ISREG(st.st_mode) && (st.st_mode & S_IWUSR)) {
			snprintf(out, osz, "%s", p);
			found = true;
		} else if (S_ISDIR(st.st_mode) && depth > 0) {
			found = find_writable_file(p, depth - 1, out, osz);
		}
	}
	closedir(d);
	return found;
}

static bool readonly_bad(const char *path, sp_result *r, char *name, size_t nsz)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		sp_observed_add(r, "%s: %s", path, sp_errname(errno));
		return false;
	}
	char target[512];
	if (S_ISDIR(st.st_mode)) {
		struct statvfs sv;
		if (statvfs(path, &sv) == 0 && (sv.f_flag & ST_RDONLY)) {
			sp_observed_add(r, "%s: read-only mount", path);
			return false;
		}
		if (!find_writable_file(path, 2, target, sizeof target)) {
			sp_observed_add(r, "%s: no file with a write bit", path);
			return false;
		}
	} else {
		snprintf(target, sizeof target, "%s", path);
	}
	/* open for write without O_TRUNC; no byte is written */
	int e = 0;
	int w = sp_write_probe(target, false, &e);
	sp_observed_add(r, "%s: write open %s", target, w == 1 ? "ACCEPTED" : sp_errname(e));
	if (w == 1)
		snprintf(name, nsz, "%s", target);
	return w == 1;
}

static void run_readonly_paths(const sp_ctx *ctx, sp_result *r)
{
	run_path_list(ctx, r, "fs.readonly", "refuse a zero-byte write", readonly_bad, "read-only path(s) accept writes",
		      "all", "read-only paths refuse writes");
}

const sp_check sp_check_fs_readonly_paths = {
	.id = SP_CKID(fs_readonly_paths),
	.category = "filesystem",
	.title = "kernel tunables read-only",
	.rationale = "writable /proc/sys, /proc/irq or /proc/bus reconfigure the host kernel",
	.techniques = "T1611",
	.policy_keys = "fs.readonly:paths",
	.method = "action",
	.run = run_readonly_paths,
	.flags = SP_CHECK_KERNEL,
	.batch = &fs_kernel_paths,
};

/* ---- kernel escape knobs ---- */

static void run_knob(const char *path, bool write0, const sp_ctx *ctx, sp_result *r)
{
	bool must = sp_policy_bool(ctx->policy, "fs.knobs_readonly", true);
	sp_expected(r, "%s", must ? "open for writing refused (or absent)" : "any (fs.knobs_readonly = false)");
	int e = 0;
	int w = sp_write_probe(path, write0, &e);
	if (w < 0) {
		sp_observed(r, "%s absent", path);
		sp_pass(r, "%s absent", path);
		return;
	}
	sp_observed(r, "%s: write open%s %s", path, write0 ? " + zero-byte write" : "", w == 1 ? "ACCEPTED" : sp_errname(e));
	if (w == 1 && must)
		sp_failr(r, "%s is writable: a host-wide escape knob", path);
	else if (w == 1)
		sp_pass(r, "%s writable, allowed by policy", path);
	else
		sp_pass(r, "%s refused (%s)", path, sp_errname(e));
}

#define KNOB_CHECK(sym, id_, path_, write0_, title_, why_, tech_)                                            \
	static void run_##sym(const sp_ctx *ctx, sp_result *r) { run_knob(path_, write0_, ctx, r); }         \
	const sp_check sp_check_##sym = {                                                                  \
		.id = id_, .category = "filesystem", .title = title_, .rationale = why_, .techniques = tech_, \
		.policy_keys = "fs.knobs_readonly:bool", .method = "action", .run = run_##sym,            \
		.flags = SP_CHECK_KERNEL, .batch = &fs_kernel_paths,                                       \
	}

/* zero-byte writes: sysctl strings and sysfs stores ignore a zero count;
 * binfmt_misc's register refuses it with EINVAL; nothing changes */
KNOB_CHECK(fs_core_pattern, SP_CKID(fs_core_pattern), "/proc/sys/kernel/core_pattern", true,
	   "core_pattern not writable", "a piped core_pattern runs a program as root on the host at the next crash",
	   "T1611,T1543");
KNOB_CHECK(fs_modprobe, SP_CKID(fs_modprobe), "/proc/sys/kernel/modprobe", true, "modprobe path not writable",
	   "the kernel runs the modprobe path as root on the host", "T1611,T1547.006");
KNOB_CHECK(fs_sysrq_trigger, SP_CKID(fs_sysrq_trigger), "/proc/sysrq-trigger", true, "sysrq-trigger not writable",
	   "sysrq-trigger reboots, crashes or freezes the host", "T1499");
KNOB_CHECK(fs_binfmt_misc, SP_CKID(fs_binfmt_misc), "/proc/sys/fs/binfmt_misc/register", true,
	   "binfmt_misc register not writable", "a binfmt_misc handler runs for every matching exec on the host",
	   "T1543,T1611");
KNOB_CHECK(fs_uevent_helper, SP_CKID(fs_uevent_helper), "/sys/kernel/uevent_helper", true, "uevent_helper not writable",
	   "the uevent helper runs as root on the host for every device event", "T1611");

struct ra_arg {
	char dir[512];
};

/* The kernel refuses a release_agent write itself (EPERM) without
 * CAP_SYS_ADMIN in the initial user namespace, whatever the file's mode, so
 * an open for writing proves nothing: the write is the proof. It writes the
 * file's current value back (the kernel strips the newline it shows), so an
 * accepted write changes nothing; an empty value is written back as "\n".
 * 1 accepted, 0 refused (*err: the open's or the write's errno), -1
 * absent (*err ENOENT). */
static int ra_write_same(const char *path, int *err)
{
	*err = 0;
	int fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0) {
		*err = errno;
		return errno == ENOENT ? -1 : 0;
	}
	char cur[4097];
	ssize_t n = pread(fd, cur, sizeof cur - 1, 0);
	if (n < 0) {
		*err = errno;
		close(fd);
		return 0;
	}
	if (n == 0)
		cur[n++] = '\n';
	ssize_t w = pwrite(fd, cur, (size_t)n, 0);
	if (w < 0)
		*err = errno;
	close(fd);
	return w >= 0 ? 1 : 0;
}

static long pr_release_agent(void *a)
{
	struct ra_arg *p = a;
	sp_private_mountns();
	char opts[64];
	/* a fresh, uniquely named v1 hierarchy (another with the same name
	 * would be joined: the write puts back the value it read) */
	snprintf(opts, sizeof opts, "none,name=sandprobe%d", (int)getpid());
	if (mount("cgroup", p->dir, "cgroup", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts) < 0)
		return 0;
	char path[600];
	snprintf(path, sizeof path, "%s/release_agent", p->dir);
	int e = 0;
	long ok = ra_write_same(path, &e) == 1;
	umount2(p->dir, MNT_DETACH);
	errno = ok ? 0 : e;
	return ok ? 1 : 0;
}

struct ra_walk {
	sp_result *r;
	size_t writable;
	char first[256];
};

static int ra_cb(const sp_mount *m, void *arg)
{
	struct ra_walk *w = arg;
	if (strcmp(m->fstype, "cgroup"))
		return 0;
	char p[600];
	snprintf(p, sizeof p, "%s/release_agent", m->mountpoint);
	int e = 0;
	/* the host's own file: its current value written back, nothing else */
	int ok = ra_write_same(p, &e);
	if (ok < 0)
		return 0;
	sp_observed_add(w->r, "%s: write of its own value %s", p, ok == 1 ? "ACCEPTED" : sp_errname(e));
	if (ok == 1 && !w->writable++)
		snprintf(w->first, sizeof w->first, "%s", p);
	return 0;
}

static void run_release_agent(const sp_ctx *ctx, sp_result *r)
{
	bool must = sp_policy_bool(ctx->policy, "fs.knobs_readonly", true);
	sp_expected(r, "%s", must ? "no writable cgroup v1 release_agent, and no cgroup v1 mount possible"
				  : "any (fs.knobs_readonly = false)");
	struct ra_walk w = {.r = r};
	sp_observed(r, "mounted v1 hierarchies");
	sp_mountinfo_each(ra_cb, &w);
	struct ra_arg a;
	sp_outcome o = {0};
	int dr = sp_private_dir(ctx, a.dir, sizeof a.dir, &o);
	sp_call c = {0};
	int rc = -1;
	if (dr == 0) {
		rc = sp_child_call(pr_release_agent, &a, 2000, &c);
		if (sp_private_dir_remove(a.dir, &o) < 0) {
			sp_errorr(r, "probe directory %s not removed: %s", a.dir, o.why);
			return;
		}
		if (rc == 0 && c.ran)
			sp_observed_add(r, "fresh cgroup v1 mount in a child: %s",
					c.ret == 1 ? "mounted, release_agent writable" : sp_errname(c.err));
	} else {
		sp_observed_add(r, "no private dir for the mount probe: %s", o.why);
	}
	bool fresh = rc == 0 && c.ran && c.ret == 1;
	if ((w.writable || fresh) && must)
		sp_failr(r, "release_agent writable (%s)", w.writable ? w.first : "by mounting a cgroup v1 hierarchy");
	else if (w.writable || fresh)
		sp_pass(r, "release_agent writable, allowed by policy");
	else
		sp_pass(r, "no writable release_agent");
}

const sp_check sp_check_fs_release_agent = {
	.id = SP_CKID(fs_release_agent),
	.category = "filesystem",
	.title = "cgroup release_agent not writable",
	.rationale = "a cgroup v1 release_agent runs a program as root on the host (CVE-2022-0492)",
	.techniques = "T1611",
	.policy_keys = "fs.knobs_readonly:bool",
	.method = "action",
	.run = run_release_agent,
	.flags = SP_CHECK_KERNEL,
	.batch = &fs_escapes,
};

/* ---- host-sensitive paths, /proc/1/root, propagation ---- */

static bool host_sensitive_bad(const char *path, sp_result *r, char *name, size_t nsz)
{
	(void)name;
	(void)nsz;
	struct stat st;
	if (lstat(path, &st) < 0) {
		sp_observed_add(r, "%s: %s", path, sp_errname(errno));
		return false;
	}
	bool reach;
	const char *how;
	if (S_ISSOCK(st.st_mode)) {
		reach = access(path, W_OK) == 0;
		how = reach ? "socket, writable" : "socket, no write permission";
	} else if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		reach = d != NULL;
		if (d)
			closedir(d);
		how = reach ? "directory listable" : sp_errname(errno);
	} else {
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		char buf[4096];
		ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
		int e = errno;
		reach = n > 0;
		how = reach ? "READABLE" : fd < 0 ? sp_errname(e) : "empty";
		/* a shadow file matters when it holds password hashes ("user:$..."),
		 * not when it is an image's own locked accounts */
		if (reach && sp_endswith(path, "shadow")) {
			buf[n] = '\0';
			reach = strstr(buf, ":$") != NULL;
			how = reach ? "READABLE, holds password hashes" : "readable, no password hash";
		}
		if (fd >= 0)
			close(fd);
	}
	sp_observed_add(r, "%s: %s", path, how);
	return reach;
}

static void run_host_sensitive(const sp_ctx *ctx, sp_result *r)
{
	run_path_list(ctx, r, "fs.host_sensitive", "absent or unreadable", host_sensitive_bad,
		      "host-sensitive path(s) reachable", "none of", "host-sensitive paths reachable");
}

const sp_check sp_check_fs_host_sensitive = {
	.id = SP_CKID(fs_host_sensitive),
	.category = "filesystem",
	.title = "host-sensitive paths absent",
	.rationale = "password hashes, SSH host keys, kubeconfigs and runtime sockets must not be bind-mounted in",
	.techniques = "T1552.001,T1552,AML.T0055",
	.policy_keys = "fs.host_sensitive:paths",
	.method = "action",
	.run = run_host_sensitive,
};

static void run_proc1_root(const sp_ctx *ctx, sp_result *r)
{
	bool must = sp_expect_required(ctx, r, "proc.isolated",
				       "no visible process's /proc/PID/root is another, listable root");
	struct stat self;
	if (stat("/", &self) < 0) {
		sp_errorr(r, "cannot stat /: %s", strerror(errno));
		return;
	}
	DIR *d = opendir("/proc");
	if (!d) {
		sp_errorr(r, "cannot list /proc: %s", strerror(errno));
		return;
	}
	size_t seen = 0, same = 0, refused = 0, other = 0;
	bool cut = false;
	char first[64] = "";
	struct dirent *de;
	while ((de = readdir(d)) && !(cut = seen >= 65536)) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		seen++;
		char p[64];
		snprintf(p, sizeof p, "/proc/%s/root/", de->d_name);
		struct stat st;
		if (stat(p, &st) < 0) {
			refused++;
			continue;
		}
		if (st.st_dev == self.st_dev && st.st_ino == self.st_ino) {
			same++;
			continue;
		}
		DIR *o = opendir(p);
		if (!o) {
			refused++;
			continue;
		}
		closedir(o);
		if (!other++)
			snprintf(first, sizeof first, "%s", p);
	}
	closedir(d);
	sp_observed(r, "%zu processes: %zu share our root, %zu refuse, %zu show another listable root%s%s%s", seen, same,
		    refused, other, other ? " (first: " : "", other ? first : "", other ? ")" : "");
	if (other)
		sp_observed_add(r, "/ is dev %lu ino %lu", (unsigned long)self.st_dev, (unsigned long)self.st_ino);
	if (other && must)
		sp_failr(r, "%s is another filesystem root and can be listed: an escape path", first);
	else if (other)
		sp_pass(r, "another root reachable, not required by policy");
	else if (seen == 0)
		sp_errorr(r, "/proc lists no process: no root looked at");
	else if (cut)
		sp_errorr(r, "stopped after %zu processes: the rest not looked at", seen);
	else
		sp_pass(r, "no other root reachable through /proc");
}

const sp_check sp_check_fs_proc1_root = {
	.id = SP_CKID(fs_proc1_root),
	.category = "filesystem",
	.title = "no escape through /proc/1/root",
	.rationale = "a host pid 1 in view exposes the host's whole filesystem at /proc/1/root",
	.techniques = "T1611,AML.T0112.000",
	.policy_keys = "proc.isolated:bool",
	.method = "action",
	.run = run_proc1_root,
	.flags = SP_CHECK_KERNEL,
	.batch = &fs_escapes,
};

/* the number after tag ("shared:", "master:") in mountinfo's optional fields, 0 if none */
static unsigned long opt_num(const char *optional, const char *tag)
{
	const char *p = strstr(optional, tag);
	return p ? strtoul(p + strlen(tag), NULL, 10) : 0;
}

/* Does another mount namespace visible here hold a member of peer group
 * `group`? 1 yes (where in *where, host says whether it is pid 1's), 0 none
 * found; *host_seen tells whether the namespace of the initial PID
 * namespace's init was among those looked at. */
static int peer_outside(unsigned long group, char *where, size_t wsz, bool *host, bool *host_seen, bool *in_host,
			size_t *nsn)
{
	char self[64] = "";
	ssize_t l = readlink("/proc/self/ns/mnt", self, sizeof self - 1);
	if (l > 0)
		self[l] = '\0';
	char pidns[64] = "";
	l = readlink("/proc/self/ns/pid", pidns, sizeof pidns - 1);
	if (l > 0)
		pidns[l] = '\0';
	/* pid 1 is the host's init only in the initial PID namespace */
	bool pid1_is_host = !strcmp(pidns, "pid:[4026531836]");
	bool init_fixed = sp_kernel_version() >= 61800;
	*host = *host_seen = *in_host = false;
	*nsn = 0;
	char seen[64][32];
	size_t ns = 0;
	char tagbuf[32];
	snprintf(tagbuf, sizeof tagbuf, "shared:%lu", group);
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	struct dirent *de;
	unsigned scanned = 0;
	int found = 0;
	while ((de = readdir(d)) && scanned < 4096 && ns < SP_ARRAY_SIZE(seen)) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		scanned++;
		char p[64], link[64];
		snprintf(p, sizeof p, "/proc/%s/ns/mnt", de->d_name);
		l = readlink(p, link, sizeof link - 1);
		if (l <= 0)
			continue;
		link[l] = '\0';
		/* pid 1 of the initial PID namespace, or (from 6.18, where the
		 * kernel fixes its inode) the initial mount namespace itself */
		bool is_pid1 = (!strcmp(de->d_name, "1") && pid1_is_host) || (init_fixed && !strcmp(link, "mnt:[4026531832]"));
		if (!strcmp(link, self)) {
			if (is_pid1)
				*host_seen = *in_host = true; /* we are in the host's mount namespace */
			continue;
		}
		bool dup = false;
		for (size_t i = 0; i < ns && !dup; i++)
			dup = !strcmp(seen[i], link);
		if (dup)
			continue;
		snprintf(seen[ns++], sizeof seen[0], "%s", link);
		if (is_pid1)
			*host_seen = true;
		snprintf(p, sizeof p, "/proc/%s/mountinfo", de->d_name);
		int e = 0;
		_cleanup_free_ char *mi = sp_read_file_alloc(p, 16u << 20, NULL, &e);
		if (!mi)
			continue;
		for (char *q = mi; (q = strstr(q, tagbuf)); q += strlen(tagbuf)) {
			char after = q[strlen(tagbuf)];
			if (q > mi && q[-1] == ' ' && (after == ' ' || after == '\0')) {
				snprintf(where, wsz, "%s (pid %s%s)", link, de->d_name, is_pid1 ? ", the host's" : "");
				*host = is_pid1;
				found = 1;
				break;
			}
		}
		if (found)
			break;
	}
	closedir(d);
	*nsn = ns;
	return found;
}

/* fs.propagation's words: how / propagates towards the host */
static const char *const propagations[] = {"private", "slave", "shared", "unbindable", NULL};
const sp_policy_type sp_ptype_propagation = {.name = "propagation", .what = "private, slave, shared or unbindable",
					     .list = true, .choices = propagations};

static void run_propagation(const sp_ctx *ctx, sp_result *r)
{
	sp_strv ok;
	sp_policy_list(ctx->policy, "fs.propagation", &ok);
	sp_expected(r, "propagation of / towards the host is one of: %s",
		    ok.n ? sp_policy_get(ctx->policy, "fs.propagation") : "any");
	sp_mount m;
	int rc = sp_mountinfo_find("/", &m);
	if (rc < 0) {
		sp_errorr(r, "cannot read mountinfo: %s", strerror(-rc));
		sp_strv_free(&ok);
		return;
	}
	unsigned long group = opt_num(m.optional, "shared:");
	bool master = strstr(m.optional, "master:") != NULL;
	const char *kind = group ? (master ? "shared,slave" : "shared")
			   : master ? "slave"
			   : strstr(m.optional, "unbindable") ? "unbindable"
							      : "private";
	sp_observed(r, "/ propagation \"%s\" (%s)", m.optional, kind);
	/* A shared / propagates to the other members of its peer group. Whether
	 * the host holds one is what matters: a runtime that makes its own copy
	 * shared creates a new group that nothing outside joins. */
	const char *toward = kind; /* the propagation as seen from the host */
	bool undetermined = false;
	if (group) {
		char where[160] = "";
		bool host = false, host_seen = false, in_host = false;
		size_t nsn = 0;
		char self[64] = "";
		ssize_t l = readlink("/proc/self/ns/mnt", self, sizeof self - 1);
		if (l > 0)
			self[l] = '\0';
		bool initial_mnt = !strcmp(self, "mnt:[4026531832]") && sp_kernel_version() >= 61800;
		int out = initial_mnt ? 0 : peer_outside(group, where, sizeof where, &host, &host_seen, &in_host, &nsn);
		bool in_host_ns = initial_mnt || in_host;
		if (in_host_ns) {
			sp_observed_add(r, "the sandbox is in the host's own mount namespace (%s)", self);
			toward = "shared";
		} else if (out) {
			sp_observed_add(r, "peer group %lu has a member in mount namespace %s", group, where);
			toward = "shared";
		} else if (host_seen) {
			sp_observed_add(r, "peer group %lu: no member in the %zu other mount namespace(s) visible, the host's "
					   "among them: the group is the sandbox's own",
					group, nsn);
			toward = master ? "slave" : "private";
		} else {
			sp_observed_add(r, "peer group %lu: no member in the %zu other mount namespace(s) visible; the host's "
					   "is not visible from here",
					group, nsn);
			undetermined = true;
		}
	}
	bool good = !ok.n || sp_strv_contains(&ok, toward);
	if (undetermined && !(ok.n && sp_strv_contains(&ok, "shared")))
		sp_warn(r, "/ is %s: whether its peer group reaches the host cannot be seen from inside (sandprobe live "
			   "compares from the host)",
			kind);
	else if (good)
		sp_pass(r, "/ is %s%s%s", kind, strcmp(kind, toward) ? ", towards the host " : "",
			strcmp(kind, toward) ? toward : "");
	else
		sp_failr(r, "/ is %s: mounts propagate %s", kind,
			 !strcmp(toward, "slave") ? "in from the host" : "between the sandbox and the host");
	sp_strv_free(&ok);
}

const sp_check sp_check_fs_propagation = {
	.id = SP_CKID(fs_propagation),
	.category = "filesystem",
	.title = "root mount propagation private or slave",
	.rationale = "a shared root propagates the sandbox's mounts to the host and the host's into the sandbox",
	.techniques = "T1611",
	.policy_keys = "fs.propagation:propagation",
	.method = "read",
	.run = run_propagation,
	.flags = SP_CHECK_KERNEL,
	.batch = &fs_escapes,
};

/* ---- host filesystems mounted into the sandbox ----
 *
 * A mount of the host's root, /etc, /var, /var/lib or /run in the sandbox
 * (docker -v /:/host, a hostPath volume) hands over the host's files and
 * control sockets. Mountinfo alone cannot tell the host's tmpfs /run from
 * the sandbox's own, so each directory mount (not the sandbox's own root,
 * not kernel pseudo filesystems, not single files such as /etc/hosts) is
 * looked into for what only a host system holds: an engine's state
 * (var/lib/docker, lib/containerd, run/containerd/containerd.sock,
 * docker.sock ...), a system's /etc whose machine-id is not the sandbox's
 * own, a proc whose "self" is not this process (another PID namespace's,
 * the host's). A control socket counts only while it is a socket. */
static const char *const host_markers[] = {
	/* the host's root */
	"var/lib/docker",
	"var/lib/containerd",
	"var/lib/kubelet",
	"run/containerd/containerd.sock",
	"run/docker.sock",
	"var/run/docker.sock",
	"run/podman/podman.sock",
	"run/crio/crio.sock",
	/* the host's /var */
	"lib/docker/overlay2",
	"lib/containerd/io.containerd.content.v1.content",
	"lib/kubelet/pods",
	/* the host's /var/lib */
	"docker/overlay2",
	"containerd/io.containerd.content.v1.content",
	"kubelet/pods",
	/* the host's /run */
	"docker.sock",
	"containerd/containerd.sock",
	"podman/podman.sock",
	"crio/crio.sock",
};

struct hm_walk {
	sp_result *r;
	char own_mid[64]; /* "" when the sandbox has none */
	size_t looked, host;
	char first[300];
};

static void read_machine_id(const char *path, char *out, size_t size)
{
	char buf[128];
	ssize_t n = sp_read_file(path, buf, sizeof buf);
	out[0] = '\0';
	if (n > 0)
		snprintf(out, size, "%s", sp_trim(buf));
}

/* Does the mount at mp (its real path, mpl its length, 0 for /) hold the
 * marker as a host has it? Only what is inside this mount counts (a path
 * through a symlink that leaves it, such as var/run -> /run, is judged at
 * the mount it leads to), a socket marker must be a socket and a directory
 * one a directory with entries: a path a runtime blanked out (firejail's
 * blacklist leaves an empty, inaccessible file or directory) holds nothing
 * of the host's. */
static bool holds_marker(const char *mp, size_t mpl, const char *marker)
{
	char p[PATH_MAX], real[PATH_MAX];
	struct stat st;
	snprintf(p, sizeof p, "%s/%s", mpl ? mp : "", marker);
	if (!realpath(p, real) || stat(real, &st) < 0)
		return false;
	if (mpl && (strncmp(real, mp, mpl) || real[mpl] != '/'))
		return false;
	size_t ml = strlen(marker);
	if (ml > 5 && !strcmp(marker + ml - 5, ".sock"))
		return S_ISSOCK(st.st_mode);
	if (!S_ISDIR(st.st_mode))
		return false;
	DIR *d = opendir(real);
	if (!d)
		return false;
	bool any = false;
	for (struct dirent *e; !any && (e = readdir(d));)
		any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return any;
}

/* the evidence that the mount is a host's, in why; false if none */
static bool host_evidence(const struct hm_walk *w, const sp_mount *m, char *why, size_t wsz)
{
	char p[1024];
	if (!strcmp(m->fstype, "proc")) {
		char self[32];
		snprintf(p, sizeof p, "%s/self", m->mountpoint);
		ssize_t n = readlink(p, self, sizeof self - 1);
		if (n <= 0)
			return false;
		self[n] = '\0';
		if (atoi(self) == (int)getpid())
			return false;
		snprintf(why, wsz, "a proc of another PID namespace (its self is %s, this process is %d there)", self,
			 (int)getpid());
		return true;
	}
	char mp[PATH_MAX];
	if (!realpath(m->mountpoint, mp))
		snprintf(mp, sizeof mp, "%s", m->mountpoint);
	size_t mpl = strcmp(mp, "/") ? strlen(mp) : 0;
	for (size_t i = 0; i < SP_ARRAY_SIZE(host_markers); i++)
		if (holds_marker(mp, mpl, host_markers[i])) {
			snprintf(why, wsz, "holds %s", host_markers[i]);
			return true;
		}
	static const char *const etcs[] = {"etc/", ""};
	for (size_t i = 0; i < SP_ARRAY_SIZE(etcs); i++) {
		char mid[64], passwd[1024];
		struct stat st;
		snprintf(p, sizeof p, "%s/%smachine-id", m->mountpoint, etcs[i]);
		snprintf(passwd, sizeof passwd, "%s/%spasswd", m->mountpoint, etcs[i]);
		read_machine_id(p, mid, sizeof mid);
		/* a system's /etc (passwd beside it) with an id that is not ours */
		if (strlen(mid) >= 32 && strcmp(mid, w->own_mid) && lstat(passwd, &st) == 0) {
			snprintf(why, wsz, "a system's /etc with another machine-id (%.8s..., the sandbox's %s)", mid,
				 w->own_mid[0] ? "differs" : "is absent");
			return true;
		}
	}
	return false;
}

static int hm_cb(const sp_mount *m, void *arg)
{
	struct hm_walk *w = arg;
	static const char *const pseudo[] = {"sysfs", "cgroup", "cgroup2", "devpts", "mqueue", "devtmpfs",
					     "securityfs", "debugfs", "tracefs", "bpf", "pstore", "configfs",
					     "fusectl", "hugetlbfs", "binfmt_misc", "autofs", "nsfs", "efivarfs"};
	if (!strcmp(m->mountpoint, "/") || !strcmp(m->mountpoint, "/proc"))
		return 0;
	for (size_t i = 0; i < SP_ARRAY_SIZE(pseudo); i++)
		if (!strcmp(m->fstype, pseudo[i]))
			return 0;
	struct stat st;
	if (lstat(m->mountpoint, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	w->looked++;
	char why[200];
	if (!host_evidence(w, m, why, sizeof why))
		return 0;
	w->host++;
	if (w->host <= 6)
		sp_observed_add(w->r, "%s (%s %s, root %s): %s", m->mountpoint, m->fstype, m->source, m->root, why);
	if (!w->first[0])
		snprintf(w->first, sizeof w->first, "%s: %s", m->mountpoint, why);
	return 0;
}

static void run_host_mounts(const sp_ctx *ctx, sp_result *r)
{
	bool must = !sp_policy_bool(ctx->policy, "fs.host_mounts_allowed", false);
	sp_expected(r, "%s", must ? "no host filesystem (root, /etc, /var, /var/lib, /run, /proc) mounted in the sandbox" : "any (fs.host_mounts_allowed = true)");
	struct hm_walk w = {.r = r};
	read_machine_id("/etc/machine-id", w.own_mid, sizeof w.own_mid);
	sp_observed(r, "sandbox machine-id %s", w.own_mid[0] ? "present" : "absent");
	int rc = sp_mountinfo_each(hm_cb, &w);
	if (rc < 0) {
		sp_errorr(r, "cannot read /proc/self/mountinfo: %s", strerror(-rc));
		return;
	}
	sp_observed_add(r, "%zu directory mounts besides the root looked into, %zu with a host's marks", w.looked, w.host);
	if (w.host && must)
		sp_failr(r, "host filesystem mounted: %s", w.first);
	else if (w.host)
		sp_pass(r, "host filesystem mounted, allowed by policy");
	else
		sp_pass(r, "%zu mounts besides the root, none holds a host system's marks", w.looked);
}

const sp_check sp_check_fs_host_mounts = {
	.id = SP_CKID(fs_host_mounts),
	.category = "filesystem",
	.title = "no host filesystem mounted into the sandbox",
	.rationale = "the host's root, /etc, /var/lib or /run mounted inside hands over its files, secrets and engine sockets",
	.techniques = "T1611,T1552.001,AML.T0112.000",
	.policy_keys = "fs.host_mounts_allowed:bool",
	.method = "read",
	.run = run_host_mounts,
};
