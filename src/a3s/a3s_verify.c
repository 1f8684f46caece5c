/* sandprobe verify --format a3s: A3S Box host and RuntimeClass cluster
 * bundles judged by A3S's own rules (deploy/scripts/verify-soak-evidence.sh
 * in A3S-Lab/Box: duration against the sample span, minimum samples, span
 * and gap, monotonic timestamps, one final (and start) sample, cleanup
 * counters, result and failed iterations, per-iteration logs, and the
 * cluster's RuntimeClass, node, pod, job, exec, event and post-cleanup
 * proofs), and by sandprobe's where the data allows (a real calendar, wall
 * clock plausibility, start first and final last, conflicting keys, profile
 * claims, an RSS slope when a column records RSS). A3S stops at its first
 * failure; here every gate is evaluated and reported, each with its id
 * (a3s.*, in the one gate catalogue of src/evidence/ev_gates.c). */
#include "a3s/a3s.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "core/outcome.h"
#include "core/util.h"
#include "yaml/ytree.h"

/* A3S's allowance of the summary's duration_secs against the sample span */
#define A3S_SKEW_S 60
#define WALL_SKEW_S 5.0

typedef struct ctx {
	const char *dir;
	sp_ev_verdict *v;
	sp_ev_a3s_opts o;
	bool cluster;
	const char *label; /* "host" or "cluster" */
	double now, started_at;
	a3s_kv meta, sum;
	bool have_sum;
	long long min_dur, min_samples, min_span, max_gap;
	bool meta_ok;
	/* resource-samples.tsv */
	a3s_table t;
	bool t_loaded, t_ok; /* loaded; columns and every value typed */
	double *ep;	     /* timestamp of each row, seconds since the epoch */
	int c_phase;
	bool mono_ok, phases_ok;
	double span;
	bool have_duration;
	long long duration;
	/* cluster */
	bool skip_smoke, skip_jobs, skip_complex, cleanup;
	long long job_completions;
	const char *runtime_class, *handler;
} ctx;

#define GATE(pass, id, m, t, ...) sp_verdict_add(c->v, pass, id, m, t, __VA_ARGS__)

static const char *kvs(const a3s_kv *kv, const char *key)
{
	const char *v = a3s_kv_get(kv, key);
	return v ? v : "";
}

/* ---- metadata ------------------------------------------------------------ */
/* one flag of selected_suites ("core=0 host=1 ..."); NULL when absent */
static const char *suite_flag(const char *suites, const char *key, char *buf, size_t bufsz)
{
	size_t kl = strlen(key);
	for (const char *p = suites; *p;) {
		while (*p == ' ' || *p == '\t')
			p++;
		const char *e = p;
		while (*e && *e != ' ' && *e != '\t')
			e++;
		const char *eq = memchr(p, '=', (size_t)(e - p));
		if (eq && (size_t)(eq - p) == kl && !memcmp(p, key, kl)) {
			snprintf(buf, bufsz, "%.*s", (int)(e - eq - 1), eq + 1);
			return buf;
		}
		p = e;
	}
	return NULL;
}

static const char *const suite_keys[] = {"core", "host", "linux_run", "cri", "bench"};

/* "metadata.txt line N" or "metadata.txt" when key is absent */
static const char *where(const a3s_kv *m, const char *key, char *buf, size_t bufsz)
{
	unsigned l = a3s_kv_line(m, key);
	if (l)
		snprintf(buf, bufsz, "metadata.txt line %u", l);
	else
		snprintf(buf, bufsz, "metadata.txt");
	return buf;
}

/* 0, or -1 with the first problem of the metadata in o; sets the thresholds */
static int check_meta(ctx *c, sp_outcome *o)
{
	const a3s_kv *m = &c->meta;
	if (m->conflict[0])
		return sp_why(o, "metadata.txt %s", m->conflict);
	if (!*kvs(m, "run_id"))
		return sp_why(o, "metadata.txt: run_id missing or empty");
	const char *sa = kvs(m, "started_at");
	if (sp_ev_parse_iso8601(sa, strlen(sa), &c->started_at) < 0) {
		c->started_at = NAN;
		return sp_why(o, "metadata.txt line %u: started_at '%.40s' is not an ISO 8601 UTC time of a real date",
			      a3s_kv_line(m, "started_at"), sa);
	}
	const char *const *ints;
	static const char *const host_ints[] = {"soak_duration_secs", "soak_iterations", "soak_interval_secs",
						"soak_verify_min_duration_secs", "soak_verify_min_samples",
						"soak_verify_min_sample_span_secs", "soak_verify_max_sample_gap_secs", NULL};
	static const char *const cluster_ints[] = {"verify_min_duration_secs", "verify_min_samples",
						   "verify_min_sample_span_secs", "verify_max_sample_gap_secs", NULL};
	if (!c->cluster) {
		const char *suites = a3s_kv_get(m, "selected_suites");
		if (!suites || !*suites)
			return sp_why(o, "metadata.txt: selected_suites missing or empty");
		int selected = 0;
		for (size_t i = 0; i < SP_ARRAY_SIZE(suite_keys); i++) {
			char b[32];
			const char *f = suite_flag(suites, suite_keys[i], b, sizeof b);
			if (!f)
				return sp_why(o, "metadata.txt line %u: selected_suites has no %s flag",
					      a3s_kv_line(m, "selected_suites"), suite_keys[i]);
			if (strcmp(f, "0") && strcmp(f, "1"))
				return sp_why(o, "metadata.txt line %u: selected_suites %s=%.20s is not 0 or 1",
					      a3s_kv_line(m, "selected_suites"), suite_keys[i], f);
			selected += f[0] == '1';
		}
		if (!selected)
			return sp_why(o, "metadata.txt line %u: selected_suites selects no work",
				      a3s_kv_line(m, "selected_suites"));
		ints = host_ints;
	} else {
		static const char *const texts[] = {"runtime_class", "runtime_class_handler"};
		for (size_t i = 0; i < 2; i++)
			if (!*kvs(m, texts[i]))
				return sp_why(o, "metadata.txt: %s missing or empty", texts[i]);
		static const char *const bools[] = {"skip_smoke", "skip_jobs", "skip_complex", "cleanup", "dry_run"};
		for (size_t i = 0; i < SP_ARRAY_SIZE(bools); i++) {
			const char *b = a3s_kv_get(m, bools[i]);
			char wb[40];
			if (!b)
				return sp_why(o, "metadata.txt: %s missing (0 or 1 wanted)", bools[i]);
			if (strcmp(b, "0") && strcmp(b, "1"))
				return sp_why(o, "%s: %s '%.20s' is not 0 or 1", where(m, bools[i], wb, sizeof wb),
					      bools[i], b);
		}
		c->runtime_class = kvs(m, "runtime_class");
		c->handler = kvs(m, "runtime_class_handler");
		c->skip_smoke = !strcmp(kvs(m, "skip_smoke"), "1");
		c->skip_jobs = !strcmp(kvs(m, "skip_jobs"), "1");
		c->skip_complex = !strcmp(kvs(m, "skip_complex"), "1");
		c->cleanup = !strcmp(kvs(m, "cleanup"), "1");
		if (!c->skip_jobs) {
			if (!*kvs(m, "job_name"))
				return sp_why(o, "metadata.txt: job_name missing or empty (jobs not skipped)");
			if (!a3s_is_uint(kvs(m, "job_completions"), &c->job_completions) || c->job_completions < 1)
				return sp_why(o, "metadata.txt: job_completions '%.20s' is not a positive integer",
					      kvs(m, "job_completions"));
		}
		ints = cluster_ints;
	}
	long long val[7] = {0};
	size_t k = 0;
	for (; ints[k]; k++)
		if (!a3s_is_uint(a3s_kv_get(m, ints[k]), &val[k])) {
			char wb[40];
			if (!a3s_kv_get(m, ints[k]))
				return sp_why(o, "metadata.txt: %s missing (a non-negative integer wanted)", ints[k]);
			return sp_why(o, "%s: %s '%.20s' is not a non-negative integer", where(m, ints[k], wb, sizeof wb),
				      ints[k], kvs(m, ints[k]));
		}
	/* the verifier gates the run fixed: the stricter of them and the flags */
	long long *g = c->cluster ? val : val + 3;
	c->min_dur = c->o.min_duration_s > g[0] ? c->o.min_duration_s : g[0];
	c->min_samples = c->o.min_samples > g[1] ? c->o.min_samples : g[1];
	c->min_span = c->o.min_span_s > g[2] ? c->o.min_span_s : g[2];
	c->max_gap = !c->o.max_gap_s ? g[3] : !g[3] ? c->o.max_gap_s : c->o.max_gap_s < g[3] ? c->o.max_gap_s : g[3];
	return 0;
}

/* ---- the summary ------------------------------------------------------------ */
static void gate_result(ctx *c, const char *summsg)
{
	if (!c->have_sum) {
		GATE(false, SP_GREF(A3S_RESULT), "missing", "pass", "%s", summsg);
		return;
	}
	if (c->sum.conflict[0]) {
		GATE(false, SP_GREF(A3S_RESULT), "conflict", "pass", "summary.txt %s", c->sum.conflict);
		return;
	}
	const char *r = a3s_kv_get(&c->sum, "result");
	if (r && !strcmp(r, "pass")) {
		GATE(true, SP_GREF(A3S_RESULT), "pass", "pass", "summary.txt: result=pass");
		return;
	}
	if (r && !strcmp(r, "fail")) {
		const char *fi = a3s_kv_get(&c->sum, "failed_iterations"), *ec = a3s_kv_get(&c->sum, "exit_code"),
			   *fa = a3s_kv_get(&c->sum, "failed_at"), *fc = a3s_kv_get(&c->sum, "failed_command");
		if (c->cluster)
			GATE(false, SP_GREF(A3S_RESULT), "fail", "pass",
			     "summary.txt: the cluster soak failed: exit_code=%.20s failed_at=%.60s failed_command=%.80s",
			     ec ? ec : "missing", fa ? fa : "missing", fc ? fc : "missing");
		else
			GATE(false, SP_GREF(A3S_RESULT), "fail", "pass",
			     "summary.txt: the host soak failed: failed_iterations=%.20s exit_code=%.20s failed_at=%.60s failed_command=%.80s",
			     fi ? fi : "missing", ec ? ec : "not-recorded", fa ? fa : "not-recorded", fc ? fc : "not-recorded");
		return;
	}
	GATE(false, SP_GREF(A3S_RESULT), r ? r : "missing", "pass", "summary.txt: result is %.40s (not pass)",
	     r ? (*r ? r : "empty") : "missing");
}

static void gate_iterations(ctx *c)
{
	if (!c->have_sum) {
		sp_verdict_na(c->v, SP_GREF(A3S_ITERATIONS), "summary.txt is missing");
		return;
	}
	long long it = 0, fi = 0;
	const char *its = a3s_kv_get(&c->sum, "iterations"), *fis = a3s_kv_get(&c->sum, "failed_iterations");
	char m[48];
	if (!a3s_is_uint(its, &it))
		GATE(false, SP_GREF(A3S_ITERATIONS), its ? its : "missing", "> 0", "summary.txt: iterations '%.20s' is not a non-negative integer",
		     its ? its : "missing");
	else if (it == 0)
		GATE(false, SP_GREF(A3S_ITERATIONS), "0", "> 0", "summary.txt: the host soak ran zero iterations");
	else if (!a3s_is_uint(fis, &fi))
		GATE(false, SP_GREF(A3S_ITERATIONS), fis ? fis : "missing", "0 failed",
		     "summary.txt: failed_iterations '%.20s' is not a non-negative integer", fis ? fis : "missing");
	else if (fi != 0) {
		snprintf(m, sizeof m, "%lld failed", fi);
		GATE(false, SP_GREF(A3S_ITERATIONS), m, "0 failed", "summary.txt: the host soak reported failed_iterations=%lld", fi);
	} else {
		snprintf(m, sizeof m, "%lld, 0 failed", it);
		GATE(true, SP_GREF(A3S_ITERATIONS), m, "> 0, 0 failed", "%lld iteration(s), none failed", it);
	}
}

/* ---- resource-samples.tsv --------------------------------------------------- */
static const char *const host_counters[] = {"shims", "mounts", "box_dirs", "socket_dirs"};
static const char *const cluster_counters[] = {"selected_nodes", "pods_total",	"pods_pending", "pods_running",
					       "pods_succeeded", "pods_failed",	"pods_unknown", "pod_restarts",
					       "job_active",	 "job_succeeded", "job_failed"};

static long long cell_int(const ctx *c, size_t row, const char *col)
{
	long long v = 0;
	a3s_is_uint(a3s_cell(&c->t, row, a3s_table_col(&c->t, col)), &v);
	return v;
}

/* the last row of a phase (A3S's tsv_value), or SIZE_MAX */
static size_t last_of_phase(const ctx *c, const char *phase)
{
	size_t r = SIZE_MAX;
	for (size_t i = 0; i < c->t.nrow; i++)
		if (!strcmp(a3s_cell(&c->t, i, c->c_phase), phase))
			r = i;
	return r;
}

static void read_samples(ctx *c)
{
	sp_error e;
	const char *const *ctr = c->cluster ? cluster_counters : host_counters;
	size_t nctr = c->cluster ? SP_ARRAY_SIZE(cluster_counters) : SP_ARRAY_SIZE(host_counters);
	if (a3s_table_load(&c->t, c->dir, "resource-samples.tsv", &e) < 0) {
		GATE(false, SP_GREF(A3S_SAMPLES_COLUMNS), "unreadable", "all required", "%s", e.msg);
		sp_verdict_na(c->v, SP_GREF(A3S_SAMPLES_TYPES), e.msg);
		return;
	}
	c->t_loaded = true;
	int cts = a3s_table_col(&c->t, "timestamp");
	c->c_phase = a3s_table_col(&c->t, "phase");
	const char *missing = cts < 0 ? "timestamp" : c->c_phase < 0 ? "phase" : NULL;
	for (size_t i = 0; i < nctr && !missing; i++)
		if (a3s_table_col(&c->t, ctr[i]) < 0)
			missing = ctr[i];
	if (missing) {
		GATE(false, SP_GREF(A3S_SAMPLES_COLUMNS), missing, "all required",
		     "resource-samples.tsv: required column '%s' missing from the header", missing);
		sp_verdict_na(c->v, SP_GREF(A3S_SAMPLES_TYPES), "a required column is missing");
		return;
	}
	GATE(true, SP_GREF(A3S_SAMPLES_COLUMNS), "all required", "all required",
	     "resource-samples.tsv: timestamp, phase and the %s counters present", c->label);
	if (c->t.nrow == 0) {
		GATE(false, SP_GREF(A3S_SAMPLES_TYPES), "0 rows", "every value typed", "resource-samples.tsv: no sample rows");
		return;
	}
	c->ep = sp_xcalloc(c->t.nrow, sizeof *c->ep);
	for (size_t r = 0; r < c->t.nrow; r++) {
		const char *ts = a3s_cell(&c->t, r, cts);
		if (sp_ev_parse_iso8601(ts, strlen(ts), &c->ep[r]) < 0) {
			GATE(false, SP_GREF(A3S_SAMPLES_TYPES), "invalid", "every value typed",
			     "resource-samples.tsv line %u: timestamp '%.40s' is not an ISO 8601 UTC time of a real date",
			     c->t.line[r], ts);
			return;
		}
		for (size_t i = 0; i < nctr; i++) {
			long long x;
			const char *val = a3s_cell(&c->t, r, a3s_table_col(&c->t, ctr[i]));
			if (!a3s_is_uint(val, &x)) {
				GATE(false, SP_GREF(A3S_SAMPLES_TYPES), "invalid", "every value typed",
				     "resource-samples.tsv line %u: %s counter '%.40s' is not a non-negative integer", c->t.line[r],
				     ctr[i], val);
				return;
			}
		}
	}
	char m[32];
	snprintf(m, sizeof m, "%zu rows", c->t.nrow);
	GATE(true, SP_GREF(A3S_SAMPLES_TYPES), m, "every value typed", "resource-samples.tsv: %zu rows, timestamps real dates, counters integers",
	     c->t.nrow);
	c->t_ok = true;
}

static void gate_sample_order(ctx *c)
{
	static const sp_ev_gate_ref ids[] = {SP_GREF_INIT(A3S_SAMPLES_MONOTONIC), SP_GREF_INIT(A3S_SAMPLES_PHASES), SP_GREF_INIT(A3S_WALL)};
	if (!c->t_ok) {
		for (size_t i = 0; i < SP_ARRAY_SIZE(ids); i++)
			sp_verdict_na(c->v, ids[i], "resource-samples.tsv is invalid");
		return;
	}
	size_t bad = SIZE_MAX;
	for (size_t r = 1; r < c->t.nrow && bad == SIZE_MAX; r++)
		if (c->ep[r] < c->ep[r - 1])
			bad = r;
	if (bad != SIZE_MAX)
		GATE(false, SP_GREF(A3S_SAMPLES_MONOTONIC), "goes back", "non-decreasing",
		     "resource-samples.tsv line %u: timestamp %s is before the previous %s", c->t.line[bad],
		     a3s_cell(&c->t, bad, a3s_table_col(&c->t, "timestamp")),
		     a3s_cell(&c->t, bad - 1, a3s_table_col(&c->t, "timestamp")));
	else
		GATE(true, SP_GREF(A3S_SAMPLES_MONOTONIC), "non-decreasing", "non-decreasing", "%zu sample timestamps never go back",
		     c->t.nrow);
	c->mono_ok = bad == SIZE_MAX;
	c->span = c->ep[c->t.nrow - 1] - c->ep[0];

	/* one final row (and for a host one start row), as A3S counts them;
	 * here also start first and final last */
	size_t nstart = 0, nfinal = 0;
	for (size_t r = 0; r < c->t.nrow; r++) {
		const char *p = a3s_cell(&c->t, r, c->c_phase);
		nstart += !strcmp(p, "start");
		nfinal += !strcmp(p, "final");
	}
	char m[48];
	snprintf(m, sizeof m, "%zu start, %zu final", nstart, nfinal);
	const char *why = NULL;
	char wb[160];
	if (!c->cluster && nstart != 1)
		snprintf(wb, sizeof wb, "resource-samples.tsv: %zu start rows (exactly 1 wanted)", nstart), why = wb;
	else if (nfinal != 1)
		snprintf(wb, sizeof wb, "resource-samples.tsv: %zu final rows (exactly 1 wanted)", nfinal), why = wb;
	else if (!c->cluster && strcmp(a3s_cell(&c->t, 0, c->c_phase), "start"))
		snprintf(wb, sizeof wb, "resource-samples.tsv line %u: the first sample is not the start one", c->t.line[0]),
			why = wb;
	else if (strcmp(a3s_cell(&c->t, c->t.nrow - 1, c->c_phase), "final"))
		snprintf(wb, sizeof wb, "resource-samples.tsv line %u: the last sample is not the final one",
			 c->t.line[c->t.nrow - 1]),
			why = wb;
	if (why)
		GATE(false, SP_GREF(A3S_SAMPLES_PHASES), m, c->cluster ? "1 final, last" : "1 start first, 1 final last", "%s", why);
	else
		GATE(true, SP_GREF(A3S_SAMPLES_PHASES), m, c->cluster ? "1 final, last" : "1 start first, 1 final last",
		     c->cluster ? "one final sample, the last" : "one start sample first, one final sample last");
	c->phases_ok = !why;

	/* wall clock plausibility (sandprobe's): not before started_at, not in
	 * the future */
	if (isfinite(c->started_at) && c->ep[0] < c->started_at)
		GATE(false, SP_GREF(A3S_WALL), "before started_at", "after started_at, not in the future",
		     "resource-samples.tsv line %u: the first sample is before metadata started_at %s", c->t.line[0],
		     kvs(&c->meta, "started_at"));
	else if (c->ep[c->t.nrow - 1] > c->now + WALL_SKEW_S)
		GATE(false, SP_GREF(A3S_WALL), "in the future", "after started_at, not in the future",
		     "resource-samples.tsv line %u: the last sample is in the future", c->t.line[c->t.nrow - 1]);
	else if (isfinite(c->started_at) && c->started_at > c->now + WALL_SKEW_S)
		GATE(false, SP_GREF(A3S_WALL), "in the future", "after started_at, not in the future",
		     "metadata.txt: started_at %s is in the future", kvs(&c->meta, "started_at"));
	else
		GATE(true, SP_GREF(A3S_WALL), "plausible", "after started_at, not in the future",
		     "samples from metadata started_at on, none in the future");
}

static void gate_duration(ctx *c)
{
	static const sp_ev_gate_ref ids[] = {SP_GREF_INIT(A3S_DURATION), SP_GREF_INIT(A3S_MIN_DURATION), SP_GREF_INIT(A3S_MIN_SAMPLES), SP_GREF_INIT(A3S_MIN_SPAN), SP_GREF_INIT(A3S_MAX_GAP)};
	const char *why = !c->meta_ok ? "metadata.txt is invalid" : !c->t_ok ? "resource-samples.tsv is invalid"
							    : !c->mono_ok ? "sample timestamps go back" : NULL;
	if (why) {
		for (size_t i = 0; i < SP_ARRAY_SIZE(ids); i++)
			sp_verdict_na(c->v, ids[i], why);
		return;
	}
	char m[64], t[64];
	const char *ds = c->have_sum ? a3s_kv_get(&c->sum, "duration_secs") : NULL;
	c->have_duration = a3s_is_uint(ds, &c->duration);
	if (!c->have_duration) {
		char w[120];
		snprintf(w, sizeof w, "summary.txt duration_secs %s%.20s%s is not a non-negative integer", ds ? "'" : "",
			 ds ? ds : "missing", ds ? "'" : "");
		GATE(false, SP_GREF(A3S_DURATION), ds ? ds : "missing", ">= span - 60", "%s", w);
		sp_verdict_na(c->v, SP_GREF(A3S_MIN_DURATION), w);
	} else {
		snprintf(m, sizeof m, "%lld s", c->duration);
		snprintf(t, sizeof t, ">= span %.0f - %d", c->span, A3S_SKEW_S);
		GATE(c->span <= (double)(c->duration + A3S_SKEW_S), SP_GREF(A3S_DURATION), m, t,
		     "summary.txt duration_secs %lld against a sample span of %.0f s (%d s allowed for the runner's steps after the last sample)",
		     c->duration, c->span, A3S_SKEW_S);
		/* A3S checks the summary's claim; sandprobe also wants the samples
		 * to cover it (within the same allowance) */
		snprintf(t, sizeof t, ">= %lld", c->min_dur);
		if (!c->min_dur)
			GATE(true, SP_GREF(A3S_MIN_DURATION), m, "not required", "no minimum duration asked (flag or metadata)");
		else if (c->duration < c->min_dur)
			GATE(false, SP_GREF(A3S_MIN_DURATION), m, t, "the %s soak is too short: duration_secs %lld, minimum %lld",
			     c->label, c->duration, c->min_dur);
		else if (c->span < (double)(c->min_dur - A3S_SKEW_S))
			GATE(false, SP_GREF(A3S_MIN_DURATION), m, t,
			     "duration_secs %lld meets the minimum %lld but the samples span only %.0f s of it (stricter than A3S)",
			     c->duration, c->min_dur, c->span);
		else
			GATE(true, SP_GREF(A3S_MIN_DURATION), m, t, "duration_secs %lld and a sample span of %.0f s meet the minimum %lld",
			     c->duration, c->span, c->min_dur);
	}
	snprintf(m, sizeof m, "%zu", c->t.nrow);
	snprintf(t, sizeof t, ">= %lld", c->min_samples);
	if (!c->min_samples)
		GATE(true, SP_GREF(A3S_MIN_SAMPLES), m, "not required", "no minimum sample count asked");
	else
		GATE((long long)c->t.nrow >= c->min_samples, SP_GREF(A3S_MIN_SAMPLES), m, t, "%zu resource samples against a minimum of %lld",
		     c->t.nrow, c->min_samples);
	snprintf(m, sizeof m, "%.0f s", c->span);
	snprintf(t, sizeof t, ">= %lld", c->min_span);
	if (!c->min_span)
		GATE(true, SP_GREF(A3S_MIN_SPAN), m, "not required", "no minimum sample span asked");
	else
		GATE(c->span >= (double)c->min_span, SP_GREF(A3S_MIN_SPAN), m, t, "sample span %.0f s against a minimum of %lld s", c->span,
		     c->min_span);
	double gap = 0;
	size_t at = 0;
	for (size_t r = 1; r < c->t.nrow; r++)
		if (c->ep[r] - c->ep[r - 1] > gap)
			gap = c->ep[r] - c->ep[r - 1], at = r;
	snprintf(m, sizeof m, "%.0f s", gap);
	snprintf(t, sizeof t, "<= %lld", c->max_gap);
	if (!c->max_gap)
		GATE(true, SP_GREF(A3S_MAX_GAP), m, "not required", "no maximum sample gap asked");
	else if (c->t.nrow < 2)
		GATE(false, SP_GREF(A3S_MAX_GAP), "1 sample", t, "a maximum gap needs at least two resource samples");
	else
		GATE(gap <= (double)c->max_gap, SP_GREF(A3S_MAX_GAP), m, t, "largest gap %.0f s (before line %u) against a maximum of %lld s", gap,
		     c->t.line[at], c->max_gap);
}

/* ---- profile claims and the RSS slope (sandprobe's, where data allows) ---- */
static void gate_profile(ctx *c, const char *claim)
{
	if (!claim)
		return;
	sp_ev_thresholds pt;
	if (!sp_profile_thresholds(claim, &pt)) {
		GATE(false, SP_GREF(A3S_PROFILE), claim, "R0, G2, R24 or E72", "metadata.txt: profile '%.20s' is not one of R0, G2, R24, E72",
		     claim);
		return;
	}
	if (!c->t_ok || !c->mono_ok) {
		sp_verdict_na(c->v, SP_GREF(A3S_PROFILE), "resource-samples.tsv is invalid");
		return;
	}
	char m[64], t[80];
	snprintf(t, sizeof t, "span >= %.0f, >= %lld samples, gap <= %.0f", pt.min_span_s, pt.min_periodic_samples + 2,
		 pt.max_gap_s > 1e299 ? 0 : pt.max_gap_s);
	double gap = 0;
	long long longer = 0, gaps = 0;
	double limit = pt.max_interval_s * 1.1;
	for (size_t r = 1; r < c->t.nrow; r++) {
		double g = c->ep[r] - c->ep[r - 1];
		gap = fmax(gap, g);
		gaps++;
		longer += g > limit;
	}
	snprintf(m, sizeof m, "span %.0f, %zu samples", c->span, c->t.nrow);
	if (c->span < pt.min_span_s)
		GATE(false, SP_GREF(A3S_PROFILE), m, t, "claims %s but the samples span %.0f s of the %.0f s it needs", claim, c->span, pt.min_span_s);
	else if ((long long)c->t.nrow < pt.min_periodic_samples + 2)
		GATE(false, SP_GREF(A3S_PROFILE), m, t, "claims %s but has %zu samples (%lld periodic plus start and final needed)", claim,
		     c->t.nrow, pt.min_periodic_samples);
	else if (gap > pt.max_gap_s)
		GATE(false, SP_GREF(A3S_PROFILE), m, t, "claims %s but has a %.0f s gap between samples (maximum %.0f s)", claim, gap, pt.max_gap_s);
	else if (longer * 2 > gaps)
		GATE(false, SP_GREF(A3S_PROFILE), m, t, "claims %s but the median sample interval is above %.0f s (%lld of %lld intervals)",
		     claim, limit, longer, gaps);
	else if (c->have_duration && (double)c->duration < pt.min_span_s)
		GATE(false, SP_GREF(A3S_PROFILE), m, t, "claims %s but summary duration_secs is %lld", claim, c->duration);
	else
		GATE(true, SP_GREF(A3S_PROFILE), m, t, "the samples meet profile %s", claim);
}

static void gate_rss(ctx *c)
{
	if (!c->t_ok || !c->mono_ok)
		return;
	for (size_t k = 0; k < c->t.ncol; k++) {
		if (!strstr(c->t.hdr[k], "rss"))
			continue;
		sp_ev_gate_ref id = SP_GFAM(A3S_RSS_SLOPE, c->t.hdr[k]);
		sp_ev_linreg l = {0};
		const char *bad = NULL;
		unsigned bad_line = 0;
		for (size_t r = 0; r < c->t.nrow; r++) {
			long long x;
			if (!a3s_is_uint(a3s_cell(&c->t, r, (int)k), &x)) {
				bad = a3s_cell(&c->t, r, (int)k);
				bad_line = c->t.line[r];
				break;
			}
			if (c->ep[r] - c->ep[0] >= 900) /* after a 15-minute warm-up */
				sp_linreg_add(&l, c->ep[r] - c->ep[0], (double)x);
		}
		char m[48];
		if (bad) {
			GATE(false, id, "invalid", "<= 50 MiB/day", "resource-samples.tsv line %u: %s '%.40s' is not a byte count",
			     bad_line, c->t.hdr[k], bad);
		} else if (l.n < 2) {
			GATE(true, id, "n/a", "<= 50 MiB/day", "%llu sample(s) after a 15-minute warm-up: the %s slope is not measurable",
			     l.n, c->t.hdr[k]);
		} else {
			double slope = sp_linreg_slope(&l) * 86400.0 / 1048576.0;
			snprintf(m, sizeof m, "%.6g", slope);
			GATE(slope <= 50, id, m, "<= 50 MiB/day", "%s slope %.6g MiB/day over %llu samples after a 15-minute warm-up",
			     c->t.hdr[k], slope, l.n);
		}
	}
}

/* ---- host ------------------------------------------------------------------ */
static bool file_nonempty(const char *dir, const char *name)
{
	_cleanup_free_ char *p = sp_xasprintf("%s/%s", dir, name);
	struct stat st;
	return lstat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

static void gate_host_files(ctx *c)
{
	long long it = 0;
	const char *its = c->have_sum ? a3s_kv_get(&c->sum, "iterations") : NULL;
	if (!a3s_is_uint(its, &it) || it < 1) {
		sp_verdict_na(c->v, SP_GREF(A3S_SNAPSHOTS), "summary.txt has no iteration count");
		sp_verdict_na(c->v, SP_GREF(A3S_LOGS), "summary.txt has no iteration count");
	} else {
		char name[96], m[48];
		const char *miss = NULL;
		if (!file_nonempty(c->dir, "start-cli-snapshot.txt"))
			miss = "start-cli-snapshot.txt";
		else if (!file_nonempty(c->dir, "final-cli-snapshot.txt"))
			miss = "final-cli-snapshot.txt";
		for (long long i = 1; i <= it && !miss; i++) {
			snprintf(name, sizeof name, "iteration-%lld-cli-snapshot.txt", i);
			if (!file_nonempty(c->dir, name))
				miss = name;
		}
		snprintf(m, sizeof m, "%lld iterations", it);
		if (miss)
			GATE(false, SP_GREF(A3S_SNAPSHOTS), "missing", m, "%s is missing or empty", miss);
		else
			GATE(true, SP_GREF(A3S_SNAPSHOTS), m, m, "start, final and %lld iteration CLI snapshot(s) present", it);
		/* a log per declared suite and iteration */
		if (!c->meta_ok) {
			sp_verdict_na(c->v, SP_GREF(A3S_LOGS), "metadata.txt is invalid");
		} else {
			static const char *const suite_logs[][2] = {{"core", "core"}, {"host", "host"}, {"linux_run", "linux-run"},
								    {"cri", "cri"}, {"bench", "bench-leak"}, {"bench", "bench-race"}};
			const char *suites = kvs(&c->meta, "selected_suites");
			size_t nlogs = 0;
			miss = NULL;
			for (long long i = 1; i <= it && !miss; i++)
				for (size_t k = 0; k < SP_ARRAY_SIZE(suite_logs) && !miss; k++) {
					char b[8];
					const char *f = suite_flag(suites, suite_logs[k][0], b, sizeof b);
					if (!f || strcmp(f, "1"))
						continue;
					snprintf(name, sizeof name, "iteration-%lld-%s.log", i, suite_logs[k][1]);
					nlogs++;
					if (!file_nonempty(c->dir, name))
						miss = name;
				}
			if (miss)
				GATE(false, SP_GREF(A3S_LOGS), "missing", "every declared suite", "%s is missing or empty (declared in selected_suites)",
				     miss);
			else
				GATE(true, SP_GREF(A3S_LOGS), "present", "every declared suite", "%zu per-iteration log(s) of the declared suites present",
				     nlogs);
		}
	}
	/* cleanup: final counters not above the start ones */
	for (size_t i = 0; i < SP_ARRAY_SIZE(host_counters); i++) {
		sp_ev_gate_ref id = SP_GFAM(A3S_CLEANUP, host_counters[i]);
		if (!c->t_ok || !c->phases_ok) {
			sp_verdict_na(c->v, id, "resource-samples.tsv has no single start and final sample");
			continue;
		}
		long long st = cell_int(c, last_of_phase(c, "start"), host_counters[i]);
		long long fi = cell_int(c, last_of_phase(c, "final"), host_counters[i]);
		char m[32], t[32];
		snprintf(m, sizeof m, "%lld", fi);
		snprintf(t, sizeof t, "<= %lld", st);
		GATE(fi <= st, id, m, t, "final %s %lld, start %lld%s", host_counters[i], fi, st, fi > st ? ": it grew" : "");
	}
}

/* ---- cluster ----------------------------------------------------------------- */
/* a kubectl artifact: present, non-empty, without a collection error; on
 * failure writes why and returns false */
static bool kubectl_ok(ctx *c, const char *name, a3s_text *x, sp_outcome *o)
{
	sp_error e;
	if (a3s_text_load(x, c->dir, name, &e) < 0) {
		sp_why(o, "%s", e.msg);
		return false;
	}
	unsigned l = a3s_kubectl_error(x);
	if (l) {
		sp_why(o, "%s line %u: a kubectl collection error", name, l);
		a3s_text_free(x);
		return false;
	}
	return true;
}

static const char *const always_artifacts[] = {
	"selected-nodes.txt", "selected-node-names.txt", "selected-node-labels.tsv", "runtimeclass.yaml",
	"final-get-all.txt",  "final-pods.yaml",	 "final-pod-runtimeclasses.tsv", "final-pod-nodes.tsv",
	"final-pod-statuses.tsv", "events.txt",		 "events.tsv",			 "describe-pods.txt"};

struct cl {
	a3s_text x[SP_ARRAY_SIZE(always_artifacts)];
	bool ok[SP_ARRAY_SIZE(always_artifacts)];
	a3s_rows names, labels, prc, pnodes, pstat, events;
	sp_ev_strset selected, final_pods;
	size_t final_n;
	size_t fr;       /* the final sample's row, SIZE_MAX when none */
	long long sel;   /* final selected_nodes sample */
	long long total; /* final pods_total sample */
};

/* The cluster gates are the A lines of the gate list (SP_GATE_LIST,
 * evidence/evidence.h), each id beside its judge here, reported in the
 * list's order. A judge reads the bundle and reports its gate (or nothing
 * when metadata.txt says the part was skipped); it may use what an earlier
 * judge found in k (the artifacts, the selected nodes, the final pods).
 * Adding a cluster gate: one A line in that list and its judge
 *     static void a3s_judge_<name>(ctx *c, struct cl *k, sp_ev_gate_ref id)
 * in this file, before the table below. */
typedef void cluster_judge(ctx *c, struct cl *k, sp_ev_gate_ref id);

static a3s_text *art(struct cl *k, const char *name)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(always_artifacts); i++)
		if (!strcmp(always_artifacts[i], name))
			return k->ok[i] ? &k->x[i] : NULL;
	return NULL;
}

static bool none(const char *s)
{
	return !s || !*s || !strcmp(s, "<none>") || !strcmp(s, "<unknown>");
}

/* names of the first column: unique? (dup gets the first repeated one) */
static bool unique_first(const a3s_rows *rs, sp_ev_strset *set, const char **dup)
{
	*dup = NULL;
	for (size_t i = 0; i < rs->n; i++)
		if (sp_strset_put(set, rs->r[i].f[0], strlen(rs->r[i].f[0]), i) != SIZE_MAX && !*dup)
			*dup = rs->r[i].f[0];
	return !*dup;
}

/* the same unique first-column names in both (first difference in why) */
static bool same_names(const a3s_rows *a, const char *an, const a3s_rows *b, const char *bn, sp_outcome *o)
{
	_cleanup_strset_ sp_ev_strset sa = {0};
	_cleanup_strset_ sp_ev_strset sb = {0};
	const char *dup;
	if (!a->n || !b->n)
		return sp_why(o, "%s has no rows", !a->n ? an : bn), false;
	if (!unique_first(a, &sa, &dup))
		return sp_why(o, "%s lists %.60s twice", an, dup), false;
	if (!unique_first(b, &sb, &dup))
		return sp_why(o, "%s lists %.60s twice", bn, dup), false;
	for (size_t i = 0; i < b->n; i++)
		if (sp_strset_get(&sa, b->r[i].f[0], strlen(b->r[i].f[0])) == SIZE_MAX)
			return sp_why(o, "%s line %u: %.60s is not in %s", bn, b->r[i].line, b->r[i].f[0], an), false;
	for (size_t i = 0; i < a->n; i++)
		if (sp_strset_get(&sb, a->r[i].f[0], strlen(a->r[i].f[0])) == SIZE_MAX)
			return sp_why(o, "%s line %u: %.60s is not in %s", an, a->r[i].line, a->r[i].f[0], bn), false;
	return true;
}

/* restart counts "0" or "0,0": every one a zero */
static bool zero_restarts(const char *s)
{
	if (none(s))
		return false;
	for (const char *p = s;;) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		long long v;
		char b[24];
		if (!n || n >= sizeof b)
			return false;
		memcpy(b, p, n);
		b[n] = '\0';
		if (!a3s_is_uint(b, &v) || v != 0)
			return false;
		if (!e)
			return true;
		p = e + 1;
	}
}

/* the value of "key=" among a line's fields */
static const char *field_of(const a3s_row *r, const char *key)
{
	size_t kl = strlen(key);
	const char *v = NULL;
	for (size_t i = 0; i < r->nf; i++)
		if (!strncmp(r->f[i], key, kl) && r->f[i][kl] == '=')
			v = r->f[i] + kl + 1;
	return v;
}

static bool is_exec_pass(const a3s_row *r)
{
	return !strcmp(r->f[0], "exec_result=pass");
}

/* an exec proof: pods listed, a marker, no failed listing or exec, at least
 * one successful exec; then every successful exec's pod unique and in the
 * final pod evidence (and, when nodes is given, on a selected node, every
 * selected node covered) */
static bool exec_ok(ctx *c, struct cl *k, const char *name, bool nodes, const char *const *workloads, size_t nw,
		    sp_outcome *o)
{
	a3s_text x;
	sp_error e;
	if (a3s_text_load(&x, c->dir, name, &e) < 0)
		return sp_why(o, "%s", e.msg), false;
	bool ok = false;
	a3s_rows rs = {0};
	if (!a3s_line_starting(&x, "pod="))
		sp_why(o, "%s lists no pods", name);
	else if (!a3s_line_starting(&x, "A3S_BOX_EXEC_OK "))
		sp_why(o, "%s has no A3S_BOX_EXEC_OK marker", name);
	else if (a3s_line_starting(&x, "pod_list_result=fail"))
		sp_why(o, "%s line %u: listing the pods failed", name, a3s_line_starting(&x, "pod_list_result=fail"));
	else if (a3s_line_starting(&x, "exec_result=fail"))
		sp_why(o, "%s line %u: an exec failed", name, a3s_line_starting(&x, "exec_result=fail"));
	else if (!a3s_line_starting(&x, "exec_result=pass pod="))
		sp_why(o, "%s has no successful exec", name);
	else {
		a3s_rows_make(&rs, &x);
		_cleanup_strset_ sp_ev_strset on = {0};
		_cleanup_strset_ sp_ev_strset pods = {0};
		_cleanup_strset_ sp_ev_strset wl = {0};
		size_t npass = 0;
		ok = true;
		for (size_t i = 0; i < rs.n && ok; i++) {
			const a3s_row *r = &rs.r[i];
			if (!is_exec_pass(r))
				continue;
			npass++;
			const char *node = field_of(r, "node"), *pod = field_of(r, "pod"), *w = field_of(r, "workload");
			if (nodes) {
				if (none(node))
					ok = false, sp_why(o, "%s line %u: a successful exec on no node", name, r->line);
				else if (sp_strset_get(&k->selected, node, strlen(node)) == SIZE_MAX)
					ok = false, sp_why(o, "%s line %u: a successful exec on unselected node %.60s", name,
							   r->line, node);
				else
					sp_strset_put(&on, node, strlen(node), i);
			}
			if (ok && !none(w))
				sp_strset_put(&wl, w, strlen(w), i);
			if (!ok)
				break;
			if (none(pod))
				ok = false, sp_why(o, "%s line %u: a successful exec of no pod", name, r->line);
			else if (sp_strset_put(&pods, pod, strlen(pod), i) != SIZE_MAX)
				ok = false, sp_why(o, "%s line %u: pod %.60s exec'd successfully twice", name, r->line, pod);
			else if (sp_strset_get(&k->final_pods, pod, strlen(pod)) == SIZE_MAX)
				ok = false, sp_why(o, "%s line %u: pod %.60s is not in the final pod evidence", name,
						   r->line, pod);
		}
		if (ok && !k->final_n)
			ok = false, sp_why(o, "final-pod-statuses.tsv has no pods for %s to refer to", name);
		if (ok && nodes)
			for (size_t i = 0; i < k->names.n && ok; i++)
				if (sp_strset_get(&on, k->names.r[i].f[0], strlen(k->names.r[i].f[0])) == SIZE_MAX)
					ok = false, sp_why(o, "%s: no successful exec on selected node %.60s", name,
							   k->names.r[i].f[0]);
		for (size_t i = 0; i < nw && ok; i++)
			if (sp_strset_get(&wl, workloads[i], strlen(workloads[i])) == SIZE_MAX)
				ok = false, sp_why(o, "%s: no successful exec of workload %s", name, workloads[i]);
		(void)npass;
	}
	a3s_rows_free(&rs);
	a3s_text_free(&x);
	return ok;
}

static void cl_free(struct cl *k)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(always_artifacts); i++)
		a3s_text_free(&k->x[i]);
	a3s_rows_free(&k->names);
	a3s_rows_free(&k->labels);
	a3s_rows_free(&k->prc);
	a3s_rows_free(&k->pnodes);
	a3s_rows_free(&k->pstat);
	a3s_rows_free(&k->events);
	sp_strset_free(&k->selected);
	sp_strset_free(&k->final_pods);
}

/* the text of a scalar node, or NULL */
static const char *scalar(const sp_ynode *n) { return n && n->kind == SP_YN_SCALAR ? n->str : NULL; }

/* the RuntimeClass object */
static void a3s_judge_runtimeclass(ctx *c, struct cl *k, sp_ev_gate_ref id)
{
	a3s_text *x = art(k, "runtimeclass.yaml");
	if (!x || !c->meta_ok) {
		sp_verdict_na(c->v, id, !x ? "runtimeclass.yaml is not a valid artifact" : "metadata.txt is invalid");
		return;
	}
	sp_error e = {0};
	sp_ydoc *doc = sp_yaml_parse(x->buf, x->len, "runtimeclass.yaml", &e);
	sp_ynode *root = doc ? doc->root : NULL;
	char why[300] = "";
	const char *kind = NULL, *name = NULL, *handler = NULL, *sel = NULL;
	if (!root) {
		snprintf(why, sizeof why, "%s", e.msg);
	} else {
		const sp_ynode *meta = sp_ynode_get(root, "metadata"), *sched = sp_ynode_get(root, "scheduling");
		kind = scalar(sp_ynode_get(root, "kind"));
		handler = scalar(sp_ynode_get(root, "handler"));
		name = scalar(sp_ynode_get(meta, "name"));
		sel = scalar(sp_ynode_get(sp_ynode_get(sched, "nodeSelector"), "a3s-box.io/runtime"));
	}
	if (!why[0]) {
		if (!kind || strcmp(kind, "RuntimeClass"))
			snprintf(why, sizeof why, "runtimeclass.yaml: kind is %.40s, not RuntimeClass", kind ? kind : "missing");
		else if (!name || strcmp(name, c->runtime_class))
			snprintf(why, sizeof why, "runtimeclass.yaml: metadata.name is %.60s, not %.60s", name ? name : "missing",
				 c->runtime_class);
		else if (!handler || strcmp(handler, c->handler))
			snprintf(why, sizeof why, "runtimeclass.yaml: handler is %.60s, not %.60s", handler ? handler : "missing",
				 c->handler);
		else if (!sel || strcmp(sel, "true"))
			snprintf(why, sizeof why, "runtimeclass.yaml: scheduling.nodeSelector a3s-box.io/runtime is %.20s, not true",
				 sel ? sel : "missing");
	}
	if (why[0])
		GATE(false, id, "mismatch", c->runtime_class, "%s", why);
	else
		GATE(true, id, c->runtime_class, c->runtime_class,
		     "RuntimeClass %s with handler %s, scheduled on nodes labelled a3s-box.io/runtime=true", c->runtime_class,
		     c->handler);
	sp_ydoc_free(doc);
}

/* the artifacts every cluster bundle has */
static void a3s_judge_artifacts(ctx *c, struct cl *k, sp_ev_gate_ref id)
{
	char m[64];
	size_t bad = 0;
	char first[300] = "";
	for (size_t i = 0; i < SP_ARRAY_SIZE(always_artifacts); i++) {
		sp_outcome o = {0};
		k->ok[i] = kubectl_ok(c, always_artifacts[i], &k->x[i], &o);
		if (!k->ok[i] && !bad++)
			snprintf(first, sizeof first, "%s", o.why);
	}
	snprintf(m, sizeof m, "%zu bad", bad);
	if (bad)
		GATE(false, id, m, "0 bad", "%zu required kubectl artifact(s) missing, empty or with a collection error; first: %s",
		     bad, first);
	else
		GATE(true, id, m, "0 bad", "%zu required kubectl artifacts present, none with a collection error",
		     SP_ARRAY_SIZE(always_artifacts));
}

/* selected nodes in the final sample: count, names, labels */
static void a3s_judge_nodes(ctx *c, struct cl *k, sp_ev_gate_ref id)
{
	if (k->fr == SIZE_MAX) {
		sp_verdict_na(c->v, id, "resource-samples.tsv has no final sample");
		return;
	}
	sp_outcome o = {0};
	char m[64];
	k->sel = cell_int(c, k->fr, "selected_nodes");
	a3s_text *nx = art(k, "selected-node-names.txt"), *lx = art(k, "selected-node-labels.tsv");
	if (nx)
		a3s_rows_make(&k->names, nx);
	if (lx)
		a3s_rows_make(&k->labels, lx);
	const char *dup;
	if (k->sel <= 0)
		sp_why(&o, "the final sample selected no nodes");
	else if (!nx || !lx)
		sp_why(&o, "%s is not a valid artifact", !nx ? "selected-node-names.txt" : "selected-node-labels.tsv");
	else if ((long long)k->names.n != k->sel)
		sp_why(&o, "selected-node-names.txt has %zu rows for %lld selected nodes", k->names.n, k->sel);
	else if (!unique_first(&k->names, &k->selected, &dup))
		sp_why(&o, "selected-node-names.txt lists %.60s twice", dup);
	else if ((long long)k->labels.n != k->sel)
		sp_why(&o, "selected-node-labels.tsv has %zu rows for %lld selected nodes", k->labels.n, k->sel);
	else if (!same_names(&k->names, "selected-node-names.txt", &k->labels, "selected-node-labels.tsv", &o))
		;
	else
		for (size_t i = 0; i < k->labels.n && !o.why[0]; i++) {
			const a3s_row *r = &k->labels.r[i];
			if (r->nf < 2 || strcmp(r->f[1], "true"))
				sp_why(&o, "selected-node-labels.tsv line %u: %.60s has a3s-box.io/runtime=%.20s, not true", r->line,
				       r->f[0], r->nf > 1 ? r->f[1] : "");
			else if (r->nf < 3 || strcmp(r->f[2], "production-soak"))
				sp_why(&o, "selected-node-labels.tsv line %u: %.60s has a3s-box.io/test-tier=%.30s, not production-soak",
				       r->line, r->f[0], r->nf > 2 ? r->f[2] : "");
		}
	snprintf(m, sizeof m, "%lld nodes", k->sel);
	if (o.why[0])
		GATE(false, id, m, "enrolled production-soak nodes", "%s", o.why);
	else
		GATE(true, id, m, "enrolled production-soak nodes",
		     "%lld selected node(s), each listed once and labelled a3s-box.io/runtime=true, test-tier=production-soak", k->sel);
}

/* pods and jobs in the samples */
static void a3s_judge_pods(ctx *c, struct cl *k, sp_ev_gate_ref id)
{
	if (k->fr == SIZE_MAX) {
		sp_verdict_na(c->v, id, "resource-samples.tsv has no final sample");
		return;
	}
	sp_outcome o = {0};
	char m[64];
	size_t fr = k->fr;
	long long total = cell_int(c, fr, "pods_total"), pending = cell_int(c, fr, "pods_pending"),
		  unknown = cell_int(c, fr, "pods_unknown"), active = cell_int(c, fr, "job_active");
	long long failed = 0, restarts = 0, jfailed = 0;
	for (size_t r = 0; r < c->t.nrow; r++) {
		long long x;
		if ((x = cell_int(c, r, "pods_failed")) > failed)
			failed = x;
		if ((x = cell_int(c, r, "pod_restarts")) > restarts)
			restarts = x;
		if ((x = cell_int(c, r, "job_failed")) > jfailed)
			jfailed = x;
	}
	k->total = total;
	if (total <= 0)
		sp_why(&o, "no pods in the final sample");
	else if (pending)
		sp_why(&o, "%lld pod(s) still pending in the final sample", pending);
	else if (failed)
		sp_why(&o, "pod failures observed: %lld", failed);
	else if (unknown)
		sp_why(&o, "%lld pod(s) still unknown in the final sample", unknown);
	else if (restarts)
		sp_why(&o, "pod restarts observed: %lld", restarts);
	else if (active)
		sp_why(&o, "%lld job(s) still active in the final sample", active);
	else if (jfailed)
		sp_why(&o, "job failures observed: %lld", jfailed);
	snprintf(m, sizeof m, "%lld pods", total);
	if (o.why[0])
		GATE(false, id, m, "none pending, failed, unknown, restarted", "%s", o.why);
	else
		GATE(true, id, m, "none pending, failed, unknown, restarted",
		     "%lld pod(s) in the final sample; no pending, failed or unknown pod, restart, active or failed job", total);
}

/* every final pod row: its RuntimeClass, a selected node, healthy; the first
 * that is not in o */
static void final_pod_rows(ctx *c, const struct cl *k, sp_outcome *o)
{
	for (size_t i = 0; i < k->prc.n && !o->why[0]; i++)
		if (k->prc.r[i].nf < 2 || strcmp(k->prc.r[i].f[1], c->runtime_class))
			sp_why(o, "final-pod-runtimeclasses.tsv line %u: %.60s has runtimeClassName %.40s, not %.40s", k->prc.r[i].line,
			       k->prc.r[i].f[0], k->prc.r[i].nf > 1 ? k->prc.r[i].f[1] : "(none)", c->runtime_class);
	for (size_t i = 0; i < k->pnodes.n && !o->why[0]; i++) {
		const char *node = k->pnodes.r[i].nf > 1 ? k->pnodes.r[i].f[1] : NULL;
		if (none(node))
			sp_why(o, "final-pod-nodes.tsv line %u: %.60s is on no node", k->pnodes.r[i].line, k->pnodes.r[i].f[0]);
		else if (sp_strset_get(&k->selected, node, strlen(node)) == SIZE_MAX)
			sp_why(o, "final-pod-nodes.tsv line %u: %.60s is on unselected node %.60s", k->pnodes.r[i].line,
			       k->pnodes.r[i].f[0], node);
	}
	for (size_t i = 0; i < k->pstat.n && !o->why[0]; i++) {
		const a3s_row *r = &k->pstat.r[i];
		/* (f[i] is never NULL below nf; said for the optimizer) */
		const char *ph = r->nf > 1 && r->f[1] ? r->f[1] : "", *rs = r->nf > 2 && r->f[2] ? r->f[2] : "";
		if (strcmp(ph, "Running") && strcmp(ph, "Succeeded"))
			sp_why(o, "final-pod-statuses.tsv line %u: %.60s is %.30s (Running or Succeeded wanted)", r->line, r->f[0],
			       *ph ? ph : "(none)");
		else if (!zero_restarts(rs))
			sp_why(o, "final-pod-statuses.tsv line %u: %.60s has restart count %.30s", r->line, r->f[0],
			       *rs ? rs : "(none)");
	}
}

/* the final pod artifacts */
static void a3s_judge_pod_evidence(ctx *c, struct cl *k, sp_ev_gate_ref id)
{
	if (k->fr == SIZE_MAX) {
		sp_verdict_na(c->v, id, "resource-samples.tsv has no final sample");
		return;
	}
	sp_outcome o = {0};
	char m[64];
	long long total = k->total;
	a3s_text *rcx = art(k, "final-pod-runtimeclasses.tsv"), *pnx = art(k, "final-pod-nodes.tsv"),
		 *psx = art(k, "final-pod-statuses.tsv");
	if (rcx)
		a3s_rows_make(&k->prc, rcx);
	if (pnx)
		a3s_rows_make(&k->pnodes, pnx);
	if (psx) {
		a3s_rows_make(&k->pstat, psx);
		for (size_t i = 0; i < k->pstat.n; i++)
			sp_strset_put(&k->final_pods, k->pstat.r[i].f[0], strlen(k->pstat.r[i].f[0]), i);
		k->final_n = k->pstat.n;
	}
	if (!rcx || !pnx || !psx)
		sp_why(&o, "%s is not a valid artifact",
		       !rcx ? "final-pod-runtimeclasses.tsv" : !pnx ? "final-pod-nodes.tsv"
								    : "final-pod-statuses.tsv");
	else if ((long long)k->prc.n != total)
		sp_why(&o, "final-pod-runtimeclasses.tsv has %zu rows for %lld pods", k->prc.n, total);
	else if ((long long)k->pnodes.n != total)
		sp_why(&o, "final-pod-nodes.tsv has %zu rows for %lld pods", k->pnodes.n, total);
	else if ((long long)k->pstat.n != total)
		sp_why(&o, "final-pod-statuses.tsv has %zu rows for %lld pods", k->pstat.n, total);
	else if (!same_names(&k->prc, "final-pod-runtimeclasses.tsv", &k->pnodes, "final-pod-nodes.tsv", &o) ||
		 !same_names(&k->prc, "final-pod-runtimeclasses.tsv", &k->pstat, "final-pod-statuses.tsv", &o))
		;
	else if (!c->meta_ok)
		sp_why(&o, "metadata.txt is invalid (RuntimeClass unknown)");
	else
		final_pod_rows(c, k, &o);
	snprintf(m, sizeof m, "%lld pods", total);
	if (o.why[0])
		GATE(false, id, m, "every pod: runtimeClassName, selected node, healthy", "%s", o.why);
	else
		GATE(true, id, m, "every pod: runtimeClassName, selected node, healthy",
		     "the final pod tables name the same %lld pods, each with runtimeClassName %s, on a selected node, Running or Succeeded with no restart",
		     total, c->runtime_class);
}

static void a3s_judge_events(ctx *c, struct cl *k, sp_ev_gate_ref id)
{
	char m[64];
	a3s_text *ex = art(k, "events.tsv");
	if (!ex) {
		sp_verdict_na(c->v, id, "events.tsv is not a valid artifact");
		return;
	}
	a3s_rows_make(&k->events, ex);
	const a3s_row *w = NULL;
	for (size_t i = 0; i < k->events.n && !w; i++)
		if (strcmp(k->events.r[i].f[0], "Normal"))
			w = &k->events.r[i];
	snprintf(m, sizeof m, "%zu events", k->events.n);
	if (w)
		GATE(false, id, m, "Normal only", "events.tsv line %u: a %.30s event: %.160s", w->line, w->f[0], w->text);
	else
		GATE(k->events.n > 0, id, m, "Normal only", "%zu Kubernetes event(s), all Normal", k->events.n);
}

/* smoke exec on every selected node */
static void a3s_judge_smoke_exec(ctx *c, struct cl *k, sp_ev_gate_ref id)
{
	if (!c->meta_ok || c->skip_smoke)
		return;
	sp_outcome o = {0};
	if (k->fr == SIZE_MAX)
		sp_verdict_na(c->v, id, "resource-samples.tsv has no final sample");
	else if (exec_ok(c, k, "smoke-exec.txt", true, NULL, 0, &o))
		GATE(true, id, "every node", "every selected node",
		     "smoke-exec.txt: a successful exec on each selected node, of pods in the final evidence");
	else
		GATE(false, id, "incomplete", "every selected node", "%s", o.why);
}

/* job-pod-statuses.tsv: every Job pod once, Succeeded, no restart, on a
 * selected node, in the final pod evidence, as many as the completions */
static void job_pods(ctx *c, const struct cl *k, const a3s_rows *js, sp_outcome *o)
{
	_cleanup_strset_ sp_ev_strset seen = {0};
	for (size_t i = 0; i < js->n && !o->why[0]; i++) {
		const a3s_row *r = &js->r[i];
		const char *ph = r->nf > 1 ? r->f[1] : "", *rs = r->nf > 2 ? r->f[2] : "", *node = r->nf > 3 ? r->f[3] : NULL;
		if (sp_strset_put(&seen, r->f[0], strlen(r->f[0]), i) != SIZE_MAX)
			sp_why(o, "job-pod-statuses.tsv line %u: %.60s listed twice", r->line, r->f[0]);
		else if (strcmp(ph, "Succeeded"))
			sp_why(o, "job-pod-statuses.tsv line %u: %.60s is %.30s, not Succeeded", r->line, r->f[0], *ph ? ph : "(none)");
		else if (!zero_restarts(rs))
			sp_why(o, "job-pod-statuses.tsv line %u: %.60s has restart count %.30s", r->line, r->f[0], *rs ? rs : "(none)");
		else if (none(node) || sp_strset_get(&k->selected, node, strlen(node)) == SIZE_MAX)
			sp_why(o, "job-pod-statuses.tsv line %u: %.60s ran on %s node %.60s", r->line, r->f[0],
			       none(node) ? "no" : "unselected", node ? node : "");
		else if (sp_strset_get(&k->final_pods, r->f[0], strlen(r->f[0])) == SIZE_MAX)
			sp_why(o, "job-pod-statuses.tsv line %u: %.60s is not in the final pod evidence", r->line, r->f[0]);
	}
	if (!o->why[0] && (long long)js->n != c->job_completions)
		sp_why(o, "job-pod-statuses.tsv lists %zu Succeeded pods for %lld completions", js->n, c->job_completions);
	if (!o->why[0] && !k->final_n)
		sp_why(o, "final-pod-statuses.tsv has no pods");
}

/* the churn Job */
static void a3s_judge_jobs(ctx *c, struct cl *k, sp_ev_gate_ref id)
{
	if (!c->meta_ok || c->skip_jobs)
		return;
	static const char *const job_arts[] = {"job.yaml", "job-runtimeclass.txt", "job-pods.txt", "job-pod-statuses.tsv",
					       "job-logs.txt"};
	a3s_text jx[SP_ARRAY_SIZE(job_arts)];
	memset(jx, 0, sizeof jx);
	sp_outcome o = {0};
	char m[64];
	for (size_t i = 0; i < SP_ARRAY_SIZE(job_arts) && !o.why[0]; i++)
		kubectl_ok(c, job_arts[i], &jx[i], &o);
	if (!o.why[0]) {
		a3s_rows rv, js;
		a3s_rows_make(&rv, &jx[1]);
		a3s_rows_make(&js, &jx[3]);
		if (!rv.n || strcmp(rv.r[0].f[0], c->runtime_class))
			sp_why(&o, "job-runtimeclass.txt: runtimeClassName is %.40s, not %.40s", rv.n ? rv.r[0].f[0] : "missing",
			       c->runtime_class);
		else if (k->fr == SIZE_MAX)
			sp_why(&o, "resource-samples.tsv has no final sample");
		else
			job_pods(c, k, &js, &o);
		if (!o.why[0]) {
			char rcm[160];
			snprintf(rcm, sizeof rcm, "A3S_BOX_JOB_RUNTIME_CLASS=%.100s", c->runtime_class);
			const char *markers[] = {"A3S_BOX_JOB_START ", rcm, "A3S_BOX_JOB_DONE "};
			for (size_t i = 0; i < 3 && !o.why[0]; i++) {
				size_t n = a3s_count_lines_with(&jx[4], markers[i]);
				if ((long long)n != c->job_completions)
					sp_why(&o, "job-logs.txt: %zu %.*s marker line(s) for %lld completions", n,
					       (int)strcspn(markers[i], " "), markers[i], c->job_completions);
			}
		}
		if (!o.why[0]) {
			long long succ = cell_int(c, k->fr, "job_succeeded");
			if (succ != c->job_completions)
				sp_why(&o, "the final sample has job_succeeded %lld for %lld completions", succ, c->job_completions);
		}
		a3s_rows_free(&rv);
		a3s_rows_free(&js);
	}
	for (size_t i = 0; i < SP_ARRAY_SIZE(job_arts); i++)
		a3s_text_free(&jx[i]);
	snprintf(m, sizeof m, "%lld completions", c->job_completions);
	if (o.why[0])
		GATE(false, id, m, "every completion proven", "%s", o.why);
	else
		GATE(true, id, m, "every completion proven",
		     "the churn Job ran %lld pods with runtimeClassName %s, all Succeeded on selected nodes with no restart, each logged start to done",
		     c->job_completions, c->runtime_class);
}

/* the long-lived complex workloads */
static void a3s_judge_complex(ctx *c, struct cl *k, sp_ev_gate_ref id)
{
	if (!c->meta_ok || c->skip_complex)
		return;
	static const char *const wl[][2] = {{"redis", "REDIS_SOAK"}, {"postgres", "PG_SOAK"}, {"nginx", "NGINX_SOAK"}, {"python", "PY_SOAK"}};
	static const char *const wnames[] = {"redis", "postgres", "nginx", "python"};
	a3s_text lx;
	sp_outcome o = {0};
	if (kubectl_ok(c, "complex-logs.txt", &lx, &o)) {
		for (size_t i = 0; i < SP_ARRAY_SIZE(wl) && !o.why[0]; i++) {
			bool found = false;
			for (const char *l = lx.buf; l && l < lx.buf + lx.len && !found;) {
				const char *nl = memchr(l, '\n', (size_t)(lx.buf + lx.len - l));
				size_t ll = nl ? (size_t)(nl - l) : (size_t)(lx.buf + lx.len - l);
				found = memmem(l, ll, wl[i][0], strlen(wl[i][0])) && memmem(l, ll, wl[i][1], strlen(wl[i][1]));
				l = nl ? nl + 1 : NULL;
			}
			if (!found)
				sp_why(&o, "complex-logs.txt: no %s line of the %s workload", wl[i][1], wl[i][0]);
		}
		a3s_text_free(&lx);
	}
	if (!o.why[0] && k->fr == SIZE_MAX)
		sp_why(&o, "resource-samples.tsv has no final sample");
	if (!o.why[0])
		exec_ok(c, k, "complex-exec.txt", false, wnames, SP_ARRAY_SIZE(wnames), &o);
	if (o.why[0])
		GATE(false, id, "incomplete", "redis, postgres, nginx, python", "%s", o.why);
	else
		GATE(true, id, "all four", "redis, postgres, nginx, python",
		     "each complex workload logged its marker and answered a successful exec");
}

/* post-cleanup-counts.tsv: typed, in time order, one post-cleanup row,
 * counted after the final sample, every count zero; the first problem in o */
static void post_cleanup_counts(ctx *c, const struct cl *k, sp_outcome *o)
{
	a3s_table pc;
	sp_error e;
	if (a3s_table_load(&pc, c->dir, "post-cleanup-counts.tsv", &e) < 0) {
		sp_why(o, "%s", e.msg);
		return;
	}
	static const char *const cols[] = {"smoke_daemonsets", "smoke_pods", "complex_pods", "churn_jobs", "churn_pods"};
	int cts = a3s_table_col(&pc, "timestamp"), cph = a3s_table_col(&pc, "phase");
	if (cts < 0 || cph < 0)
		sp_why(o, "post-cleanup-counts.tsv: required column %s missing", cts < 0 ? "timestamp" : "phase");
	for (size_t i = 0; i < SP_ARRAY_SIZE(cols) && !o->why[0]; i++)
		if (a3s_table_col(&pc, cols[i]) < 0)
			sp_why(o, "post-cleanup-counts.tsv: required column %s missing", cols[i]);
	size_t nrows = 0, row = SIZE_MAX;
	double prev = -INFINITY, when = 0;
	for (size_t r = 0; r < pc.nrow && !o->why[0]; r++) {
		double ep;
		const char *ts = a3s_cell(&pc, r, cts);
		if (sp_ev_parse_iso8601(ts, strlen(ts), &ep) < 0)
			sp_why(o, "post-cleanup-counts.tsv line %u: timestamp '%.40s' is not an ISO 8601 UTC time", pc.line[r], ts);
		else if (ep < prev)
			sp_why(o, "post-cleanup-counts.tsv line %u: timestamp goes back", pc.line[r]);
		prev = ep;
		for (size_t i = 0; i < SP_ARRAY_SIZE(cols) && !o->why[0]; i++) {
			long long x;
			if (!a3s_is_uint(a3s_cell(&pc, r, a3s_table_col(&pc, cols[i])), &x))
				sp_why(o, "post-cleanup-counts.tsv line %u: %s '%.30s' is not a non-negative integer", pc.line[r],
				       cols[i], a3s_cell(&pc, r, a3s_table_col(&pc, cols[i])));
		}
		if (!strcmp(a3s_cell(&pc, r, cph), "post-cleanup"))
			nrows++, row = r, when = ep;
	}
	if (!o->why[0] && !pc.nrow)
		sp_why(o, "post-cleanup-counts.tsv has no rows");
	if (!o->why[0] && nrows != 1)
		sp_why(o, "post-cleanup-counts.tsv has %zu post-cleanup rows (exactly 1 wanted)", nrows);
	if (!o->why[0]) {
		if (k->fr == SIZE_MAX)
			sp_why(o, "resource-samples.tsv has no final sample");
		else if (when < c->ep[k->fr])
			sp_why(o, "post-cleanup-counts.tsv line %u: the post-cleanup count is earlier than the final sample",
			       pc.line[row]);
	}
	for (size_t i = 0; i < SP_ARRAY_SIZE(cols) && !o->why[0]; i++) {
		long long x = 0;
		a3s_is_uint(a3s_cell(&pc, row, a3s_table_col(&pc, cols[i])), &x);
		if (x)
			sp_why(o, "post-cleanup-counts.tsv line %u: %lld %s still present", pc.line[row], x, cols[i]);
	}
	a3s_table_free(&pc);
}

/* after cleanup: nothing left */
static void a3s_judge_post_cleanup(ctx *c, struct cl *k, sp_ev_gate_ref id)
{
	if (!c->meta_ok || !c->cleanup)
		return;
	sp_outcome o = {0};
	a3s_text nsx, gax;
	memset(&nsx, 0, sizeof nsx);
	memset(&gax, 0, sizeof gax);
	if (kubectl_ok(c, "post-cleanup-namespace.txt", &nsx, &o) && kubectl_ok(c, "post-cleanup-get-all.txt", &gax, &o))
		post_cleanup_counts(c, k, &o);
	a3s_text_free(&nsx);
	a3s_text_free(&gax);
	if (o.why[0])
		GATE(false, id, "left over", "nothing left", "%s", o.why);
	else
		GATE(true, id, "nothing left", "nothing left",
		     "after cleanup no smoke DaemonSet, pod, complex pod, churn Job or pod remains");
}

static const struct {
	sp_ev_gate_ref id;
	cluster_judge *judge;
} cluster_gates[] = {
#define A3S_CLUSTER_GATE(name, id, techniques, what, judge) {SP_GREF_INIT(name), judge},
	SP_GATE_LIST(SP_GATE_SKIP, SP_GATE_SKIP, SP_GATE_SKIP, A3S_CLUSTER_GATE)
#undef A3S_CLUSTER_GATE
};

static void gate_cluster(ctx *c)
{
	struct cl k;
	memset(&k, 0, sizeof k);
	k.fr = c->t_ok && c->phases_ok ? last_of_phase(c, "final") : SIZE_MAX;
	for (size_t i = 0; i < SP_ARRAY_SIZE(cluster_gates); i++)
		cluster_gates[i].judge(c, &k, cluster_gates[i].id);
	cl_free(&k);
}

/* ---- entry ------------------------------------------------------------------ */
int sp_a3s_verify(const char *dir, const sp_ev_verify_opts *o, sp_ev_verdict *v, sp_error *err)
{
	struct stat st;
	memset(v, 0, sizeof *v);
	if (stat(dir, &st) < 0)
		return sp_usage(err, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return sp_usage(err, "%s: not a directory", dir);
	if (o->profile && !sp_profile_thresholds(o->profile, &(sp_ev_thresholds){0}))
		return sp_usage(err, "--profile %s: not one of R0, G2, R24, E72 (A3S bundles)", o->profile);
	_cleanup_free_ char *real = realpath(dir, NULL);
	if (!real)
		return sp_usage(err, "%s: %s", dir, strerror(errno));
	ctx cx, *c = &cx;
	memset(c, 0, sizeof *c);
	c->dir = real;
	c->v = v;
	c->now = (double)time(NULL);
	c->started_at = NAN;
	if (o->a3s)
		c->o = *o->a3s;
	v->bundle = sp_xstrdup(dir);
	sp_ev_sanitize(v->bundle);
	v->input = sp_xstrdup("a3s");
	v->profile = sp_xstrdup(o->profile ? o->profile : "none");

	sp_error e;
	if (a3s_kv_load(&c->meta, c->dir, "metadata.txt", &e) < 0) {
		GATE(false, SP_GREF(A3S_METADATA), "unreadable", "valid", "%s", e.msg);
		return 0;
	}
	/* a dry run proves only its metadata: accepted with --allow-dry-run and
	 * no gate that needs a run */
	const char *dry = a3s_kv_get(&c->meta, "dry_run");
	if (c->o.allow_dry_run && dry && !strcmp(dry, "1")) {
		const char *flag = c->o.min_duration_s ? "--min-duration-secs" : c->o.min_samples ? "--min-samples"
						 : c->o.min_span_s ? "--min-sample-span-secs"
						 : c->o.max_gap_s ? "--max-sample-gap-secs" : o->profile ? "--profile" : NULL;
		long long val = c->o.min_duration_s ? c->o.min_duration_s : c->o.min_samples ? c->o.min_samples
								: c->o.min_span_s ? c->o.min_span_s : c->o.max_gap_s;
		if (flag && val)
			GATE(false, SP_GREF(A3S_DRY_RUN), "dry run", "a completed run", "dry-run evidence cannot satisfy %s=%lld", flag, val);
		else if (flag)
			GATE(false, SP_GREF(A3S_DRY_RUN), "dry run", "a completed run", "dry-run evidence cannot satisfy --profile %s",
			     o->profile);
		else
			GATE(true, SP_GREF(A3S_DRY_RUN), "dry run", "--allow-dry-run",
			     "dry-run evidence: metadata only (accepted with --allow-dry-run; it is not soak evidence)");
		a3s_kv_free(&c->meta);
		return 0;
	}
	/* host or cluster */
	enum sp_a3s_kind kind = c->o.kind;
	if (kind == SP_A3S_AUTO) {
		const char *rc = a3s_kv_get(&c->meta, "runtime_class");
		kind = rc && *rc ? SP_A3S_CLUSTER
		       : (a3s_kv_get(&c->meta, "selected_suites") || c->meta.suites_colon) ? SP_A3S_HOST
											  : SP_A3S_AUTO;
	}
	if (kind == SP_A3S_AUTO) {
		GATE(false, SP_GREF(A3S_KIND), "unknown", "host or cluster",
		     "metadata.txt has neither runtime_class nor selected_suites: not an A3S host or cluster bundle");
		a3s_kv_free(&c->meta);
		return 0;
	}
	c->cluster = kind == SP_A3S_CLUSTER;
	c->label = c->cluster ? "cluster" : "host";
	free(v->input);
	v->input = sp_xstrdup(c->cluster ? "a3s.cluster" : "a3s.host");
	GATE(true, SP_GREF(A3S_KIND), c->label, "host or cluster", "an A3S %s bundle%s", c->label,
	     c->o.kind == SP_A3S_AUTO ? " (detected from metadata.txt)" : "");

	sp_outcome bad = {0};
	c->meta_ok = check_meta(c, &bad) == 0;
	if (!c->meta_ok)
		GATE(false, SP_GREF(A3S_METADATA), "invalid", "every key A3S reads", "%s", bad.why);
	else
		GATE(true, SP_GREF(A3S_METADATA), "valid", "every key A3S reads", "metadata.txt: %zu keys, the %s keys typed", c->meta.n,
		     c->label);
	if (c->cluster) {
		if (!dry || strcmp(dry, "0"))
			GATE(false, SP_GREF(A3S_DRY_RUN), dry ? dry : "missing", "0",
			     "metadata.txt: dry_run=%s: a dry run is not completed soak evidence", dry ? dry : "(missing)");
		else
			GATE(true, SP_GREF(A3S_DRY_RUN), "0", "0", "metadata.txt: dry_run=0 (a completed run)");
	}
	sp_error summsg = {0};
	c->have_sum = a3s_kv_load(&c->sum, c->dir, "summary.txt", &summsg) == 0;
	gate_result(c, summsg.msg);
	if (!c->cluster)
		gate_iterations(c);
	read_samples(c);
	gate_sample_order(c);
	gate_duration(c);
	gate_profile(c, o->profile ? o->profile : a3s_kv_get(&c->meta, "profile"));
	gate_rss(c);
	if (c->cluster)
		gate_cluster(c);
	else
		gate_host_files(c);

	a3s_kv_free(&c->meta);
	a3s_kv_free(&c->sum);
	a3s_table_free(&c->t);
	free(c->ep);
	return 0;
}
