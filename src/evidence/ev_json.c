/* JSON documents of a bundle (inventories, summary) and the latency
 * baseline, with jansson. Each parser checks the shape and every type. */
#include "evidence/evidence.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "core/util.h"

#define JSON_MAX (64 * 1024 * 1024)

static json_t *parse(const char *buf, size_t len, sp_error *err)
{
	json_error_t je;
	if (len == 0) {
		sp_usage(err, "empty file");
		return NULL;
	}
	json_t *j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!j) {
		sp_usage(err, "line %d: %s", je.line, je.text);
		return NULL;
	}
	if (!json_is_object(j)) {
		json_decref(j);
		sp_usage(err, "top level is not an object");
		return NULL;
	}
	return j;
}

static char *load(const char *path, sp_ev_sha256 *hash, size_t *len, sp_error *err)
{
	int e = 0;
	char *buf = sp_ev_read_all(path, JSON_MAX, len, &e);
	if (!buf) {
		sp_usage(err, "%s", e == EFBIG ? "larger than 64 MiB" : sp_ev_strerror(e));
		return NULL;
	}
	if (hash) {
		if (sp_ev_sha256_init(hash) < 0) {
			sp_fail_errno(err, 0, SP_EV_SHA256_INIT_FAILED);
			free(buf);
			return NULL;
		}
		sp_ev_sha256_update(hash, buf, *len);
		sp_ev_sha256_final(hash);
	}
	return buf;
}

static bool jtext(json_t *v)
{
	return json_is_string(v) && sp_ev_is_text(json_string_value(v), json_string_length(v));
}

/* ---- inventory --------------------------------------------------------- */
void sp_inventory_free(sp_ev_inventory *inv)
{
	for (size_t i = 0; i < inv->n; i++) {
		free(inv->v[i].type);
		free(inv->v[i].id);
	}
	free(inv->v);
	inv->v = NULL;
	inv->n = 0;
}

static int res_cmp(const void *a, const void *b)
{
	const sp_ev_res_id *x = a, *y = b;
	int c = strcmp(x->type, y->type);
	return c ? c : strcmp(x->id, y->id);
}

int sp_inventory_parse(sp_ev_inventory *inv, const char *buf, size_t len, sp_error *err)
{
	inv->v = NULL;
	inv->n = 0;
	json_t *j = parse(buf, len, err);
	if (!j)
		return -1;
	int rc = -1;
	json_t *schema = json_object_get(j, "schema"), *res = json_object_get(j, "resources");
	if (!json_is_string(schema) || strcmp(json_string_value(schema), SP_INVENTORY_SCHEMA)) {
		sp_usage(err, "field schema: not %s", SP_INVENTORY_SCHEMA);
		goto out;
	}
	if (!json_is_array(res)) {
		sp_usage(err, "field resources: not an array");
		goto out;
	}
	size_t n = json_array_size(res);
	inv->v = sp_xcalloc(n ? n : 1, sizeof *inv->v);
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(res, i), *t = json_object_get(e, "type"), *id = json_object_get(e, "id");
		if (!json_is_object(e) || !jtext(t) || !jtext(id)) {
			sp_usage(err, "resources[%zu]: not an object with non-empty string type and id", i);
			goto out;
		}
		inv->v[inv->n].type = sp_xstrdup(json_string_value(t));
		inv->v[inv->n].id = sp_xstrdup(json_string_value(id));
		inv->n++;
	}
	qsort(inv->v, inv->n, sizeof *inv->v, res_cmp);
	/* a set: drop duplicates */
	size_t k = 0;
	for (size_t i = 0; i < inv->n; i++) {
		if (k && !res_cmp(&inv->v[k - 1], &inv->v[i])) {
			free(inv->v[i].type);
			free(inv->v[i].id);
			continue;
		}
		inv->v[k++] = inv->v[i];
	}
	inv->n = k;
	rc = 0;
out:
	json_decref(j);
	if (rc < 0)
		sp_inventory_free(inv);
	return rc;
}

int sp_inventory_load(sp_ev_inventory *inv, const char *path, sp_ev_sha256 *hash, sp_error *err)
{
	size_t len;
	inv->v = NULL;
	inv->n = 0;
	_cleanup_free_ char *buf = load(path, hash, &len, err);
	if (!buf)
		return -1;
	return sp_inventory_parse(inv, buf, len, err);
}

bool sp_inventory_equal(const sp_ev_inventory *a, const sp_ev_inventory *b, sp_error *err)
{
	size_t i = 0, j = 0;
	while (i < a->n || j < b->n) {
		int c = i == a->n ? 1 : j == b->n ? -1 : res_cmp(&a->v[i], &b->v[j]);
		if (c < 0) {
			sp_usage(err, "%s %s is in the start inventory but not in the final one", a->v[i].type,
				 a->v[i].id);
			return false;
		}
		if (c > 0) {
			sp_usage(err, "%s %s is left in the final inventory (not in the start one)",
				 b->v[j].type, b->v[j].id);
			return false;
		}
		i++;
		j++;
	}
	return true;
}

/* ---- summary ----------------------------------------------------------- */
void sp_ev_summary_free(sp_ev_summary *s)
{
	free(s->run_id);
	free(s->profile);
	free(s->stop_condition);
	free(s->cleanup);
	free(s->evidence_path);
	memset(s, 0, sizeof *s);
}

/* the document's "absent" array (sandprobe import) names key: it may be missing */
static bool absent_ok(json_t *absent, const char *k)
{
	size_t i;
	json_t *e;
	json_array_foreach(absent, i, e) {
		if (json_is_string(e) && !strcmp(json_string_value(e), k))
			return true;
	}
	return false;
}

static int get_num(json_t *o, json_t *absent, const char *k, double *out, sp_error *err)
{
	json_t *v = json_object_get(o, k);
	if (!v && absent_ok(absent, k)) {
		*out = NAN;
		return 0;
	}
	if (!json_is_number(v) || json_number_value(v) < 0 || !isfinite(json_number_value(v)))
		return sp_usage(err, "field %s: missing or not a non-negative number", k);
	*out = json_number_value(v);
	return 0;
}

static int get_int(json_t *o, json_t *absent, const char *pfx, const char *k, long long *out, sp_error *err)
{
	json_t *v = json_object_get(o, k);
	if (!v && absent_ok(absent, k)) {
		*out = -1;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return sp_usage(err, "field %s%s: missing or not a non-negative integer", pfx, k);
	*out = json_integer_value(v);
	return 0;
}

static int get_str(json_t *o, json_t *absent, const char *k, char **out, const char *const *allowed, sp_error *err)
{
	json_t *v = json_object_get(o, k);
	if (!v && absent_ok(absent, k))
		return 0;
	if (!jtext(v))
		return sp_usage(err, "field %s: missing or not a non-empty string", k);
	if (allowed) {
		bool found = false;
		for (size_t i = 0; allowed[i]; i++)
			if (!strcmp(allowed[i], json_string_value(v)))
				found = true;
		if (!found)
			return sp_usage(err, "field %s: '%.40s' is not an allowed value", k, json_string_value(v));
	}
	*out = sp_xstrdup(json_string_value(v));
	return 0;
}

/* with_absent: the fields the "absent" array names may be missing */
static int summary_parse(sp_ev_summary *s, const char *buf, size_t len, bool with_absent, sp_error *err)
{
	static const char *const stops[] = {"duration", "signal", "invariant", "error", NULL};
	static const char *const cleanups[] = {"ok", "failed", NULL};
	memset(s, 0, sizeof *s);
	json_t *j = parse(buf, len, err);
	if (!j)
		return -1;
	int rc = -1;
	json_t *schema = json_object_get(j, "schema"), *ops = json_object_get(j, "operations"), *ab = NULL;
	if (!json_is_string(schema) || strcmp(json_string_value(schema), SP_SUMMARY_SCHEMA)) {
		sp_usage(err, "field schema: not %s", SP_SUMMARY_SCHEMA);
		goto out;
	}
	if (with_absent && (ab = json_object_get(j, "absent")) != NULL) {
		size_t i;
		json_t *e;
		bool strings = json_is_array(ab);
		json_array_foreach(ab, i, e)
			strings = strings && jtext(e);
		if (!strings) {
			sp_usage(err, "field absent: not an array of non-empty strings");
			goto out;
		}
	}
	if (get_str(j, ab, "run_id", &s->run_id, NULL, err) < 0 ||
	    get_str(j, ab, "profile", &s->profile, NULL, err) < 0 ||
	    get_num(j, ab, "requested_duration_s", &s->requested_duration_s, err) < 0 ||
	    get_num(j, ab, "measured_duration_s", &s->measured_duration_s, err) < 0 ||
	    get_int(j, ab, "", "sample_count", &s->sample_count, err) < 0 ||
	    get_int(j, ab, "", "periodic_samples", &s->periodic_samples, err) < 0 ||
	    get_num(j, ab, "span_s", &s->span_s, err) < 0 || get_num(j, ab, "max_gap_s", &s->max_gap_s, err) < 0 ||
	    get_num(j, ab, "warmup_end_s", &s->warmup_end_s, err) < 0)
		goto out;
	if (!ops && absent_ok(ab, "operations")) {
		s->ops_total = s->ops_ok = s->ops_fail = s->ops_expected_fault = -1;
	} else if (!json_is_object(ops)) {
		sp_usage(err, "field operations: missing or not an object");
		goto out;
	} else if (get_int(ops, NULL, "operations.", "total", &s->ops_total, err) < 0 ||
		   get_int(ops, NULL, "operations.", "ok", &s->ops_ok, err) < 0 ||
		   get_int(ops, NULL, "operations.", "fail", &s->ops_fail, err) < 0 ||
		   get_int(ops, NULL, "operations.", "expected_fault", &s->ops_expected_fault, err) < 0)
		goto out;
	if (get_int(j, ab, "", "unexpected_failures", &s->unexpected_failures, err) < 0 ||
	    get_str(j, ab, "stop_condition", &s->stop_condition, stops, err) < 0 ||
	    get_str(j, ab, "cleanup", &s->cleanup, cleanups, err) < 0 ||
	    get_str(j, ab, "evidence_path", &s->evidence_path, NULL, err) < 0)
		goto out;
	rc = 0;
out:
	json_decref(j);
	if (rc < 0)
		sp_ev_summary_free(s);
	return rc;
}

int sp_ev_summary_parse(sp_ev_summary *s, const char *buf, size_t len, sp_error *err)
{
	return summary_parse(s, buf, len, false, err);
}

int sp_ev_summary_parse_drawn(sp_ev_summary *s, const char *buf, size_t len, sp_error *err)
{
	return summary_parse(s, buf, len, true, err);
}

static int summary_load(sp_ev_summary *s, const char *path, sp_ev_sha256 *hash, bool with_absent, sp_error *err)
{
	size_t len;
	memset(s, 0, sizeof *s);
	_cleanup_free_ char *buf = load(path, hash, &len, err);
	if (!buf)
		return -1;
	return summary_parse(s, buf, len, with_absent, err);
}

int sp_ev_summary_load(sp_ev_summary *s, const char *path, sp_ev_sha256 *hash, sp_error *err)
{
	return summary_load(s, path, hash, false, err);
}

int sp_ev_summary_load_drawn(sp_ev_summary *s, const char *path, sp_error *err)
{
	return summary_load(s, path, NULL, true, err);
}

/* ---- baseline ---------------------------------------------------------- */
/* {"schema":"sandprobe.baseline.v1","run_id":"...","quantile":"nearest-rank",
 *  "scenarios":{"RUN-01":{"count":N,"p50":x,"p95":x,"p99":x},...}} */
void sp_baseline_free(sp_ev_baseline *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->v[i].scenario);
	free(b->v);
	free(b->run_id);
	memset(b, 0, sizeof *b);
}

/* "<path>: <inner message>", keeping inner's errno and exit code */
static int baseline_fail(sp_error *err, const char *path, const sp_error *inner)
{
	sp_usage(err, "%s: %s", path, inner->msg);
	err->errnum = inner->errnum;
	err->exit_code = inner->exit_code;
	return -1;
}

int sp_baseline_load(sp_ev_baseline *b, const char *path, sp_error *err)
{
	size_t len;
	sp_error inner;
	memset(b, 0, sizeof *b);
	_cleanup_free_ char *buf = load(path, NULL, &len, &inner);
	if (!buf)
		return baseline_fail(err, path, &inner);
	json_t *j = parse(buf, len, &inner);
	if (!j)
		return baseline_fail(err, path, &inner);
	int rc = -1;
	json_t *schema = json_object_get(j, "schema"), *sc = json_object_get(j, "scenarios"),
	       *rid = json_object_get(j, "run_id");
	if (!json_is_string(schema) || strcmp(json_string_value(schema), SP_BASELINE_SCHEMA)) {
		sp_usage(err, "%s: field schema: not %s", path, SP_BASELINE_SCHEMA);
		goto out;
	}
	if (!json_is_object(sc) || json_object_size(sc) == 0) {
		sp_usage(err, "%s: field scenarios: missing, empty or not an object", path);
		goto out;
	}
	b->run_id = sp_xstrdup(json_is_string(rid) ? json_string_value(rid) : "");
	b->v = sp_xcalloc(json_object_size(sc), sizeof *b->v);
	const char *key;
	json_t *e;
	json_object_foreach(sc, key, e)
	{
		sp_ev_baseline_entry *be = &b->v[b->n];
		json_t *cnt = json_object_get(e, "count");
		const char *q[3] = {"p50", "p95", "p99"};
		double *qv[3] = {&be->p50, &be->p95, &be->p99};
		if (!json_is_integer(cnt) || json_integer_value(cnt) < 1) {
			sp_usage(err, "%s: scenarios.%s.count: missing or not a positive integer", path, key);
			goto out;
		}
		be->count = (unsigned long long)json_integer_value(cnt);
		for (int k = 0; k < 3; k++) {
			json_t *v = json_object_get(e, q[k]);
			if (!json_is_number(v) || json_number_value(v) < 0 || !isfinite(json_number_value(v))) {
				sp_usage(err, "%s: scenarios.%s.%s: missing or not a non-negative number", path,
					 key, q[k]);
				goto out;
			}
			*qv[k] = json_number_value(v);
		}
		be->scenario = sp_xstrdup(key);
		b->n++;
	}
	rc = 0;
out:
	json_decref(j);
	if (rc < 0)
		sp_baseline_free(b);
	return rc;
}

static int fill_json(FILE *f, void *ctx)
{
	return json_dumpf(ctx, f, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17)) < 0 ? -EIO : 0;
}

int sp_baseline_write(const sp_ev_verdict *v, const char *path, sp_error *err)
{
	json_t *j = json_object(), *sc = json_object();
	json_object_set_new(j, "schema", json_string(SP_BASELINE_SCHEMA));
	json_object_set_new(j, "run_id", json_string(v->lat.run_id ? v->lat.run_id : ""));
	json_object_set_new(j, "quantile", json_string("nearest-rank"));
	json_object_set_new(j, "bundle", json_string(v->bundle));
	for (size_t i = 0; i < v->lat.n; i++) {
		const sp_ev_baseline_entry *e = &v->lat.v[i];
		json_t *o = json_object();
		json_object_set_new(o, "count", json_integer((json_int_t)e->count));
		json_object_set_new(o, "p50", json_real(e->p50));
		json_object_set_new(o, "p95", json_real(e->p95));
		json_object_set_new(o, "p99", json_real(e->p99));
		json_object_set_new(sc, e->scenario, o);
	}
	json_object_set_new(j, "scenarios", sc);
	sp_wa_step step;
	int rc = sp_write_atomic(AT_FDCWD, path, 0666, 0, fill_json, j, &step);
	json_decref(j);
	if (rc < 0 && step == SP_WA_RENAME)
		return sp_usage(err, "%s: %s", path, strerror(-rc));
	if (rc < 0)
		return sp_usage(err, "%s: cannot write the baseline", path);
	return 0;
}
