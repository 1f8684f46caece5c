/* `sandprobe soak`: the scheduler, sampler thread, faults and evidence. */
#ifndef SP_SOAK_RUNNER_H
#define SP_SOAK_RUNNER_H

#include <stdbool.h>

#include "core/error.h"

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
	bool quiet;
	/* release-gate identity (--lane, --artifact; docs/plan-format.md),
	 * validated and hashed by cmd/soak.c: written into metadata.txt as given */
	const sp_soak_meta *extra_meta;
	size_t nextra_meta;
} sp_soak_opts;

/* Runs the whole soak and returns the exit code of the verifier run on the
 * finished bundle; -1 for a usage error (err filled, nothing started) and
 * -3 for an internal error (err filled; the bundle is left incomplete). */
int sp_soak_run(const sp_soak_opts *o, sp_error *err);

/* Profile table lookups, for the command line and the tests. */
int sp_soak_profile(const char *name, long long *duration_s, long long *max_interval_s, long long *min_periodic);

#endif
