/* containerd through ctr: the node-level half of a Kubernetes RuntimeClass.
 * A lane is named by its runtime handler: containerd-runc (handler runc,
 * io.containerd.runc.v2) and containerd-runsc (handler runsc: gVisor under
 * the runc v2 shim with a runsc wrapper as its binary, as Debian ships no
 * containerd-shim-runsc-v1). Each lane is `ctr run --rm --config SPEC` in a
 * namespace this run owns, with the lane's OCI spec (the same bundle as the
 * runc/runsc lanes) and a runc root of the lane's own.
 *
 * The containerd is the one given (--containerd-address, else
 * $CONTAINERD_ADDRESS), else the default socket when it answers, else one
 * this run starts itself with its own config, root, state and socket (and
 * stops when the run ends). Teardown proof: the namespace lists no container,
 * task or snapshot of the lane, no process carries its id (shim, runc,
 * gVisor's gofer and sandbox), its task bundle and runc state are gone; at the
 * end of the run the namespace itself is removed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/ctrd.h"
#include "live/oci.h"

static struct {
	bool resolved;
	char addr[512];  /* the socket */
	char how[600];   /* where it came from */
	bool start_own;  /* none answers: start our own on first use */
	bool own;        /* ours is running */
	int own_rc;      /* 0 ours is up, -1 it failed (own_why) */
	char own_why[512];
	char own_dir[512];
	sp_child daemon;
	char ns[64];     /* this run's namespace */
	bool ns_used;
} ctd = {.daemon = {.pid = -1, .in = -1, .out = -1, .err = -1, .pidfd = -1}};

/* 0 when a containerd answers at addr; else -1 with what ctr said in err */
static int ctr_version(const char *addr, sp_error *err)
{
	char *argv[] = {"ctr", "--address", (char *)addr, "version", NULL};
	_cleanup_free_ char *eo = NULL;
	int rc = sp_run_cmd(argv, NULL, &eo, 10000);
	if (rc == 0)
		return 0;
	char msg[300];
	sp_runtime_message(eo, msg, sizeof msg);
	return sp_fail_errno(err, EIO, "%s", msg);
}

/* which containerd: 0, or -1 with the skip reason */
static int resolve(const sp_live_cfg *cfg, sp_outcome *o)
{
	if (ctd.resolved)
		return ctd.addr[0] || ctd.start_own ? 0 : sp_why(o, "%s", ctd.how);
	ctd.resolved = true;
	const char *env = getenv("CONTAINERD_ADDRESS");
	const char *given = cfg->containerd[0] ? cfg->containerd : env && *env ? env : NULL;
	sp_error msg;
	sp_error_clear(&msg);
	if (given) {
		snprintf(ctd.addr, sizeof ctd.addr, "%s", given);
		if (ctr_version(given, &msg) != 0) {
			snprintf(ctd.how, sizeof ctd.how, "no containerd answers at %s (%s): `ctr --address %s version` fails: %s", given,
				 cfg->containerd[0] ? "--containerd-address" : "CONTAINERD_ADDRESS", given, msg.msg);
			ctd.addr[0] = '\0';
			sp_why(o, "%s", ctd.how);
			return -1;
		}
		snprintf(ctd.how, sizeof ctd.how, "containerd at %s (%s)", given, cfg->containerd[0] ? "--containerd-address" : "CONTAINERD_ADDRESS");
		return 0;
	}
	static const char def[] = "/run/containerd/containerd.sock";
	if (access(def, F_OK) == 0 && ctr_version(def, &msg) == 0) {
		snprintf(ctd.addr, sizeof ctd.addr, "%s", def);
		snprintf(ctd.how, sizeof ctd.how, "containerd at the default socket %s", def);
		return 0;
	}
	char p[4096];
	if (!sp_which("containerd", p, sizeof p)) {
		snprintf(ctd.how, sizeof ctd.how, "no containerd answers at %s and containerd is not installed to start one "
						   "(Debian package containerd; or give --containerd-address)", def);
		sp_why(o, "%s", ctd.how);
		return -1;
	}
	ctd.start_own = true;
	snprintf(ctd.how, sizeof ctd.how, "a containerd this run starts (none answers at %s)", def);
	return 0;
}

static int probe_common(const sp_live_cfg *cfg, sp_outcome *o)
{
	if (sp_probe_root(o, "containerd lanes need root") < 0 ||
	    sp_probe_tool("ctr", o, "ctr not installed (Debian package containerd; tried: ctr version)") < 0)
		return -1;
	return resolve(cfg, o);
}

static int probe_runc(const sp_live_cfg *cfg, sp_outcome *o)
{
	if (probe_common(cfg, o) < 0)
		return -1;
	return sp_probe_tool("runc", o, "runc not installed: the io.containerd.runc.v2 shim runs it");
}

static int probe_runsc(const sp_live_cfg *cfg, sp_outcome *o)
{
	if (probe_common(cfg, o) < 0)
		return -1;
	return sp_probe_tool("runsc", o, "runsc not installed (Debian package runsc)");
}

/* our own containerd: config, root, state and socket in a dir of its own */
static int start_own(const sp_live_cfg *cfg, sp_error *err)
{
	if (ctd.own)
		return 0;
	if (ctd.own_rc < 0)
		return sp_fail_errno(err, EIO, "%s", ctd.own_why);
	snprintf(ctd.own_dir, sizeof ctd.own_dir, "%s/sandprobe-containerd.XXXXXX", cfg->tmpbase[0] ? cfg->tmpbase : "/tmp");
	if (!mkdtemp(ctd.own_dir)) {
		ctd.own_dir[0] = '\0';
		ctd.own_rc = -1;
		snprintf(ctd.own_why, sizeof ctd.own_why, "mkdtemp for a containerd of our own: %s", strerror(errno));
		return sp_fail_errno(err, errno, "%s", ctd.own_why);
	}
	char conf[600];
	snprintf(conf, sizeof conf, "%s/config.toml", ctd.own_dir);
	FILE *f = fopen(conf, "we");
	if (!f) {
		ctd.own_rc = -1;
		snprintf(ctd.own_why, sizeof ctd.own_why, "cannot write %s: %s", conf, strerror(errno));
		return sp_fail_errno(err, errno, "%s", ctd.own_why);
	}
	const char *d = ctd.own_dir;
	fprintf(f, "version = 2\nroot = \"%s/root\"\nstate = \"%s/state\"\ndisabled_plugins = [\"io.containerd.grpc.v1.cri\"]\n"
		   "[grpc]\n  address = \"%s/containerd.sock\"\n[ttrpc]\n  address = \"%s/containerd.sock.ttrpc\"\n"
		   "[debug]\n  address = \"%s/debug.sock\"\n",
		d, d, d, d, d);
	fclose(f);
	char cmd[1400];
	snprintf(cmd, sizeof cmd, "exec containerd --config '%s/config.toml' >'%s/containerd.log' 2>&1", d, d);
	char *argv[] = {"/bin/sh", "-c", cmd, NULL};
	sp_spawn_opts o = {.die_with_parent = true};
	if (sp_spawn(&ctd.daemon, argv, &o, err) < 0) {
		ctd.own_rc = -1;
		snprintf(ctd.own_why, sizeof ctd.own_why, "%s", err->msg);
		return -1;
	}
	ctd.own = true;
	snprintf(ctd.addr, sizeof ctd.addr, "%s/containerd.sock", d);
	sp_error msg;
	sp_error_clear(&msg);
	for (int i = 0; i < 200; i++) {
		if (access(ctd.addr, F_OK) == 0 && ctr_version(ctd.addr, &msg) == 0) {
			snprintf(ctd.how, sizeof ctd.how, "a containerd this run started (config, root, state and socket under %s)", d);
			return 0;
		}
		if (sp_child_poll(&ctd.daemon, 50) == 1)
			break;
	}
	char log[600], last[300] = "";
	snprintf(log, sizeof log, "%s/containerd.log", d);
	size_t len;
	int e;
	_cleanup_free_ char *txt = sp_read_file_alloc(log, 1u << 20, &len, &e);
	sp_last_line(txt, last, sizeof last);
	ctd.own_rc = -1;
	snprintf(ctd.own_why, sizeof ctd.own_why, "the containerd this run started did not answer (its log: %s)", last[0] ? last : msg.msg);
	return sp_fail_errno(err, EIO, "%s", ctd.own_why);
}

static void stop_own(void)
{
	if (!ctd.own)
		return;
	sp_child_signal(&ctd.daemon, SIGTERM);
	sp_child_wait(&ctd.daemon, sp_now_ns() + 10 * SP_NS_PER_S);
	sp_child_free(&ctd.daemon);
	/* a shim it left serves a socket under its dir */
	char pw[256];
	if (!sp_wait_procs_gone(ctd.own_dir, 3000, pw, sizeof pw)) {
		pid_t p[32];
		size_t n = sp_procs_with(ctd.own_dir, p, 32);
		for (size_t i = 0; i < n && i < 32; i++)
			kill(p[i], SIGKILL);
		sp_wait_procs_gone(ctd.own_dir, 3000, pw, sizeof pw);
	}
	sp_rm_rf(ctd.own_dir);
	ctd.own = false;
}

static int prepare(sp_live_lane *l, sp_error *err)
{
	if (ctd.start_own && start_own(l->cfg, err) < 0)
		return -1;
	if (!ctd.ns[0]) {
		unsigned char b[4];
		if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
			memset(b, 0, sizeof b);
		snprintf(ctd.ns, sizeof ctd.ns, "sandprobe-%d-%02x%02x%02x%02x", (int)getpid(), b[0], b[1], b[2], b[3]);
	}
	ctd.ns_used = true;
	snprintf(l->notes, sizeof l->notes, "%s; namespace %s", ctd.how, ctd.ns);
	return 0;
}

static void claims_runc(sp_live_launch *l)
{
	sp_oci_claims(l);
}

static int plan_runsc(sp_live_lane *l, sp_outcome *o)
{
	return sp_gvisor_plan(l, o);
}

static int launch(sp_live_lane *l, sp_error *err)
{
	bool gvisor = l->claim.user_kernel;
	if (gvisor && sp_gvisor_known_caps(l, err) < 0)
		return -1;
	if (sp_oci_write_bundle(l, err) < 0)
		return -1;
	/* ctr takes the spec's root as it is: make it absolute */
	char cfgp[600], rootp[600];
	snprintf(cfgp, sizeof cfgp, "%s/config.json", l->dir);
	snprintf(rootp, sizeof rootp, "%s/rootfs", l->dir);
	json_error_t je;
	json_t *spec = json_load_file(cfgp, 0, &je);
	if (!spec)
		return sp_fail_errno(err, EIO, "%s: %s", cfgp, je.text);
	json_object_set_new(json_object_get(spec, "root"), "path", json_string(rootp));
	int r = json_dump_file(spec, cfgp, JSON_INDENT(1));
	json_decref(spec);
	if (r < 0)
		return sp_fail_errno(err, EIO, "cannot write %s", cfgp);
	char wrapper[600], runc_root[600];
	snprintf(runc_root, sizeof runc_root, "%s/runc-root", l->dir);
	if (gvisor) {
		/* the shim runs this as its runc: gVisor with the lane's flags (the shim adds --root, --log ...) */
		snprintf(wrapper, sizeof wrapper, "%s/runsc-wrapper", l->dir);
		FILE *f = fopen(wrapper, "we");
		if (!f)
			return sp_fail_errno(err, errno, "cannot write %s", wrapper);
		char p[4096];
		if (!sp_which("runsc", p, sizeof p))
			snprintf(p, sizeof p, "runsc");
		fprintf(f, "#!/bin/sh\nexec '%s' --network=%s --ignore-cgroups%s --debug-log='%s/runsc-log/' \"$@\"\n", p,
			(l->actual.ns & SP_NS_NET) ? "none" : "host", sp_gvisor_oci_seccomp() ? " --oci-seccomp" : "", l->dir);
		fclose(f);
		if (chmod(wrapper, 0755) < 0)
			return sp_fail_errno(err, errno, "chmod %s", wrapper);
	}
	sp_strv argv;
	sp_strv_split(&argv, NULL, ",");
	sp_strv_push(&argv, "ctr");
	sp_strv_push(&argv, "--address");
	sp_strv_push(&argv, ctd.addr);
	sp_strv_push(&argv, "--namespace");
	sp_strv_push(&argv, ctd.ns);
	sp_strv_push(&argv, "run");
	sp_strv_push(&argv, "--rm");
	sp_strv_push(&argv, "--runtime");
	sp_strv_push(&argv, "io.containerd.runc.v2");
	if (gvisor) {
		sp_strv_push(&argv, "--runc-binary");
		sp_strv_push(&argv, wrapper);
	}
	sp_strv_push(&argv, "--runc-root");
	sp_strv_push(&argv, runc_root);
	sp_strv_push(&argv, "--config");
	sp_strv_push(&argv, cfgp);
	sp_strv_push(&argv, l->name);
	snprintf(l->rtinfo, sizeof l->rtinfo, "ctr run --runtime io.containerd.runc.v2%s --config (handler %s; %s%s%s)",
		 gvisor ? " --runc-binary runsc-wrapper" : "", l->rt->handler, l->actual.seccomp ? "seccomp " : "",
		 l->actual.ro_root ? "readonly " : "", l->actual.drop_caps ? "no caps" : "all caps");
	r = sp_lane_proc_spawn(l, argv.v, err);
	sp_strv_free(&argv);
	return r;
}

struct ctd_lane {
	pid_t shim;
	char bundle[600];
};

static void lane_free(sp_live_lane *l)
{
	free(l->priv);
	l->priv = NULL;
}

/* the pid of task id (ctr tasks ls); -1 with the reason in err */
static int task_pid(const char *id, pid_t *pid, sp_error *err)
{
	char *argv[] = {"ctr", "--address", ctd.addr, "--namespace", ctd.ns, "tasks", "ls", NULL};
	_cleanup_free_ char *out = NULL;
	_cleanup_free_ char *eo = NULL;
	int rc = sp_run_cmd(argv, &out, &eo, 20000);
	if (rc != 0) {
		char msg[300];
		sp_runtime_message(eo, msg, sizeof msg);
		return sp_fail_errno(err, EIO, "%s", msg);
	}
	for (char *s = out; s && *s;) {
		char *nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		char tid[128];
		int p;
		if (sscanf(s, "%127s %d", tid, &p) == 2 && !strcmp(tid, id)) {
			*pid = p;
			return 0;
		}
		s = nl ? nl + 1 : NULL;
	}
	char msg[300];
	snprintf(msg, sizeof msg, "ctr tasks ls does not list %s", id);
	return sp_fail_errno(err, EIO, "%s", msg);
}

static int host_pid(sp_live_lane *l, sp_error *err)
{
	struct ctd_lane *c = l->priv = l->priv ? l->priv : sp_xcalloc(1, sizeof *c);
	char addr[512], ns[64];
	c->shim = sp_find_shim(l->name, addr, sizeof addr, ns, sizeof ns, c->bundle, sizeof c->bundle);
	/* the task's pid as containerd knows it: the shim's record (BUNDLE/init.pid, written by the runtime
	 * at create; the shim reports it to containerd's task service), else ctr tasks ls */
	pid_t tp = 0;
	const char *by = "ctr tasks ls";
	if (c->shim > 0 && c->bundle[0]) {
		char pf[700], buf[32];
		unsigned long long v;
		snprintf(pf, sizeof pf, "%s/init.pid", c->bundle);
		ssize_t n = sp_read_file(pf, buf, sizeof buf);
		if (n > 0 && sp_parse_u64(sp_trim(buf), &v) == 0 && v > 0 && v < (1u << 22)) {
			tp = (pid_t)v;
			by = "the shim's init.pid";
		}
	}
	sp_error tpe;
	sp_error_clear(&tpe);
	if (tp <= 0 && (task_pid(l->name, &tp, &tpe) < 0 || tp <= 0))
		return sp_fail_errno(err, EIO, "containerd names no task pid for %s: %s", l->name, tpe.msg);
	char obs[1400];
	if (l->claim.user_kernel) {
		char root[600];
		if (sp_gvisor_sandbox(l, tp, l->name, root, sizeof root, err) < 0)
			return -1;
		snprintf(obs, sizeof obs, "task %s: pid %d (%s) is runsc-sandbox, spec %s; shim %d (containerd %s, namespace %s)",
			 l->name, (int)tp, by, l->spec, (int)c->shim, addr[0] ? addr : "?", ns[0] ? ns : "?");
	} else {
		pid_t np = sp_find_nonce_pid(l->nonce);
		l->host_pid = np > 0 ? np : tp;
		if (c->bundle[0])
			snprintf(l->spec, sizeof l->spec, "%s/config.json", c->bundle);
		snprintf(obs, sizeof obs, "task %s: pid %d (%s), the shell with the lane's nonce %d; shim %d (containerd %s, "
					  "namespace %s, bundle %s)",
			 l->name, (int)tp, by, (int)np, (int)c->shim, addr[0] ? addr : "?", ns[0] ? ns : "?", c->bundle[0] ? c->bundle : "?");
		if (np != tp) {
			sp_lres_add(&l->results, SP_HOSTID(engine), SP_STATUS_FAIL, "the task's pid is the sandbox's shell", obs,
				    "containerd and the host disagree on the sandbox's process");
			return 0;
		}
	}
	if (!c->shim || strcmp(addr, ctd.addr) || strcmp(ns, ctd.ns)) {
		sp_lres_add(&l->results, SP_HOSTID(engine), SP_STATUS_FAIL, "the task is served by a shim of this containerd and namespace", obs,
			    "no shim of %s in namespace %s serves the task", ctd.addr, ctd.ns);
		return 0;
	}
	sp_lres_add(&l->results, SP_HOSTID(engine), SP_STATUS_PASS, "containerd's task pid is the sandbox, served by its shim", obs,
		    "engine view: containerd (handler %s) and the host agree", l->rt->handler);
	return 0;
}

static void ctr(char *a, char *b, char *c, char *d)
{
	char *argv[] = {"ctr", "--address", ctd.addr, "--namespace", ctd.ns, a, b, c, d, NULL};
	sp_run_cmd(argv, NULL, NULL, 20000);
}

static void teardown(sp_live_lane *l)
{
	if (!ctd.addr[0] || !ctd.ns[0])
		return;
	/* --rm removes both once the task ends: these are for a lane cut short */
	ctr("tasks", "kill", "--signal=SIGKILL", l->name);
	ctr("tasks", "delete", "--force", l->name);
	ctr("containers", "delete", l->name, NULL);
}

static int leftovers(sp_live_lane *l, char *what, size_t whatsz)
{
	if (!ctd.addr[0] || !ctd.ns[0]) {
		snprintf(what, whatsz, "no containerd was used");
		return 0;
	}
	char by[600];
	int held = sp_ctrd_holds(ctd.addr, ctd.ns, l->name, 1u << SP_CTRD_CONTAINERS | 1u << SP_CTRD_TASKS | 1u << SP_CTRD_SNAPSHOTS,
				 what, whatsz, by, sizeof by);
	if (held != 0)
		return 1;
	/* the shim, runc and gVisor's gofer and sandbox carry the container's id */
	char pw[256];
	if (!sp_wait_procs_gone(l->name, 10000, pw, sizeof pw)) {
		snprintf(what, whatsz, "%s", pw);
		return 1;
	}
	struct ctd_lane *c = l->priv;
	if (c && c->bundle[0] && access(c->bundle, F_OK) == 0) {
		snprintf(what, whatsz, "the task's bundle %s is left", c->bundle);
		return 1;
	}
	char rr[600];
	snprintf(rr, sizeof rr, "%s/runc-root", l->dir);
	_cleanup_closedir_ DIR *d = opendir(rr);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strstr(de->d_name, l->name)) {
			snprintf(what, whatsz, "runtime state %s/%s is left", rr, de->d_name);
			return 1;
		}
	if (sp_oci_cgroup_left(l, what, whatsz))
		return 1;
	snprintf(what, whatsz, "namespace %s lists no container, task or snapshot of %s (%s); no process carries its id (shim%s); "
			       "bundle, runtime state and cgroup gone",
		 ctd.ns, l->name, by, l->claim.user_kernel ? ", gofer, sandbox" : ", runc");
	return 0;
}

/* end of the run: the namespace goes (it must be empty), then a containerd of our own */
static int finish(const sp_live_runtime *rt, const sp_live_cfg *cfg, char *what, size_t whatsz)
{
	(void)rt;
	(void)cfg;
	int ret = -1;
	if (ctd.ns_used && ctd.addr[0]) {
		char *argv[] = {"ctr", "--address", ctd.addr, "namespaces", "remove", ctd.ns, NULL};
		_cleanup_free_ char *eo = NULL;
		if (sp_run_cmd(argv, NULL, &eo, 20000) != 0) {
			char msg[300];
			sp_runtime_message(eo, msg, sizeof msg);
			snprintf(what, whatsz, "cannot remove containerd namespace %s: %s", ctd.ns, msg);
			ret = 1;
		} else {
			snprintf(what, whatsz, "containerd namespace %s removed", ctd.ns);
			ret = 0;
		}
		ctd.ns_used = false;
	}
	stop_own();
	return ret;
}

const sp_live_runtime sp_rt_containerd_runc = {
	.name = "containerd-runc",
	.summary = "containerd (ctr, handler runc: io.containerd.runc.v2) on the lane's OCI spec, in a namespace of the run's own",
	.removable = SP_PROT_ALL,
	.probe = probe_runc,
	.claims = claims_runc,
	.prepare = prepare,
	.launch = launch,
	.host_pid = host_pid,
	.teardown = teardown,
	.teardown_if_left = true,
	.leftovers = leftovers,
	.finish = finish,
	.lane_free = lane_free,
	.handler = "runc",
	.runtime_type = "io.containerd.runc.v2",
};

const sp_live_runtime sp_rt_containerd_runsc = {
	.name = "containerd-runsc",
	.summary = "containerd (ctr, handler runsc: gVisor as the runc v2 shim's binary) on the lane's OCI spec",
	.removable = SP_PROT_ALL,
	.probe = probe_runsc,
	.claims = sp_gvisor_claims,
	.plan = plan_runsc,
	.prepare = prepare,
	.launch = launch,
	.host_pid = host_pid,
	.teardown = teardown,
	.teardown_if_left = true,
	.leftovers = leftovers,
	.finish = finish,
	.lane_free = lane_free,
	.launch_message = sp_gvisor_launch_message,
	.handler = "runsc",
	.runtime_type = "io.containerd.runc.v2 (BinaryName: a runsc wrapper)",
};
