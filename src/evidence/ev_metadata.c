/* metadata.txt: key=value lines, one key once, thresholds fixed before the
 * run; and the named profiles of evidence.md. */
#include "evidence/evidence.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

#define META_MAX (1024 * 1024)

static bool key_ok(const char *k, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = k[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
		      c == '.' || c == '-'))
			return false;
	}
	return true;
}

void sp_kv_free(sp_ev_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

static void why_set(sp_ev_kv_why *why, enum sp_kv_fail code, unsigned line, const char *key, size_t kl)
{
	if (!why)
		return;
	why->code = code;
	why->line = line;
	if (kl >= sizeof why->key)
		kl = sizeof why->key - 1;
	memcpy(why->key, key, kl);
	why->key[kl] = '\0';
}

int sp_kv_parse_buf(const char *buf, size_t len, sp_ev_kv **out, size_t *nout, sp_error *err)
{
	return sp_kv_parse_why(buf, len, out, nout, err, NULL);
}

int sp_kv_parse_why(const char *buf, size_t len, sp_ev_kv **out, size_t *nout, sp_error *err, sp_ev_kv_why *why)
{
	sp_ev_kv *kv = NULL;
	size_t n = 0;
	unsigned line = 0;
	size_t pos = 0;
	_cleanup_strset_ sp_ev_strset seen = {0};
	*out = NULL;
	*nout = 0;
	if (len == 0) {
		why_set(why, SP_KVF_EMPTY, 0, "", 0);
		return sp_usage(err, "empty file");
	}
	if (memchr(buf, '\0', len)) {
		const char *z = memchr(buf, '\0', len);
		unsigned zl = 1;
		for (const char *q = buf; q < z; q++)
			zl += *q == '\n';
		why_set(why, SP_KVF_NUL, zl, "", 0);
		return sp_usage(err, "contains a NUL byte");
	}
	while (pos < len) {
		line++;
		const char *s = buf + pos;
		const char *nl = memchr(s, '\n', len - pos);
		if (!nl) {
			sp_kv_free(kv, n);
			why_set(why, SP_KVF_TRUNCATED, line, "", 0);
			return sp_usage(err, "line %u: truncated (no newline at the end of the file)", line);
		}
		size_t l = (size_t)(nl - s);
		pos += l + 1;
		if (l >= SP_EV_MAX_LINE) {
			sp_kv_free(kv, n);
			why_set(why, SP_KVF_LONG, line, "", 0);
			return sp_usage(err, "line %u: longer than %d bytes", line, SP_EV_MAX_LINE);
		}
		const char *eq = memchr(s, '=', l);
		if (!eq) {
			sp_kv_free(kv, n);
			why_set(why, SP_KVF_SYNTAX, line, "", 0);
			return sp_usage(err, "line %u: not key=value", line);
		}
		size_t kl = (size_t)(eq - s), vl = l - kl - 1;
		if (!key_ok(s, kl)) {
			sp_kv_free(kv, n);
			why_set(why, kl ? SP_KVF_KEY : SP_KVF_SYNTAX, line, s, kl);
			return sp_usage(err, "line %u: invalid key '%.*s'", line, (int)(kl > 40 ? 40 : kl), s);
		}
		for (size_t i = 0; i < vl; i++) {
			unsigned char c = (unsigned char)eq[1 + i];
			if (c < 0x20 || c == 0x7f) {
				sp_kv_free(kv, n);
				why_set(why, SP_KVF_VALUE, line, s, kl);
				return sp_usage(err, "line %u: key %.*s: control character in the value", line,
						(int)kl, s);
			}
		}
		if (vl && !sp_ev_is_text(eq + 1, vl)) {
			sp_kv_free(kv, n);
			why_set(why, SP_KVF_VALUE, line, s, kl);
			return sp_usage(err, "line %u: key %.*s: value is not valid UTF-8", line, (int)kl, s);
		}
		if ((n & (n - 1)) == 0)
			kv = sp_xrealloc(kv, (n ? 2 * n : 1) * sizeof *kv);
		kv[n].key = sp_xstrndup(s, kl);
		kv[n].value = sp_xstrndup(eq + 1, vl);
		kv[n].line = line;
		/* a hash set of the keys: linear in the number of keys */
		size_t first = sp_strset_put(&seen, kv[n].key, kl, n);
		n++;
		if (first != SIZE_MAX) {
			why_set(why, SP_KVF_DUP, line, s, kl);
			int r = sp_usage(err, "line %u: key %s given twice (first on line %u)", line,
					 kv[first].key, kv[first].line);
			sp_kv_free(kv, n);
			return r;
		}
	}
	*out = kv;
	*nout = n;
	return 0;
}

const char *sp_kv_get(const sp_ev_kv *kv, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return kv[i].value;
	return NULL;
}

static const sp_ev_kv *kv_find(const sp_ev_meta *m, const char *key)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->kv[i].key, key))
			return &m->kv[i];
	return NULL;
}

static const char *mval(const sp_ev_meta *m, const char *key)
{
	const sp_ev_kv *kv = kv_find(m, key);
	return kv ? kv->value : "";
}

/* ---- typed view -------------------------------------------------------- */
enum vtype { V_TEXT, V_DEC, V_INT, V_POSINT, V_BOOL, V_PROFILE, V_LIST, V_FAULTS, V_DIGEST, V_HEX64, V_ISO, V_RATIO };

static const struct {
	const char *key;
	enum vtype type;
} required[] = {
	{"schema", V_TEXT},
	{"run_id", V_TEXT},
	{"profile", V_PROFILE},
	{"scenarios", V_LIST},
	{"tool_version", V_TEXT},
	{"tool_commit", V_TEXT},
	{"dirty", V_BOOL},
	{"host_kernel", V_TEXT},
	{"host_arch", V_TEXT},
	{"host_cpus", V_POSINT},
	{"host_memory_bytes", V_POSINT},
	{"runtime", V_TEXT},
	{"runtime_version", V_TEXT},
	{"rootfs_digest", V_DIGEST},
	{"started_at", V_ISO},
	{"seed", V_INT},
	{"workload_sha256", V_HEX64},
	{"concurrency", V_POSINT},
	{"faults", V_FAULTS},
	{"duration_s", V_DEC},
	{"sample_interval_s", V_DEC},
	{"warmup_s", V_DEC},
	{"threshold.min_span_s", V_DEC},
	{"threshold.max_interval_s", V_DEC},
	{"threshold.min_periodic_samples", V_INT},
	{"threshold.max_gap_s", V_DEC},
	{"threshold.min_success_ratio", V_RATIO},
	{"threshold.rss_slope_mib_per_day", V_DEC},
	{"threshold.fd_growth_max", V_INT},
	{"threshold.p95_regression_pct", V_DEC},
	{"threshold.disk_budget_bytes", V_INT},
};

static bool is_id(const char *s, size_t n)
{
	if (!n || n > 64)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
		      c == '.' || c == '-'))
			return false;
	}
	return true;
}

static int split_list(const sp_ev_kv *kv, bool faults, char ***out, size_t *nout, sp_error *err)
{
	const char *v = kv->value;
	*out = NULL;
	*nout = 0;
	if (faults && !strcmp(v, "none"))
		return 0;
	size_t n = 0, cap = 0;
	char **list = NULL;
	const char *p = v;
	_cleanup_strset_ sp_ev_strset seen = {0};
	for (;;) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		bool okv = faults ? sp_ev_is_fault_id(p, l) : is_id(p, l);
		if (!okv) {
			for (size_t i = 0; i < n; i++)
				free(list[i]);
			free(list);
			return sp_usage(err, "line %u: key %s: '%.*s' is not a %s", kv->line, kv->key,
					(int)(l > 40 ? 40 : l), p, faults ? "fault id F01..F09 (or 'none')" : "scenario id");
		}
		if (sp_strset_put(&seen, p, l, n) != SIZE_MAX) {
			int r = sp_usage(err, "line %u: key %s: '%.*s' listed twice", kv->line, kv->key,
					 (int)(l > 64 ? 64 : l), p);
			for (size_t j = 0; j < n; j++)
				free(list[j]);
			free(list);
			return r;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			list = sp_xrealloc(list, cap * sizeof *list);
		}
		list[n++] = sp_xstrndup(p, l);
		if (!c)
			break;
		p = c + 1;
	}
	*out = list;
	*nout = n;
	return 0;
}

void sp_meta_free(sp_ev_meta *m)
{
	sp_kv_free(m->kv, m->n);
	for (size_t i = 0; i < m->nscenarios; i++)
		free(m->scenarios[i]);
	free(m->scenarios);
	for (size_t i = 0; i < m->nfaults; i++)
		free(m->faults[i]);
	free(m->faults);
	memset(m, 0, sizeof *m);
}

int sp_meta_parse_buf(sp_ev_meta *m, const char *buf, size_t len, sp_error *err, const char **kind)
{
	memset(m, 0, sizeof *m);
	*kind = "keys";
	if (sp_kv_parse_buf(buf, len, &m->kv, &m->n, err) < 0) {
		if (len == 0)
			*kind = "present";
		return -1;
	}
	const sp_ev_kv *sk = kv_find(m, "schema");
	if (!sk) {
		*kind = "schema";
		return sp_usage(err, "required key schema missing");
	}
	if (strcmp(sk->value, SP_EVIDENCE_SCHEMA)) {
		*kind = "schema";
		return sp_usage(err, "line %u: unknown schema '%.60s' (want %s)", sk->line, sk->value,
				SP_EVIDENCE_SCHEMA);
	}
	for (size_t i = 0; i < SP_ARRAY_SIZE(required); i++) {
		const sp_ev_kv *kv = kv_find(m, required[i].key);
		if (!kv)
			return sp_usage(err, "required key %s missing", required[i].key);
		const char *v = kv->value;
		size_t vl = strlen(v);
		double d = 0;
		long long ll = 0;
		const char *want = NULL;
		switch (required[i].type) {
		case V_TEXT:
			if (!sp_ev_is_text(v, vl))
				want = "a non-empty value";
			break;
		case V_DEC:
			if (sp_ev_parse_dec(v, vl, &d) < 0)
				want = "a non-negative decimal";
			break;
		case V_RATIO:
			if (sp_ev_parse_dec(v, vl, &d) < 0 || d > 1)
				want = "a ratio between 0 and 1";
			break;
		case V_INT:
			if (sp_ev_parse_int(v, vl, &ll) < 0)
				want = "a non-negative integer";
			break;
		case V_POSINT:
			if (sp_ev_parse_int(v, vl, &ll) < 0 || ll < 1)
				want = "a positive integer";
			break;
		case V_BOOL:
			if (strcmp(v, "0") && strcmp(v, "1"))
				want = "0 or 1";
			break;
		case V_PROFILE:
			if (strcmp(v, "R0") && strcmp(v, "G2") && strcmp(v, "R24") && strcmp(v, "E72") &&
			    strcmp(v, "custom"))
				want = "R0, G2, R24, E72 or custom";
			break;
		case V_LIST:
		case V_FAULTS:
			break; /* split below */
		case V_DIGEST:
			if (strcmp(v, "none") && !(sp_startswith(v, "sha256:") && sp_ev_is_hex(v + 7, vl - 7, 64)))
				want = "sha256:<64 hex> or none";
			break;
		case V_HEX64:
			if (!sp_ev_is_hex(v, vl, 64))
				want = "64 lowercase hex digits";
			break;
		case V_ISO:
			if (!sp_ev_is_iso8601(v, vl))
				want = "an ISO 8601 UTC time";
			break;
		}
		if (want)
			return sp_usage(err, "line %u: key %s: '%.40s' is not %s", kv->line, kv->key, v, want);
	}
	const sp_ev_kv *skv = kv_find(m, "scenarios"), *fkv = kv_find(m, "faults");
	if (!skv || !fkv)
		return sp_usage(err, "required key scenarios or faults missing");
	if (split_list(skv, false, &m->scenarios, &m->nscenarios, err) < 0)
		return -1;
	if (split_list(fkv, true, &m->faults, &m->nfaults, err) < 0)
		return -1;
	m->schema = sk->value;
	m->run_id = mval(m, "run_id");
	m->profile = mval(m, "profile");
#define DEC(k, f) sp_ev_parse_dec(mval(m, k), strlen(mval(m, k)), &(f))
#define INT(k, f) sp_ev_parse_int(mval(m, k), strlen(mval(m, k)), &(f))
	DEC("duration_s", m->duration_s);
	DEC("sample_interval_s", m->sample_interval_s);
	DEC("warmup_s", m->warmup_s);
	DEC("threshold.min_span_s", m->th.min_span_s);
	DEC("threshold.max_interval_s", m->th.max_interval_s);
	INT("threshold.min_periodic_samples", m->th.min_periodic_samples);
	DEC("threshold.max_gap_s", m->th.max_gap_s);
	DEC("threshold.min_success_ratio", m->th.min_success_ratio);
	DEC("threshold.rss_slope_mib_per_day", m->th.rss_slope_mib_per_day);
	INT("threshold.fd_growth_max", m->th.fd_growth_max);
	DEC("threshold.p95_regression_pct", m->th.p95_regression_pct);
	INT("threshold.disk_budget_bytes", m->th.disk_budget_bytes);
#undef DEC
#undef INT
	return 0;
}

int sp_meta_load(sp_ev_meta *m, const char *dir, sp_ev_sha256 *hash, sp_error *err, const char **kind)
{
	_cleanup_free_ char *path = sp_xasprintf("%s/metadata.txt", dir);
	size_t len = 0;
	int e = 0;
	memset(m, 0, sizeof *m);
	_cleanup_free_ char *buf = sp_ev_read_all(path, META_MAX, &len, &e);
	if (!buf) {
		*kind = e == EFBIG ? "keys" : "present";
		return sp_usage(err, "metadata.txt: %s", e == EFBIG ? "larger than 1 MiB" : sp_ev_strerror(e));
	}
	if (hash) {
		if (sp_ev_sha256_init(hash) < 0) {
			*kind = "present";
			return sp_fail_errno(err, 0, "metadata.txt: " SP_EV_SHA256_INIT_FAILED);
		}
		sp_ev_sha256_update(hash, buf, len);
		sp_ev_sha256_final(hash);
	}
	if (sp_meta_parse_buf(m, buf, len, err, kind) < 0) {
		sp_error_prefix(err, "metadata.txt");
		return -1;
	}
	return 0;
}

/* ---- profiles ---------------------------------------------------------- */
bool sp_profile_thresholds(const char *name, sp_ev_thresholds *t)
{
	memset(t, 0, sizeof *t);
	/* fields a profile does not fix are left at their loosest value */
	t->max_interval_s = 1e300;
	t->max_gap_s = 1e300;
	t->fd_growth_max = 1LL << 62;
	t->disk_budget_bytes = 1LL << 62;
	t->rss_slope_mib_per_day = 50;
	t->p95_regression_pct = 30;
	t->min_success_ratio = 1;
	if (!strcmp(name, "R0")) {
		return true;
	} else if (!strcmp(name, "G2")) {
		t->min_span_s = 7200;
		t->max_interval_s = 300;
		t->min_periodic_samples = 24;
		t->max_gap_s = 600;
		return true;
	} else if (!strcmp(name, "R24") || !strcmp(name, "E72")) {
		bool e = name[0] == 'E';
		t->min_span_s = e ? 259200 : 86400;
		t->max_interval_s = 300;
		t->min_periodic_samples = e ? 864 : 288;
		t->max_gap_s = 600;
		t->min_success_ratio = 0.995;
		return true;
	}
	return false;
}

#define MAXF(a, b) ((a) > (b) ? (a) : (b))
#define MINF(a, b) ((a) < (b) ? (a) : (b))
void sp_thresholds_stricter(const sp_ev_thresholds *a, const sp_ev_thresholds *b, sp_ev_thresholds *o)
{
	o->min_span_s = MAXF(a->min_span_s, b->min_span_s);
	o->max_interval_s = MINF(a->max_interval_s, b->max_interval_s);
	o->max_gap_s = MINF(a->max_gap_s, b->max_gap_s);
	o->min_success_ratio = MAXF(a->min_success_ratio, b->min_success_ratio);
	o->rss_slope_mib_per_day = MINF(a->rss_slope_mib_per_day, b->rss_slope_mib_per_day);
	o->p95_regression_pct = MINF(a->p95_regression_pct, b->p95_regression_pct);
	o->min_periodic_samples = MAXF(a->min_periodic_samples, b->min_periodic_samples);
	o->fd_growth_max = MINF(a->fd_growth_max, b->fd_growth_max);
	o->disk_budget_bytes = MINF(a->disk_budget_bytes, b->disk_budget_bytes);
}
