/* The verifier of sandprobe bundles, inside: what the readers (ev_read.c,
 * ev_read_ops.c) gather from the bundle's files in one pass each, and the
 * declarations of the judges that the gate list (SP_GATE_LIST, evidence.h)
 * names, in report order, one judge function per gate.
 *
 * sp_ev_verify (ev_gates.c) runs the readers, then the judge of every G and
 * J line of SP_GATE_LIST (evidence.h) in order: a judge reads the gathered
 * state and reports its gate (sp_ev_gatef/sp_ev_gate_na, ev_verdict.c), zero
 * or more members for a family (latency.p95.*, cleanup.*). Judges are grouped
 * by family in gates_<family>.c.
 *
 * Adding a gate costs one line and one function: a line
 *     G(NAME, "id", "techniques", "what it proves", sp_judge_<name>) \
 * in SP_GATE_LIST at the place its report line goes (that gives its enum
 * SP_G_NAME, its catalogue entry and its place in the report; this header
 * declares the judge), and the judge
 *     void sp_judge_<name>(sp_ev_judge *s, sp_ev_gate_ref g)
 * in the gates_<family>.c it belongs to. One more report line of a declared
 * gate (a family member, a second judge) is a J line. If the gate needs data
 * no reader keeps yet, the reader that parses that file stores it in
 * sp_ev_judge (that is then more than one function). */
#ifndef SP_EV_JUDGE_H
#define SP_EV_JUDGE_H

#include <math.h>
#include <stdio.h>

#include "evidence/evidence.h"

#define EPS 1e-9
/* summary values are compared with the rows at millisecond resolution: a
 * writer may round a difference of two printed (rounded) ts, so 1 ms apart */
#define SUM_TOL 0.0010000001
#define MAX_SMALL_ROWS 100000 /* faults.tsv, capability-results.tsv */
/* sampling latency the measured interval may add to the maximum */
#define INTERVAL_SLACK 1.1
/* wall clock against ts: one second of print resolution at each end, and a
 * clock step or leap second */
#define WALL_SKEW_S 5.0
/* a fault's window against its recovery_ms (each printed to the ms) */
#define FAULT_TOL_MS 2.0
/* A log is at most 64 KiB; up to SP_EV_MAX_LOG only when it carries the
 * writer's "[... N bytes elided ...]" line (head and tail kept). */
#define LOG_BOUND 65536

static inline bool le(double a, double b)
{
	return a <= b + EPS * fmax(1.0, fabs(b));
}

static inline bool ge(double a, double b)
{
	return a + EPS * fmax(1.0, fabs(b)) >= b;
}

static inline bool near(double a, double b)
{
	return fabs(a - b) <= SUM_TOL + 1e-12 * fabs(b);
}

static inline void num(char *buf, size_t sz, double d)
{
	if (isinf(d))
		snprintf(buf, sz, "%s", d > 0 ? "inf" : "-inf");
	else
		snprintf(buf, sz, "%.10g", d);
}

/* "<= 60": the threshold with its comparison (a static buffer per call
 * site would be overwritten: this one is copied by the gate at once) */
static inline const char *pre(const char *t, const char *op)
{
	static char buf[80];
	snprintf(buf, sizeof buf, "%s %s", op, t);
	return buf;
}

/* ---- reporting (ev_verdict.c) -------------------------------------------- */
sp_ev_gate *sp_ev_gatef(sp_ev_verdict *v, bool pass, sp_ev_gate_ref ref, const char *measured, const char *threshold,
			const char *fmt, ...) SP_PRINTF(6, 7);
/* fails "not evaluated: <why>" */
void sp_ev_gate_na(sp_ev_verdict *v, sp_ev_gate_ref ref, const char *why);
#define gate(...) sp_ev_gatef(__VA_ARGS__)
#define na(...) sp_ev_gate_na(__VA_ARGS__)

/* ---- what the readers gather ---------------------------------------------- */
enum known_file {
	KF_METADATA,
	KF_OPERATIONS,
	KF_LATENCY,
	KF_SAMPLES,
	KF_CAPABILITIES,
	KF_FAULTS,
	KF_INV_START,
	KF_INV_FINAL,
	KF_SUMMARY,
	KF_N
};
extern const char *const sp_ev_known_name[KF_N];

struct scen {
	const char *id;
	size_t idlen;
	long long total, ok, fail, ef, ef_untied;
	double t1, t2;        /* two smallest operation ts */
	/* cycles: distinct generations, told apart among the last 16 seen (a
	 * scenario's cycles finish nearly in order, at most one per worker open) */
	long long cycles, recent[16];
	unsigned nrecent;
	sp_ev_dvec lat;       /* post-warm-up latencies (the latency thread's) */
	double q50, q95, q99; /* their quantiles, when lat.n */
	bool has_cap;
	sp_ev_cap cap;
};

struct window {
	double started, ended;
};

struct fault_row {
	char id[4];
	double started, ended, recovery_ms, rto_ms;
	bool pass;
	unsigned long long line;
};

/* the first row that broke a rule: its line and what is wrong */
struct first_bad {
	bool bad;
	unsigned long long line;
	char msg[240];
};
void sp_ev_first_bad_set(struct first_bad *b, unsigned long long line, const char *fmt, ...) SP_PRINTF(3, 4);

/* a TSV reader's outcome, for its columns.<stem> and types.<stem> gates */
struct tsv_outcome {
	bool opened, read_ok;
	enum sp_ev_err err;
	unsigned long long rows;
	char msg[512];
};

struct samples_acc {
	bool any, mono_bad, phase_bad;
	char mono_msg[200], phase_msg[200];
	long long nstart, nfinal, nperiodic, n;
	sp_ev_sample start, final;
	double prev_ts, max_gap, first_ts;
	long long disk_peak;
	sp_ev_linreg rss, fds;
	size_t nextra;
	char extra_names[SP_EV_MAX_EXTRA][64];
	bool last_was_final;
	/* wall clock */
	double wall0, ts0, prev_wall;
	char wall0s[48];
	struct first_bad wall;
	/* cadence: the j-th periodic sample at or after start + j x interval */
	struct first_bad cadence;
	long long gaps, gaps_long; /* intervals between non-final samples; above the maximum */
	double interval_limit;
};

typedef struct sp_ev_judge {
	const char *dir;
	const sp_ev_verify_opts *o;
	sp_ev_verdict *v;
	sp_ev_sha256 hash[KF_N];
	sp_ev_hasher *hasher;
	double now; /* wall clock of the verification, seconds since the epoch */

	/* metadata.txt */
	sp_ev_meta meta;
	bool meta_ok;
	sp_error meta_err;
	const char *meta_kind;
	sp_ev_thresholds th;
	double started_at; /* metadata started_at (epoch), NAN when invalid */
	bool claim_named;  /* a named profile claimed (not custom) */
	const char *loose; /* the first metadata threshold looser than the claim */
	char loose_have[48], loose_want[48];

	struct tsv_outcome tsv[SP_EV_NFILES];

	struct scen *sc;
	size_t nsc;
	sp_ev_strset sc_set; /* scenario id -> index (many scenarios) */

	struct fault_row *faults;
	size_t nfaults, cap_faults;
	struct window *win;
	size_t nwin, next_win;
	double *heap; /* ends of the open windows not yet used by an operation */
	size_t nheap;
	bool faults_ok, caps_ok, caps_dup;
	char caps_extra[80]; /* first undeclared scenario in capability-results.tsv */

	bool ops_ok;
	long long ops_total, ops_ok_n, ops_fail, ops_ef, ops_untied;
	unsigned long long first_untied_line;
	double first_untied_ts;
	double ops_min_ts, ops_max_ts, ops_prev_ts;
	struct first_bad ops_order;
	long long ops_undeclared;
	char undeclared[80];
	double warmup_end;

	/* latency.tsv, read in step with operations.tsv (by its own thread) */
	struct latq *lq;
	bool lat_opened, lat_ok;
	struct first_bad lat_agree;
	unsigned long long lat_rows;
	double lat_warm_max, lat_cold_min; /* ts of the last warmup=1 / first warmup=0 row */
	unsigned long long lat_warm_max_line, lat_cold_min_line;
	size_t *lat_entry; /* scenario i -> its entry in v->lat, SIZE_MAX for none */

	bool samples_ok;
	long long nsamples, nperiodic;
	struct samples_acc a;

	/* inventory-start.json, inventory-final.json */
	sp_ev_inventory inv_start, inv_final;
	bool inv_ok;
	char inv_msg[400];

	/* summary.json */
	sp_ev_summary sm;
	bool sm_ok;
	sp_error sm_err;

	/* the bundle's files, MANIFEST and MANIFEST.sig */
	char **paths;
	size_t npaths;
	bool listed;
	sp_error list_err;
	char *mbuf, *sig;
	size_t mlen, slen;
	int merrno, serrno;
	/* logs/: the first one over its bound, the secrets found */
	bool log_scan; /* the secret patterns compiled */
	size_t nlogs, log_hits;
	long long log_bigsz;
	char log_big[300], log_where[300];
} sp_ev_judge;

struct scen *sp_ev_find_scen(sp_ev_judge *s, const char *id, size_t n);
/* why the gates over the samples cannot be judged (ordered: also those that
 * need one start and one final sample in order), or NULL (gates_samples.c) */
const char *sp_ev_samples_unjudged(const sp_ev_judge *s, bool ordered);
/* reports the gate "not evaluated: why" when why is set (a reason the judge
 * cannot judge it); true then: the judge returns */
static inline bool na_if(sp_ev_judge *s, sp_ev_gate_ref g, const char *why)
{
	if (why)
		sp_ev_gate_na(s->v, g, why);
	return why != NULL;
}
/* the same for the samples (as sp_ev_samples_unjudged says) */
static inline bool samples_na(sp_ev_judge *s, sp_ev_gate_ref g, bool ordered)
{
	return na_if(s, g, sp_ev_samples_unjudged(s, ordered));
}
/* why the samples give no run (one start and one final sample, in order),
 * or NULL: the run's bounds are then s->a.start.ts, s->a.final.ts */
const char *sp_ev_run_unknown(const sp_ev_judge *s);

/* ---- the readers, in the order sp_ev_verify runs them --------------------- */
void sp_ev_read_metadata(sp_ev_judge *s);
void sp_ev_read_faults(sp_ev_judge *s);
void sp_ev_read_caps(sp_ev_judge *s);
void sp_ev_read_ops(sp_ev_judge *s); /* and latency.tsv in step (ev_read_ops.c) */
void sp_ev_read_samples(sp_ev_judge *s);
void sp_ev_read_latency_end(sp_ev_judge *s);
void sp_ev_read_json(sp_ev_judge *s);   /* inventories and summary */
void sp_ev_read_bundle(sp_ev_judge *s); /* the file list, logs/, MANIFEST, MANIFEST.sig */
void sp_ev_record_tsv(sp_ev_judge *s, enum sp_ev_file f, const sp_ev_rows *r, bool opened, bool read_ok,
		      unsigned long long rows);

/* ---- the judges of the gate list (SP_GATE_LIST's G and J lines) ---------- */
#define SP_EV_JUDGE_G(name, id, techniques, what, judge) void judge(sp_ev_judge *s, sp_ev_gate_ref g);
#define SP_EV_JUDGE_J(name, sfx, judge) void judge(sp_ev_judge *s, sp_ev_gate_ref g);
SP_GATE_LIST(SP_EV_JUDGE_G, SP_EV_JUDGE_J, SP_GATE_SKIP, SP_GATE_SKIP)
#undef SP_EV_JUDGE_G
#undef SP_EV_JUDGE_J

#endif
