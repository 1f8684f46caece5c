/* The soak runner: scheduler (bounded concurrency, target rate, class mix,
 * deterministic seed), an independent sampler thread on its own timerfd,
 * owned fault injection, and the evidence bundle written as the run goes.
 *
 * Order of a run: validate everything (usage errors: nothing started) ->
 * bundle dir and state dir -> setup -> metadata.txt -> inventory-start ->
 * start sample -> workers + sampler -> stop (duration, signal, invariant,
 * R0 done) -> drain -> scenario stop steps -> cleanup -> inventory-final ->
 * final sample -> sweep of anything owned left behind -> teardown ->
 * capability-results, summary.json, logs, MANIFEST -> verify.out. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "soak/runner.h"
#include "soak/bundle.h"
#include "evidence/evidence.h"
#include "soak/proc.h"
#include "soak/sampler.h"
#include "soak/workload.h"
#include "core/util.h"
#include "core/version.h"

extern char **environ;

/* ---- profiles ---- */
static const struct profile {
	const char *name;
	long long duration_s, max_interval_s, min_periodic, default_interval_s, max_gap_s, warmup_s;
	const char *min_success;
} profiles[] = {
	{"R0", 0, 0, 0, 5, 0, 0, "1"},
	{"G2", 7200, 300, 24, 60, 600, 900, "1"},
	{"R24", 86400, 300, 288, 60, 600, 900, "0.995"},
	{"E72", 259200, 300, 864, 60, 600, 900, "0.995"},
};

static const struct profile *find_profile(const char *name)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(profiles); i++)
		if (!strcmp(profiles[i].name, name))
			return &profiles[i];
	return NULL;
}

int sp_soak_profile(const char *name, long long *duration_s, long long *max_interval_s, long long *min_periodic)
{
	const struct profile *p = find_profile(name);
	if (!p)
		return -1;
	*duration_s = p->duration_s;
	*max_interval_s = p->max_interval_s;
	*min_periodic = p->min_periodic;
	return 0;
}

/* ---- run state ---- */
struct scen_state {
	const sp_scenario *sc;
	char sid[64];         /* <prefix>-<id lowercased> */
	int busy;
	bool started, start_attempted;
	unsigned long long gen;
	long long attempted, ok, fail, expected_fault, finished;
	long long cycles;
};

struct run {
	const sp_soak_opts *o;
	sp_workload w;
	const struct profile *base;
	char profile[8];
	bool r0;              /* one cycle of every scenario */
	long long duration_s, interval_s, warmup_s;
	long long min_span_s, max_interval_s, min_periodic, max_gap_s;
	double rss_slope; /* MiB/day, scaled for custom runs */
	const char *min_success;
	int concurrency;
	unsigned long long seed;
	char run_id[64], short_id[16], prefix[40];
	char *state_dir, *rootfs, *exe;
	sp_vars gvars;
	char **envp;
	EVP_PKEY *key;

	sp_bundle b;
	FILE *ops, *lat, *samples, *faults;
	pthread_mutex_t rows_mu;
	uint64_t t0_ns, start_sample_ns;

	sp_sampler *sampler;
	pthread_t sampler_thr;
	int sampler_timer, sampler_kick, sampler_quit;
	bool sampler_running;
	pthread_t reaper_thr;
	int reaper_quit;
	bool reaper_running;
	sp_sample last;
	long long sample_count, periodic_count;
	double first_ts, last_ts, max_gap;

	/* scheduler */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct scen_state *ss;
	size_t next_r0;       /* R0 / coverage pass position */
	unsigned long long rng;
	uint64_t rate_interval_ns, next_slot_ns;
	long long class_cycles[SP_CLASS_COUNT];
	volatile int stop;    /* 1 stop launching, 2 also kill in-flight operations */
	volatile int abort_ops;
	char stop_condition[16];
	int workers_running;

	/* totals (rows_mu) */
	long long n_ops, n_ok, n_fail, n_fault;
	size_t nready;        /* scenarios with >= 2 finished operations */
	double warmup_end;    /* < 0 until known */
	bool cleanup_ok;
	bool is_tty;
	uint64_t last_progress_ns;
};

/* seconds since the run's start, rounded to the millisecond that the
 * bundle prints, so that every derived figure agrees with the rows */
static double ts_now(const struct run *r)
{
	return round((double)(sp_now_ns() - r->t0_ns) / 1e6) / 1e3;
}

static double ns_to_ts(const struct run *r, uint64_t ns)
{
	return (double)(ns - r->t0_ns) / 1e9;
}

/* xorshift64*, seeded through splitmix64: the pick sequence is a function of the seed */
static unsigned long long rng_next(unsigned long long *s)
{
	unsigned long long x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static unsigned long long splitmix(unsigned long long x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

static void set_stop(struct run *r, int level, const char *cond)
{
	pthread_mutex_lock(&r->mu);
	if (!r->stop_condition[0] || level == 2)
		if (!(level < 2 && r->stop >= 2))
			snprintf(r->stop_condition, sizeof r->stop_condition, "%s", cond);
	if (level > r->stop)
		r->stop = level;
	if (level >= 2)
		r->abort_ops = 1;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

/* ---- operations ---- */
static char *join_argv(char **argv)
{
	size_t len = 0;
	for (char **a = argv; *a; a++)
		len += strlen(*a) + 1;
	char *s = sp_xmalloc(len + 1), *p = s;
	for (char **a = argv; *a; a++) {
		size_t l = strlen(*a);
		memcpy(p, *a, l);
		p += l;
		*p++ = ' ';
	}
	if (p > s)
		p--;
	*p = '\0';
	return s;
}

static char **expand_argv(const sp_strv *tmpl, const sp_vars *v)
{
	char **out = sp_xcalloc(tmpl->n + 1, sizeof(char *));
	for (size_t i = 0; i < tmpl->n; i++) {
		out[i] = sp_expand(tmpl->v[i], v);
		if (!out[i]) /* the parser refused unknown placeholders: keep it literal */
			out[i] = sp_xstrdup(tmpl->v[i]);
	}
	return out;
}

static void free_argv(char **argv)
{
	for (char **a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

static void wait_rate_slot(struct run *r)
{
	if (!r->rate_interval_ns)
		return;
	pthread_mutex_lock(&r->mu);
	uint64_t now = sp_now_ns();
	uint64_t slot = r->next_slot_ns > now ? r->next_slot_ns : now;
	r->next_slot_ns = slot + r->rate_interval_ns;
	pthread_mutex_unlock(&r->mu);
	while (!r->stop) {
		now = sp_now_ns();
		if (now >= slot)
			break;
		uint64_t d = slot - now;
		if (d > 100000000ull)
			d = 100000000ull;
		struct timespec ts = {.tv_sec = (time_t)(d / 1000000000ull), .tv_nsec = (long)(d % 1000000000ull)};
		nanosleep(&ts, NULL);
	}
}

enum op_result { OP_OK, OP_FAIL, OP_FAULT };

/* Record a finished operation: operations.tsv, latency.tsv, counters, warm-up. */
static void record_op(struct run *r, struct scen_state *st, const char *op, enum op_result res, uint64_t start_ns,
		      uint64_t end_ns, unsigned long long gen, const char *code)
{
	static const char *const names[] = {"ok", "fail", "expected_fault"};
	double lat_ms = (double)(end_ns - start_ns) / 1e6;
	char ecode[65]; /* at most 64 characters, no spaces */
	snprintf(ecode, sizeof ecode, "%s", code && code[0] ? code : "-");
	for (char *c = ecode; *c; c++)
		if (*c == ' ' || (unsigned char)*c < 0x21)
			*c = '_';
	pthread_mutex_lock(&r->rows_mu);
	double ts = ts_now(r);
	fprintf(r->ops, "%.3f\t%s\t%s\t%s\t%.3f\t%s\t%llu\t%s\n", ts, st->sc->id, st->sc->api, op, lat_ms, names[res], gen,
		res == OP_OK ? "-" : ecode);
	st->attempted++;
	st->finished++;
	r->n_ops++;
	if (res == OP_OK) {
		st->ok++;
		r->n_ok++;
	} else if (res == OP_FAIL) {
		st->fail++;
		r->n_fail++;
	} else {
		st->expected_fault++;
		r->n_fault++;
	}
	if (st->finished == 2) {
		r->nready++;
		if (r->nready == r->w.nscen && r->warmup_end < 0)
			r->warmup_end = ts > (double)r->warmup_s ? ts : (double)r->warmup_s;
	}
	if (res == OP_OK) {
		int warm = r->warmup_end < 0 || ts < r->warmup_end;
		fprintf(r->lat, "%.3f\t%s\t%s\t%.3f\t%d\n", ts, st->sc->id, op, lat_ms, warm);
	}
	pthread_mutex_unlock(&r->rows_mu);
}

static void vars_for(struct run *r, struct scen_state *st, unsigned long long gen, sp_vars *v, char *idbuf, size_t idsz,
		     char *genbuf, size_t gensz)
{
	*v = r->gvars;
	snprintf(genbuf, gensz, "%llu", gen);
	snprintf(idbuf, idsz, "%s-%llu", st->sid, gen);
	v->id = idbuf;
	v->sid = st->sid;
	v->gen = genbuf;
	v->scenario = st->sc->id;
}

/* Run one step as an operation. interrupt_ms >= 0: planned interruption
 * (F01/F07). Returns the result; *res_out gets the process result. */
static enum op_result run_step(struct run *r, struct scen_state *st, const sp_wstep *step, unsigned long long gen,
			       int interrupt_ms, int interrupt_sig, sp_proc_result *res_out)
{
	char idbuf[96], genbuf[32], code[64];
	sp_vars v;
	sp_error err = {0};
	vars_for(r, st, gen, &v, idbuf, sizeof idbuf, genbuf, sizeof genbuf);
	char **argv = expand_argv(&step->argv, &v);
	sp_capture *cap = sp_xcalloc(1, sizeof *cap);
	sp_proc_result res;
	sp_run_opts ro = {.timeout_ms = step->timeout_ms, .interrupt_ms = interrupt_ms, .interrupt_sig = interrupt_sig,
			  .envp = r->envp, .abort_flag = &r->abort_ops};
	wait_rate_slot(r);
	if (sp_proc_run(argv, &ro, cap, &res, &err) < 0) {
		memset(&res, 0, sizeof res);
		res.spawn_errno = err.errnum ? err.errnum : EIO;
		res.start_ns = res.end_ns = sp_now_ns();
	}
	enum op_result out;
	sp_proc_describe(&res, code, sizeof code);
	if (res.interrupted && !res.interrupt_missed)
		out = OP_FAULT;
	else if (step->expect_fail)
		out = (!res.spawn_errno && !res.timed_out && WIFEXITED(res.status) && WEXITSTATUS(res.status) != 0) ? OP_OK
														       : OP_FAIL;
	else
		out = sp_proc_ok(&res) ? OP_OK : OP_FAIL;
	if (step->expect_fail && out == OP_FAIL && sp_proc_ok(&res))
		snprintf(code, sizeof code, "unexpected-success");
	record_op(r, st, step->op, out, res.start_ns, res.end_ns, gen, code);

	size_t tlen = 0;
	char *text = sp_capture_text(cap, &tlen);
	char *cmd = join_argv(argv);
	char *hdr = sp_xasprintf("## ts=%.3f gen=%llu op=%s result=%s %s latency_ms=%.3f argv: %s", ns_to_ts(r, res.end_ns),
				 gen, step->op, out == OP_OK ? "ok" : out == OP_FAIL ? "fail" : "expected_fault", code,
				 (double)(res.end_ns - res.start_ns) / 1e6, cmd);
	char logname[160];
	snprintf(logname, sizeof logname, "%s.%s.log", st->sc->id, step->op);
	sp_bundle_log(&r->b, logname, hdr, text, tlen);
	free(hdr);
	free(cmd);
	free(text);
	free(cap);
	free_argv(argv);
	if (res_out)
		*res_out = res;
	if (out == OP_FAIL && step->invariant)
		set_stop(r, 2, "invariant");
	return out;
}

/* run a list of steps; false at the first failure */
static bool run_steps(struct run *r, struct scen_state *st, const sp_wsteps *steps, unsigned long long gen)
{
	for (size_t i = 0; i < steps->n; i++) {
		if (r->abort_ops)
			return false;
		if (run_step(r, st, &steps->v[i], gen, -1, 0, NULL) != OP_OK)
			return false;
	}
	return true;
}

static void record_fault(struct run *r, const sp_wfault *f, const char *target, double started, double ended,
			 long long recovery_ms, bool pass)
{
	char t[256], e[256];
	snprintf(t, sizeof t, "%s", target);
	snprintf(e, sizeof e, "%s", f->expected);
	sp_tsv_clean(t);
	sp_tsv_clean(e);
	pthread_mutex_lock(&r->rows_mu);
	fprintf(r->faults, "%s\t%s\t%s\t%.3f\t%.3f\t%lld\t%d\t%s\n", f->id, t, e, started, ended, recovery_ms, f->rto_ms,
		pass ? "pass" : "fail");
	fflush(r->faults);
	pthread_mutex_unlock(&r->rows_mu);
}

/* After a fault: run the recover steps; pass when all succeed within the RTO. */
static void recover_after_fault(struct run *r, struct scen_state *st, unsigned long long gen, const char *target,
				uint64_t fault_ns, bool injected)
{
	const sp_wfault *f = &st->sc->fault;
	bool ok = run_steps(r, st, &st->sc->recover, gen);
	uint64_t end = sp_now_ns();
	long long rec_ms = (long long)((end - fault_ns) / 1000000ull);
	record_fault(r, f, target, ns_to_ts(r, fault_ns), ns_to_ts(r, end), rec_ms, injected && ok && rec_ms <= f->rto_ms);
}

/* F02/F03: signal the owned process named by the pidfile */
static void inject_pidfile_fault(struct run *r, struct scen_state *st, unsigned long long gen)
{
	const sp_wfault *f = &st->sc->fault;
	char idbuf[96], genbuf[32], target[200], buf[64];
	sp_vars v;
	vars_for(r, st, gen, &v, idbuf, sizeof idbuf, genbuf, sizeof genbuf);
	if (f->after_ms > 0) {
		struct timespec ts = {.tv_sec = f->after_ms / 1000, .tv_nsec = (long)(f->after_ms % 1000) * 1000000L};
		nanosleep(&ts, NULL);
	}
	char *pidfile = sp_expand(f->pidfile, &v);
	uint64_t t = sp_now_ns();
	long pid = -1;
	const char *why = NULL;
	if (!pidfile || sp_read_file(pidfile, buf, sizeof buf) <= 0) {
		why = "pidfile-unreadable";
	} else {
		char *end;
		pid = strtol(buf, &end, 10);
		if (end == buf || pid <= 1 || pid == getpid())
			why = "pidfile-invalid";
	}
	snprintf(target, sizeof target, "pid:%ld(%s)", pid, pidfile ? pidfile : "?");
	int own = 0;
	if (!why) {
		int pfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
		if (pfd < 0) {
			why = "target-gone";
		} else {
			/* ownership proven after the pidfd pins the process, before the signal */
			own = sp_sampler_owner(r->sampler, (pid_t)pid);
			if (!(own & (SP_OWN_TREE | SP_OWN_ENV | SP_OWN_CGROUP)))
				why = "target-not-owned";
			else if (syscall(SYS_pidfd_send_signal, pfd, f->signal, NULL, 0) < 0)
				why = "signal-failed";
			close(pfd);
		}
	}
	t = sp_now_ns();
	record_op(r, st, f->id, why ? OP_FAIL : OP_FAULT, t, t, gen, why ? why : sigabbrev_np(f->signal));
	if (why && !strcmp(why, "target-not-owned")) {
		/* the workload pointed a fault outside the run: a safety invariant */
		fprintf(stderr, "sandprobe: soak: fault %s target %s is not owned by the run; stopping\n", f->id, target);
		set_stop(r, 2, "invariant");
	}
	free(pidfile);
	recover_after_fault(r, st, gen, target, t, why == NULL);
}

static void run_cycle(struct run *r, struct scen_state *st, unsigned long long gen)
{
	const sp_scenario *sc = st->sc;
	const sp_wfault *f = sc->fault.present ? &sc->fault : NULL;
	for (size_t i = 0; i < sc->steps.n; i++) {
		const sp_wstep *step = &sc->steps.v[i];
		if (r->abort_ops)
			return;
		bool here = f && !strcmp(step->op, f->step);
		if (here && (!strcmp(f->id, "F01") || !strcmp(f->id, "F07"))) {
			sp_proc_result res;
			char target[160];
			snprintf(target, sizeof target, "%s:%s(client)", sc->id, step->op);
			enum op_result o = run_step(r, st, step, gen, f->after_ms, f->signal, &res);
			if (o == OP_FAULT) {
				recover_after_fault(r, st, gen, target, res.interrupt_ns, true);
			} else {
				/* finished (or failed) before the planned interruption: not injected */
				recover_after_fault(r, st, gen, target, res.end_ns, false);
			}
			return;
		}
		enum op_result o = run_step(r, st, step, gen, -1, 0, NULL);
		if (o != OP_OK) {
			if (!r->abort_ops)
				run_steps(r, st, &sc->recover, gen);
			return;
		}
		if (here) { /* F02 / F03 after this step */
			inject_pidfile_fault(r, st, gen);
			return;
		}
	}
}

/* ---- scheduler ---- */
static struct scen_state *pick(struct run *r)
{
	size_t n = r->w.nscen;
	pthread_mutex_lock(&r->mu);
	struct scen_state *st = NULL;
	for (;;) {
		if (r->stop)
			break;
		size_t want;
		if (r->next_r0 < n) {
			want = r->next_r0; /* R0, and the coverage pass that opens every run */
		} else if (r->r0) {
			break;
		} else {
			int weights[SP_CLASS_COUNT] = {0}, total = 0;
			size_t per[SP_CLASS_COUNT] = {0};
			for (size_t i = 0; i < n; i++)
				per[r->ss[i].sc->cls]++;
			for (int c = 0; c < SP_CLASS_COUNT; c++)
				if (per[c])
					total += weights[c] = r->w.mix[c];
			if (total == 0)
				for (int c = 0; c < SP_CLASS_COUNT; c++)
					if (per[c])
						total += weights[c] = 1;
			long long x = (long long)(rng_next(&r->rng) % (unsigned long long)total);
			int cls = 0;
			while (x >= weights[cls])
				x -= weights[cls++];
			size_t k = (size_t)(rng_next(&r->rng) % per[cls]);
			for (want = 0; want < n; want++)
				if (r->ss[want].sc->cls == (sp_class)cls && k-- == 0)
					break;
		}
		struct scen_state *cand = &r->ss[want];
		/* a scenario that is not parallel waits for its previous cycle */
		while (cand->busy && !cand->sc->parallel && !r->stop)
			pthread_cond_wait(&r->cv, &r->mu);
		if (r->stop)
			break;
		if (r->next_r0 < n)
			r->next_r0++;
		cand->busy++;
		st = cand;
		break;
	}
	pthread_mutex_unlock(&r->mu);
	return st;
}

static void kick_sampler(struct run *r)
{
	uint64_t one = 1;
	if (write(r->sampler_kick, &one, sizeof one) < 0) {
		/* the eventfd counter cannot overflow here; nothing to do */
	}
}

static void *worker(void *arg)
{
	struct run *r = arg;
	for (;;) {
		struct scen_state *st = pick(r);
		if (!st)
			break;
		unsigned long long gen;
		bool need_start;
		pthread_mutex_lock(&r->mu);
		gen = ++st->gen;
		need_start = !st->start_attempted;
		st->start_attempted = true;
		r->class_cycles[st->sc->cls]++;
		st->cycles++;
		pthread_mutex_unlock(&r->mu);
		if (need_start) {
			bool ok = run_steps(r, st, &st->sc->start, 0);
			pthread_mutex_lock(&r->mu);
			st->started = true; /* its stop steps run at drain, even after a failed start */
			pthread_mutex_unlock(&r->mu);
			if (!ok && !r->abort_ops)
				run_steps(r, st, &st->sc->recover, 0);
		}
		run_cycle(r, st, gen);
		pthread_mutex_lock(&r->mu);
		st->busy--;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
		if (r->r0)
			kick_sampler(r); /* R0: a sample at every phase */
	}
	pthread_mutex_lock(&r->mu);
	r->workers_running--;
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

/* ---- sampling ---- */
static long long counter_value(struct run *r, const sp_counter *c)
{
	if (c->dir) {
		char *d = sp_expand(c->dir, &r->gvars);
		long long n = d ? sp_count_dir(d) : -1;
		free(d);
		return n;
	}
	char **argv = expand_argv(&c->argv, &r->gvars);
	sp_capture *cap = sp_xcalloc(1, sizeof *cap);
	sp_proc_result res;
	sp_error err = {0};
	sp_run_opts ro = {.timeout_ms = 10000, .interrupt_ms = -1, .envp = r->envp, .stderr_null = true};
	long long v = -1;
	if (sp_proc_run(argv, &ro, cap, &res, &err) == 0 && sp_proc_ok(&res)) {
		char *text = sp_capture_text(cap, NULL), *end;
		long long x = strtoll(text, &end, 10);
		if (end != text && x >= 0)
			v = x;
		free(text);
	}
	free(cap);
	free_argv(argv);
	return v;
}

static void write_metrics(struct run *r, const sp_sample *s)
{
	const char *path = r->o->metrics_file;
	if (!path)
		return;
	char *tmp = sp_xasprintf("%s.tmp", path);
	FILE *f = fopen(tmp, "we");
	if (!f) {
		free(tmp);
		return;
	}
	const struct {
		const char *name, *help;
		double v;
	} m[] = {
		{"owned_processes", "processes owned by the run", (double)s->owned_processes},
		{"owned_threads", "threads of owned processes", (double)s->owned_threads},
		{"owned_rss_bytes", "resident memory of owned processes", (double)s->owned_rss_bytes},
		{"owned_cpu_seconds", "CPU time of live owned processes", s->owned_cpu_seconds},
		{"owned_fds", "open file descriptors of owned processes", (double)s->owned_fds},
		{"owned_mounts", "mounts under the state root", (double)s->owned_mounts},
		{"owned_sockets", "sockets held by owned processes", (double)s->owned_sockets},
		{"owned_cgroups", "cgroups carrying the run prefix", (double)s->owned_cgroups},
		{"disk_bytes", "disk bytes of the state root", (double)s->disk_bytes},
		{"global_processes", "processes on the host", (double)s->global_processes},
		{"global_mounts", "mounts in the runner's namespace", (double)s->global_mounts},
		{"runner_rss_bytes", "resident memory of the runner", (double)s->runner_rss_bytes},
		{"runner_fds", "open file descriptors of the runner", (double)s->runner_fds},
		{"operations_total", "finished operations", (double)r->n_ops},
		{"operations_failed_total", "unexpected operation failures", (double)r->n_fail},
		{"sample_timestamp_seconds", "seconds since the run started", s->ts},
	};
	for (size_t i = 0; i < SP_ARRAY_SIZE(m); i++)
		fprintf(f, "# HELP sandprobe_soak_%s %s\n# TYPE sandprobe_soak_%s gauge\nsandprobe_soak_%s{run_id=\"%s\"} %.17g\n",
			m[i].name, m[i].help, m[i].name, m[i].name, r->run_id, m[i].v);
	for (size_t i = 0; i < s->nextra; i++)
		fprintf(f, "sandprobe_soak_extra{run_id=\"%s\",counter=\"%s\"} %lld\n", r->run_id, r->w.counters[i].name,
			s->extra[i]);
	bool ok = fflush(f) == 0 && !ferror(f);
	fclose(f);
	if (!ok || rename(tmp, path) < 0)
		unlink(tmp);
	free(tmp);
}

static void progress(struct run *r, bool force);

static void take_sample(struct run *r, const char *phase)
{
	sp_sample s = {0};
	for (size_t i = 0; i < r->w.ncounters && i < SP_MAX_COUNTERS; i++)
		s.extra[s.nextra++] = counter_value(r, &r->w.counters[i]);
	sp_sampler_take(r->sampler, &s);
	snprintf(s.phase, sizeof s.phase, "%s", phase);
	sp_utc_now(s.wall, sizeof s.wall);
	pthread_mutex_lock(&r->rows_mu);
	s.ts = ts_now(r);
	/* keep timestamps strictly increasing even at millisecond resolution */
	if (r->sample_count && s.ts < r->last_ts + 0.001)
		s.ts = round((r->last_ts + 0.001) * 1e3) / 1e3;
	fprintf(r->samples, "%.3f\t%s\t%s\t%lld\t%lld\t%lld\t%.3f\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld", s.ts,
		s.wall, s.phase, s.owned_processes, s.owned_threads, s.owned_rss_bytes, s.owned_cpu_seconds, s.owned_fds,
		s.owned_mounts, s.owned_sockets, s.owned_cgroups, s.disk_bytes, s.global_processes, s.global_mounts,
		s.runner_rss_bytes, s.runner_fds);
	for (size_t i = 0; i < s.nextra; i++)
		fprintf(r->samples, "\t%lld", s.extra[i]);
	fputc('\n', r->samples);
	fflush(r->samples);
	fflush(r->ops);
	fflush(r->lat);
	if (r->sample_count == 0) {
		r->first_ts = s.ts;
	} else {
		double gap = s.ts - r->last_ts;
		if (gap > r->max_gap)
			r->max_gap = gap;
	}
	r->last_ts = s.ts;
	r->sample_count++;
	if (!strcmp(phase, "periodic"))
		r->periodic_count++;
	r->last = s;
	pthread_mutex_unlock(&r->rows_mu);
	write_metrics(r, &s);
	sp_error err = {0};
	sp_bundle_flush_logs(&r->b, &err);
	if (!r->is_tty && !r->o->quiet)
		progress(r, true);
}

static void *sampler_main(void *arg)
{
	struct run *r = arg;
	for (;;) {
		struct pollfd pf[3] = {{.fd = r->sampler_timer, .events = POLLIN},
				       {.fd = r->sampler_kick, .events = POLLIN},
				       {.fd = r->sampler_quit, .events = POLLIN}};
		if (poll(pf, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[2].revents & POLLIN)
			break;
		uint64_t n;
		bool due = false;
		if ((pf[0].revents & POLLIN) && read(r->sampler_timer, &n, sizeof n) == sizeof n)
			due = true;
		if ((pf[1].revents & POLLIN) && read(r->sampler_kick, &n, sizeof n) == sizeof n)
			due = true;
		if (due)
			take_sample(r, "periodic");
	}
	return NULL;
}

/* The runner is a child subreaper: orphans of runtimes (container inits,
 * killed conmons' children) become its children. They are reaped here all
 * the time, so that a runtime waiting for a pid to vanish is not held up
 * by a zombie of ours while the main thread runs cleanup steps. */
static void *reaper_main(void *arg)
{
	struct run *r = arg;
	for (;;) {
		struct pollfd pf = {.fd = r->reaper_quit, .events = POLLIN};
		if (poll(&pf, 1, 50) > 0 && (pf.revents & POLLIN))
			break;
		sp_proc_reap_orphans();
	}
	return NULL;
}

static void progress(struct run *r, bool force)
{
	uint64_t now = sp_now_ns();
	if (!force && now - r->last_progress_ns < 500000000ull)
		return;
	r->last_progress_ns = now;
	double el = ts_now(r);
	char dur[32];
	if (r->r0)
		snprintf(dur, sizeof dur, "R0");
	else
		snprintf(dur, sizeof dur, "%llds", r->duration_s);
	pthread_mutex_lock(&r->rows_mu);
	long long ops = r->n_ops, fail = r->n_fail, fault = r->n_fault, procs = r->last.owned_processes,
		  fds = r->last.owned_fds, mounts = r->last.owned_mounts, samples = r->sample_count;
	double rss = (double)r->last.owned_rss_bytes / 1048576.0;
	pthread_mutex_unlock(&r->rows_mu);
	if (r->is_tty)
		fprintf(stderr, "\r\033[Ksoak %.1fs/%s  ops %lld  fail %lld  faults %lld  samples %lld  owned: procs %lld rss %.1fMiB fds %lld mounts %lld",
			el, dur, ops, fail, fault, samples, procs, rss, fds, mounts);
	else
		fprintf(stderr, "soak: t=%.1fs/%s ops=%lld fail=%lld faults=%lld samples=%lld owned_procs=%lld owned_rss_mib=%.1f owned_fds=%lld owned_mounts=%lld\n",
			el, dur, ops, fail, fault, samples, procs, rss, fds, mounts);
}

/* ---- setup, inventory, metadata ---- */

/* run global steps (setup/cleanup/teardown) with logs/<section>.<op>.log; true when all succeeded */
static bool run_global_steps(struct run *r, const sp_wsteps *steps, const char *section)
{
	bool all = true;
	for (size_t i = 0; i < steps->n; i++) {
		const sp_wstep *s = &steps->v[i];
		char **argv = expand_argv(&s->argv, &r->gvars);
		sp_capture *cap = sp_xcalloc(1, sizeof *cap);
		sp_proc_result res;
		sp_error err = {0};
		sp_run_opts ro = {.timeout_ms = s->timeout_ms, .interrupt_ms = -1, .envp = r->envp};
		char code[64] = "internal";
		bool ok = false;
		if (sp_proc_run(argv, &ro, cap, &res, &err) == 0) {
			sp_proc_describe(&res, code, sizeof code);
			ok = s->expect_fail ? (!res.spawn_errno && !res.timed_out && !sp_proc_ok(&res)) : sp_proc_ok(&res);
		}
		size_t tlen;
		char *text = sp_capture_text(cap, &tlen), *cmd = join_argv(argv);
		char *hdr = sp_xasprintf("## ts=%.3f %s op=%s result=%s %s argv: %s", ts_now(r), section, s->op,
					 ok ? "ok" : "fail", code, cmd);
		char name[160];
		snprintf(name, sizeof name, "%s.%s.log", section, s->op);
		sp_bundle_log(&r->b, name, hdr, text, tlen);
		if (!ok && !r->o->quiet)
			fprintf(stderr, "sandprobe: soak: %s step '%s' failed (%s); see logs/%s\n", section, s->op, code, name);
		free(hdr);
		free(cmd);
		free(text);
		free(cap);
		free_argv(argv);
		if (!ok)
			all = false;
	}
	return all;
}

static int cmp_res(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	int c = strcmp(json_string_value(json_object_get(x, "type")), json_string_value(json_object_get(y, "type")));
	return c ? c : strcmp(json_string_value(json_object_get(x, "id")), json_string_value(json_object_get(y, "id")));
}

/* built-in inventory when the workload declares none: mounts under the state
 * root and owned processes (pid and name) */
static json_t *builtin_inventory(struct run *r)
{
	json_t *arr = json_array();
	size_t nm = 0, np = 0;
	char **mounts = sp_sampler_owned_mounts(r->sampler, &nm);
	for (size_t i = 0; i < nm; i++) {
		json_array_append_new(arr, json_pack("{s:s,s:s}", "type", "mount", "id", mounts[i]));
		free(mounts[i]);
	}
	free(mounts);
	pid_t *pids = sp_sampler_signalable(r->sampler, &np);
	for (size_t i = 0; i < np; i++) {
		char path[64], comm[64] = "?";
		snprintf(path, sizeof path, "/proc/%d/comm", (int)pids[i]);
		if (sp_read_file(path, comm, sizeof comm) > 0)
			comm[strcspn(comm, "\n")] = '\0';
		char *id = sp_xasprintf("%d:%s", (int)pids[i], comm);
		json_array_append_new(arr, json_pack("{s:s,s:s}", "type", "process", "id", id));
		free(id);
	}
	free(pids);
	return arr;
}

static int write_inventory(struct run *r, const char *file, sp_error *err)
{
	json_t *res = NULL;
	if (r->w.inventory.n) {
		char **argv = expand_argv(&r->w.inventory, &r->gvars);
		sp_capture *cap = sp_xcalloc(1, sizeof *cap);
		sp_proc_result pr;
		sp_run_opts ro = {.timeout_ms = r->w.timeout_ms, .interrupt_ms = -1, .envp = r->envp, .stderr_null = true};
		int rc = sp_proc_run(argv, &ro, cap, &pr, err);
		char *text = sp_capture_text(cap, NULL), *cmd = join_argv(argv);
		char code[64] = "internal";
		if (rc == 0)
			sp_proc_describe(&pr, code, sizeof code);
		char *hdr = sp_xasprintf("## ts=%.3f inventory for %s %s argv: %s", ts_now(r), file, code, cmd);
		sp_bundle_log(&r->b, "inventory.log", hdr, text, strlen(text));
		free(hdr);
		free(cmd);
		free_argv(argv);
		free(cap);
		if (rc < 0) {
			free(text);
			return -1;
		}
		json_error_t je;
		json_t *doc = sp_proc_ok(&pr) ? json_loads(text, 0, &je) : NULL;
		free(text);
		json_t *arr = doc ? json_object_get(doc, "resources") : NULL;
		const char *schema = doc ? json_string_value(json_object_get(doc, "schema")) : NULL;
		if (!doc || !json_is_array(arr) || !schema || strcmp(schema, "sandprobe.inventory.v1")) {
			json_decref(doc);
			return sp_fail_errno(err, 0, "inventory command (%s) did not print a sandprobe.inventory.v1 document; see logs/inventory.log", code);
		}
		res = json_array();
		size_t i;
		json_t *it;
		json_array_foreach(arr, i, it) {
			const char *t = json_string_value(json_object_get(it, "type"));
			const char *id = json_string_value(json_object_get(it, "id"));
			if (!t || !id || !t[0] || !id[0]) {
				json_decref(doc);
				json_decref(res);
				return sp_fail_errno(err, 0, "inventory: resource %zu lacks a string type or id", i);
			}
			json_array_append_new(res, json_pack("{s:s,s:s}", "type", t, "id", id));
		}
		json_decref(doc);
	} else {
		res = builtin_inventory(r);
	}
	/* sorted by (type, id) so that start and final compare line by line too */
	size_t n = json_array_size(res);
	json_t **v = sp_xcalloc(n ? n : 1, sizeof(json_t *));
	for (size_t i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(res, i));
	if (n)
		qsort(v, n, sizeof *v, cmp_res);
	json_t *sorted = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(sorted, v[i]);
	free(v);
	json_decref(res);
	json_t *doc = json_pack("{s:s,s:o}", "schema", "sandprobe.inventory.v1", "resources", sorted);
	char *s = json_dumps(doc, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(doc);
	char *line = sp_xasprintf("%s\n", s);
	free(s);
	int rc = sp_bundle_write(&r->b, file, line, strlen(line), err);
	free(line);
	return rc;
}

/* digest of a rootfs tree: sorted relative paths with type, mode, and the
 * SHA-256 of file contents or the symlink target */
struct rfs_ent {
	char *path;
	char kind;
	unsigned mode;
	char h[65];
};
static struct rfs_ent *rfs_v;
static size_t rfs_n, rfs_base;
static pthread_mutex_t rfs_mu = PTHREAD_MUTEX_INITIALIZER;

static int rfs_cb(const char *fpath, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)ftw;
	rfs_v = sp_xrealloc(rfs_v, (rfs_n + 1) * sizeof *rfs_v);
	struct rfs_ent *e = &rfs_v[rfs_n++];
	memset(e, 0, sizeof *e);
	e->path = sp_xstrdup(fpath[rfs_base] ? fpath + rfs_base : "/");
	e->mode = (unsigned)(sb->st_mode & 07777);
	e->kind = flag == FTW_D || flag == FTW_DP ? 'd' : flag == FTW_SL || flag == FTW_SLN ? 'l' : S_ISREG(sb->st_mode) ? 'f' : 'o';
	if (e->kind == 'f') {
		if (sp_ev_sha256_file_hex(fpath, e->h) < 0)
			snprintf(e->h, sizeof e->h, "unreadable");
	} else if (e->kind == 'l') {
		char t[4096];
		ssize_t l = readlink(fpath, t, sizeof t - 1);
		t[l > 0 ? l : 0] = '\0';
		snprintf(e->h, sizeof e->h, "%.64s", t);
	}
	return 0;
}

static int cmp_rfs(const void *a, const void *b)
{
	return strcmp(((const struct rfs_ent *)a)->path, ((const struct rfs_ent *)b)->path);
}

static void rootfs_digest(const char *dir, char *out, size_t size)
{
	struct stat st;
	if (!dir || stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(out, size, "none");
		return;
	}
	pthread_mutex_lock(&rfs_mu);
	rfs_v = NULL;
	rfs_n = 0;
	rfs_base = strlen(dir);
	nftw(dir, rfs_cb, 32, FTW_PHYS | FTW_MOUNT);
	if (rfs_n)
		qsort(rfs_v, rfs_n, sizeof *rfs_v, cmp_rfs);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	for (size_t i = 0; i < rfs_n; i++) {
		char line[8300];
		int l = snprintf(line, sizeof line, "%s\t%c\t%o\t%s\n", rfs_v[i].path, rfs_v[i].kind, rfs_v[i].mode, rfs_v[i].h);
		EVP_DigestUpdate(ctx, line, (size_t)(l < (int)sizeof line ? l : (int)sizeof line - 1));
		free(rfs_v[i].path);
	}
	unsigned char md[32];
	unsigned int ml = 0;
	EVP_DigestFinal_ex(ctx, md, &ml);
	EVP_MD_CTX_free(ctx);
	free(rfs_v);
	rfs_v = NULL;
	pthread_mutex_unlock(&rfs_mu);
	int n = snprintf(out, size, "sha256:");
	for (int i = 0; i < 32 && (size_t)n + 3 <= size; i++)
		n += snprintf(out + n, size - (size_t)n, "%02x", md[i]);
}

static char *runtime_version(struct run *r)
{
	char **argv = expand_argv(&r->w.version_argv, &r->gvars);
	sp_capture *cap = sp_xcalloc(1, sizeof *cap);
	sp_proc_result res;
	sp_error err = {0};
	sp_run_opts ro = {.timeout_ms = 30000, .interrupt_ms = -1, .envp = r->envp};
	char *v = NULL;
	if (sp_proc_run(argv, &ro, cap, &res, &err) == 0 && sp_proc_ok(&res)) {
		char *text = sp_capture_text(cap, NULL);
		text[strcspn(text, "\n")] = '\0';
		sp_tsv_clean(text);
		if (text[0])
			v = sp_xstrdup(sp_trim(text));
		free(text);
	}
	free(cap);
	free_argv(argv);
	return v ? v : sp_xstrdup("unknown");
}

static void meta_add(char **buf, size_t *len, size_t *cap, const char *key, const char *fmt, ...) SP_PRINTF(5, 6);
static void meta_add(char **buf, size_t *len, size_t *cap, const char *key, const char *fmt, ...)
{
	char val[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(val, sizeof val, fmt, ap);
	va_end(ap);
	sp_tsv_clean(val);
	size_t need = strlen(key) + strlen(val) + 3;
	if (*len + need > *cap) {
		*cap = (*len + need) * 2;
		*buf = sp_xrealloc(*buf, *cap);
	}
	*len += (size_t)snprintf(*buf + *len, *cap - *len, "%s=%s\n", key, val);
}

static int write_metadata(struct run *r, sp_error *err)
{
	char *m = NULL;
	size_t len = 0, cap = 0;
	struct utsname u;
	uname(&u);
	char started[32];
	sp_utc_now(started, sizeof started);
	char *scen = NULL, *faults = NULL, *mix = NULL;
	size_t sl = 0, fl = 0;
	for (size_t i = 0; i < r->w.nscen; i++) {
		scen = sp_xrealloc(scen, sl + strlen(r->w.scen[i].id) + 2);
		sl += (size_t)snprintf(scen + sl, strlen(r->w.scen[i].id) + 2, "%s%s", i ? "," : "", r->w.scen[i].id);
		const sp_wfault *f = &r->w.scen[i].fault;
		if (f->present && !(faults && strstr(faults, f->id))) {
			faults = sp_xrealloc(faults, fl + 5);
			fl += (size_t)snprintf(faults + fl, 5, "%s%s", fl ? "," : "", f->id);
		}
	}
	mix = sp_xasprintf("lifecycle:%d,service:%d,storage:%d,network:%d,fault:%d", r->w.mix[0], r->w.mix[1], r->w.mix[2],
			   r->w.mix[3], r->w.mix[4]);
	char *rv = runtime_version(r);
	char digest[80];
	rootfs_digest(r->rootfs, digest, sizeof digest);
	struct sysinfo si;
	sysinfo(&si);
	meta_add(&m, &len, &cap, "schema", "sandprobe.evidence.v1");
	meta_add(&m, &len, &cap, "run_id", "%s", r->run_id);
	meta_add(&m, &len, &cap, "profile", "%s", r->profile);
	meta_add(&m, &len, &cap, "base_profile", "%s", r->base->name);
	meta_add(&m, &len, &cap, "scenarios", "%s", scen);
	meta_add(&m, &len, &cap, "tool_version", "%s", SP_VERSION);
	meta_add(&m, &len, &cap, "tool_commit", "%s", SP_COMMIT);
	meta_add(&m, &len, &cap, "dirty", "%d", sp_endswith(SP_VERSION, "-dirty") ? 1 : 0);
	meta_add(&m, &len, &cap, "host_kernel", "%s", u.release);
	meta_add(&m, &len, &cap, "host_arch", "%s", u.machine);
	meta_add(&m, &len, &cap, "host_cpus", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	meta_add(&m, &len, &cap, "host_memory_bytes", "%llu", (unsigned long long)si.totalram * si.mem_unit);
	meta_add(&m, &len, &cap, "runtime", "%s", r->w.runtime);
	meta_add(&m, &len, &cap, "runtime_version", "%s", rv);
	meta_add(&m, &len, &cap, "rootfs_digest", "%s", digest);
	meta_add(&m, &len, &cap, "started_at", "%s", started);
	meta_add(&m, &len, &cap, "seed", "%llu", r->seed);
	meta_add(&m, &len, &cap, "workload_sha256", "%s", r->w.sha256);
	meta_add(&m, &len, &cap, "concurrency", "%d", r->concurrency);
	meta_add(&m, &len, &cap, "faults", "%s", faults ? faults : "none");
	meta_add(&m, &len, &cap, "duration_s", "%lld", r->duration_s);
	meta_add(&m, &len, &cap, "sample_interval_s", "%lld", r->interval_s);
	meta_add(&m, &len, &cap, "warmup_s", "%lld", r->warmup_s);
	meta_add(&m, &len, &cap, "threshold.min_span_s", "%lld", r->min_span_s);
	meta_add(&m, &len, &cap, "threshold.max_interval_s", "%lld", r->max_interval_s);
	meta_add(&m, &len, &cap, "threshold.min_periodic_samples", "%lld", r->min_periodic);
	meta_add(&m, &len, &cap, "threshold.max_gap_s", "%lld", r->max_gap_s);
	meta_add(&m, &len, &cap, "threshold.min_success_ratio", "%s", r->min_success);
	{
		char slope[64]; /* a plain decimal, never an exponent */
		snprintf(slope, sizeof slope, "%.3f", r->rss_slope);
		char *e = slope + strlen(slope) - 1;
		while (*e == '0')
			*e-- = '\0';
		if (*e == '.')
			*e = '\0';
		meta_add(&m, &len, &cap, "threshold.rss_slope_mib_per_day", "%s", slope);
	}
	meta_add(&m, &len, &cap, "threshold.fd_growth_max", "%lld", r->w.fd_growth_max);
	meta_add(&m, &len, &cap, "threshold.p95_regression_pct", "%.10g", r->w.p95_regression_pct);
	meta_add(&m, &len, &cap, "threshold.disk_budget_bytes", "%lld", r->w.disk_budget_bytes);
	meta_add(&m, &len, &cap, "workload_name", "%s", r->w.name);
	meta_add(&m, &len, &cap, "workload_file", "%s", r->w.path);
	meta_add(&m, &len, &cap, "state_root", "%s", r->state_dir);
	meta_add(&m, &len, &cap, "prefix", "%s", r->prefix);
	meta_add(&m, &len, &cap, "class_mix", "%s", mix);
	meta_add(&m, &len, &cap, "target_rate_ops_s", "%g", r->w.rate);
	{
		char names[2048] = "none";
		size_t nl = 0;
		for (size_t i = 0; i < r->w.ncounters && nl < sizeof names; i++)
			nl += (size_t)snprintf(names + nl, sizeof names - nl, "%s%s", i ? "," : "", r->w.counters[i].name);
		meta_add(&m, &len, &cap, "extra_counters", "%s", names);
	}
	/* release-gate identity: lane=, artifact.<name>= (src/gate/identity.c) */
	for (size_t i = 0; i < r->o->nextra_meta; i++)
		meta_add(&m, &len, &cap, r->o->extra_meta[i].key, "%s", r->o->extra_meta[i].value);
	int rc = sp_bundle_write(&r->b, "metadata.txt", m, len, err);
	free(m);
	free(scen);
	free(faults);
	free(mix);
	free(rv);
	return rc;
}

/* ---- cleanup of what the run owns ---- */
static int rm_cb(const char *fpath, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(fpath);
	else
		unlink(fpath);
	return 0;
}

/* Kill every process the run provably owns and unmount owned mounts.
 * Returns how many leftovers were found. */
static int sweep(struct run *r)
{
	int found = 0;
	for (int round = 0; round < 5; round++) {
		size_t n = 0;
		pid_t *pids = sp_sampler_signalable(r->sampler, &n);
		int here = 0;
		for (size_t i = 0; i < n; i++) {
			int pfd = (int)syscall(SYS_pidfd_open, pids[i], 0);
			if (pfd < 0)
				continue;
			/* re-prove ownership with the process pinned */
			int own = sp_sampler_owner(r->sampler, pids[i]);
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
		struct timespec ts = {0, 100000000L};
		nanosleep(&ts, NULL);
		sp_proc_reap_orphans();
	}
	size_t nm = 0;
	char **mounts = sp_sampler_owned_mounts(r->sampler, &nm);
	for (size_t i = 0; i < nm; i++) {
		if (umount2(mounts[i], MNT_DETACH) == 0)
			found++;
		free(mounts[i]);
	}
	free(mounts);
	return found;
}

/* ---- the run ---- */
static int open_streams(struct run *r, sp_error *err)
{
	char hdr[2048];
	size_t n = (size_t)snprintf(hdr, sizeof hdr,
				    "ts\twall\tphase\towned_processes\towned_threads\towned_rss_bytes\towned_cpu_seconds\towned_fds\t"
				    "owned_mounts\towned_sockets\towned_cgroups\tdisk_bytes\tglobal_processes\tglobal_mounts\t"
				    "runner_rss_bytes\trunner_fds");
	for (size_t i = 0; i < r->w.ncounters; i++)
		n += (size_t)snprintf(hdr + n, sizeof hdr - n, "\textra.%s", r->w.counters[i].name);
	if (!(r->ops = sp_bundle_open_tsv(&r->b, "operations.tsv",
					  "ts\tscenario\tapi\toperation\tlatency_ms\tresult\tgeneration\terror_code", err)) ||
	    !(r->lat = sp_bundle_open_tsv(&r->b, "latency.tsv", "ts\tscenario\toperation\tlatency_ms\twarmup", err)) ||
	    !(r->samples = sp_bundle_open_tsv(&r->b, "resource-samples.tsv", hdr, err)) ||
	    !(r->faults = sp_bundle_open_tsv(&r->b, "faults.tsv",
					     "fault_id\ttarget\texpected\tstarted\tended\trecovery_ms\trto_ms\tresult", err)))
		return -1;
	return 0;
}

static int write_capabilities(struct run *r, sp_error *err)
{
	size_t cap = 256, len = 0;
	char *s = sp_xmalloc(cap);
	len = (size_t)snprintf(s, cap, "scenario\tattempted\tsucceeded\texpected_faults\tunexpected_failures\tresult\n");
	for (size_t i = 0; i < r->w.nscen; i++) {
		struct scen_state *st = &r->ss[i];
		if (len + 200 > cap) {
			cap = (len + 200) * 2;
			s = sp_xrealloc(s, cap);
		}
		len += (size_t)snprintf(s + len, cap - len, "%s\t%lld\t%lld\t%lld\t%lld\t%s\n", st->sc->id, st->attempted, st->ok,
					st->expected_fault, st->fail, st->attempted > 0 && st->fail == 0 ? "pass" : "fail");
	}
	int rc = sp_bundle_write(&r->b, "capability-results.tsv", s, len, err);
	free(s);
	return rc;
}

static int write_summary(struct run *r, double final_ts, sp_error *err)
{
	double span = r->last_ts - r->first_ts;
	double warm = r->warmup_end >= 0 ? r->warmup_end : final_ts;
	double achieved = final_ts > 0 ? (double)r->n_ops / final_ts : 0;
	json_t *cc = json_object();
	for (int c = 0; c < SP_CLASS_COUNT; c++)
		json_object_set_new(cc, sp_class_name((sp_class)c), json_integer(r->class_cycles[c]));
	json_t *doc = json_pack(
		"{s:s,s:s,s:s,s:I,s:f,s:I,s:I,s:f,s:f,s:f,s:{s:I,s:I,s:I,s:I},s:I,s:s,s:s,s:s,s:f,s:f,s:o}", "schema",
		"sandprobe.summary.v1", "run_id", r->run_id, "profile", r->profile, "requested_duration_s",
		(json_int_t)r->duration_s, "measured_duration_s", round(final_ts * 1000) / 1000, "sample_count",
		(json_int_t)r->sample_count, "periodic_samples", (json_int_t)r->periodic_count, "span_s",
		round(span * 1000) / 1000, "max_gap_s", round(r->max_gap * 1000) / 1000, "warmup_end_s",
		round(warm * 1000) / 1000, "operations", "total", (json_int_t)r->n_ops, "ok", (json_int_t)r->n_ok, "fail",
		(json_int_t)r->n_fail, "expected_fault", (json_int_t)r->n_fault, "unexpected_failures", (json_int_t)r->n_fail,
		"stop_condition", r->stop_condition, "cleanup", r->cleanup_ok ? "ok" : "failed", "evidence_path", r->b.dir,
		"requested_rate_ops_s", r->w.rate, "achieved_rate_ops_s", round(achieved * 1000) / 1000, "class_cycles", cc);
	if (!doc)
		return sp_fail_errno(err, 0, "cannot build summary.json");
	char *s = json_dumps(doc, JSON_INDENT(1) | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(12));
	json_decref(doc);
	char *line = sp_xasprintf("%s\n", s);
	free(s);
	int rc = sp_bundle_write(&r->b, "summary.json", line, strlen(line), err);
	free(line);
	return rc;
}

static int run_verifier(struct run *r)
{
	char *argv[] = {r->exe, (char *)"verify", r->b.dir, NULL};
	sp_capture *cap = sp_xcalloc(1, sizeof *cap);
	sp_proc_result res;
	sp_error err = {0};
	sp_run_opts ro = {.timeout_ms = 600000, .interrupt_ms = -1};
	int code = SP_EXIT_INTERNAL;
	if (sp_proc_run(argv, &ro, cap, &res, &err) == 0) {
		size_t len;
		char *text = sp_capture_text(cap, &len);
		sp_bundle_write(&r->b, "verify.out", text, len, &err);
		if (!r->o->quiet)
			fputs(text, stdout);
		free(text);
		if (!res.spawn_errno && WIFEXITED(res.status))
			code = WEXITSTATUS(res.status);
	}
	free(cap);
	return code;
}

static bool dir_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Validate options against the workload and fix every threshold. */
static int plan(struct run *r, sp_error *err)
{
	const sp_soak_opts *o = r->o;
	r->base = find_profile(o->profile);
	if (!r->base)
		return sp_usage(err, "--profile %s: must be R0, G2, R24 or E72", o->profile);
	snprintf(r->profile, sizeof r->profile, "%s", r->base->name);
	r->r0 = !strcmp(r->base->name, "R0");
	r->duration_s = r->base->duration_s;
	r->interval_s = o->sample_interval_s > 0 ? o->sample_interval_s : r->base->default_interval_s;
	bool custom = false;
	if (o->duration_s >= 0) {
		if (o->duration_s < 1)
			return sp_usage(err, "--duration must be at least 1 second");
		if (r->r0 || o->duration_s < r->base->duration_s) {
			custom = true;
			r->r0 = false;
		} else if (o->duration_s > r->base->duration_s) {
			r->duration_s = o->duration_s; /* longer than the profile still meets it */
		}
		if (custom)
			r->duration_s = o->duration_s;
	}
	if (o->sample_interval_s >= 0 && o->sample_interval_s < 1)
		return sp_usage(err, "--sample-interval must be at least 1 second");
	if (!custom && !r->r0 && r->interval_s > r->base->max_interval_s)
		return sp_usage(err, "--sample-interval %lld: profile %s needs a sample at least every %lld s", r->interval_s,
				r->base->name, r->base->max_interval_s);
	r->min_success = r->base->min_success;
	if (custom) {
		snprintf(r->profile, sizeof r->profile, "custom");
		if (r->interval_s > r->duration_s)
			return sp_usage(err, "--sample-interval %lld is longer than --duration %lld", r->interval_s, r->duration_s);
		/* the named profiles' relations, scaled to the shorter run */
		r->min_span_s = r->duration_s;
		r->max_interval_s = 2 * r->interval_s;
		r->max_gap_s = 4 * r->interval_s;
		r->min_periodic = r->duration_s / r->max_interval_s;
		long long pd = r->base->duration_s ? r->base->duration_s : 7200;
		r->warmup_s = 900 * r->duration_s / pd;
		/* the same absolute growth allowed over the shorter run */
		r->rss_slope = r->w.rss_slope_mib_per_day * (double)pd / (double)r->duration_s;
	} else if (r->r0) {
		r->duration_s = 0;
		r->min_span_s = 0;
		r->min_periodic = 0;
		r->max_interval_s = 2 * r->interval_s;
		r->max_gap_s = 4 * r->interval_s;
		r->warmup_s = 0;
	} else {
		r->min_span_s = r->base->duration_s;
		r->max_interval_s = r->base->max_interval_s;
		r->max_gap_s = r->base->max_gap_s;
		r->min_periodic = r->base->min_periodic;
		r->warmup_s = r->base->warmup_s;
	}
	if (!custom)
		r->rss_slope = r->w.rss_slope_mib_per_day;
	r->concurrency = o->concurrency > 0 ? o->concurrency : r->w.concurrency;
	if (r->concurrency < 1 || r->concurrency > 256)
		return sp_usage(err, "--concurrency must be 1 to 256");
	if (!dir_exists(r->w.state_root))
		return sp_usage(err, "%s: state_root %s is not an existing directory", r->w.path, r->w.state_root);
	if (o->sign_key) {
		char msg[512];
		void *k;
		if (sp_privkey_load(&k, o->sign_key, msg, sizeof msg) < 0)
			return sp_usage(err, "%s", msg);
		r->key = k;
	}
	if (o->metrics_file) {
		char *dup = sp_xstrdup(o->metrics_file);
		char *slash = strrchr(dup, '/');
		const char *dir = slash ? (slash == dup ? "/" : (*slash = '\0', dup)) : ".";
		bool okd = dir_exists(dir);
		free(dup);
		if (!okd)
			return sp_usage(err, "--metrics-file %s: its directory does not exist", o->metrics_file);
	}
	struct stat st;
	if (stat(o->out, &st) == 0 && (!S_ISDIR(st.st_mode) || sp_count_dir(o->out) != 0))
		return sp_usage(err, "--out %s: exists and is not an empty directory", o->out);
	return 0;
}

static void build_env(struct run *r)
{
	size_t n = 0;
	while (environ[n])
		n++;
	r->envp = sp_xcalloc(n + 3, sizeof(char *));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!sp_startswith(environ[i], SP_SOAK_ENV "=") && !sp_startswith(environ[i], "SANDPROBE_SOAK_STATE="))
			r->envp[k++] = sp_xstrdup(environ[i]);
	r->envp[k++] = sp_xasprintf("%s=%s", SP_SOAK_ENV, r->prefix);
	r->envp[k++] = sp_xasprintf("SANDPROBE_SOAK_STATE=%s", r->state_dir);
	r->envp[k] = NULL;
}

int sp_soak_run(const sp_soak_opts *o, sp_error *err)
{
	struct run *r = sp_xcalloc(1, sizeof *r);
	int exit_code = -3; /* -1 usage error, -3 internal error (err filled), else the verifier's code */
	bool bundle_ok = false, state_made = false;
	r->o = o;
	r->warmup_end = -1;
	r->sampler_timer = r->sampler_kick = r->sampler_quit = r->reaper_quit = -1;
	r->b.dirfd = -1;
	pthread_mutex_init(&r->mu, NULL);
	pthread_mutex_init(&r->rows_mu, NULL);
	pthread_cond_init(&r->cv, NULL);

	if (sp_workload_load(&r->w, o->workload, err) < 0) {
		exit_code = -1;
		goto out;
	}
	if (plan(r, err) < 0) {
		exit_code = -1;
		goto out;
	}

	/* identity of the run */
	unsigned char rnd[8];
	if (getrandom(rnd, sizeof rnd, 0) != sizeof rnd) {
		sp_fail_errno(err, errno, "getrandom");
		goto out;
	}
	snprintf(r->short_id, sizeof r->short_id, "%02x%02x%02x%02x", rnd[0], rnd[1], rnd[2], rnd[3]);
	{
		char t[32];
		time_t now = time(NULL);
		struct tm tm;
		gmtime_r(&now, &tm);
		strftime(t, sizeof t, "%Y%m%dT%H%M%SZ", &tm);
		snprintf(r->run_id, sizeof r->run_id, "%s-%s", t, r->short_id);
	}
	snprintf(r->prefix, sizeof r->prefix, "%s-%s", r->w.prefix, r->short_id);
	r->seed = o->seed_set ? o->seed
			      : ((unsigned long long)rnd[4] << 24 | (unsigned long long)rnd[5] << 16 |
				 (unsigned long long)rnd[6] << 8 | rnd[7]);
	r->rng = splitmix(r->seed) | 1;
	r->state_dir = sp_xasprintf("%s%s%s", r->w.state_root, sp_endswith(r->w.state_root, "/") ? "" : "/", r->prefix);
	r->exe = realpath("/proc/self/exe", NULL);
	if (!r->exe)
		r->exe = sp_xstrdup("/proc/self/exe");
	r->gvars = (sp_vars){.state = r->state_dir, .prefix = r->prefix, .run = r->run_id, .exe = r->exe};
	if (r->w.rootfs) {
		r->rootfs = sp_expand(r->w.rootfs, &r->gvars);
		r->gvars.rootfs = r->rootfs;
	}
	r->ss = sp_xcalloc(r->w.nscen, sizeof *r->ss);
	for (size_t i = 0; i < r->w.nscen; i++) {
		r->ss[i].sc = &r->w.scen[i];
		char lid[64];
		size_t k = 0;
		for (const char *c = r->w.scen[i].id; *c && k + 1 < sizeof lid; c++)
			if (*c != '-' && *c != '_' && *c != '.')
				lid[k++] = (char)((*c >= 'A' && *c <= 'Z') ? *c - 'A' + 'a' : *c);
		lid[k] = '\0';
		snprintf(r->ss[i].sid, sizeof r->ss[i].sid, "%s-%s", r->prefix, lid);
	}
	if (r->w.rate > 0)
		r->rate_interval_ns = (uint64_t)(1e9 / r->w.rate);
	r->is_tty = isatty(2) && !o->quiet;
	build_env(r);

	/* from here on things are created */
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	sp_proc_raise_nofile(); /* for the sampler's handles; children keep the original limit */
	r->t0_ns = sp_now_ns();

	if (sp_bundle_create(&r->b, o->out, err) < 0) {
		if (sfd >= 0)
			close(sfd);
		exit_code = -1;
		goto out;
	}
	bundle_ok = true;
	if (mkdir(r->state_dir, 0700) < 0) {
		sp_fail_errno(err, errno, "cannot create the state directory %s", r->state_dir);
		close(sfd);
		goto out;
	}
	state_made = true;
	r->sampler = sp_sampler_new(getpid(), r->prefix, r->state_dir);
	r->reaper_quit = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->reaper_quit >= 0 && pthread_create(&r->reaper_thr, NULL, reaper_main, r) == 0)
		r->reaper_running = true;

	if (!o->quiet)
		fprintf(stderr, "soak: run %s profile %s workload %s (%zu scenarios, concurrency %d, seed %llu) -> %s\n",
			r->run_id, r->profile, r->w.name, r->w.nscen, r->concurrency, r->seed, r->b.dir);

	/* setup; a failed setup ends the run before its first operation */
	if (!run_global_steps(r, &r->w.setup, "setup")) {
		sp_fail_errno(err, 0, "workload setup failed (see %s/logs/)", r->b.dir);
		goto teardown_early;
	}
	if (write_metadata(r, err) < 0 || open_streams(r, err) < 0)
		goto teardown_early;
	sp_proc_reap_orphans();
	if (write_inventory(r, "inventory-start.json", err) < 0)
		goto teardown_early;

	/* start sample, then the sampler's own timer (its fds exist before the
	 * start sample so that the runner's fd count compares like for like) */
	r->sampler_timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	r->sampler_kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	r->sampler_quit = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	int dfd = r->r0 ? -1 : timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	take_sample(r, "start");
	r->start_sample_ns = r->t0_ns + (uint64_t)(r->first_ts * 1e9);
	{
		uint64_t first = r->start_sample_ns + (uint64_t)r->interval_s * 1000000000ull;
		struct itimerspec its = {.it_interval = {.tv_sec = (time_t)r->interval_s},
					 .it_value = {.tv_sec = (time_t)(first / 1000000000ull), .tv_nsec = (long)(first % 1000000000ull)}};
		timerfd_settime(r->sampler_timer, TFD_TIMER_ABSTIME, &its, NULL);
	}
	if (pthread_create(&r->sampler_thr, NULL, sampler_main, r) != 0) {
		sp_fail_errno(err, errno, "cannot start the sampler thread");
		goto teardown_early;
	}
	r->sampler_running = true;

	/* duration timer from the start sample */
	if (dfd >= 0) {
		uint64_t end = r->start_sample_ns + (uint64_t)r->duration_s * 1000000000ull;
		struct itimerspec its = {.it_value = {.tv_sec = (time_t)(end / 1000000000ull), .tv_nsec = (long)(end % 1000000000ull)}};
		timerfd_settime(dfd, TFD_TIMER_ABSTIME, &its, NULL);
	}
	pthread_t *thr = sp_xcalloc((size_t)r->concurrency, sizeof(pthread_t));
	int nthr = 0;
	pthread_mutex_lock(&r->mu);
	for (int i = 0; i < r->concurrency; i++)
		if (pthread_create(&thr[nthr], NULL, worker, r) == 0) {
			nthr++;
			r->workers_running++;
		}
	pthread_mutex_unlock(&r->mu);
	if (nthr == 0)
		set_stop(r, 1, "error");

	/* control loop: signals, duration, R0 completion; reap orphans */
	uint64_t last_flush = sp_now_ns();
	for (;;) {
		pthread_mutex_lock(&r->mu);
		int running = r->workers_running;
		pthread_mutex_unlock(&r->mu);
		if (running == 0)
			break;
		struct pollfd pf[2] = {{.fd = sfd, .events = POLLIN}, {.fd = dfd, .events = POLLIN}};
		poll(pf, 2, 50);
		struct signalfd_siginfo si;
		while (sfd >= 0 && read(sfd, &si, sizeof si) == sizeof si) {
			if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM || si.ssi_signo == SIGHUP) {
				if (r->stop >= 1 && !strcmp(r->stop_condition, "signal")) {
					if (!o->quiet)
						fprintf(stderr, "\nsoak: second signal: interrupting in-flight operations\n");
					set_stop(r, 2, "signal");
				} else {
					if (!o->quiet)
						fprintf(stderr, "\nsoak: %s: stop launching, drain, clean up\n", strsignal((int)si.ssi_signo));
					set_stop(r, 1, "signal");
				}
			}
		}
		uint64_t exp;
		if (dfd >= 0 && read(dfd, &exp, sizeof exp) == sizeof exp)
			set_stop(r, 1, "duration");
		sp_proc_reap_orphans();
		if (sp_now_ns() - last_flush > 1000000000ull) {
			pthread_mutex_lock(&r->rows_mu);
			fflush(r->ops);
			fflush(r->lat);
			pthread_mutex_unlock(&r->rows_mu);
			last_flush = sp_now_ns();
		}
		if (r->is_tty)
			progress(r, false);
	}
	for (int i = 0; i < nthr; i++)
		pthread_join(thr[i], NULL);
	free(thr);
	if (dfd >= 0)
		close(dfd);
	if (!r->stop_condition[0]) /* R0: every scenario completed its cycle */
		snprintf(r->stop_condition, sizeof r->stop_condition, "duration");

	/* drain: scenario stop steps, then the workload's cleanup */
	r->abort_ops = 0;
	bool stops_ok = true;
	for (size_t i = 0; i < r->w.nscen; i++)
		if (r->ss[i].started && r->ss[i].sc->stop.n)
			stops_ok &= run_steps(r, &r->ss[i], &r->ss[i].sc->stop, r->ss[i].gen + 1);
	r->cleanup_ok = run_global_steps(r, &r->w.cleanup, "cleanup") && stops_ok;
	sp_proc_reap_orphans();
	{
		sp_error ierr = {0};
		if (write_inventory(r, "inventory-final.json", &ierr) < 0) {
			fprintf(stderr, "sandprobe: soak: %s\n", ierr.msg);
			r->cleanup_ok = false;
		}
	}

	/* final sample: the sampler stops first so that "final" is the last row */
	{
		uint64_t one = 1;
		if (write(r->sampler_quit, &one, sizeof one) < 0) {
			/* cannot happen with an eventfd we own */
		}
		pthread_join(r->sampler_thr, NULL);
		r->sampler_running = false;
	}
	sp_proc_reap_orphans();
	take_sample(r, "final");
	double final_ts = r->last_ts;

	/* anything owned that survived is a leak: counted above, removed now */
	int leftovers = sweep(r);
	if (leftovers > 0) {
		r->cleanup_ok = false;
		if (!o->quiet)
			fprintf(stderr, "%ssoak: %d owned process(es)/mount(s) survived cleanup; removed\n", r->is_tty ? "\n" : "",
				leftovers);
	}
	run_global_steps(r, &r->w.teardown, "teardown");
	sweep(r);
	nftw(r->state_dir, rm_cb, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	state_made = false;

	/* close the record */
	{
		sp_error werr = {0};
		pthread_mutex_lock(&r->rows_mu);
		int bad = (fflush(r->ops) | fflush(r->lat) | fflush(r->samples) | fflush(r->faults)) != 0;
		fsync(fileno(r->ops));
		fsync(fileno(r->samples));
		pthread_mutex_unlock(&r->rows_mu);
		if (bad || write_capabilities(r, &werr) < 0 || write_summary(r, final_ts, &werr) < 0 ||
		    sp_bundle_flush_logs(&r->b, &werr) < 0 || sp_bundle_manifest(&r->b, r->key, &werr) < 0) {
			*err = werr;
			if (!err->msg[0])
				sp_fail_errno(err, errno, "cannot write the evidence bundle");
			goto out;
		}
	}
	if (r->is_tty)
		fputc('\n', stderr);
	if (!o->quiet)
		fprintf(stderr, "soak: stop=%s ops=%lld ok=%lld fail=%lld expected_fault=%lld samples=%lld cleanup=%s; verifying %s\n",
			r->stop_condition, r->n_ops, r->n_ok, r->n_fail, r->n_fault, r->sample_count,
			r->cleanup_ok ? "ok" : "failed", r->b.dir);
	exit_code = run_verifier(r);
	close(sfd);
	goto out;

teardown_early:
	/* no operation ran: undo the setup, leave an incomplete bundle */
	if (r->sampler_running) {
		uint64_t one = 1;
		if (write(r->sampler_quit, &one, sizeof one) < 0) {
		}
		pthread_join(r->sampler_thr, NULL);
		r->sampler_running = false;
	}
	run_global_steps(r, &r->w.cleanup, "cleanup");
	run_global_steps(r, &r->w.teardown, "teardown");
	sweep(r);
	{
		sp_error e2 = {0};
		sp_bundle_flush_logs(&r->b, &e2);
	}
	close(sfd);
	exit_code = -3;
out:
	if (r->reaper_running) {
		uint64_t one = 1;
		if (write(r->reaper_quit, &one, sizeof one) < 0) {
			/* cannot fail on our own eventfd */
		}
		pthread_join(r->reaper_thr, NULL);
		r->reaper_running = false;
	}
	if (r->reaper_quit >= 0)
		close(r->reaper_quit);
	if (state_made) {
		if (r->sampler)
			sweep(r);
		nftw(r->state_dir, rm_cb, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	}
	if (r->ops)
		fclose(r->ops);
	if (r->lat)
		fclose(r->lat);
	if (r->samples)
		fclose(r->samples);
	if (r->faults)
		fclose(r->faults);
	if (r->sampler_timer >= 0)
		close(r->sampler_timer);
	if (r->sampler_kick >= 0)
		close(r->sampler_kick);
	if (r->sampler_quit >= 0)
		close(r->sampler_quit);
	if (bundle_ok || r->b.dir)
		sp_bundle_close(&r->b);
	sp_sampler_free(r->sampler);
	if (r->envp) {
		for (char **e = r->envp; *e; e++)
			free(*e);
		free(r->envp);
	}
	EVP_PKEY_free(r->key);
	free(r->ss);
	free(r->state_dir);
	free(r->rootfs);
	free(r->exe);
	sp_workload_free(&r->w);
	pthread_mutex_destroy(&r->mu);
	pthread_mutex_destroy(&r->rows_mu);
	pthread_cond_destroy(&r->cv);
	free(r);
	return exit_code;
}
