/* crun: the same OCI bundle as runc, with a state root of the lane's own.
 * crun 1.8 refuses a hybrid cgroup layout (v1 controllers plus a cgroup2
 * tree that holds controllers: "cgroups in hybrid mode not supported, drop
 * all controllers from cgroupv2"). There the lane runs crun in a private
 * mount namespace of its own in which /sys/fs/cgroup/unified is unmounted,
 * with --cgroup-manager=disabled (so the sandbox gets no cgroup of its own,
 * and the lane does not claim one), and says so in its notes; elsewhere crun
 * runs natively. The private namespace dies with the crun process: nothing
 * of it outlives the lane. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <linux/magic.h>

#include "live/oci.h"

/* the controllers of a hybrid host's cgroup2 tree ("" when the host is not hybrid) */
static void hybrid_controllers(char *out, size_t n)
{
	out[0] = '\0';
	struct statfs a, b;
	if (statfs("/sys/fs/cgroup", &a) == 0 && a.f_type == TMPFS_MAGIC && statfs("/sys/fs/cgroup/unified", &b) == 0 &&
	    b.f_type == CGROUP2_SUPER_MAGIC) {
		char ctl[512];
		ssize_t len = sp_read_file("/sys/fs/cgroup/unified/cgroup.controllers", ctl, sizeof ctl);
		if (len > 0)
			snprintf(out, n, "%s", sp_trim(ctl));
	}
}

static bool hybrid(void)
{
	char c[512];
	hybrid_controllers(c, sizeof c);
	return c[0] != '\0';
}

static int probe(const sp_live_cfg *cfg, sp_outcome *o)
{
	(void)cfg;
	if (sp_oci_probe("crun", o) < 0)
		return -1;
	if (hybrid() && (sp_probe_tool("unshare", o, "crun on a hybrid cgroup host runs in a private mount namespace: "
						     "unshare (util-linux) is not installed") < 0 ||
			 sp_probe_tool("umount", o, "crun on a hybrid cgroup host needs umount (util-linux)") < 0))
		return -1;
	return 0;
}

static int plan(sp_live_lane *l, sp_outcome *o)
{
	(void)o;
	char c[512];
	hybrid_controllers(c, sizeof c);
	if (c[0]) {
		l->claim.own_cgroup = false;
		snprintf(l->notes, sizeof l->notes,
			 "hybrid cgroup host (cgroup2 at /sys/fs/cgroup/unified holds '%s'), which crun refuses: crun runs in a private "
			 "mount namespace without /sys/fs/cgroup/unified and with --cgroup-manager=disabled (no cgroup of its own)",
			 c);
	}
	return 0;
}

/* argv for `crun GLOBAL... CMD ARGS...`: through the private mount namespace on a hybrid host */
static void crun_argv(const sp_live_lane *l, sp_strv *argv, char *root, size_t rootsz)
{
	snprintf(root, rootsz, "--root=%s/crun-root", l->dir);
	sp_strv_split(argv, NULL, ",");
	if (hybrid()) {
		static const char *const pre[] = {"unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
						  "umount -l /sys/fs/cgroup/unified && exec \"$@\"", "sp-crun-hybrid"};
		for (size_t i = 0; i < SP_ARRAY_SIZE(pre); i++)
			sp_strv_push(argv, pre[i]);
	}
	sp_strv_push(argv, "crun");
	sp_strv_push(argv, root);
	if (hybrid())
		sp_strv_push(argv, "--cgroup-manager=disabled");
}

static int launch(sp_live_lane *l, sp_error *err)
{
	if (sp_oci_write_bundle(l, err) < 0)
		return -1;
	sp_strv argv;
	char root[600];
	crun_argv(l, &argv, root, sizeof root);
	sp_strv_push(&argv, "run");
	sp_strv_push(&argv, "--bundle");
	sp_strv_push(&argv, l->dir);
	sp_strv_push(&argv, l->name);
	snprintf(l->rtinfo, sizeof l->rtinfo, "crun%s run --bundle (config.json: %s%s%s)",
		 hybrid() ? " --cgroup-manager=disabled in a mount namespace without /sys/fs/cgroup/unified" : "",
		 l->actual.seccomp ? "seccomp " : "", l->actual.ro_root ? "readonly " : "", l->actual.drop_caps ? "no caps" : "all caps");
	int r = sp_lane_proc_spawn(l, argv.v, err);
	sp_strv_free(&argv);
	return r;
}

static void teardown(sp_live_lane *l)
{
	sp_strv argv;
	char root[600];
	crun_argv(l, &argv, root, sizeof root);
	sp_strv_push(&argv, "delete");
	sp_strv_push(&argv, "--force");
	sp_strv_push(&argv, l->name);
	sp_run_cmd(argv.v, NULL, NULL, 10000);
	sp_strv_free(&argv);
}

static int leftovers(sp_live_lane *l, char *what, size_t whatsz)
{
	sp_strv argv;
	char root[600];
	crun_argv(l, &argv, root, sizeof root);
	sp_strv_push(&argv, "state");
	sp_strv_push(&argv, l->name);
	int rc = sp_run_cmd(argv.v, NULL, NULL, 10000);
	sp_strv_free(&argv);
	if (rc == 0) {
		snprintf(what, whatsz, "container %s still known to crun (%s)", l->name, root);
		return 1;
	}
	char pw[256];
	if (!sp_wait_procs_gone(l->name, 5000, pw, sizeof pw)) {
		snprintf(what, whatsz, "%s", pw);
		return 1;
	}
	char dir[600];
	snprintf(dir, sizeof dir, "%s/crun-root", l->dir);
	_cleanup_closedir_ DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strstr(de->d_name, l->name)) {
			snprintf(what, whatsz, "crun state %s/%s is left", dir, de->d_name);
			return 1;
		}
	/* and its cgroup, where crun made one */
	if (sp_oci_cgroup_left(l, what, whatsz))
		return 1;
	snprintf(what, whatsz, "crun knows no %s, no process carries it, no state, no cgroup", l->name);
	return 0;
}

const sp_live_runtime sp_rt_crun = {
	.name = "crun",
	.summary = "crun: the same OCI bundle as runc (on a hybrid cgroup host: in a mount namespace without the cgroup2 "
		   "tree, --cgroup-manager=disabled)",
	.removable = SP_PROT_ALL,
	.probe = probe,
	.claims = sp_oci_claims,
	.plan = plan,
	.launch = launch,
	.teardown = teardown,
	.teardown_if_left = true,
	.leftovers = leftovers,
};
