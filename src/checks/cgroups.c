/* Cgroups and resources: limits in force (v2 and v1), read from the
 * sandbox's own cgroup and its visible ancestors; proven cheaply (pids by
 * counting, never by forking to the limit); limit files not writable. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/capability.h>
#include <unistd.h>

#include "checks/types.h"
#include "checks/probe.h"
#include "core/util.h"
#include "catalog/catalog.h"

/* the write-open probes of the limit files and the rlimit reads share one child */
static const sp_batch cgroup_probes = {
	.id = "cgroup.probes",
	.what = "the sandbox's own limit files opened for writing, RLIMIT_NOFILE and RLIMIT_NPROC",
};

struct cg_mounts {
	char v2[512];        /* cgroup2 mountpoint */
	char v2root[512];    /* its root within the hierarchy */
	char v1[16][512];    /* v1 mountpoints */
	char v1root[16][512];
	char v1opts[16][256];
	size_t nv1;
};

static int cg_cb(const sp_mount *m, void *arg)
{
	struct cg_mounts *c = arg;
	if (!strcmp(m->fstype, "cgroup2") && !c->v2[0]) {
		snprintf(c->v2, sizeof c->v2, "%s", m->mountpoint);
		snprintf(c->v2root, sizeof c->v2root, "%s", m->root);
	} else if (!strcmp(m->fstype, "cgroup") && c->nv1 < 16) {
		snprintf(c->v1[c->nv1], sizeof c->v1[0], "%s", m->mountpoint);
		snprintf(c->v1root[c->nv1], sizeof c->v1root[0], "%s", m->root);
		snprintf(c->v1opts[c->nv1], sizeof c->v1opts[0], "%s", m->super_opts);
		c->nv1++;
	}
	return 0;
}

/* /proc/self/cgroup path for a v1 controller ("" = v2 line "0::") */
static bool self_cgroup(const char *controller, char *out, size_t osz)
{
	char buf[4096];
	if (sp_read_file("/proc/self/cgroup", buf, sizeof buf) < 0)
		return false;
	char *save = NULL;
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(l, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		const char *ctrls = c1 + 1;
		bool match;
		if (!*controller) {
			match = !*ctrls && !strncmp(l, "0", 1);
		} else {
			sp_strv v;
			sp_strv_split(&v, ctrls, ",");
			match = sp_strv_contains(&v, controller);
			sp_strv_free(&v);
		}
		if (match) {
			snprintf(out, osz, "%s", c2 + 1);
			return true;
		}
	}
	return false;
}

/* the directory of our cgroup under a mount (path relative to the mount's root) */
static void cg_dir(const char *mnt, const char *root, const char *path, char *out, size_t osz)
{
	const char *rel = path;
	size_t rl = strlen(root);
	if (strcmp(root, "/") && !strncmp(path, root, rl))
		rel = path + rl;
	snprintf(out, osz, "%s%s", mnt, !strcmp(rel, "/") ? "" : rel);
}

/* read the tightest value of file over dir and its ancestors up to mnt;
 * "max" counts as unlimited (returns -1 when nothing finite) */
static long long cg_min(const char *mnt, const char *dir, const char *file, char *where, size_t wsz)
{
	char d[1024];
	snprintf(d, sizeof d, "%s", dir);
	long long best = -1;
	size_t ml = strlen(mnt);
	for (;;) {
		char p[1200], buf[128];
		snprintf(p, sizeof p, "%s/%s", d, file);
		if (sp_read_file(p, buf, sizeof buf) > 0) {
			char *v = sp_trim(buf);
			unsigned long long u;
			if (strcmp(v, "max") && sp_parse_u64(v, &u) == 0 && u < (1ull << 62) &&
			    (best < 0 || (long long)u < best)) {
				best = (long long)u;
				snprintf(where, wsz, "%s", p);
			}
		}
		if (strlen(d) <= ml)
			break;
		char *slash = strrchr(d, '/');
		if (!slash || (size_t)(slash - d) < ml)
			break;
		*slash = '\0';
	}
	return best;
}

static bool procs_has_self(const char *dir)
{
	char p[1200];
	snprintf(p, sizeof p, "%s/cgroup.procs", dir);
	int e = 0;
	_cleanup_free_ char *buf = sp_read_file_alloc(p, 1u << 20, NULL, &e);
	if (!buf)
		return false;
	long self = (long)getpid();
	char *save = NULL;
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (atol(l) == self)
			return true;
	return false;
}

/* In a cgroup namespace over a bind of the host's hierarchy (mountinfo root
 * "/.."), the path in /proc/self/cgroup is relative to a root we cannot
 * name: find our directory by membership instead (bounded walk). */
static bool find_by_membership(const char *mnt, char *out, size_t osz)
{
	char **q = sp_xmalloc(4096 * sizeof *q);
	size_t head = 0, tail = 0;
	bool found = false;
	q[tail++] = sp_xstrdup(mnt);
	while (head < tail && !found) {
		char *d = q[head++];
		if (procs_has_self(d)) {
			snprintf(out, osz, "%s", d);
			found = true;
		} else {
			DIR *dd = opendir(d);
			struct dirent *de;
			while (dd && (de = readdir(dd)) && tail < 4096) {
				if (de->d_type != DT_DIR || de->d_name[0] == '.')
					continue;
				q[tail++] = sp_xasprintf("%s/%s", d, de->d_name);
			}
			if (dd)
				closedir(dd);
		}
	}
	for (size_t i = 0; i < tail; i++)
		free(q[i]);
	free(q);
	return found;
}

static void cg_resolve(const char *mnt, const char *root, const char *path, char *dir, size_t dsz)
{
	cg_dir(mnt, root, path, dir, dsz);
	if (!procs_has_self(dir) && sp_startswith(root, "/.."))
		find_by_membership(mnt, dir, dsz);
}

/* locate the v2 dir or the v1 dir of a controller */
static bool cg_locate(const struct cg_mounts *c, const char *v1ctrl, char *mnt, size_t msz, char *dir, size_t dsz)
{
	char path[1024];
	if (c->v2[0] && self_cgroup("", path, sizeof path)) {
		char test[1200];
		cg_resolve(c->v2, c->v2root, path, dir, dsz);
		snprintf(test, sizeof test, "%s/cgroup.controllers", dir);
		char ctl[512];
		if (sp_read_file(test, ctl, sizeof ctl) >= 0) {
			sp_strv v;
			sp_strv_split(&v, ctl, " \n");
			bool has = sp_strv_contains(&v, !strcmp(v1ctrl, "cpu") ? "cpu" : v1ctrl);
			sp_strv_free(&v);
			if (has) {
				snprintf(mnt, msz, "%s", c->v2);
				return true;
			}
		}
	}
	for (size_t i = 0; i < c->nv1; i++) {
		if (!sp_opt_has(c->v1opts[i], v1ctrl))
			continue;
		if (!self_cgroup(v1ctrl, path, sizeof path))
			continue;
		cg_resolve(c->v1[i], c->v1root[i], path, dir, dsz);
		snprintf(mnt, msz, "%s", c->v1[i]);
		return true;
	}
	return false;
}

/* cgroup.versions' words: the layouts run_version tells apart */
static const char *const layouts[] = {"v1", "v2", "hybrid", "none", NULL};
const sp_policy_type sp_ptype_cgroup_layouts = {.name = "cgroup_layouts", .what = "v1, v2, hybrid or none", .list = true,
						.choices = layouts};

static void run_version(const sp_ctx *ctx, sp_result *r)
{
	sp_strv ok;
	sp_policy_list(ctx->policy, "cgroup.versions", &ok);
	struct cg_mounts c;
	memset(&c, 0, sizeof c);
	sp_mountinfo_each(cg_cb, &c);
	const char *kind = c.v2[0] && c.nv1 ? "hybrid" : c.v2[0] ? "v2" : c.nv1 ? "v1" : "none";
	sp_expected(r, "cgroup layout one of: %s", ok.n ? sp_policy_get(ctx->policy, "cgroup.versions") : "any");
	char self[512] = "";
	sp_read_file("/proc/self/cgroup", self, sizeof self);
	for (char *p = self; *p; p++)
		if (*p == '\n')
			*p = ' ';
	sp_observed(r, "%s: v2 at %s, %zu v1 hierarchies; /proc/self/cgroup: %s", kind, c.v2[0] ? c.v2 : "-", c.nv1,
		    sp_trim(self));
	if (ok.n && !sp_strv_contains(&ok, kind))
		sp_failr(r, "cgroup layout %s not allowed by policy", kind);
	else
		sp_pass(r, "cgroup layout %s", kind);
	sp_strv_free(&ok);
}

const sp_check sp_check_cgroup_version = {
	.id = SP_CKID(cgroup_version),
	.category = "cgroups",
	.title = "cgroup layout per policy",
	.rationale = "limits and device rules differ between cgroup v1 and v2; the policy says which it relies on",
	.techniques = "",
	.policy_keys = "cgroup.versions:cgroup_layouts",
	.method = "read",
	.run = run_version,
	.flags = SP_CHECK_INPROCESS,
};

static void run_limit(const char *key, const char *unit, const char *ctrl, const char *v2file, const char *v1file,
		      long long scale, const sp_ctx *ctx, sp_result *r)
{
	long long want = sp_policy_int(ctx->policy, key, 0);
	sp_expected(r, "%s", want ? "a limit in force, at most the policy's" : "any (no limit demanded)");
	struct cg_mounts c;
	memset(&c, 0, sizeof c);
	sp_mountinfo_each(cg_cb, &c);
	char mnt[512], dir[1024], where[1300] = "";
	if (!cg_locate(&c, ctrl, mnt, sizeof mnt, dir, sizeof dir)) {
		sp_observed(r, "no %s controller visible", ctrl);
		if (want)
			sp_failr(r, "no %s cgroup controller visible: no limit can be proven", ctrl);
		else
			sp_pass(r, "no %s controller visible, no limit demanded", ctrl);
		return;
	}
	bool v2 = !strcmp(mnt, c.v2);
	long long v = cg_min(mnt, dir, v2 ? v2file : v1file, where, sizeof where);
	long long scaled = v < 0 ? -1 : v / scale;
	sp_observed(r, "%s (%s): %s", dir, v2 ? "v2" : "v1", v < 0 ? "unlimited" : "");
	if (v >= 0)
		sp_observed_add(r, "%lld %s from %s", scaled, unit, where);
	if (!want) {
		sp_pass(r, "%s limit %s, none demanded", ctrl, v < 0 ? "absent" : "present");
	} else if (v < 0) {
		sp_failr(r, "no %s limit in force (policy: at most %lld %s)", ctrl, want, unit);
	} else if (scaled > want) {
		sp_failr(r, "%s limit %lld %s exceeds the policy's %lld", ctrl, scaled, unit, want);
	} else {
		sp_pass(r, "%s limit %lld %s in force", ctrl, scaled, unit);
	}
}

static void run_memory(const sp_ctx *ctx, sp_result *r)
{
	run_limit("cgroup.memory_max_mib", "MiB", "memory", "memory.max", "memory.limit_in_bytes", 1 << 20, ctx, r);
	/* v1 reports "no limit" as a huge page-aligned number: cg_min drops >= 2^62 */
}

static void run_pids(const sp_ctx *ctx, sp_result *r)
{
	run_limit("cgroup.pids_max", "tasks", "pids", "pids.max", "pids.max", 1, ctx, r);
	if (r->status != SP_STATUS_PASS)
		return;
	/* cheap proof: the tasks /proc shows do not exceed the limit's counter */
	struct cg_mounts c;
	memset(&c, 0, sizeof c);
	sp_mountinfo_each(cg_cb, &c);
	char mnt[512], dir[1024], p[1200], buf[64];
	if (cg_locate(&c, "pids", mnt, sizeof mnt, dir, sizeof dir)) {
		snprintf(p, sizeof p, "%s/pids.current", dir);
		if (sp_read_file(p, buf, sizeof buf) > 0)
			sp_observed_add(r, "pids.current %s", sp_trim(buf));
	}
}

static void run_cpu(const sp_ctx *ctx, sp_result *r)
{
	long long want = sp_policy_int(ctx->policy, "cgroup.cpu_max_millicores", 0);
	sp_expected(r, "%s", want ? "a CPU quota in force, at most the policy's millicores" : "any (no quota demanded)");
	struct cg_mounts c;
	memset(&c, 0, sizeof c);
	sp_mountinfo_each(cg_cb, &c);
	char mnt[512], dir[1024];
	if (!cg_locate(&c, "cpu", mnt, sizeof mnt, dir, sizeof dir)) {
		sp_observed(r, "no cpu controller visible");
		if (want)
			sp_failr(r, "no cpu controller visible: no quota can be proven");
		else
			sp_pass(r, "no cpu controller visible, no quota demanded");
		return;
	}
	long long quota = -1, period = 100000;
	char p[1200], buf[128];
	if (!strcmp(mnt, c.v2)) {
		snprintf(p, sizeof p, "%s/cpu.max", dir);
		if (sp_read_file(p, buf, sizeof buf) > 0) {
			char q[32];
			long long per;
			if (sscanf(buf, "%31s %lld", q, &per) == 2) {
				period = per;
				if (strcmp(q, "max"))
					quota = atoll(q);
			}
		}
	} else {
		snprintf(p, sizeof p, "%s/cpu.cfs_quota_us", dir);
		if (sp_read_file(p, buf, sizeof buf) > 0)
			quota = atoll(buf);
		snprintf(p, sizeof p, "%s/cpu.cfs_period_us", dir);
		if (sp_read_file(p, buf, sizeof buf) > 0)
			period = atoll(buf);
	}
	long long milli = quota > 0 && period > 0 ? quota * 1000 / period : -1;
	sp_observed(r, "%s: quota %lld period %lld (%lld millicores)", p, quota, period, milli);
	if (!want)
		sp_pass(r, "cpu quota %s, none demanded", milli < 0 ? "absent" : "present");
	else if (milli < 0)
		sp_failr(r, "no cpu quota in force (policy: at most %lld millicores)", want);
	else if (milli > want)
		sp_failr(r, "cpu quota %lld millicores exceeds the policy's %lld", milli, want);
	else
		sp_pass(r, "cpu quota %lld millicores in force", milli);
}

const sp_check sp_check_cgroup_memory = {
	.id = SP_CKID(cgroup_memory),
	.category = "cgroups",
	.title = "memory limit per policy",
	.rationale = "without a memory limit one sandbox can push the host into the OOM killer",
	.techniques = "T1499,AML.T0029",
	.policy_keys = "cgroup.memory_max_mib:int",
	.method = "read",
	.run = run_memory,
	.flags = SP_CHECK_INPROCESS,
};
const sp_check sp_check_cgroup_pids = {
	.id = SP_CKID(cgroup_pids),
	.category = "cgroups",
	.title = "pids limit per policy",
	.rationale = "without a pids limit a fork bomb takes the whole host down",
	.techniques = "T1499,AML.T0029,AML.T0034.002",
	.policy_keys = "cgroup.pids_max:int",
	.method = "read",
	.run = run_pids,
	.flags = SP_CHECK_INPROCESS,
};
const sp_check sp_check_cgroup_cpu = {
	.id = SP_CKID(cgroup_cpu),
	.category = "cgroups",
	.title = "CPU quota per policy",
	.rationale = "without a CPU quota the sandbox starves its neighbours",
	.techniques = "T1496,T1499,AML.T0029,AML.T0034,AML.T0034.002",
	.policy_keys = "cgroup.cpu_max_millicores:int",
	.method = "read",
	.run = run_cpu,
	.flags = SP_CHECK_INPROCESS,
};

static void run_cg_readonly(const sp_ctx *ctx, sp_result *r)
{
	bool must = sp_policy_bool(ctx->policy, "cgroup.readonly", true);
	sp_expected(r, "%s", must ? "the sandbox's own limit files refuse a write open" : "any (not required)");
	struct cg_mounts c;
	memset(&c, 0, sizeof c);
	sp_mountinfo_each(cg_cb, &c);
	static const char *const ctrls[] = {"memory", "pids", "cpu"};
	static const char *const v2files[] = {"memory.max", "pids.max", "cpu.max", "cgroup.procs", "cgroup.subtree_control"};
	static const char *const v1files[] = {"memory.limit_in_bytes", "pids.max", "cpu.cfs_quota_us", "cgroup.procs"};
	size_t probed = 0, writable = 0;
	char first[256] = "";
	for (size_t i = 0; i < SP_ARRAY_SIZE(ctrls); i++) {
		char mnt[512], dir[1024];
		if (!cg_locate(&c, ctrls[i], mnt, sizeof mnt, dir, sizeof dir))
			continue;
		bool v2 = !strcmp(mnt, c.v2);
		const char *const *files = v2 ? v2files : v1files;
		size_t nf = v2 ? SP_ARRAY_SIZE(v2files) : SP_ARRAY_SIZE(v1files);
		for (size_t j = 0; j < nf; j++) {
			char p[1200];
			snprintf(p, sizeof p, "%s/%s", dir, files[j]);
			int e = 0;
			/* open only: a write to a limit file would change it */
			int w = sp_write_probe(p, false, &e);
			if (w < 0) /* absent */
				continue;
			probed++;
			if (w == 1 && !writable++)
				snprintf(first, sizeof first, "%s", p);
			if (probed <= 8)
				sp_observed_add(r, "%s: %s", p, w == 1 ? "WRITABLE" : sp_errname(e));
		}
		if (v2)
			break; /* one v2 directory holds them all */
	}
	if (!probed) {
		/* nothing was tried: a limit file hidden from this view may still be
		 * writable through another (a cgroupfs mounted elsewhere) */
		sp_observed_add(r, "no cgroup limit file visible");
		sp_skip(r, "cannot tell: no cgroup limit file of the sandbox's own is visible to try");
	} else if (writable && must) {
		sp_failr(r, "%zu limit file(s) writable from inside (first: %s)", writable, first);
	} else {
		sp_pass(r, "%s", writable ? "limit files writable, allowed by policy" : "limit files refuse writes");
	}
}

const sp_check sp_check_cgroup_readonly = {
	.id = SP_CKID(cgroup_readonly),
	.category = "cgroups",
	.title = "the sandbox cannot change its own limits",
	.rationale = "a writable memory.max or pids.max makes every limit advisory",
	.techniques = "T1611,T1499",
	.policy_keys = "cgroup.readonly:bool",
	.method = "action",
	.run = run_cg_readonly,
	.flags = SP_CHECK_KERNEL,
	.batch = &cgroup_probes,
};

/* the identity map of the initial user namespace: capabilities held here
 * count against the kernel's own checks (mknod asks capable(CAP_MKNOD)) */
static bool initial_userns(void)
{
	char map[256];
	if (sp_read_file("/proc/self/uid_map", map, sizeof map) <= 0)
		return false;
	unsigned long a, b, n;
	return sscanf(map, "%lu %lu %lu", &a, &b, &n) == 3 && a == 0 && b == 0 && n == 4294967295ul &&
	       !strchr(sp_trim(map), '\n');
}

struct devcg_arg {
	char dir[512];
};

/* the outcome of one try, in the child's return value */
enum { DEVCG_MKNOD_REFUSED = 1,
       DEVCG_OPEN_REFUSED,
       DEVCG_NODEV,
       DEVCG_REACHED,
       DEVCG_OPENED };

/* mknod c 1:0 (the mem driver has no minor 0, so no allowlist names it and an
 * open that passes the device check ends in the driver's ENXIO, with no side
 * effect) and open it: the device cgroup (v1 list or v2 BPF program) answers
 * EPERM between the nodev check (EACCES) and the driver */
static long devcg_try(const char *dir)
{
	char path[600];
	snprintf(path, sizeof path, "%s/c1-0", dir);
	if (mknod(path, S_IFCHR | 0600, makedev(1, 0)) < 0)
		return errno == EPERM ? DEVCG_MKNOD_REFUSED : -1;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	int e = errno;
	if (fd >= 0)
		close(fd);
	unlink(path);
	errno = fd >= 0 ? 0 : e;
	if (fd >= 0)
		return DEVCG_OPENED;
	/* the driver's answer rides in the high bits (a positive return carries no errno) */
	return e == EPERM ? DEVCG_OPEN_REFUSED : e == EACCES           ? DEVCG_NODEV
					 : (e == ENXIO || e == ENODEV) ? DEVCG_REACHED | e << 8
								       : -1;
}

static long pr_devcg(void *a)
{
	struct devcg_arg *p = a;
	long v = devcg_try(p->dir);
	if (v != DEVCG_NODEV)
		return v;
	/* a nodev mount answered first: a private tmpfs where the sandbox may mount */
	int e = errno;
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("sandprobe", p->dir, "tmpfs", MS_NOSUID | MS_NOEXEC, "size=16k,mode=0700") < 0) {
		errno = e;
		return DEVCG_NODEV;
	}
	v = devcg_try(p->dir);
	e = errno;
	umount2(p->dir, MNT_DETACH);
	errno = e;
	return v;
}

/* prove the device allowlist by action; skip where no node can be made */
static void devcg_action(const sp_ctx *ctx, sp_result *r)
{
	bool mknod_cap = sp_has_cap(CAP_MKNOD), init_ns = initial_userns();
	if (!mknod_cap || !init_ns) {
		sp_observed_add(r, "mknod of a device: %s", !mknod_cap ? "CAP_MKNOD not held" : "not in the initial user namespace");
		sp_skip(r, "cannot tell: no devices list to read and no device node can be made to try the allowlist "
			   "(%s); dev.host_devices judges the nodes present by opening them",
			mknod_cap ? "CAP_MKNOD outside the initial user namespace" : "no CAP_MKNOD");
		return;
	}
	struct devcg_arg a;
	sp_outcome o = {0};
	if (sp_private_dir(ctx, a.dir, sizeof a.dir, &o) < 0) {
		sp_observed_add(r, "no writable dir: %s", sp_errname(o.errnum));
		sp_skip(r, "cannot tell: no writable directory to make a device node in");
		return;
	}
	sp_call c;
	int rc = sp_child_call(pr_devcg, &a, 2000, &c);
	int rm = sp_private_dir_remove(a.dir, &o);
	if (rm < 0 || rc < 0 || !c.ran) {
		sp_errorr(r, "probe %s (dir %s)", c.sig ? "killed by a signal" : "failed or left its dir behind", a.dir);
		return;
	}
	int drv = (int)(c.ret >> 8);
	switch (c.ret & 0xff) {
	case DEVCG_OPEN_REFUSED:
		sp_observed_add(r, "mknod c 1:0 in %s: created; open: EPERM (device access control)", a.dir);
		sp_pass(r, "a device node outside the allowlist is refused at open (EPERM)");
		break;
	case DEVCG_MKNOD_REFUSED:
		sp_observed_add(r, "mknod c 1:0 in %s with CAP_MKNOD: EPERM; seccomp mode %d", a.dir, sp_seccomp_mode());
		if (sp_seccomp_mode() == 0)
			sp_pass(r, "device node creation refused by device access control (EPERM with CAP_MKNOD, no seccomp)");
		else
			sp_skip(r, "cannot tell: mknod refused (EPERM) under a seccomp filter, which may be what refused it");
		break;
	case DEVCG_REACHED:
	case DEVCG_OPENED:
		sp_observed_add(r, "mknod c 1:0 in %s: created; open: %s (the driver was reached)", a.dir,
				(c.ret & 0xff) == DEVCG_OPENED ? "OPENED" : sp_errname(drv));
		sp_failr(r, "no device allowlist: a node outside any allowlist reaches its driver");
		break;
	case DEVCG_NODEV:
		sp_observed_add(r, "mknod c 1:0 in %s: created; open: EACCES (nodev), no mount of its own possible", a.dir);
		sp_skip(r, "cannot tell: the node could only be made on a nodev mount, which refuses it before the allowlist");
		break;
	default:
		sp_observed_add(r, "mknod c 1:0 in %s: %s", a.dir, sp_errname(c.err));
		sp_skip(r, "cannot tell: the probe node answered %s, which is not the allowlist's answer", sp_errname(c.err));
	}
}

static void run_cg_devices(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "the device allowlist refuses a node outside it (v1 devices.list not 'a *:* rwm', or an open/mknod refused)");
	struct cg_mounts c;
	memset(&c, 0, sizeof c);
	sp_mountinfo_each(cg_cb, &c);
	for (size_t i = 0; i < c.nv1; i++) {
		if (!sp_opt_has(c.v1opts[i], "devices"))
			continue;
		char path[1024], dir[1100], p[1200], buf[4096];
		if (!self_cgroup("devices", path, sizeof path))
			break;
		cg_resolve(c.v1[i], c.v1root[i], path, dir, sizeof dir);
		snprintf(p, sizeof p, "%s/devices.list", dir);
		ssize_t n = sp_read_file(p, buf, sizeof buf);
		if (n < 0) {
			sp_observed(r, "%s: %s", p, sp_errname((int)-n));
			devcg_action(ctx, r);
			return;
		}
		bool all = strstr(buf, "a *:* rwm") != NULL;
		size_t rules = 0;
		for (char *q = buf; *q; q++)
			rules += *q == '\n';
		sp_observed(r, "%s: %zu rule(s)%s", p, rules, all ? ", 'a *:* rwm'" : "");
		if (all)
			sp_failr(r, "the devices cgroup allows every device");
		else
			sp_pass(r, "devices cgroup restricts devices (%zu rules)", rules);
		return;
	}
	sp_observed(r, "no cgroup v1 devices list (%s)", c.v2[0] ? "cgroup v2: a BPF program decides" : "no devices hierarchy");
	devcg_action(ctx, r);
}

const sp_check sp_check_cgroup_devices = {
	.id = SP_CKID(cgroup_devices),
	.category = "cgroups",
	.title = "devices cgroup restricts devices",
	.rationale = "'a *:* rwm' lets a process with mknod reach every host device",
	.techniques = "T1006",
	.policy_keys = "",
	.method = "action",
	.run = run_cg_devices,
	.flags = SP_CHECK_KERNEL,
};

static void run_rlimit(int res, const char *name, const char *key, const sp_ctx *ctx, sp_result *r)
{
	long long want = sp_policy_int(ctx->policy, key, 0);
	struct rlimit rl;
	sp_expected(r, "%s", want ? "hard limit at most the policy's" : "any (no limit demanded)");
	if (getrlimit(res, &rl) < 0) {
		sp_errorr(r, "getrlimit: %s", strerror(errno));
		return;
	}
	if (rl.rlim_max == RLIM_INFINITY)
		sp_observed(r, "%s soft %lld hard unlimited", name, (long long)rl.rlim_cur);
	else
		sp_observed(r, "%s soft %lld hard %lld", name, (long long)rl.rlim_cur, (long long)rl.rlim_max);
	if (!want)
		sp_pass(r, "%s not demanded by policy", name);
	else if (rl.rlim_max == RLIM_INFINITY || (long long)rl.rlim_max > want)
		sp_failr(r, "%s hard limit above the policy's %lld", name, want);
	else
		sp_pass(r, "%s hard limit %lld", name, (long long)rl.rlim_max);
}

static void run_nofile(const sp_ctx *ctx, sp_result *r) { run_rlimit(RLIMIT_NOFILE, "RLIMIT_NOFILE", "res.nofile_max", ctx, r); }
static void run_nproc(const sp_ctx *ctx, sp_result *r) { run_rlimit(RLIMIT_NPROC, "RLIMIT_NPROC", "res.nproc_max", ctx, r); }

const sp_check sp_check_res_nofile = {
	.id = SP_CKID(res_nofile),
	.category = "cgroups",
	.title = "open file limit per policy",
	.rationale = "an unbounded descriptor table exhausts the host's file table",
	.techniques = "T1499",
	.policy_keys = "res.nofile_max:int",
	.method = "read",
	.run = run_nofile,
	.batch = &cgroup_probes,
};
const sp_check sp_check_res_nproc = {
	.id = SP_CKID(res_nproc),
	.category = "cgroups",
	.title = "process limit per policy",
	.rationale = "RLIMIT_NPROC is the last line against a fork bomb where no pids cgroup applies",
	.techniques = "T1499",
	.policy_keys = "res.nproc_max:int",
	.method = "read",
	.run = run_nproc,
	.batch = &cgroup_probes,
};
