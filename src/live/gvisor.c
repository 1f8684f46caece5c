/* runsc (gVisor) directly on the lane's OCI bundle, with a state root of the
 * lane's own: `runsc --root LANE/runsc-root --network=none --ignore-cgroups
 * --oci-seccomp run --bundle LANE NAME`. The workload runs on gVisor's
 * user-space kernel (the Sentry, a host process): the host-side checks read
 * the engine's view (the spec runsc was given, the Sentry's flags), see
 * host.c. --oci-seccomp makes gVisor load the spec's seccomp filter inside
 * the sandbox; without it there would be none.
 *
 * Variants: host-net runs with --network=host and no network namespace in
 * the spec; host-pid and host-dev cannot be launched (gVisor keeps its own
 * process table and mediates every device: an explicit reason, not a skip
 * without one); privileged keeps gVisor's device mediation; no-nnp cannot be
 * launched either (gVisor ignores a false noNewPrivileges, see below). */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/caps.h"
#include "live/oci.h"

static int probe(const sp_live_cfg *cfg, sp_outcome *o)
{
	(void)cfg;
	if (sp_probe_root(o, "runsc lanes need root (rootless gVisor is not implemented)") < 0 ||
	    sp_probe_tool("runsc", o, "runsc not installed (Debian package runsc; tried: runsc --version)") < 0)
		return -1;
	char *argv[] = {"runsc", "--version", NULL};
	if (sp_probe_cmd(argv, true, 10000, "no version", o) < 0)
		return -1;
	return 0;
}

static bool has_oci_seccomp(void)
{
	static int known = -1;
	if (known < 0) {
		char *argv[] = {"runsc", "flags", NULL};
		_cleanup_free_ char *out = NULL;
		_cleanup_free_ char *eo = NULL;
		sp_run_cmd(argv, &out, &eo, 10000);
		known = (out && strstr(out, "oci-seccomp")) || (eo && strstr(eo, "oci-seccomp"));
	}
	return known == 1;
}

void sp_gvisor_claims(sp_live_launch *l)
{
	sp_oci_claims(l);
	l->user_kernel = true;
	l->own_cgroup = false; /* --ignore-cgroups */
}

/* gVisor ignores the spec's noNewPrivileges (runsc logs "noNewPrivileges
 * ignored. PR_SET_NO_NEW_PRIVS is assumed to always be set"): its kernel
 * honours neither set-user-ID bits nor file capabilities at execve, and its
 * prctl(PR_GET_NO_NEW_PRIVS) answers 1 whatever the spec says. A control
 * without no_new_privs cannot be launched; tests/live/matrix.t proves
 * this by the operation (a set-user-ID file under runsc with and without
 * noNewPrivileges), so a gVisor that starts honouring it is noticed. */
int sp_gvisor_nnp_limit(sp_outcome *o)
{
	sp_why(o, "gVisor ignores a false noNewPrivileges: its kernel honours no set-user-ID bit or file "
		  "capability at execve and reports no_new_privs set (prctl) whatever the spec says");
	return -1;
}

int sp_gvisor_plan(sp_live_lane *l, sp_outcome *o)
{
	unsigned r = l->variant->removes;
	if (r & SP_PROT_NNP)
		return sp_gvisor_nnp_limit(o);
	if (!has_oci_seccomp()) {
		l->claim.seccomp = false;
		snprintf(l->notes, sizeof l->notes, "this runsc has no --oci-seccomp: no seccomp filter of the workload's own is claimed");
		if (r & SP_PROT_SECCOMP)
			l->kept |= SP_PROT_SECCOMP;
	} else {
		snprintf(l->notes, sizeof l->notes, "runsc --network=%s --ignore-cgroups --oci-seccomp (no cgroup of its own)",
			 (r & SP_PROT_NETNS) ? "host" : "none");
	}
	if (r & SP_PROT_PIDNS) {
		sp_why(o, "gVisor keeps a process table of its own: without a pid namespace in the spec only the "
			  "Sentry joins the host's, the workload still sees only its own processes");
		return -1;
	}
	if ((r & SP_PROT_DEV) && !(r & SP_PROT_UNPRIV)) {
		sp_why(o, "gVisor does not pass host device nodes through: with /dev bound from the host their names "
			  "appear, but opening one is refused (EPERM)");
		return -1;
	}
	if (r & SP_PROT_UNPRIV) {
		l->kept |= SP_PROT_DEV;
		size_t len = strlen(l->notes);
		snprintf(l->notes + len, sizeof l->notes - len, "; privileged: gVisor still mediates every device");
	}
	return 0;
}

int sp_gvisor_sandbox(sp_live_lane *l, pid_t pid, const char *id, char *root, size_t rootsz, sp_error *err)
{
	static char cl[65536];
	ssize_t n = sp_cmdline(pid, cl, sizeof cl);
	char bundle[600] = "";
	if (n <= 0 || strcmp(cl, "runsc-sandbox") || !memmem(cl, (size_t)n, id, strlen(id)) ||
	    !sp_cmdline_arg(cl, (size_t)n, "--bundle", bundle, sizeof bundle))
		return sp_fail_errno(err, EIO, "pid %d is not the gVisor sandbox of %.64s (argv[0] '%s')", (int)pid, id,
				     n > 0 ? cl : "(gone)");
	root[0] = '\0';
	sp_cmdline_arg(cl, (size_t)n, "--root", root, rootsz);
	snprintf(l->spec, sizeof l->spec, "%s/config.json", bundle);
	l->host_pid = pid;
	return 0;
}

static void root_dir(const sp_live_lane *l, char *out, size_t n)
{
	snprintf(out, n, "%s/runsc-root", l->dir);
}

/* the text after the first `needle` in any log file under dir ("" if none) */
static void boot_log_find(const char *dir, const char *needle, char *out, size_t outsz)
{
	out[0] = '\0';
	_cleanup_closedir_ DIR *d = opendir(dir);
	struct dirent *de;
	while (d && !out[0] && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char p[1200];
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		size_t len;
		int e;
		_cleanup_free_ char *txt = sp_read_file_alloc(p, 4u << 20, &len, &e);
		const char *u = txt ? strstr(txt, needle) : NULL;
		if (u) {
			u += strlen(needle);
			snprintf(out, outsz, "%.*s", (int)strcspn(u, "\n"), u);
		}
	}
}

void sp_gvisor_launch_message(sp_live_lane *l, sp_error *msg)
{
	char dir[600], fatal[400];
	snprintf(dir, sizeof dir, "%s/runsc-log", l->dir);
	boot_log_find(dir, "FATAL ERROR: ", fatal, sizeof fatal);
	if (fatal[0]) {
		char was[512];
		snprintf(was, sizeof was, "%s", msg->msg);
		snprintf(msg->msg, sizeof msg->msg, "%s (runsc's log: %s)", was, fatal);
	}
}

/* The capabilities this runsc knows: a sandbox asked for one it does not
 * know fails at create ("unknown capability" in its boot log), so create
 * one with the host's whole set (not started, deleted at once) and drop
 * what it names, until a create succeeds. Once per run. */
static sp_strv known_caps;
static int known_rc = 1; /* 1: not asked yet */
static char known_why[512];

static int ask_caps(sp_live_lane *l)
{
	if (known_rc <= 0)
		return known_rc;
	sp_strv_split(&known_caps, NULL, ",");
	sp_host_caps(&known_caps);
	l->caps_known = &known_caps;
	char root[600], rootarg[640], logdir[600], logarg[640], id[96];
	root_dir(l, root, sizeof root);
	snprintf(rootarg, sizeof rootarg, "--root=%s", root);
	snprintf(logdir, sizeof logdir, "%s/capprobe-log/", l->dir);
	snprintf(logarg, sizeof logarg, "--debug-log=%s", logdir);
	snprintf(id, sizeof id, "%s-capprobe", l->name);
	sp_error err;
	if (sp_oci_write_bundle(l, &err) < 0) {
		snprintf(known_why, sizeof known_why, "%s", err.msg);
		return known_rc = -1;
	}
	char *argv[] = {"runsc", rootarg, logarg, "--network=none", "--ignore-cgroups", "create", "--bundle", l->dir, id, NULL};
	_cleanup_free_ char *eo = NULL;
	int rc = sp_run_cmd(argv, NULL, &eo, 30000);
	char *del[] = {"runsc", rootarg, "delete", "--force", id, NULL};
	sp_run_cmd(del, NULL, NULL, 20000);
	if (rc == 0)
		return known_rc = 0; /* it knows every one */
	char bad[64] = "";
	boot_log_find(logdir, "unknown capability \"", bad, sizeof bad);
	bad[strcspn(bad, "\"")] = '\0';
	int bad_no = sp_cap_from_name(bad);
	if (bad_no < 0) {
		char msg[300];
		sp_runtime_message(eo, msg, sizeof msg);
		snprintf(known_why, sizeof known_why, "runsc refuses a sandbox with the host's capabilities: %s", msg);
		return known_rc = -1;
	}
	/* gVisor's table is numbered from 0 without gaps: it lacks the named one and every later one (the
	 * lane's own launch proves the rest) */
	for (size_t i = known_caps.n; i-- > 0;)
		if (sp_cap_from_name(known_caps.v[i]) >= bad_no) {
			free(known_caps.v[i]);
			memmove(&known_caps.v[i], &known_caps.v[i + 1], (known_caps.n - i) * sizeof *known_caps.v);
			known_caps.n--;
		}
	return known_rc = 0;
}

int sp_gvisor_known_caps(sp_live_lane *l, sp_error *err)
{
	if (l->actual.drop_caps)
		return 0;
	if (ask_caps(l) < 0)
		return sp_fail_errno(err, EINVAL, "%s", known_why);
	l->caps_known = &known_caps;
	char d[600];
	snprintf(d, sizeof d, "%s/capprobe-log", l->dir);
	sp_rm_rf(d);
	return 0;
}

bool sp_gvisor_oci_seccomp(void)
{
	return has_oci_seccomp();
}

static int launch(sp_live_lane *l, sp_error *err)
{
	if (sp_gvisor_known_caps(l, err) < 0)
		return -1;
	if (sp_oci_write_bundle(l, err) < 0)
		return -1;
	char root[600], rootarg[640];
	root_dir(l, root, sizeof root);
	snprintf(rootarg, sizeof rootarg, "--root=%s", root);
	bool host_net = !(l->actual.ns & SP_NS_NET);
	sp_strv argv;
	sp_strv_split(&argv, NULL, ",");
	sp_strv_push(&argv, "runsc");
	sp_strv_push(&argv, rootarg);
	sp_strv_push(&argv, host_net ? "--network=host" : "--network=none");
	sp_strv_push(&argv, "--ignore-cgroups");
	if (has_oci_seccomp())
		sp_strv_push(&argv, "--oci-seccomp");
	/* gVisor says why a sandbox did not start only in its logs */
	char logarg[640];
	snprintf(logarg, sizeof logarg, "--debug-log=%s/runsc-log/", l->dir);
	sp_strv_push(&argv, logarg);
	sp_strv_push(&argv, "run");
	sp_strv_push(&argv, "--bundle");
	sp_strv_push(&argv, l->dir);
	sp_strv_push(&argv, l->name);
	snprintf(l->rtinfo, sizeof l->rtinfo, "runsc --root %s run --bundle (config.json: %s%s%s)", root,
		 l->actual.seccomp ? "seccomp " : "", l->actual.ro_root ? "readonly " : "", l->actual.drop_caps ? "no caps" : "all caps");
	int r = sp_lane_proc_spawn(l, argv.v, err);
	sp_strv_free(&argv);
	return r;
}

/* runsc's own record of container id under root: the file `runsc state` loads,
 * ROOT/<id>_sandbox:<sandbox id>.state (JSON: id, status, sandbox.pid).
 * Reading it costs no runsc start (30-50 ms of a Go binary's start and
 * lock). 1 with the record's sandbox pid and file name, 0 if root holds no
 * record of the container, -1 if its record is not in a form known here
 * (then runsc itself is asked). */
static int state_record(const char *root, const char *id, long long *pid, char *file, size_t filesz)
{
	_cleanup_closedir_ DIR *d = opendir(root);
	if (!d)
		return 0;
	size_t idl = strlen(id);
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		size_t nl = strlen(nm);
		if (nl < idl + sizeof "_sandbox:.state" - 1 || memcmp(nm, id, idl) || strncmp(nm + idl, "_sandbox:", 9) ||
		    strcmp(nm + nl - 6, ".state"))
			continue;
		char p[1200];
		snprintf(p, sizeof p, "%s/%s", root, nm);
		snprintf(file, filesz, "%s", nm);
		size_t len;
		int e;
		_cleanup_free_ char *txt = sp_read_file_alloc(p, 4u << 20, &len, &e);
		json_t *j = txt ? json_loadb(txt, len, 0, NULL) : NULL;
		const char *jid = json_string_value(json_object_get(j, "id"));
		json_t *jp = json_object_get(json_object_get(j, "sandbox"), "pid");
		*pid = json_is_integer(jp) && jid && !strcmp(jid, id) ? (long long)json_integer_value(jp) : 0;
		json_decref(j);
		return *pid > 0 ? 1 : -1;
	}
	return 0;
}

/* a lane whose container runsc's record did not show (the engine was asked instead): its teardown
 * proof asks the engine too, not only its --root */
struct runsc_lane {
	bool by_cli;
};

static void lane_free(sp_live_lane *l)
{
	free(l->priv);
	l->priv = NULL;
}

/* the engine's view: runsc's record of the container (its state file, else `runsc state`) names the
 * sandbox's pid; it must be the Sentry of this container */
static int host_pid(sp_live_lane *l, sp_error *err)
{
	char root[600], rootarg[640], file[300] = "";
	root_dir(l, root, sizeof root);
	snprintf(rootarg, sizeof rootarg, "--root=%s", root);
	long long pid = 0;
	char by[1024];
	if (state_record(root, l->name, &pid, file, sizeof file) == 1) {
		snprintf(by, sizeof by, "runsc's state %s/%s (what runsc state reads)", root, file);
	} else {
		struct runsc_lane *g = l->priv = l->priv ? l->priv : sp_xcalloc(1, sizeof *g);
		g->by_cli = true;
		char *argv[] = {"runsc", rootarg, "state", l->name, NULL};
		_cleanup_free_ char *out = NULL;
		_cleanup_free_ char *eo = NULL;
		int rc = sp_run_cmd(argv, &out, &eo, 20000);
		json_t *j = rc == 0 ? json_loads(out, 0, NULL) : NULL;
		pid = j ? (long long)json_integer_value(json_object_get(j, "pid")) : 0;
		json_decref(j);
		if (pid <= 0) {
			char msg[256];
			sp_runtime_message(eo, msg, sizeof msg);
			return sp_fail_errno(err, EIO, "runsc state %s: no pid (exit %d: %s)", l->name, rc, msg);
		}
		snprintf(by, sizeof by, "runsc state %s%s", l->name, file[0] ? " (its state file is in a form not known here)" : "");
	}
	char sroot[600];
	if (sp_gvisor_sandbox(l, (pid_t)pid, l->name, sroot, sizeof sroot, err) < 0)
		return -1;
	char obs[1400];
	snprintf(obs, sizeof obs, "%s: pid %lld is runsc-sandbox (the Sentry), spec %s", by, pid, l->spec);
	sp_lres_add(&l->results, SP_HOSTID(engine), SP_STATUS_PASS, "the runtime's pid is the sandbox (gVisor's Sentry), with its spec", obs,
		    "engine view: runsc names its sandbox");
	return 0;
}

static void teardown(sp_live_lane *l)
{
	char root[600], rootarg[640];
	root_dir(l, root, sizeof root);
	snprintf(rootarg, sizeof rootarg, "--root=%s", root);
	char *argv[] = {"runsc", rootarg, "delete", "--force", l->name, NULL};
	sp_run_cmd(argv, NULL, NULL, 20000);
}

/* runsc knows only the containers recorded under its --root, which is the lane's own: an empty
 * root proves runsc knows none (asking `runsc state` would prove no more, at a Go start's cost) */
static int leftovers(sp_live_lane *l, char *what, size_t whatsz)
{
	char root[600], rootarg[640];
	root_dir(l, root, sizeof root);
	snprintf(rootarg, sizeof rootarg, "--root=%s", root);
	{
		_cleanup_closedir_ DIR *d = opendir(root);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			char *argv[] = {"runsc", rootarg, "state", l->name, NULL};
			bool known = sp_run_cmd(argv, NULL, NULL, 20000) == 0;
			snprintf(what, whatsz, "runsc state %s/%s is left%s", root, de->d_name,
				 known ? " (runsc state still knows the container)" : "");
			return 1;
		}
		if (!d && errno != ENOENT) {
			snprintf(what, whatsz, "cannot read runsc's root %s: %s", root, strerror(errno));
			return 1;
		}
	}
	/* runsc's record was not where this lane looked for it: runsc itself must know no such container */
	const struct runsc_lane *g = l->priv;
	if (g && g->by_cli) {
		char *argv[] = {"runsc", rootarg, "state", l->name, NULL};
		if (sp_run_cmd(argv, NULL, NULL, 20000) == 0) {
			snprintf(what, whatsz, "container %s still known to runsc state (root %s)", l->name, root);
			return 1;
		}
	}
	/* the gofer and the sandbox carry the container's name */
	char pw[256];
	if (!sp_wait_procs_gone(l->name, 10000, pw, sizeof pw)) {
		snprintf(what, whatsz, "%s", pw);
		return 1;
	}
	if (sp_oci_cgroup_left(l, what, whatsz))
		return 1;
	snprintf(what, whatsz, "runsc's root %s holds no state (runsc%s knows no %s), no gofer or sandbox process, no cgroup", root,
		 g && g->by_cli ? " state" : "", l->name);
	return 0;
}

const sp_live_runtime sp_rt_runsc = {
	.name = "runsc",
	.summary = "runsc (gVisor) on an OCI bundle: own --root, --network=none, --ignore-cgroups, --oci-seccomp",
	.removable = SP_PROT_ALL,
	.probe = probe,
	.claims = sp_gvisor_claims,
	.plan = sp_gvisor_plan,
	.launch = launch,
	.host_pid = host_pid,
	.teardown = teardown,
	.teardown_if_left = true,
	.leftovers = leftovers,
	.lane_free = lane_free,
	.launch_message = sp_gvisor_launch_message,
};
