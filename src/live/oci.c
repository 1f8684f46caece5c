/* OCI runtimes (runc, crun): a bundle (rootfs + config.json written with
 * jansson) run in the foreground with `RUNTIME run`, so the container's
 * stdio are our pipes; teardown is `RUNTIME delete --force`, and the proof is
 * that `RUNTIME state` no longer knows the container. */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/caps.h"
#include "live/live.h"
#include "live/oci.h"

void sp_host_caps(sp_strv *out)
{
	char v[64];
	uint64_t bnd = 0;
	if (sp_status_field("/proc/self/status", "CapBnd", v, sizeof v) < 0 || sp_caps_parse(v, &bnd) < 0)
		return;
	for (unsigned c = 0; c < 64; c++) {
		const char *name = sp_cap_name(c);
		if (!(bnd & (1ull << c)) || !name)
			continue;
		char up[64];
		size_t i = 0;
		for (; name[i] && i < sizeof up - 1; i++)
			up[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
		up[i] = '\0';
		sp_strv_push(out, up);
	}
}

/* every capability the host itself holds in its bounding set (asking for
 * one it lacks makes the runtime fail with EPERM) */
static json_t *caps_array(const sp_live_lane *l, bool all)
{
	json_t *a = json_array();
	if (!all)
		return a;
	sp_strv caps;
	sp_strv_split(&caps, NULL, ",");
	sp_host_caps(&caps);
	for (size_t i = 0; i < caps.n; i++)
		if (!l->caps_known || sp_strv_contains(l->caps_known, caps.v[i])) /* and only those the runtime knows */
			json_array_append_new(a, json_string(caps.v[i]));
	sp_strv_free(&caps);
	return a;
}

static json_t *mount(const char *dest, const char *type, const char *src, const char *opts)
{
	json_t *o = json_pack("{s:s,s:s,s:s}", "destination", dest, "type", type, "source", src);
	sp_strv v;
	sp_strv_split(&v, opts, ",");
	json_t *a = json_array();
	for (size_t i = 0; i < v.n; i++)
		json_array_append_new(a, json_string(v.v[i]));
	sp_strv_free(&v);
	json_object_set_new(o, "options", a);
	return o;
}

int sp_oci_write_bundle(sp_live_lane *l, sp_error *err)
{
	const sp_live_launch *a = &l->actual;
	json_t *args = json_array();
	for (size_t i = 0; i < l->inside.n; i++)
		json_array_append_new(args, json_string(l->inside.v[i]));
	bool all = !a->drop_caps;
	json_t *caps = json_pack("{s:o,s:o,s:o,s:o,s:o}", "bounding", caps_array(l, all), "effective",
				 caps_array(l, all), "permitted", caps_array(l, all), "inheritable", caps_array(l, false), "ambient",
				 caps_array(l, false));
	json_t *process = json_pack("{s:b,s:{s:i,s:i},s:o,s:[s],s:s,s:o,s:b,s:[{s:s,s:i,s:i}]}", "terminal", 0, "user",
				    "uid", 0, "gid", 0, "args", args, "env", "PATH=/bin", "cwd", "/", "capabilities", caps,
				    "noNewPrivileges", a->nnp, "rlimits", "type", "RLIMIT_NOFILE", "hard", 1024, "soft", 1024);
	json_t *mounts = json_array();
	json_array_append_new(mounts, mount("/proc", "proc", "proc", "nosuid,noexec,nodev"));
	if (a->min_dev)
		json_array_append_new(mounts, mount("/dev", "tmpfs", "tmpfs", "nosuid,strictatime,mode=755,size=65536k"));
	else
		json_array_append_new(mounts, mount("/dev", "bind", "/dev", "rbind,nosuid"));
	json_array_append_new(mounts, mount("/dev/pts", "devpts", "devpts",
					    "nosuid,noexec,newinstance,ptmxmode=0666,mode=0620"));
	json_array_append_new(mounts, mount("/dev/shm", "tmpfs", "shm", "nosuid,noexec,nodev,mode=1777,size=65536k"));
	json_array_append_new(mounts, mount("/sys", "sysfs", "sysfs", "nosuid,noexec,nodev,ro"));
	if (a->tmp)
		json_array_append_new(mounts, mount("/tmp", "tmpfs", "tmpfs", "nosuid,nodev,mode=1777,size=65536k"));
	json_t *ns = json_array();
	static const char *const oci_ns[] = {"pid", "network", "mount", "uts", "ipc", "user", "cgroup"};
	for (unsigned i = 0; i < 7; i++)
		if (a->ns & (1u << i))
			json_array_append_new(ns, json_pack("{s:s}", "type", oci_ns[i]));
	json_t *linux_ = json_pack("{s:o,s:s}", "namespaces", ns, "cgroupsPath", l->name);
	if (!a->privileged) {
		static const char *const defaults[] = {"/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
						       "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug",
						       "/proc/scsi", "/sys/firmware", "/sys/devices/virtual/powercap"};
		sp_strv masked;
		sp_strv_split(&masked, NULL, ",");
		for (size_t i = 0; i < SP_ARRAY_SIZE(defaults); i++)
			sp_strv_push(&masked, defaults[i]);
		for (size_t i = 0; i < l->cfg->masked.n; i++)
			if (!sp_strv_contains(&masked, l->cfg->masked.v[i]))
				sp_strv_push(&masked, l->cfg->masked.v[i]);
		json_t *mp = json_array();
		for (size_t i = 0; i < masked.n; i++)
			json_array_append_new(mp, json_string(masked.v[i]));
		sp_strv_free(&masked);
		json_object_set_new(linux_, "maskedPaths", mp);
		json_object_set_new(linux_, "readonlyPaths",
				    json_pack("[s,s,s,s,s,s]", "/proc/asound", "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
					      "/proc/sysrq-trigger"));
	}
	if (a->seccomp)
		json_object_set_new(linux_, "seccomp", sp_seccomp_oci(l->cfg));
	json_t *root = json_pack("{s:s,s:o,s:{s:s,s:b},s:s,s:o,s:o}", "ociVersion", "1.0.2", "process", process, "root",
				 "path", "rootfs", "readonly", a->ro_root, "hostname", "sandprobe", "mounts", mounts, "linux",
				 linux_);
	char path[600];
	snprintf(path, sizeof path, "%s/config.json", l->dir);
	int r = json_dump_file(root, path, JSON_INDENT(1));
	json_decref(root);
	if (r < 0)
		return sp_fail_errno(err, EIO, "cannot write %s", path);
	return 0;
}

int sp_oci_launch(sp_live_lane *l, sp_error *err)
{
	const char *runtime = l->rt->name;
	if (sp_oci_write_bundle(l, err) < 0)
		return -1;
	char *argv[] = {(char *)runtime, "run", "--bundle", l->dir, l->name, NULL};
	snprintf(l->rtinfo, sizeof l->rtinfo, "%s run --bundle (config.json: %s%s%s)", runtime,
		 l->actual.seccomp ? "seccomp " : "", l->actual.ro_root ? "readonly " : "", l->actual.drop_caps ? "no caps" : "all caps");
	return sp_lane_proc_spawn(l, argv, err);
}

void sp_oci_delete(sp_live_lane *l)
{
	const char *runtime = l->rt->name;
	char *argv[] = {(char *)runtime, "delete", "--force", l->name, NULL};
	_cleanup_free_ char *o = NULL;
	_cleanup_free_ char *e = NULL;
	sp_run_cmd(argv, &o, &e, 10000);
}

int sp_oci_leftovers(sp_live_lane *l, char *what, size_t whatsz)
{
	const char *runtime = l->rt->name;
	char *argv[] = {(char *)runtime, "state", l->name, NULL};
	_cleanup_free_ char *o = NULL;
	_cleanup_free_ char *e = NULL;
	int rc = sp_run_cmd(argv, &o, &e, 10000);
	if (rc == 0) {
		snprintf(what, whatsz, "container %s still known to %s", l->name, runtime);
		return 1;
	}
	if (sp_oci_cgroup_left(l, what, whatsz))
		return 1;
	snprintf(what, whatsz, "no container state, no cgroup");
	return 0;
}

int sp_oci_cgroup_left(const sp_live_lane *l, char *what, size_t whatsz)
{
	/* the spec's cgroupsPath is the lane's name: under any v1 controller, or the unified tree */
	_cleanup_closedir_ DIR *d = opendir("/sys/fs/cgroup");
	struct dirent *de;
	char p[600];
	snprintf(p, sizeof p, "/sys/fs/cgroup/%s", l->name);
	if (access(p, F_OK) == 0) {
		snprintf(what, whatsz, "cgroup %s left", p);
		return 1;
	}
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "/sys/fs/cgroup/%s/%s", de->d_name, l->name);
		if (access(p, F_OK) == 0) {
			snprintf(what, whatsz, "cgroup %s left", p);
			return 1;
		}
	}
	return 0;
}

int sp_oci_probe(const char *runtime, sp_outcome *o)
{
	if (sp_probe_root(o, "%s lanes need root (rootless bundles are not implemented)", runtime) < 0 ||
	    sp_probe_tool(runtime, o, "%s not installed", runtime) < 0)
		return -1;
	char *argv[] = {(char *)runtime, "--version", NULL};
	if (sp_run_cmd(argv, NULL, NULL, 5000) != 0) {
		sp_why(o, "%s --version fails", runtime);
		return -1;
	}
	return 0;
}
