/* Internal to src/soak/: the state of one soak run and the functions its
 * parts share. One file per responsibility, in floors: a file calls only
 * the floors below its own (tools/layers shows no circle):
 *   runner.c     the run's lifecycle: plan -> guard -> setup -> operate ->
 *                one teardown path -> verdict
 *   plan.c       profiles, thresholds, the run's identity (nothing created)
 *   scheduler.c  workers: picks, rate, cycles, steps; reaches the faults
 *                through one entry (sp_soak_fault_step)
 *   faults.c     the fault injector (F01/F07 interruptions, F02/F03/F04/F06
 *                pid files) and the entry to the others: fault_registry.c
 *                (F05), fault_upgrade.c (F09), fault_netloss.c (F06 cut),
 *                fault_vm.c (F08); they run steps through the run's step
 *                runner (r->sch.run_step), never calling the scheduler
 *   sampling.c   the sampler thread (counters, samples) and the reaper thread
 *   guard.c      what makes the run safe to die: the supervisor process, the
 *                run's own cgroup, the journal, leftovers and --reconcile
 *   recorder.c   the evidence written as the run goes (rows that never tear,
 *                metadata, inventory, summary, metrics)
 *   base.c       the bottom floor (soak/base.h): notes, clock, stop flag,
 *                argv, paths, ports, command lines, step lists
 * Threads: the main thread (control loop, teardown, the only caller of the
 * progress sink), the workers, the sampler and the reaper. Shared flags are
 * atomics; everything else a thread shares is under r->mu (scheduler),
 * r->rec.rows_mu (rows and totals) or r->notes.mu (notes for the sink). */
#ifndef SP_SOAK_RUN_H
#define SP_SOAK_RUN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <openssl/evp.h>

#include "core/error.h"
#include "core/util.h"
#include "soak/base.h"
#include "soak/bundle.h"
#include "soak/proc.h"
#include "soak/runner.h"
#include "soak/sampler.h"
#include "soak/workload.h"

/* ---- plan.c ---- */
struct sp_profile {
	const char *name;
	long long duration_s, max_interval_s, min_periodic, default_interval_s, max_gap_s, warmup_s;
	const char *min_success;
};

/* ---- recorder.c: an append-only TSV that never holds a torn row ---- */
struct rowfile {
	const char *name;
	int fd;
	char *buf;            /* complete rows not yet written */
	size_t len, cap;
	off_t good;           /* the file's length up to its last complete row */
	int err;              /* errno of the last failed write, 0 when written */
	bool stalled_noted;
};

struct scen_state {
	const sp_soak_scenario *sc;
	char sid[64];         /* <prefix>-<id lowercased> */
	int busy;             /* r->mu */
	bool started, start_attempted;
	unsigned long long gen;
	long long cycles;
	/* r->rows_mu */
	long long attempted, ok, fail, expected_fault, finished;
};

/* guard.c: the journal, the run cgroup and the supervisor */
struct guard {
	char *journal;        /* <state_root>/<run prefix>.journal */
	int journal_fd;       /* flock'ed for the run's lifetime (shared with the supervisor) */
	pthread_mutex_t journal_mu;
	char *cgroup;         /* absolute path of the run's own cgroup, NULL when none */
	char *cgroup_name;    /* its directory name (<run prefix>.runner) */
	bool in_cgroup;       /* the runner moved itself into it */
	pid_t supervisor;     /* the parent process that outlives the runner */
	bool is_runner;       /* this process is the runner (the supervisor's child) */
	atomic_int orphaned;  /* the supervisor died: abort and clean up alone */
	char **mounts_seen;   /* mounts already journaled (bounded) */
	size_t nmounts_seen;
};

/* the recorder's state: the bundle, its rows and the totals they add up to
 * (rows_mu: rows, totals, samples' bookkeeping) */
struct recorder_state {
	sp_soak_bundle b;
	bool bundle_made;
	struct rowfile ops, lat, samples, faults;
	bool streams_open;
	pthread_mutex_t rows_mu;
	long long n_ops, n_ok, n_fail, n_fault;
	size_t nready;        /* scenarios with >= 2 finished operations */
	double warmup_end;    /* < 0 until known */
	atomic_int rows_fatal; /* the rows backlog outgrew its bound */
	long long metrics_failures;
	bool metrics_noted;
	sp_soak_sample last;
	long long sample_count, periodic_count;
	double first_ts, last_ts, max_gap;
	uint64_t t0_ns, start_sample_ns;
};

/* the sampler thread's and the reaper thread's state */
struct sampling_state {
	sp_soak_sampler *sampler;
	pthread_t sampler_thr, reaper_thr;
	bool sampler_running, reaper_running;
	int sampler_timer, sampler_kick, sampler_quit, reaper_quit;
	atomic_int sampler_stop; /* interrupts a hanging counter */
	long long *counter_last;  /* last value each counter read */
	bool *counter_noted;
	atomic_llong counter_failures;
	atomic_int new_sample;   /* a sample was taken since the last status */
	bool baseline_unproven;  /* a counter failed in the start or final sample */
};

/* the workers' shared state (mu, except the atomics) */
struct sched_state {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t next_r0;
	unsigned long long rng;
	uint64_t next_slot_ns;
	long long class_cycles[SP_CLASS_COUNT];
	int workers_running;
	char stop_condition[16];
	atomic_int stop;      /* 1 stop launching, 2 also kill in-flight operations */
	atomic_int abort_ops; /* in-flight operations are killed while it is set */
	sp_soak_step_fn run_step; /* sp_soak_run_step, for the floors below (soak/base.h) */
};

struct run {
	const sp_soak_opts *o;
	sp_soak_workload w;

	/* plan: fixed before anything is created, read-only afterwards */
	const struct sp_profile *base;
	char profile[8];
	bool r0;
	long long duration_s, interval_s, warmup_s;
	long long min_span_s, max_interval_s, min_periodic, max_gap_s;
	double rss_slope;
	const char *min_success;
	int concurrency;
	unsigned long long seed;
	EVP_PKEY *key;
	char run_id[64], short_id[16], prefix[40];
	char *state_dir, *rootfs, *exe;
	sp_soak_vars gvars;
	char **envp;
	uint64_t rate_interval_ns;
	struct scen_state *ss;

	struct guard g;
	struct recorder_state rec;
	struct sampling_state smp;
	struct sched_state sch;

	/* lifecycle (main thread) */
	bool cleanup_ok;
	int leftovers;
	struct notes notes; /* for the sink, drained by the main thread */
	uint64_t last_status_ns;
};

/* plan.c */
const struct sp_profile *sp_soak_find_profile(const char *name);
int sp_soak_plan(struct run *r, sp_error *err);
int sp_soak_identity(struct run *r, sp_error *err);

/* scheduler.c; sp_soak_run_step is an sp_soak_step_fn (soak/base.h) */
enum op_result sp_soak_run_step(struct run *r, struct scen_state *st, const sp_soak_wstep *step, unsigned long long gen,
				bool paced, int interrupt_ms, int interrupt_sig, sp_soak_proc_result *res_out);
void *sp_soak_worker(void *arg);

/* faults.c */
/* the cycle's step i is the fault's: run it (F01/F07) or inject after it
 * (F02/F03/F06); returns true when the cycle is over */
bool sp_soak_fault_step(struct run *r, struct scen_state *st, const sp_soak_wstep *step, unsigned long long gen);

/* fault_registry.c (F05) and fault_upgrade.c (F09): inject the scenario's
 * fault after its step, run the recover steps, record it */
void sp_soak_registry_fault(struct run *r, struct scen_state *st, unsigned long long gen);
void sp_soak_upgrade_fault(struct run *r, struct scen_state *st, unsigned long long gen);

/* fault_netloss.c: F06 with 'cut', a bounded connection loss after the step */
void sp_soak_inject_netloss(struct run *r, struct scen_state *st, unsigned long long gen);

/* ---- fault_vm.c: F08, the canary VM reset through QMP ---- */
void sp_soak_inject_vm_fault(struct run *r, struct scen_state *st, unsigned long long gen);

/* recorder.c */
int sp_soak_open_streams(struct run *r, sp_error *err);
void sp_soak_close_streams(struct recorder_state *rec);
int sp_rows_flush(struct rowfile *rf);
void sp_soak_flush_rows(struct recorder_state *rec); /* rows_mu held by the caller */
void sp_soak_record_op(struct run *r, struct scen_state *st, const char *op, enum op_result res, uint64_t start_ns,
		       uint64_t end_ns, unsigned long long gen, const char *code);
void sp_soak_record_fault(struct recorder_state *rec, const sp_soak_wfault *f, const char *target, double started, double ended,
			  long long recovery_ms, bool pass);
void sp_soak_record_sample(struct run *r, sp_soak_sample *s);
int sp_soak_write_metadata(struct run *r, sp_error *err);
int sp_soak_write_inventory(struct run *r, const char *file, sp_error *err);
int sp_soak_write_capabilities(struct run *r, sp_error *err);
int sp_soak_write_summary(struct run *r, double final_ts, sp_error *err);
void sp_soak_write_metrics(struct run *r, const sp_soak_sample *s);
void sp_soak_fill_status(struct run *r, sp_soak_status *st);

/* sampling.c */
void sp_soak_take_sample(struct run *r, const char *phase);
int sp_soak_sampler_start(struct run *r, sp_error *err);
void sp_soak_sampler_stop(struct sampling_state *smp);
void sp_soak_kick_sampler(struct sampling_state *smp);
int sp_soak_reaper_start(struct sampling_state *smp);
void sp_soak_reaper_stop(struct sampling_state *smp);

/* guard.c */
int sp_soak_guard_leftovers(struct run *r, sp_error *err);
/* Create the journal and the run cgroup, then fork: the parent becomes the
 * supervisor and returns 1 once the runner is gone (*exit_code, or -1 with
 * err filled when it had to clean up after a runner that died); the child,
 * the runner, returns 0. -1 with err: nothing was started. */
int sp_soak_guard_start(struct run *r, int *exit_code, sp_error *err);
/* journal records of what the run creates: mounts under the state dir, as
 * the sampler sees them (bounded) */
void sp_soak_journal_mounts(struct run *r);
void sp_soak_journal_event(struct run *r, const char *type, const char *key, const char *value);
/* Kill every process the run provably owns and unmount owned mounts;
 * returns how many leftovers were found. */
int sp_soak_sweep(struct run *r);
/* kill the members of and remove every cgroup named with the run prefix
 * but the runner's own (the supervisor died: nobody else will) */
void sp_soak_remove_run_cgroups(struct run *r);
/* remove the state directory (never crossing into a mount) */
void sp_soak_remove_state(struct run *r);
/* The run's end: leave and remove the run cgroup and the state directory;
 * remove the journal when clean (nothing of the run is left), else record
 * why it stays. */
void sp_soak_guard_finish(struct run *r, bool clean, const char *why);
void sp_soak_guard_free(struct run *r);

#endif
