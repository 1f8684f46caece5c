/* Readers for the files of an evidence bundle (docs/evidence-format.md).
 * Strict: a row with the wrong number of fields, a value of the wrong type
 * or an unknown enum word is an error naming file:line and the column. */
#include "report/bundle.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define MAX_LINE (1u << 20)

/* at most 40 bytes of an untrusted value for an error message, with
 * control characters and non-ASCII bytes shown as '?' */
static const char *shown(const char *s)
{
	static char buf[48]; /* single-threaded; one use per message */
	size_t i = 0;
	for (; s[i] && i < 40; i++)
		buf[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	buf[i] = '\0';
	return buf;
}

/* A TSV file read through the evidence row reader (src/evidence/), with
 * the report's own file:line messages. */
typedef struct tsv {
	sp_ev_rows r;
	char *path;
	size_t lineno;
	const char **hdr; /* r.hdr */
	size_t nhdr;
	char **fld; /* r.f: fields of the current row */
} tsv;

static void tsv_close(tsv *t)
{
	if (t->hdr)
		sp_rows_close(&t->r);
	free(t->path);
	t->path = NULL;
	t->hdr = NULL;
}

/* the reader's failure, worded as the report words it */
static int tsv_fail(tsv *t, sp_error *err)
{
	sp_ev_rows *r = &t->r;
	const char *text = strstr(r->msg, ": ");
	text = text ? text + 2 : r->msg;
	switch (r->why) {
	case SP_RW_OPEN:
		return sp_usage(err, "%s: %s", t->path,
				r->why_n == EINVAL ? "not a regular file" : strerror((int)r->why_n));
	case SP_RW_IO: return sp_fail_errno(err, (int)r->why_n, "%s:%llu: read error", t->path, r->line + 1);
	case SP_RW_NOHEADER: return sp_usage(err, "%s:1: missing header row", t->path);
	case SP_RW_EMPTY_COL: return sp_usage(err, "%s:1: empty column name (column %zu)", t->path, r->why_n);
	case SP_RW_DUP_COL: return sp_usage(err, "%s:1: duplicate column '%s'", t->path, shown(r->why_name));
	case SP_RW_MISSING_COL: return sp_usage(err, "%s:1: missing column '%s'", t->path, shown(r->why_name));
	case SP_RW_EMPTY_LINE: return sp_usage(err, "%s:%llu: empty line", t->path, r->line);
	case SP_RW_FIELDS:
		return sp_usage(err, "%s:%llu: %zu fields, the header has %zu", t->path, r->line, r->why_n, r->ncols);
	case SP_RW_NONE:
	case SP_RW_OTHER: break;
	}
	return sp_usage(err, "%s:%llu: %s", t->path, r->line ? r->line : 1, text);
}

static int tsv_open(tsv *t, const char *dir, enum sp_ev_file kind, sp_error *err)
{
	*t = (tsv){0};
	t->path = sp_xasprintf("%s/%s", dir, sp_ev_file_name(kind));
	if (sp_rows_open(&t->r, dir, kind, NULL) < 0)
		return tsv_fail(t, err);
	t->hdr = t->r.hdr;
	t->nhdr = t->r.ncols;
	t->fld = t->r.f;
	t->lineno = (size_t)t->r.line;
	return 0;
}

static int tsv_col(tsv *t, const char *name, sp_error *err)
{
	for (size_t i = 0; i < t->nhdr; i++)
		if (!strcmp(t->hdr[i], name))
			return (int)i;
	return sp_usage(err, "%s:1: missing column '%s'", t->path, name);
}

/* next row into t->fld: 1, 0 at end, -1 error */
static int tsv_next(tsv *t, sp_error *err)
{
	int rc = sp_rows_next_raw(&t->r);
	t->lineno = (size_t)t->r.line;
	return rc < 0 ? tsv_fail(t, err) : rc;
}

static int parse_double(const char *s, double *out)
{
	if (!*s || strchr(" \t", *s))
		return -1;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* a decimal as the verifier reads it (sp_ev_parse_dec: digits, at most one '.') */
static int tsv_num(tsv *t, int col, double *out, sp_error *err)
{
	const char *s = t->fld[col];
	if (sp_ev_parse_dec(s, strlen(s), out) == 0)
		return 0;
	double v;
	if (parse_double(s, &v) < 0)
		return sp_usage(err, "%s:%zu: %s: '%s' is not a number", t->path, t->lineno, t->hdr[col], shown(s));
	if (v < 0)
		return sp_usage(err, "%s:%zu: %s: %s is negative", t->path, t->lineno, t->hdr[col], shown(s));
	return sp_usage(err, "%s:%zu: %s: '%s' is not a plain decimal (digits and at most one '.')", t->path, t->lineno,
			t->hdr[col], shown(s));
}

/* an integer as the verifier reads it (sp_ev_parse_int: at most 18 digits) */
static int tsv_int(tsv *t, int col, long long *out, sp_error *err)
{
	const char *s = t->fld[col];
	if (sp_ev_parse_int(s, strlen(s), out) < 0)
		return sp_usage(err, "%s:%zu: %s: '%s' is not a non-negative integer", t->path, t->lineno, t->hdr[col],
				shown(s));
	return 0;
}

/* a non-empty text column */
static int tsv_text(tsv *t, int col, sp_error *err)
{
	if (!t->fld[col][0])
		return sp_usage(err, "%s:%zu: %s: empty", t->path, t->lineno, t->hdr[col]);
	return 0;
}

/* a number, or NaN for "-" */
static int tsv_num_or_dash(tsv *t, int col, double *out, sp_error *err)
{
	if (!strcmp(t->fld[col], "-")) {
		*out = NAN;
		return 0;
	}
	return tsv_num(t, col, out, err);
}

/* an integer (as a double), or NaN for "-" */
static int tsv_int_or_dash(tsv *t, int col, double *out, sp_error *err)
{
	long long v;
	if (!strcmp(t->fld[col], "-")) {
		*out = NAN;
		return 0;
	}
	if (tsv_int(t, col, &v, err) < 0)
		return -1;
	*out = (double)v;
	return 0;
}

static int tsv_passfail(tsv *t, int col, bool *out, sp_error *err)
{
	if (!strcmp(t->fld[col], "pass"))
		*out = true;
	else if (!strcmp(t->fld[col], "fail"))
		*out = false;
	else
		return sp_usage(err, "%s:%zu: %s: '%s' is neither pass nor fail", t->path, t->lineno, t->hdr[col],
				shown(t->fld[col]));
	return 0;
}

/* grow *v (element size sz) to hold n+1 elements */
static void *grow(void *v, size_t n, size_t *cap, size_t sz)
{
	if (n < *cap)
		return v;
	*cap = *cap ? *cap * 2 : 256;
	return sp_xrealloc(v, *cap * sz);
}

static unsigned scenario_index(rp_bundle *b, const char *name)
{
	for (size_t i = 0; i < b->nscenarios; i++)
		if (!strcmp(b->scenarios[i], name))
			return (unsigned)i;
	b->scenarios = sp_xrealloc(b->scenarios, (b->nscenarios + 1) * sizeof(char *));
	b->scenarios[b->nscenarios] = sp_xstrdup(name);
	return (unsigned)b->nscenarios++;
}

const char *rp_meta(const rp_bundle *b, const char *key)
{
	return sp_kv_get(b->meta, b->nmeta, key);
}

/* metadata.txt through the evidence key=value parser, in the report's words */
static int load_metadata(rp_bundle *b, sp_error *err)
{
	_cleanup_free_ char *path = sp_xasprintf("%s/metadata.txt", b->dir);
	size_t len = 0;
	int e = 0;
	_cleanup_free_ char *buf = sp_ev_read_all(path, 16 * MAX_LINE, &len, &e);
	if (!buf) {
		if (e == EFBIG)
			return sp_usage(err, "%s: larger than %u bytes", path, 16 * MAX_LINE);
		return sp_usage(err, "%s: %s", path, e == EINVAL ? "not a regular file" : strerror(e));
	}
	sp_error kerr;
	sp_ev_kv_why why;
	if (sp_kv_parse_why(buf, len, &b->meta, &b->nmeta, &kerr, &why) < 0) {
		switch (why.code) {
		case SP_KVF_EMPTY: return sp_usage(err, "%s: missing key 'schema'", path);
		case SP_KVF_NUL: return sp_usage(err, "%s:%u: contains a NUL byte", path, why.line);
		case SP_KVF_TRUNCATED: return sp_usage(err, "%s:%u: no newline at the end of the file", path, why.line);
		case SP_KVF_LONG: return sp_usage(err, "%s:%u: line longer than %d bytes", path, why.line, SP_EV_MAX_LINE);
		case SP_KVF_SYNTAX: return sp_usage(err, "%s:%u: expected key=value", path, why.line);
		case SP_KVF_KEY: return sp_usage(err, "%s:%u: invalid key '%s'", path, why.line, shown(why.key));
		case SP_KVF_VALUE:
			return sp_usage(err, "%s:%u: %s: control character or invalid UTF-8 in the value", path, why.line,
					shown(why.key));
		case SP_KVF_DUP: return sp_usage(err, "%s:%u: duplicate key '%s'", path, why.line, shown(why.key));
		}
		return sp_usage(err, "%s: %s", path, kerr.msg);
	}
	const sp_ev_kv *schema = NULL;
	for (size_t i = 0; i < b->nmeta && !schema; i++)
		if (!strcmp(b->meta[i].key, "schema"))
			schema = &b->meta[i];
	if (!schema)
		return sp_usage(err, "%s: missing key 'schema'", path);
	if (strcmp(schema->value, SP_EVIDENCE_SCHEMA))
		return sp_usage(err, "%s:%u: schema is '%s', expected sandprobe.evidence.v1", path, schema->line,
				shown(schema->value));
	if (!rp_meta(b, "run_id"))
		return sp_usage(err, "%s: missing key 'run_id'", path);
	sp_strv sc = {0};
	sp_strv_split(&sc, rp_meta(b, "scenarios"), ",");
	for (size_t i = 0; i < sc.n; i++)
		scenario_index(b, sc.v[i]);
	sp_strv_free(&sc);
	return 0;
}

static const char *const sample_required[] = {
	"ts", "wall", "phase", "owned_processes", "owned_threads", "owned_rss_bytes", "owned_cpu_seconds",
	"owned_fds", "owned_mounts", "owned_sockets", "owned_cgroups", "disk_bytes", "global_processes",
	"global_mounts", "runner_rss_bytes", "runner_fds",
};

static int load_samples(rp_bundle *b, sp_error *err)
{
	tsv t;
	int rc = tsv_open(&t, b->dir, SP_EV_SAMPLES, err);
	if (rc == 0)
		for (size_t i = 0; i < SP_ARRAY_SIZE(sample_required); i++)
			if ((rc = tsv_col(&t, sample_required[i], err)) < 0)
				break;
	if (rc < 0)
		goto out;
	int c_wall = tsv_col(&t, "wall", err), c_phase = tsv_col(&t, "phase", err),
	    c_cpu = tsv_col(&t, "owned_cpu_seconds", err);
	/* every column but wall and phase is numeric */
	b->ncols = t.nhdr - 2;
	b->col_name = sp_xcalloc(b->ncols, sizeof(char *));
	b->col = sp_xcalloc(b->ncols, sizeof(double *));
	size_t *map = sp_xcalloc(t.nhdr, sizeof(size_t));
	for (size_t i = 0, k = 0; i < t.nhdr; i++) {
		if ((int)i == c_wall || (int)i == c_phase)
			continue;
		b->col_name[k] = sp_xstrdup(t.hdr[i]);
		map[i] = k++;
	}
	size_t cap = 0;
	bool seen_final = false;
	double last_ts = -1;
	size_t map_ts_hdr = (size_t)tsv_col(&t, "ts", err);
	size_t ts_col = map[map_ts_hdr];
	while ((rc = tsv_next(&t, err)) > 0) {
		size_t n = b->nsamples;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			b->phase = sp_xrealloc(b->phase, cap * sizeof(rp_phase));
			for (size_t k = 0; k < b->ncols; k++)
				b->col[k] = sp_xrealloc(b->col[k], cap * sizeof(double));
		}
		const char *ph = t.fld[c_phase];
		if (!strcmp(ph, "start"))
			b->phase[n] = RP_PHASE_START;
		else if (!strcmp(ph, "periodic"))
			b->phase[n] = RP_PHASE_PERIODIC;
		else if (!strcmp(ph, "final"))
			b->phase[n] = RP_PHASE_FINAL;
		else {
			rc = sp_usage(err, "%s:%zu: phase: '%s' is not start, periodic or final", t.path, t.lineno, shown(ph));
			break;
		}
		if ((n == 0) != (b->phase[n] == RP_PHASE_START)) {
			rc = sp_usage(err, "%s:%zu: phase: exactly the first row is 'start'", t.path, t.lineno);
			break;
		}
		if (seen_final) {
			rc = sp_usage(err, "%s:%zu: a row after the 'final' row", t.path, t.lineno);
			break;
		}
		seen_final = b->phase[n] == RP_PHASE_FINAL;
		if (!t.fld[c_wall][0]) {
			rc = sp_usage(err, "%s:%zu: wall: empty", t.path, t.lineno);
			break;
		}
		if (!sp_ev_is_iso8601(t.fld[c_wall], strlen(t.fld[c_wall]))) {
			rc = sp_usage(err, "%s:%zu: wall: '%s' is not an ISO 8601 UTC time of a real date", t.path,
				      t.lineno, shown(t.fld[c_wall]));
			break;
		}
		for (size_t i = 0; i < t.nhdr && rc >= 0; i++) {
			if ((int)i == c_wall || (int)i == c_phase)
				continue;
			/* '-': a counter the bundle marks absent (sandprobe import); integers
			 * but for ts and owned_cpu_seconds, as the verifier reads them */
			double *cell = &b->col[map[i]][n];
			if (i == map_ts_hdr)
				rc = tsv_num(&t, (int)i, cell, err);
			else if ((int)i == c_cpu)
				rc = tsv_num_or_dash(&t, (int)i, cell, err);
			else
				rc = tsv_int_or_dash(&t, (int)i, cell, err);
		}
		if (rc < 0)
			break;
		double ts = b->col[ts_col][n];
		if (ts < last_ts) {
			rc = sp_usage(err, "%s:%zu: ts: %g goes back in time (previous %g)", t.path, t.lineno, ts, last_ts);
			break;
		}
		last_ts = ts;
		b->nsamples++;
	}
	free(map);
	if (rc == 0 && b->nsamples == 0)
		rc = sp_usage(err, "%s: no sample rows", t.path);
	else if (rc == 0 && !seen_final)
		rc = sp_usage(err, "%s:%zu: the last row is not 'final'", t.path, t.lineno);
out:
	tsv_close(&t);
	return rc < 0 ? -1 : 0;
}

static int load_operations(rp_bundle *b, sp_error *err)
{
	tsv t;
	int rc = tsv_open(&t, b->dir, SP_EV_OPERATIONS, err);
	int cts = -1, csc = -1, capi = -1, cop = -1, clat = -1, cres = -1, cgen = -1, cerr = -1;
	if (rc == 0 && (cts = tsv_col(&t, "ts", err)) >= 0 && (csc = tsv_col(&t, "scenario", err)) >= 0 &&
	    (capi = tsv_col(&t, "api", err)) >= 0 && (cop = tsv_col(&t, "operation", err)) >= 0 &&
	    (clat = tsv_col(&t, "latency_ms", err)) >= 0 && (cres = tsv_col(&t, "result", err)) >= 0 &&
	    (cgen = tsv_col(&t, "generation", err)) >= 0 && (cerr = tsv_col(&t, "error_code", err)) >= 0) {
		size_t cap = 0;
		while ((rc = tsv_next(&t, err)) > 0) {
			b->ops = grow(b->ops, b->nops, &cap, sizeof(rp_op));
			rp_op *o = &b->ops[b->nops];
			long long gen;
			if (tsv_num(&t, cts, &o->ts, err) < 0 || tsv_text(&t, capi, err) < 0 || tsv_text(&t, cop, err) < 0 ||
			    tsv_num(&t, clat, &o->latency_ms, err) < 0 || tsv_int(&t, cgen, &gen, err) < 0) {
				rc = -1;
				break;
			}
			const char *ec = t.fld[cerr];
			if (!ec[0] || strlen(ec) > 64 || strchr(ec, ' ')) {
				rc = sp_usage(err, "%s:%zu: error_code: '%s' is not '-' or a sanitized error code", t.path,
					      t.lineno, shown(ec));
				break;
			}
			const char *r = t.fld[cres];
			if (!strcmp(r, "ok"))
				o->result = RP_OK;
			else if (!strcmp(r, "fail"))
				o->result = RP_FAIL;
			else if (!strcmp(r, "expected_fault"))
				o->result = RP_EXPECTED_FAULT;
			else {
				rc = sp_usage(err, "%s:%zu: result: '%s' is not ok, fail or expected_fault", t.path,
					      t.lineno, shown(r));
				break;
			}
			if (!t.fld[csc][0]) {
				rc = sp_usage(err, "%s:%zu: scenario: empty", t.path, t.lineno);
				break;
			}
			o->scenario = scenario_index(b, t.fld[csc]);
			b->nops++;
		}
	} else
		rc = -1;
	tsv_close(&t);
	return rc < 0 ? -1 : 0;
}

static int load_latency(rp_bundle *b, sp_error *err)
{
	tsv t;
	int rc = tsv_open(&t, b->dir, SP_EV_LATENCY, err);
	int cts = -1, csc = -1, cop = -1, clat = -1, cwu = -1;
	if (rc == 0 && (cts = tsv_col(&t, "ts", err)) >= 0 && (csc = tsv_col(&t, "scenario", err)) >= 0 &&
	    (cop = tsv_col(&t, "operation", err)) >= 0 && (clat = tsv_col(&t, "latency_ms", err)) >= 0 &&
	    (cwu = tsv_col(&t, "warmup", err)) >= 0) {
		size_t cap = 0;
		while ((rc = tsv_next(&t, err)) > 0) {
			b->lat = grow(b->lat, b->nlat, &cap, sizeof(rp_lat));
			rp_lat *l = &b->lat[b->nlat];
			if (tsv_num(&t, cts, &l->ts, err) < 0 || tsv_text(&t, cop, err) < 0 ||
			    tsv_num(&t, clat, &l->latency_ms, err) < 0) {
				rc = -1;
				break;
			}
			const char *w = t.fld[cwu];
			if (strcmp(w, "0") && strcmp(w, "1")) {
				rc = sp_usage(err, "%s:%zu: warmup: '%s' is neither 0 nor 1", t.path, t.lineno, shown(w));
				break;
			}
			l->warmup = w[0] == '1';
			if (!t.fld[csc][0]) {
				rc = sp_usage(err, "%s:%zu: scenario: empty", t.path, t.lineno);
				break;
			}
			l->scenario = scenario_index(b, t.fld[csc]);
			b->nlat++;
		}
	} else
		rc = -1;
	tsv_close(&t);
	return rc < 0 ? -1 : 0;
}

static int load_capabilities(rp_bundle *b, sp_error *err)
{
	tsv t;
	int rc = tsv_open(&t, b->dir, SP_EV_CAPABILITIES, err);
	int c[6] = {-1, -1, -1, -1, -1, -1};
	static const char *const names[6] = {"scenario", "attempted", "succeeded", "expected_faults",
					     "unexpected_failures", "result"};
	for (int i = 0; i < 6 && rc == 0; i++)
		if ((c[i] = tsv_col(&t, names[i], err)) < 0)
			rc = -1;
	if (rc == 0) {
		size_t cap = 0;
		while ((rc = tsv_next(&t, err)) > 0) {
			b->caps = grow(b->caps, b->ncaps, &cap, sizeof(rp_capability));
			rp_capability *k = &b->caps[b->ncaps];
			*k = (rp_capability){0};
			if (!t.fld[c[0]][0]) {
				rc = sp_usage(err, "%s:%zu: scenario: empty", t.path, t.lineno);
				break;
			}
			if (tsv_int(&t, c[1], &k->attempted, err) < 0 || tsv_int(&t, c[2], &k->succeeded, err) < 0 ||
			    tsv_int(&t, c[3], &k->expected_faults, err) < 0 ||
			    tsv_int(&t, c[4], &k->unexpected_failures, err) < 0 || tsv_passfail(&t, c[5], &k->pass, err) < 0) {
				rc = -1;
				break;
			}
			k->scenario = sp_xstrdup(t.fld[c[0]]);
			b->ncaps++;
		}
	}
	tsv_close(&t);
	return rc < 0 ? -1 : 0;
}

static int load_faults(rp_bundle *b, sp_error *err)
{
	tsv t;
	int rc = tsv_open(&t, b->dir, SP_EV_FAULTS, err);
	int c[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
	static const char *const names[8] = {"fault_id", "target", "expected", "started",
					     "ended", "recovery_ms", "rto_ms", "result"};
	for (int i = 0; i < 8 && rc == 0; i++)
		if ((c[i] = tsv_col(&t, names[i], err)) < 0)
			rc = -1;
	if (rc == 0) {
		size_t cap = 0;
		while ((rc = tsv_next(&t, err)) > 0) {
			b->faults = grow(b->faults, b->nfaults, &cap, sizeof(rp_fault));
			rp_fault *f = &b->faults[b->nfaults];
			*f = (rp_fault){0};
			if (!t.fld[c[0]][0]) {
				rc = sp_usage(err, "%s:%zu: fault_id: empty", t.path, t.lineno);
				break;
			}
			if (!sp_ev_is_fault_id(t.fld[c[0]], strlen(t.fld[c[0]]))) {
				rc = sp_usage(err, "%s:%zu: fault_id: '%s' is not a fault id F01..F09", t.path, t.lineno,
					      shown(t.fld[c[0]]));
				break;
			}
			if (tsv_text(&t, c[1], err) < 0 || tsv_text(&t, c[2], err) < 0 || tsv_num(&t, c[3], &f->started, err) < 0 || tsv_num_or_dash(&t, c[4], &f->ended, err) < 0 ||
			    tsv_num_or_dash(&t, c[5], &f->recovery_ms, err) < 0 || tsv_num(&t, c[6], &f->rto_ms, err) < 0 ||
			    tsv_passfail(&t, c[7], &f->pass, err) < 0) {
				rc = -1;
				break;
			}
			if (!isnan(f->ended) && f->ended < f->started) {
				rc = sp_usage(err, "%s:%zu: ended: %g is before started %g", t.path, t.lineno, f->ended,
					      f->started);
				break;
			}
			f->id = sp_xstrdup(t.fld[c[0]]);
			f->target = sp_xstrdup(t.fld[c[1]]);
			f->expected = sp_xstrdup(t.fld[c[2]]);
			b->nfaults++;
		}
	}
	tsv_close(&t);
	return rc < 0 ? -1 : 0;
}

/* summary.json through the evidence reader, as the verifier holds it, but
 * for the fields the bundle marks absent (sandprobe import) */
static int load_summary(rp_bundle *b, sp_error *err)
{
	_cleanup_free_ char *path = sp_xasprintf("%s/summary.json", b->dir);
	sp_error serr;
	if (sp_ev_summary_load_drawn(&b->summary, path, &serr) < 0) {
		int line, at = 0;
		/* the JSON parser's "line N: ..." as path:N: ... */
		if (sscanf(serr.msg, "line %d: %n", &line, &at) == 1 && at > 0)
			return sp_usage(err, "%s:%d: %s", path, line, serr.msg + at);
		return sp_usage(err, "%s: %s", path, serr.msg);
	}
	return 0;
}

int rp_bundle_load(rp_bundle *b, const char *dir, sp_error *err)
{
	*b = (rp_bundle){0};
	b->dir = sp_xstrdup(dir);
	if (load_metadata(b, err) < 0 || load_samples(b, err) < 0 || load_operations(b, err) < 0 ||
	    load_latency(b, err) < 0 || load_capabilities(b, err) < 0 || load_faults(b, err) < 0 ||
	    load_summary(b, err) < 0) {
		rp_bundle_free(b);
		return -1;
	}
	return 0;
}

void rp_bundle_free(rp_bundle *b)
{
	sp_kv_free(b->meta, b->nmeta);
	for (size_t i = 0; i < b->ncols; i++) {
		free(b->col_name[i]);
		free(b->col[i]);
	}
	free(b->col_name);
	free(b->col);
	free(b->phase);
	for (size_t i = 0; i < b->nscenarios; i++)
		free(b->scenarios[i]);
	free(b->scenarios);
	free(b->ops);
	free(b->lat);
	for (size_t i = 0; i < b->ncaps; i++)
		free(b->caps[i].scenario);
	free(b->caps);
	for (size_t i = 0; i < b->nfaults; i++) {
		free(b->faults[i].id);
		free(b->faults[i].target);
		free(b->faults[i].expected);
	}
	free(b->faults);
	sp_ev_summary_free(&b->summary);
	free(b->dir);
	*b = (rp_bundle){0};
}

const double *rp_column(const rp_bundle *b, const char *name)
{
	for (size_t i = 0; i < b->ncols; i++)
		if (!strcmp(b->col_name[i], name))
			return b->col[i];
	return NULL;
}

double rp_time_max(const rp_bundle *b)
{
	double m = 0;
	const double *ts = rp_column(b, "ts");
	for (size_t i = 0; ts && i < b->nsamples; i++)
		m = fmax(m, ts[i]);
	for (size_t i = 0; i < b->nops; i++)
		m = fmax(m, b->ops[i].ts);
	for (size_t i = 0; i < b->nlat; i++)
		m = fmax(m, b->lat[i].ts);
	return m;
}

double rp_warmup_end(const rp_bundle *b)
{
	if (!isnan(b->summary.warmup_end_s))
		return b->summary.warmup_end_s;
	double w = 0;
	const char *ws = rp_meta(b, "warmup_s");
	if (ws)
		parse_double(ws, &w);
	sp_strv sc = {0};
	sp_strv_split(&sc, rp_meta(b, "scenarios"), ",");
	double cycles = 0;
	for (size_t s = 0; s < sc.n; s++) {
		/* the second earliest finished operation of the scenario */
		double first = INFINITY, second = INFINITY;
		for (size_t i = 0; i < b->nops; i++) {
			if (strcmp(b->scenarios[b->ops[i].scenario], sc.v[s]))
				continue;
			double ts = b->ops[i].ts;
			if (ts < first) {
				second = first;
				first = ts;
			} else if (ts < second)
				second = ts;
		}
		cycles = fmax(cycles, second);
	}
	sp_strv_free(&sc);
	return isinf(cycles) ? w : fmax(w, cycles);
}
