/* `sandprobe soak`: run a workload, write the evidence bundle, verify it;
 * and `sandprobe soak --reconcile`: remove what a dead run left behind. */
#ifndef SP_SOAK_RUNNER_H
#define SP_SOAK_RUNNER_H

#include <stdbool.h>

#include "core/error.h"
#include "core/util.h"

/* Progress goes through one sink; only cmd/ prints it. The runner calls the
 * sink from its main thread only. */
typedef enum {
	SP_SOAK_EV_START,  /* text: what runs, where the bundle goes */
	SP_SOAK_EV_STATUS, /* st: a status (after_sample: right after a sample; else a redraw tick) */
	SP_SOAK_EV_NOTE,   /* text: one line the user should see (a failed step, a signal, a stall) */
	SP_SOAK_EV_DONE,   /* text: the run's closing line, before the verdict */
	SP_SOAK_EV_VERIFY, /* text: the verifier's output for the bundle */
} sp_soak_ev_kind;

typedef struct sp_soak_status {
	double elapsed_s;
	long long duration_s; /* 0 for R0 */
	bool r0, after_sample;
	long long ops, fail, faults, samples;
	long long owned_procs, owned_fds, owned_mounts;
	double owned_rss_mib;
} sp_soak_status;

typedef struct sp_soak_event {
	sp_soak_ev_kind kind;
	const char *text;
	const sp_soak_status *st;
} sp_soak_event;

typedef void (*sp_soak_sink)(void *ctx, const sp_soak_event *ev);

/* one extra metadata.txt line (key=value) */
typedef struct sp_soak_meta {
	const char *key, *value;
} sp_soak_meta;

typedef struct sp_soak_opts {
	const char *workload;
	const char *profile;       /* R0 G2 R24 E72 */
	const char *out;
	const char *sign_key;
	const char *metrics_file;
	long long duration_s;      /* -1: the profile's */
	long long sample_interval_s; /* -1: the profile's default */
	int concurrency;           /* 0: the workload's */
	unsigned long long seed;
	bool seed_set;
	sp_soak_sink sink;         /* NULL: no progress */
	void *sink_ctx;
	/* release-gate identity (--lane, --artifact; docs/plan-format.md),
	 * validated and hashed by cmd/soak.c: written into metadata.txt as given */
	const sp_soak_meta *extra_meta;
	size_t nextra_meta;
} sp_soak_opts;

/* Runs the whole soak. Returns the exit code of the verifier run on the
 * finished bundle (>= 0), or -1 with err filled (err->exit_code 2: bad
 * input, nothing started; 3: internal error, the bundle is incomplete). */
int sp_soak_run(const sp_soak_opts *o, sp_error *err);

/* Remove what dead runs left under state_root: for each journal no live run
 * holds, kill the processes the run provably owns, run the journaled
 * cleanup and teardown steps, unmount, remove its cgroups and state
 * directory, then prove each gone and remove the journal. report gets one
 * line per action and proof. Returns 0 when nothing is left (or nothing was
 * there), 1 when something could not be removed, -1 with err on bad input. */
int sp_soak_reconcile(const char *state_root, sp_strv *report, sp_error *err);

#endif
