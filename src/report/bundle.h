/* A read-only view of an evidence bundle (docs/evidence-format.md) for the
 * report: metadata, samples, operations, latency, capabilities, faults and
 * summary. Every malformed value is a usage error naming file:line and the
 * column. Lines, fields, headers and metadata keys are read by the
 * evidence readers (src/evidence/) that verify uses, and every value with
 * the evidence parsers verify uses (sp_ev_parse_dec, sp_ev_parse_int,
 * sp_ev_is_iso8601, sp_ev_is_fault_id); the wording of the messages is the
 * report's ('-' marks an absent sample counter or, in faults.tsv, an end not
 * reached). summary.json is read by the
 * verifier's own reader (sp_ev_summary_load_drawn: only the fields the bundle
 * marks absent may be missing). */
#ifndef SP_REPORT_BUNDLE_H
#define SP_REPORT_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "evidence/evidence.h"

typedef enum rp_result { RP_OK, RP_FAIL, RP_EXPECTED_FAULT } rp_result;
typedef enum rp_phase { RP_PHASE_START, RP_PHASE_PERIODIC, RP_PHASE_FINAL } rp_phase;

typedef struct rp_op {
	double ts, latency_ms;
	unsigned scenario; /* index into rp_bundle.scenarios */
	rp_result result;
} rp_op;

typedef struct rp_lat {
	double ts, latency_ms;
	unsigned scenario;
	bool warmup;
} rp_lat;

typedef struct rp_capability {
	char *scenario;
	long long attempted, succeeded, expected_faults, unexpected_failures;
	bool pass;
} rp_capability;

typedef struct rp_fault {
	char *id, *target, *expected;
	double started, ended;        /* ended NaN when '-' (not recovered) */
	double recovery_ms, rto_ms;   /* recovery NaN when '-' */
	bool pass;
} rp_fault;

typedef struct rp_bundle {
	char *dir;
	/* metadata.txt, in file order (parsed by src/evidence/) */
	sp_ev_kv *meta;
	size_t nmeta;
	/* resource-samples.tsv: every column but wall and phase, by name */
	size_t nsamples, ncols;
	char **col_name;
	double **col;     /* col[c][row] */
	rp_phase *phase;
	/* scenario names: declared ones first, then any seen in the rows */
	char **scenarios;
	size_t nscenarios;
	rp_op *ops;
	size_t nops;
	rp_lat *lat;
	size_t nlat;
	rp_capability *caps;
	size_t ncaps;
	rp_fault *faults;
	size_t nfaults;
	/* summary.json (NaN / -1 / NULL for a field the bundle marks absent) */
	sp_ev_summary summary;
} rp_bundle;

/* Read the bundle in dir. 0, or -1 with err set (exit 2: names file:line). */
int rp_bundle_load(rp_bundle *b, const char *dir, sp_error *err);
void rp_bundle_free(rp_bundle *b);

const char *rp_meta(const rp_bundle *b, const char *key); /* NULL when absent */
/* the samples column named name, or NULL */
const double *rp_column(const rp_bundle *b, const char *name);
/* warm-up end as docs/evidence-format.md defines it: summary's value when
 * present, else max(metadata warmup_s, ts at which every declared scenario
 * has two finished operations) */
double rp_warmup_end(const rp_bundle *b);
/* the latest ts in samples, operations and latency rows (0 when none) */
double rp_time_max(const rp_bundle *b);

#endif
