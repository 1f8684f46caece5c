/* The verdict on a bundle: every hard gate of docs/evidence-format.md, each with a
 * stable id, the measured value, the threshold and pass/fail. A gate whose
 * input could not be read fails ("not evaluated: ..."): nothing passes
 * without evidence. Files are parsed in one streaming pass each and hashed
 * while they are parsed, so the MANIFEST check re-reads only what was not
 * parsed (logs/, unexpected files). */
#include "evidence/evidence.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

#define EPS 1e-9
/* summary values are compared with the rows at millisecond resolution: a
 * writer may round a difference of two printed (rounded) ts, so 1 ms apart */
#define SUM_TOL 0.0010000001
#define MAX_SMALL_ROWS 100000 /* faults.tsv, capability-results.tsv */

static bool le(double a, double b)
{
	return a <= b + EPS * fmax(1.0, fabs(b));
}

static bool ge(double a, double b)
{
	return a + EPS * fmax(1.0, fabs(b)) >= b;
}

static bool near(double a, double b)
{
	return fabs(a - b) <= SUM_TOL + 1e-12 * fabs(b);
}

static void num(char *buf, size_t sz, double d)
{
	if (isinf(d))
		snprintf(buf, sz, "%s", d > 0 ? "inf" : "-inf");
	else
		snprintf(buf, sz, "%.10g", d);
}

/* "<= 60": the threshold with its comparison (a static buffer per call
 * site would be overwritten: this one is copied by gate() at once) */
static const char *pre(const char *t, const char *op)
{
	static char buf[80];
	snprintf(buf, sizeof buf, "%s %s", op, t);
	return buf;
}

/* Messages quote bundle bytes: keep them printable, valid UTF-8 (JSON needs
 * it), replacing anything else by '?'. */
void sp_ev_sanitize(char *p)
{
	unsigned char *s = (unsigned char *)p;
	size_t n = strlen(p), i = 0;
	while (i < n) {
		if (s[i] < 0x20 || s[i] == 0x7f) {
			s[i++] = '?';
			continue;
		}
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		size_t len = (s[i] & 0xe0) == 0xc0 ? 2 : (s[i] & 0xf0) == 0xe0 ? 3 : (s[i] & 0xf8) == 0xf0 ? 4 : 0;
		if (len && i + len <= n && sp_ev_is_text(p + i, len)) {
			i += len;
			continue;
		}
		s[i++] = '?';
	}
}

/* ---- the gate catalogue -------------------------------------------------- */
const sp_ev_gate_info sp_gate_catalog[] = {
#define SP_GATE_INFO(name, id, techniques, what) [SP_G_##name] = {id, techniques, what},
	SP_GATE_LIST(SP_GATE_INFO)
#undef SP_GATE_INFO
};
const size_t sp_gate_catalog_count = SP_ARRAY_SIZE(sp_gate_catalog);
_Static_assert(SP_ARRAY_SIZE(sp_gate_catalog) == SP_G_COUNT, "one catalogue entry per gate id");

const char *sp_gate_ref_id(sp_ev_gate_ref r, char out[64])
{
	const char *c = sp_gate_catalog[r.id].id;
	size_t n = strlen(c);
	if (r.suffix && n > 2 && !strcmp(c + n - 2, ".*"))
		snprintf(out, 64, "%.*s%s", (int)(n - 1), c, r.suffix);
	else
		snprintf(out, 64, "%s", c);
	return out;
}

const sp_ev_gate_info *sp_gate_info_find(const char *id)
{
	/* an exact entry first, then a family (cleanup.status before cleanup.*) */
	for (size_t i = 0; i < sp_gate_catalog_count; i++)
		if (!strcmp(id, sp_gate_catalog[i].id))
			return &sp_gate_catalog[i];
	for (size_t i = 0; i < sp_gate_catalog_count; i++) {
		const char *c = sp_gate_catalog[i].id;
		size_t n = strlen(c);
		if (n > 2 && !strcmp(c + n - 2, ".*") && !strncmp(id, c, n - 1) && id[n - 1] != '\0')
			return &sp_gate_catalog[i];
	}
	return NULL;
}

/* ---- verdict ----------------------------------------------------------- */
static sp_ev_gate *gate(sp_ev_verdict *v, bool pass, sp_ev_gate_ref ref, const char *measured, const char *threshold,
		     const char *fmt, ...) SP_PRINTF(6, 7);
static sp_ev_gate *gate(sp_ev_verdict *v, bool pass, sp_ev_gate_ref ref, const char *measured, const char *threshold,
		     const char *fmt, ...)
{
	char id[64];
	sp_gate_ref_id(ref, id);
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 64;
		v->g = sp_xrealloc(v->g, v->cap * sizeof *v->g);
	}
	sp_ev_gate *g = &v->g[v->n++];
	memset(g, 0, sizeof *g);
	snprintf(g->id, sizeof g->id, "%s", id);
	g->status = pass ? SP_GATE_PASS : SP_GATE_FAIL;
	snprintf(g->measured, sizeof g->measured, "%s", measured ? measured : "");
	snprintf(g->threshold, sizeof g->threshold, "%s", threshold ? threshold : "");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(g->message, sizeof g->message, fmt, ap);
	va_end(ap);
	sp_ev_sanitize(g->id);
	sp_ev_sanitize(g->measured);
	sp_ev_sanitize(g->threshold);
	sp_ev_sanitize(g->message);
	if (pass)
		v->npass++;
	else
		v->nfail++;
	return g;
}

static void na(sp_ev_verdict *v, sp_ev_gate_ref id, const char *why)
{
	gate(v, false, id, "n/a", "-", "not evaluated: %s", why);
}

sp_ev_gate *sp_verdict_add(sp_ev_verdict *v, bool pass, sp_ev_gate_ref id, const char *measured, const char *threshold,
			const char *fmt, ...)
{
	char msg[320];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return gate(v, pass, id, measured, threshold, "%s", msg);
}

void sp_verdict_na(sp_ev_verdict *v, sp_ev_gate_ref id, const char *why)
{
	na(v, id, why);
}

void sp_verdict_free(sp_ev_verdict *v)
{
	free(v->g);
	free(v->bundle);
	free(v->profile);
	free(v->input);
	sp_baseline_free(&v->lat);
	memset(v, 0, sizeof *v);
}

const sp_ev_gate *sp_verdict_find(const sp_ev_verdict *v, sp_ev_gate_ref ref)
{
	char id[64];
	sp_gate_ref_id(ref, id);
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->g[i].id, id))
			return &v->g[i];
	return NULL;
}

/* ---- state of one verification ----------------------------------------- */
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
static const char *const known_name[KF_N] = {
	"metadata.txt",		  "operations.tsv",	"latency.tsv",	       "resource-samples.tsv", "capability-results.tsv",
	"faults.tsv",		  "inventory-start.json", "inventory-final.json", "summary.json",
};

struct scen {
	const char *id;
	size_t idlen;
	long long total, ok, fail, ef, ef_untied;
	double t1, t2; /* two smallest operation ts */
	sp_ev_dvec lat;   /* post-warm-up latencies (the latency thread's) */
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

static void first_bad_set(struct first_bad *b, unsigned long long line, const char *fmt, ...) SP_PRINTF(3, 4);
static void first_bad_set(struct first_bad *b, unsigned long long line, const char *fmt, ...)
{
	if (b->bad)
		return;
	b->bad = true;
	b->line = line;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->msg, sizeof b->msg, fmt, ap);
	va_end(ap);
}

typedef struct state {
	const char *dir;
	sp_ev_verdict *v;
	sp_ev_sha256 hash[KF_N];
	bool present[KF_N];
	sp_ev_hasher *hasher;
	double now; /* wall clock of the verification, seconds since the epoch */

	sp_ev_meta meta;
	bool meta_ok;
	sp_ev_thresholds th;
	double started_at; /* metadata started_at (epoch), NAN when invalid */

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

	bool samples_ok;
	long long nsamples, nperiodic;
} state;

static struct scen *find_scen(state *s, const char *id, size_t n)
{
	if (s->nsc <= 16) {
		for (size_t i = 0; i < s->nsc; i++)
			if (s->sc[i].idlen == n && !memcmp(s->sc[i].id, id, n))
				return &s->sc[i];
		return NULL;
	}
	size_t i = sp_strset_get(&s->sc_set, id, n);
	return i == SIZE_MAX ? NULL : &s->sc[i];
}

/* columns.<stem> and types.<stem> gates from a reader outcome */
static void struct_gates(state *s, enum sp_ev_file f, const sp_ev_rows *r, bool opened, bool read_ok,
			 unsigned long long rows)
{
	char m[32];
	const char *stem = sp_ev_file_stem(f);
	sp_ev_gate_ref id = SP_GFAM(COLUMNS, stem);
	if (!opened && r->err == SP_EVE_PRESENT)
		na(s->v, id, r->msg);
	else if (!opened)
		gate(s->v, false, id, "missing", "all required", "%s", r->msg);
	else
		gate(s->v, true, id, "all required", "all required", "%s: every required column present",
		     sp_ev_file_name(f));
	id = SP_GFAM(TYPES, stem);
	snprintf(m, sizeof m, "%llu rows", rows);
	if (!opened)
		na(s->v, id, r->msg);
	else if (!read_ok)
		gate(s->v, false, id, "invalid", "every value typed", "%s", r->msg);
	else
		gate(s->v, true, id, m, "every value typed", "%s: %llu rows, every value of the right type",
		     sp_ev_file_name(f), rows);
}

/* ---- files.present ----------------------------------------------------- */
static void check_present(state *s)
{
	char missing[256] = "";
	size_t nmiss = 0, len = 0;
	for (int k = 0; k < KF_N; k++) {
		_cleanup_free_ char *p = sp_xasprintf("%s/%s", s->dir, known_name[k]);
		struct stat st;
		const char *why = NULL;
		if (lstat(p, &st) < 0)
			why = "missing";
		else if (!S_ISREG(st.st_mode))
			why = "not a regular file";
		else if (st.st_size == 0)
			why = "empty";
		s->present[k] = !why;
		if (why) {
			nmiss++;
			len += (size_t)snprintf(missing + len, len < sizeof missing ? sizeof missing - len : 0, "%s%s %s",
						nmiss > 1 ? ", " : "", known_name[k], why);
			if (len >= sizeof missing)
				len = sizeof missing;
		}
	}
	_cleanup_free_ char *lp = sp_xasprintf("%s/logs", s->dir);
	struct stat st;
	if (lstat(lp, &st) < 0 || !S_ISDIR(st.st_mode)) {
		nmiss++;
		len += (size_t)snprintf(missing + len, len < sizeof missing ? sizeof missing - len : 0, "%slogs/ missing",
					nmiss > 1 ? ", " : "");
	}
	char m[32];
	snprintf(m, sizeof m, "%zu missing", nmiss);
	if (nmiss)
		gate(s->v, false, SP_GREF(FILES_PRESENT), m, "0 missing", "%s", missing);
	else
		gate(s->v, true, SP_GREF(FILES_PRESENT), m, "0 missing", "every required file present and non-empty");
}

/* ---- metadata and profile ---------------------------------------------- */
static void check_metadata(state *s, const sp_ev_verify_opts *o)
{
	sp_error merr;
	const char *msg = merr.msg;
	const char *kind = "keys";
	sp_ev_verdict *v = s->v;
	if (sp_meta_load(&s->meta, s->dir, &s->hash[KF_METADATA], &merr, &kind) < 0) {
		if (!strcmp(kind, "schema")) {
			gate(v, false, SP_GREF(METADATA_SCHEMA), "unknown", SP_EVIDENCE_SCHEMA, "%s", msg);
			na(v, SP_GREF(METADATA_KEYS), "metadata.txt has no known schema");
		} else if (!strcmp(kind, "present")) {
			na(v, SP_GREF(METADATA_SCHEMA), msg);
			na(v, SP_GREF(METADATA_KEYS), msg);
		} else {
			const char *sch = s->meta.n ? sp_kv_get(s->meta.kv, s->meta.n, "schema") : NULL;
			if (sch && !strcmp(sch, SP_EVIDENCE_SCHEMA))
				gate(v, true, SP_GREF(METADATA_SCHEMA), SP_EVIDENCE_SCHEMA, SP_EVIDENCE_SCHEMA,
				     "metadata.txt: schema %s", SP_EVIDENCE_SCHEMA);
			else
				na(v, SP_GREF(METADATA_SCHEMA), msg);
			gate(v, false, SP_GREF(METADATA_KEYS), "invalid", "every required key typed", "%s", msg);
		}
		na(v, SP_GREF(PROFILE_CLAIM), "metadata.txt is invalid");
		return;
	}
	s->meta_ok = true;
	const char *sa = sp_kv_get(s->meta.kv, s->meta.n, "started_at");
	if (!sa || sp_ev_parse_iso8601(sa, strlen(sa), &s->started_at) < 0)
		s->started_at = NAN;
	gate(v, true, SP_GREF(METADATA_SCHEMA), SP_EVIDENCE_SCHEMA, SP_EVIDENCE_SCHEMA, "metadata.txt: schema %s",
	     SP_EVIDENCE_SCHEMA);
	gate(v, true, SP_GREF(METADATA_KEYS), "all typed", "every required key typed",
	     "metadata.txt: %zu keys, %zu declared scenarios, %zu declared faults", s->meta.n, s->meta.nscenarios,
	     s->meta.nfaults);

	/* thresholds: the metadata's, made stricter by the claimed profile and
	 * by --profile; a named profile whose thresholds the metadata loosens
	 * is a claim the bundle does not meet */
	s->th = s->meta.th;
	sp_ev_thresholds pt;
	const char *claim = s->meta.profile;
	if (sp_profile_thresholds(claim, &pt)) {
		const sp_ev_thresholds *m = &s->meta.th;
		const char *loose = NULL;
		char have[48] = "", want[48] = "";
#define LOOSER_MIN(f)                                                          \
	if (!loose && m->f < pt.f) {                                           \
		loose = "threshold." #f;                                       \
		num(have, sizeof have, (double)m->f);                          \
		num(want, sizeof want, (double)pt.f);                          \
	}
#define LOOSER_MAX(f)                                                          \
	if (!loose && m->f > pt.f) {                                           \
		loose = "threshold." #f;                                       \
		num(have, sizeof have, (double)m->f);                          \
		num(want, sizeof want, (double)pt.f);                          \
	}
		LOOSER_MIN(min_span_s)
		LOOSER_MAX(max_interval_s)
		LOOSER_MIN(min_periodic_samples)
		LOOSER_MAX(max_gap_s)
		LOOSER_MIN(min_success_ratio)
		LOOSER_MAX(rss_slope_mib_per_day)
		LOOSER_MAX(p95_regression_pct)
#undef LOOSER_MIN
#undef LOOSER_MAX
		if (loose)
			gate(v, false, SP_GREF(PROFILE_CLAIM), have, want,
			     "bundle claims profile %s but metadata %s=%s is looser than the profile's %s", claim, loose,
			     have, want);
		else
			gate(v, true, SP_GREF(PROFILE_CLAIM), claim, claim, "metadata thresholds meet profile %s", claim);
		sp_thresholds_stricter(&s->th, &pt, &s->th);
	} else {
		gate(v, true, SP_GREF(PROFILE_CLAIM), claim, "custom", "custom profile: judged by the thresholds in metadata.txt");
	}
	if (o->profile && sp_profile_thresholds(o->profile, &pt))
		sp_thresholds_stricter(&s->th, &pt, &s->th);
}

/* metadata.absent: fields a writer could not derive (sandprobe import marks
 * them '-' and lists them): such a bundle is drawn, never release evidence */
static void check_absent(state *s)
{
	const char *ab = s->meta.n ? sp_kv_get(s->meta.kv, s->meta.n, "absent") : NULL;
	if (!s->meta.n) {
		na(s->v, SP_GREF(METADATA_ABSENT), "metadata.txt is unreadable");
		return;
	}
	if (!ab || !*ab) {
		gate(s->v, true, SP_GREF(METADATA_ABSENT), "none", "none", "no field is marked absent");
		return;
	}
	size_t n = 1;
	for (const char *p = ab; *p; p++)
		n += *p == ',';
	const char *from = sp_kv_get(s->meta.kv, s->meta.n, "imported_from");
	char m[32];
	snprintf(m, sizeof m, "%zu absent", n);
	gate(s->v, false, SP_GREF(METADATA_ABSENT), m, "none", "%zu field(s) marked absent%s%s%s: %.200s", n, from ? " (imported from " : "",
	     from ? from : "", from ? ")" : "", ab);
}

/* ---- faults.tsv -------------------------------------------------------- */
static void read_faults(state *s)
{
	sp_ev_rows r;
	sp_ev_fault f;
	unsigned long long rows = 0;
	bool opened = sp_rows_open_hashed(&r, s->dir, SP_EV_FAULTS, &s->hash[KF_FAULTS], s->hasher) == 0;
	bool ok = opened;
	if (opened) {
		int rc;
		while ((rc = sp_faults_next(&r, &f)) > 0) {
			if (++rows > MAX_SMALL_ROWS) {
				snprintf(r.msg, sizeof r.msg, "faults.tsv: more than %d rows", MAX_SMALL_ROWS);
				rc = -1;
				break;
			}
			if (s->nfaults == s->cap_faults) {
				s->cap_faults = s->cap_faults ? 2 * s->cap_faults : 16;
				s->faults = sp_xrealloc(s->faults, s->cap_faults * sizeof *s->faults);
			}
			struct fault_row *fr = &s->faults[s->nfaults++];
			memcpy(fr->id, f.fault_id, 4);
			fr->started = f.started;
			fr->ended = f.ended;
			fr->recovery_ms = f.recovery_ms;
			fr->rto_ms = f.rto_ms;
			fr->pass = f.pass;
			fr->line = r.line;
			if (f.ended < f.started) {
				snprintf(r.msg, sizeof r.msg, "faults.tsv line %llu: column ended: %.10g is before started %.10g",
					 r.line, f.ended, f.started);
				rc = -1;
				break;
			}
		}
		ok = rc == 0;
	}
	struct_gates(s, SP_EV_FAULTS, &r, opened, ok, rows);
	if (opened)
		sp_rows_close(&r);
	s->faults_ok = ok;
}

static void gate_faults(state *s)
{
	sp_ev_verdict *v = s->v;
	if (!s->faults_ok) {
		na(v, SP_GREF(FAULTS_RECOVERED), "faults.tsv is invalid");
		na(v, SP_GREF(FAULTS_DECLARED), "faults.tsv is invalid");
		return;
	}
	size_t bad = 0, first = 0;
	double worst = 0;
	for (size_t i = 0; i < s->nfaults; i++) {
		struct fault_row *f = &s->faults[i];
		bool okf = f->pass && le(f->recovery_ms, f->rto_ms);
		if (f->rto_ms > 0 && f->recovery_ms / f->rto_ms > worst)
			worst = f->recovery_ms / f->rto_ms;
		if (!okf && !bad++)
			first = i;
	}
	char m[48], t[48];
	snprintf(m, sizeof m, "%zu of %zu", s->nfaults - bad, s->nfaults);
	snprintf(t, sizeof t, "%zu of %zu", s->nfaults, s->nfaults);
	if (bad) {
		struct fault_row *f = &s->faults[first];
		gate(v, false, SP_GREF(FAULTS_RECOVERED), m, t,
		     "%zu fault(s) not recovered inside their RTO; first: %s (faults.tsv row %zu) result %s, recovery %.10g ms, rto %.10g ms",
		     bad, f->id, first + 1, f->pass ? "pass" : "fail", f->recovery_ms, f->rto_ms);
	} else {
		gate(v, true, SP_GREF(FAULTS_RECOVERED), m, t, "every fault recovered inside its RTO (worst %.0f%% of RTO)",
		     worst * 100);
	}
	if (!s->meta_ok) {
		na(v, SP_GREF(FAULTS_DECLARED), "metadata.txt is invalid");
		return;
	}
	/* at most nine declared ids (F01..F09): a bitmask each way */
	unsigned declared = 0, injected = 0;
	for (size_t i = 0; i < s->meta.nfaults; i++)
		declared |= 1u << (s->meta.faults[i][2] - '0');
	for (size_t k = 0; k < s->nfaults; k++) {
		unsigned bit = 1u << (s->faults[k].id[2] - '0');
		injected |= bit;
		if (!(declared & bit)) {
			gate(v, false, SP_GREF(FAULTS_DECLARED), s->faults[k].id, "only declared faults",
			     "faults.tsv row %zu: fault %s is not declared in metadata.txt (faults=%s)", k + 1,
			     s->faults[k].id, s->meta.nfaults ? "..." : "none");
			return;
		}
	}
	for (size_t i = 0; i < s->meta.nfaults; i++)
		if (!(injected & (1u << (s->meta.faults[i][2] - '0')))) {
			gate(v, false, SP_GREF(FAULTS_DECLARED), s->meta.faults[i], "every declared fault injected",
			     "fault %s is declared in metadata.txt but has no row in faults.tsv", s->meta.faults[i]);
			return;
		}
	snprintf(m, sizeof m, "%zu declared", s->meta.nfaults);
	gate(v, true, SP_GREF(FAULTS_DECLARED), m, "every declared fault injected",
	     "faults.tsv matches the %zu fault(s) declared in metadata.txt", s->meta.nfaults);
}

/* faults.window: every fault inside the run and its window the length of
 * its recovery (the writer records injection, recovery end and their
 * difference; each printed to the millisecond) */
#define FAULT_TOL_MS 2.0
static void gate_fault_windows(state *s, bool have_run, double start_ts, double final_ts)
{
	sp_ev_verdict *v = s->v;
	if (!s->faults_ok) {
		na(v, SP_GREF(FAULTS_WINDOW), "faults.tsv is invalid");
		return;
	}
	if (!have_run) {
		na(v, SP_GREF(FAULTS_WINDOW), "resource-samples.tsv has no start and final sample in order");
		return;
	}
	char t[64];
	snprintf(t, sizeof t, "in [%.10g, %.10g], |recovery - window| <= %.0f ms", start_ts, final_ts, FAULT_TOL_MS);
	for (size_t i = 0; i < s->nfaults; i++) {
		const struct fault_row *f = &s->faults[i];
		double win_ms = (f->ended - f->started) * 1000.0;
		char m[64];
		if (!ge(f->started, start_ts) || !le(f->ended, final_ts)) {
			snprintf(m, sizeof m, "[%.10g, %.10g]", f->started, f->ended);
			gate(v, false, SP_GREF(FAULTS_WINDOW), m, t,
			     "faults.tsv line %llu: fault %s window [%.10g, %.10g] is outside the run (start sample %.10g, final sample %.10g)",
			     f->line, f->id, f->started, f->ended, start_ts, final_ts);
			return;
		}
		if (fabs(f->recovery_ms - win_ms) > FAULT_TOL_MS + 1e-6) {
			snprintf(m, sizeof m, "%.10g ms window", win_ms);
			gate(v, false, SP_GREF(FAULTS_WINDOW), m, t,
			     "faults.tsv line %llu: fault %s window is %.10g ms (started %.10g, ended %.10g) but recovery_ms is %.10g",
			     f->line, f->id, win_ms, f->started, f->ended, f->recovery_ms);
			return;
		}
	}
	char m[48];
	snprintf(m, sizeof m, "%zu consistent", s->nfaults);
	gate(v, true, SP_GREF(FAULTS_WINDOW), m, t, "%zu fault window(s) inside the run, each as long as its recovery", s->nfaults);
}

/* ---- capability-results.tsv -------------------------------------------- */
static void read_caps(state *s)
{
	sp_ev_rows r;
	sp_ev_cap c;
	unsigned long long rows = 0;
	bool opened = sp_rows_open_hashed(&r, s->dir, SP_EV_CAPABILITIES, &s->hash[KF_CAPABILITIES], s->hasher) == 0;
	bool ok = opened;
	if (opened) {
		int rc;
		while ((rc = sp_caps_next(&r, &c)) > 0) {
			if (++rows > MAX_SMALL_ROWS) {
				snprintf(r.msg, sizeof r.msg, "capability-results.tsv: more than %d rows", MAX_SMALL_ROWS);
				rc = -1;
				break;
			}
			struct scen *sc = find_scen(s, c.scenario, strlen(c.scenario));
			if (!sc) {
				if (!s->caps_extra[0])
					snprintf(s->caps_extra, sizeof s->caps_extra, "%s", c.scenario);
				continue;
			}
			if (sc->has_cap)
				s->caps_dup = true;
			sc->has_cap = true;
			sc->cap = c;
			sc->cap.scenario = sc->id;
		}
		ok = rc == 0;
	}
	struct_gates(s, SP_EV_CAPABILITIES, &r, opened, ok, rows);
	if (opened)
		sp_rows_close(&r);
	s->caps_ok = ok;
}

/* ---- operations.tsv (and latency.tsv in step) -------------------------- */
/* the passing fault windows sorted by start. Operations come in time order;
 * each expected_fault operation takes, of the windows open at its ts, the
 * one that closes first (greedy, which pairs as many operations with
 * windows as any assignment can): one window excuses one operation. */
static int cmp_win(const void *a, const void *b)
{
	double x = ((const struct window *)a)->started, y = ((const struct window *)b)->started;
	return x < y ? -1 : x > y;
}

static void build_windows(state *s)
{
	s->win = sp_xcalloc(s->nfaults ? s->nfaults : 1, sizeof *s->win);
	s->heap = sp_xcalloc(s->nfaults ? s->nfaults : 1, sizeof *s->heap);
	s->nwin = s->next_win = s->nheap = 0;
	for (size_t i = 0; i < s->nfaults; i++)
		if (s->faults[i].pass) {
			s->win[s->nwin].started = s->faults[i].started;
			s->win[s->nwin].ended = s->faults[i].ended;
			s->nwin++;
		}
	qsort(s->win, s->nwin, sizeof *s->win, cmp_win);
}

static void heap_push(state *s, double x)
{
	size_t i = s->nheap++;
	while (i && s->heap[(i - 1) / 2] > x) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = x;
}

static void heap_pop(state *s)
{
	double x = s->heap[--s->nheap];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && s->heap[c + 1] < s->heap[c])
			c++;
		if (s->heap[c] >= x)
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap)
		s->heap[i] = x;
}

/* an unused passing window open at ts: taken (true), or none (false) */
static bool take_window(state *s, double ts)
{
	while (s->next_win < s->nwin && s->win[s->next_win].started <= ts)
		heap_push(s, s->win[s->next_win++].ended);
	while (s->nheap && s->heap[0] < ts)
		heap_pop(s); /* closed before ts: no later operation can use it */
	if (!s->nheap)
		return false;
	heap_pop(s);
	return true;
}

static bool same(const char *a, size_t an, const char *b, size_t bn)
{
	return an == bn && !memcmp(a, b, an);
}

/* one field of the line equal to f, then delim */
static bool seg(const char **p, const char *end, const char *f, size_t n, char delim)
{
	if ((size_t)(end - *p) < n + 1 || (*p)[n] != delim)
		return false;
	for (size_t i = 0; i < n; i++) /* short fields: no call */
		if ((*p)[i] != f[i])
			return false;
	*p += n + 1;
	return true;
}

/* an ok operation as latency.tsv must repeat it */
struct lat_rec {
	double ts, latency;
	unsigned long long line; /* in operations.tsv */
	struct scen *sc;	 /* NULL: an undeclared scenario */
	const char *f[4];	 /* ts, scenario, operation, latency_ms as written */
	size_t n[4];
};

static void lat_row_ok(state *s, const sp_ev_rows *l, const struct lat_rec *op, bool warm)
{
	if (warm && op->ts >= s->lat_warm_max) {
		s->lat_warm_max = op->ts;
		s->lat_warm_max_line = l->line;
	} else if (!warm && op->ts < s->lat_cold_min) {
		s->lat_cold_min = op->ts;
		s->lat_cold_min_line = l->line;
	}
	if (!warm && op->sc)
		sp_dvec_push(&op->sc->lat, op->latency);
}

/* the latency.tsv row for this ok operation: same ts, scenario, operation
 * and latency (byte for byte, or as the same decimal) */
static void lat_step(state *s, sp_ev_rows *l, const struct lat_rec *op)
{
	if (!s->lat_opened || !s->lat_ok || s->lat_agree.bad)
		return;
	/* fastest: the row, already read, is this operation's (writer's order) */
	char wch;
	if (l->ncols == 5 && l->col[0] == 0 && l->col[1] == 1 && l->col[2] == 2 && l->col[3] == 3 && l->col[4] == 4 &&
	    sp_rows_try_line(l, op->f, op->n, 4, "01", &wch)) {
		s->lat_rows++;
		lat_row_ok(s, l, op, wch == '1');
		return;
	}
	const char *ln;
	size_t ll;
	int rc = sp_rows_peek_line(l, &ln, &ll);
	if (rc < 0) {
		s->lat_ok = false;
		return;
	}
	if (rc == 0) {
		first_bad_set(&s->lat_agree, l->line,
			      "latency.tsv ends after %llu rows but operations.tsv line %llu is another ok operation",
			      s->lat_rows, op->line);
		return;
	}
	s->lat_rows++;
#define OF(c) op->f[c], op->n[c]
	/* the common case, the writer's column order: the line is the
	 * operation's fields byte for byte and a 0/1 (no split needed: those
	 * bytes were checked in operations.tsv) */
	if (l->ncols == 5 && l->col[0] == 0 && l->col[1] == 1 && l->col[2] == 2 && l->col[3] == 3 && l->col[4] == 4) {
		const char *p = ln, *end = ln + ll;
		if (seg(&p, end, OF(0), '\t') && seg(&p, end, OF(1), '\t') && seg(&p, end, OF(2), '\t') &&
		    seg(&p, end, OF(3), '\t') && end - p == 1 && (*p == '0' || *p == '1')) {
			lat_row_ok(s, l, op, *p == '1');
			return;
		}
	}
	if (sp_rows_split_line(l, ln, ll) < 0) {
		s->lat_ok = false;
		return;
	}
#define LF(c) l->f[l->col[c]], l->flen[l->col[c]]
	/* warmup first: a typed column of latency.tsv alone */
	const char *w = l->f[l->col[4]];
	if (l->flen[l->col[4]] != 1 || (w[0] != '0' && w[0] != '1')) {
		snprintf(l->msg, sizeof l->msg, "latency.tsv line %llu: column warmup: '%.40s' is not 0 or 1", l->line, w);
		s->lat_ok = false;
		return;
	}
	if (!l->flen[l->col[1]] || !l->flen[l->col[2]]) {
		snprintf(l->msg, sizeof l->msg, "latency.tsv line %llu: column %s: '' is not a non-empty value", l->line,
			 l->flen[l->col[1]] ? "operation" : "scenario");
		s->lat_ok = false;
		return;
	}
	const char *what = NULL;
	int k = 0;
	if (!same(LF(0), OF(0))) {
		double x;
		if (sp_ev_parse_dec(LF(0), &x) < 0) {
			snprintf(l->msg, sizeof l->msg, "latency.tsv line %llu: column ts: '%.40s' is not a non-negative decimal",
				 l->line, l->f[l->col[0]]);
			s->lat_ok = false;
			return;
		}
		if (x != op->ts)
			what = "ts", k = 0;
	}
	if (!what && !same(LF(1), OF(1)))
		what = "scenario", k = 1;
	if (!what && !same(LF(2), OF(2)))
		what = "operation", k = 2;
	if (!what && !same(LF(3), OF(3))) {
		double x;
		if (sp_ev_parse_dec(LF(3), &x) < 0) {
			snprintf(l->msg, sizeof l->msg,
				 "latency.tsv line %llu: column latency_ms: '%.40s' is not a non-negative decimal", l->line,
				 l->f[l->col[3]]);
			s->lat_ok = false;
			return;
		}
		if (x != op->latency)
			what = "latency_ms", k = 3;
	}
	if (what) {
		first_bad_set(&s->lat_agree, l->line,
			      "latency.tsv line %llu: %s '%.40s' but the ok operation at operations.tsv line %llu has '%.*s'",
			      l->line, what, l->f[l->col[k]], op->line, (int)(op->n[k] > 40 ? 40 : op->n[k]), op->f[k]);
		return;
	}
#undef LF
#undef OF
	lat_row_ok(s, l, op, w[0] == '1');
}

/* ---- the latency thread ---------------------------------------------------
 * operations.tsv is parsed here; the ok operations go in batches to a
 * thread that reads latency.tsv in step (and computes the quantiles), so
 * that the two files are parsed on two cores. */
#define LQ_RECS 2048
#define LQ_ARENA (SP_EV_MAX_LINE + LQ_RECS * 48)
#define LQ_NB 3
struct lat_batch {
	struct lat_rec rec[LQ_RECS];
	size_t nrec, used;
	char arena[LQ_ARENA];
};

struct latq {
	state *s;
	sp_ev_rows l;
	pthread_t thr;
	bool threaded, done, ops_ok;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct lat_batch *b[LQ_NB];
	int full[LQ_NB];
	int prod, cons;
};

static void lat_quantiles(state *s)
{
	for (size_t i = 0; i < s->nsc; i++)
		if (s->sc[i].lat.n)
			sp_quantiles3(s->sc[i].lat.v, s->sc[i].lat.n, &s->sc[i].q50, &s->sc[i].q95, &s->sc[i].q99);
}

/* after the last ok operation: nothing may follow it in latency.tsv */
static void lat_finish(state *s, sp_ev_rows *l, bool ops_ok)
{
	if (ops_ok && s->lat_ok && !s->lat_agree.bad) {
		int rc = sp_rows_next_raw(l);
		if (rc < 0)
			s->lat_ok = false;
		else if (rc > 0)
			first_bad_set(&s->lat_agree, l->line,
				      "latency.tsv line %llu: a row after the last ok operation of operations.tsv", l->line);
	}
	lat_quantiles(s);
}

static void *lat_main(void *arg)
{
	struct latq *q = arg;
	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (!q->full[q->cons] && !q->done)
			pthread_cond_wait(&q->cv, &q->mu);
		if (!q->full[q->cons])
			break; /* done, nothing left */
		struct lat_batch *bt = q->b[q->cons];
		pthread_mutex_unlock(&q->mu);
		for (size_t i = 0; i < bt->nrec; i++)
			lat_step(q->s, &q->l, &bt->rec[i]);
		pthread_mutex_lock(&q->mu);
		q->full[q->cons] = 0;
		q->cons = (q->cons + 1) % LQ_NB;
		pthread_cond_broadcast(&q->cv);
	}
	bool ops_ok = q->ops_ok;
	pthread_mutex_unlock(&q->mu);
	lat_finish(q->s, &q->l, ops_ok); /* and the quantiles, on this core */
	return NULL;
}

static void lq_publish(struct latq *q)
{
	struct lat_batch *bt = q->b[q->prod];
	if (!q->threaded) {
		for (size_t i = 0; i < bt->nrec; i++)
			lat_step(q->s, &q->l, &bt->rec[i]);
		bt->nrec = bt->used = 0;
		return;
	}
	pthread_mutex_lock(&q->mu);
	q->full[q->prod] = 1;
	q->prod = (q->prod + 1) % LQ_NB;
	pthread_cond_broadcast(&q->cv);
	while (q->full[q->prod])
		pthread_cond_wait(&q->cv, &q->mu);
	pthread_mutex_unlock(&q->mu);
	q->b[q->prod]->nrec = q->b[q->prod]->used = 0;
}

static void lq_push(struct latq *q, const sp_ev_rows *o, const sp_ev_op *op, struct scen *sc)
{
	static const int cols[4] = {0, 1, 3, 4}; /* ts, scenario, operation, latency_ms */
	size_t need = 0;
	for (int k = 0; k < 4; k++)
		need += o->flen[o->col[cols[k]]];
	struct lat_batch *bt = q->b[q->prod];
	if (bt->nrec == LQ_RECS || bt->used + need > LQ_ARENA)
		lq_publish(q), bt = q->b[q->prod];
	struct lat_rec *r = &bt->rec[bt->nrec++];
	r->ts = op->ts;
	r->latency = op->latency_ms;
	r->line = o->line;
	r->sc = sc;
	if (o->col[0] == 0 && o->col[1] == 1 && o->col[3] == 3 && o->col[4] == 4) {
		/* the writer's order: ts..latency_ms are one span of the line */
		const char *from = o->f[0], *to = o->f[4] + o->flen[4];
		size_t n = (size_t)(to - from);
		if (bt->used + n > LQ_ARENA) /* need counted the fields only */
			bt->nrec--, lq_publish(q), bt = q->b[q->prod], r = &bt->rec[bt->nrec++], *r = (struct lat_rec){
				.ts = op->ts, .latency = op->latency_ms, .line = o->line, .sc = sc};
		char *base = bt->arena + bt->used;
		memcpy(base, from, n);
		for (int k = 0; k < 4; k++) {
			r->f[k] = base + (o->f[cols[k]] - from);
			r->n[k] = o->flen[cols[k]];
		}
		bt->used += n;
		return;
	}
	for (int k = 0; k < 4; k++) {
		size_t n = o->flen[o->col[cols[k]]];
		memcpy(bt->arena + bt->used, o->f[o->col[cols[k]]], n);
		r->f[k] = bt->arena + bt->used;
		r->n[k] = n;
		bt->used += n;
	}
}

static void lq_start(state *s)
{
	struct latq *q = sp_xcalloc(1, sizeof *q);
	q->s = s;
	s->lq = q;
	/* hashed by the latency thread itself: the hashing thread keeps
	 * operations.tsv, the three threads then share two cores evenly */
	s->lat_opened = sp_rows_open_hashed(&q->l, s->dir, SP_EV_LATENCY, &s->hash[KF_LATENCY], NULL) == 0;
	s->lat_ok = s->lat_opened;
	s->lat_warm_max = -INFINITY;
	s->lat_cold_min = INFINITY;
	for (int i = 0; i < LQ_NB; i++)
		q->b[i] = sp_xmalloc(sizeof *q->b[i]), q->b[i]->nrec = q->b[i]->used = 0;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	q->threaded = s->lat_opened && pthread_create(&q->thr, NULL, lat_main, q) == 0;
}

/* the end of operations.tsv: the last batch, then wait for the thread */
static void lq_finish(state *s, bool ops_ok)
{
	struct latq *q = s->lq;
	if (!q)
		return;
	if (q->threaded) {
		pthread_mutex_lock(&q->mu);
		if (q->b[q->prod]->nrec)
			q->full[q->prod] = 1;
		q->done = true;
		q->ops_ok = ops_ok;
		pthread_cond_broadcast(&q->cv);
		pthread_mutex_unlock(&q->mu);
		pthread_join(q->thr, NULL);
	} else {
		lq_publish(q);
		lat_finish(s, &q->l, ops_ok);
	}
	if (s->lat_opened) {
		struct_gates(s, SP_EV_LATENCY, &q->l, true, s->lat_ok, s->lat_rows);
		sp_rows_close(&q->l);
	} else {
		struct_gates(s, SP_EV_LATENCY, &q->l, false, false, 0);
	}
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	for (int i = 0; i < LQ_NB; i++)
		free(q->b[i]);
	free(q);
	s->lq = NULL;
}

static void read_ops(state *s)
{
	sp_ev_rows r;
	sp_ev_op op;
	unsigned long long rows = 0;
	bool opened = sp_rows_open_hashed(&r, s->dir, SP_EV_OPERATIONS, &s->hash[KF_OPERATIONS], s->hasher) == 0;
	if (opened)
		sp_rows_set_view(&r); /* no copy per line: every use below has the lengths */
	lq_start(s);
	s->ops_min_ts = INFINITY;
	s->ops_prev_ts = -INFINITY;
	bool ok = opened;
	if (opened) {
		int rc;
		while ((rc = sp_ops_next(&r, &op)) > 0) {
			rows++;
			s->ops_total++;
			if (op.ts < s->ops_prev_ts)
				first_bad_set(&s->ops_order, r.line, "operations.tsv line %llu: ts %.10g is before the previous row's %.10g",
					      r.line, op.ts, s->ops_prev_ts);
			s->ops_prev_ts = op.ts;
			if (op.ts > s->ops_max_ts)
				s->ops_max_ts = op.ts;
			if (op.ts < s->ops_min_ts)
				s->ops_min_ts = op.ts;
			struct scen *sc = find_scen(s, op.scenario, r.flen[r.col[1]]);
			if (!sc) {
				if (!s->ops_undeclared++)
					snprintf(s->undeclared, sizeof s->undeclared, "%.*s",
						 (int)(r.flen[r.col[1]] > 64 ? 64 : r.flen[r.col[1]]), op.scenario);
			} else {
				sc->total++;
				if (op.ts < sc->t1) {
					sc->t2 = sc->t1;
					sc->t1 = op.ts;
				} else if (op.ts < sc->t2) {
					sc->t2 = op.ts;
				}
			}
			switch (op.result) {
			case SP_RES_OK:
				s->ops_ok_n++;
				if (sc)
					sc->ok++;
				if (s->lat_opened)
					lq_push(s->lq, &r, &op, sc);
				break;
			case SP_RES_FAIL:
				s->ops_fail++;
				if (sc)
					sc->fail++;
				break;
			default:
				s->ops_ef++;
				if (sc)
					sc->ef++;
				if (!s->faults_ok || !take_window(s, op.ts)) {
					if (!s->ops_untied++) {
						s->first_untied_line = r.line;
						s->first_untied_ts = op.ts;
					}
					if (sc)
						sc->ef_untied++;
				}
				break;
			}
		}
		ok = rc == 0;
	}
	struct_gates(s, SP_EV_OPERATIONS, &r, opened, ok, rows);
	if (opened)
		sp_rows_close(&r);
	s->ops_ok = ok;
	/* the latency thread finishes while samples are read (lq_finish) */
	/* warm-up ends after warmup_s and two finished operations of every
	 * declared scenario */
	s->warmup_end = s->meta.warmup_s;
	for (size_t i = 0; i < s->nsc; i++)
		s->warmup_end = fmax(s->warmup_end, s->sc[i].t2);
}

static void gate_ops(state *s)
{
	sp_ev_verdict *v = s->v;
	char m[96], t[48];
	if (!s->ops_ok || !s->meta_ok) {
		na(v, SP_GREF(OPS_SUCCESS), s->ops_ok ? "metadata.txt is invalid" : "operations.tsv is invalid");
		na(v, SP_GREF(OPS_EXPECTED_FAULTS), s->ops_ok ? "metadata.txt is invalid" : "operations.tsv is invalid");
		return;
	}
	long long unexpected = s->ops_fail + s->ops_untied;
	long long denom = s->ops_ok_n + unexpected;
	double ratio = denom ? (double)s->ops_ok_n / (double)denom : 0;
	num(t, sizeof t, s->th.min_success_ratio);
	snprintf(m, sizeof m, "%.6f", ratio);
	if (denom == 0)
		gate(v, false, SP_GREF(OPS_SUCCESS), "0 operations", t, "no non-fault operations in operations.tsv");
	else if (ratio + EPS < s->th.min_success_ratio || (s->th.min_success_ratio >= 1 && unexpected > 0))
		gate(v, false, SP_GREF(OPS_SUCCESS), m, pre(t, ">="),
		     "%lld unexpected failure(s) in %lld non-fault operations (%lld fail, %lld expected_fault without a passing fault window of its own)",
		     unexpected, denom, s->ops_fail, s->ops_untied);
	else
		gate(v, true, SP_GREF(OPS_SUCCESS), m, pre(t, ">="), "%lld unexpected failure(s) in %lld non-fault operations", unexpected,
		     denom);
	snprintf(m, sizeof m, "%lld untied", s->ops_untied);
	if (s->ops_untied)
		gate(v, false, SP_GREF(OPS_EXPECTED_FAULTS), m, "0 untied",
		     "%lld expected_fault operation(s) without a passing fault window of their own (one window excuses one operation); first at operations.tsv line %llu (ts %.10g)",
		     s->ops_untied, s->first_untied_line, s->first_untied_ts);
	else
		gate(v, true, SP_GREF(OPS_EXPECTED_FAULTS), m, "0 untied",
		     "each of %lld expected_fault operation(s) has a passing fault window of its own", s->ops_ef);
}

static void gate_caps(state *s)
{
	sp_ev_verdict *v = s->v;
	if (!s->meta_ok || !s->ops_ok || !s->caps_ok) {
		const char *why = !s->meta_ok ? "metadata.txt is invalid"
				  : !s->ops_ok ? "operations.tsv is invalid"
					       : "capability-results.tsv is invalid";
		na(v, SP_GREF(CAPABILITY_COVERAGE), why);
		na(v, SP_GREF(CAPABILITY_AGREE), why);
		return;
	}
	char m[48], t[48];
	snprintf(t, sizeof t, "%zu of %zu", s->nsc, s->nsc);
	size_t covered = 0;
	const char *problem = NULL, *who = NULL;
	for (size_t i = 0; i < s->nsc; i++) {
		if (s->sc[i].total && s->sc[i].has_cap)
			covered++;
		else if (!problem) {
			who = s->sc[i].id;
			problem = !s->sc[i].total ? "has no operations in operations.tsv"
						  : "has no row in capability-results.tsv";
		}
	}
	snprintf(m, sizeof m, "%zu of %zu", covered, s->nsc);
	if (problem)
		gate(v, false, SP_GREF(CAPABILITY_COVERAGE), m, t, "declared scenario %s %s", who, problem);
	else if (s->ops_undeclared)
		gate(v, false, SP_GREF(CAPABILITY_COVERAGE), m, t,
		     "%lld operation(s) of undeclared scenario(s); first: %s", s->ops_undeclared, s->undeclared);
	else if (s->caps_extra[0])
		gate(v, false, SP_GREF(CAPABILITY_COVERAGE), m, t, "capability-results.tsv has undeclared scenario %s",
		     s->caps_extra);
	else if (s->caps_dup)
		gate(v, false, SP_GREF(CAPABILITY_COVERAGE), m, t, "capability-results.tsv lists a scenario twice");
	else
		gate(v, true, SP_GREF(CAPABILITY_COVERAGE), m, t, "every declared scenario has operations and a capability row");

	for (size_t i = 0; i < s->nsc; i++) {
		struct scen *sc = &s->sc[i];
		if (!sc->has_cap)
			continue;
		const char *field = NULL;
		long long want = 0, have = 0;
		if (sc->cap.attempted != sc->total)
			field = "attempted", have = sc->cap.attempted, want = sc->total;
		else if (sc->cap.succeeded != sc->ok)
			field = "succeeded", have = sc->cap.succeeded, want = sc->ok;
		else if (sc->cap.expected_faults != sc->ef)
			field = "expected_faults", have = sc->cap.expected_faults, want = sc->ef;
		else if (sc->cap.unexpected_failures != sc->fail)
			field = "unexpected_failures", have = sc->cap.unexpected_failures, want = sc->fail;
		else if (sc->cap.pass != (sc->fail == 0))
			field = "result", have = sc->cap.pass, want = sc->fail == 0;
		if (field) {
			char hv[32], wv[32];
			snprintf(hv, sizeof hv, "%s=%lld", field, have);
			snprintf(wv, sizeof wv, "%s=%lld", field, want);
			if (!strcmp(field, "result")) {
				snprintf(hv, sizeof hv, "result=%s", have ? "pass" : "fail");
				snprintf(wv, sizeof wv, "result=%s", want ? "pass" : "fail");
			}
			gate(v, false, SP_GREF(CAPABILITY_AGREE), hv, wv,
			     "capability-results.tsv scenario %s: %s but operations.tsv gives %s", sc->id, hv, wv);
			return;
		}
	}
	gate(v, true, SP_GREF(CAPABILITY_AGREE), "agree", "agree", "capability-results.tsv agrees with operations.tsv");
}

/* ---- latency ----------------------------------------------------------- */
static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const sp_ev_baseline_entry *)a)->scenario, ((const sp_ev_baseline_entry *)b)->scenario);
}

static void gate_latency(state *s, const sp_ev_baseline *base)
{
	sp_ev_verdict *v = s->v;
	if (!s->lat_ok || !s->ops_ok || !s->meta_ok) {
		const char *why = !s->meta_ok ? "metadata.txt is invalid"
				  : !s->ops_ok ? "operations.tsv is invalid (warm-up unknown)"
					       : "latency.tsv is invalid";
		na(v, SP_GREF(LATENCY_AGREE), why);
		na(v, SP_GREF(LATENCY_WARMUP), why);
		na(v, SP_GREF(LATENCY_P95), why);
		return;
	}
	char m[48];
	snprintf(m, sizeof m, "%llu rows", s->lat_rows);
	if (s->lat_agree.bad)
		gate(v, false, SP_GREF(LATENCY_AGREE), "differs", "the ok operations", "%s", s->lat_agree.msg);
	else
		gate(v, true, SP_GREF(LATENCY_AGREE), m, "the ok operations",
		     "latency.tsv holds exactly the %llu ok operations of operations.tsv, in order", s->lat_rows);
	num(m, sizeof m, s->warmup_end);
	if (s->lat_warm_max > s->warmup_end)
		gate(v, false, SP_GREF(LATENCY_WARMUP), "mismatch", "consistent", "latency.tsv line %llu: warmup=1 at ts %.10g but warm-up ends at %.10g",
		     s->lat_warm_max_line, s->lat_warm_max, s->warmup_end);
	else if (s->lat_cold_min < s->warmup_end)
		gate(v, false, SP_GREF(LATENCY_WARMUP), "mismatch", "consistent", "latency.tsv line %llu: warmup=0 at ts %.10g but warm-up ends at %.10g",
		     s->lat_cold_min_line, s->lat_cold_min, s->warmup_end);
	else if (isinf(s->warmup_end))
		gate(v, true, SP_GREF(LATENCY_WARMUP), m, "consistent",
		     "latency.tsv marks every operation warm-up, as it must: the warm-up never ended (not every scenario finished two operations)");
	else
		gate(v, true, SP_GREF(LATENCY_WARMUP), m, "consistent",
		     "latency.tsv warmup flags agree with the warm-up end (%s s)", m);
	/* exact quantiles per scenario (also kept for --emit-baseline) */
	v->lat.run_id = sp_xstrdup(s->meta.run_id);
	v->lat.v = sp_xcalloc(s->nsc ? s->nsc : 1, sizeof *v->lat.v);
	size_t *entry_of = sp_xcalloc(s->nsc ? s->nsc : 1, sizeof *entry_of);
	for (size_t i = 0; i < s->nsc; i++) {
		struct scen *sc = &s->sc[i];
		entry_of[i] = SIZE_MAX;
		if (!sc->lat.n)
			continue;
		entry_of[i] = v->lat.n;
		sp_ev_baseline_entry *e = &v->lat.v[v->lat.n++];
		e->scenario = sp_xstrdup(sc->id);
		e->count = sc->lat.n;
		e->p50 = sc->q50;
		e->p95 = sc->q95;
		e->p99 = sc->q99;
	}
	if (!base) {
		free(entry_of);
		gate(v, true, SP_GREF(LATENCY_P95), "no baseline", "--baseline",
		     "no --baseline given: p95 regression not judged (quantiles of %zu scenario(s) computed)", v->lat.n);
		return;
	}
	/* the baseline sorted once: a lookup per scenario in log time */
	sp_ev_baseline_entry *sorted = sp_xcalloc(base->n ? base->n : 1, sizeof *sorted);
	memcpy(sorted, base->v, base->n * sizeof *sorted);
	qsort(sorted, base->n, sizeof *sorted, cmp_entry);
	for (size_t i = 0; i < s->nsc; i++) {
		struct scen *sc = &s->sc[i];
		char t[48];
		sp_ev_gate_ref id = SP_GFAM(LATENCY_P95, sc->id);
		sp_ev_baseline_entry key = {.scenario = (char *)sc->id};
		const sp_ev_baseline_entry *b = base->n ? bsearch(&key, sorted, base->n, sizeof *sorted, cmp_entry) : NULL;
		const sp_ev_baseline_entry *e = entry_of[i] == SIZE_MAX ? NULL : &v->lat.v[entry_of[i]];
		if (!b) {
			gate(v, false, id, "n/a", "baseline", "the baseline has no entry for scenario %s", sc->id);
			continue;
		}
		double thr = b->p95 + b->p95 * s->th.p95_regression_pct / 100.0;
		num(t, sizeof t, thr);
		if (!e) {
			gate(v, false, id, "no samples", t, "scenario %s has no post-warm-up latency rows", sc->id);
			continue;
		}
		num(m, sizeof m, e->p95);
		gate(v, le(e->p95, thr), id, m, pre(t, "<="), "scenario %s: p95 %s ms against baseline p95 %.10g ms + %.10g%% (p50 %.10g, p99 %.10g, %llu samples)",
		     sc->id, m, b->p95, s->th.p95_regression_pct, e->p50, e->p99, e->count);
	}
	free(sorted);
	free(entry_of);
}

/* ---- resource-samples.tsv ---------------------------------------------- */
/* sampling latency the measured interval may add to the maximum */
#define INTERVAL_SLACK 1.1
/* wall clock against ts: one second of print resolution at each end, and a
 * clock step or leap second */
#define WALL_SKEW_S 5.0

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

static void read_samples(state *s, struct samples_acc *a)
{
	sp_ev_rows r;
	sp_ev_sample x;
	memset(a, 0, sizeof *a);
	bool opened = sp_rows_open_hashed(&r, s->dir, SP_EV_SAMPLES, &s->hash[KF_SAMPLES], s->hasher) == 0;
	bool ok = opened;
	bool schedule = s->meta_ok && strcmp(s->meta.profile, "R0") && s->meta.sample_interval_s > 0;
	double iv = s->meta_ok ? s->meta.sample_interval_s : 0;
	a->interval_limit = s->th.max_interval_s * INTERVAL_SLACK;
	if (opened) {
		a->nextra = r.nextra;
		for (size_t i = 0; i < r.nextra; i++)
			snprintf(a->extra_names[i], sizeof a->extra_names[i], "%s", r.extra_name[i]);
		int rc;
		while ((rc = sp_samples_next(&r, &x)) > 0) {
			a->n++;
			if (a->any) {
				double gap = x.ts - a->prev_ts;
				if (x.ts <= a->prev_ts && !a->mono_bad) {
					a->mono_bad = true;
					snprintf(a->mono_msg, sizeof a->mono_msg,
						 "resource-samples.tsv line %llu: ts %.10g is not after the previous %.10g",
						 r.line, x.ts, a->prev_ts);
				}
				if (gap > a->max_gap)
					a->max_gap = gap;
				if (x.phase != SP_PHASE_FINAL) {
					a->gaps++;
					if (gap > a->interval_limit + EPS * fmax(1, a->interval_limit))
						a->gaps_long++;
				}
				/* wall clock: never back, in step with ts */
				if (x.wall_epoch < a->prev_wall)
					first_bad_set(&a->wall, r.line, "resource-samples.tsv line %llu: wall %s goes back in time",
						      r.line, x.wall);
				double skew = (x.wall_epoch - a->wall0) - (x.ts - a->ts0);
				if (fabs(skew) > WALL_SKEW_S + 1e-9)
					first_bad_set(&a->wall, r.line,
						      "resource-samples.tsv line %llu: wall %s is %.10g s %s ts %.10g (start sample: wall %s, ts %.10g)",
						      r.line, x.wall, fabs(skew), skew > 0 ? "ahead of" : "behind", x.ts, a->wall0s,
						      a->ts0);
			} else {
				a->first_ts = x.ts;
				a->wall0 = x.wall_epoch;
				a->ts0 = x.ts;
				snprintf(a->wall0s, sizeof a->wall0s, "%s", x.wall);
				if (isfinite(s->started_at) && x.wall_epoch < s->started_at)
					first_bad_set(&a->wall, r.line,
						      "resource-samples.tsv line %llu: the first sample's wall %s is before metadata started_at",
						      r.line, x.wall);
			}
			if (x.wall_epoch > s->now + WALL_SKEW_S)
				first_bad_set(&a->wall, r.line, "resource-samples.tsv line %llu: wall %s is in the future", r.line,
					      x.wall);
			a->prev_wall = x.wall_epoch;
			if (!a->phase_bad) {
				const char *p = NULL;
				if (!a->any && x.phase != SP_PHASE_START)
					p = "the first sample is not phase start";
				else if (a->any && x.phase == SP_PHASE_START)
					p = "a second start sample";
				else if (a->last_was_final)
					p = x.phase == SP_PHASE_FINAL ? "a second final sample" : "a sample after the final one";
				if (p) {
					a->phase_bad = true;
					snprintf(a->phase_msg, sizeof a->phase_msg, "resource-samples.tsv line %llu: %s",
						 r.line, p);
				}
			}
			a->any = true;
			a->prev_ts = x.ts;
			a->last_was_final = x.phase == SP_PHASE_FINAL;
			if (x.phase == SP_PHASE_START) {
				if (!a->nstart++)
					a->start = x;
			} else if (x.phase == SP_PHASE_FINAL) {
				a->nfinal++;
				a->final = x;
			} else {
				a->nperiodic++;
				if (schedule && a->nstart == 1 &&
				    !ge(x.ts, a->start.ts + (double)a->nperiodic * iv))
					first_bad_set(&a->cadence, r.line,
						      "resource-samples.tsv line %llu: periodic sample %lld at ts %.10g, before its slot %.10g (start %.10g + %lld x %.10g s)",
						      r.line, a->nperiodic, x.ts, a->start.ts + (double)a->nperiodic * iv,
						      a->start.ts, a->nperiodic, iv);
				if (x.ts >= s->warmup_end) {
					sp_linreg_add(&a->rss, x.ts, (double)x.c[SP_C_OWNED_RSS_BYTES]);
					sp_linreg_add(&a->fds, x.ts, (double)x.c[SP_C_OWNED_FDS]);
				}
			}
			if (a->n == 1 || x.c[SP_C_DISK_BYTES] > a->disk_peak)
				a->disk_peak = x.c[SP_C_DISK_BYTES];
		}
		ok = rc == 0;
		if (ok && !a->phase_bad && (a->nfinal != 1 || !a->last_was_final)) {
			a->phase_bad = true;
			snprintf(a->phase_msg, sizeof a->phase_msg, "resource-samples.tsv: %s",
				 a->n == 0 ? "no samples" : "the last sample is not phase final");
		}
	}
	struct_gates(s, SP_EV_SAMPLES, &r, opened, ok, (unsigned long long)a->n);
	if (opened)
		sp_rows_close(&r);
	s->samples_ok = ok;
	s->nsamples = a->n;
	s->nperiodic = a->nperiodic;
}

/* the warm-up a profile allows: 15 minutes; a custom run scales it the way
 * soak does (900 s per base-profile duration, 7200 s when the base is R0
 * or not recorded); R0 has none */
static double warmup_allowed(const sp_ev_meta *m)
{
	if (!strcmp(m->profile, "R0"))
		return 0;
	if (strcmp(m->profile, "custom"))
		return 900;
	const char *base = sp_kv_get(m->kv, m->n, "base_profile");
	double pd = 7200;
	if (base && !strcmp(base, "R24"))
		pd = 86400;
	else if (base && !strcmp(base, "E72"))
		pd = 259200;
	return floor(900.0 * m->duration_s / pd);
}

/* time plausibility and the warm-up, once samples and operations are read */
static void gate_time(state *s, struct samples_acc *a)
{
	sp_ev_verdict *v = s->v;
	bool run = s->samples_ok && !a->phase_bad && !a->mono_bad;
	const char *why = !s->samples_ok ? "resource-samples.tsv is invalid"
			  : !run	 ? "samples have no single start and final in order"
					 : NULL;
	char m[64], t[96];
	/* samples.wall */
	if (!s->samples_ok || !s->meta_ok)
		na(v, SP_GREF(SAMPLES_WALL), !s->meta_ok ? "metadata.txt is invalid" : "resource-samples.tsv is invalid");
	else if (isfinite(s->started_at) && s->started_at > s->now + WALL_SKEW_S)
		gate(v, false, SP_GREF(SAMPLES_WALL), "in the future", "<= now", "metadata.txt started_at %s is in the future",
		     sp_kv_get(s->meta.kv, s->meta.n, "started_at"));
	else if (a->wall.bad)
		gate(v, false, SP_GREF(SAMPLES_WALL), "implausible", "in step with ts", "%s", a->wall.msg);
	else
		gate(v, true, SP_GREF(SAMPLES_WALL), "in step", "in step with ts",
		     "sample wall clocks never go back, stay within %.0f s of started_at + ts and are not in the future",
		     WALL_SKEW_S);

	/* operations.order */
	if (!s->ops_ok)
		na(v, SP_GREF(OPERATIONS_ORDER), "operations.tsv is invalid");
	else if (s->ops_order.bad)
		gate(v, false, SP_GREF(OPERATIONS_ORDER), "out of order", "by ts, inside the run", "%s", s->ops_order.msg);
	else if (!run)
		na(v, SP_GREF(OPERATIONS_ORDER), why);
	else if (s->ops_total && (!ge(s->ops_min_ts, a->start.ts) || !le(s->ops_max_ts, a->final.ts))) {
		snprintf(m, sizeof m, "[%.10g, %.10g]", s->ops_min_ts, s->ops_max_ts);
		snprintf(t, sizeof t, "in [%.10g, %.10g]", a->start.ts, a->final.ts);
		gate(v, false, SP_GREF(OPERATIONS_ORDER), m, t,
		     "operations.tsv has operations at ts %.10g..%.10g, outside the run (start sample %.10g, final sample %.10g)",
		     s->ops_min_ts, s->ops_max_ts, a->start.ts, a->final.ts);
	} else
		gate(v, true, SP_GREF(OPERATIONS_ORDER), "in order", "by ts, inside the run",
		     "%lld operation rows in time order, between the start and the final sample", s->ops_total);

	gate_fault_windows(s, run, run ? a->start.ts : 0, run ? a->final.ts : 0);

	/* warmup.bounded */
	if (!s->meta_ok || !s->ops_ok) {
		na(v, SP_GREF(WARMUP_BOUNDED), !s->meta_ok ? "metadata.txt is invalid" : "operations.tsv is invalid");
		return;
	}
	double allowed = warmup_allowed(&s->meta);
	num(m, sizeof m, s->meta.warmup_s);
	num(t, sizeof t, allowed);
	if (!le(s->meta.warmup_s, allowed)) {
		gate(v, false, SP_GREF(WARMUP_BOUNDED), m, pre(t, "<="),
		     "metadata.txt warmup_s %s is longer than the %s s profile %s allows (15 minutes, scaled for custom runs)", m,
		     t, s->meta.profile);
		return;
	}
	if (s->th.min_periodic_samples >= 2 && run) {
		double half = a->start.ts + (a->final.ts - a->start.ts) / 2;
		if (!le(s->warmup_end, half)) {
			num(m, sizeof m, s->warmup_end);
			num(t, sizeof t, half);
			gate(v, false, SP_GREF(WARMUP_BOUNDED), m, pre(t, "<="),
			     "the warm-up ends at %s s (two operations of every scenario), past the middle of the run (%s s): the regression gates would cover less than half of it",
			     m, t);
			return;
		}
	} else if (!run && s->th.min_periodic_samples >= 2) {
		na(v, SP_GREF(WARMUP_BOUNDED), why);
		return;
	}
	num(m, sizeof m, s->warmup_end);
	if (isinf(s->warmup_end))
		gate(v, true, SP_GREF(WARMUP_BOUNDED), m, "<= profile, first half",
		     "the warm-up never ended (not every scenario finished two operations; no latency gate needs it): warmup_s %.10g within the %.10g s allowed",
		     s->meta.warmup_s, allowed);
	else
		gate(v, true, SP_GREF(WARMUP_BOUNDED), m, "<= profile, first half",
		     "warm-up ends at %s s: warmup_s %.10g within the %.10g s allowed%s", m, s->meta.warmup_s, allowed,
		     s->th.min_periodic_samples >= 2 ? ", and in the first half of the run" : "");
}

static void gate_samples(state *s, struct samples_acc *a)
{
	sp_ev_verdict *v = s->v;
	char m[64], t[64];
	static const sp_ev_gate_ref sample_gates[] = {SP_GREF_INIT(SAMPLES_MONOTONIC), SP_GREF_INIT(SAMPLES_PHASES), SP_GREF_INIT(SAMPLES_SPAN), SP_GREF_INIT(SAMPLES_COUNT), SP_GREF_INIT(SAMPLES_GAP), SP_GREF_INIT(SAMPLES_INTERVAL), SP_GREF_INIT(SAMPLES_CADENCE), SP_GREF_INIT(LEAK_RSS_SLOPE), SP_GREF_INIT(LEAK_FD_GROWTH), SP_GREF_INIT(LEAK_FD_FINAL), SP_GREF_INIT(DISK_PEAK), SP_GREF_INIT(DISK_FINAL), SP_GREF_INIT(CLEANUP_OWNED_PROCESSES), SP_GREF_INIT(CLEANUP_OWNED_MOUNTS), SP_GREF_INIT(CLEANUP_OWNED_SOCKETS), SP_GREF_INIT(CLEANUP_OWNED_CGROUPS)};
	if (!s->samples_ok || !s->meta_ok || !s->ops_ok) {
		const char *why = !s->samples_ok ? "resource-samples.tsv is invalid"
				  : !s->meta_ok	 ? "metadata.txt is invalid"
						 : "operations.tsv is invalid (warm-up unknown)";
		for (size_t i = 0; i < SP_ARRAY_SIZE(sample_gates); i++)
			na(v, sample_gates[i], why);
		return;
	}
	const sp_ev_thresholds *th = &s->th;
	if (a->mono_bad)
		gate(v, false, SP_GREF(SAMPLES_MONOTONIC), "not increasing", "strictly increasing", "%s", a->mono_msg);
	else
		gate(v, true, SP_GREF(SAMPLES_MONOTONIC), "increasing", "strictly increasing", "%lld sample timestamps strictly increasing",
		     a->n);
	snprintf(m, sizeof m, "%lld start, %lld final", a->nstart, a->nfinal);
	if (a->phase_bad)
		gate(v, false, SP_GREF(SAMPLES_PHASES), m, "1 start first, 1 final last", "%s", a->phase_msg);
	else
		gate(v, true, SP_GREF(SAMPLES_PHASES), m, "1 start first, 1 final last", "one start sample first, one final sample last");
	bool phases = !a->phase_bad && !a->mono_bad;
	if (!phases) {
		for (size_t i = 2; i < SP_ARRAY_SIZE(sample_gates); i++)
			na(v, sample_gates[i], "samples have no single start and final in order");
		return;
	}
	double span = a->final.ts - a->start.ts;
	num(m, sizeof m, span);
	num(t, sizeof t, th->min_span_s);
	gate(v, ge(span, th->min_span_s), SP_GREF(SAMPLES_SPAN), m, pre(t, ">="), "sample span %s s against a minimum of %s s", m, t);
	snprintf(m, sizeof m, "%lld", a->nperiodic);
	snprintf(t, sizeof t, "%lld", th->min_periodic_samples);
	gate(v, a->nperiodic >= th->min_periodic_samples, SP_GREF(SAMPLES_COUNT), m, pre(t, ">="),
	     "%lld periodic samples (plus start and final) against a minimum of %lld", a->nperiodic,
	     th->min_periodic_samples);
	num(m, sizeof m, a->max_gap);
	num(t, sizeof t, th->max_gap_s);
	gate(v, le(a->max_gap, th->max_gap_s), SP_GREF(SAMPLES_GAP), m, pre(t, "<="), "largest gap between consecutive samples %s s (maximum %s s)", m, t);
	/* declared interval within the maximum, and the measured one: the
	 * median interval above the maximum (+10% for sampling latency) means
	 * more than half of them are */
	num(t, sizeof t, th->max_interval_s);
	char lim[32];
	num(lim, sizeof lim, a->interval_limit);
	if (!(le(s->meta.sample_interval_s, th->max_interval_s) && s->meta.sample_interval_s > 0)) {
		num(m, sizeof m, s->meta.sample_interval_s);
		gate(v, false, SP_GREF(SAMPLES_INTERVAL), m, pre(t, "<="), "declared sample interval %s s (maximum %s s)", m, t);
	} else if (a->gaps_long * 2 > a->gaps) {
		snprintf(m, sizeof m, "%lld of %lld > %s", a->gaps_long, a->gaps, lim);
		gate(v, false, SP_GREF(SAMPLES_INTERVAL), m, pre(t, "<="),
		     "the measured median sample interval is above %s s: %lld of %lld intervals are longer (declared %.10g s, maximum %s s)",
		     lim, a->gaps_long, a->gaps, s->meta.sample_interval_s, t);
	} else {
		snprintf(m, sizeof m, "%lld of %lld > %s", a->gaps_long, a->gaps, lim);
		gate(v, true, SP_GREF(SAMPLES_INTERVAL), m, pre(t, "<="),
		     "declared sample interval %.10g s, measured median within %s s (%lld of %lld intervals longer)",
		     s->meta.sample_interval_s, lim, a->gaps_long, a->gaps);
	}
	if (a->cadence.bad)
		gate(v, false, SP_GREF(SAMPLES_CADENCE), "early sample", "on the schedule", "%s", a->cadence.msg);
	else
		gate(v, true, SP_GREF(SAMPLES_CADENCE), "on the schedule", "on the schedule",
		     strcmp(s->meta.profile, "R0") ? "every periodic sample at or after its slot (start + j x interval): no burst pads the count"
						   : "R0 samples at every phase: no schedule to check");

	/* regressions over post-warm-up periodic samples; a rehearsal whose
	 * thresholds ask for no periodic samples (R0) has no window to judge a
	 * per-day rate on: a slope over its few seconds is noise (cleanup and
	 * fd_final still judge what it left behind) */
	bool need = th->min_periodic_samples >= 2;
	num(t, sizeof t, th->rss_slope_mib_per_day);
	if (!need && th->min_periodic_samples == 0) {
		gate(v, true, SP_GREF(LEAK_RSS_SLOPE), "not judged", t,
		     "the thresholds ask for no periodic samples (a rehearsal): no RSS slope judged over %llu post-warm-up sample(s)",
		     a->rss.n);
	} else if (a->rss.n < 2) {
		gate(v, !need, SP_GREF(LEAK_RSS_SLOPE), "n/a", t,
		     "%llu post-warm-up periodic sample(s): the RSS slope %s", a->rss.n,
		     need ? "cannot be measured although the profile requires periodic samples" : "is not measurable");
	} else {
		double slope = sp_linreg_slope(&a->rss) * 86400.0 / 1048576.0;
		num(m, sizeof m, slope);
		gate(v, le(slope, th->rss_slope_mib_per_day), SP_GREF(LEAK_RSS_SLOPE), m, pre(t, "<="),
		     "owned RSS slope %s MiB/day over %llu post-warm-up periodic samples (maximum %s)", m, a->rss.n, t);
	}
	snprintf(t, sizeof t, "%lld", th->fd_growth_max);
	if (!need && th->min_periodic_samples == 0) {
		gate(v, true, SP_GREF(LEAK_FD_GROWTH), "not judged", t,
		     "the thresholds ask for no periodic samples (a rehearsal): no FD trend judged (leak.fd_final still is)");
	} else if (a->fds.n < 2) {
		gate(v, !need, SP_GREF(LEAK_FD_GROWTH), "n/a", t, "%llu post-warm-up periodic sample(s): FD growth %s", a->fds.n,
		     need ? "cannot be measured although the profile requires periodic samples" : "is not measurable");
	} else {
		double growth = sp_linreg_slope(&a->fds) * (a->fds.xmax - a->fds.xmin);
		num(m, sizeof m, growth);
		gate(v, le(growth, (double)th->fd_growth_max), SP_GREF(LEAK_FD_GROWTH), m, pre(t, "<="),
		     "owned FDs grow by %s over the post-warm-up window (least squares; allowance %s)", m, t);
	}
	long long fdd = a->final.c[SP_C_OWNED_FDS] - a->start.c[SP_C_OWNED_FDS];
	snprintf(m, sizeof m, "%lld", fdd);
	gate(v, fdd <= th->fd_growth_max, SP_GREF(LEAK_FD_FINAL), m, pre(t, "<="), "final owned FDs %lld, start %lld: growth %lld (allowance %s)",
	     a->final.c[SP_C_OWNED_FDS], a->start.c[SP_C_OWNED_FDS], fdd, t);

	long long peak = a->disk_peak - a->start.c[SP_C_DISK_BYTES];
	long long fin = a->final.c[SP_C_DISK_BYTES] - a->start.c[SP_C_DISK_BYTES];
	snprintf(t, sizeof t, "%lld", th->disk_budget_bytes);
	snprintf(m, sizeof m, "%lld", peak);
	gate(v, peak <= th->disk_budget_bytes, SP_GREF(DISK_PEAK), m, pre(t, "<="), "state-root disk growth peaked at %lld bytes (budget %lld)",
	     peak, th->disk_budget_bytes);
	snprintf(m, sizeof m, "%lld", fin);
	gate(v, fin <= th->disk_budget_bytes, SP_GREF(DISK_FINAL), m, pre(t, "<="), "state-root disk growth after cleanup %lld bytes (budget %lld)",
	     fin, th->disk_budget_bytes);

	/* cleanup: owned counts back to the start baseline */
	static const enum sp_ev_counter owned[] = {SP_C_OWNED_PROCESSES, SP_C_OWNED_MOUNTS, SP_C_OWNED_SOCKETS,
						SP_C_OWNED_CGROUPS};
	static const sp_ev_gate_ref owned_gate[] = {SP_GREF_INIT(CLEANUP_OWNED_PROCESSES), SP_GREF_INIT(CLEANUP_OWNED_MOUNTS),
						 SP_GREF_INIT(CLEANUP_OWNED_SOCKETS), SP_GREF_INIT(CLEANUP_OWNED_CGROUPS)};
	_Static_assert(SP_ARRAY_SIZE(owned) == SP_ARRAY_SIZE(owned_gate), "a cleanup gate per owned counter");
	for (size_t i = 0; i < SP_ARRAY_SIZE(owned); i++) {
		long long st = a->start.c[owned[i]], fi = a->final.c[owned[i]];
		snprintf(m, sizeof m, "%lld", fi);
		snprintf(t, sizeof t, "%lld", st);
		gate(v, fi == st, owned_gate[i], m, pre(t, "="), "final %s %lld, start %lld", sp_ev_counter_name(owned[i]), fi, st);
	}
	for (size_t i = 0; i < a->nextra; i++) {
		long long st = a->start.extra[i], fi = a->final.extra[i];
		snprintf(m, sizeof m, "%lld", fi);
		snprintf(t, sizeof t, "%lld", st);
		gate(v, fi == st, SP_GFAM(CLEANUP, a->extra_names[i]), m, pre(t, "="), "final %s %lld, start %lld", a->extra_names[i], fi, st);
	}
}

/* ---- inventories, summary ---------------------------------------------- */
static void check_inventory(state *s)
{
	sp_ev_verdict *v = s->v;
	sp_ev_inventory a = {0}, b = {0};
	sp_error ma, mb;
	char msg[400];
	_cleanup_free_ char *pa = sp_xasprintf("%s/inventory-start.json", s->dir);
	_cleanup_free_ char *pb = sp_xasprintf("%s/inventory-final.json", s->dir);
	int ra = sp_inventory_load(&a, pa, &s->hash[KF_INV_START], &ma);
	int rb = sp_inventory_load(&b, pb, &s->hash[KF_INV_FINAL], &mb);
	if (ra < 0 || rb < 0) {
		snprintf(msg, sizeof msg, "%s: %s", ra < 0 ? "inventory-start.json" : "inventory-final.json",
			 ra < 0 ? ma.msg : mb.msg);
		gate(v, false, SP_GFAM(TYPES, "inventory"), "invalid", "valid", "%s", msg);
		na(v, SP_GREF(CLEANUP_INVENTORY), msg);
	} else {
		char m[48];
		snprintf(m, sizeof m, "%zu + %zu", a.n, b.n);
		gate(v, true, SP_GFAM(TYPES, "inventory"), m, "valid", "inventories: %zu start, %zu final resources", a.n, b.n);
		snprintf(m, sizeof m, "%zu resources", b.n);
		char t[48];
		snprintf(t, sizeof t, "%zu resources", a.n);
		sp_error ierr;
		if (sp_inventory_equal(&a, &b, &ierr))
			gate(v, true, SP_GREF(CLEANUP_INVENTORY), m, t, "inventory-final equals inventory-start (%zu resources)", a.n);
		else
			gate(v, false, SP_GREF(CLEANUP_INVENTORY), m, t, "%s", ierr.msg);
	}
	sp_inventory_free(&a);
	sp_inventory_free(&b);
}

static void check_summary(state *s, const struct samples_acc *a)
{
	sp_ev_verdict *v = s->v;
	sp_ev_summary sm;
	sp_error msg;
	_cleanup_free_ char *p = sp_xasprintf("%s/summary.json", s->dir);
	if (sp_ev_summary_load(&sm, p, &s->hash[KF_SUMMARY], &msg) < 0) {
		gate(v, false, SP_GFAM(TYPES, "summary"), "invalid", "valid", "summary.json: %s", msg.msg);
		na(v, SP_GREF(SUMMARY_CONSISTENT), "summary.json is invalid");
		na(v, SP_GREF(CLEANUP_STATUS), "summary.json is invalid");
		na(v, SP_GREF(RUN_COMPLETED), "summary.json is invalid");
		return;
	}
	gate(v, true, SP_GFAM(TYPES, "summary"), "valid", "valid", "summary.json: every field of the right type");
	gate(v, !strcmp(sm.cleanup, "ok"), SP_GREF(CLEANUP_STATUS), sm.cleanup, "ok", "summary.json: cleanup %s", sm.cleanup);
	bool spanned = s->meta_ok && s->samples_ok && !a->phase_bad && !a->mono_bad;
	double span = spanned ? a->final.ts - a->start.ts : 0;
	if (strcmp(sm.stop_condition, "duration"))
		gate(v, false, SP_GREF(RUN_COMPLETED), sm.stop_condition, "duration", "summary.json: the run stopped on %s",
		     sm.stop_condition);
	else if (!spanned)
		na(v, SP_GREF(RUN_COMPLETED),
		   !s->meta_ok ? "metadata.txt is invalid" : "samples have no single start and final in order");
	else if (!ge(span, s->meta.duration_s - 0.001)) {
		char have[48], want[48];
		num(have, sizeof have, span);
		num(want, sizeof want, s->meta.duration_s);
		gate(v, false, SP_GREF(RUN_COMPLETED), have, pre(want, ">="),
		     "summary.json says the run stopped on its duration, but the samples span %s s of the %s s it was to run", have,
		     want);
	} else
		gate(v, true, SP_GREF(RUN_COMPLETED), sm.stop_condition, "duration",
		     "the run stopped on its duration and the samples span it (%.10g s of %.10g s)", span, s->meta.duration_s);
	if (!s->meta_ok || !s->ops_ok || !s->samples_ok) {
		na(v, SP_GREF(SUMMARY_CONSISTENT),
		   !s->meta_ok ? "metadata.txt is invalid"
		   : !s->ops_ok ? "operations.tsv is invalid"
				: "resource-samples.tsv is invalid");
		sp_ev_summary_free(&sm);
		return;
	}
	char f[64] = "", have[64] = "", want[64] = "";
#define CHK_STR(name, got, exp)                                                         \
	if (!f[0] && strcmp(got, exp)) {                                                \
		snprintf(f, sizeof f, "%s", name);                                      \
		snprintf(have, sizeof have, "%.60s", got);                              \
		snprintf(want, sizeof want, "%.60s", exp);                              \
	}
#define CHK_INT(name, got, exp)                                                         \
	if (!f[0] && (long long)(got) != (long long)(exp)) {                            \
		snprintf(f, sizeof f, "%s", name);                                      \
		snprintf(have, sizeof have, "%lld", (long long)(got));                  \
		snprintf(want, sizeof want, "%lld", (long long)(exp));                  \
	}
#define CHK_DEC(name, got, exp)                                                         \
	if (!f[0] && !near(got, exp)) {                                                 \
		snprintf(f, sizeof f, "%s", name);                                      \
		num(have, sizeof have, got);                                            \
		num(want, sizeof want, exp);                                            \
	}
	CHK_STR("run_id", sm.run_id, s->meta.run_id)
	CHK_STR("profile", sm.profile, s->meta.profile)
	CHK_DEC("requested_duration_s", sm.requested_duration_s, s->meta.duration_s)
	CHK_INT("sample_count", sm.sample_count, a->n)
	if (!a->phase_bad && !a->mono_bad) {
		CHK_DEC("measured_duration_s", sm.measured_duration_s, a->final.ts)
	}
	CHK_INT("periodic_samples", sm.periodic_samples, a->nperiodic)
	if (!a->phase_bad && !a->mono_bad) {
		CHK_DEC("span_s", sm.span_s, a->final.ts - a->start.ts)
		CHK_DEC("max_gap_s", sm.max_gap_s, a->max_gap)
	}
	if (isfinite(s->warmup_end)) {
		CHK_DEC("warmup_end_s", sm.warmup_end_s, s->warmup_end)
	} else if (!f[0] && sm.warmup_end_s < s->ops_max_ts) {
		snprintf(f, sizeof f, "warmup_end_s");
		num(have, sizeof have, sm.warmup_end_s);
		snprintf(want, sizeof want, "never (a scenario has fewer than 2 operations)");
	}
	CHK_INT("operations.total", sm.ops_total, s->ops_total)
	CHK_INT("operations.ok", sm.ops_ok, s->ops_ok_n)
	CHK_INT("operations.fail", sm.ops_fail, s->ops_fail)
	CHK_INT("operations.expected_fault", sm.ops_expected_fault, s->ops_ef)
	CHK_INT("unexpected_failures", sm.unexpected_failures, s->ops_fail)
#undef CHK_STR
#undef CHK_INT
#undef CHK_DEC
	if (f[0])
		gate(v, false, SP_GREF(SUMMARY_CONSISTENT), have, want, "summary.json %s is %s but the bundle gives %s", f, have,
		     want);
	else
		gate(v, true, SP_GREF(SUMMARY_CONSISTENT), "consistent", "consistent",
		     "summary.json agrees with metadata.txt, operations.tsv and resource-samples.tsv");
	sp_ev_summary_free(&sm);
}

/* ---- logs/: bounded and redacted ------------------------------------- */
/* A log is at most 64 KiB; up to SP_EV_MAX_LOG only when it carries the
 * writer's "[... N bytes elided ...]" line (head and tail kept). */
#define LOG_BOUND 65536

static bool has_elision(const char *buf, size_t len)
{
	static const char pre[] = "[... ", post[] = " bytes elided ...]";
	for (const char *l = buf; l && l < buf + len;) {
		const char *nl = memchr(l, '\n', (size_t)(buf + len - l));
		size_t ll = nl ? (size_t)(nl - l) : (size_t)(buf + len - l);
		size_t np = sizeof pre - 1, nq = sizeof post - 1;
		if (ll > np + nq && !memcmp(l, pre, np) && !memcmp(l + ll - nq, post, nq)) {
			size_t d = ll - np - nq;
			bool digits = d > 0 && d <= 20;
			for (size_t i = 0; digits && i < d; i++)
				digits = l[np + i] >= '0' && l[np + i] <= '9';
			if (digits && l[np] != '0')
				return true;
		}
		l = nl ? nl + 1 : NULL;
	}
	return false;
}

static void check_logs(state *s, char **paths, size_t n, const char *listerr)
{
	sp_ev_verdict *v = s->v;
	if (!paths && listerr) {
		na(v, SP_GREF(LOGS_BOUNDED), listerr);
		na(v, SP_GREF(LOGS_REDACTED), listerr);
		return;
	}
	bool scan = sp_secret_ready();
	char where[300] = "", big[300] = "";
	size_t nlogs = 0, hits = 0;
	long long bigsz = 0;
	for (size_t i = 0; i < n; i++) {
		if (!sp_startswith(paths[i], "logs/"))
			continue;
		nlogs++;
		_cleanup_free_ char *p = sp_xasprintf("%s/%s", s->dir, paths[i]);
		size_t len = 0;
		int e = 0;
		_cleanup_free_ char *buf = sp_ev_read_all(p, SP_EV_MAX_LOG, &len, &e);
		if (!buf) {
			if (e == EFBIG && !big[0]) {
				struct stat st;
				bigsz = lstat(p, &st) == 0 ? (long long)st.st_size : SP_EV_MAX_LOG + 1;
				snprintf(big, sizeof big, "%s is %lld bytes: logs are bounded to 64 KiB (head and tail)", paths[i],
					 bigsz);
			}
			continue; /* unreadable: integrity.manifest judges it */
		}
		if (len > LOG_BOUND && !big[0] && !has_elision(buf, len)) {
			bigsz = (long long)len;
			snprintf(big, sizeof big,
				 "%s is %zu bytes, over 64 KiB without the writer's '[... N bytes elided ...]' line", paths[i],
				 len);
		}
		unsigned line = 0;
		const char *name = NULL;
		size_t h = 0;
		if (scan && sp_secret_scan(buf, len, &line, &name, &h) == 0 && h) {
			if (!hits)
				snprintf(where, sizeof where, "%s line %u holds %s", paths[i], line, name);
			hits += h;
		}
	}
	char m[48], t[48];
	snprintf(t, sizeof t, "%d bytes", LOG_BOUND);
	if (big[0]) {
		snprintf(m, sizeof m, "%lld bytes", bigsz);
		gate(v, false, SP_GREF(LOGS_BOUNDED), m, t, "%s", big);
	} else {
		snprintf(m, sizeof m, "%zu files", nlogs);
		gate(v, true, SP_GREF(LOGS_BOUNDED), m, t, "%zu log file(s), each within 64 KiB (or head and tail with an elision line)",
		     nlogs);
	}
	snprintf(m, sizeof m, "%zu unredacted", hits);
	if (!scan)
		na(v, SP_GREF(LOGS_REDACTED), "cannot compile the secret patterns");
	else if (hits)
		gate(v, false, SP_GREF(LOGS_REDACTED), m, "0 unredacted", "%zu secret-shaped value(s) not redacted; first: %s", hits,
		     where);
	else
		gate(v, true, SP_GREF(LOGS_REDACTED), m, "0 unredacted", "no value of the %zu secret shapes in %zu log file(s)",
		     sp_secret_shape_count(), nlogs);
}

/* ---- integrity ---------------------------------------------------------- */
static void check_integrity(state *s, const sp_ev_verify_opts *o)
{
	sp_ev_verdict *v = s->v;
	sp_error lerr, merr;
	char **paths = NULL;
	size_t n = 0;
	int lrc = sp_bundle_list(s->dir, &paths, &n, &lerr);

	check_logs(s, lrc == 0 ? paths : NULL, n, lrc < 0 ? lerr.msg : NULL);

	/* MANIFEST */
	_cleanup_free_ char *mp = sp_xasprintf("%s/MANIFEST", s->dir);
	size_t mlen = 0;
	int e = 0;
	_cleanup_free_ char *mbuf = NULL;
	mbuf = sp_ev_read_all(mp, 64 * 1024 * 1024, &mlen, &e);
	sp_ev_manifest man = {0};
	if (!mbuf) {
		gate(v, false, SP_GREF(INTEGRITY_MANIFEST), "missing", "every file listed and matching", "MANIFEST: %s",
		     sp_ev_strerror(e));
	} else if (sp_ev_manifest_parse(&man, mbuf, mlen, &merr) < 0) {
		gate(v, false, SP_GREF(INTEGRITY_MANIFEST), "invalid", "every file listed and matching", "%s", merr.msg);
	} else if (lrc < 0) {
		gate(v, false, SP_GREF(INTEGRITY_MANIFEST), "invalid", "every file listed and matching", "bundle: %s",
		     lerr.msg);
	} else {
		size_t i = 0, j = 0, bad = 0;
		char first[300] = "";
		while (i < man.n || j < n) {
			int c = i == man.n ? 1 : j == n ? -1 : strcmp(man.v[i].path, paths[j]);
			const char *what = NULL, *who = NULL;
			if (c < 0) {
				what = "listed in MANIFEST but missing (removed)";
				who = man.v[i++].path;
			} else if (c > 0) {
				what = "present but not listed in MANIFEST (added)";
				who = paths[j++];
			} else {
				unsigned char d[32];
				const unsigned char *dp = NULL;
				for (int k = 0; k < KF_N; k++)
					if (!strcmp(known_name[k], paths[j]) && s->hash[k].done)
						dp = s->hash[k].digest;
				if (!dp) {
					_cleanup_free_ char *fp = sp_xasprintf("%s/%s", s->dir, paths[j]);
					int r = sp_ev_sha256_file(fp, d, NULL);
					if (r < 0) {
						what = "unreadable";
						who = paths[j];
					}
					dp = d;
				}
				if (!what && memcmp(dp, man.v[i].digest, 32)) {
					what = "does not match its MANIFEST digest (edited or truncated)";
					who = paths[j];
				}
				i++;
				j++;
			}
			if (what && !bad++)
				snprintf(first, sizeof first, "%s %s", who, what);
		}
		char m[48], t[48];
		snprintf(m, sizeof m, "%zu bad", bad);
		snprintf(t, sizeof t, "0 bad of %zu", man.n);
		if (bad)
			gate(v, false, SP_GREF(INTEGRITY_MANIFEST), m, t, "%zu file(s) fail the MANIFEST; first: %s", bad, first);
		else
			gate(v, true, SP_GREF(INTEGRITY_MANIFEST), m, t, "MANIFEST lists and matches all %zu files", man.n);
	}
	sp_ev_manifest_free(&man);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);

	/* MANIFEST.sig */
	_cleanup_free_ char *sp = sp_xasprintf("%s/MANIFEST.sig", s->dir);
	size_t slen = 0;
	int se = 0;
	_cleanup_free_ char *sig = NULL;
	sig = sp_ev_read_all(sp, 4096, &slen, &se);
	if (!o->pubkey) {
		gate(v, true, SP_GREF(INTEGRITY_SIGNATURE), "not checked", "--pubkey",
		     "no --pubkey given: signature not checked (MANIFEST.sig %s)", sig ? "present" : "absent");
	} else if (!sig) {
		gate(v, false, SP_GREF(INTEGRITY_SIGNATURE), "unsigned", "valid Ed25519",
		     "a public key was given but MANIFEST.sig is %s", sp_ev_strerror(se));
	} else if (!mbuf) {
		gate(v, false, SP_GREF(INTEGRITY_SIGNATURE), "no MANIFEST", "valid Ed25519", "MANIFEST is missing");
	} else if (sp_sig_verify(o->pubkey, mbuf, mlen, sig, slen, &merr) == 1) {
		gate(v, true, SP_GREF(INTEGRITY_SIGNATURE), "valid", "valid Ed25519", "MANIFEST.sig is a valid Ed25519 signature of MANIFEST");
	} else {
		gate(v, false, SP_GREF(INTEGRITY_SIGNATURE), "invalid", "valid Ed25519", "%s", merr.msg);
	}
}

/* ---- entry ------------------------------------------------------------- */
int sp_ev_verify(const char *dir, const sp_ev_verify_opts *o, sp_ev_verdict *v, sp_error *err)
{
	memset(v, 0, sizeof *v);
	if (o->profile && strcmp(o->profile, "custom") && !sp_profile_thresholds(o->profile, &(sp_ev_thresholds){0}))
		return sp_usage(err, "--profile %s: not one of R0, G2, R24, E72, custom", o->profile);

	/* through a symlink to the bundle too: every path below is resolved */
	_cleanup_free_ char *real = realpath(dir, NULL);
	if (!real)
		return sp_usage(err, "%s: %s", dir, strerror(errno));
	/* no verdict without digests: an internal error (exit 3), not a gate */
	if (sp_ev_sha256_ready(err) < 0)
		return -1;
	state *s = sp_xcalloc(1, sizeof *s);
	struct samples_acc *a = sp_xcalloc(1, sizeof *a);
	s->dir = real;
	s->v = v;
	s->now = (double)time(NULL);
	s->started_at = NAN;
	s->hasher = sp_ev_hasher_new();
	v->bundle = sp_xstrdup(dir);
	sp_ev_sanitize(v->bundle);
	v->input = sp_xstrdup(SP_EVIDENCE_SCHEMA);

	check_present(s);
	check_metadata(s, o);
	check_absent(s);
	v->profile = sp_xstrdup(o->profile ? o->profile : s->meta_ok ? s->meta.profile : "unknown");
	if (s->meta_ok) {
		s->nsc = s->meta.nscenarios;
		s->sc = sp_xcalloc(s->nsc ? s->nsc : 1, sizeof *s->sc);
		for (size_t i = 0; i < s->nsc; i++) {
			s->sc[i].id = s->meta.scenarios[i];
			s->sc[i].idlen = strlen(s->sc[i].id);
			s->sc[i].t1 = s->sc[i].t2 = INFINITY;
			sp_strset_put(&s->sc_set, s->sc[i].id, s->sc[i].idlen, i); /* unique: metadata checked */
		}
	}
	read_faults(s);
	gate_faults(s);
	build_windows(s);
	read_caps(s);
	read_ops(s);
	if (!s->meta_ok)
		s->warmup_end = INFINITY;
	gate_ops(s);
	gate_caps(s);
	read_samples(s, a);
	lq_finish(s, s->ops_ok);
	gate_latency(s, o->baseline);
	gate_samples(s, a);
	gate_time(s, a);
	check_inventory(s);
	check_summary(s, a);
	check_integrity(s, o);

	sp_ev_hasher_free(s->hasher);
	for (int k = 0; k < KF_N; k++)
		sp_ev_sha256_free(&s->hash[k]);
	for (size_t i = 0; i < s->nsc; i++)
		sp_dvec_free(&s->sc[i].lat);
	free(s->sc);
	sp_strset_free(&s->sc_set);
	free(s->faults);
	free(s->win);
	free(s->heap);
	sp_meta_free(&s->meta);
	free(s);
	free(a);
	return 0;
}

/* ---- output ------------------------------------------------------------ */
void sp_verdict_print_text(const sp_ev_verdict *v, FILE *f)
{
	if (v->input && strcmp(v->input, SP_EVIDENCE_SCHEMA))
		fprintf(f, "sandprobe verify %s (%s bundle, profile %s)\n", v->bundle, v->input, v->profile);
	else
		fprintf(f, "sandprobe verify %s (profile %s)\n", v->bundle, v->profile);
	for (size_t i = 0; i < v->n; i++) {
		const sp_ev_gate *g = &v->g[i];
		fprintf(f, "%s %-28s measured %s, threshold %s: %s\n", g->status == SP_GATE_PASS ? "PASS" : "FAIL",
			g->id, g->measured, g->threshold, g->message);
	}
	fprintf(f, "result: %s (%zu gates passed, %zu failed)\n", v->nfail ? "FAIL" : "PASS", v->npass, v->nfail);
}

void sp_verdict_print_json(const sp_ev_verdict *v, FILE *f)
{
	json_t *j = json_object(), *gates = json_array();
	json_object_set_new(j, "schema", json_string(SP_VERIFY_SCHEMA));
	json_object_set_new(j, "bundle", json_string(v->bundle));
	json_object_set_new(j, "profile", json_string(v->profile));
	json_object_set_new(j, "input", json_string(v->input ? v->input : SP_EVIDENCE_SCHEMA));
	for (size_t i = 0; i < v->n; i++) {
		const sp_ev_gate *g = &v->g[i];
		json_t *o = json_object();
		json_object_set_new(o, "id", json_string(g->id));
		json_object_set_new(o, "status", json_string(g->status == SP_GATE_PASS ? "pass" : "fail"));
		json_object_set_new(o, "measured", json_string(g->measured));
		json_object_set_new(o, "threshold", json_string(g->threshold));
		json_object_set_new(o, "message", json_string(g->message));
		json_array_append_new(gates, o);
	}
	json_object_set_new(j, "gates", gates);
	json_t *sum = json_object();
	json_object_set_new(sum, "pass", json_integer((json_int_t)v->npass));
	json_object_set_new(sum, "fail", json_integer((json_int_t)v->nfail));
	json_object_set_new(j, "summary", sum);
	json_object_set_new(j, "result", json_string(v->nfail ? "fail" : "pass"));
	json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(j);
}
