/* fs.mount_facts: each fs.mounts /PATH=FSTYPE:MODE[:OPTION]... (MODE ro or
 * rw) is a mount point in /proc/self/mountinfo with that filesystem type
 * and that per-mount ro/rw option, proven by action too: on a ro mount an
 * exclusive create fails with EROFS, on a rw one a create and unlink work.
 * Each OPTION is proven by action where one exists, else read from
 * mountinfo, and observed says which:
 *   noexec/exec  a file made there is exec'd (EACCES: noexec; ENOEXEC: the
 *                kernel read it, exec allowed); on a mount the probe cannot
 *                write, access(X_OK) of an executable file found there
 *   nosuid/suid  the set-user-ID probe program (core/suid_probe.h), owned
 *                by another uid and mode 04755, is run: its exit status is
 *                the euid it ran with (under no_new_privs the bit never
 *                works, so that proves nothing about the mount)
 *   nodev/dev    a harmless character device (mem 1:3, 1:5, 1:7, 1:8, 1:9)
 *                found there or made there (mknod) is opened: EACCES: nodev
 *   size=N       statfs: the filesystem's total size (tmpfs rounds to pages)
 *   mode=OCTAL   stat: the mount root's permission bits
 *   anything else (trans=virtio, cache=loose, lowerdir=...): an exact
 *                entry in the per-mount or the filesystem's options
 * And each fs.block_ro device (a name under /sys/class/block) is
 * read-only: its sysfs ro flag, and, where its /dev node is visible, the
 * BLKROGET ioctl and the kernel refusing a write: the write open (EACCES or
 * EROFS on older kernels), else a write(2) of zero bytes (EPERM). Not one
 * byte is ever written to a block device. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checks/probe.h"
#include "core/check.h"
#include "core/policy.h"
#include "core/suid_probe.h"
#include "core/util.h"
#include "catalog/catalog.h"

#define MF_MAXOPT 8

typedef struct mf_decl {
	char path[512];
	char type[64];
	bool ro;
	char opt[MF_MAXOPT][96];
	size_t nopt;
} mf_decl;

/* "64m" -> bytes; -1 when not a size */
static long long mf_size(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || errno || !isdigit((unsigned char)*s))
		return -1;
	unsigned shift = 0;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	default: break;
	}
	if (*end || v > (1ull << 50) >> shift)
		return -1;
	return (long long)(v << shift);
}

static int mf_split(const char *s, mf_decl *d, sp_outcome *out)
{
	memset(d, 0, sizeof *d);
	const char *co = strchr(s, ':'), *eq = NULL;
	for (const char *p = s; co && p < co; p++)
		if (*p == '=')
			eq = p;
	if (s[0] != '/' || !eq || (size_t)(eq - s) >= sizeof d->path || (size_t)(co - eq - 1) >= sizeof d->type ||
	    co == eq + 1)
		return sp_why(out, "'%.80s': expected /PATH=FSTYPE:ro or /PATH=FSTYPE:rw, then :OPTION...", s);
	const char *mode = co + 1, *next = strchr(mode, ':');
	size_t ml = next ? (size_t)(next - mode) : strlen(mode);
	if (!((ml == 2 && !strncmp(mode, "ro", 2)) || (ml == 2 && !strncmp(mode, "rw", 2))))
		return sp_why(out, "'%.80s': the mode is ro or rw", s);
	memcpy(d->path, s, (size_t)(eq - s));
	memcpy(d->type, eq + 1, (size_t)(co - eq - 1));
	d->ro = mode[1] == 'o';
	while (next) {
		const char *o = next + 1;
		next = strchr(o, ':');
		size_t ol = next ? (size_t)(next - o) : strlen(o);
		if (ol == 0 || ol >= sizeof d->opt[0])
			return sp_why(out, "'%.80s': an empty or over-long option", s);
		if (d->nopt == MF_MAXOPT)
			return sp_why(out, "'%.80s': more than %d options", s, MF_MAXOPT);
		char *opt = d->opt[d->nopt++];
		memcpy(opt, o, ol);
		for (size_t i = 0; i < ol; i++)
			if (!isgraph((unsigned char)opt[i]))
				return sp_why(out, "'%.80s': a space or control character in an option", s);
		if (!strncmp(opt, "size=", 5) && mf_size(opt + 5) < 0)
			return sp_why(out, "'%.80s': size= takes a number of bytes with k, m or g", opt);
		if (!strncmp(opt, "mode=", 5)) {
			char *end;
			unsigned long m = strtoul(opt + 5, &end, 8);
			if (!opt[5] || *end || m > 07777)
				return sp_why(out, "'%.80s': mode= takes octal permission bits (at most 7777)", opt);
		}
	}
	return 0;
}

static int mf_parse(const char *s, sp_outcome *o)
{
	mf_decl d;
	if (mf_split(s, &d, o) == 0)
		return 0;
	return -1;
}

const sp_policy_type sp_ptype_mount_facts = {.name = "mount_facts",
					     .what = "/PATH=FSTYPE:ro or /PATH=FSTYPE:rw, then :OPTION... (noexec, size=64m, ...)",
					     .list = true,
					     .max = 16,
					     .parse = mf_parse};

/* a block device's name as under /sys/class/block: vdb, loop3, nvme0n1p2 */
static int bdev_parse(const char *s, sp_outcome *o)
{
	size_t n = strlen(s);
	bool ok = n > 0 && n < 64 && strcmp(s, ".") && strcmp(s, "..");
	for (size_t i = 0; ok && i < n; i++)
		ok = isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '_' || s[i] == '.' || s[i] == ':';
	if (!ok) {
		sp_why(o, "'%.80s': not a block device name (as under /sys/class/block: vdb, loop3)", s);
		return -1;
	}
	return 0;
}

const sp_policy_type sp_ptype_block_devs = {.name = "block_devs",
					    .what = "block device names as under /sys/class/block (vdb, loop3)",
					    .list = true,
					    .max = 16,
					    .parse = bdev_parse};

/* ---- actions ------------------------------------------------------------------ */

/* the exec status of a file that is no program (0 unknown, 1 the kernel
 * read it: exec allowed, 2 refused) and why */
static int exec_of(const char *file, char *how, size_t hsz)
{
	struct sp_exec_arg ea = {.path = file};
	sp_call c;
	int rc = sp_child_call(sp_exec_status, &ea, 2000, &c);
	if (rc < 0 || !c.ran || c.ret != -2) {
		snprintf(how, hsz, "exec: no answer");
		return 0;
	}
	if (c.err == EACCES) {
		snprintf(how, hsz, "exec: EACCES");
		return 2;
	}
	snprintf(how, hsz, "exec: %s%s", sp_errname(c.err), c.err == ENOEXEC ? " (the kernel read it)" : "");
	return c.err == ENOEXEC ? 1 : 0;
}

/* a regular file with an execute bit on the same mount (depth 2), within
 * *budget directory entries in all */
static bool find_exe(const char *dir, dev_t dev, int depth, int *budget, char *out, size_t osz)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool found = false;
	for (struct dirent *e; !found && *budget > 0 && (e = readdir(d));) {
		--*budget;
		if (e->d_name[0] == '.')
			continue;
		char p[1024];
		snprintf(p, sizeof p, "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name);
		struct stat st;
		/* followed (merged /usr: /bin is a link), but only to what is on this mount */
		if (stat(p, &st) < 0 || st.st_dev != dev)
			continue;
		if (S_ISREG(st.st_mode) && (st.st_mode & 0111)) {
			snprintf(out, osz, "%s", p);
			found = true;
		} else if (S_ISDIR(st.st_mode) && depth > 0) {
			found = find_exe(p, dev, depth - 1, budget, out, osz);
		}
	}
	closedir(d);
	return found;
}

/* noexec by action: 1 exec allowed, 2 refused, 0 no action possible */
static int act_noexec(const mf_decl *d, bool writable, dev_t dev, char *how, size_t hsz)
{
	if (writable) {
		char f[600];
		sp_probe_name(f, sizeof f, d->path);
		int fd = open(f, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0700);
		if (fd >= 0) {
			/* not a program and no #!: exec can only fail, with EACCES or ENOEXEC */
			bool w = sp_write_all(fd, "sandprobe exec probe\n", 21) == 0;
			close(fd);
			int res = w ? exec_of(f, how, hsz) : 0;
			if (unlink(f) < 0)
				res = 0;
			if (res)
				return res;
		}
	}
	char exe[1024];
	int budget = 2000;
	if (find_exe(d->path, dev, 1, &budget, exe, sizeof exe)) {
		int ok = access(exe, X_OK);
		snprintf(how, hsz, "access(%s, X_OK): %s", exe, ok == 0 ? "allowed" : sp_errname(errno));
		return ok == 0 ? 1 : errno == EACCES ? 2
						     : 0;
	}
	return 0;
}

static bool harmless_dev(dev_t rdev)
{
	unsigned mi = minor(rdev);
	return major(rdev) == 1 && (mi == 3 || mi == 5 || mi == 7 || mi == 8 || mi == 9);
}

/* nodev by action: 1 a device opened, 2 refused (EACCES), 0 no action possible */
static int act_nodev(const mf_decl *d, bool writable, dev_t dev, char *how, size_t hsz)
{
	char node[1024] = "";
	bool made = false;
	dev_t rdev = makedev(1, 3);
	const char *dirs[2] = {d->path, NULL};
	char sub[600];
	snprintf(sub, sizeof sub, "%s/dev", strcmp(d->path, "/") ? d->path : "");
	dirs[1] = sub;
	for (int k = 0; k < 2 && !node[0]; k++) {
		DIR *dd = opendir(dirs[k]);
		if (!dd)
			continue;
		for (struct dirent *e; !node[0] && (e = readdir(dd));) {
			char p[1024];
			snprintf(p, sizeof p, "%s/%s", strcmp(dirs[k], "/") ? dirs[k] : "", e->d_name);
			struct stat st;
			if (lstat(p, &st) == 0 && S_ISCHR(st.st_mode) && st.st_dev == dev && harmless_dev(st.st_rdev)) {
				snprintf(node, sizeof node, "%s", p);
				rdev = st.st_rdev;
			}
		}
		closedir(dd);
	}
	if (!node[0] && writable) {
		sp_probe_name(node, sizeof node, d->path);
		if (mknod(node, S_IFCHR | 0600, makedev(1, 3)) == 0) {
			made = true;
		} else {
			snprintf(how, hsz, "mknod: %s", sp_errname(errno));
			node[0] = '\0';
		}
	}
	if (!node[0])
		return 0;
	int fd = open(node, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	int e = errno;
	if (fd >= 0)
		close(fd);
	snprintf(how, hsz, "open %s (char %u:%u%s): %s", node, major(rdev), minor(rdev), made ? ", made" : "",
		 fd >= 0 ? "opened" : sp_errname(e));
	if (made && unlink(node) < 0)
		return 0;
	return fd >= 0 ? 1 : e == EACCES ? 2
					 : 0;
}

static bool no_new_privs(void)
{
	char st[4096];
	if (sp_read_file("/proc/self/status", st, sizeof st) <= 0)
		return false;
	const char *p = strstr(st, "\nNoNewPrivs:");
	return p && atoi(p + 12) == 1;
}

/* nosuid by action: 1 the bit raised the euid, 2 it did not, 0 no action possible */
static int act_nosuid(const mf_decl *d, bool writable, char *how, size_t hsz)
{
	if (!sp_suid_probe_len) {
		snprintf(how, hsz, "no set-user-ID probe program for this architecture");
		return 0;
	}
	if (!writable)
		return 0;
	if (no_new_privs()) {
		snprintf(how, hsz, "no_new_privs is set: no set-user-ID bit works here, whatever the mount");
		return 0;
	}
	uid_t owner = geteuid() == 65534 ? 65533 : 65534;
	char f[600];
	sp_probe_name(f, sizeof f, d->path);
	int fd = open(f, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0700);
	if (fd < 0)
		return 0;
	int res = 0;
	if (sp_write_all(fd, sp_suid_probe_elf, sp_suid_probe_len) == 0 && fchown(fd, owner, (gid_t)-1) == 0 &&
	    fchmod(fd, 04755) == 0) {
		close(fd);
		fd = -1;
		struct sp_exec_arg ea = {.path = f};
		sp_call c;
		if (sp_child_call(sp_exec_status, &ea, 2000, &c) == 0 && c.ran && c.ret >= 0) {
			unsigned code = (unsigned)c.ret;
			if (code == (owner & 0xffu) && code != (geteuid() & 0xffu))
				res = 1;
			else if (code == (geteuid() & 0xffu))
				res = 2;
			snprintf(how, hsz, "a set-user-ID file of uid %u ran with euid byte %u", (unsigned)owner, code);
		} else {
			snprintf(how, hsz, "the set-user-ID probe did not run (%s)",
				 c.ran && c.ret == -2 ? sp_errname(c.err) : "no answer");
		}
	} else {
		snprintf(how, hsz, "no set-user-ID file of another owner can be made here: %s", sp_errname(errno));
	}
	if (fd >= 0)
		close(fd);
	if (unlink(f) < 0)
		res = 0;
	return res;
}

/* one declared option: true when it holds; observed gets how it was judged */
static bool judge_opt(const mf_decl *d, const sp_mount *m, const char *opt, bool writable, dev_t dev, sp_result *r)
{
	char how[700] = "";
	bool neg = false;
	const char *flag = opt;
	if (!strcmp(opt, "exec") || !strcmp(opt, "suid") || !strcmp(opt, "dev")) {
		neg = true; /* the option's absence: proven the same way */
	}
	char noflag[16];
	if (neg) {
		snprintf(noflag, sizeof noflag, "no%s", opt);
		flag = noflag;
	}
	if (!strcmp(flag, "noexec") || !strcmp(flag, "nodev") || !strcmp(flag, "nosuid")) {
		bool mi = sp_opt_has(m->opts, flag);
		int act = !strcmp(flag, "noexec")  ? act_noexec(d, writable, dev, how, sizeof how)
			  : !strcmp(flag, "nodev") ? act_nodev(d, writable, dev, how, sizeof how)
						   : act_nosuid(d, writable, how, sizeof how);
		bool set = act ? act == 2 : mi;
		bool ok = neg ? !set : set;
		if (act)
			sp_observed_add(r, "%s: %s %s by action (%s; mountinfo: %s)", d->path, flag, set ? "set" : "NOT set", how,
					mi ? flag : "absent");
		else
			sp_observed_add(r, "%s: %s %s by mountinfo (no action possible%s%s)", d->path, flag,
					set ? "set" : "NOT set", how[0] ? ": " : "", how);
		return ok;
	}
	if (!strncmp(opt, "size=", 5)) {
		long long want = mf_size(opt + 5);
		long pg = sysconf(_SC_PAGESIZE);
		if (pg > 0)
			want = (want + pg - 1) / pg * pg;
		struct statfs sf;
		if (statfs(d->path, &sf) < 0) {
			sp_observed_add(r, "%s: %s: statfs: %s", d->path, opt, sp_errname(errno));
			return false;
		}
		long long have = (long long)sf.f_blocks * (long long)sf.f_bsize;
		sp_observed_add(r, "%s: %s: statfs says %lld bytes (declared %lld)", d->path, opt, have, want);
		return have == want;
	}
	if (!strncmp(opt, "mode=", 5)) {
		unsigned want = (unsigned)strtoul(opt + 5, NULL, 8);
		struct stat st;
		if (stat(d->path, &st) < 0) {
			sp_observed_add(r, "%s: %s: stat: %s", d->path, opt, sp_errname(errno));
			return false;
		}
		sp_observed_add(r, "%s: %s: stat says %04o", d->path, opt, (unsigned)st.st_mode & 07777);
		return (st.st_mode & 07777) == want;
	}
	bool in = sp_opt_has(m->opts, opt) || sp_opt_has(m->super_opts, opt);
	sp_observed_add(r, "%s: %s %s by mountinfo", d->path, opt, in ? "present" : "ABSENT");
	return in;
}

/* ---- block devices -------------------------------------------------------------- */

static bool judge_bdev(const char *name, sp_result *r)
{
	char p[256], v[64];
	snprintf(p, sizeof p, "/sys/class/block/%s/ro", name);
	if (sp_read_file(p, v, sizeof v) <= 0) {
		sp_observed_add(r, "%s: no %s (%s): no such block device", name, p, sp_errname(errno));
		return false;
	}
	bool sys_ro = atoi(v) == 1;
	unsigned ma = 0, mi = 0;
	snprintf(p, sizeof p, "/sys/class/block/%s/dev", name);
	bool have_dev = sp_read_file(p, v, sizeof v) > 0 && sscanf(v, "%u:%u", &ma, &mi) == 2;
	char node[128];
	snprintf(node, sizeof node, "/dev/%s", name);
	struct stat st;
	if (!have_dev || stat(node, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != makedev(ma, mi)) {
		sp_observed_add(r, "%s: sysfs ro=%d; by sysfs only: no block node %s for %u:%u in the sandbox to open",
				name, sys_ro, node, ma, mi);
		return sys_ro;
	}
	int fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int ro_ioctl = -1;
	if (fd < 0) {
		/* a node that does not open even for reading (a nodev mount) says nothing about ro */
		sp_observed_add(r, "%s: sysfs ro=%d; by sysfs only: %s does not open for reading (%s)", name, sys_ro, node,
				sp_errname(errno));
		return sys_ro;
	}
	if (ioctl(fd, BLKROGET, &ro_ioctl) < 0)
		ro_ioctl = -1;
	close(fd);
	/* Kernels before 5.x refuse a write open of a read-only device; later
	 * ones accept it and refuse each write(2) with EPERM before looking at
	 * its length (blkdev_write_iter), so a write of zero bytes is the
	 * kernel's verdict with nothing written. Never more than zero bytes. */
	fd = open(node, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	int oe = errno, we = 0;
	ssize_t w = -1;
	if (fd >= 0) {
		static const char none[1];
		w = write(fd, none, 0);
		we = w < 0 ? errno : 0;
		close(fd);
	}
	bool refused = fd < 0 ? oe == EACCES || oe == EROFS : w < 0 && (we == EPERM || we == EROFS);
	if (fd < 0)
		sp_observed_add(r, "%s: sysfs ro=%d, BLKROGET %d, open(O_RDWR): %s (by action)", name, sys_ro, ro_ioctl,
				sp_errname(oe));
	else
		sp_observed_add(r, "%s: sysfs ro=%d, BLKROGET %d, open(O_RDWR) accepted, a write of 0 bytes: %s (by action)",
				name, sys_ro, ro_ioctl, w < 0 ? sp_errname(we) : "ACCEPTED");
	return sys_ro && ro_ioctl == 1 && refused;
}

static void run_mount_facts(const sp_ctx *ctx, sp_result *r)
{
	sp_strv v, bd;
	sp_policy_list(ctx->policy, "fs.mounts", &v);
	sp_policy_list(ctx->policy, "fs.block_ro", &bd);
	sp_expected(r, "every fs.mounts /PATH=FSTYPE:MODE[:OPTION]... is a mount of that type, ro or rw and with each "
		       "option, in mountinfo and in action; every fs.block_ro device is read-only");
	if (v.n == 0 && bd.n == 0) {
		sp_skip(r, "fs.mounts and fs.block_ro are empty: nothing declared");
		goto out;
	}
	size_t bad = 0;
	for (size_t i = 0; i < v.n; i++) {
		mf_decl d;
		sp_outcome o = {0};
		if (mf_split(v.v[i], &d, &o) < 0) {
			sp_errorr(r, "fs.mounts: %s", o.why);
			goto out;
		}
		sp_mount m;
		int e = sp_mountinfo_find(d.path, &m);
		if (e < 0 && e != -ENOENT) {
			sp_errorr(r, "/proc/self/mountinfo: %s", strerror(-e));
			goto out;
		}
		if (e < 0 || strcmp(m.mountpoint, d.path)) {
			sp_observed_add(r, "%s: not a mount point", d.path);
			bad++;
			continue;
		}
		bool mro = sp_opt_has(m.opts, "ro");
		char probe[600];
		sp_probe_name(probe, sizeof probe, d.path);
		int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		int err = fd < 0 ? errno : 0;
		if (fd >= 0) {
			close(fd);
			if (unlink(probe) < 0)
				err = -1;
		}
		const char *act = fd >= 0 ? (err ? "created, unlink failed" : "create+unlink worked") : strerrorname_np(err);
		sp_observed_add(r, "%s: %s %s, write: %s", d.path, m.fstype, mro ? "ro" : "rw", act ? act : "?");
		bool ok = !strcmp(m.fstype, d.type) && mro == d.ro && (d.ro ? err == EROFS : fd >= 0 && err == 0);
		struct stat st;
		dev_t dev = stat(d.path, &st) == 0 ? st.st_dev : 0;
		for (size_t k = 0; k < d.nopt; k++)
			ok &= judge_opt(&d, &m, d.opt[k], fd >= 0 && err == 0, dev, r);
		bad += !ok;
	}
	for (size_t i = 0; i < bd.n; i++)
		bad += !judge_bdev(bd.v[i], r);
	size_t n = v.n + bd.n;
	if (bad)
		sp_failr(r, "%zu of %zu declared mount%s and device%s differ%s", bad, n, v.n == 1 ? "" : "s",
			 bd.n == 1 ? "" : "s", bad == 1 ? "s" : "");
	else
		sp_pass(r, "all %zu declared mount%s and device%s as declared", n, v.n == 1 ? "" : "s",
			bd.n == 1 ? "" : "s");
out:
	sp_strv_free(&v);
	sp_strv_free(&bd);
}

/* with nothing declared the runner skips the check without a probe child */
static bool has_mounts(const sp_ctx *ctx, sp_outcome *o)
{
	const char *a = sp_policy_get(ctx->policy, "fs.mounts"), *b = sp_policy_get(ctx->policy, "fs.block_ro");
	if ((a && *a) || (b && *b))
		return true;
	sp_why(o, "fs.mounts and fs.block_ro are unset: nothing declared");
	return false;
}

const sp_check sp_check_fs_mount_facts = {
	.id = SP_CKID(fs_mount_facts),
	.supported = has_mounts,
	.category = "filesystem",
	.title = "declared mounts have their filesystem type, ro/rw state and options, and declared block devices are "
		 "read-only, in the kernel's tables and in action",
	.rationale = "a workspace meant to be writable, a root meant to be read-only, a noexec scratch space or a "
		     "read-only disk is the sandbox's basic contract",
	.techniques = "",
	.policy_keys = "fs.mounts:mount_facts,fs.block_ro:block_devs",
	.method = "action",
	.run = run_mount_facts,
};
