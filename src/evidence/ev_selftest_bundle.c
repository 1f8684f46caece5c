/* sandprobe verify --self-test's synthetic bundle: a correct bundle built
 * from its own tables (its summary computed from them, independently of the
 * gates), and written with the file operations a case asks for. */
#include "evidence/ev_selftest.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "core/util.h"
#include "evidence/evidence.h"

/* ---- a small table of strings ------------------------------------------ */

static char *cell_dup(const char *s, size_t n)
{
	return sp_xstrndup(s, n);
}

static void tab_free(tab *t)
{
	for (size_t i = 0; i < t->ncol * t->nrow; i++)
		free(t->c[i]);
	free(t->c);
	memset(t, 0, sizeof *t);
}

/* append a row given as one tab-separated formatted string */
void st_tab_row(tab *t, const char *fmt, ...)
{
	va_list ap;
	char *line = NULL;
	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		abort();
	va_end(ap);
	size_t n = 1;
	for (char *p = line; *p; p++)
		n += *p == '\t';
	if (!t->nrow)
		t->ncol = n;
	if (n != t->ncol)
		abort();
	t->c = sp_xrealloc(t->c, (t->nrow + 1) * t->ncol * sizeof *t->c);
	char *s = line;
	for (size_t k = 0; k < n; k++) {
		char *e = strchr(s, '\t');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		t->c[t->nrow * t->ncol + k] = cell_dup(s, l);
		s += l + 1;
	}
	t->nrow++;
	free(line);
}

static int tab_col(const tab *t, const char *name)
{
	for (size_t k = 0; k < t->ncol; k++)
		if (!strcmp(t->c[k], name))
			return (int)k;
	return -1;
}

const char *st_tab_get(const tab *t, size_t row, const char *col)
{
	int k = tab_col(t, col);
	return k < 0 || row >= t->nrow ? "" : t->c[row * t->ncol + (size_t)k];
}

void st_tab_set(tab *t, size_t row, const char *col, const char *fmt, ...)
{
	int k = tab_col(t, col);
	if (k < 0 || row >= t->nrow)
		abort();
	va_list ap;
	char *v = NULL;
	va_start(ap, fmt);
	if (vasprintf(&v, fmt, ap) < 0)
		abort();
	va_end(ap);
	free(t->c[row * t->ncol + (size_t)k]);
	t->c[row * t->ncol + (size_t)k] = v;
}

void st_tab_del_col(tab *t, const char *col)
{
	int k = tab_col(t, col);
	if (k < 0)
		abort();
	size_t o = 0;
	for (size_t r = 0; r < t->nrow; r++)
		for (size_t c = 0; c < t->ncol; c++) {
			if (c == (size_t)k)
				free(t->c[r * t->ncol + c]);
			else
				t->c[o++] = t->c[r * t->ncol + c];
		}
	t->ncol--;
}

void st_tab_dup_col(tab *t, const char *col)
{
	int k = tab_col(t, col);
	if (k < 0)
		abort();
	char **n = sp_xcalloc(t->nrow * (t->ncol + 1), sizeof *n);
	for (size_t r = 0; r < t->nrow; r++) {
		for (size_t c = 0; c < t->ncol; c++)
			n[r * (t->ncol + 1) + c] = t->c[r * t->ncol + c];
		n[r * (t->ncol + 1) + t->ncol] = sp_xstrdup(t->c[r * t->ncol + (size_t)k]);
	}
	free(t->c);
	t->c = n;
	t->ncol++;
}

void st_tab_del_row(tab *t, size_t row)
{
	for (size_t c = 0; c < t->ncol; c++)
		free(t->c[row * t->ncol + c]);
	memmove(&t->c[row * t->ncol], &t->c[(row + 1) * t->ncol], (t->nrow - row - 1) * t->ncol * sizeof *t->c);
	t->nrow--;
}

void st_tab_dup_row(tab *t, size_t row)
{
	t->c = sp_xrealloc(t->c, (t->nrow + 1) * t->ncol * sizeof *t->c);
	memmove(&t->c[(row + 1) * t->ncol], &t->c[row * t->ncol], (t->nrow - row) * t->ncol * sizeof *t->c);
	for (size_t c = 0; c < t->ncol; c++)
		t->c[(row + 1) * t->ncol + c] = sp_xstrdup(t->c[row * t->ncol + c]);
	t->nrow++;
}

static char *tab_text(const tab *t)
{
	size_t len = 0;
	for (size_t i = 0; i < t->nrow * t->ncol; i++)
		len += strlen(t->c[i]) + 1;
	char *s = sp_xmalloc(len + 1), *p = s;
	for (size_t r = 0; r < t->nrow; r++)
		for (size_t c = 0; c < t->ncol; c++) {
			size_t l = strlen(t->c[r * t->ncol + c]);
			memcpy(p, t->c[r * t->ncol + c], l);
			p += l;
			*p++ = c + 1 == t->ncol ? '\n' : '\t';
		}
	*p = '\0';
	return s;
}

/* ---- the synthetic bundle ---------------------------------------------- */

void st_meta_set(bundle *b, const char *key, const char *fmt, ...)
{
	va_list ap;
	char *v = NULL;
	va_start(ap, fmt);
	if (vasprintf(&v, fmt, ap) < 0)
		abort();
	va_end(ap);
	for (size_t r = 0; r < b->meta.nrow; r++)
		if (!strcmp(b->meta.c[r * 2], key)) {
			free(b->meta.c[r * 2 + 1]);
			b->meta.c[r * 2 + 1] = v;
			return;
		}
	st_tab_row(&b->meta, "%s\t%s", key, v);
	free(v);
}

static const char *meta_get(const bundle *b, const char *key)
{
	for (size_t r = 0; r < b->meta.nrow; r++)
		if (!strcmp(b->meta.c[r * 2], key))
			return b->meta.c[r * 2 + 1];
	return "";
}

void st_meta_del(bundle *b, const char *key)
{
	for (size_t r = 0; r < b->meta.nrow; r++)
		if (!strcmp(b->meta.c[r * 2], key)) {
			st_tab_del_row(&b->meta, r);
			return;
		}
	abort();
}


time_t st_base_epoch;

void st_wall_at(char *buf, size_t sz, double epoch)
{
	time_t t = (time_t)floor(epoch);
	double frac = epoch - (double)t;
	struct tm tm;
	gmtime_r(&t, &tm);
	size_t n = strftime(buf, sz, "%Y-%m-%dT%H:%M:%S", &tm);
	if (frac > 1e-7)
		snprintf(buf + n, sz - n, ".%03dZ", (int)lround(frac * 1000));
	else
		snprintf(buf + n, sz - n, "Z");
}

void st_wall(char *buf, size_t sz, double ts)
{
	st_wall_at(buf, sz, (double)st_base_epoch + ts);
}

static void add_sample(bundle *b, double ts, const char *phase)
{
	char w[32];
	st_wall(w, sizeof w, ts);
	st_tab_row(&b->samples, "%.3f\t%s\t%s\t3\t10\t104857600\t1.5\t20\t5\t2\t1\t5000000\t200\t40\t10485760\t8\t1", ts, w,
		   phase);
}

void st_bundle_default(bundle *b)
{
	memset(b, 0, sizeof *b);
	static const char *const kv[][2] = {
		{"schema", SP_EVIDENCE_SCHEMA},
		{"run_id", "selftest-0001"},
		{"profile", "custom"},
		{"scenarios", "RUN-01,RUN-02"},
		{"tool_version", "0.1.0"},
		{"tool_commit", "0000000000000000000000000000000000000000"},
		{"dirty", "0"},
		{"host_kernel", "6.1.0"},
		{"host_arch", "x86_64"},
		{"host_cpus", "2"},
		{"host_memory_bytes", "4294967296"},
		{"runtime", "selftest"},
		{"runtime_version", "selftest 1.0"},
		{"rootfs_digest", "none"},
		{"seed", "42"},
		{"workload_sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"concurrency", "2"},
		{"faults", "F01"},
		{"duration_s", "600"},
		{"sample_interval_s", "60"},
		{"warmup_s", "60"},
		{"threshold.min_span_s", "600"},
		{"threshold.max_interval_s", "60"},
		{"threshold.min_periodic_samples", "9"},
		{"threshold.max_gap_s", "60"},
		{"threshold.min_success_ratio", "0.99"},
		{"threshold.rss_slope_mib_per_day", "1440"},
		{"threshold.fd_growth_max", "8"},
		{"threshold.p95_regression_pct", "30"},
		{"threshold.disk_budget_bytes", "1000000"},
		{"workload_name", "selftest"},
	};
	for (size_t i = 0; i < SP_ARRAY_SIZE(kv); i++)
		st_tab_row(&b->meta, "%s\t%s", kv[i][0], kv[i][1]);
	char sa[40];
	st_wall(sa, sizeof sa, 0);
	st_meta_set(b, "started_at", "%s", sa);

	st_tab_row(&b->ops, "ts\tscenario\tapi\toperation\tlatency_ms\tresult\tgeneration\terror_code");
	st_tab_row(&b->lat, "ts\tscenario\toperation\tlatency_ms\twarmup");
	for (int i = 0; i < NOPS; i++) {
		double ts = 1.0 + i * 2.9;
		const char *sc = i % 2 ? "RUN-02" : "RUN-01";
		st_tab_row(&b->ops, "%.3f\t%s\tcli\tcreate\t%.3f\tok\t%d\t-", ts, sc, LAT_DEFAULT, i / 10);
	}
	/* two operations that fail on purpose inside fault F01's windows */
	st_tab_row(&b->ops, "305.000\tRUN-01\tcli\tcreate\t1.000\texpected_fault\t30\tECONNREFUSED");
	st_tab_row(&b->ops, "306.000\tRUN-02\tcli\tcreate\t1.000\texpected_fault\t30\tECONNREFUSED");

	st_tab_row(&b->samples, "ts\twall\tphase\towned_processes\towned_threads\towned_rss_bytes\towned_cpu_seconds\t"
				"owned_fds\towned_mounts\towned_sockets\towned_cgroups\tdisk_bytes\tglobal_processes\t"
				"global_mounts\trunner_rss_bytes\trunner_fds\textra.boxes");
	add_sample(b, 0, "start");
	for (int k = 1; k <= 9; k++)
		add_sample(b, 60.0 * k, "periodic");
	add_sample(b, 600, "final");

	st_tab_row(&b->caps, "scenario\tattempted\tsucceeded\texpected_faults\tunexpected_failures\tresult");
	st_tab_row(&b->faults, "fault_id\ttarget\texpected\tstarted\tended\trecovery_ms\trto_ms\tresult");
	/* one window per expected_fault operation, each as long as its recovery */
	st_tab_row(&b->faults, "F01\tsp-box-1\trestart\t300.000\t310.000\t10000\t12000\tpass");
	st_tab_row(&b->faults, "F01\tsp-box-2\trestart\t305.500\t306.500\t1000\t12000\tpass");
	b->inv_start = sp_xstrdup("{\"schema\":\"sandprobe.inventory.v1\",\"resources\":[{\"type\":\"container\",\"id\":\"sp-base\"}]}\n");
	b->inv_final = sp_xstrdup(b->inv_start);
	b->log = sp_xstrdup("step 1: ok\n");
}

void st_bundle_free(bundle *b)
{
	tab_free(&b->meta);
	tab_free(&b->ops);
	tab_free(&b->lat);
	tab_free(&b->samples);
	tab_free(&b->caps);
	tab_free(&b->faults);
	free(b->inv_start);
	free(b->inv_final);
	free(b->log);
}

double st_dval(const char *s)
{
	return *s ? strtod(s, NULL) : 0;
}

/* capability rows and summary, from the generator's own tables */
void st_recompute_caps(bundle *b)
{
	if (b->no_caps_recompute)
		return;
	while (b->caps.nrow > 1)
		st_tab_del_row(&b->caps, 1);
	sp_strv sc = {0};
	sp_strv_split(&sc, meta_get(b, "scenarios"), ",");
	for (size_t i = 0; i < sc.n; i++) {
		long long n = 0, okn = 0, ef = 0, fail = 0;
		for (size_t r = 1; r < b->ops.nrow; r++) {
			if (strcmp(st_tab_get(&b->ops, r, "scenario"), sc.v[i]))
				continue;
			n++;
			const char *res = st_tab_get(&b->ops, r, "result");
			okn += !strcmp(res, "ok");
			ef += !strcmp(res, "expected_fault");
			fail += !strcmp(res, "fail");
		}
		if (n)
			st_tab_row(&b->caps, "%s\t%lld\t%lld\t%lld\t%lld\t%s", sc.v[i], n, okn, ef, fail, fail ? "fail" : "pass");
	}
	sp_strv_free(&sc);
}

/* warm-up end: warmup_s and the 2nd operation of every scenario */
static double gen_warmup_end(const bundle *b)
{
	double we = st_dval(meta_get(b, "warmup_s"));
	sp_strv sc = {0};
	sp_strv_split(&sc, meta_get(b, "scenarios"), ",");
	for (size_t i = 0; i < sc.n; i++) {
		double t1 = INFINITY, t2 = INFINITY;
		for (size_t r = 1; r < b->ops.nrow; r++) {
			if (strcmp(st_tab_get(&b->ops, r, "scenario"), sc.v[i]))
				continue;
			double ts = st_dval(st_tab_get(&b->ops, r, "ts"));
			if (ts < t1) {
				t2 = t1;
				t1 = ts;
			} else if (ts < t2) {
				t2 = ts;
			}
		}
		if (t2 > we)
			we = t2;
	}
	sp_strv_free(&sc);
	return isinf(we) ? 1e9 : we;
}

/* operations in time order (stable), then latency.tsv from the ok ones */
void st_sort_ops(bundle *b)
{
	if (b->no_sort)
		return;
	size_t nc = b->ops.ncol;
	int k = tab_col(&b->ops, "ts");
	char **tmp = sp_xmalloc(nc * sizeof *tmp);
	for (size_t r = 2; r < b->ops.nrow; r++) {
		double x = st_dval(b->ops.c[r * nc + (size_t)k]);
		size_t j = r;
		while (j > 1 && st_dval(b->ops.c[(j - 1) * nc + (size_t)k]) > x)
			j--;
		if (j == r)
			continue;
		memcpy(tmp, &b->ops.c[r * nc], nc * sizeof *tmp);
		memmove(&b->ops.c[(j + 1) * nc], &b->ops.c[j * nc], (r - j) * nc * sizeof *tmp);
		memcpy(&b->ops.c[j * nc], tmp, nc * sizeof *tmp);
	}
	free(tmp);
}

void st_lat_rebuild(bundle *b)
{
	st_sort_ops(b);
	while (b->lat.nrow > 1)
		st_tab_del_row(&b->lat, 1);
	double we = gen_warmup_end(b);
	for (size_t r = 1; r < b->ops.nrow; r++)
		if (!strcmp(st_tab_get(&b->ops, r, "result"), "ok")) {
			double ts = st_dval(st_tab_get(&b->ops, r, "ts"));
			st_tab_row(&b->lat, "%s\t%s\t%s\t%s\t%d", st_tab_get(&b->ops, r, "ts"), st_tab_get(&b->ops, r, "scenario"),
				   st_tab_get(&b->ops, r, "operation"), st_tab_get(&b->ops, r, "latency_ms"), ts < we ? 1 : 0);
		}
}

static json_t *make_summary(const bundle *b)
{
	long long total = 0, okn = 0, fail = 0, ef = 0;
	for (size_t r = 1; r < b->ops.nrow; r++) {
		const char *res = st_tab_get(&b->ops, r, "result");
		total++;
		okn += !strcmp(res, "ok");
		fail += !strcmp(res, "fail");
		ef += !strcmp(res, "expected_fault");
	}
	double we = gen_warmup_end(b);
	long long ns = (long long)b->samples.nrow - 1, np = 0;
	double gap = 0;
	for (size_t r = 1; r < b->samples.nrow; r++) {
		np += !strcmp(st_tab_get(&b->samples, r, "phase"), "periodic");
		if (r > 1) {
			double g = st_dval(st_tab_get(&b->samples, r, "ts")) - st_dval(st_tab_get(&b->samples, r - 1, "ts"));
			if (g > gap)
				gap = g;
		}
	}
	double span = ns > 0 ? st_dval(st_tab_get(&b->samples, (size_t)ns, "ts")) - st_dval(st_tab_get(&b->samples, 1, "ts")) : 0;
	json_t *s = json_pack("{s:s,s:s,s:s,s:f,s:f,s:I,s:I,s:f,s:f,s:f,s:{s:I,s:I,s:I,s:I},s:I,s:s,s:s,s:s}", "schema",
			      SP_SUMMARY_SCHEMA, "run_id", meta_get(b, "run_id"), "profile", meta_get(b, "profile"),
			      "requested_duration_s", st_dval(meta_get(b, "duration_s")), "measured_duration_s",
			      ns > 0 ? st_dval(st_tab_get(&b->samples, (size_t)ns, "ts")) : 0.0,
			      "sample_count", (json_int_t)ns, "periodic_samples", (json_int_t)np, "span_s", span,
			      "max_gap_s", gap, "warmup_end_s", we, "operations", "total", (json_int_t)total, "ok",
			      (json_int_t)okn, "fail", (json_int_t)fail, "expected_fault", (json_int_t)ef,
			      "unexpected_failures", (json_int_t)fail, "stop_condition", "duration", "cleanup", "ok",
			      "evidence_path", "/tmp/selftest");
	return s;
}

/* ---- writing ----------------------------------------------------------- */
static int write_text(const char *dir, const char *name, const char *text, size_t len)
{
	_cleanup_free_ char *p = sp_xasprintf("%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	int r = sp_write_all(fd, text, len);
	close(fd);
	return r;
}

static void file_op(const char *dir, enum fop op, const char *path)
{
	_cleanup_free_ char *p = sp_xasprintf("%s/%s", dir, path);
	struct stat st;
	switch (op) {
	case FO_NONE:
		break;
	case FO_DELETE:
		if (unlink(p) < 0)
			sp_rm_rf(p);
		break;
	case FO_EMPTY:
		if (truncate(p, 0) < 0)
			abort();
		break;
	case FO_TRUNCATE:
		/* cut the file in its last line (no final newline any more) */
		if (stat(p, &st) < 0 || truncate(p, st.st_size - 3) < 0)
			abort();
		break;
	case FO_APPEND: {
		int fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd < 0 || write(fd, "x", 1) != 1)
			abort();
		close(fd);
		break;
	}
	case FO_ADD:
		if (write_text(dir, path, "extra\n", 6) < 0)
			abort();
		break;
	case FO_SYMLINK:
		if (symlink("/etc/hostname", p) < 0)
			abort();
		break;
	case FO_MKDIR_RM:
		sp_rm_rf(p);
		break;
	case FO_FIFO:
		if (unlink(p) < 0 || mkfifo(p, 0644) < 0)
			abort();
		break;
	}
}

EVP_PKEY *st_key_a, *st_key_b;

int st_write_bundle(bundle *b, const char *dir)
{
	if (mkdir(dir, 0755) < 0)
		return -1;
	_cleanup_free_ char *logs = sp_xasprintf("%s/logs", dir);
	if (mkdir(logs, 0755) < 0)
		return -1;
	st_recompute_caps(b);
	if (b->lat_manual)
		st_sort_ops(b);
	else
		st_lat_rebuild(b);
	json_t *s = make_summary(b);
	if (b->summary_edit)
		b->summary_edit(s);
	_cleanup_free_ char *st = json_dumps(s, JSON_COMPACT);
	json_decref(s);
	/* metadata as key=value */
	size_t mlen = 0;
	for (size_t r = 0; r < b->meta.nrow; r++)
		mlen += strlen(b->meta.c[r * 2]) + strlen(b->meta.c[r * 2 + 1]) + 2;
	_cleanup_free_ char *mt = sp_xmalloc(mlen + 1);
	size_t o = 0;
	for (size_t r = 0; r < b->meta.nrow; r++)
		o += (size_t)snprintf(mt + o, mlen + 1 - o, b->meta.c[r * 2][0] == '!' ? "%s%s\n" : "%s=%s\n",
				      b->meta.c[r * 2] + (b->meta.c[r * 2][0] == '!'), b->meta.c[r * 2 + 1]);
	const struct {
		const char *name;
		char *text;
	} files[] = {
		{"metadata.txt", sp_xstrdup(mt)},
		{"operations.tsv", tab_text(&b->ops)},
		{"latency.tsv", tab_text(&b->lat)},
		{"resource-samples.tsv", tab_text(&b->samples)},
		{"capability-results.tsv", tab_text(&b->caps)},
		{"faults.tsv", tab_text(&b->faults)},
		{"inventory-start.json", sp_xstrdup(b->inv_start)},
		{"inventory-final.json", sp_xstrdup(b->inv_final)},
		{"summary.json", sp_xasprintf("%s\n", st)},
	};
	int rc = 0;
	for (size_t i = 0; i < SP_ARRAY_SIZE(files); i++) {
		if (write_text(dir, files[i].name, files[i].text, strlen(files[i].text)) < 0)
			rc = -1;
		free(files[i].text);
	}
	if (b->log_size) {
		char *big = sp_xmalloc(b->log_size);
		memset(big, 'a', b->log_size);
		big[b->log_size - 1] = '\n';
		if (b->log_elision) {
			/* head, the writer's elision line, tail */
			static const char el[] = "\n[... 123456 bytes elided ...]\n";
			memcpy(big + 32704, el, sizeof el - 1);
		}
		rc |= write_text(dir, "logs/step-001.log", big, b->log_size);
		free(big);
	} else {
		rc |= write_text(dir, "logs/step-001.log", b->log, strlen(b->log));
	}
	if (rc < 0)
		return -1;
	if (b->pre)
		file_op(dir, b->pre, b->pre_path);
	sp_error merr;
	char *man = sp_ev_manifest_build(dir, &merr);
	if (!man)
		man = sp_xstrdup("");
	if (b->manifest_edit)
		b->manifest_edit(&man);
	rc = write_text(dir, "MANIFEST", man, strlen(man));
	if (b->sign) {
		EVP_MD_CTX *ctx = EVP_MD_CTX_new();
		unsigned char sig[64];
		size_t sl = sizeof sig;
		EVP_PKEY *k = b->wrong_key ? st_key_b : st_key_a;
		if (!ctx || EVP_DigestSignInit(ctx, NULL, NULL, NULL, k) != 1 ||
		    EVP_DigestSign(ctx, sig, &sl, (unsigned char *)man, strlen(man)) != 1)
			abort();
		EVP_MD_CTX_free(ctx);
		if (b->tamper_sig)
			sig[10] ^= 1;
		char b64[100];
		int n = EVP_EncodeBlock((unsigned char *)b64, sig, 64);
		b64[n++] = '\n';
		rc |= write_text(dir, "MANIFEST.sig", b64, (size_t)n);
	}
	free(man);
	if (b->post)
		file_op(dir, b->post, b->post_path);
	if (b->dir_as) {
		_cleanup_free_ char *d = sp_xasprintf("%s/%s", dir, b->dir_as);
		_cleanup_free_ char *f = sp_xasprintf("%s/hidden.txt", b->dir_as);
		if (mkdir(d, 0755) < 0 || write_text(dir, f, "unlisted\n", 9) < 0)
			rc = -1;
	}
	return rc;
}
