#include "core/runner.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/emul.h"
#include "core/util.h"

sp_expect sp_policy_expect(const sp_policy *p, const char *id)
{
	sp_expect e = SP_EXPECT_REQUIRED;
	for (size_t i = 0; i < p->n; i++) {
		if (!sp_startswith(p->e[i].key, "expect."))
			continue;
		if (!sp_glob_match(p->e[i].key + 7, id))
			continue;
		const char *v = p->e[i].value;
		e = !strcmp(v, "off") ? SP_EXPECT_OFF : !strcmp(v, "advisory") ? SP_EXPECT_ADVISORY : SP_EXPECT_REQUIRED;
	}
	return e;
}

static sp_timeout_hook timeout_hook;
static void *timeout_hook_arg;

void sp_set_timeout_hook(sp_timeout_hook fn, void *arg)
{
	timeout_hook = fn;
	timeout_hook_arg = arg;
}

/* Evidence before a kill: where the probe sat, and the load; then the
 * timeout hook (doctor --bundle's snapshot), while the probe still lives. */
static void timeout_evidence(const sp_check *c, pid_t pid, unsigned timeout_ms, sp_result *r)
{
	char path[64], wchan[64] = "?", load[64] = "?", state[256] = "";
	snprintf(path, sizeof path, "/proc/%d/wchan", (int)pid);
	if (sp_read_file(path, wchan, sizeof wchan) <= 0)
		snprintf(wchan, sizeof wchan, "?");
	if (sp_read_file("/proc/loadavg", load, sizeof load) > 0)
		sp_trim(load);
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (sp_read_file(path, state, sizeof state) > 0) {
		char *rp = strrchr(state, ')');
		snprintf(state, sizeof state, "%c", rp && rp[1] ? rp[2] : '?');
	}
	sp_observed(r, "probe state %s, waiting in %s; loadavg %s", state, wchan, load);
	if (timeout_hook)
		timeout_hook(c, pid, timeout_ms, timeout_hook_arg);
}

/* set in a pool worker pinned to one CPU: the processors its probes get
 * back, so that what they start (a tool, an MCP server) is not confined */
static cpu_set_t probe_cpus;
static bool probe_unpin;

/* A child in a process group of its own (so a timeout kills whatever it
 * started), writing into pfd[1]. Returns the pid (0 in the child), or -1
 * with errno set and nothing left open. */
static pid_t fork_probe(int pfd[2])
{
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(pfd[0]);
		close(pfd[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		close(pfd[0]);
		signal(SIGPIPE, SIG_IGN);
		/* it starts on its worker's CPU (no wake-up of another) and may
		 * leave it from here on */
		if (probe_unpin)
			sched_setaffinity(0, sizeof probe_cpus, &probe_cpus);
		return 0;
	}
	setpgid(pid, pid); /* avoid the race with the child's own call */
	close(pfd[1]);
	return pid;
}

/* the probe is done (or out of time): nothing it started may outlive it */
static int end_probe(pid_t pid)
{
	kill(-pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

static void died(sp_result *r, int status, const char *where)
{
	if (WIFSIGNALED(status))
		sp_errorr(r, "probe crashed%s: signal %d (%s)", where, WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		sp_errorr(r, "probe exited with status %d without a verdict%s", WEXITSTATUS(status), where);
}

static void run_forked(const sp_ctx *ctx, const sp_check *c, unsigned timeout_ms, sp_result *r)
{
	int pfd[2];
	pid_t pid = fork_probe(pfd);
	if (pid < 0) {
		sp_errorr(r, "cannot fork the probe: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		sp_result out;
		memset(&out, 0, sizeof out);
		out.status = SP_STATUS_ERROR;
		snprintf(out.detail, sizeof out.detail, "probe returned no verdict");
		c->run(ctx, &out);
		out.check = NULL;
		_exit(sp_write_all(pfd[1], &out, sizeof out) == 0 ? 0 : 3);
	}
	sp_result in;
	uint64_t deadline = sp_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	bool timed_out = false;
	size_t got = sp_read_until(pfd[0], &in, sizeof in, deadline, &timed_out);
	close(pfd[0]);
	if (timed_out)
		timeout_evidence(c, pid, timeout_ms, r);
	int status = end_probe(pid);
	if (timed_out) {
		sp_errorr(r, "probe timed out after %u ms and was killed", timeout_ms);
		return;
	}
	if (got == sizeof in) {
		sp_expect keep = r->expect;
		*r = in;
		r->expect = keep;
		return;
	}
	died(r, status, "");
}

/* the supported() precondition: false fills r with the skip */
static bool precondition(const sp_ctx *ctx, const sp_check *c, sp_result *r)
{
	char emu[600];
	if ((c->flags & SP_CHECK_NOEMU) && sp_user_emulation(emu, sizeof emu)) {
		sp_skip(r, "cannot run under user-mode emulation: %s; the emulator, not the kernel, answers the "
			   "system calls this check judges",
			emu);
		return false;
	}
	if (!c->supported)
		return true;
	sp_outcome o = {0};
	if (c->supported(ctx, &o))
		return true;
	sp_skip(r, "%.511s", o.why[0] ? o.why : "not supported here");
	return false;
}

void sp_run_one(const sp_ctx *ctx, const sp_check *c, unsigned timeout_ms, sp_result *r)
{
	if (!precondition(ctx, c, r))
		return;
	if (c->flags & SP_CHECK_INPROCESS) {
		r->status = SP_STATUS_ERROR;
		snprintf(r->detail, sizeof r->detail, "probe returned no verdict");
		c->run(ctx, r);
	} else {
		run_forked(ctx, c, timeout_ms, r);
	}
}

/* one judged member of a batch, as the batch child hands it over */
struct batch_rec {
	uint32_t k;
	sp_result r;
};

unsigned sp_batch_timeout(const sp_ctx *ctx, const sp_batch *b, bool forced)
{
	if (forced)
		return ctx->timeout_ms;
	if (b->budget_ms)
		return b->budget_ms(ctx);
	return b->timeout_ms ? b->timeout_ms : ctx->timeout_ms;
}

/* Run the members of checks[first]'s batch (every later check of the same
 * batch in checks[0..n)) in one child bounded by timeout_ms, into out[];
 * have[] marks the members handled. */
static void run_batch(const sp_ctx *ctx, const sp_check *const *checks, size_t n, size_t first, unsigned timeout_ms,
		      sp_result *out, bool *have)
{
	const sp_batch *b = checks[first]->batch;
	size_t *idx = sp_xcalloc(n, sizeof *idx);
	size_t m = 0;
	for (size_t j = first; j < n; j++)
		if (checks[j]->batch == b) {
			idx[m++] = j;
			have[j] = true;
			/* never a silent pass: a member nothing reports on is an error */
			sp_errorr(&out[j], "probe batch %s gave no verdict", b->id);
		}
	uint64_t deadline = sp_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	size_t next = 0;
	while (next < m) {
		int pfd[2];
		pid_t pid = fork_probe(pfd);
		if (pid < 0) {
			int e = errno;
			for (size_t k = next; k < m; k++)
				sp_errorr(&out[idx[k]], "cannot fork the probe batch %s: %s", b->id, strerror(e));
			break;
		}
		if (pid == 0) {
			uint64_t t0 = sp_now_ns();
			if (b->prepare)
				b->prepare(ctx);
			if (b->run)
				b->run(ctx);
			for (size_t k = next; k < m; k++) {
				const sp_check *c = checks[idx[k]];
				struct batch_rec rec;
				memset(&rec, 0, sizeof rec);
				rec.k = (uint32_t)k;
				rec.r.status = SP_STATUS_ERROR;
				snprintf(rec.r.detail, sizeof rec.r.detail, "probe returned no verdict");
				if (precondition(ctx, c, &rec.r))
					c->run(ctx, &rec.r);
				rec.r.check = NULL;
				/* the batch's shared work counts towards its first member */
				rec.r.duration_us = (sp_now_ns() - t0) / 1000;
				t0 = sp_now_ns();
				if (sp_write_all(pfd[1], &rec, sizeof rec) < 0)
					_exit(3);
			}
			_exit(0);
		}
		size_t last = next;
		bool timed_out = false;
		for (;;) {
			struct batch_rec rec;
			size_t got = sp_read_until(pfd[0], &rec, sizeof rec, deadline, &timed_out);
			if (got != sizeof rec || rec.k < last || rec.k >= m)
				break;
			sp_result *r = &out[idx[rec.k]];
			sp_expect keep = r->expect;
			*r = rec.r;
			r->expect = keep;
			last = rec.k + 1;
			if (last == m)
				break;
		}
		close(pfd[0]);
		if (timed_out && last < m) {
			timeout_evidence(checks[idx[last]], pid, timeout_ms, &out[idx[last]]);
			out[idx[last]].duration_us = (uint64_t)timeout_ms * 1000u;
		}
		int status = end_probe(pid);
		if (last >= m)
			break;
		const char *member = checks[idx[last]]->id;
		if (timed_out) {
			/* one timeout for the batch: what it did not judge in time is lost */
			for (size_t k = last; k < m; k++)
				sp_errorr(&out[idx[k]], "probe batch %s timed out after %u ms (in %s) and was killed", b->id,
					  timeout_ms, member);
			break;
		}
		char where[160];
		snprintf(where, sizeof where, " in batch %s", b->id);
		died(&out[idx[last]], status, where);
		next = last + 1; /* the rest resume in a new child */
	}
	free(idx);
}

/* ---- one check, or one batch: what a single unit of work produces --------- */

/* Run checks[i] (or, for a batch member, its whole batch into batched[],
 * have[] marking the members) exactly as the one-at-a-time run does: the
 * result, before the runner's judgement (boundary, advisory, --strict). */
static void run_unit(const sp_ctx *ctx, const sp_check *const *checks, size_t n, size_t i, const sp_doctor_run_opts *o,
		     sp_result *batched, bool *have, sp_result *r)
{
	const sp_check *c = checks[i];
	memset(r, 0, sizeof *r);
	r->expect = sp_policy_expect(ctx->policy, c->id);
	uint64_t s = sp_now_ns();
	if (c->batch) {
		if (!have[i])
			run_batch(ctx, checks, n, i, sp_batch_timeout(ctx, c->batch, o->timeout_forced), batched, have);
		*r = batched[i];
		r->expect = sp_policy_expect(ctx->policy, c->id);
	} else {
		unsigned timeout = (!o->timeout_forced && c->timeout_ms) ? c->timeout_ms : ctx->timeout_ms;
		sp_run_one(ctx, c, timeout, r);
		r->duration_us = (sp_now_ns() - s) / 1000;
	}
}

/* ---- -j N: a pool of forked workers ------------------------------------------
 * The workers are forked once, before any check runs, and share one mapping
 * with the parent: the queue of units (a check, or a whole batch at its
 * first member) and a slot for every check's result. Each worker takes the
 * next unit itself (no round trip through the parent between units) and
 * runs it with run_unit, the code a one-at-a-time run uses: the same probe
 * children, timeouts and crash isolation. A result lands at its check's own
 * index, so the report's order is the catalogue's whatever finishes first.
 * The queue starts with the units whose batch says it outlasts the others
 * (sp_batch.long_running: the 10 MiB round trip), then the catalogue's
 * order: the longest unit never starts last and becomes the run's tail.
 * The parent only waits: a worker that dies in a unit (an in-process check
 * crashed it) costs what that unit did not report, and a new worker takes
 * the rest of the queue. */

#define POOL_MAX 64

typedef struct pool_shared {
	_Atomic uint32_t next;         /* index into units[] of the next unit to take */
	_Atomic int abort;             /* set before the start: take nothing */
	_Atomic int32_t cur[POOL_MAX]; /* the unit (its first check's index) worker k runs, -1 none */
	_Atomic uint8_t *done;         /* per check: its result is in res[] */
	sp_result *res;                /* per check */
} pool_shared;

typedef struct pool {
	pool_shared *sh;
	int cpus[POOL_MAX]; /* worker k runs on cpus[k % ncpus] */
	unsigned ncpus;
	void *map;
	size_t map_len;
	const uint32_t *units; /* check indexes, in the order to take them */
	size_t nu;
	int go[2]; /* the workers start at its end of file */
} pool;

/* worker k: take units until the queue is empty */
static _Noreturn void worker_main(const sp_ctx *ctx, const sp_check *const *checks, size_t n,
				  const sp_doctor_run_opts *o, pool *pl, unsigned k)
{
	signal(SIGPIPE, SIG_IGN);
	if (pl->go[0] >= 0) { /* wait for the parent's word (a worker replacing one starts at once) */
		close(pl->go[1]);
		char b;
		while (read(pl->go[0], &b, 1) < 0 && errno == EINTR)
			;
		close(pl->go[0]);
	}
	pool_shared *sh = pl->sh;
	if (atomic_load(&sh->abort))
		_exit(0);
	if (pl->ncpus > 1) {
		/* one processor per worker, where its probes start: a forked probe
		 * runs as soon as its worker waits for it, with no wake-up of
		 * another (idle, on a VM halted) processor, and the workers do not
		 * trade places; the probe then gets the worker's processors back
		 * (fork_probe). A failure leaves the worker where it was */
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(pl->cpus[k % pl->ncpus], &one);
		probe_unpin = sched_getaffinity(0, sizeof probe_cpus, &probe_cpus) == 0 &&
			      sched_setaffinity(0, sizeof one, &one) == 0;
	}
	sp_result *batched = sp_xcalloc(n, sizeof *batched);
	bool *have = sp_xcalloc(n, sizeof *have);
	for (;;) {
		uint32_t q = atomic_fetch_add(&sh->next, 1);
		if (q >= pl->nu)
			break;
		uint32_t u = pl->units[q];
		atomic_store(&sh->cur[k], (int32_t)u);
		sp_result r;
		run_unit(ctx, checks, n, u, o, batched, have, &r);
		r.check = NULL;
		sh->res[u] = r;
		atomic_store_explicit(&sh->done[u], 1, memory_order_release);
		/* the batch's other members, judged in the same child */
		for (size_t j = u + 1; checks[u]->batch && j < n; j++) {
			if (checks[j]->batch != checks[u]->batch)
				continue;
			sh->res[j] = batched[j];
			sh->res[j].check = NULL;
			atomic_store_explicit(&sh->done[j], 1, memory_order_release);
		}
		atomic_store(&sh->cur[k], -1);
	}
	_exit(0);
}

static pid_t start_worker(const sp_ctx *ctx, const sp_check *const *checks, size_t n, const sp_doctor_run_opts *o,
			  pool *pl, unsigned k)
{
	atomic_store(&pl->sh->cur[k], -1);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		worker_main(ctx, checks, n, o, pl, k);
	return pid;
}

/* the processors this process may run on: the online CPUs, or fewer when
 * its affinity (a cpuset) says so */
unsigned sp_run_default_jobs(void)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;
	int mine = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
	long j = online > 0 ? online : 1;
	if (mine > 0 && mine < j)
		j = mine;
	return j > 64 ? 64 : (unsigned)j;
}

/* Run every check with up to jobs workers into raw[] (as run_unit leaves
 * them), got[] marking what the workers reported; what no worker took (the
 * workers kept dying outside any unit) is left to the caller. Returns
 * false, having run nothing, when fewer than two workers can be started:
 * the caller then runs one check at a time. */
static bool run_pool(const sp_ctx *ctx, const sp_check *const *checks, size_t n, const sp_doctor_run_opts *o,
		     unsigned jobs, sp_result *raw, bool *got)
{
	/* the units: each check, each batch once (at its first member); the
	 * long-running batches first, then the other batches (several probes
	 * each), then the checks forked alone, then the in-process reads: the
	 * short units come last and even out the workers' ends */
	uint32_t *units = sp_xcalloc(n, sizeof *units);
	size_t nu = 0;
	for (int pass = 0; pass < 4; pass++)
		for (size_t i = 0; i < n; i++) {
			const sp_batch *b = checks[i]->batch;
			bool seen = false;
			for (size_t j = 0; j < i && b && !seen; j++)
				seen = checks[j]->batch == b;
			int rank = 2;
			if (b)
				rank = b->long_running ? 0 : 1;
			else if (checks[i]->flags & SP_CHECK_INPROCESS)
				rank = 3;
			if (!seen && rank == pass)
				units[nu++] = (uint32_t)i;
		}
	if (jobs > nu)
		jobs = (unsigned)nu;
	if (jobs > POOL_MAX)
		jobs = POOL_MAX;
	pool pl = {.units = units, .nu = nu, .go = {-1, -1}};
	size_t off_done = (sizeof(pool_shared) + 63) & ~(size_t)63;
	size_t off_res = (off_done + n + 63) & ~(size_t)63;
	pl.map_len = off_res + n * sizeof(sp_result);
	pl.map = mmap(NULL, pl.map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (pl.map == MAP_FAILED || pipe2(pl.go, O_CLOEXEC) < 0) {
		if (pl.map != MAP_FAILED)
			munmap(pl.map, pl.map_len);
		free(units);
		return false;
	}
	pl.sh = pl.map;
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		for (int c = 0; c < CPU_SETSIZE && pl.ncpus < POOL_MAX; c++)
			if (CPU_ISSET(c, &set))
				pl.cpus[pl.ncpus++] = c;
	pl.sh->done = (_Atomic uint8_t *)((char *)pl.map + off_done);
	pl.sh->res = (sp_result *)(void *)((char *)pl.map + off_res);
	pid_t pids[POOL_MAX];
	unsigned nw = 0;
	while (nw < jobs && (pids[nw] = start_worker(ctx, checks, n, o, &pl, nw)) > 0)
		nw++;
	/* (fewer than two: a process limit, say) as many processes as a
	 * one-at-a-time run; the workers end without taking a unit */
	bool ok = nw >= 2;
	if (!ok)
		atomic_store(&pl.sh->abort, 1);
	close(pl.go[0]);
	close(pl.go[1]); /* go */
	pl.go[0] = pl.go[1] = -1;
	unsigned alive = nw, lost = 0;
	while (alive > 0) {
		int status = 0;
		pid_t p = waitpid(-1, &status, 0);
		if (p < 0) {
			if (errno == EINTR)
				continue;
			break; /* ECHILD: none left */
		}
		unsigned k = 0;
		while (k < nw && pids[k] != p)
			k++;
		if (k == nw)
			continue; /* not a worker: a child the doctor was started with */
		alive--;
		pids[k] = 0;
		int32_t first = atomic_load(&pl.sh->cur[k]);
		if (!ok || (first < 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0))
			continue;
		if (first < 0) {
			/* killed outside any unit: by a filter that forbids pinning it to a
			 * processor, say; the next ones are not pinned, and after as many
			 * such deaths as workers none is started */
			pl.ncpus = 0;
			lost++;
		}
		/* the worker died in the unit (an in-process check crashed it): what
		 * it did not report is an error, the rest go on in a new worker */
		for (size_t j = first < 0 ? n : (size_t)first; j < n; j++)
			if ((j == (size_t)first ||
			     (checks[first]->batch && checks[j]->batch == checks[first]->batch)) &&
			    !atomic_load_explicit(&pl.sh->done[j], memory_order_acquire)) {
				sp_result *r = &pl.sh->res[j];
				memset(r, 0, sizeof *r);
				died(r, status, " (the runner's worker)");
				atomic_store(&pl.sh->done[j], 1);
			}
		atomic_store(&pl.sh->cur[k], -1);
		if (atomic_load(&pl.sh->next) < nu && lost <= nw) {
			pid_t np = start_worker(ctx, checks, n, o, &pl, k);
			if (np > 0) {
				pids[k] = np;
				alive++;
			}
		}
	}
	for (size_t i = 0; ok && i < n; i++) {
		got[i] = atomic_load_explicit(&pl.sh->done[i], memory_order_acquire);
		if (!got[i])
			continue;
		raw[i] = pl.sh->res[i];
		raw[i].check = NULL;
		raw[i].expect = sp_policy_expect(ctx->policy, checks[i]->id);
	}
	munmap(pl.map, pl.map_len);
	free(units);
	return ok;
}

void sp_run(const sp_ctx *ctx, const sp_env *env, const sp_check *const *checks, size_t n, const sp_doctor_run_opts *o,
	    sp_report *rep)
{
	memset(rep, 0, sizeof *rep);
	sp_utc_now(rep->started_at, sizeof rep->started_at);
	rep->env = *env;
	rep->results = sp_xcalloc(n ? n : 1, sizeof *rep->results);
	sp_result *batched = sp_xcalloc(n ? n : 1, sizeof *batched);
	bool *have = sp_xcalloc(n ? n : 1, sizeof *have);
	uint64_t t0 = sp_now_ns();
	/* several at once unless -j 1, -x (stop at the first failure: nothing
	 * after it may run) or a timeout hook (its snapshot lives in this
	 * process) says one at a time */
	sp_result *raw = NULL;
	bool *got = NULL;
	if (o->jobs > 1 && n > 1 && !o->stop_on_fail && !timeout_hook) {
		raw = sp_xcalloc(n, sizeof *raw);
		got = sp_xcalloc(n, sizeof *got);
		if (!run_pool(ctx, checks, n, o, o->jobs, raw, got)) {
			free(raw);
			free(got);
			raw = NULL;
			got = NULL;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const sp_check *c = checks[i];
		sp_result *r = &rep->results[rep->n++];
		if (raw && got[i])
			*r = raw[i];
		else /* one at a time: -j 1, or what no worker took */
			run_unit(ctx, checks, n, i, o, batched, have, r);
		r->check = c;
		sp_judge_boundary(ctx, &rep->env.boundary, c, r);
		if (r->status == SP_STATUS_FAIL && r->expect == SP_EXPECT_ADVISORY) {
			char d[sizeof r->detail];
			snprintf(d, sizeof d, "advisory: %s", r->detail);
			memcpy(r->detail, d, sizeof d);
			r->status = SP_STATUS_WARN;
		}
		if (r->status == SP_STATUS_SKIP && o->strict) {
			char d[sizeof r->detail];
			snprintf(d, sizeof d, "skipped under --strict: %s", r->detail);
			memcpy(r->detail, d, sizeof d);
			r->status = SP_STATUS_FAIL;
		}
		switch (r->status) {
		case SP_STATUS_PASS: rep->sum.pass++; break;
		case SP_STATUS_FAIL: rep->sum.fail++; break;
		case SP_STATUS_SKIP: rep->sum.skip++; break;
		case SP_STATUS_WARN: rep->sum.warn++; break;
		case SP_STATUS_ERROR: rep->sum.error++; break;
		}
		if (o->stop_on_fail && (r->status == SP_STATUS_FAIL || r->status == SP_STATUS_ERROR)) {
			rep->stopped_early = i + 1 < n;
			break;
		}
	}
	free(raw);
	free(got);
	free(batched);
	free(have);
	rep->duration_ms = (double)(sp_now_ns() - t0) / 1e6;
	rep->failed = rep->sum.fail || rep->sum.error;
}

void sp_report_free(sp_report *rep)
{
	free(rep->results);
	rep->results = NULL;
}

bool sp_boundary_accepts(const sp_ctx *ctx, const sp_boundary *b, unsigned flags)
{
	if (b->kind == SP_KERNEL_HOST)
		return false;
	unsigned need = b->kind == SP_KERNEL_USERSPACE ? SP_CHECK_KERNEL_USERSPACE : SP_CHECK_KERNEL_GUEST;
	if (!(flags & need))
		return false;
	sp_strv v;
	sp_policy_list(ctx->policy, "kernel.separate_kernel", &v);
	bool has = sp_strv_contains(&v, sp_kernel_kind_name(b->kind));
	sp_strv_free(&v);
	return has;
}

void sp_judge_boundary(const sp_ctx *ctx, const sp_boundary *b, const sp_check *c, sp_result *r)
{
	if (!(c->flags & SP_CHECK_KERNEL))
		return;
	char obs[sizeof r->observed];
	if (b->kind == SP_KERNEL_HOST) {
		snprintf(obs, sizeof obs, "%s%sjudged against the host's kernel", r->observed, r->observed[0] ? "; " : "");
		memcpy(r->observed, obs, sizeof obs);
		return;
	}
	bool accepted = sp_boundary_accepts(ctx, b, c->flags);
	snprintf(obs, sizeof obs, "%s%skernel boundary: %s (%s), %s by kernel.separate_kernel", r->observed,
		 r->observed[0] ? "; " : "", sp_kernel_kind_name(b->kind), b->kernel, accepted ? "accepted" : "not accepted");
	memcpy(r->observed, obs, sizeof obs);
	if (!accepted || r->status == SP_STATUS_PASS)
		return;
	/* the probe saw what this kernel does; the host's kernel is not reached */
	char d[sizeof r->detail];
	snprintf(d, sizeof d, "%s kernel (%s) stands between the sandbox and the host's kernel; the probe found: %s: %s",
		 b->kind == SP_KERNEL_USERSPACE ? "a user-space" : "a separate guest", b->kernel,
		 sp_status_name(r->status), r->detail);
	memcpy(r->detail, d, sizeof d);
	r->status = SP_STATUS_PASS;
}
