/* The scheduler: workers pick scenarios (coverage pass, then the class mix
 * from a seeded xorshift generator), pace operation starts to the target
 * rate across all workers, and run cycles of steps as operations. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "soak/run.h"

/* xorshift64*: the pick sequence is a function of the seed */
static unsigned long long rng_next(unsigned long long *s)
{
	unsigned long long x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* Wait for this operation's start slot (the target rate spaces starts
 * evenly across all workers). false when the run stopped first: the
 * operation must not start after the stop. */
static bool wait_rate_slot(struct run *r)
{
	if (!r->rate_interval_ns)
		return !atomic_load(&r->sch.stop);
	pthread_mutex_lock(&r->sch.mu);
	uint64_t now = sp_now_ns();
	uint64_t slot = r->sch.next_slot_ns > now ? r->sch.next_slot_ns : now;
	r->sch.next_slot_ns = slot + r->rate_interval_ns;
	pthread_mutex_unlock(&r->sch.mu);
	for (;;) {
		if (atomic_load(&r->sch.stop))
			return false;
		now = sp_now_ns();
		if (now >= slot)
			return true;
		uint64_t d = slot - now;
		if (d > 50000000ull)
			d = 50000000ull;
		struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)d};
		nanosleep(&ts, NULL);
	}
}

/* Run one step as an operation. paced: a cycle or start step (waits for
 * its rate slot, and does not start after the stop: OP_SKIPPED, nothing
 * recorded); drain steps (recover, stop) are not paced. interrupt_ms >= 0:
 * a planned interruption (F01/F07). */
enum op_result sp_soak_run_step(struct run *r, struct scen_state *st, const sp_soak_wstep *step, unsigned long long gen,
				bool paced, int interrupt_ms, int interrupt_sig, sp_soak_proc_result *res_out)
{
	if (paced && !wait_rate_slot(r))
		return OP_SKIPPED;
	char idbuf[96], genbuf[32], code[64];
	sp_soak_vars v;
	sp_error err = {0};
	sp_soak_vars_for(r, st, gen, &v, idbuf, sizeof idbuf, genbuf, sizeof genbuf);
	char **argv = sp_soak_expand_argv(&step->argv, &v);
	sp_soak_capture *cap = sp_capture_for_thread(SP_STEP_HALF);
	sp_soak_proc_result res;
	sp_soak_run_opts ro = {.timeout_ms = step->timeout_ms, .interrupt_ms = interrupt_ms, .interrupt_sig = interrupt_sig,
			  .envp = r->envp, .abort_flag = &r->sch.abort_ops};
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
		out = (!res.spawn_errno && !res.timed_out && !res.aborted && WIFEXITED(res.status) &&
		       WEXITSTATUS(res.status) != 0)
			      ? OP_OK
			      : OP_FAIL;
	else
		out = sp_proc_ok(&res) ? OP_OK : OP_FAIL;
	if (step->expect_fail && out == OP_FAIL && sp_proc_ok(&res))
		snprintf(code, sizeof code, "unexpected-success");
	sp_soak_record_op(r, st, step->op, out, res.start_ns, res.end_ns, gen, code);

	size_t tlen = 0;
	const char *text = sp_capture_text_thread(cap, &tlen);
	char *cmd = sp_soak_join_argv(argv);
	char *hdr = sp_xasprintf("## ts=%.3f gen=%llu op=%s result=%s %s latency_ms=%.3f argv: %s",
				 sp_soak_ns_to_ts(r, res.end_ns), gen, step->op,
				 out == OP_OK ? "ok" : out == OP_FAIL ? "fail" : "expected_fault", code,
				 (double)(res.end_ns - res.start_ns) / 1e6, cmd);
	char logname[160];
	snprintf(logname, sizeof logname, "%s.%s.log", st->sc->id, step->op);
	sp_bundle_log(&r->rec.b, logname, hdr, text, tlen);
	free(hdr);
	free(cmd);
	sp_soak_free_argv(argv);
	if (res_out)
		*res_out = res;
	if (out == OP_FAIL && step->invariant)
		sp_soak_set_stop(&r->sch, 2, "invariant");
	return out;
}

static void run_cycle(struct run *r, struct scen_state *st, unsigned long long gen)
{
	const sp_soak_scenario *sc = st->sc;
	const sp_soak_wfault *f = sc->fault.present ? &sc->fault : NULL;
	for (size_t i = 0; i < sc->steps.n; i++) {
		const sp_soak_wstep *step = &sc->steps.v[i];
		if (atomic_load(&r->sch.abort_ops))
			return;
		if (f && !strcmp(step->op, f->step) && sp_soak_fault_step(r, st, step, gen))
			return;
		enum op_result o = sp_soak_run_step(r, st, step, gen, true, -1, 0, NULL);
		if (o == OP_SKIPPED) {
			/* stopped before this step could start: undo what the cycle did */
			if (i > 0 && !atomic_load(&r->sch.abort_ops))
				sp_soak_run_steps(r, st, &sc->recover, gen);
			return;
		}
		if (o != OP_OK) {
			if (!atomic_load(&r->sch.abort_ops))
				sp_soak_run_steps(r, st, &sc->recover, gen);
			return;
		}
	}
}

static struct scen_state *pick(struct run *r)
{
	size_t n = r->w.nscen;
	pthread_mutex_lock(&r->sch.mu);
	struct scen_state *st = NULL;
	while (!atomic_load(&r->sch.stop)) {
		size_t want;
		if (r->sch.next_r0 < n) {
			want = r->sch.next_r0; /* R0, and the coverage pass that opens every run */
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
			long long x = (long long)(rng_next(&r->sch.rng) % (unsigned long long)total);
			int cls = 0;
			while (x >= weights[cls])
				x -= weights[cls++];
			size_t k = (size_t)(rng_next(&r->sch.rng) % per[cls]);
			for (want = 0; want < n; want++)
				if (r->ss[want].sc->cls == (sp_soak_class)cls && k-- == 0)
					break;
		}
		struct scen_state *cand = &r->ss[want];
		/* a scenario that is not parallel waits for its previous cycle */
		while (cand->busy && !cand->sc->parallel && !atomic_load(&r->sch.stop))
			pthread_cond_wait(&r->sch.cv, &r->sch.mu);
		if (atomic_load(&r->sch.stop))
			break;
		if (r->sch.next_r0 < n)
			r->sch.next_r0++;
		cand->busy++;
		st = cand;
		break;
	}
	pthread_mutex_unlock(&r->sch.mu);
	return st;
}

void *sp_soak_worker(void *arg)
{
	struct run *r = arg;
	sp_soak_reserve_heap();
	for (;;) {
		struct scen_state *st = pick(r);
		if (!st)
			break;
		pthread_mutex_lock(&r->sch.mu);
		unsigned long long gen = ++st->gen;
		bool need_start = !st->start_attempted;
		st->start_attempted = true;
		r->sch.class_cycles[st->sc->cls]++;
		st->cycles++;
		pthread_mutex_unlock(&r->sch.mu);
		bool go = true;
		if (need_start && st->sc->start.n) {
			bool ok = true;
			for (size_t i = 0; i < st->sc->start.n && ok; i++) {
				enum op_result o = sp_soak_run_step(r, st, &st->sc->start.v[i], 0, true, -1, 0, NULL);
				if (o == OP_SKIPPED && i == 0) {
					go = false; /* nothing of the service started */
					break;
				}
				ok = o == OP_OK;
			}
			if (go) {
				pthread_mutex_lock(&r->sch.mu);
				st->started = true; /* its stop steps run at drain, even after a failed start */
				pthread_mutex_unlock(&r->sch.mu);
				if (!ok && !atomic_load(&r->sch.abort_ops))
					sp_soak_run_steps(r, st, &st->sc->recover, 0);
			}
		}
		if (go)
			run_cycle(r, st, gen);
		pthread_mutex_lock(&r->sch.mu);
		st->busy--;
		pthread_cond_broadcast(&r->sch.cv);
		pthread_mutex_unlock(&r->sch.mu);
		if (r->r0)
			sp_soak_kick_sampler(&r->smp); /* R0: a sample at every phase */
	}
	pthread_mutex_lock(&r->sch.mu);
	r->sch.workers_running--;
	pthread_mutex_unlock(&r->sch.mu);
	return NULL;
}
