/* Sampling: the sampler thread takes a sample on its own timerfd (and on a
 * kick after every R0 phase), reading the workload's counters within a
 * bounded time; the reaper thread reaps reparented orphans. The start and
 * final samples are taken by the main thread with the sampler thread
 * stopped, so "final" is the last row. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "core/outcome.h"
#include "soak/run.h"

/* Read one counter. 0 and *v, or -1 with a short reason in o. */
static int counter_value(struct run *r, const sp_soak_counter *c, int timeout_ms, long long *v, sp_outcome *o)
{
	if (c->dir) {
		char *d = sp_expand(c->dir, &r->gvars);
		*v = d ? sp_count_dir(d) : 0;
		free(d);
		return 0;
	}
	char **argv = sp_soak_expand_argv(&c->argv, &r->gvars);
	sp_soak_capture *cap = sp_capture_for_thread(0);
	sp_soak_proc_result res;
	sp_error err = {0};
	sp_soak_run_opts ro = {.timeout_ms = timeout_ms, .interrupt_ms = -1, .envp = r->envp, .stderr_null = true,
			  .abort_flag = &r->smp.sampler_stop};
	int rc = -1;
	if (sp_proc_run(argv, &ro, cap, &res, &err) < 0) {
		sp_why_errno(o, err.errnum, "%s", err.msg);
	} else if (!sp_proc_ok(&res)) {
		sp_proc_describe(&res, o->why, sizeof o->why);
	} else {
		char *text = sp_capture_text(cap, NULL), *end;
		errno = 0;
		long long x = strtoll(text, &end, 10);
		while (*end == ' ' || *end == '\t' || *end == '\n')
			end++;
		if (end != text && !*end && !errno && x >= 0) {
			*v = x;
			rc = 0;
		} else {
			sp_why(o, "did not print one non-negative integer");
		}
		free(text);
	}
	sp_soak_free_argv(argv);
	return rc;
}

/* the counters of one sample, within a budget of half the sample interval
 * (at most 10 s) for all of them together, shared out equally: a hanging
 * counter delays a sample by at most that, and a stop interrupts it at once */
static void read_counters(struct run *r, sp_soak_sample *s, const char *phase)
{
	long long budget_ms = r->interval_s * 500;
	if (budget_ms > 10000)
		budget_ms = 10000;
	uint64_t deadline = sp_now_ns() + (uint64_t)budget_ms * 1000000ull;
	bool baseline = !strcmp(phase, "start") || !strcmp(phase, "final");
	for (size_t i = 0; i < r->w.ncounters && i < SP_MAX_COUNTERS; i++) {
		uint64_t now = sp_now_ns();
		/* an equal share of what is left, so one hanging counter cannot starve the others */
		size_t todo = (r->w.ncounters < SP_MAX_COUNTERS ? r->w.ncounters : SP_MAX_COUNTERS) - i;
		int left = now >= deadline ? 0 : (int)((deadline - now) / 1000000ull / todo);
		sp_outcome o = {.why = "no time left in this sample's counter budget"};
		long long v = 0;
		int rc = left > 0 ? counter_value(r, &r->w.counters[i], left, &v, &o) : -1;
		if (rc == 0) {
			r->smp.counter_last[i] = v;
		} else {
			/* never a number the format does not allow (once -1, which made
			 * the bundle invalid): the last value read stays in the column,
			 * the failure is logged and counted; in the start or final
			 * sample the baseline comparison is unproven, so cleanup fails */
			atomic_fetch_add(&r->smp.counter_failures, 1);
			/* the reason at most 199 characters, as it always was */
			char *hdr = sp_xasprintf("## ts=%.3f phase=%s counter=%s failed: %.199s (the sample keeps %lld)",
						 sp_soak_ts_now(r), phase, r->w.counters[i].name, o.why, r->smp.counter_last[i]);
			sp_bundle_log(&r->rec.b, "counters.log", hdr, NULL, 0);
			free(hdr);
			if (!r->smp.counter_noted[i])
				sp_soak_note(&r->notes, "counter '%s' failed (%.199s); see logs/counters.log", r->w.counters[i].name, o.why);
			r->smp.counter_noted[i] = true;
			if (baseline)
				r->smp.baseline_unproven = true;
		}
		s->extra[s->nextra++] = r->smp.counter_last[i];
	}
}

void sp_soak_take_sample(struct run *r, const char *phase)
{
	sp_soak_sample s = {0};
	read_counters(r, &s, phase);
	sp_sampler_take(r->smp.sampler, &s);
	snprintf(s.phase, sizeof s.phase, "%s", phase);
	sp_utc_now(s.wall, sizeof s.wall);
	sp_soak_record_sample(r, &s);
	sp_soak_write_metrics(r, &s);
	sp_soak_journal_mounts(r);
	sp_error err = {0};
	sp_bundle_flush_logs(&r->rec.b, &err); /* a failed log stays dirty for the next flush */
	atomic_store(&r->smp.new_sample, 1);
}

static void *sampler_main(void *arg)
{
	struct run *r = arg;
	sp_soak_reserve_heap();
	for (;;) {
		struct pollfd pf[3] = {{.fd = r->smp.sampler_timer, .events = POLLIN},
				       {.fd = r->smp.sampler_kick, .events = POLLIN},
				       {.fd = r->smp.sampler_quit, .events = POLLIN}};
		if (poll(pf, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pf[2].revents & POLLIN)
			break;
		uint64_t n;
		bool due = false;
		if ((pf[0].revents & POLLIN) && read(r->smp.sampler_timer, &n, sizeof n) == sizeof n)
			due = true;
		if ((pf[1].revents & POLLIN) && read(r->smp.sampler_kick, &n, sizeof n) == sizeof n)
			due = true;
		if (due && !atomic_load(&r->smp.sampler_stop))
			sp_soak_take_sample(r, "periodic");
	}
	return NULL;
}

/* The sampler's fds exist before the start sample, so that the runner's fd
 * count compares like for like; the start sample is taken here. */
int sp_soak_sampler_start(struct run *r, sp_error *err)
{
	r->smp.sampler_timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	r->smp.sampler_kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	r->smp.sampler_quit = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (r->smp.sampler_timer < 0 || r->smp.sampler_kick < 0 || r->smp.sampler_quit < 0)
		return sp_fail_errno(err, errno, "cannot create the sampler's timer");
	sp_soak_take_sample(r, "start");
	r->rec.start_sample_ns = r->rec.t0_ns + (uint64_t)(r->rec.first_ts * 1e9);
	uint64_t first = r->rec.start_sample_ns + (uint64_t)r->interval_s * 1000000000ull;
	struct itimerspec its = {.it_interval = {.tv_sec = (time_t)r->interval_s},
				 .it_value = {.tv_sec = (time_t)(first / 1000000000ull), .tv_nsec = (long)(first % 1000000000ull)}};
	if (timerfd_settime(r->smp.sampler_timer, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return sp_fail_errno(err, errno, "cannot arm the sampler's timer");
	int e = pthread_create(&r->smp.sampler_thr, NULL, sampler_main, r);
	if (e)
		return sp_fail_errno(err, e, "cannot start the sampler thread");
	r->smp.sampler_running = true;
	return 0;
}

void sp_soak_sampler_stop(struct sampling_state *smp)
{
	if (!smp->sampler_running)
		return;
	atomic_store(&smp->sampler_stop, 1); /* a counter in flight is killed */
	uint64_t one = 1;
	if (write(smp->sampler_quit, &one, sizeof one) < 0) {
		/* cannot fail on an eventfd we own */
	}
	pthread_join(smp->sampler_thr, NULL);
	smp->sampler_running = false;
	atomic_store(&smp->sampler_stop, 0); /* the final sample reads its counters */
}

void sp_soak_kick_sampler(struct sampling_state *smp)
{
	uint64_t one = 1;
	if (write(smp->sampler_kick, &one, sizeof one) < 0) {
		/* the eventfd counter cannot overflow here; nothing to do */
	}
}

/* The runner is a child subreaper: orphans of runtimes (container inits,
 * killed conmons' children) become its children. They are reaped here all
 * the time, so that a runtime waiting for a pid to vanish is not held up
 * by a zombie of ours while the main thread runs cleanup steps. */
static void *reaper_main(void *arg)
{
	struct sampling_state *smp = arg;
	for (;;) {
		struct pollfd pf = {.fd = smp->reaper_quit, .events = POLLIN};
		if (poll(&pf, 1, 50) > 0 && (pf.revents & POLLIN))
			break;
		sp_proc_reap_orphans();
	}
	return NULL;
}

int sp_soak_reaper_start(struct sampling_state *smp)
{
	smp->reaper_quit = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (smp->reaper_quit < 0 || pthread_create(&smp->reaper_thr, NULL, reaper_main, smp) != 0)
		return -1;
	smp->reaper_running = true;
	return 0;
}

void sp_soak_reaper_stop(struct sampling_state *smp)
{
	if (smp->reaper_running) {
		uint64_t one = 1;
		if (write(smp->reaper_quit, &one, sizeof one) < 0) {
			/* cannot fail on our own eventfd */
		}
		pthread_join(smp->reaper_thr, NULL);
		smp->reaper_running = false;
	}
	if (smp->reaper_quit >= 0)
		close(smp->reaper_quit);
	smp->reaper_quit = -1;
}
