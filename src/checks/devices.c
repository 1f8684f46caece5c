/* Devices: only the policy's device nodes exist and open; mknod refused;
 * no host block device; no terminal injection. Opening a device runs its
 * driver's open routine, so nodes that react to an open (watchdogs, serial
 * lines) are judged by access(2) only, which includes the device cgroup. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "checks/types.h"
#include "checks/probe.h"
#include "core/util.h"
#include "catalog/catalog.h"

/* the device checks open nodes with O_NONBLOCK and share one child */
static const sp_batch dev_nodes = {
	.id = "dev.nodes",
	.what = "every device node walked and opened (O_NONBLOCK), mknod in a private dir, the controlling terminal",
	.timeout_ms = 10000,
};

/* names (relative to /dev) whose open has side effects */
static const char *const no_open[] = {
	"watchdog*", "ttyS*",	"ttyUSB*", "ttyACM*",	"ttyAMA*", "rfcomm*", "ttyprintk",	  "st[0-9]*",
	"nst[0-9]*", "sg[0-9]*", "snapshot", "console",	"tty[0-9]*", "vcs*",	"uinput",	  "cpu_dma_latency",
	"tpm*",	     "lp[0-9]*", "video*",	"fd[0-9]*", "sr[0-9]*", "network_latency", "network_throughput",
};

static bool no_open_name(const char *rel)
{
	const char *base = strrchr(rel, '/');
	base = base ? base + 1 : rel;
	for (size_t i = 0; i < SP_ARRAY_SIZE(no_open); i++)
		if (sp_glob_match(no_open[i], base))
			return true;
	return false;
}

/* 1 usable, 0 refused; how describes it */
static int dev_usable(const char *path, const char *rel, bool nodev, char *how, size_t hsz)
{
	if (nodev) {
		snprintf(how, hsz, "nodev mount");
		return 0;
	}
	if (no_open_name(rel)) {
		bool ok = access(path, R_OK) == 0 || access(path, W_OK) == 0;
		snprintf(how, hsz, "access %s (not opened)", ok ? "granted" : sp_errname(errno));
		return ok;
	}
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS))
		fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd >= 0) {
		close(fd);
		snprintf(how, hsz, "OPENS");
		return 1;
	}
	snprintf(how, hsz, "%s", sp_errname(errno));
	/* ENXIO/ENODEV: no driver behind the node, so it is not usable either */
	return 0;
}

struct dev_walk {
	const sp_strv *allow;
	sp_result *r;
	size_t nodes, usable, blocks, block_usable;
	char first[128];
	bool blocks_only;
};

static void walk_dev(struct dev_walk *w, const char *dir, const char *rel, int depth)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct statvfs sv;
	bool nodev = statvfs(dir, &sv) == 0 && (sv.f_flag & ST_NODEV);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char path[512], r2[256];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		snprintf(r2, sizeof r2, "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		struct stat st;
		if (lstat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth > 0 && strcmp(r2, "pts") && strcmp(r2, "shm") && strcmp(r2, "mqueue") &&
			    strcmp(r2, "hugepages"))
				walk_dev(w, path, r2, depth - 1);
			continue;
		}
		if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode))
			continue;
		bool blk = S_ISBLK(st.st_mode);
		if (w->blocks_only && !blk)
			continue;
		w->nodes++;
		w->blocks += blk;
		if (!w->blocks_only && sp_strv_contains(w->allow, r2))
			continue;
		char how[64];
		int u = dev_usable(path, r2, nodev, how, sizeof how);
		if (u) {
			w->usable++;
			w->block_usable += blk;
			if (!w->first[0])
				snprintf(w->first, sizeof w->first, "/dev/%s", r2);
		}
		if (w->usable + (u ? 0 : 1) <= 12 || u)
			if (strlen(w->r->observed) < 800)
				sp_observed_add(w->r, "%s %c %u:%u %s", r2, blk ? 'b' : 'c', major(st.st_rdev),
						minor(st.st_rdev), how);
	}
	closedir(d);
}

/* dev.allow's entries: names under /dev ("null", "net/tun"), as the walk
 * and the allowlist probe join them to "/dev/" */
static int device_parse(const char *name, sp_outcome *o)
{
	if (name[0] == '/' || strlen(name) > 200) {
		sp_why(o, "'%.100s': name a device relative to /dev (null, net/tun)", name);
		return -1;
	}
	const char *p = name;
	for (;;) {
		size_t l = strcspn(p, "/");
		if (l == 0 || (l == 1 && p[0] == '.') || (l == 2 && p[0] == '.' && p[1] == '.')) {
			sp_why(o, "'%.100s': an empty, '.' or '..' component", name);
			return -1;
		}
		p += l;
		if (!*p++)
			return 0;
	}
}

const sp_policy_type sp_ptype_devices = {.name = "devices", .what = "device names under /dev (null, net/tun)", .list = true,
					 .parse = device_parse};

static void run_host_devices(const sp_ctx *ctx, sp_result *r)
{
	sp_strv allow;
	sp_policy_list(ctx->policy, "dev.allow", &allow);
	sp_expected(r, "no device node beyond dev.allow (%s) can be opened",
		    allow.n ? sp_policy_get(ctx->policy, "dev.allow") : "none");
	struct dev_walk w = {.allow = &allow, .r = r};
	sp_observed(r, "/dev");
	DIR *probe = opendir("/dev");
	if (!probe && errno != ENOENT) {
		/* a walk that cannot look proves nothing */
		sp_observed_add(r, "/dev cannot be listed: %s", sp_errname(errno));
		sp_errorr(r, "cannot list /dev: no device looked at");
		sp_strv_free(&allow);
		return;
	}
	if (probe)
		closedir(probe);
	walk_dev(&w, "/dev", "", 2);
	sp_observed_add(r, "%zu device nodes, %zu beyond the allowlist usable", w.nodes, w.usable);
	if (w.usable)
		sp_failr(r, "%zu device(s) beyond the allowlist can be opened (first: %s)", w.usable, w.first);
	else
		sp_pass(r, "no device beyond the allowlist can be opened (%zu nodes)", w.nodes);
	sp_strv_free(&allow);
}

const sp_check sp_check_dev_host_devices = {
	.id = SP_CKID(dev_host_devices),
	.category = "devices",
	.title = "only allowlisted devices usable",
	.rationale = "a host device node (disk, GPU, kvm, tty) gives the sandbox direct access to host hardware",
	.techniques = "T1006,T1611",
	.policy_keys = "dev.allow:devices",
	.method = "action",
	.run = run_host_devices,
	.flags = SP_CHECK_KERNEL,
	.batch = &dev_nodes,
};

static void run_allowlist(const sp_ctx *ctx, sp_result *r)
{
	sp_strv allow;
	sp_policy_list(ctx->policy, "dev.allow", &allow);
	sp_expected(r, "each of dev.allow exists and opens: %s", allow.n ? sp_policy_get(ctx->policy, "dev.allow") : "(none)");
	if (!allow.n) {
		sp_pass(r, "policy allows no device");
		sp_strv_free(&allow);
		return;
	}
	size_t bad = 0;
	for (size_t i = 0; i < allow.n; i++) {
		char p[256];
		snprintf(p, sizeof p, "/dev/%s", allow.v[i]);
		int fd = open(p, O_RDWR | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		int e = errno;
		if (fd < 0 && (e == EACCES || e == EROFS))
			fd = open(p, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), e = errno;
		/* /dev/tty without a controlling terminal: ENXIO (Linux) or EIO
		 * (gVisor); the node itself is fine */
		bool ok = fd >= 0 || ((e == ENXIO || e == EIO) && !strcmp(allow.v[i], "tty"));
		if (fd >= 0)
			close(fd);
		sp_observed_add(r, "%s %s", allow.v[i], fd >= 0 ? "opens" : sp_errname(e));
		bad += !ok;
	}
	if (bad)
		sp_failr(r, "%zu allowed device(s) missing or unusable", bad);
	else
		sp_pass(r, "all %zu allowed devices usable", allow.n);
	sp_strv_free(&allow);
}

const sp_check sp_check_dev_allowlist = {
	.id = SP_CKID(dev_allowlist),
	.category = "devices",
	.title = "allowlisted devices present and usable",
	.rationale = "a sandbox without /dev/null or /dev/urandom breaks ordinary programs",
	.techniques = "",
	.policy_keys = "dev.allow:devices",
	.method = "action",
	.run = run_allowlist,
	.batch = &dev_nodes,
};

struct mknod_arg {
	char dir[512];
};

/* mknod c 1 5 in dir and open it: 2 opened, 1 created but unusable, 0 refused */
static long mknod_open(const char *dir)
{
	char path[600];
	snprintf(path, sizeof path, "%s/zero", dir);
	if (mknod(path, S_IFCHR | 0600, makedev(1, 5)) < 0)
		return 0;
	/* created: is it usable as a device (not a nodev mount)? */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int e = errno;
	if (fd >= 0)
		close(fd);
	unlink(path);
	errno = fd >= 0 ? 0 : e;
	return fd >= 0 ? 2 : 1;
}

static long pr_mknod_dev(void *a)
{
	struct mknod_arg *p = a;
	long v = mknod_open(p->dir);
	if (v != 1)
		return v;
	/* created on a nodev mount: a sandbox that may mount makes its own
	 * place without nodev (a tmpfs in a private mount namespace, gone with
	 * this child) and tries there */
	int e = errno;
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("sandprobe", p->dir, "tmpfs", MS_NOSUID | MS_NOEXEC, "size=16k,mode=0700") < 0) {
		errno = e;
		return 1;
	}
	long w = mknod_open(p->dir);
	umount2(p->dir, MNT_DETACH);
	return w == 2 ? 3 : 1;
}

static void run_mknod(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "mknod of a character device in a private dir refused, or the node unusable (nodev)");
	struct mknod_arg a;
	sp_outcome o = {0};
	if (sp_private_dir(ctx, a.dir, sizeof a.dir, &o) < 0) {
		/* the search looked in a few places only (fs.writable, /tmp, /dev/shm,
		 * /var/tmp, /run): nothing was tried */
		sp_observed(r, "no writable dir among fs.writable, /tmp, /dev/shm, /var/tmp, /run: %s", sp_errname(o.errnum));
		sp_skip(r, "cannot tell: no writable directory to try mknod in (fs.writable names one)");
		return;
	}
	sp_call c;
	int rc = sp_child_call(pr_mknod_dev, &a, 2000, &c);
	int rm = sp_private_dir_remove(a.dir, &o);
	if (rm < 0 || rc < 0 || (!c.ran && !c.sig)) {
		sp_errorr(r, "probe failed or left %s behind", a.dir);
		return;
	}
	if (c.sig) {
		sp_observed(r, "mknod c 1 5 in %s: probe killed by signal %d%s", a.dir, c.sig, c.sig == SIGSYS ? " (seccomp)" : "");
		if (c.sig == SIGSYS)
			sp_pass(r, "mknod killed by the seccomp filter");
		else
			sp_errorr(r, "probe crashed with signal %d", c.sig);
		return;
	}
	sp_observed(r, "mknod c 1 5 in %s: %s", a.dir,
		    c.ret == 0 ? sp_errname(c.err) : c.ret == 1 ? "created, open refused (nodev), no dev mount possible"
		    : c.ret == 2 ? "created and OPENED" : "created, refused there (nodev); OPENED on a tmpfs the probe mounted");
	if (c.ret >= 2)
		sp_failr(r, "the sandbox can create usable device nodes%s", c.ret == 3 ? " (on a mount of its own)" : "");
	else
		sp_pass(r, "%s", c.ret ? "device node created but unusable (nodev)" : "mknod refused");
}

const sp_check sp_check_dev_mknod = {
	.id = SP_CKID(dev_mknod),
	.category = "devices",
	.title = "device nodes cannot be created",
	.rationale = "a self-made block device node reads the host's disk",
	.techniques = "T1006,T1611",
	.policy_keys = "",
	.method = "action",
	.run = run_mknod,
	.flags = SP_CHECK_KERNEL,
	.batch = &dev_nodes,
};

static void run_block_devices(const sp_ctx *ctx, sp_result *r)
{
	(void)ctx;
	sp_expected(r, "no block device node that opens");
	struct dev_walk w = {.r = r, .blocks_only = true};
	sp_strv none = {0};
	w.allow = &none;
	sp_observed(r, "/dev");
	walk_dev(&w, "/dev", "", 2);
	size_t sysblk = 0;
	DIR *d = opendir("/sys/block");
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)))
			sysblk += de->d_name[0] != '.';
		closedir(d);
	}
	sp_observed_add(r, "%zu block nodes in /dev, %zu open; /sys/block lists %zu", w.blocks, w.block_usable, sysblk);
	if (w.block_usable)
		sp_failr(r, "host block device %s opens", w.first);
	else
		sp_pass(r, "%s", w.blocks ? "block nodes visible but none opens" : "no block device node");
}

const sp_check sp_check_dev_block_devices = {
	.id = SP_CKID(dev_block_devices),
	.category = "devices",
	.title = "no host block device",
	.rationale = "a readable host disk bypasses every file permission and mount",
	.techniques = "T1006",
	.policy_keys = "",
	.method = "action",
	.run = run_block_devices,
	.flags = SP_CHECK_KERNEL,
	.batch = &dev_nodes,
};

static void run_tiocsti(const sp_ctx *ctx, sp_result *r)
{
	(void)ctx;
	sp_expected(r, "no controlling terminal shared with the host, or TIOCSTI disabled");
	long legacy = -1;
	int lr = sp_sysctl_long("/proc/sys/dev/tty/legacy_tiocsti", &legacy);
	int fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	int e = errno;
	if (fd >= 0)
		close(fd);
	sp_observed(r, "controlling terminal: %s; dev.tty.legacy_tiocsti %s%ld", fd >= 0 ? "PRESENT" : sp_errname(e),
		    lr < 0 ? "absent " : "", legacy);
	/* TIOCSTI is never issued: it would type into the terminal */
	if (fd < 0)
		sp_pass(r, "no controlling terminal (%s)", sp_errname(e));
	else if (lr == 0 && legacy == 0)
		sp_pass(r, "controlling terminal present but TIOCSTI disabled");
	else
		sp_failr(r, "controlling terminal shared and TIOCSTI allowed: keystrokes can be injected into the host shell");
}

const sp_check sp_check_dev_tiocsti = {
	.id = SP_CKID(dev_tiocsti),
	.category = "devices",
	.title = "no terminal injection (TIOCSTI)",
	.rationale = "a shared terminal lets the sandbox type commands into the user's shell (CVE-2017-5226)",
	.techniques = "AML.T0050,T1611",
	.policy_keys = "",
	.method = "read",
	.run = run_tiocsti,
	.batch = &dev_nodes,
};
