/* sandprobe import a3s DIR OUT: an A3S Box host or cluster bundle as a
 * sandprobe.evidence.v1 bundle, so that report can draw it and verify can
 * say what it lacks. What A3S records is mapped; what it does not record is
 * marked absent ('-', listed in metadata.txt's absent key and summary.json's
 * "absent"), never invented:
 *   - samples: ts = seconds since the first sample, wall = A3S's timestamp,
 *     phase start (a host's start row, a cluster's first row), final, else
 *     periodic; every A3S counter as an extra.<name> column; sandprobe's
 *     owned/global counters absent;
 *   - no operations, latency rows or fault records (A3S keeps none): the
 *     files have their header only; no inventories (A3S's CLI snapshots are
 *     not typed);
 *   - every A3S file but metadata, summary and samples under logs/,
 *     redacted with the shared secret shapes and bounded like soak's logs;
 *   - A3S's metadata and summary keys kept as a3s.meta.* / a3s.summary.*. */
#include "a3s/a3s.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "core/fsutil.h" /* sp_count_dir */

#define LOG_HALF (32 * 1024 - 64) /* as soak keeps head and tail */

struct buf {
	char *s;
	size_t n, cap;
};

static void addf(struct buf *b, const char *fmt, ...) SP_PRINTF(2, 3);
static void addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int need = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (b->n + (size_t)need + 1 > b->cap) {
		b->cap = (b->n + (size_t)need + 1) * 2;
		b->s = sp_xrealloc(b->s, b->cap);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
	va_end(ap);
	b->n += (size_t)need;
}

static int put(const char *out, const char *name, const char *data, size_t len, sp_error *err)
{
	_cleanup_free_ char *p = sp_xasprintf("%s/%s", out, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return sp_fail_errno(err, errno, "%s", p);
	int r = sp_write_all(fd, data, len);
	if (close(fd) < 0 && !r)
		r = -errno;
	if (r < 0)
		return sp_fail_errno(err, -r, "%s", p);
	return 0;
}

/* a value fit for metadata.txt: one line of printable UTF-8 */
static char *clean(const char *v)
{
	char *c = sp_xstrdup(v);
	sp_ev_sanitize(c);
	return c;
}

struct absent {
	struct buf list;
	json_t *json;
};

static const char *absent(struct absent *a, const char *key)
{
	addf(&a->list, "%s%s", a->list.n ? "," : "", key);
	json_array_append_new(a->json, json_string(key));
	return "-";
}

/* a log as soak writes one: redacted, head and tail kept with an elision line */
static char *as_log(const char *text, size_t len, size_t *outlen)
{
	size_t rl;
	char *red = sp_secret_redact(text, len, &rl);
	if (rl <= 2 * LOG_HALF) {
		*outlen = rl;
		return red;
	}
	struct buf b = {0};
	addf(&b, "%.*s", LOG_HALF, red);
	addf(&b, "%s[... %zu bytes elided ...]\n", red[LOG_HALF - 1] == '\n' ? "" : "\n", rl - 2 * LOG_HALF);
	addf(&b, "%.*s", LOG_HALF, red + rl - LOG_HALF);
	free(red);
	*outlen = b.n;
	return b.s;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void buf_free(struct buf *b)
{
	free(b->s);
}

static void json_freep(json_t **j)
{
	json_decref(*j);
}

struct names {
	char **v;
	size_t n;
};

static void names_free(struct names *nm)
{
	for (size_t i = 0; i < nm->n; i++)
		free(nm->v[i]);
	free(nm->v);
}

/* the loaded A3S evidence, as sp_a3s_import checked it */
struct imp {
	const char *src, *out;
	bool cluster;
	const a3s_kv *meta, *sum;
	bool have_sum;
	const a3s_table *t;
	int cts, cph;     /* the timestamp and phase columns */
	const double *ep; /* each row's time, seconds since the epoch */
	struct absent *ab;
};

/* the output directory: new, or empty; with logs/ */
static int out_dir(const char *out, sp_error *err)
{
	if (mkdir(out, 0755) < 0 && errno != EEXIST) {
		sp_usage(err, "%s: cannot create: %s", out, strerror(errno));
		return -1;
	}
	if (sp_count_dir(out) != 0) {
		sp_usage(err, "%s: exists and is not an empty directory", out);
		return -1;
	}
	_cleanup_free_ char *logs = sp_xasprintf("%s/logs", out);
	if (mkdir(logs, 0755) < 0) {
		sp_fail_errno(err, errno, "%s", logs);
		return -1;
	}
	return 0;
}

/* the scenarios: a cluster's parts not skipped, a host's selected suites */
static void scenarios(const struct imp *im, struct buf *scen)
{
	if (im->cluster) {
		static const char *const parts[][2] = {{"skip_smoke", "K8S-smoke"}, {"skip_complex", "K8S-complex"}, {"skip_jobs", "K8S-jobs"}};
		for (size_t i = 0; i < 3; i++) {
			const char *f = a3s_kv_get(im->meta, parts[i][0]);
			if (!f || strcmp(f, "1"))
				addf(scen, "%s%s", scen->n ? "," : "", parts[i][1]);
		}
	} else {
		const char *sel = a3s_kv_get(im->meta, "selected_suites");
		static const char *const suites[][2] = {{"core=1", "A3S-core"}, {"host=1", "A3S-host"}, {"linux_run=1", "A3S-linux-run"},
						     {"cri=1", "A3S-cri"}, {"bench=1", "A3S-bench"}};
		for (size_t i = 0; sel && i < SP_ARRAY_SIZE(suites); i++) {
			const char *p = strstr(sel, suites[i][0]);
			if (p && (p == sel || p[-1] == ' ') && (p[strlen(suites[i][0])] == '\0' || p[strlen(suites[i][0])] == ' '))
				addf(scen, "%s%s", scen->n ? "," : "", suites[i][1]);
		}
	}
}

/* metadata.txt's duration, sample interval, warm-up and thresholds */
static void meta_thresholds(const struct imp *im, struct buf *md)
{
	struct absent *ab_ = im->ab;
	long long x;
	const char *dur = a3s_kv_get(im->meta, "soak_duration_secs");
	addf(md, "duration_s=%s\n", a3s_is_uint(dur, &x) ? dur : absent(ab_, "duration_s"));
	/* a host sleeps soak_interval_secs between iterations: not a sample interval */
	const char *iv = im->cluster ? a3s_kv_get(im->meta, "sample_interval_secs") : NULL;
	addf(md, "sample_interval_s=%s\n", a3s_is_uint(iv, &x) && x > 0 ? iv : absent(ab_, "sample_interval_s"));
	addf(md, "warmup_s=%s\n", absent(ab_, "warmup_s"));
	const char *pre = im->cluster ? "verify_" : "soak_verify_";
	char key[64];
	snprintf(key, sizeof key, "%smin_sample_span_secs", pre);
	const char *span = a3s_kv_get(im->meta, key);
	addf(md, "threshold.min_span_s=%s\n", a3s_is_uint(span, &x) && x > 0 ? span : absent(ab_, "threshold.min_span_s"));
	addf(md, "threshold.max_interval_s=%s\n", absent(ab_, "threshold.max_interval_s"));
	snprintf(key, sizeof key, "%smin_samples", pre);
	const char *ms = a3s_kv_get(im->meta, key);
	if (a3s_is_uint(ms, &x) && x > 2)
		addf(md, "threshold.min_periodic_samples=%lld\n", x - 2); /* A3S counts start and final too */
	else
		addf(md, "threshold.min_periodic_samples=%s\n", absent(ab_, "threshold.min_periodic_samples"));
	snprintf(key, sizeof key, "%smax_sample_gap_secs", pre);
	const char *gap = a3s_kv_get(im->meta, key);
	addf(md, "threshold.max_gap_s=%s\n", a3s_is_uint(gap, &x) && x > 0 ? gap : absent(ab_, "threshold.max_gap_s"));
	static const char *const unknown3[] = {"threshold.min_success_ratio", "threshold.rss_slope_mib_per_day",
					       "threshold.fd_growth_max", "threshold.p95_regression_pct",
					       "threshold.disk_budget_bytes"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(unknown3); i++)
		addf(md, "%s=%s\n", unknown3[i], absent(ab_, unknown3[i]));
}

/* metadata.txt but its absent line; the run id, profile and source path it
 * names (freed by the caller) */
static void meta_txt(const struct imp *im, struct buf *md, char **rid, const char **profile, char **csrc)
{
	struct absent *ab_ = im->ab;
	struct buf scen = {0};
	scenarios(im, &scen);
	const char *run_id = a3s_kv_get(im->meta, "run_id");
	*profile = a3s_kv_get(im->meta, "profile");
	if (!*profile || !sp_profile_thresholds(*profile, &(sp_ev_thresholds){0}))
		*profile = "custom";
	*rid = clean(run_id && *run_id ? run_id : absent(ab_, "run_id"));
	addf(md, "schema=%s\nrun_id=%s\nprofile=%s\n", SP_EVIDENCE_SCHEMA, *rid, *profile);
	addf(md, "scenarios=%s\n", scen.n ? scen.s : absent(ab_, "scenarios"));
	free(scen.s);
	addf(md, "tool_version=%s\n", absent(ab_, "tool_version"));
	const char *sha = a3s_kv_get(im->meta, "git_sha");
	_cleanup_free_ char *csha = clean(sha && *sha ? sha : absent(ab_, "tool_commit"));
	addf(md, "tool_commit=%s\n", csha);
	static const char *const unknown[] = {"dirty", "host_kernel", "host_arch", "host_cpus", "host_memory_bytes"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(unknown); i++)
		addf(md, "%s=%s\n", unknown[i], absent(ab_, unknown[i]));
	_cleanup_free_ char *rt = clean(im->cluster ? a3s_kv_get(im->meta, "runtime_class") : "a3s-box");
	addf(md, "runtime=%s\nruntime_version=%s\nrootfs_digest=%s\n", rt, absent(ab_, "runtime_version"),
	     absent(ab_, "rootfs_digest"));
	const char *sa = a3s_kv_get(im->meta, "started_at");
	bool sa_ok = sa && sp_ev_parse_iso8601(sa, strlen(sa), NULL) == 0;
	addf(md, "started_at=%s\n", sa_ok ? sa : absent(ab_, "started_at"));
	static const char *const unknown2[] = {"seed", "workload_sha256", "concurrency", "faults"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(unknown2); i++)
		addf(md, "%s=%s\n", unknown2[i], absent(ab_, unknown2[i]));
	meta_thresholds(im, md);
	_cleanup_free_ char *srcpath = realpath(im->src, NULL);
	*csrc = clean(srcpath ? srcpath : im->src);
	addf(md, "imported_from=%s\nimport_source=%s\n", im->cluster ? "a3s.cluster" : "a3s.host", *csrc);
	/* every A3S key as it was (redacted: A3S dumps environment variables) */
	for (int part = 0; part < 2; part++) {
		const a3s_kv *kv = part ? im->sum : im->meta;
		for (size_t i = 0; (part == 0 || im->have_sum) && i < kv->n; i++) {
			_cleanup_free_ char *v = clean(kv->v[i].value);
			_cleanup_free_ char *line = sp_xasprintf("a3s.%s.%s=%s", part ? "summary" : "meta", kv->v[i].key, v);
			_cleanup_free_ char *red = sp_secret_redact(line, strlen(line), NULL);
			addf(md, "%s\n", red);
		}
	}
}

/* resource-samples.tsv; its periodic sample count and largest gap */
static void samples_tsv(const struct imp *im, struct buf *rs, size_t *nper, double *maxgap)
{
	const a3s_table *t = im->t;
	const double *ep = im->ep;
	int cts = im->cts, cph = im->cph;
	addf(rs, "ts\twall\tphase\towned_processes\towned_threads\towned_rss_bytes\towned_cpu_seconds\towned_fds\towned_mounts\t"
		 "owned_sockets\towned_cgroups\tdisk_bytes\tglobal_processes\tglobal_mounts\trunner_rss_bytes\trunner_fds");
	for (size_t k = 0; k < t->ncol; k++)
		if ((int)k != cts && (int)k != cph)
			addf(rs, "\textra.%s", t->hdr[k]);
	addf(rs, "\n");
	*nper = 0;
	*maxgap = 0;
	for (size_t r = 0; r < t->nrow; r++) {
		const char *ph = a3s_cell(t, r, cph);
		const char *phase = r == t->nrow - 1 && !strcmp(ph, "final")          ? "final"
				    : r == 0 && (im->cluster || !strcmp(ph, "start")) ? "start"
										      : "periodic";
		*nper += !strcmp(phase, "periodic");
		if (r && ep[r] - ep[r - 1] > *maxgap)
			*maxgap = ep[r] - ep[r - 1];
		addf(rs, "%.3f\t%s\t%s", ep[r] - ep[0], a3s_cell(t, r, cts), phase);
		for (int k = 0; k < 13; k++)
			addf(rs, "\t-");
		for (size_t k = 0; k < t->ncol; k++)
			if ((int)k != cts && (int)k != cph)
				addf(rs, "\t%s", a3s_cell(t, r, (int)k));
		addf(rs, "\n");
	}
	for (size_t k = 0; k < 13; k++) {
		static const char *const own[] = {"owned_processes", "owned_threads", "owned_rss_bytes", "owned_cpu_seconds",
						  "owned_fds", "owned_mounts", "owned_sockets", "owned_cgroups", "disk_bytes",
						  "global_processes", "global_mounts", "runner_rss_bytes", "runner_fds"};
		absent(im->ab, own[k]);
	}
}

/* summary.json's text (the caller frees it); metadata.txt's absent line */
static char *summary_json(const struct imp *im, const char *rid, const char *profile, const char *csrc, size_t nper,
			  double maxgap, struct buf *md)
{
	__attribute__((cleanup(json_freep))) json_t *sj = json_object();
	const a3s_kv *sum = im->sum;
	const double *ep = im->ep;
	long long x;
	json_object_set_new(sj, "schema", json_string(SP_SUMMARY_SCHEMA));
	json_object_set_new(sj, "run_id", json_string(rid));
	json_object_set_new(sj, "profile", json_string(profile));
	const char *dur = a3s_kv_get(im->meta, "soak_duration_secs");
	if (a3s_is_uint(dur, &x))
		json_object_set_new(sj, "requested_duration_s", json_integer(x));
	const char *mds = im->have_sum ? a3s_kv_get(sum, "duration_secs") : NULL;
	if (a3s_is_uint(mds, &x))
		json_object_set_new(sj, "measured_duration_s", json_integer(x));
	json_object_set_new(sj, "sample_count", json_integer((json_int_t)im->t->nrow));
	json_object_set_new(sj, "periodic_samples", json_integer((json_int_t)nper));
	json_object_set_new(sj, "span_s", json_real(ep[im->t->nrow - 1] - ep[0]));
	json_object_set_new(sj, "max_gap_s", json_real(maxgap));
	const char *ev = im->have_sum ? a3s_kv_get(sum, "evidence_dir") : NULL;
	_cleanup_free_ char *cev = clean(ev && *ev ? ev : csrc);
	json_object_set_new(sj, "evidence_path", json_string(cev));
	json_object_set_new(sj, "imported_from", json_string(im->cluster ? "a3s.cluster" : "a3s.host"));
	const char *res = im->have_sum ? a3s_kv_get(sum, "result") : NULL;
	_cleanup_free_ char *cres = clean(res ? res : "-");
	json_object_set_new(sj, "a3s_result", json_string(cres));
	static const char *const sum_absent[] = {"warmup_end_s", "operations", "unexpected_failures", "stop_condition", "cleanup"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(sum_absent); i++)
		json_array_append_new(im->ab->json, json_string(sum_absent[i]));
	if (!a3s_is_uint(dur, &x))
		json_array_append_new(im->ab->json, json_string("requested_duration_s"));
	if (!im->have_sum)
		json_array_append_new(im->ab->json, json_string("measured_duration_s"));
	json_object_set(sj, "absent", im->ab->json);
	addf(md, "absent=%s\n", im->ab->list.s);
	char *sjs = json_dumps(sj, JSON_INDENT(1) | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(12));
	struct buf sjl = {0};
	addf(&sjl, "%s\n", sjs);
	free(sjs);
	return sjl.s;
}

/* logs/: every other regular file of the A3S bundle */
static int logs_dir(const char *src, const char *out, sp_error *err)
{
	__attribute__((cleanup(names_free))) struct names nm = {0};
	DIR *d = opendir(src);
	if (!d) {
		sp_fail_errno(err, errno, "%s", src);
		return -1;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "metadata.txt") || !strcmp(de->d_name, "summary.txt") ||
		    !strcmp(de->d_name, "resource-samples.tsv"))
			continue;
		nm.v = sp_xrealloc(nm.v, (nm.n + 1) * sizeof *nm.v);
		nm.v[nm.n++] = sp_xstrdup(de->d_name);
	}
	closedir(d);
	qsort(nm.v, nm.n, sizeof *nm.v, cmp_str);
	for (size_t i = 0; i < nm.n; i++) {
		_cleanup_free_ char *p = sp_xasprintf("%s/%s", src, nm.v[i]);
		struct stat fs;
		if (lstat(p, &fs) < 0 || !S_ISREG(fs.st_mode))
			continue; /* a directory or a link is not A3S evidence */
		bool okname = true;
		for (const char *c = nm.v[i]; *c && okname; c++)
			okname = (unsigned char)*c > 0x20 && *c != '\\' && (unsigned char)*c < 0x7f;
		if (!okname)
			continue;
		size_t len = 0;
		int e = 0;
		_cleanup_free_ char *text = sp_ev_read_all(p, A3S_MAX_FILE, &len, &e);
		if (!text) {
			sp_usage(err, "%s: %s", p, sp_ev_strerror(e));
			return -1;
		}
		/* NUL bytes and invalid UTF-8 become '?': logs are text */
		for (size_t k = 0; k < len; k++)
			if (!text[k])
				text[k] = '?';
		size_t ll;
		_cleanup_free_ char *lg = as_log(text, len, &ll);
		_cleanup_free_ char *name = sp_xasprintf("logs/%s", nm.v[i]);
		if (put(out, name, lg, ll, err) < 0)
			return -1;
	}
	return 0;
}

/* write the bundle of the loaded A3S evidence into im->out */
static int emit(const struct imp *im, sp_error *err)
{
	const char *out = im->out;
	sp_error merr;
	__attribute__((cleanup(buf_free))) struct buf md = {0};
	__attribute__((cleanup(buf_free))) struct buf rs = {0};
	if (out_dir(out, err) < 0)
		return -1;
	_cleanup_free_ char *rid = NULL;
	_cleanup_free_ char *csrc = NULL;
	const char *profile;
	meta_txt(im, &md, &rid, &profile, &csrc);
	size_t nper;
	double maxgap;
	samples_tsv(im, &rs, &nper, &maxgap);
	_cleanup_free_ char *sjl = summary_json(im, rid, profile, csrc, nper, maxgap, &md);

	static const char hdr_ops[] = "ts\tscenario\tapi\toperation\tlatency_ms\tresult\tgeneration\terror_code\n",
			  hdr_lat[] = "ts\tscenario\toperation\tlatency_ms\twarmup\n",
			  hdr_caps[] = "scenario\tattempted\tsucceeded\texpected_faults\tunexpected_failures\tresult\n",
			  hdr_faults[] = "fault_id\ttarget\texpected\tstarted\tended\trecovery_ms\trto_ms\tresult\n";
	if (put(out, "metadata.txt", md.s, md.n, err) < 0 || put(out, "resource-samples.tsv", rs.s, rs.n, err) < 0 ||
	    put(out, "operations.tsv", hdr_ops, sizeof hdr_ops - 1, err) < 0 ||
	    put(out, "latency.tsv", hdr_lat, sizeof hdr_lat - 1, err) < 0 ||
	    put(out, "capability-results.tsv", hdr_caps, sizeof hdr_caps - 1, err) < 0 ||
	    put(out, "faults.tsv", hdr_faults, sizeof hdr_faults - 1, err) < 0 ||
	    put(out, "summary.json", sjl, strlen(sjl), err) < 0)
		return -1;
	if (logs_dir(im->src, out, err) < 0)
		return -1;

	/* ---- MANIFEST ---- */
	char *man = sp_ev_manifest_build(out, &merr);
	if (!man) {
		sp_fail_errno(err, 0, "%s: %s", out, merr.msg);
		return -1;
	}
	int rc = put(out, "MANIFEST", man, strlen(man), err);
	free(man);
	return rc;
}

int sp_a3s_import(const char *src, const char *out, enum sp_a3s_kind kind, sp_error *err)
{
	sp_error e;
	struct stat st;
	if (stat(src, &st) < 0 || !S_ISDIR(st.st_mode))
		return sp_usage(err, "%s: %s", src, errno ? strerror(errno) : "not a directory");
	a3s_kv meta = {0}, sum = {0};
	a3s_table t = {0};
	int rc = -1;
	struct absent ab = {.json = json_array()};
	double *ep = NULL;

	if (a3s_kv_load(&meta, src, "metadata.txt", &e) < 0) {
		sp_usage(err, "%s/%s", src, e.msg);
		goto out;
	}
	if (kind == SP_A3S_AUTO) {
		const char *rc_ = a3s_kv_get(&meta, "runtime_class");
		kind = rc_ && *rc_ ? SP_A3S_CLUSTER
		       : (a3s_kv_get(&meta, "selected_suites") || meta.suites_colon) ? SP_A3S_HOST
										    : SP_A3S_AUTO;
	}
	if (kind == SP_A3S_AUTO) {
		sp_usage(err, "%s/metadata.txt: neither runtime_class nor selected_suites: not an A3S host or cluster bundle (--kind)",
			 src);
		goto out;
	}
	bool cluster = kind == SP_A3S_CLUSTER;
	bool have_sum = a3s_kv_load(&sum, src, "summary.txt", &e) == 0;
	if (a3s_table_load(&t, src, "resource-samples.tsv", &e) < 0) {
		sp_usage(err, "%s/%s", src, e.msg);
		goto out;
	}
	int cts = a3s_table_col(&t, "timestamp"), cph = a3s_table_col(&t, "phase");
	if (cts < 0 || cph < 0 || !t.nrow) {
		sp_usage(err, "%s/resource-samples.tsv: %s", src,
			 cts < 0 ? "no timestamp column" : cph < 0 ? "no phase column" : "no sample rows");
		goto out;
	}
	ep = sp_xcalloc(t.nrow, sizeof *ep);
	for (size_t r = 0; r < t.nrow; r++) {
		const char *ts = a3s_cell(&t, r, cts);
		if (sp_ev_parse_iso8601(ts, strlen(ts), &ep[r]) < 0) {
			sp_usage(err, "%s/resource-samples.tsv:%u: timestamp '%.40s' is not an ISO 8601 UTC time", src, t.line[r], ts);
			goto out;
		}
		if (r && ep[r] < ep[r - 1]) {
			sp_usage(err, "%s/resource-samples.tsv:%u: timestamp %s goes back in time", src, t.line[r], ts);
			goto out;
		}
		for (size_t k = 0; k < t.ncol; k++) {
			long long x;
			if ((int)k == cts || (int)k == cph)
				continue;
			if (!a3s_is_uint(a3s_cell(&t, r, (int)k), &x)) {
				sp_usage(err, "%s/resource-samples.tsv:%u: %s '%.40s' is not a non-negative integer", src, t.line[r],
					 t.hdr[k], a3s_cell(&t, r, (int)k));
				goto out;
			}
		}
	}
	for (size_t k = 0; k < t.ncol; k++) {
		const char *h = t.hdr[k];
		bool okname = *h;
		for (const char *c = h; *c && okname; c++)
			okname = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
				 *c == '-' || *c == '.';
		if (!okname) {
			sp_usage(err, "%s/resource-samples.tsv:1: column '%.40s' is not a counter name", src, h);
			goto out;
		}
	}

	struct imp im = {.src = src, .out = out, .cluster = cluster, .meta = &meta, .sum = &sum, .have_sum = have_sum, .t = &t, .cts = cts, .cph = cph, .ep = ep, .ab = &ab};
	rc = emit(&im, err);
out:
	free(ep);
	free(ab.list.s);
	json_decref(ab.json);
	a3s_kv_free(&meta);
	a3s_kv_free(&sum);
	a3s_table_free(&t);
	return rc;
}
