/* The soak run's lifecycle (the other parts: see soak/run.h).
 *
 * validate everything (usage errors: nothing started) -> leftovers of an
 * earlier run refuse the run -> journal, run cgroup, fork: the supervisor
 * waits, the runner goes on -> bundle dir and state dir -> setup ->
 * metadata.txt -> inventory-start -> start sample -> workers + sampler ->
 * stop (duration, signal, invariant, R0 done, error) -> teardown: one path
 * for every way a run ends, doing what the stage reached needs: scenario
 * stop steps -> cleanup -> sampler stopped -> inventory-final -> final
 * sample -> sweep of anything owned left behind -> teardown steps -> state
 * dir, run cgroup, journal -> capability-results, summary.json, logs,
 * MANIFEST -> verify.out. */
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "soak/run.h"

/* ---- the sink (main thread only) ---- */
static void emit(struct run *r, sp_soak_ev_kind kind, const char *text, const sp_soak_status *st)
{
	if (!r->o->sink)
		return;
	sp_soak_event ev = {.kind = kind, .text = text, .st = st};
	r->o->sink(r->o->sink_ctx, &ev);
}

static void drain_notes(struct run *r)
{
	sp_strv notes = {0};
	pthread_mutex_lock(&r->notes.mu);
	notes = r->notes.v;
	memset(&r->notes.v, 0, sizeof r->notes.v);
	pthread_mutex_unlock(&r->notes.mu);
	for (size_t i = 0; i < notes.n; i++)
		emit(r, SP_SOAK_EV_NOTE, notes.v[i], NULL);
	sp_strv_free(&notes);
}

static void emit_status(struct run *r, bool after_sample)
{
	sp_soak_status st;
	sp_soak_fill_status(r, &st);
	st.after_sample = after_sample;
	emit(r, SP_SOAK_EV_STATUS, NULL, &st);
	r->last_status_ns = sp_now_ns();
}

/* ---- the run ---- */
static struct run *run_new(const sp_soak_opts *o)
{
	struct run *r = sp_xcalloc(1, sizeof *r);
	r->o = o;
	r->sch.run_step = sp_soak_run_step; /* the faults' way to run a step (soak/base.h) */
	r->rec.warmup_end = -1;
	r->smp.sampler_timer = r->smp.sampler_kick = r->smp.sampler_quit = r->smp.reaper_quit = -1;
	r->rec.b.dirfd = -1;
	r->g.journal_fd = -1;
	r->rec.ops.fd = r->rec.lat.fd = r->rec.samples.fd = r->rec.faults.fd = -1;
	pthread_mutex_init(&r->sch.mu, NULL);
	pthread_mutex_init(&r->rec.rows_mu, NULL);
	pthread_mutex_init(&r->notes.mu, NULL);
	pthread_cond_init(&r->sch.cv, NULL);
	return r;
}

static void run_free(struct run *r)
{
	sp_soak_close_streams(&r->rec);
	if (r->smp.sampler_timer >= 0)
		close(r->smp.sampler_timer);
	if (r->smp.sampler_kick >= 0)
		close(r->smp.sampler_kick);
	if (r->smp.sampler_quit >= 0)
		close(r->smp.sampler_quit);
	if (r->rec.bundle_made || r->rec.b.dir)
		sp_bundle_close(&r->rec.b);
	sp_sampler_free(r->smp.sampler);
	if (r->envp) {
		for (char **e = r->envp; *e; e++)
			free(*e);
		free(r->envp);
	}
	sp_soak_guard_free(r);
	EVP_PKEY_free(r->key);
	free(r->ss);
	free(r->state_dir);
	free(r->rootfs);
	free(r->exe);
	free(r->smp.counter_last);
	free(r->smp.counter_noted);
	sp_strv_free(&r->notes.v);
	sp_workload_free(&r->w);
	pthread_mutex_destroy(&r->sch.mu);
	pthread_mutex_destroy(&r->rec.rows_mu);
	pthread_mutex_destroy(&r->notes.mu);
	pthread_cond_destroy(&r->sch.cv);
	free(r);
}

static void handle_signal(struct run *r, int sig)
{
	if (sig == SIGUSR1) { /* PR_SET_PDEATHSIG: the supervisor is gone */
		atomic_store(&r->g.orphaned, 1);
		sp_soak_note(&r->notes, "the supervisor (pid %d) died: stopping at once, cleaning up alone", (int)r->g.supervisor);
		sp_soak_set_stop(&r->sch, 2, "signal");
		return;
	}
	if (sig != SIGINT && sig != SIGTERM && sig != SIGHUP)
		return;
	pthread_mutex_lock(&r->sch.mu);
	bool second = atomic_load(&r->sch.stop) >= 1 && !strcmp(r->sch.stop_condition, "signal");
	pthread_mutex_unlock(&r->sch.mu);
	if (second) {
		sp_soak_note(&r->notes, "second signal: interrupting in-flight operations");
		sp_soak_set_stop(&r->sch, 2, "signal");
	} else {
		sp_soak_note(&r->notes, "%s: stop launching, drain, clean up", strsignal(sig));
		sp_soak_set_stop(&r->sch, 1, "signal");
	}
}

/* the rows of the four streams, and news of a bundle that cannot take them */
static void flush_rows(struct run *r)
{
	pthread_mutex_lock(&r->rec.rows_mu);
	sp_soak_flush_rows(&r->rec);
	struct rowfile *all[] = {&r->rec.ops, &r->rec.lat, &r->rec.samples, &r->rec.faults};
	for (size_t i = 0; i < SP_ARRAY_SIZE(all); i++) {
		struct rowfile *rf = all[i];
		if (rf->err && !rf->stalled_noted) {
			sp_soak_note(&r->notes, "cannot write %s/%s: %s; its rows wait in memory until they can be written", r->rec.b.dir,
				     rf->name, strerror(rf->err));
			rf->stalled_noted = true;
		} else if (!rf->err && rf->stalled_noted) {
			sp_soak_note(&r->notes, "%s/%s is written again, no row lost", r->rec.b.dir, rf->name);
			rf->stalled_noted = false;
		}
	}
	pthread_mutex_unlock(&r->rec.rows_mu);
}

/* Workers and the control loop: signals, duration, R0 completion, rows,
 * status. Returns when every worker is done. */
static void operate(struct run *r, int sfd)
{
	int dfd = -1;
	if (!r->r0) {
		dfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
		uint64_t end = r->rec.start_sample_ns + (uint64_t)r->duration_s * 1000000000ull;
		struct itimerspec its = {.it_value = {.tv_sec = (time_t)(end / 1000000000ull), .tv_nsec = (long)(end % 1000000000ull)}};
		if (dfd < 0 || timerfd_settime(dfd, TFD_TIMER_ABSTIME, &its, NULL) < 0) {
			sp_soak_note(&r->notes, "cannot arm the duration timer: %s", strerror(errno));
			sp_soak_set_stop(&r->sch, 1, "error");
		}
	}
	if (atomic_load(&r->g.orphaned))
		sp_soak_set_stop(&r->sch, 2, "signal");
	pthread_t *thr = sp_xcalloc((size_t)r->concurrency, sizeof(pthread_t));
	int nthr = 0;
	pthread_mutex_lock(&r->sch.mu);
	for (int i = 0; i < r->concurrency; i++)
		if (pthread_create(&thr[nthr], NULL, sp_soak_worker, r) == 0) {
			nthr++;
			r->sch.workers_running++;
		}
	pthread_mutex_unlock(&r->sch.mu);
	if (nthr == 0) {
		sp_soak_note(&r->notes, "cannot start any worker thread");
		sp_soak_set_stop(&r->sch, 1, "error");
	}
	uint64_t last_flush = sp_now_ns();
	for (;;) {
		pthread_mutex_lock(&r->sch.mu);
		int running = r->sch.workers_running;
		pthread_mutex_unlock(&r->sch.mu);
		if (running == 0)
			break;
		struct pollfd pf[2] = {{.fd = sfd, .events = POLLIN}, {.fd = dfd, .events = POLLIN}};
		poll(pf, 2, 50);
		struct signalfd_siginfo si;
		while (sfd >= 0 && read(sfd, &si, sizeof si) == sizeof si)
			handle_signal(r, (int)si.ssi_signo);
		uint64_t exp;
		if (dfd >= 0 && read(dfd, &exp, sizeof exp) == sizeof exp)
			sp_soak_set_stop(&r->sch, 1, "duration");
		if (sp_now_ns() - last_flush > 1000000000ull) {
			flush_rows(r);
			last_flush = sp_now_ns();
		}
		if (atomic_load(&r->rec.rows_fatal) && atomic_load(&r->sch.stop) < 2) {
			sp_soak_note(&r->notes, "the bundle has not taken rows for too long: stopping the run");
			sp_soak_set_stop(&r->sch, 2, "error");
		}
		if (atomic_exchange(&r->smp.new_sample, 0))
			emit_status(r, true);
		else if (sp_now_ns() - r->last_status_ns > 500000000ull)
			emit_status(r, false);
		drain_notes(r);
	}
	for (int i = 0; i < nthr; i++)
		pthread_join(thr[i], NULL);
	free(thr);
	if (dfd >= 0)
		close(dfd);
	pthread_mutex_lock(&r->sch.mu);
	if (!r->sch.stop_condition[0]) /* R0: every scenario completed its cycle */
		snprintf(r->sch.stop_condition, sizeof r->sch.stop_condition, "duration");
	pthread_mutex_unlock(&r->sch.mu);
}

static bool no_space(int e)
{
	return e == ENOSPC || e == EDQUOT;
}

/* the closing files; a full disk is waited for (at most 30 s) */
static int close_record(struct run *r, double final_ts, sp_error *err)
{
	bool waited = false;
	for (int attempt = 0;; attempt++) {
		sp_error e = {0};
		pthread_mutex_lock(&r->rec.rows_mu);
		sp_soak_flush_rows(&r->rec);
		struct rowfile *all[] = {&r->rec.ops, &r->rec.lat, &r->rec.samples, &r->rec.faults};
		int rerr = 0;
		for (size_t i = 0; i < SP_ARRAY_SIZE(all); i++) {
			if (all[i]->err && !rerr) {
				rerr = all[i]->err;
				sp_fail_errno(&e, rerr, "%s/%s", r->rec.b.dir, all[i]->name);
			}
			if (all[i]->fd >= 0)
				fsync(all[i]->fd);
		}
		pthread_mutex_unlock(&r->rec.rows_mu);
		if (!rerr && sp_soak_write_capabilities(r, &e) == 0 && sp_soak_write_summary(r, final_ts, &e) == 0 &&
		    sp_bundle_flush_logs(&r->rec.b, &e) == 0 && sp_bundle_manifest(&r->rec.b, r->key, &e) == 0)
			return 0;
		if (!no_space(e.errnum) || attempt >= 30) {
			*err = e;
			if (!err->msg[0])
				sp_fail_errno(err, e.errnum, "cannot write the evidence bundle %s", r->rec.b.dir);
			return -1;
		}
		if (!waited)
			emit(r, SP_SOAK_EV_NOTE, "the bundle's file system is full: waiting up to 30 s for space", NULL);
		waited = true;
		struct timespec ts = {1, 0};
		nanosleep(&ts, NULL);
	}
}

static int run_verifier(struct run *r)
{
	char *argv[] = {r->exe, (char *)"verify", r->rec.b.dir, NULL};
	sp_soak_capture *cap = sp_xcalloc(1, sizeof *cap);
	sp_soak_proc_result res;
	sp_error err = {0};
	sp_soak_run_opts ro = {.timeout_ms = 600000, .interrupt_ms = -1};
	int code = SP_EXIT_INTERNAL;
	if (sp_proc_run(argv, &ro, cap, &res, &err) == 0) {
		size_t len;
		char *text = sp_capture_text(cap, &len);
		sp_bundle_write(&r->rec.b, "verify.out", text, len, &err);
		emit(r, SP_SOAK_EV_VERIFY, text, NULL);
		free(text);
		if (!res.spawn_errno && WIFEXITED(res.status))
			code = WEXITSTATUS(res.status);
	}
	free(cap);
	return code;
}

/* nothing of the run left: no owned process, no mount under the state dir, no state dir */
static bool nothing_left(struct run *r)
{
	size_t n = 0, nm = 0;
	free(sp_sampler_signalable(r->smp.sampler, &n));
	char **m = sp_sampler_owned_mounts(r->smp.sampler, &nm);
	for (size_t i = 0; i < nm; i++)
		free(m[i]);
	free(m);
	return n == 0 && nm == 0 && !sp_soak_dir_exists(r->state_dir);
}

/* Before the final inventory and sample: let what the cleanup killed finish
 * dying (a sandbox's init killed through its parent-death signal, zombies
 * of ours to reap). Waits, at most 1 s, until the owned processes stop
 * getting fewer; a real leak stays put and costs three rounds (150 ms). */
static void settle(struct run *r)
{
	if (!r->smp.sampler)
		return;
	size_t prev = (size_t)-1;
	int same = 0;
	for (int i = 0; i < 20; i++) {
		sp_proc_reap_orphans();
		size_t n = 0;
		free(sp_sampler_signalable(r->smp.sampler, &n));
		same = n == prev ? same + 1 : 0;
		if (n == 0 || same >= 2)
			break;
		prev = n;
		struct timespec ts = {0, 50000000L};
		nanosleep(&ts, NULL);
	}
}

/* The one teardown path. reached: how far the run got (0 nothing, 1 bundle
 * and state dir, 2 setup ran, 3 operations ran). err is already filled when
 * the run failed before operating. Returns the verifier's exit code, or -1. */
static int teardown(struct run *r, int reached, sp_error *err)
{
	bool orphaned = atomic_load(&r->g.orphaned);
	bool complete = reached >= 3 && !orphaned && !atomic_load(&r->rec.rows_fatal);
	char why[256] = "";
	if (reached >= 3 && !orphaned) {
		/* drain: the scenarios' stop steps */
		atomic_store(&r->sch.abort_ops, 0);
		bool stops_ok = true;
		for (size_t i = 0; i < r->w.nscen; i++)
			if (r->ss[i].started && r->ss[i].sc->stop.n)
				stops_ok &= sp_soak_run_steps(r, &r->ss[i], &r->ss[i].sc->stop, r->ss[i].gen + 1);
		r->cleanup_ok = stops_ok;
	}
	if (orphaned && r->smp.sampler)
		sp_soak_sweep(r); /* nobody is left to wait for: kill everything first */
	if (reached >= 2) {
		bool ok = sp_soak_run_global_steps(r, &r->w.cleanup, "cleanup", orphaned ? 10000 : 0);
		r->cleanup_ok = r->cleanup_ok && ok;
	}
	sp_proc_reap_orphans();
	/* the sampler stops before the final inventory: none of its counter
	 * commands may be in flight when the inventory lists owned processes */
	sp_soak_sampler_stop(&r->smp);
	settle(r);
	double final_ts = 0;
	if (complete) {
		sp_error ierr = {0};
		if (sp_soak_write_inventory(r, "inventory-final.json", &ierr) < 0) {
			sp_soak_note(&r->notes, "%s", ierr.msg);
			r->cleanup_ok = false;
		}
		sp_proc_reap_orphans();
		sp_soak_take_sample(r, "final");
		final_ts = r->rec.last_ts;
		if (r->smp.baseline_unproven) {
			sp_soak_note(&r->notes, "a counter failed in the start or final sample: the return to baseline is unproven");
			r->cleanup_ok = false;
		}
		emit_status(r, true);
	}
	if (r->smp.sampler) {
		/* anything owned that survived is a leak: counted above, removed now */
		r->leftovers = sp_soak_sweep(r);
		if (r->leftovers > 0 && complete) {
			r->cleanup_ok = false;
			sp_soak_note(&r->notes, "%d owned process(es)/mount(s) survived cleanup; removed", r->leftovers);
		}
	}
	if (orphaned)
		sp_soak_remove_run_cgroups(r);
	if (reached >= 1 && !orphaned) {
		sp_soak_run_global_steps(r, &r->w.teardown, "teardown", 0);
		if (r->smp.sampler)
			sp_soak_sweep(r);
		sp_soak_remove_state(r);
	}
	sp_soak_reaper_stop(&r->smp);
	drain_notes(r);
	if (orphaned)
		snprintf(why, sizeof why, "the supervisor died: processes killed, cleanup run; state dir kept");
	else if (!r->smp.sampler || !nothing_left(r))
		snprintf(why, sizeof why, "something of the run could not be removed");
	sp_soak_guard_finish(r, !why[0], why);

	if (!complete) {
		if (r->rec.bundle_made) {
			sp_error e2 = {0};
			sp_bundle_flush_logs(&r->rec.b, &e2);
		}
		if (!err->msg[0]) {
			if (orphaned)
				sp_fail_errno(err, 0, "soak: the supervisor died; the run stopped at once and cleaned up; the bundle %s is incomplete; "
						      "the state dir and journal stay for 'sandprobe soak --reconcile %s'",
					      r->rec.b.dir ? r->rec.b.dir : r->o->out, r->w.state_root);
			else
				sp_fail_errno(err, r->rec.ops.err, "soak: the bundle %s could not take the run's rows", r->rec.b.dir);
		}
		return -1;
	}
	if (close_record(r, final_ts, err) < 0)
		return -1;
	char done[512];
	snprintf(done, sizeof done, "stop=%s ops=%lld ok=%lld fail=%lld expected_fault=%lld samples=%lld cleanup=%s; verifying %s",
		 r->sch.stop_condition, r->rec.n_ops, r->rec.n_ok, r->rec.n_fail, r->rec.n_fault, r->rec.sample_count, r->cleanup_ok ? "ok" : "failed",
		 r->rec.b.dir);
	emit(r, SP_SOAK_EV_DONE, done, NULL);
	return run_verifier(r);
}

/* the runner's part of the run (after the fork) */
static int run_as_runner(struct run *r, sp_error *err)
{
	int reached = 0;
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	sp_proc_raise_nofile(); /* for the sampler's handles; children keep the original limit */
	/* A process that lives for days: its heap keeps what it freed (up to
	 * 32 MiB) rather than handing it back at every trim and growing again,
	 * and its threads share two arenas: the runner's memory reaches its
	 * working set in the warm-up and then stays flat (its own RSS slope is
	 * in the bundle, judged like a daemon's). */
	mallopt(M_TRIM_THRESHOLD, 32 << 20);
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	mallopt(M_ARENA_MAX, 2);
	sp_soak_reserve_heap();
	r->rec.t0_ns = sp_now_ns();
	r->cleanup_ok = true;
	if (sfd < 0) {
		sp_fail_errno(err, errno, "signalfd");
		goto out;
	}
	if (sp_bundle_create(&r->rec.b, r->o->out, err) < 0)
		goto out;
	r->rec.bundle_made = true;
	if (mkdir(r->state_dir, 0700) < 0) {
		sp_fail_errno(err, errno, "cannot create the state directory %s", r->state_dir);
		goto out;
	}
	reached = 1;
	sp_soak_journal_event(r, "state_dir", "path", r->state_dir);
	sp_soak_journal_event(r, "bundle", "path", r->rec.b.dir);
	r->smp.sampler = sp_sampler_new(getpid(), r->prefix, r->state_dir);
	sp_sampler_ignore_cgroup(r->smp.sampler, r->g.cgroup_name);
	sp_soak_reaper_start(&r->smp);
	{
		char line[1024];
		snprintf(line, sizeof line, "run %s profile %s workload %s (%zu scenarios, concurrency %d, seed %llu) -> %s",
			 r->run_id, r->profile, r->w.name, r->w.nscen, r->concurrency, r->seed, r->rec.b.dir);
		emit(r, SP_SOAK_EV_START, line, NULL);
	}
	/* setup; a failed setup ends the run before its first operation */
	reached = 2;
	if (!sp_soak_run_global_steps(r, &r->w.setup, "setup", 0)) {
		sp_fail_errno(err, 0, "soak: workload setup failed (see %s/logs/)", r->rec.b.dir);
		goto out;
	}
	if (sp_soak_write_metadata(r, err) < 0 || sp_soak_open_streams(r, err) < 0)
		goto out;
	sp_proc_reap_orphans();
	if (sp_soak_write_inventory(r, "inventory-start.json", err) < 0 || sp_soak_sampler_start(r, err) < 0)
		goto out;
	drain_notes(r);
	operate(r, sfd);
	reached = 3;
out:
	drain_notes(r);
	{
		int rc = teardown(r, reached, err);
		if (sfd >= 0)
			close(sfd);
		return rc;
	}
}

int sp_soak_run(const sp_soak_opts *o, sp_error *err)
{
	struct run *r = run_new(o);
	int rc = -1;
	if (sp_workload_load(&r->w, o->workload, err) < 0 || sp_soak_plan(r, err) < 0 || sp_soak_identity(r, err) < 0 ||
	    sp_soak_guard_leftovers(r, err) < 0)
		goto out;
	int code = -1;
	int g = sp_soak_guard_start(r, &code, err);
	if (g < 0) {
		sp_soak_guard_finish(r, true, "could not start"); /* nothing was started: journal and cgroup go */
		goto out;
	}
	if (g == 1) { /* the supervisor: the run is over */
		drain_notes(r);
		rc = code;
		goto out;
	}
	rc = run_as_runner(r, err);
out:
	run_free(r);
	return rc;
}
