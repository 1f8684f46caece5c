/* Internal to src/soak/: the bottom floor of a soak run, beside run.h. What
 * every part uses and nothing above it: the notes for the sink, the run's
 * clock, the stop flag, placeholder and argv expansion, directory and path
 * checks, the metrics path check, a command's lines, a port file and a
 * loopback port, and the step lists (drain steps through the run's step
 * runner, global steps). base.c calls only the files below src/soak's parts
 * (proc, bundle, workload) and core/; every part may call it, it
 * calls no part. The scheduler's step runner reaches it as a callback
 * (struct sched_state's run_step), so faults run steps without calling up. */
#ifndef SP_SOAK_BASE_H
#define SP_SOAK_BASE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/util.h"
#include "soak/proc.h"
#include "soak/workload.h"

struct run;
struct scen_state;
struct sched_state;

/* the notes for the sink: any thread adds, the main thread drains */
struct notes {
	pthread_mutex_t mu;
	sp_strv v;
};

enum op_result {
	OP_OK,
	OP_FAIL,
	OP_FAULT,
	OP_SKIPPED
};

/* Run one step as an operation (the scheduler's sp_soak_run_step, which
 * the run holds as r->sch.run_step). paced: a cycle or start step (waits
 * for its rate slot, and does not start after the stop: OP_SKIPPED,
 * nothing recorded); drain steps (recover, stop) are not paced.
 * interrupt_ms >= 0: a planned interruption (F01/F07). */
typedef enum op_result (*sp_soak_step_fn)(struct run *r, struct scen_state *st, const sp_soak_wstep *step,
					  unsigned long long gen, bool paced, int interrupt_ms, int interrupt_sig,
					  sp_soak_proc_result *res_out);

/* ---- notes, clock, stop ---- */
/* one line for the sink, drained by the main thread (at most 256 wait) */
void sp_soak_note(struct notes *n, const char *fmt, ...) SP_PRINTF(2, 3);
/* seconds since the run started, rounded to the millisecond the bundle prints */
double sp_soak_ts_now(const struct run *r);
double sp_soak_ns_to_ts(const struct run *r, uint64_t ns);
/* touch (and free) a block of the calling thread's malloc arena: the
 * arena's pages are resident before the run's first operation, so the
 * runner's memory does not creep as allocations first reach them */
void sp_soak_reserve_heap(void);
/* level 1: stop launching; 2: also kill in-flight operations. cond: the
 * stop condition summary.json names (the first one, or the first level 2) */
void sp_soak_set_stop(struct sched_state *sch, int level, const char *cond);
/* sleep ms, or less when in-flight operations are being killed */
void sp_soak_sleep_unless_aborted(struct sched_state *sch, int ms);

/* ---- argv and placeholders ---- */
char **sp_soak_expand_argv(const sp_strv *tmpl, const sp_soak_vars *v);
void sp_soak_free_argv(char **argv);
char *sp_soak_join_argv(char **argv);
/* the run's placeholders with the scenario's and generation's ({id},
 * {sid}, {gen}, {scenario}); idbuf and genbuf hold their text */
void sp_soak_vars_for(struct run *r, struct scen_state *st, unsigned long long gen, sp_soak_vars *v, char *idbuf,
		      size_t idsz, char *genbuf, size_t gensz);

/* ---- paths and files ---- */
bool sp_soak_dir_exists(const char *p);
/* is path (expanded) inside the run's state dir (no "..")? */
bool sp_soak_path_in_state(const struct run *r, const char *path);
/* --metrics-file: not a directory, and its NAME.tmp can be written */
int sp_soak_check_metrics_path(const char *path, sp_error *err);
/* the port a port file holds (1-65535), or -1 */
int sp_soak_port_read(const char *path);
/* does 127.0.0.1:port accept within 300 ms (1, 0; -1 no socket) */
int sp_soak_port_accepts(int port);
/* run cmd (placeholders expanded with v); its stdout lines (trimmed,
 * non-empty), sorted; -1 when it could not run, did not exit 0 or printed
 * more than a capture keeps (F04/F09's tasks, F08's state) */
int sp_soak_command_lines(struct run *r, const sp_strv *cmd, const sp_soak_vars *v, sp_strv *out);

/* ---- step lists ---- */
/* a list of drain steps (recover, stop, start's recovery) through the run's
 * step runner; false at the first failure */
bool sp_soak_run_steps(struct run *r, struct scen_state *st, const sp_soak_wsteps *steps, unsigned long long gen);
/* Global steps (setup, cleanup, teardown) with logs/<section>.<op>.log;
 * true when all succeeded. max_timeout_ms > 0 caps each step's timeout (a
 * runner cleaning up after its own supervisor died has little time). */
bool sp_soak_run_global_steps(struct run *r, const sp_soak_wsteps *steps, const char *section, int max_timeout_ms);

#endif
