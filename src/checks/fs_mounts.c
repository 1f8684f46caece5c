/* Mount options and space of the policy's paths: tmpfs, nosuid (proven by a
 * set-user-ID file's effect), nodev, noexec, a large write within quota, fsync
 * and free capacity. Every write probe uses an exclusive-create unique name,
 * removes what it made and proves the removal. Split from filesystem.c. */
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

/* Declared batch (see docs/CONTRIBUTING.md, execution model): the mount-flag
 * reads of the policy's paths share one child. */
static const sp_batch fs_mount_flags = {
	.id = "fs.mount_flags",
	.what = "tmpfs, nosuid and nodev of the policy's paths (statfs)",
};

/* ---- tmpfs and mount flags ---- */

static void run_tmpfs(const sp_ctx *ctx, sp_result *r)
{
	sp_strv paths;
	sp_policy_list(ctx->policy, "fs.tmpfs", &paths);
	sp_expected(r, "tmpfs at: %s", paths.n ? sp_policy_get(ctx->policy, "fs.tmpfs") : "(none listed)");
	if (!paths.n) {
		sp_pass(r, "policy demands no tmpfs");
		sp_strv_free(&paths);
		return;
	}
	size_t bad = 0;
	for (size_t i = 0; i < paths.n; i++) {
		struct statfs sf;
		if (statfs(paths.v[i], &sf) < 0) {
			sp_observed_add(r, "%s: %s", paths.v[i], sp_errname(errno));
			bad++;
			continue;
		}
		bool t = sf.f_type == TMPFS_MAGIC;
		sp_observed_add(r, "%s: f_type 0x%lx%s", paths.v[i], (unsigned long)sf.f_type, t ? " (tmpfs)" : "");
		bad += !t;
	}
	if (bad)
		sp_failr(r, "%zu of %zu paths are not tmpfs", bad, paths.n);
	else
		sp_pass(r, "all %zu paths are tmpfs", paths.n);
	sp_strv_free(&paths);
}

const sp_check sp_check_fs_tmpfs = {
	.id = SP_CKID(fs_tmpfs),
	.category = "filesystem",
	.title = "scratch paths are tmpfs",
	.rationale = "scratch data on tmpfs vanishes with the sandbox instead of persisting on a host disk",
	.techniques = "T1005",
	.policy_keys = "fs.tmpfs:paths",
	.method = "read",
	.run = run_tmpfs,
	.batch = &fs_mount_flags,
};

/* exec of a garbage file: EACCES on a noexec mount, ENOEXEC otherwise */
static long pr_exec(void *a)
{
	char *const argv[] = {a, NULL};
	char *const envp[] = {NULL};
	execve(a, argv, envp);
	return -1;
}

static int exec_probe(const char *dir, int *err)
{
	char name[512];
	sp_probe_name(name, sizeof name, dir);
	int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0700);
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	static const char junk[] = "\x7fSPX not an executable\n";
	int w = sp_write_all(fd, junk, sizeof junk - 1);
	close(fd);
	sp_call c;
	int rc = w == 0 ? sp_child_call(pr_exec, name, 1000, &c) : -EIO;
	unlink(name);
	if (rc < 0 || !c.ran) {
		*err = rc < 0 ? -rc : EIO;
		return -1;
	}
	*err = c.err;
	return c.err == EACCES ? 0 : 1; /* 1: the kernel went past the noexec check */
}

static void run_mount_flag(const char *key, const char *flag, unsigned long stflag, const sp_ctx *ctx, sp_result *r)
{
	sp_strv paths;
	sp_policy_list(ctx->policy, key, &paths);
	sp_expected(r, "%s on: %s", flag, paths.n ? sp_policy_get(ctx->policy, key) : "(none listed)");
	if (!paths.n) {
		sp_pass(r, "policy names no mount that must be %s", flag);
		sp_strv_free(&paths);
		return;
	}
	size_t bad = 0, absent = 0;
	for (size_t i = 0; i < paths.n; i++) {
		struct statvfs sv;
		if (statvfs(paths.v[i], &sv) < 0) {
			sp_observed_add(r, "%s: %s", paths.v[i], sp_errname(errno));
			absent++;
			continue;
		}
		bool has = sv.f_flag & stflag;
		sp_observed_add(r, "%s: %s%s", paths.v[i], has ? "" : "NOT ", flag);
		if (stflag == ST_NOEXEC) {
			int e = 0;
			int x = exec_probe(paths.v[i], &e);
			if (x >= 0) {
				sp_observed_add(r, "exec of a probe file: %s", sp_errname(e));
				if (x == 1 && has) {
					sp_errorr(r, "%s reports noexec but an exec went past the check", paths.v[i]);
					sp_strv_free(&paths);
					return;
				}
				has = x == 0;
			}
		}
		bad += !has;
	}
	size_t named = paths.n;
	sp_strv_free(&paths);
	if (bad)
		sp_failr(r, "%zu mount(s) lack %s", bad, flag);
	else if (absent == named)
		sp_skip(r, "cannot tell: none of the %zu named path(s) exists here, no mount was looked at", named);
	else if (absent)
		sp_pass(r, "%s where present (%zu path(s) absent)", flag, absent);
	else
		sp_pass(r, "all named mounts are %s", flag);
}

/* ---- fs.nosuid: proven by a set-user-ID file's effect ----
 * On each named mount the probe makes a copy of the set-user-ID probe
 * program (core/suid_probe.h) owned by another uid, mode 04755, and runs it:
 * its exit status is the low byte of the euid it ran with. That needs
 * CAP_CHOWN; without it, the probe program the live tier plants at
 * SP_SUID_PROBE_PATH (owned by another uid, set-user-ID, on a mount without
 * nosuid) is run instead when its bytes are the probe's: if the bit does not
 * raise the euid there (no_new_privs, or a kernel that honours no such bit),
 * no set-user-ID file raises it on any mount of this process, whatever the
 * mount table says. Only where neither can be run does the flag decide. */
/* run a set-user-ID probe file owned by owner: 1 the euid became owner's, 0 it stayed ours, 2 it cannot be
 * executed at all (errno: EACCES on a noexec mount), -1 no answer (errno) */
static int suid_effect(const char *path, uid_t owner)
{
	struct sp_exec_arg sr = {.path = path};
	sp_call c;
	int rc = sp_child_call(sp_exec_status, &sr, 2000, &c);
	if (rc == 0 && c.ran && c.ret == -2) {
		errno = c.err;
		return 2;
	}
	if (rc < 0 || !c.ran || c.ret < 0) {
		errno = rc < 0 ? -rc : c.ran ? c.err
					     : EIO;
		return -1;
	}
	unsigned code = (unsigned)c.ret;
	if (code == (owner & 0xffu) && code != (geteuid() & 0xffu))
		return 1;
	if (code == (geteuid() & 0xffu))
		return 0;
	errno = EPROTO;
	return -1;
}

/* make the probe set-user-ID to another uid in dir and run it: 1 raised, 0 not raised, -1 cannot (why in r) */
static int suid_made(const char *dir, sp_result *r)
{
	if (!sp_suid_probe_len) {
		sp_observed_add(r, "%s: no set-user-ID probe program for this architecture", dir);
		return -1;
	}
	uid_t owner = geteuid() == 65534 ? 65533 : 65534;
	char name[512];
	sp_probe_name(name, sizeof name, dir);
	int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0700);
	if (fd < 0) {
		sp_observed_add(r, "%s: set-user-ID probe not created: %s", dir, sp_errname(errno));
		return -1;
	}
	int res = -1;
	const char *step = "write";
	if (sp_write_all(fd, sp_suid_probe_elf, sp_suid_probe_len) == 0 && (step = "fchown", fchown(fd, owner, (gid_t)-1) == 0) &&
	    (step = "fchmod", fchmod(fd, 04755) == 0)) {
		close(fd);
		fd = -1;
		res = suid_effect(name, owner);
		if (res == 2) {
			sp_observed_add(r, "%s: a set-user-ID file of uid %u cannot be executed at all (%s): it cannot raise the euid",
					dir, (unsigned)owner, sp_errname(errno));
			res = 0;
		} else if (res < 0)
			sp_observed_add(r, "%s: set-user-ID probe (owner %u) gave no answer: %s", dir, (unsigned)owner,
					sp_errname(errno));
		else
			sp_observed_add(r, "%s: a set-user-ID file of uid %u %s the euid (ran it)", dir, (unsigned)owner,
					res ? "RAISED" : "did not change");
	} else {
		sp_observed_add(r, "%s: no set-user-ID file of another owner can be made here (%s: %s)", dir, step,
				sp_errname(errno));
	}
	if (fd >= 0)
		close(fd);
	if (unlink(name) < 0 && errno != ENOENT) {
		sp_observed_add(r, "probe file %s NOT REMOVED: %s", name, sp_errname(errno));
		return -2;
	}
	return res;
}

/* is uid mapped in this process's user namespace? (an unmapped owner reads as the overflow uid, and the
 * kernel ignores a set-user-ID bit of an unmapped owner: no proof about the bit) */
static bool uid_mapped(uid_t uid)
{
	char map[1024];
	if (sp_read_file("/proc/self/uid_map", map, sizeof map) <= 0)
		return false;
	char *save = NULL;
	for (char *line = strtok_r(map, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long in, out, count;
		if (sscanf(line, "%lu %lu %lu", &in, &out, &count) == 3 && uid >= in && uid - in < count)
			return true;
	}
	return false;
}

/* the planted probe: 0 it did not raise the euid on a mount without nosuid (no bit raises it in this
 * process), 1 it did, -1 none usable (why in r) */
static int suid_found(sp_result *r)
{
	const char *p = SP_SUID_PROBE_PATH;
	struct stat st;
	if (!sp_suid_probe_len || lstat(p, &st) < 0)
		return -1;
	if (!S_ISREG(st.st_mode) || !(st.st_mode & S_ISUID) || st.st_uid == geteuid() || st.st_size != (off_t)sp_suid_probe_len) {
		sp_observed_add(r, "%s: not a set-user-ID probe of another owner (mode %o, uid %u)", p,
				(unsigned)st.st_mode & 07777, (unsigned)st.st_uid);
		return -1;
	}
	if (!uid_mapped(st.st_uid)) {
		sp_observed_add(r, "%s: its owner %u is not mapped in this user namespace: proves nothing", p, (unsigned)st.st_uid);
		return -1;
	}
	unsigned char buf[512];
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sp_suid_probe_len || memcmp(buf, sp_suid_probe_elf, sp_suid_probe_len)) {
		sp_observed_add(r, "%s: not the probe program's bytes: not run", p);
		return -1;
	}
	struct statvfs sv;
	if (statvfs(p, &sv) < 0 || (sv.f_flag & ST_NOSUID)) {
		sp_observed_add(r, "%s: on a nosuid mount: proves nothing about the process", p);
		return -1;
	}
	int res = suid_effect(p, st.st_uid);
	if (res == 2) {
		sp_observed_add(r, "%s cannot be executed (%s): proves nothing", p, sp_errname(errno));
		return -1;
	}
	if (res < 0)
		sp_observed_add(r, "%s (uid %u, on a mount without nosuid) gave no answer: %s", p, (unsigned)st.st_uid,
				sp_errname(errno));
	else
		sp_observed_add(r, "%s (uid %u, set-user-ID, on a mount without nosuid) %s the euid (ran it)", p,
				(unsigned)st.st_uid, res ? "RAISED" : "did not change");
	return res;
}

static void run_nosuid(const sp_ctx *ctx, sp_result *r)
{
	sp_strv paths;
	sp_policy_list(ctx->policy, "fs.nosuid", &paths);
	sp_expected(r, "no set-user-ID file raises the euid on: %s (proven by running one; else the nosuid flag)",
		    paths.n ? sp_policy_get(ctx->policy, "fs.nosuid") : "(none listed)");
	if (!paths.n) {
		sp_pass(r, "policy names no mount that must be nosuid");
		sp_strv_free(&paths);
		return;
	}
	int context = -2; /* the planted probe's answer, asked once when a mount's own cannot be made */
	size_t bad = 0, absent = 0, by_flag = 0;
	for (size_t i = 0; i < paths.n; i++) {
		struct statvfs sv;
		if (statvfs(paths.v[i], &sv) < 0) {
			sp_observed_add(r, "%s: %s", paths.v[i], sp_errname(errno));
			absent++;
			continue;
		}
		bool flag = sv.f_flag & ST_NOSUID;
		sp_observed_add(r, "%s: mount %s", paths.v[i], flag ? "nosuid" : "NOT nosuid");
		int made = suid_made(paths.v[i], r);
		if (made == -2) {
			sp_errorr(r, "a set-user-ID probe file in %s could not be removed", paths.v[i]);
			sp_strv_free(&paths);
			return;
		}
		if (made >= 0) {
			if (made == 1 && flag) {
				sp_errorr(r, "%s reports nosuid but a set-user-ID file raised the euid", paths.v[i]);
				sp_strv_free(&paths);
				return;
			}
			bad += made == 1;
			continue;
		}
		if (context == -2)
			context = suid_found(r);
		if (context == 0) {
			sp_observed_add(r, "%s: proven by the planted probe: no set-user-ID bit raises the euid here", paths.v[i]);
			continue;
		}
		by_flag++;
		bad += !flag;
	}
	size_t named = paths.n;
	sp_strv_free(&paths);
	if (bad)
		sp_failr(r, "%zu mount(s) let a set-user-ID file raise the euid (or lack nosuid where no file could be run)", bad);
	else if (absent == named)
		sp_skip(r, "cannot tell: none of the %zu named path(s) exists here, no mount was looked at", named);
	else if (absent)
		sp_pass(r, "no set-user-ID raise where present (%zu path(s) absent)", absent);
	else if (by_flag)
		sp_pass(r, "all named mounts are nosuid (%zu by the flag alone: no set-user-ID file could be run)", by_flag);
	else
		sp_pass(r, "no set-user-ID file raises the euid on the named mounts (proven by running one)");
}
static void run_nodev(const sp_ctx *ctx, sp_result *r) { run_mount_flag("fs.nodev", "nodev", ST_NODEV, ctx, r); }
static void run_noexec(const sp_ctx *ctx, sp_result *r) { run_mount_flag("fs.noexec", "noexec", ST_NOEXEC, ctx, r); }

const sp_check sp_check_fs_nosuid = {
	.id = SP_CKID(fs_nosuid),
	.category = "filesystem",
	.title = "named mounts are nosuid",
	.rationale = "setuid files on a writable mount let a compromised workload plant privilege escalation",
	.techniques = "T1548.001",
	.policy_keys = "fs.nosuid:paths",
	.method = "action",
	.run = run_nosuid,
	.batch = &fs_mount_flags,
};
const sp_check sp_check_fs_nodev = {
	.id = SP_CKID(fs_nodev),
	.category = "filesystem",
	.title = "named mounts are nodev",
	.rationale = "device nodes on a writable mount give raw access to host devices",
	.techniques = "T1006",
	.policy_keys = "fs.nodev:paths",
	.method = "read",
	.run = run_nodev,
	.flags = SP_CHECK_KERNEL,
	.batch = &fs_mount_flags,
};
const sp_check sp_check_fs_noexec = {
	.id = SP_CKID(fs_noexec),
	.category = "filesystem",
	.title = "named mounts are noexec (proven by exec)",
	.rationale = "executing downloaded payloads from scratch space is the usual next step of an attack",
	.techniques = "AML.T0011,AML.T0050",
	.policy_keys = "fs.noexec:paths",
	.method = "action",
	.run = run_noexec,
};

/* ---- large write within quota, durability ---- */

static int first_writable(const sp_ctx *ctx, char *out, size_t osz)
{
	sp_strv paths;
	sp_policy_list(ctx->policy, "fs.writable", &paths);
	int rc = -ENOENT;
	for (size_t i = 0; i < paths.n && rc < 0; i++)
		if (access(paths.v[i], W_OK) == 0) {
			snprintf(out, osz, "%s", paths.v[i]);
			rc = 0;
		}
	sp_strv_free(&paths);
	return rc;
}

/* A new, uniquely named probe file (exclusive create, 0600, no symlink
 * followed) in the first writable path (dir), opened acc (O_WRONLY or
 * O_RDWR). Returns its descriptor, or -1 after skipping or failing r. */
static int open_probe_file(const sp_ctx *ctx, sp_result *r, int acc, char *dir, size_t dsz, char *name, size_t nsz)
{
	if (first_writable(ctx, dir, dsz) < 0) {
		sp_skip(r, "no writable path from fs.writable");
		return -1;
	}
	sp_probe_name(name, nsz, dir);
	int fd = open(name, acc | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		sp_failr(r, "cannot create a probe file in %s: %s", dir, strerror(errno));
	return fd;
}

static void run_large_write(const sp_ctx *ctx, sp_result *r)
{
	long long mib = sp_policy_int(ctx->policy, "fs.large_write_mib", 10);
	long long quota = sp_policy_int(ctx->policy, "fs.quota_mib", 0);
	sp_expected(r, "a %lld MiB file can be written%s", mib, quota ? " and a write beyond fs.quota_mib fails" : "");
	char dir[512], name[600];
	if (!quota && mib > 0 && mib <= 4096) {
		/* no quota to prove: the round trip wf.bigfile needs too (one for both) */
		if (first_writable(ctx, dir, sizeof dir) < 0) {
			sp_skip(r, "no writable path from fs.writable");
			return;
		}
		const sp_roundtrip *rt = sp_roundtrip_get(dir, mib, "fs.large_write");
		if (rt->create_err) {
			sp_failr(r, "cannot create a probe file in %s: %s", dir, strerror(rt->create_err));
			return;
		}
		long long done = (long long)(rt->written >> 20);
		int we = rt->write_err;
		sp_observed(r, "%s: wrote %lld MiB%s%s; probe %s%s%s%s", dir, done, we ? ", then " : "", we ? sp_errname(we) : "",
			    rt->removed ? "removed" : "NOT REMOVED", strcmp(rt->by, "fs.large_write") ? " (the round trip " : "",
			    strcmp(rt->by, "fs.large_write") ? rt->by : "", strcmp(rt->by, "fs.large_write") ? " made)" : "");
		if (!rt->removed)
			sp_errorr(r, "probe %s could not be removed", rt->name);
		else if (done < mib)
			sp_failr(r, "only %lld of %lld MiB could be written (%s)", done, mib, sp_errname(we));
		else
			sp_pass(r, "%lld MiB written and removed", done);
		return;
	}
	int fd = open_probe_file(ctx, r, O_WRONLY, dir, sizeof dir, name, sizeof name);
	if (fd < 0)
		return;
	static char chunk[1 << 20];
	memset(chunk, 0x5a, sizeof chunk);
	long long limit = quota ? quota + 2 : mib;
	long long written = 0;
	int e = 0;
	for (long long i = 0; i < limit; i++) {
		if (sp_write_all(fd, chunk, sizeof chunk) < 0) {
			e = errno;
			break;
		}
		written++;
	}
	close(fd);
	int u = unlink(name);
	struct stat st;
	bool gone = lstat(name, &st) < 0 && errno == ENOENT;
	sp_observed(r, "%s: wrote %lld MiB%s%s; probe %s", dir, written, e ? ", then " : "", e ? sp_errname(e) : "",
		    u == 0 && gone ? "removed" : "NOT REMOVED");
	if (u != 0 || !gone) {
		sp_errorr(r, "probe %s could not be removed", name);
		return;
	}
	if (written < mib && !(quota && quota < mib))
		sp_failr(r, "only %lld of %lld MiB could be written (%s)", written, mib, sp_errname(e));
	else if (quota && !(e == ENOSPC || e == EDQUOT || e == EFBIG))
		sp_failr(r, "wrote %lld MiB, beyond the %lld MiB quota, without refusal", written, quota);
	else if (quota)
		sp_pass(r, "quota enforced: %s after %lld MiB", sp_errname(e), written);
	else
		sp_pass(r, "%lld MiB written and removed", written);
}

const sp_check sp_check_fs_large_write = {
	.id = SP_CKID(fs_large_write),
	.category = "filesystem",
	.title = "large file write within quota",
	.rationale = "the sandbox must hold a normal artefact, and a quota must stop it filling the host disk",
	.techniques = "T1499",
	.policy_keys = "fs.large_write_mib:int,fs.quota_mib:int",
	.method = "action",
	.run = run_large_write,
	.batch = &sp_batch_roundtrip,
};

static void run_fsync(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "content written, fsynced and read back is identical");
	char dir[512], name[600];
	int fd = open_probe_file(ctx, r, O_RDWR, dir, sizeof dir, name, sizeof name);
	if (fd < 0)
		return;
	static unsigned char a[65536], b[65536];
	for (size_t i = 0; i < sizeof a; i++)
		a[i] = (unsigned char)(i * 131 + 7);
	int w = sp_write_all(fd, a, sizeof a);
	int s = fsync(fd);
	int se = errno;
	close(fd);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, b, sizeof b) : -1;
	if (fd >= 0)
		close(fd);
	int u = unlink(name);
	struct stat st;
	bool gone = lstat(name, &st) < 0 && errno == ENOENT;
	sp_observed(r, "%s: write %s, fsync %s, read %zd bytes, %s; probe %s", dir, w ? "failed" : "ok",
		    s ? sp_errname(se) : "ok", n, n == (ssize_t)sizeof a && !memcmp(a, b, sizeof a) ? "identical" : "DIFFERENT",
		    u == 0 && gone ? "removed" : "NOT REMOVED");
	if (u != 0 || !gone)
		sp_errorr(r, "probe %s could not be removed", name);
	else if (w || s || n != (ssize_t)sizeof a || memcmp(a, b, sizeof a))
		sp_failr(r, "content did not survive write/fsync/read");
	else
		sp_pass(r, "64 KiB survived write/fsync/read");
}

const sp_check sp_check_fs_fsync = {
	.id = SP_CKID(fs_fsync),
	.category = "filesystem",
	.title = "file content survives write, fsync and read",
	.rationale = "a scratch filesystem that loses or corrupts data breaks the workload silently",
	.techniques = "",
	.policy_keys = "fs.writable:paths",
	.method = "action",
	.run = run_fsync,
};

/* ---- fs.capacity: free space and inodes where the workload writes ----
 * statvfs of each named path: what an unprivileged writer may still use
 * (f_bavail, f_favail), against the policy's minimums. A filesystem that
 * reports no inode count cannot be judged on inodes. */
static void run_capacity(const sp_ctx *ctx, sp_result *r)
{
	sp_strv paths;
	sp_policy_list(ctx->policy, "fs.capacity", &paths);
	long long min_mib = sp_policy_int(ctx->policy, "fs.capacity_min_mib", 0);
	long long min_inodes = sp_policy_int(ctx->policy, "fs.capacity_min_inodes", 0);
	sp_expected(r, "free space and inodes reported for: %s; at least %lld MiB and %lld inodes free",
		    paths.n ? sp_policy_get(ctx->policy, "fs.capacity") : "(none listed)", min_mib, min_inodes);
	if (!paths.n) {
		sp_skip(r, "policy names no path (fs.capacity)");
		sp_strv_free(&paths);
		return;
	}
	size_t low = 0, absent = 0, unknown = 0;
	for (size_t i = 0; i < paths.n; i++) {
		struct statvfs sv;
		if (statvfs(paths.v[i], &sv) < 0) {
			sp_observed_add(r, "%s: %s", paths.v[i], sp_errname(errno));
			absent++;
			continue;
		}
		unsigned long long unit = sv.f_frsize ? sv.f_frsize : sv.f_bsize;
		unsigned long long free_mib = (unsigned long long)sv.f_bavail * unit >> 20;
		unsigned long long size_mib = (unsigned long long)sv.f_blocks * unit >> 20;
		bool inodes = sv.f_files > 0;
		if (inodes)
			sp_observed_add(r, "%s: %llu of %llu MiB free, %llu of %llu inodes free", paths.v[i], free_mib,
					size_mib, (unsigned long long)sv.f_favail, (unsigned long long)sv.f_files);
		else
			sp_observed_add(r, "%s: %llu of %llu MiB free, no inode count reported", paths.v[i], free_mib,
					size_mib);
		bool short_space = (long long)free_mib < min_mib;
		bool short_inodes = inodes && (long long)sv.f_favail < min_inodes;
		unknown += !inodes && min_inodes > 0;
		low += short_space || short_inodes;
	}
	size_t named = paths.n;
	sp_strv_free(&paths);
	if (low)
		sp_failr(r, "%zu path(s) below the policy's minimum free space or inodes", low);
	else if (absent)
		sp_errorr(r, "%zu of %zu named path(s) cannot be examined: no capacity reported for them", absent, named);
	else if (unknown)
		sp_errorr(r, "%zu path(s) report no inode count: the inode minimum cannot be judged", unknown);
	else
		sp_pass(r, "capacity reported for all %zu path(s), each at or above the minimum", named);
}

const sp_check sp_check_fs_capacity = {
	.id = SP_CKID(fs_capacity),
	.category = "filesystem",
	.title = "free space and inodes where the workload writes",
	.rationale = "a workspace or scratch filesystem out of blocks or inodes fails the workload with misleading errors",
	.techniques = "T1499",
	.policy_keys = "fs.capacity:paths,fs.capacity_min_mib:int,fs.capacity_min_inodes:int",
	.method = "read",
	.run = run_capacity,
	.batch = &fs_mount_flags,
};
