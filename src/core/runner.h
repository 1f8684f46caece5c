/* The runner: runs selected checks, each isolated, and collects a report.
 * A check that can hang or crash runs in a forked child (own process group)
 * with a timeout; a crash becomes an `error` result naming the signal. */
#ifndef SP_RUNNER_H
#define SP_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/check.h"

typedef struct sp_doctor_run_opts {
	bool strict;       /* a skip becomes a failure */
	bool stop_on_fail; /* -x */
	bool timeout_forced; /* --timeout-ms given: overrides each check's own */
	unsigned jobs;       /* checks (batches) run at once, each in its own worker;
	                    * 0 or 1: one after the other. -x and a timeout hook
	                    * run one at a time whatever it says */
} sp_doctor_run_opts;

typedef struct sp_env {
	char runtime_guess[64];    /* "docker+gvisor", "runc", "bwrap" ... */
	char engine[32];           /* docker, podman, containerd, nspawn ... or "" */
	char runtime[32];          /* runc, crun, gvisor, kata, firecracker, qemu ... or "" */
	char runtime_signals[512];
	char kernel[128];
	char arch[32];
	unsigned uid;
	sp_boundary boundary;      /* which kernel the sandbox talks to */
	bool boundary_accepted;    /* kernel.separate_kernel accepts it */
} sp_env;

typedef struct sp_result_summary {
	size_t pass, fail, skip, warn, error;
} sp_result_summary;

typedef struct sp_report {
	sp_result *results;
	size_t n;
	sp_result_summary sum;
	char started_at[32];
	double duration_ms;
	bool failed;
	bool stopped_early; /* -x */
	sp_env env;
} sp_report;

/* Every selected check skipped: nothing was proven, which is not a pass
 * (exit 1, result "skip" in every format). */
static inline bool sp_report_nothing_proven(const sp_report *rep)
{
	return !rep->failed && rep->n > 0 && rep->sum.skip == rep->n;
}
/* the run's result word: "fail", "skip" (nothing proven) or "pass" */
static inline const char *sp_report_result(const sp_report *rep)
{
	return rep->failed ? "fail" : sp_report_nothing_proven(rep) ? "skip"
								    : "pass";
}

/* Called, when set, for a forked probe that ran out of time, before it is
 * killed (pid leads its process group): doctor --bundle keeps the probe's
 * state and the machine's load at that moment. */
typedef void (*sp_timeout_hook)(const sp_check *c, pid_t pid, unsigned timeout_ms, void *arg);
void sp_set_timeout_hook(sp_timeout_hook fn, void *arg);

/* What the policy's [expect] section says of a check (last match wins). */
sp_expect sp_policy_expect(const sp_policy *p, const char *id);
/* Run checks[0..n) (already selected) in the environment env (filled by the
 * caller: src/checks/runtime.h's sp_env_fill for the doctor). Never fails:
 * problems are results. With o->jobs > 1, up to that many checks (a batch
 * counts as one) run at once in forked workers, each exactly as a run one
 * at a time would run it; results keep the catalogue's order. */
void sp_run(const sp_ctx *ctx, const sp_env *env, const sp_check *const *checks, size_t n, const sp_doctor_run_opts *o,
	    sp_report *rep);
/* -j's default: the online CPUs this process may run on */
unsigned sp_run_default_jobs(void);
/* Run one check (isolated as its descriptor says) into r. */
void sp_run_one(const sp_ctx *ctx, const sp_check *c, unsigned timeout_ms, sp_result *r);
/* The timeout a batch runs under (--timeout-ms forced overrides it). */
unsigned sp_batch_timeout(const sp_ctx *ctx, const sp_batch *b, bool forced);
void sp_report_free(sp_report *rep);
/* Judge a result of a check that carries SP_CHECK_KERNEL_* bits against the
 * kernel boundary b: say in observed which kernel the proof is about, and
 * when the policy accepts the separate kernel, a property it provides passes. */
void sp_judge_boundary(const sp_ctx *ctx, const sp_boundary *b, const sp_check *c, sp_result *r);

#endif
