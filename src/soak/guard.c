/* What makes a soak run safe to die (docs/workload-format.md, "When the
 * runner dies"):
 * - The supervisor. The process the user started forks the runner and
 *   stays its parent: a child subreaper that forwards SIGINT/SIGTERM/SIGHUP.
 *   If the runner dies of any signal, every process of the run reparents to
 *   the supervisor, which kills the run's cgroup and process tree, runs the
 *   workload's cleanup, unmounts and removes the run's cgroups. If the
 *   supervisor dies, the runner gets SIGUSR1 (PR_SET_PDEATHSIG) and does the
 *   same itself.
 * - The run's own cgroup (cgroup v2, "<run prefix>.runner"): the runner and
 *   everything it starts live in it unless a runtime moves them, so a
 *   process that escapes with setsid and a clean environment is still found
 *   and killed (cgroup.kill).
 * - The journal "<state_root>/<run prefix>.journal" (JSON lines, flock'ed
 *   while the run lives): the run's identity and boot id, its state
 *   directory and cgroup, the expanded cleanup, teardown and inventory
 *   commands, mounts as they appear. It is removed only when a run ended
 *   with nothing of it left; otherwise a later run of the same workload
 *   prefix on that state root refuses to start and names it, and `sandprobe
 *   soak --reconcile` removes exactly what it names, then proves it gone.
 *   Each run owns its own state directory ("<state_root>/<run prefix>") and
 *   journal; a dead run of another prefix (another workload, another user's
 *   run in a shared /tmp) owns nothing this run would own (its cgroups,
 *   state directory and processes all carry its own prefix), so it does not
 *   block this one.
 * Ownership is proven, never guessed by name: membership of the run's
 * cgroup, descent from the runner or supervisor, the environment marker
 * SANDPROBE_SOAK_PREFIX=<run prefix>, or a cgroup path carrying the run
 * prefix (8 random hex digits that the journal records). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "core/fsutil.h"
#include "soak/run.h"

#define JOURNAL_SCHEMA "sandprobe.soak.journal.v1"
#define MAX_JOURNALED_MOUNTS 1024

/* ---- small helpers ---- */
static void sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static void boot_id(char *out, size_t size)
{
	if (sp_read_file("/proc/sys/kernel/random/boot_id", out, size) <= 0)
		snprintf(out, size, "unknown");
	out[strcspn(out, "\n")] = '\0';
}

static unsigned long long proc_start(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (sp_read_file(path, buf, sizeof buf) <= 0)
		return 0;
	const char *c = strrchr(buf, ')');
	for (int f = 2; c && f < 22; f++)
		c = strchr(c + 1, ' ');
	return c ? strtoull(c + 1, NULL, 10) : 0;
}

/* ---- cgroups ---- */
/* the cgroup v2 mount point and this process's path in it */
static int cgroup2_location(char *mnt, size_t mntsz, char *path, size_t pathsz)
{
	size_t len = 0;
	int e = 0;
	_cleanup_free_ char *mi = sp_read_file_alloc("/proc/self/mountinfo", 16 << 20, &len, &e);
	if (!mi)
		return -1;
	bool found = false;
	for (char *line = mi; line && *line && !found;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		char *sep = strstr(line, " - cgroup2 ");
		if (sep) {
			char *f = line;
			for (int i = 0; i < 4 && f; i++)
				if ((f = strchr(f, ' ')))
					f++;
			if (f) {
				size_t fl = strcspn(f, " ");
				if (fl < mntsz && !memchr(f, '\\', fl)) {
					memcpy(mnt, f, fl);
					mnt[fl] = '\0';
					found = true;
				}
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!found)
		return -1;
	char buf[4096];
	if (sp_read_file("/proc/self/cgroup", buf, sizeof buf) <= 0)
		return -1;
	for (char *l = buf; l && *l;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		if (sp_startswith(l, "0::")) {
			snprintf(path, pathsz, "%s", l + 3);
			return 0;
		}
		l = nl ? nl + 1 : NULL;
	}
	return -1;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int r = sp_write_all(fd, s, strlen(s));
	close(fd);
	return r;
}

/* kill every member of a cgroup (v2: cgroup.kill, else one by one); the
 * kernel's membership is the ownership proof. Returns how many were seen. */
static int cgroup_kill(const char *dir, pid_t spare)
{
	char *procs = sp_xasprintf("%s/cgroup.procs", dir), *kill_file = sp_xasprintf("%s/cgroup.kill", dir);
	int seen = 0;
	bool have_kill = spare <= 0 && access(kill_file, W_OK) == 0;
	for (int round = 0; round < 50; round++) {
		char buf[65536];
		pid_t pids[4096];
		size_t np = 0;
		ssize_t n = sp_read_file(procs, buf, sizeof buf);
		for (char *c = buf; n > 0 && *c && np < SP_ARRAY_SIZE(pids);) {
			char *end;
			long pid = strtol(c, &end, 10);
			if (end == c)
				break;
			c = end;
			if (pid > 0 && pid != spare)
				pids[np++] = (pid_t)pid;
		}
		if (round == 0)
			seen = (int)np;
		if (!np)
			break;
		if (!have_kill || write_str(kill_file, "1") < 0)
			for (size_t i = 0; i < np; i++)
				kill(pids[i], SIGKILL);
		sleep_ms(20);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	free(procs);
	free(kill_file);
	return seen;
}

struct cgdir {
	char *path;
	int depth;
};

/* inside: dir is (under) a cgroup named with the prefix, so every cgroup
 * below it is the run's too, whatever its name (a runtime's children: a
 * containerd namespace named after the run holds its containers' cgroups,
 * named by container id only), and is collected down to depth 12 */
static void collect_cgroups(const char *dir, const char *prefix, int depth, bool inside, struct cgdir **v, size_t *n)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		char *sub = sp_xasprintf("%s/%s", dir, de->d_name);
		bool mine = inside || strstr(de->d_name, prefix);
		if (mine) {
			*v = sp_xrealloc(*v, (*n + 1) * sizeof **v);
			(*v)[(*n)++] = (struct cgdir){sp_xstrdup(sub), depth};
		}
		if (depth < (mine ? 12 : 4))
			collect_cgroups(sub, prefix, depth + 1, mine, v, n);
		free(sub);
	}
	closedir(d);
}

static int deeper_cg_first(const void *a, const void *b)
{
	const struct cgdir *x = a, *y = b;
	if (x->depth != y->depth)
		return y->depth - x->depth;
	return (int)(strlen(y->path) - strlen(x->path));
}

/* every cgroup directory (all hierarchies) whose name carries the run prefix */
static struct cgdir *run_cgroups(const char *prefix, size_t *n)
{
	struct cgdir *v = NULL;
	*n = 0;
	DIR *d = opendir("/sys/fs/cgroup");
	if (!d)
		return NULL;
	struct dirent *de;
	/* /sys/fs/cgroup is either the v2 root or a tmpfs of v1 hierarchies (and "unified") */
	bool is_v2 = access("/sys/fs/cgroup/cgroup.procs", F_OK) == 0;
	if (is_v2) {
		collect_cgroups("/sys/fs/cgroup", prefix, 0, false, &v, n);
	} else {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			char *h = sp_xasprintf("/sys/fs/cgroup/%s", de->d_name);
			struct stat st;
			if (lstat(h, &st) == 0 && S_ISDIR(st.st_mode))
				collect_cgroups(h, prefix, 0, false, &v, n);
			free(h);
		}
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof *v, deeper_cg_first);
	return v;
}

static void free_cgroups(struct cgdir *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

/* remove the run's cgroups, deepest first (members killed first); skip: a
 * cgroup name to leave alone (the runner's own, while it is in it).
 * Returns how many remain; report (may be NULL) gets what was removed. */
static size_t remove_run_cgroups(const char *prefix, const char *skip, sp_strv *report)
{
	size_t n = 0, left = 0;
	struct cgdir *v = run_cgroups(prefix, &n);
	for (size_t i = 0; i < n; i++) {
		const char *base = strrchr(v[i].path, '/');
		if (skip && base && !strcmp(base + 1, skip))
			continue;
		cgroup_kill(v[i].path, 0);
		bool gone = false;
		for (int k = 0; k < 50 && !gone; k++) {
			gone = rmdir(v[i].path) == 0 || errno == ENOENT;
			if (!gone)
				sleep_ms(20);
		}
		if (gone && report) {
			char *l = sp_xasprintf("removed cgroup %s", v[i].path);
			sp_strv_push(report, l);
			free(l);
		}
		if (!gone)
			left++;
	}
	free_cgroups(v, n);
	return left;
}

/* ---- journal ---- */
static void journal_put(struct run *r, json_t *rec)
{
	if (r->g.journal_fd < 0) {
		json_decref(rec);
		return;
	}
	char *s = json_dumps(rec, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(rec);
	if (!s)
		return;
	char *line = sp_xasprintf("%s\n", s);
	free(s);
	pthread_mutex_lock(&r->g.journal_mu);
	if (sp_write_all(r->g.journal_fd, line, strlen(line)) == 0)
		fdatasync(r->g.journal_fd);
	pthread_mutex_unlock(&r->g.journal_mu);
	free(line);
}

void sp_soak_journal_event(struct run *r, const char *type, const char *key, const char *value)
{
	journal_put(r, json_pack("{s:s,s:s}", "t", type, key, value));
}

void sp_soak_journal_mounts(struct run *r)
{
	if (r->g.journal_fd < 0 || !r->smp.sampler || r->g.nmounts_seen >= MAX_JOURNALED_MOUNTS)
		return;
	if (r->rec.last.owned_mounts == 0)
		return;
	size_t n = 0;
	char **m = sp_sampler_owned_mounts(r->smp.sampler, &n);
	for (size_t i = 0; i < n; i++) {
		bool seen = false;
		for (size_t k = 0; k < r->g.nmounts_seen && !seen; k++)
			seen = !strcmp(r->g.mounts_seen[k], m[i]);
		if (!seen && r->g.nmounts_seen < MAX_JOURNALED_MOUNTS) {
			r->g.mounts_seen = sp_xrealloc(r->g.mounts_seen, (r->g.nmounts_seen + 1) * sizeof(char *));
			r->g.mounts_seen[r->g.nmounts_seen++] = sp_xstrdup(m[i]);
			sp_soak_journal_event(r, "mount", "path", m[i]);
		}
		free(m[i]);
	}
	free(m);
}

static json_t *steps_json(struct run *r, const sp_soak_wsteps *steps)
{
	json_t *a = json_array();
	for (size_t i = 0; i < steps->n; i++) {
		char **argv = sp_soak_expand_argv(&steps->v[i].argv, &r->gvars);
		json_t *av = json_array();
		for (char **p = argv; *p; p++)
			json_array_append_new(av, json_string(*p));
		sp_soak_free_argv(argv);
		json_array_append_new(a, json_pack("{s:s,s:o,s:i,s:b}", "op", steps->v[i].op, "argv", av, "timeout_ms",
						   steps->v[i].timeout_ms, "expect_fail", steps->v[i].expect_fail));
	}
	return a;
}

static int journal_create(struct run *r, sp_error *err)
{
	r->g.journal = sp_xasprintf("%s%s%s.journal", r->w.state_root, sp_endswith(r->w.state_root, "/") ? "" : "/",
				    r->prefix);
	r->g.journal_fd = open(r->g.journal, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
	if (r->g.journal_fd < 0)
		return sp_fail_errno(err, errno, "cannot create the run's journal %s", r->g.journal);
	if (flock(r->g.journal_fd, LOCK_EX | LOCK_NB) < 0)
		return sp_fail_errno(err, errno, "cannot lock the run's journal %s", r->g.journal);
	char boot[64], cwd[4096];
	boot_id(boot, sizeof boot);
	if (!getcwd(cwd, sizeof cwd))
		snprintf(cwd, sizeof cwd, "?");
	journal_put(r, json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:I,s:I}", "t", "run", "schema", JOURNAL_SCHEMA,
				 "run_id", r->run_id, "prefix", r->prefix, "state_root", r->w.state_root, "state_dir",
				 r->state_dir, "bundle", r->o->out, "cwd", cwd, "boot_id", boot, "workload", r->w.path,
				 "supervisor_pid", (json_int_t)getpid(), "supervisor_start", (json_int_t)proc_start(getpid())));
	journal_put(r, json_pack("{s:s,s:s,s:o}", "t", "steps", "section", "cleanup", "steps", steps_json(r, &r->w.cleanup)));
	journal_put(r, json_pack("{s:s,s:s,s:o}", "t", "steps", "section", "teardown", "steps", steps_json(r, &r->w.teardown)));
	if (r->w.inventory.n) {
		char **argv = sp_soak_expand_argv(&r->w.inventory, &r->gvars);
		json_t *av = json_array();
		for (char **p = argv; *p; p++)
			json_array_append_new(av, json_string(*p));
		sp_soak_free_argv(argv);
		journal_put(r, json_pack("{s:s,s:o}", "t", "inventory", "argv", av));
	}
	return 0;
}

/* A parsed journal. */
struct jrun {
	char *path, *run_id, *prefix, *state_dir, *boot, *cgroup, *end;
	long long runner_pid, supervisor_pid;
	sp_strv mounts;
	json_t *cleanup, *teardown, *inventory; /* arrays (owned) */
};

static void jrun_free(struct jrun *j)
{
	free(j->path);
	free(j->run_id);
	free(j->prefix);
	free(j->state_dir);
	free(j->boot);
	free(j->cgroup);
	free(j->end);
	sp_strv_free(&j->mounts);
	json_decref(j->cleanup);
	json_decref(j->teardown);
	json_decref(j->inventory);
	memset(j, 0, sizeof *j);
}

static char *jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? sp_xstrdup(s) : NULL;
}

/* Read a journal; -1 when it is not one (or its first record is unreadable). */
static int jrun_load(const char *path, struct jrun *j)
{
	memset(j, 0, sizeof *j);
	size_t len = 0;
	int e = 0;
	_cleanup_free_ char *text = sp_read_file_alloc(path, 64 << 20, &len, &e);
	if (!text)
		return -1;
	bool first = true;
	for (char *l = text; l && *l;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		json_error_t je;
		json_t *rec = json_loads(l, 0, &je); /* a torn last line is skipped */
		const char *t = rec ? json_string_value(json_object_get(rec, "t")) : NULL;
		if (first) {
			const char *schema = rec ? json_string_value(json_object_get(rec, "schema")) : NULL;
			if (!t || strcmp(t, "run") || !schema || strcmp(schema, JOURNAL_SCHEMA)) {
				json_decref(rec);
				return -1;
			}
			j->run_id = jstr(rec, "run_id");
			j->prefix = jstr(rec, "prefix");
			j->state_dir = jstr(rec, "state_dir");
			j->boot = jstr(rec, "boot_id");
			j->supervisor_pid = json_integer_value(json_object_get(rec, "supervisor_pid"));
			first = false;
			if (!j->run_id || !j->prefix || !j->state_dir || strlen(j->prefix) < 11) {
				json_decref(rec);
				jrun_free(j);
				return -1;
			}
		} else if (t && !strcmp(t, "cgroup")) {
			free(j->cgroup);
			j->cgroup = jstr(rec, "path");
		} else if (t && !strcmp(t, "runner")) {
			j->runner_pid = json_integer_value(json_object_get(rec, "pid"));
		} else if (t && !strcmp(t, "mount")) {
			const char *p = json_string_value(json_object_get(rec, "path"));
			if (p)
				sp_strv_push(&j->mounts, p);
		} else if (t && !strcmp(t, "steps")) {
			const char *sec = json_string_value(json_object_get(rec, "section"));
			json_t *st = json_object_get(rec, "steps");
			if (sec && json_is_array(st)) {
				if (!strcmp(sec, "cleanup")) {
					json_decref(j->cleanup);
					j->cleanup = json_incref(st);
				} else if (!strcmp(sec, "teardown")) {
					json_decref(j->teardown);
					j->teardown = json_incref(st);
				}
			}
		} else if (t && !strcmp(t, "inventory")) {
			json_decref(j->inventory);
			j->inventory = json_incref(json_object_get(rec, "argv"));
		} else if (t && !strcmp(t, "end")) {
			free(j->end);
			const char *how = json_string_value(json_object_get(rec, "how"));
			const char *why = json_string_value(json_object_get(rec, "why"));
			j->end = sp_xasprintf("%s%s%s", how ? how : "?", why ? ": " : "", why ? why : "");
		}
		json_decref(rec);
		l = nl ? nl + 1 : NULL;
	}
	if (first)
		return -1;
	j->path = sp_xstrdup(path);
	return 0;
}

/* is a live run holding this journal? (its lock is held while it lives) */
static bool journal_live(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool live = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return live;
}

static bool is_hex8(const char *s)
{
	for (int i = 0; i < 8; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[8] == '\0';
}

/* what a dead run left: processes (this boot only), mounts under its state
 * dir, its cgroups, its state dir */
struct remains {
	size_t procs, mounts, cgroups;
	bool state_dir;
};

static void remains_of(const struct jrun *j, struct remains *m)
{
	memset(m, 0, sizeof *m);
	char boot[64];
	boot_id(boot, sizeof boot);
	sp_soak_sampler *s = sp_sampler_new(0, j->prefix, j->state_dir);
	if (j->boot && !strcmp(j->boot, boot)) {
		size_t n = 0;
		free(sp_sampler_signalable(s, &n));
		m->procs = n;
	}
	size_t nm = 0;
	char **mounts = sp_sampler_owned_mounts(s, &nm);
	for (size_t i = 0; i < nm; i++)
		free(mounts[i]);
	free(mounts);
	m->mounts = nm;
	sp_sampler_free(s);
	struct cgdir *cg = run_cgroups(j->prefix, &m->cgroups);
	free_cgroups(cg, m->cgroups);
	m->state_dir = sp_soak_dir_exists(j->state_dir);
}

static char *describe_remains(const struct jrun *j, const struct remains *m)
{
	char *s = sp_xasprintf("run %s (journal %s%s%s", j->run_id, j->path, j->end ? ", ended " : "", j->end ? j->end : "");
	char *t;
	if (m->state_dir) {
		t = sp_xasprintf("%s; state dir %s", s, j->state_dir);
		free(s);
		s = t;
	}
	if (m->procs || m->mounts || m->cgroups) {
		t = sp_xasprintf("%s; %zu live process(es), %zu mount(s), %zu cgroup(s)", s, m->procs, m->mounts, m->cgroups);
		free(s);
		s = t;
	}
	t = sp_xasprintf("%s)", s);
	free(s);
	return t;
}

int sp_soak_guard_leftovers(struct run *r, sp_error *err)
{
	DIR *d = opendir(r->w.state_root);
	if (!d)
		return sp_usage(err, "%s: state_root %s: %s", r->w.path, r->w.state_root, strerror(errno));
	size_t wl = strlen(r->w.prefix), found = 0;
	char *list = sp_xstrdup("");
	struct dirent *de;
	while ((de = readdir(d))) {
		char *item = NULL;
		char *full = sp_xasprintf("%s/%s", r->w.state_root, de->d_name);
		size_t nl = strlen(de->d_name);
		bool ours = !strncmp(de->d_name, r->w.prefix, wl) && de->d_name[wl] == '-';
		if (sp_endswith(de->d_name, ".journal")) {
			/* only a run of this workload's prefix: "<prefix>-<hex8>.journal" */
			char run[16] = "";
			if (ours && nl == wl + 1 + 8 + strlen(".journal"))
				snprintf(run, sizeof run, "%.8s", de->d_name + wl + 1);
			struct jrun j;
			if (run[0] && is_hex8(run) && !journal_live(full) && jrun_load(full, &j) == 0) {
				struct remains m;
				remains_of(&j, &m);
				item = describe_remains(&j, &m);
				jrun_free(&j);
			}
		} else if (ours && is_hex8(de->d_name + wl + 1)) {
			/* a state directory of this workload's prefix: ours unless a live run's journal names it */
			char *jp = sp_xasprintf("%s.journal", full);
			struct stat st;
			bool has_journal = stat(jp, &st) == 0;
			free(jp);
			if (!has_journal && sp_soak_dir_exists(full))
				item = sp_xasprintf("state dir %s without a journal (remove it by hand once you know nothing of it runs)",
						    full);
		}
		free(full);
		if (item) {
			if (found < 3) {
				char *t = sp_xasprintf("%s%s%s", list, found ? "; " : "", item);
				free(list);
				list = t;
			}
			found++;
			free(item);
		}
	}
	closedir(d);
	int rc = 0;
	if (found)
		rc = sp_usage(err,
			      "state_root %s holds what an earlier run of this workload's prefix '%s' left behind: %s%s; "
			      "nothing was started: run 'sandprobe soak --reconcile %s' first",
			      r->w.state_root, r->w.prefix, list, found > 3 ? "; and more" : "", r->w.state_root);
	free(list);
	return rc;
}

/* ---- the run cgroup ---- */
static void cgroup_create(struct run *r)
{
	char mnt[512], path[2048];
	if (cgroup2_location(mnt, sizeof mnt, path, sizeof path) < 0)
		return;
	r->g.cgroup_name = sp_xasprintf("%s.runner", r->prefix);
	char *dir = sp_xasprintf("%s%s%s/%s", mnt, strcmp(path, "/") ? path : "", "", r->g.cgroup_name);
	if (mkdir(dir, 0755) < 0) {
		free(dir);
		return;
	}
	r->g.cgroup = dir;
	sp_soak_journal_event(r, "cgroup", "path", dir);
}

/* the runner moves itself (and so everything it will start) into the run cgroup */
static void cgroup_enter(struct run *r)
{
	if (!r->g.cgroup)
		return;
	char *procs = sp_xasprintf("%s/cgroup.procs", r->g.cgroup), pid[32];
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	r->g.in_cgroup = write_str(procs, pid) == 0;
	free(procs);
}

static void cgroup_leave_and_remove(struct run *r)
{
	if (!r->g.cgroup)
		return;
	if (r->g.in_cgroup) {
		char *parent = sp_xstrdup(r->g.cgroup);
		*strrchr(parent, '/') = '\0';
		char *procs = sp_xasprintf("%s/cgroup.procs", parent), pid[32];
		snprintf(pid, sizeof pid, "%d", (int)getpid());
		if (write_str(procs, pid) == 0)
			r->g.in_cgroup = false;
		free(procs);
		free(parent);
	}
	if (!r->g.in_cgroup) {
		cgroup_kill(r->g.cgroup, 0);
		for (int k = 0; k < 50; k++) {
			if (rmdir(r->g.cgroup) == 0 || errno == ENOENT)
				break;
			sleep_ms(20);
		}
	}
}

/* ---- sweeping ---- */
int sp_soak_sweep(struct run *r)
{
	int found = 0;
	for (int round = 0; round < 5; round++) {
		size_t n = 0;
		pid_t *pids = sp_sampler_signalable(r->smp.sampler, &n);
		int here = 0;
		for (size_t i = 0; i < n; i++) {
			int pfd = (int)syscall(SYS_pidfd_open, pids[i], 0);
			if (pfd < 0)
				continue;
			/* re-prove ownership with the process pinned */
			int own = sp_sampler_owner(r->smp.sampler, pids[i]);
			if (own & (SP_OWN_TREE | SP_OWN_ENV | SP_OWN_CGROUP)) {
				syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0);
				here++;
			}
			close(pfd);
		}
		free(pids);
		if (round == 0)
			found += here;
		if (!here)
			break;
		sleep_ms(100);
		sp_proc_reap_orphans();
	}
	size_t nm = 0;
	char **mounts = sp_sampler_owned_mounts(r->smp.sampler, &nm);
	for (size_t i = 0; i < nm; i++) {
		if (umount2(mounts[i], MNT_DETACH) == 0)
			found++;
		free(mounts[i]);
	}
	free(mounts);
	return found;
}

void sp_soak_remove_run_cgroups(struct run *r)
{
	remove_run_cgroups(r->prefix, r->g.cgroup_name, NULL);
}

void sp_soak_remove_state(struct run *r)
{
	sp_rm_rf(r->state_dir);
}

/* ---- the supervisor ---- */
/* The runner died of a signal: everything of the run is now the
 * supervisor's (reparented to it, in the run cgroup, or marked). */
static void supervisor_cleanup(struct run *r, int sig, sp_error *err)
{
	uint64_t t0 = sp_now_ns();
	int killed = r->g.cgroup ? cgroup_kill(r->g.cgroup, 0) : 0;
	r->smp.sampler = sp_sampler_new(getpid(), r->prefix, r->state_dir);
	for (int round = 0; round < 10; round++) {
		int n = sp_soak_sweep(r);
		killed += n;
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (!n)
			break;
	}
	bool cleanup_ok = sp_soak_run_global_steps(r, &r->w.cleanup, "cleanup", 10000);
	killed += sp_soak_sweep(r);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	size_t cg_left = remove_run_cgroups(r->prefix, NULL, NULL);
	char why[160];
	snprintf(why, sizeof why, "the runner was killed by SIG%s; its supervisor killed %d process(es) and mount(s) in %.1f s",
		 sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", killed, (double)(sp_now_ns() - t0) / 1e9);
	journal_put(r, json_pack("{s:s,s:s,s:s,s:s,s:s,s:I}", "t", "end", "how", "abandoned", "by", "supervisor", "why", why,
				 "cleanup", cleanup_ok ? "ok" : "failed", "cgroups_left", (json_int_t)cg_left));
	sp_fail_errno(err, 0,
		      "soak: %s, ran the workload's cleanup (%s); the bundle %s is incomplete; the state dir %s and the "
		      "journal %s stay for 'sandprobe soak --reconcile %s'",
		      why, cleanup_ok ? "ok" : "failed", r->o->out, r->state_dir, r->g.journal, r->w.state_root);
}

static int supervise(struct run *r, pid_t runner, int sfd, int *exit_code, sp_error *err)
{
	prctl(PR_SET_NAME, "sp-soak-super");
	int status = 0;
	bool done = false;
	while (!done) {
		struct pollfd pf = {.fd = sfd, .events = POLLIN};
		if (poll(&pf, 1, 1000) < 0 && errno != EINTR)
			break;
		struct signalfd_siginfo si;
		while (read(sfd, &si, sizeof si) == sizeof si)
			if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM || si.ssi_signo == SIGHUP)
				kill(runner, (int)si.ssi_signo);
		pid_t p;
		int st;
		while ((p = waitpid(-1, &st, WNOHANG)) > 0)
			if (p == runner) {
				status = st;
				done = true;
			}
		if (p < 0 && errno == ECHILD && !done) /* cannot happen: the runner is our child */
			break;
	}
	close(sfd);
	if (done && WIFEXITED(status)) {
		/* the runner ended its run itself (and reported any error) */
		*exit_code = WEXITSTATUS(status);
		if (r->g.cgroup)
			rmdir(r->g.cgroup);
		return 1;
	}
	supervisor_cleanup(r, done && WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL, err);
	*exit_code = -1;
	return 1;
}

int sp_soak_guard_start(struct run *r, int *exit_code, sp_error *err)
{
	pthread_mutex_init(&r->g.journal_mu, NULL);
	if (journal_create(r, err) < 0)
		return -1;
	cgroup_create(r);
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &mask, NULL); /* the runner inherits the mask and reads its own signalfd */
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		return sp_fail_errno(err, errno, "signalfd");
	pid_t parent = getpid();
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		close(sfd);
		return sp_fail_errno(err, errno, "cannot become the run's subreaper");
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(sfd);
		return sp_fail_errno(err, errno, "fork");
	}
	if (pid > 0) {
		r->g.supervisor = getpid();
		return supervise(r, pid, sfd, exit_code, err);
	}
	/* the runner */
	close(sfd);
	r->g.is_runner = true;
	r->g.supervisor = parent;
	prctl(PR_SET_PDEATHSIG, SIGUSR1);
	prctl(PR_SET_CHILD_SUBREAPER, 1); /* not inherited: daemonised processes of the run stay in the runner's tree */
	if (getppid() != parent) /* the supervisor died before the line above */
		atomic_store(&r->g.orphaned, 1);
	setpgid(0, 0); /* a terminal's signals reach the supervisor, which forwards them once */
	cgroup_enter(r);
	journal_put(r, json_pack("{s:s,s:I,s:I,s:b}", "t", "runner", "pid", (json_int_t)getpid(), "start",
				 (json_int_t)proc_start(getpid()), "in_cgroup", r->g.in_cgroup));
	return 0;
}

void sp_soak_guard_finish(struct run *r, bool clean, const char *why)
{
	cgroup_leave_and_remove(r);
	if (clean) {
		if (r->g.journal && unlink(r->g.journal) == 0)
			return;
	}
	journal_put(r, json_pack("{s:s,s:s,s:s,s:s}", "t", "end", "how", clean ? "ended" : "incomplete", "by", "runner",
				 "why", why ? why : "?"));
}

void sp_soak_guard_free(struct run *r)
{
	if (r->g.journal_fd >= 0)
		close(r->g.journal_fd);
	r->g.journal_fd = -1;
	free(r->g.journal);
	free(r->g.cgroup);
	free(r->g.cgroup_name);
	for (size_t i = 0; i < r->g.nmounts_seen; i++)
		free(r->g.mounts_seen[i]);
	free(r->g.mounts_seen);
	pthread_mutex_destroy(&r->g.journal_mu);
}

/* ---- reconcile ---- */
static void say(sp_strv *report, const char *fmt, ...) SP_PRINTF(2, 3);
static void say(sp_strv *report, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char buf[2048];
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	sp_strv_push(report, buf);
}

static char **env_for(const struct jrun *j)
{
	extern char **environ;
	size_t n = 0;
	while (environ[n])
		n++;
	char **envp = sp_xcalloc(n + 3, sizeof(char *));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!sp_startswith(environ[i], SP_SOAK_ENV "=") && !sp_startswith(environ[i], "SANDPROBE_SOAK_STATE="))
			envp[k++] = sp_xstrdup(environ[i]);
	envp[k++] = sp_xasprintf("%s=%s", SP_SOAK_ENV, j->prefix);
	envp[k++] = sp_xasprintf("SANDPROBE_SOAK_STATE=%s", j->state_dir);
	return envp;
}

static void free_env(char **envp)
{
	for (char **e = envp; e && *e; e++)
		free(*e);
	free(envp);
}

static char **argv_of(json_t *a)
{
	if (!json_is_array(a) || json_array_size(a) == 0)
		return NULL;
	char **argv = sp_xcalloc(json_array_size(a) + 1, sizeof(char *));
	for (size_t i = 0; i < json_array_size(a); i++) {
		const char *s = json_string_value(json_array_get(a, i));
		argv[i] = sp_xstrdup(s ? s : "");
	}
	return argv;
}

static bool run_journaled_steps(const struct jrun *j, json_t *steps, const char *section, char **envp, sp_strv *report)
{
	bool all = true;
	size_t i;
	json_t *st;
	json_array_foreach(steps, i, st) {
		char **argv = argv_of(json_object_get(st, "argv"));
		const char *op = json_string_value(json_object_get(st, "op"));
		if (!argv)
			continue;
		int tmo = (int)json_integer_value(json_object_get(st, "timeout_ms"));
		bool expect_fail = json_is_true(json_object_get(st, "expect_fail"));
		sp_soak_run_opts ro = {.timeout_ms = tmo > 0 ? tmo : 30000, .interrupt_ms = -1, .envp = envp};
		sp_soak_proc_result res;
		sp_error e = {0};
		char code[64] = "internal";
		bool ok = false;
		if (sp_proc_run(argv, &ro, NULL, &res, &e) == 0) {
			sp_proc_describe(&res, code, sizeof code);
			ok = expect_fail ? (!res.spawn_errno && !res.timed_out && !sp_proc_ok(&res)) : sp_proc_ok(&res);
		}
		say(report, "  %s step %s: %s (%s)", section, op ? op : "?", ok ? "ok" : "failed", code);
		all &= ok;
		for (char **p = argv; *p; p++)
			free(*p);
		free(argv);
	}
	(void)j;
	return all;
}

/* the inventory command, if journaled: how many resources it still lists (-1: unreadable) */
static long inventory_count(const struct jrun *j, char **envp)
{
	char **argv = argv_of(j->inventory);
	if (!argv)
		return 0;
	sp_soak_capture *cap = sp_xcalloc(1, sizeof *cap);
	sp_soak_run_opts ro = {.timeout_ms = 30000, .interrupt_ms = -1, .envp = envp, .stderr_null = true};
	sp_soak_proc_result res;
	sp_error e = {0};
	long n = -1;
	if (sp_proc_run(argv, &ro, cap, &res, &e) == 0 && sp_proc_ok(&res)) {
		char *text = sp_capture_text(cap, NULL);
		json_error_t je;
		json_t *doc = json_loads(text, 0, &je);
		json_t *a = json_object_get(doc, "resources");
		if (json_is_array(a))
			n = (long)json_array_size(a);
		json_decref(doc);
		free(text);
	}
	free(cap);
	for (char **p = argv; *p; p++)
		free(*p);
	free(argv);
	return n;
}

static int reconcile_one(struct jrun *j, sp_strv *report)
{
	char boot[64];
	boot_id(boot, sizeof boot);
	bool same_boot = j->boot && !strcmp(j->boot, boot);
	say(report, "reconcile: run %s (journal %s%s%s)", j->run_id, j->path, j->end ? "; ended " : "", j->end ? j->end : "");
	sp_soak_sampler *s = sp_sampler_new(0, j->prefix, j->state_dir);
	char **envp = env_for(j);
	/* 1. processes: the run's cgroups, its environment marker, cgroup paths with its prefix */
	size_t killed = 0;
	if (same_boot) {
		if (j->cgroup && sp_soak_dir_exists(j->cgroup))
			killed += (size_t)cgroup_kill(j->cgroup, 0);
		for (int round = 0; round < 20; round++) {
			size_t n = 0;
			pid_t *pids = sp_sampler_signalable(s, &n);
			for (size_t i = 0; i < n; i++) {
				int pfd = (int)syscall(SYS_pidfd_open, pids[i], 0);
				if (pfd < 0)
					continue;
				if (sp_sampler_owner(s, pids[i]) & (SP_OWN_ENV | SP_OWN_CGROUP))
					syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0);
				close(pfd);
			}
			free(pids);
			if (round == 0)
				killed += n;
			if (!n)
				break;
			sleep_ms(100);
		}
		say(report, "  killed %zu process(es) of the run", killed);
	} else {
		say(report, "  the host rebooted since the run (boot id %s): none of its processes can have survived",
		    j->boot ? j->boot : "unknown");
	}
	/* 2. the journaled cleanup, then teardown (runtime state, images, rootfs) */
	bool steps_ok = true;
	if (sp_soak_dir_exists(j->state_dir)) {
		if (j->cleanup)
			steps_ok &= run_journaled_steps(j, j->cleanup, "cleanup", envp, report);
		if (j->teardown)
			steps_ok &= run_journaled_steps(j, j->teardown, "teardown", envp, report);
	}
	/* 3. the inventory must be empty before the state (where runtimes keep it) goes */
	long inv = sp_soak_dir_exists(j->state_dir) ? inventory_count(j, envp) : 0;
	if (j->inventory)
		say(report, "  inventory: %s", inv == 0 ? "no resource of the run left" : inv < 0 ? "unreadable" : "resources left");
	/* 4. mounts under the state dir, cgroups, the state dir */
	for (int round = 0; round < 3; round++) {
		size_t nm = 0;
		char **m = sp_sampler_owned_mounts(s, &nm);
		for (size_t i = 0; i < nm; i++) {
			if (umount2(m[i], MNT_DETACH) == 0)
				say(report, "  unmounted %s", m[i]);
			free(m[i]);
		}
		free(m);
		if (!nm)
			break;
	}
	sp_strv cg = {0};
	remove_run_cgroups(j->prefix, NULL, &cg);
	for (size_t i = 0; i < cg.n; i++)
		say(report, "  %s", cg.v[i]);
	sp_strv_free(&cg);
	if (sp_soak_dir_exists(j->state_dir)) {
		sp_rm_rf(j->state_dir);
		if (!sp_soak_dir_exists(j->state_dir))
			say(report, "  removed state dir %s", j->state_dir);
	}
	/* 5. proof (a killed process may take a moment to be gone from /proc) */
	struct remains m;
	for (int k = 0; k < 30; k++) {
		remains_of(j, &m);
		if (!m.procs && !m.mounts && !m.cgroups)
			break;
		sleep_ms(100);
	}
	bool gone = !m.procs && !m.mounts && !m.cgroups && !m.state_dir && inv == 0;
	if (gone) {
		say(report, "  proven gone: no process (environment marker, cgroup), no mount under %s, no cgroup with %s, "
			    "no state dir%s",
		    j->state_dir, j->prefix, j->inventory ? ", inventory empty" : "");
		if (unlink(j->path) == 0)
			say(report, "  removed journal %s", j->path);
		else
			gone = false;
	} else {
		say(report, "  NOT gone: %zu process(es), %zu mount(s), %zu cgroup(s)%s%s; journal %s kept", m.procs, m.mounts,
		    m.cgroups, m.state_dir ? ", the state dir" : "", inv != 0 ? ", inventory not empty" : "", j->path);
	}
	if (!steps_ok)
		say(report, "  (a journaled step failed; its output is not kept: run it by hand to see why)");
	free_env(envp);
	sp_sampler_free(s);
	return gone ? 0 : 1;
}

int sp_soak_reconcile(const char *state_root, sp_strv *report, sp_error *err)
{
	if (!state_root || state_root[0] != '/')
		return sp_usage(err, "--reconcile %s: needs the absolute state_root of the workload", state_root ? state_root : "");
	DIR *d = opendir(state_root);
	if (!d)
		return sp_usage(err, "--reconcile %s: %s", state_root, strerror(errno));
	sp_proc_raise_nofile();
	int rc = 0;
	size_t seen = 0;
	struct dirent *de;
	sp_strv names = {0};
	while ((de = readdir(d)))
		if (sp_endswith(de->d_name, ".journal"))
			sp_strv_push(&names, de->d_name);
	closedir(d);
	for (size_t i = 0; i < names.n; i++) {
		char *full = sp_xasprintf("%s%s%s", state_root, sp_endswith(state_root, "/") ? "" : "/", names.v[i]);
		struct jrun j;
		int fd = open(full, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
			say(report, "reconcile: %s belongs to a live run: left alone", full);
		} else if (fd >= 0 && jrun_load(full, &j) == 0) {
			seen++;
			rc |= reconcile_one(&j, report);
			jrun_free(&j);
		}
		if (fd >= 0)
			close(fd);
		free(full);
	}
	sp_strv_free(&names);
	if (!seen)
		say(report, "reconcile: no journal of a dead run under %s: nothing to remove", state_root);
	return rc;
}
