/* docker (CLI) against the engine the user runs (DOCKER_HOST, else the
 * default socket), with its default OCI runtime (docker) or with gVisor
 * (docker-runsc: the runtime the engine has registered whose binary is
 * runsc). Without a reachable engine every lane is a skip naming why and the
 * command that was tried.
 *
 * What the engine accepts is asked, not assumed: `docker info` says its
 * version and registered runtimes; the capabilities it knows are learnt from
 * a `docker create` of an image that does not exist (the daemon checks the
 * capability names first, so nothing is ever created). --privileged grants
 * every capability the engine knows, so on a host whose bounding set lacks
 * one runc cannot start it: a launch limitation, said before launching.
 *
 * Teardown proof covers what Docker leaves below it: the container (ps,
 * inspect), no process carrying its id (the containerd shim, runc, gVisor's
 * gofer and sandbox), containerd's container and task in the engine's
 * namespace (asked with ctr at the shim's own address), the task's bundle
 * dir, and gVisor's state files.
 *
 * The per-container questions of a lane (its init pid, whether the engine
 * still knows the container) go to the engine's API on its unix socket
 * (GET /containers/ID/json) when that socket is proven to be the engine the
 * CLI talks to: its /info names the daemon ID that `docker info` names. That
 * is the same answer `docker inspect` gives, without the 30-60 ms the CLI
 * takes to start; any other endpoint (tcp, ssh, a context elsewhere) is asked
 * through the CLI, as is everything that changes state. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/caps.h"
#include "live/ctrd.h"
#include "live/engine.h"

static const char *const docker_extra[] = {"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024",
					   "--pull", "never", "--log-driver", "none", NULL};
static sp_live_engine_state docker_state;
static sp_live_engine docker = {.bin = "docker", .extra = docker_extra, .docker = true, .st = &docker_state};
static sp_live_engine docker_runsc = {.bin = "docker", .extra = docker_extra, .docker = true, .want_runtime = "runsc",
				 .st = &docker_state};

/* what the adapter learns about a lane's container while it runs */
struct docker_lane {
	pid_t shim;
	char ctr_addr[512];   /* the containerd the shim serves */
	char ctr_ns[64];      /* its namespace (moby) */
	char bundle[600];     /* the task's bundle dir (the shim's cwd) */
	char runsc_root[600]; /* gVisor's state dir (--root of the sandbox) */
};

static void lane_free(sp_live_lane *l)
{
	free(l->priv);
	l->priv = NULL;
}

static struct docker_lane *dl(sp_live_lane *l)
{
	if (!l->priv)
		l->priv = sp_xcalloc(1, sizeof(struct docker_lane));
	return l->priv;
}

static void endpoint(char *out, size_t n)
{
	const char *h = getenv("DOCKER_HOST");
	if (h && *h)
		snprintf(out, n, "DOCKER_HOST=%s", h);
	else
		snprintf(out, n, "the default socket (DOCKER_HOST unset)");
}

/* ---------------------------------------------------------------- engine API */

static struct {
	bool ok; /* the socket below is the engine the CLI talks to */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char why[200]; /* why the CLI is asked instead (for the notes) */
} api;

/* GET PATH on the engine's socket (HTTP/1.0: one answer, then the engine closes): the HTTP status, or -1
 * (o says why: no connection, no complete answer); *body (malloc'd, NUL-terminated) is what follows the headers */
static int api_get(const char *sock, const char *path, char **body, unsigned timeout_ms, sp_outcome *o)
{
	*body = NULL;
	/* non-blocking: an engine whose backlog is full answers EAGAIN at once instead of holding the lane */
	_cleanup_close_ int fd = sp_unix_connect(sock, true, o);
	if (fd < 0)
		return -1;
	char req[512];
	int rl = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: docker\r\nUser-Agent: sandprobe\r\n\r\n", path);
	if (rl < 0 || (size_t)rl >= sizeof req)
		return sp_why_errno(o, ENAMETOOLONG, "GET %.100s: the request is too long", path);
	int wr = sp_write_all(fd, req, (size_t)rl);
	if (wr < 0)
		return sp_why_errno(o, -wr, "GET %.100s: %s", path, strerror(-wr));
	enum { MAX = 4u << 20 };
	char *buf = sp_xmalloc(MAX + 1);
	bool timed_out = false;
	size_t n = sp_read_until(fd, buf, MAX, sp_now_ns() + (uint64_t)timeout_ms * SP_NS_PER_MS, &timed_out);
	buf[n] = '\0';
	char *hend = strstr(buf, "\r\n\r\n");
	unsigned st = 0;
	if (timed_out || n == MAX || !hend || sscanf(buf, "HTTP/1.%*1[01] %3u", &st) != 1 || st < 100 || st > 599) {
		free(buf);
		if (timed_out)
			return sp_why_errno(o, ETIMEDOUT, "GET %.100s: no answer within %u ms", path, timeout_ms);
		return sp_why_errno(o, EPROTO, "GET %.100s: no complete HTTP answer", path);
	}
	memmove(buf, hend + 4, n - (size_t)(hend + 4 - buf) + 1);
	*body = buf;
	return (int)st;
}

/* the socket the CLI would use, proven by the daemon's ID (called once, after `docker info` answered) */
static void api_prove(const char *cli_id)
{
	const char *h = getenv("DOCKER_HOST");
	const char *sock = NULL;
	if (!h || !*h)
		sock = "/var/run/docker.sock";
	else if (strncmp(h, "unix://", 7) == 0)
		sock = h + 7;
	api.ok = false;
	if (!sock) {
		snprintf(api.why, sizeof api.why, "DOCKER_HOST=%.120s is not a unix socket", h);
		return;
	}
	_cleanup_free_ char *body = NULL;
	sp_outcome o = {0}; /* "does not answer" says enough in the notes */
	int st = api_get(sock, "/info", &body, 20000, &o);
	json_t *j = st == 200 ? json_loads(body, 0, NULL) : NULL;
	const char *id = j ? json_string_value(json_object_get(j, "ID")) : NULL;
	if (cli_id && *cli_id && id && strcmp(id, cli_id) == 0) {
		api.ok = true;
		snprintf(api.path, sizeof api.path, "%s", sock);
	} else {
		const char *how = "is another engine than the CLI's";
		if (st < 0)
			how = "does not answer";
		else if (!id)
			how = "gives no daemon ID";
		snprintf(api.why, sizeof api.why, "%.100s %s", sock, how);
	}
	json_decref(j);
}

/* the engine's record of a container: 1 it knows it (*body its inspect JSON), 0 it does not (404), -1 no proof
 * (what is in why); *by names who answered: the API when it is proven (and answers this once), else `docker
 * inspect` */
static int engine_knows(const char *ref, char **body, const char **by, sp_outcome *o)
{
	*body = NULL;
	if (api.ok) {
		char path[200];
		snprintf(path, sizeof path, "/containers/%.150s/json", ref);
		int st = api_get(api.path, path, body, 20000, o); /* no answer: docker inspect is asked below */
		*by = "the engine API on the CLI's socket";
		if (st == 200)
			return 1;
		if (st == 404)
			return 0;
		free(*body);
		*body = NULL;
		if (st > 0) {
			sp_why(o, "the engine API (GET %s on %s) answers HTTP %d: cannot prove the container is gone", path,
			       api.path, st);
			return -1;
		}
	}
	*by = "docker inspect";
	char *argv[] = {"docker", "inspect", "--type", "container", (char *)ref, NULL};
	_cleanup_free_ char *eo = NULL;
	int rc = sp_run_cmd(argv, body, &eo, 20000);
	if (rc == 0)
		return 1;
	if (eo && (strstr(eo, "No such object") || strstr(eo, "No such container")))
		return 0;
	char msg[200];
	sp_runtime_message(eo, msg, sizeof msg);
	sp_why(o, "docker inspect fails (exit %d): cannot prove the container is gone: %s", rc, msg);
	return -1;
}

/* `docker info` once per run: version and registered runtimes */
static int ask_info(sp_live_engine_state *st)
{
	if (st->asked)
		return st->info_rc;
	st->asked = true;
	endpoint(st->endpoint, sizeof st->endpoint);
	char *argv[] = {"docker", "info", "--format", "{{json .}}", NULL};
	_cleanup_free_ char *out = NULL;
	_cleanup_free_ char *eo = NULL;
	int rc = sp_run_cmd(argv, &out, &eo, 20000);
	json_t *j = rc == 0 ? json_loads(out, 0, NULL) : NULL;
	const char *ver = j ? json_string_value(json_object_get(j, "ServerVersion")) : NULL;
	if (!ver || !*ver) {
		char msg[512];
		sp_runtime_message(eo && *eo ? eo : out, msg, sizeof msg);
		json_t *se = j ? json_object_get(j, "ServerErrors") : NULL;
		if (json_is_array(se) && json_array_size(se))
			snprintf(msg, sizeof msg, "%s", json_string_value(json_array_get(se, 0)));
		snprintf(st->info_why, sizeof st->info_why, "no docker engine answers at %s: `docker info` %s%s%s", st->endpoint,
			 rc < 0 ? "cannot run or timed out" : rc ? "fails" : "names no server", msg[0] ? ": " : "", msg);
		json_decref(j);
		st->info_rc = -1;
		return -1;
	}
	snprintf(st->version, sizeof st->version, "%s", ver);
	api_prove(json_string_value(json_object_get(j, "ID")));
	char *rt = json_dumps(json_object_get(j, "Runtimes"), JSON_COMPACT);
	snprintf(st->runtimes_json, sizeof st->runtimes_json, "%s", rt ? rt : "{}");
	free(rt);
	json_decref(j);
	st->info_rc = 0;
	return 0;
}

/* the registered runtime whose binary (or name) is e->want_runtime */
static int find_runtime(sp_live_engine *e, sp_outcome *o)
{
	if (e->runtime[0])
		return 0;
	json_t *rts = json_loads(e->st->runtimes_json, 0, NULL);
	const char *name;
	json_t *v;
	json_object_foreach(rts, name, v) {
		const char *path = json_string_value(json_object_get(v, "path"));
		const char *base = path ? strrchr(path, '/') : NULL;
		base = base ? base + 1 : path;
		if (strcmp(name, e->want_runtime) && (!base || strcmp(base, e->want_runtime)))
			continue;
		snprintf(e->runtime, sizeof e->runtime, "%s", name);
		json_t *args = json_object_get(v, "runtimeArgs");
		size_t i;
		json_t *a;
		e->runtime_args[0] = '\0';
		json_array_foreach(args, i, a) {
			size_t len = strlen(e->runtime_args);
			snprintf(e->runtime_args + len, sizeof e->runtime_args - len, "%s%s", len ? " " : "", json_string_value(a));
		}
		break;
	}
	json_decref(rts);
	if (e->runtime[0])
		return 0;
	sp_why(o,
	       "the docker engine at %s has no gVisor runtime registered (runtimes: %s); register it in the engine's "
	       "daemon.json, e.g. {\"runtimes\": {\"runsc\": {\"path\": \"/usr/bin/runsc\", \"runtimeArgs\": "
	       "[\"--ignore-cgroups\", \"--network=none\"]}}} (or `runsc install`), and restart dockerd",
	       e->st->endpoint, e->st->runtimes_json);
	return -1;
}

static bool has_arg(const sp_live_engine *e, const char *arg)
{
	sp_strv v;
	sp_strv_split(&v, e->runtime_args, " ");
	bool r = sp_strv_contains(&v, arg);
	if (!r && !strchr(arg, '=')) {
		_cleanup_free_ char *t = sp_xasprintf("%s=true", arg);
		r = sp_strv_contains(&v, t);
	}
	sp_strv_free(&v);
	return r;
}

/* the capabilities the engine knows: offer every one this kernel has to a
 * create of an image that does not exist; the daemon names an unknown one
 * ("unknown capability: \"CAP_X\"") before it looks for the image */
static int ask_caps(sp_live_engine_state *st)
{
	if (st->caps_asked)
		return st->caps_rc;
	st->caps_asked = true;
	sp_strv_split(&st->caps_known, NULL, ",");
	for (unsigned c = 0; c <= sp_cap_last() && c < 64; c++) {
		const char *name = sp_cap_name(c);
		if (!name)
			continue;
		char up[64];
		size_t i = 0;
		for (; name[i] && i < sizeof up - 1; i++)
			up[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
		up[i] = '\0';
		sp_strv_push(&st->caps_known, up);
	}
	char image[96];
	snprintf(image, sizeof image, "sandprobe-no-such-image-%d:absent", (int)getpid());
	for (int round = 0; round < 64; round++) {
		sp_strv argv;
		sp_strv_split(&argv, NULL, ",");
		sp_strv_push(&argv, "docker");
		sp_strv_push(&argv, "create");
		sp_strv_push(&argv, "--pull");
		sp_strv_push(&argv, "never");
		for (size_t i = 0; i < st->caps_known.n; i++) {
			sp_strv_push(&argv, "--cap-add");
			sp_strv_push(&argv, st->caps_known.v[i]);
		}
		sp_strv_push(&argv, image);
		sp_strv_push(&argv, "/bin/true");
		_cleanup_free_ char *out = NULL;
		_cleanup_free_ char *eo = NULL;
		int rc = sp_run_cmd(argv.v, &out, &eo, 20000);
		sp_strv_free(&argv);
		if (rc == 0) {
			/* an image of that name exists after all: remove what was created */
			char *rm[] = {"docker", "rm", "-f", sp_trim(out), NULL};
			sp_run_cmd(rm, NULL, NULL, 20000);
			st->caps_rc = 0;
			return 0;
		}
		const char *u = strstr(eo, "unknown capability: \"");
		if (!u) {
			if (strstr(eo, "No such image") || strstr(eo, "not found") || strstr(eo, "pull access denied")) {
				st->caps_rc = 0;
				return 0;
			}
			char msg[400];
			sp_runtime_message(eo, msg, sizeof msg);
			snprintf(st->caps_why, sizeof st->caps_why, "cannot ask the engine which capabilities it knows: %s", msg);
			st->caps_rc = -1;
			return -1;
		}
		u += strlen("unknown capability: \"");
		char bad[64];
		snprintf(bad, sizeof bad, "%.*s", (int)strcspn(u, "\""), u);
		size_t k = 0;
		for (; k < st->caps_known.n && strcmp(st->caps_known.v[k], bad); k++)
			;
		if (k == st->caps_known.n) {
			snprintf(st->caps_why, sizeof st->caps_why, "the engine refuses capability %s, which was not offered", bad);
			st->caps_rc = -1;
			return -1;
		}
		free(st->caps_known.v[k]);
		memmove(&st->caps_known.v[k], &st->caps_known.v[k + 1], (st->caps_known.n - k) * sizeof *st->caps_known.v);
		st->caps_known.n--;
	}
	snprintf(st->caps_why, sizeof st->caps_why, "the engine kept refusing capabilities");
	st->caps_rc = -1;
	return -1;
}

static int probe_engine(sp_live_engine *e, sp_outcome *o)
{
	if (sp_probe_tool("docker", o, "docker CLI not installed (tried: docker info)") < 0)
		return -1;
	if (ask_info(e->st) < 0) {
		sp_why(o, "%s", e->st->info_why);
		return -1;
	}
	if (e->want_runtime && find_runtime(e, o) < 0)
		return -1;
	return 0;
}

static int probe(const sp_live_cfg *cfg, sp_outcome *o)
{
	(void)cfg;
	return probe_engine(&docker, o);
}

static int probe_runsc(const sp_live_cfg *cfg, sp_outcome *o)
{
	(void)cfg;
	return probe_engine(&docker_runsc, o);
}

static void claims_runsc(sp_live_launch *l)
{
	sp_engine_claims(l);
	l->user_kernel = true;
}

/* the engine's version as major*100+minor (20.10 -> 2010), 0 when unreadable */
static unsigned version_num(const char *v)
{
	unsigned a = 0, b = 0;
	if (sscanf(v, "%u.%u", &a, &b) != 2)
		return 0;
	return a * 100 + b;
}

static int plan_common(sp_live_lane *l, sp_live_engine *e, sp_outcome *o)
{
	if (sp_engine_plan(l, o) < 0)
		return -1;
	unsigned v = version_num(e->st->version);
	if (v && v < 2010) {
		/* --cgroupns arrived with API 1.41 (20.10) */
		l->claim.ns &= ~(unsigned)SP_NS_CGROUP;
		sp_lane_note(l, "docker %s has no --cgroupns: the cgroup namespace is the engine's default and not claimed", e->st->version);
	}
	if (!api.ok && api.why[0])
		sp_lane_note(l, "the container's pid and teardown are asked with docker inspect: %s", api.why);
	if (l->variant->removes & (SP_PROT_CAPS | SP_PROT_UNPRIV)) {
		if (ask_caps(e->st) < 0) {
			sp_why(o, "%s", e->st->caps_why);
			return -1;
		}
	}
	return 0;
}

static int plan(sp_live_lane *l, sp_outcome *o)
{
	if (plan_common(l, &docker, o) < 0)
		return -1;
	if (l->variant->removes & SP_PROT_UNPRIV) {
		sp_strv host;
		sp_strv_split(&host, NULL, ",");
		sp_host_caps(&host);
		char missing[512] = "";
		for (size_t i = 0; i < docker_state.caps_known.n; i++)
			if (!sp_strv_contains(&host, docker_state.caps_known.v[i])) {
				size_t len = strlen(missing);
				snprintf(missing + len, sizeof missing - len, "%s%s", len ? "," : "", docker_state.caps_known.v[i]);
			}
		sp_strv_free(&host);
		if (missing[0]) {
			sp_why(o,
			       "docker --privileged grants every capability the engine knows, and this host's bounding set lacks %s: "
			       "runc cannot grant it (\"unable to apply caps: operation not permitted\")",
			       missing);
			return -1;
		}
	}
	return 0;
}

static int plan_runsc(sp_live_lane *l, sp_outcome *o)
{
	sp_live_engine *e = &docker_runsc;
	if (plan_common(l, e, o) < 0)
		return -1;
	bool oci_seccomp = has_arg(e, "--oci-seccomp");
	sp_lane_note(l, "gVisor via the engine's runtime '%s' (runtimeArgs: %s)", e->runtime, e->runtime_args[0] ? e->runtime_args : "none");
	if (has_arg(e, "--ignore-cgroups")) {
		l->claim.own_cgroup = false;
		sp_lane_note(l, "--ignore-cgroups: no cgroup of its own is claimed");
	}
	if (!oci_seccomp)
		sp_lane_note(l, "without --oci-seccomp gVisor does not load the OCI seccomp profile the engine passes: the workload "
				"runs under no filter of its own (the Sentry keeps its own filter on the host)");
	unsigned r = l->variant->removes;
	if (!r && !oci_seccomp) {
		/* the reference lane would run without the workload's own filter: not strict, and the user can fix it */
		sp_why(o,
		       "the engine registers runsc without --oci-seccomp (runtimeArgs: %s): gVisor would not load docker's "
		       "seccomp profile, so this engine cannot run a strict lane; fix: add \"--oci-seccomp\" to the runsc "
		       "runtimeArgs in the engine's daemon.json (/etc/docker/daemon.json) and restart dockerd",
		       e->runtime_args[0] ? e->runtime_args : "none");
		return -1;
	}
	if (r & SP_PROT_NNP)
		return sp_gvisor_nnp_limit(o);
	if (r & SP_PROT_PIDNS) {
		sp_why(o, "gVisor keeps a process table of its own: with --pid host only the Sentry joins the host's "
			  "pid namespace, the workload still sees only its own processes");
		return -1;
	}
	if ((r & SP_PROT_NETNS) && (has_arg(e, "--network=none") || has_arg(e, "--network=sandbox"))) {
		sp_why(o, "runsc is registered with %s: the workload gets gVisor's network stack, not the host's, "
			  "even with --network host",
		       has_arg(e, "--network=none") ? "--network=none" : "--network=sandbox");
		return -1;
	}
	if ((r & SP_PROT_DEV) && !(r & SP_PROT_UNPRIV)) {
		sp_why(o, "gVisor does not pass host device nodes through: with -v /dev:/dev their names appear, "
			  "but opening one is refused (EPERM)");
		return -1;
	}
	if ((r & SP_PROT_SECCOMP) && !(r & SP_PROT_UNPRIV) && !oci_seccomp) {
		sp_why(o, "without --oci-seccomp (runtimeArgs: %s) gVisor applies no OCI seccomp filter: there is "
			  "none to remove",
		       e->runtime_args[0] ? e->runtime_args : "none");
		return -1;
	}
	if (r & SP_PROT_UNPRIV) {
		l->kept |= SP_PROT_DEV;
		sp_lane_note(l, "--privileged: gVisor still mediates every device (host device nodes are not opened)");
		if (!oci_seccomp)
			l->kept |= SP_PROT_SECCOMP;
	}
	return 0;
}

/* ------------------------------------------------------------ engine view */

static int read_cid(sp_live_lane *l)
{
	if (l->cid[0])
		return 0;
	char p[600], buf[128];
	snprintf(p, sizeof p, "%s/cid", l->dir);
	ssize_t n = sp_read_file(p, buf, sizeof buf);
	if (n <= 0)
		return -1;
	snprintf(l->cid, sizeof l->cid, "%s", sp_trim(buf));
	return l->cid[0] ? 0 : -1;
}

static void find_shim(sp_live_lane *l)
{
	struct docker_lane *d = dl(l);
	d->shim = sp_find_shim(l->cid, d->ctr_addr, sizeof d->ctr_addr, d->ctr_ns, sizeof d->ctr_ns, d->bundle, sizeof d->bundle);
}

static int host_pid(sp_live_lane *l, sp_error *err)
{
	struct docker_lane *d = dl(l);
	if (read_cid(l) < 0)
		return sp_fail_errno(err, ENOENT, "docker wrote no container id (--cidfile %s/cid)", l->dir);
	_cleanup_free_ char *body = NULL;
	sp_outcome o = {0};
	const char *by = "";
	int k = engine_knows(l->cid, &body, &by, &o);
	json_t *j = k == 1 ? json_loads(body, 0, NULL) : NULL;
	json_t *c = json_is_array(j) ? json_array_get(j, 0) : j; /* the CLI prints a list, the API one object */
	json_int_t jp = json_integer_value(json_object_get(json_object_get(c, "State"), "Pid"));
	json_decref(j);
	unsigned long long ep = jp > 0 ? (unsigned long long)jp : 0;
	if (ep == 0)
		return sp_fail_errno(err, EIO, "%s %.12s: no init pid (%.399s)", by, l->cid,
				     k == 1 ? "no State.Pid" : k == 0 ? "no such container"
								      : o.why);
	find_shim(l);
	char obs[1400];
	if (l->claim.user_kernel) {
		/* the engine's init pid is gVisor's sandbox process (the Sentry): prove it is, and find its spec */
		if (sp_gvisor_sandbox(l, (pid_t)ep, l->cid, d->runsc_root, sizeof d->runsc_root, err) < 0)
			return -1;
		snprintf(obs, sizeof obs, "container %.12s: init pid %llu (%s) is runsc-sandbox, spec %s, runsc root %s; "
					  "shim %d (containerd %s, namespace %s)",
			 l->cid, ep, by, l->spec, d->runsc_root, (int)d->shim, d->ctr_addr[0] ? d->ctr_addr : "?", d->ctr_ns[0] ? d->ctr_ns : "?");
		sp_lres_add(&l->results, SP_HOSTID(engine), SP_STATUS_PASS, "the engine's init pid is the sandbox (gVisor's Sentry), with its spec", obs,
			    "engine view: docker, containerd shim and runsc agree");
		return 0;
	}
	pid_t np = sp_find_nonce_pid(l->nonce);
	if (d->bundle[0])
		snprintf(l->spec, sizeof l->spec, "%s/config.json", d->bundle);
	snprintf(obs, sizeof obs, "container %.12s: init pid %llu (%s), the sandbox's init with the lane's nonce %d; shim %d "
				  "(containerd %s, namespace %s, bundle %s)",
		 l->cid, ep, by, (int)np, (int)d->shim, d->ctr_addr[0] ? d->ctr_addr : "?", d->ctr_ns[0] ? d->ctr_ns : "?",
		 d->bundle[0] ? d->bundle : "?");
	if (np <= 0 || (pid_t)ep != np) {
		sp_lres_add(&l->results, SP_HOSTID(engine), SP_STATUS_FAIL, "the engine's init pid is the sandbox's init (its shell, or the doctor holding it open)", obs,
			    "docker and the host disagree on the sandbox's process");
		if (np > 0)
			l->host_pid = np;
		return 0;
	}
	l->host_pid = np;
	sp_lres_add(&l->results, SP_HOSTID(engine), SP_STATUS_PASS, "the engine's init pid is the sandbox's init (its shell, or the doctor holding it open)", obs,
		    "engine view and host view agree");
	return 0;
}

/* ---------------------------------------------------------------- teardown */

static int leftovers(sp_live_lane *l, char *what, size_t whatsz)
{
	read_cid(l);
	struct docker_lane *d = l->priv;
	bool ask_ctr = d && d->ctr_addr[0] && d->ctr_ns[0];
	/* ask docker (by the container's id or name: inspect knows both), then its containerd */
	_cleanup_free_ char *body = NULL;
	sp_outcome o = {0};
	char cby[600] = "";
	const char *ref = l->cid[0] ? l->cid : l->name;
	const char *by = "";
	int known = engine_knows(ref, &body, &by, &o);
	int ret = 1;
	if (known == 1) {
		snprintf(what, whatsz, "docker still knows container %.12s", ref);
	} else if (known < 0) {
		snprintf(what, whatsz, "%.399s", o.why);
	} else if (ask_ctr && l->cid[0]) {
		int held = sp_ctrd_holds(d->ctr_addr, d->ctr_ns, l->cid, 1u << SP_CTRD_CONTAINERS | 1u << SP_CTRD_TASKS, what, whatsz,
					 cby, sizeof cby);
		ret = held != 0;
	} else {
		ret = 0;
	}
	if (ret)
		return 1;
	if (!l->cid[0]) {
		if (!l->proc.out_buf.data || !strstr(l->proc.out_buf.data, "-begin@@")) {
			snprintf(what, whatsz, "container %s never created (no id)", l->name);
			return 0;
		}
		snprintf(what, whatsz, "no container id to prove the rest gone");
		return 1;
	}
	/* the shim, runc and gVisor's gofer and sandbox all carry the container's id */
	char pw[256];
	if (!sp_wait_procs_gone(l->cid, 10000, pw, sizeof pw)) {
		snprintf(what, whatsz, "%s", pw);
		return 1;
	}
	if (d && d->bundle[0] && access(d->bundle, F_OK) == 0) {
		snprintf(what, whatsz, "the task's bundle %s is left", d->bundle);
		return 1;
	}
	if (d && d->runsc_root[0]) {
		_cleanup_closedir_ DIR *rd = opendir(d->runsc_root);
		struct dirent *de;
		while (rd && (de = readdir(rd)))
			if (strstr(de->d_name, l->cid)) {
				snprintf(what, whatsz, "gVisor state %s/%s is left", d->runsc_root, de->d_name);
				return 1;
			}
	}
	char extra[1400] = "";
	if (ask_ctr)
		snprintf(extra, sizeof extra, ", containerd (%s, namespace %s) lists no container or task (%s)", d->ctr_addr, d->ctr_ns, cby);
	snprintf(what, whatsz, "container %.12s gone (%s), no process carries its id (shim%s)%s%s", l->cid,
		 by, l->claim.user_kernel ? ", gofer, sandbox" : ", runc", extra, d && d->runsc_root[0] ? ", no runsc state" : "");
	return 0;
}

const sp_live_runtime sp_rt_docker = {
	.name = "docker",
	.summary = "docker (CLI, the engine at DOCKER_HOST): imported local image, --read-only, --cap-drop ALL, OCI seccomp",
	.probe = probe,
	.removable = SP_PROT_ALL,
	.claims = sp_engine_claims,
	.prepare = sp_engine_prepare,
	.launch = sp_engine_launch,
	.teardown = sp_engine_teardown,
	.teardown_if_left = true,
	.finish = sp_engine_finish,
	.engine = &docker,
	.plan = plan,
	.host_pid = host_pid,
	.leftovers = leftovers,
	.lane_free = lane_free,
};

const sp_live_runtime sp_rt_docker_runsc = {
	.name = "docker-runsc",
	.summary = "docker --runtime runsc (gVisor as the engine has it registered): the docker lane in a user-space kernel",
	.probe = probe_runsc,
	.removable = SP_PROT_ALL,
	.claims = claims_runsc,
	.prepare = sp_engine_prepare,
	.launch = sp_engine_launch,
	.teardown = sp_engine_teardown,
	.teardown_if_left = true,
	.finish = sp_engine_finish,
	.engine = &docker_runsc,
	.plan = plan_runsc,
	.host_pid = host_pid,
	.leftovers = leftovers,
	.lane_free = lane_free,
};
