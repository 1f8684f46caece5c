/* The recorder: the evidence written as the run goes. The four TSV streams
 * are append-only files written by whole rows: a row that could not be
 * written (a full disk) is truncated away and kept in memory until it can
 * be, so a disk that fills up and frees again never leaves a torn row.
 * Whole files (metadata, inventories, summary) go through sp_bundle_write
 * (NAME.tmp, fsync, rename). The Prometheus metrics file likewise. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <jansson.h>

#include "soak/run.h"
#include "core/fsutil.h"
#include "core/version.h"
#include "evidence/evidence.h"

/* complete rows kept in memory while the bundle cannot take them; beyond
 * this the run stops (its evidence could not be complete) */
#define SP_ROWS_BACKLOG_MAX (32u << 20)

/* ---- rows ---- */
static void rows_addv(struct rowfile *rf, const char *fmt, va_list ap)
{
	for (;;) {
		va_list aq;
		va_copy(aq, ap);
		size_t room = rf->cap - rf->len;
		int n = vsnprintf(rf->buf ? rf->buf + rf->len : NULL, rf->buf ? room : 0, fmt, aq);
		va_end(aq);
		if (n < 0)
			return;
		if ((size_t)n < room && rf->buf) {
			rf->len += (size_t)n;
			return;
		}
		rf->cap = (rf->len + (size_t)n + 1) * 2;
		if (rf->cap < 4096)
			rf->cap = 4096;
		rf->buf = sp_xrealloc(rf->buf, rf->cap);
	}
}

static void rows_add(struct rowfile *rf, const char *fmt, ...) SP_PRINTF(2, 3);
static void rows_add(struct rowfile *rf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	rows_addv(rf, fmt, ap);
	va_end(ap);
}

/* Write the pending rows; on a failure the partial write is cut back to the
 * last complete row and the rows stay pending. 0 or -1 (rf->err set). */
int sp_rows_flush(struct rowfile *rf)
{
	if (rf->fd < 0 || rf->len == 0)
		return rf->fd < 0 ? -1 : 0;
	size_t done = 0;
	while (done < rf->len) {
		ssize_t w = pwrite(rf->fd, rf->buf + done, rf->len - done, rf->good + (off_t)done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rf->err = w < 0 ? errno : ENOSPC;
			if (ftruncate(rf->fd, rf->good) < 0) {
				/* the next successful write overwrites the partial row at rf->good */
			}
			return -1;
		}
		done += (size_t)w;
	}
	rf->good += (off_t)rf->len;
	rf->len = 0;
	rf->err = 0;
	if (rf->cap > (1u << 20)) { /* a backlog drained: give the memory back */
		free(rf->buf);
		rf->buf = NULL;
		rf->cap = 0;
	}
	return 0;
}

static int rows_open(struct run *r, struct rowfile *rf, const char *name, const char *header, sp_error *err)
{
	rf->name = name;
	rf->fd = openat(r->rec.b.dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (rf->fd < 0)
		return sp_fail_errno(err, errno, "%s/%s", r->rec.b.dir, name);
	rows_add(rf, "%s\n", header);
	if (sp_rows_flush(rf) < 0)
		return sp_fail_errno(err, rf->err, "%s/%s", r->rec.b.dir, name);
	return 0;
}

int sp_soak_open_streams(struct run *r, sp_error *err)
{
	char hdr[2048];
	size_t n = (size_t)snprintf(hdr, sizeof hdr,
				    "ts\twall\tphase\towned_processes\towned_threads\towned_rss_bytes\towned_cpu_seconds\towned_fds\t"
				    "owned_mounts\towned_sockets\towned_cgroups\tdisk_bytes\tglobal_processes\tglobal_mounts\t"
				    "runner_rss_bytes\trunner_fds");
	for (size_t i = 0; i < r->w.ncounters; i++)
		n += (size_t)snprintf(hdr + n, sizeof hdr - n, "\textra.%s", r->w.counters[i].name);
	r->rec.ops.fd = r->rec.lat.fd = r->rec.samples.fd = r->rec.faults.fd = -1;
	r->rec.streams_open = true;
	if (rows_open(r, &r->rec.ops, "operations.tsv", "ts\tscenario\tapi\toperation\tlatency_ms\tresult\tgeneration\terror_code",
		      err) < 0 ||
	    rows_open(r, &r->rec.lat, "latency.tsv", "ts\tscenario\toperation\tlatency_ms\twarmup", err) < 0 ||
	    rows_open(r, &r->rec.samples, "resource-samples.tsv", hdr, err) < 0 ||
	    rows_open(r, &r->rec.faults, "faults.tsv", "fault_id\ttarget\texpected\tstarted\tended\trecovery_ms\trto_ms\tresult",
		      err) < 0)
		return -1;
	return 0;
}

void sp_soak_close_streams(struct recorder_state *rec)
{
	struct rowfile *all[] = {&rec->ops, &rec->lat, &rec->samples, &rec->faults};
	for (size_t i = 0; i < SP_ARRAY_SIZE(all); i++) {
		if (all[i]->fd >= 0)
			close(all[i]->fd);
		all[i]->fd = -1;
		free(all[i]->buf);
		all[i]->buf = NULL;
		all[i]->len = all[i]->cap = 0;
	}
	rec->streams_open = false;
}

/* rows_mu held */
void sp_soak_flush_rows(struct recorder_state *rec)
{
	if (!rec->streams_open)
		return;
	struct rowfile *all[] = {&rec->ops, &rec->lat, &rec->samples, &rec->faults};
	for (size_t i = 0; i < SP_ARRAY_SIZE(all); i++) {
		if (sp_rows_flush(all[i]) < 0 && all[i]->len > SP_ROWS_BACKLOG_MAX)
			atomic_store(&rec->rows_fatal, 1);
	}
}

/* Record a finished operation: operations.tsv, latency.tsv, counters, warm-up. */
void sp_soak_record_op(struct run *r, struct scen_state *st, const char *op, enum op_result res, uint64_t start_ns,
		       uint64_t end_ns, unsigned long long gen, const char *code)
{
	static const char *const names[] = {"ok", "fail", "expected_fault", "skipped"};
	double lat_ms = (double)(end_ns - start_ns) / 1e6;
	char ecode[65]; /* at most 64 characters, no spaces */
	snprintf(ecode, sizeof ecode, "%s", code && code[0] ? code : "-");
	for (char *c = ecode; *c; c++)
		if (*c == ' ' || (unsigned char)*c < 0x21)
			*c = '_';
	pthread_mutex_lock(&r->rec.rows_mu);
	double ts = sp_soak_ts_now(r);
	rows_add(&r->rec.ops, "%.3f\t%s\t%s\t%s\t%.3f\t%s\t%llu\t%s\n", ts, st->sc->id, st->sc->api, op, lat_ms, names[res], gen,
		 res == OP_OK ? "-" : ecode);
	st->attempted++;
	st->finished++;
	r->rec.n_ops++;
	if (res == OP_OK) {
		st->ok++;
		r->rec.n_ok++;
	} else if (res == OP_FAIL) {
		st->fail++;
		r->rec.n_fail++;
	} else {
		st->expected_fault++;
		r->rec.n_fault++;
	}
	if (st->finished == 2) {
		r->rec.nready++;
		if (r->rec.nready == r->w.nscen && r->rec.warmup_end < 0)
			r->rec.warmup_end = ts > (double)r->warmup_s ? ts : (double)r->warmup_s;
	}
	if (res == OP_OK) {
		int warm = r->rec.warmup_end < 0 || ts < r->rec.warmup_end;
		rows_add(&r->rec.lat, "%.3f\t%s\t%s\t%.3f\t%d\n", ts, st->sc->id, op, lat_ms, warm);
	}
	if (r->rec.ops.len > SP_ROWS_BACKLOG_MAX || r->rec.lat.len > SP_ROWS_BACKLOG_MAX)
		sp_soak_flush_rows(&r->rec);
	pthread_mutex_unlock(&r->rec.rows_mu);
}

void sp_soak_record_fault(struct recorder_state *rec, const sp_soak_wfault *f, const char *target, double started,
			  double ended, long long recovery_ms, bool pass)
{
	char t[256], e[256];
	snprintf(t, sizeof t, "%s", target);
	snprintf(e, sizeof e, "%s", f->expected);
	sp_tsv_clean(t);
	sp_tsv_clean(e);
	pthread_mutex_lock(&rec->rows_mu);
	rows_add(&rec->faults, "%s\t%s\t%s\t%.3f\t%.3f\t%lld\t%d\t%s\n", f->id, t, e, started, ended, recovery_ms, f->rto_ms,
		 pass ? "pass" : "fail");
	sp_soak_flush_rows(rec);
	pthread_mutex_unlock(&rec->rows_mu);
}

/* write the sample row (s->ts set here, strictly increasing) and the totals it closes */
void sp_soak_record_sample(struct run *r, sp_soak_sample *s)
{
	pthread_mutex_lock(&r->rec.rows_mu);
	s->ts = sp_soak_ts_now(r);
	/* keep timestamps strictly increasing even at millisecond resolution */
	if (r->rec.sample_count && s->ts < r->rec.last_ts + 0.001)
		s->ts = round((r->rec.last_ts + 0.001) * 1e3) / 1e3;
	rows_add(&r->rec.samples, "%.3f\t%s\t%s\t%lld\t%lld\t%lld\t%.3f\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld",
		 s->ts, s->wall, s->phase, s->owned_processes, s->owned_threads, s->owned_rss_bytes, s->owned_cpu_seconds,
		 s->owned_fds, s->owned_mounts, s->owned_sockets, s->owned_cgroups, s->disk_bytes, s->global_processes,
		 s->global_mounts, s->runner_rss_bytes, s->runner_fds);
	for (size_t i = 0; i < s->nextra; i++)
		rows_add(&r->rec.samples, "\t%lld", s->extra[i]);
	rows_add(&r->rec.samples, "\n");
	sp_soak_flush_rows(&r->rec);
	if (r->rec.sample_count == 0) {
		r->rec.first_ts = s->ts;
	} else {
		double gap = s->ts - r->rec.last_ts;
		if (gap > r->rec.max_gap)
			r->rec.max_gap = gap;
	}
	r->rec.last_ts = s->ts;
	r->rec.sample_count++;
	if (!strcmp(s->phase, "periodic"))
		r->rec.periodic_count++;
	r->rec.last = *s;
	pthread_mutex_unlock(&r->rec.rows_mu);
}

/* ---- metrics (Prometheus text format, node_exporter textfile collector) ---- */
void sp_soak_write_metrics(struct run *r, const sp_soak_sample *s)
{
	const char *path = r->o->metrics_file;
	if (!path)
		return;
	pthread_mutex_lock(&r->rec.rows_mu);
	long long ops = r->rec.n_ops, fail = r->rec.n_fail, fault = r->rec.n_fault, samples = r->rec.sample_count;
	pthread_mutex_unlock(&r->rec.rows_mu);
	const struct {
		const char *name, *help, *type;
		long long v;
	} m[] = {
		{"owned_processes", "processes owned by the run", "gauge", s->owned_processes},
		{"owned_threads", "threads of owned processes", "gauge", s->owned_threads},
		{"owned_rss_bytes", "resident memory of owned processes", "gauge", s->owned_rss_bytes},
		{"owned_fds", "open file descriptors of owned processes", "gauge", s->owned_fds},
		{"owned_mounts", "mounts under the state root", "gauge", s->owned_mounts},
		{"owned_sockets", "sockets held by owned processes", "gauge", s->owned_sockets},
		{"owned_cgroups", "cgroups carrying the run prefix", "gauge", s->owned_cgroups},
		{"disk_bytes", "disk bytes of the state root", "gauge", s->disk_bytes},
		{"global_processes", "processes on the host", "gauge", s->global_processes},
		{"global_mounts", "mounts in the runner's namespace", "gauge", s->global_mounts},
		{"runner_rss_bytes", "resident memory of the runner", "gauge", s->runner_rss_bytes},
		{"runner_fds", "open file descriptors of the runner", "gauge", s->runner_fds},
		{"operations_total", "finished operations", "counter", ops},
		{"operations_failed_total", "unexpected operation failures", "counter", fail},
		{"operations_expected_fault_total", "operations ended by a planned fault", "counter", fault},
		{"samples_total", "resource samples taken", "counter", samples},
	};
	size_t cap = 8192, len = 0;
	char *buf = sp_xmalloc(cap);
#define PUT(...)                                                                                 \
	do {                                                                                     \
		int n_ = snprintf(buf + len, cap - len, __VA_ARGS__);                            \
		if (n_ > 0 && (size_t)n_ >= cap - len) {                                         \
			cap = (len + (size_t)n_ + 1) * 2;                                        \
			buf = sp_xrealloc(buf, cap);                                             \
			n_ = snprintf(buf + len, cap - len, __VA_ARGS__);                        \
		}                                                                                \
		if (n_ > 0)                                                                      \
			len += (size_t)n_;                                                       \
	} while (0)
	for (size_t i = 0; i < SP_ARRAY_SIZE(m); i++)
		PUT("# HELP sandprobe_soak_%s %s\n# TYPE sandprobe_soak_%s %s\nsandprobe_soak_%s{run_id=\"%s\"} %lld\n",
		    m[i].name, m[i].help, m[i].name, m[i].type, m[i].name, r->run_id, m[i].v);
	/* decimals at the millisecond the bundle records: no binary float noise */
	PUT("# HELP sandprobe_soak_owned_cpu_seconds CPU time of live owned processes\n"
	    "# TYPE sandprobe_soak_owned_cpu_seconds gauge\nsandprobe_soak_owned_cpu_seconds{run_id=\"%s\"} %.3f\n",
	    r->run_id, s->owned_cpu_seconds);
	PUT("# HELP sandprobe_soak_sample_timestamp_seconds seconds since the run started, at the latest sample\n"
	    "# TYPE sandprobe_soak_sample_timestamp_seconds gauge\nsandprobe_soak_sample_timestamp_seconds{run_id=\"%s\"} %.3f\n",
	    r->run_id, s->ts);
	if (s->nextra) {
		PUT("# HELP sandprobe_soak_extra the workload's own counters (extra.<name> in resource-samples.tsv)\n"
		    "# TYPE sandprobe_soak_extra gauge\n");
		for (size_t i = 0; i < s->nextra; i++)
			PUT("sandprobe_soak_extra{run_id=\"%s\",counter=\"%s\"} %lld\n", r->run_id, r->w.counters[i].name,
			    s->extra[i]);
	}
#undef PUT
	int e = -sp_write_atomic_buf(AT_FDCWD, path, 0644, SP_WA_FIXED_TMP, buf, len, NULL);
	if (e) {
		r->rec.metrics_failures++;
		if (!r->rec.metrics_noted)
			sp_soak_note(&r->notes, "cannot write the metrics file %s: %s (the run goes on; counted in summary.json)", path,
				     strerror(e));
		r->rec.metrics_noted = true;
	} else if (r->rec.metrics_noted) {
		sp_soak_note(&r->notes, "the metrics file %s is written again", path);
		r->rec.metrics_noted = false;
	}
	free(buf);
}

void sp_soak_fill_status(struct run *r, sp_soak_status *st)
{
	memset(st, 0, sizeof *st);
	st->elapsed_s = sp_soak_ts_now(r);
	st->r0 = r->r0;
	st->duration_s = r->r0 ? 0 : r->duration_s;
	pthread_mutex_lock(&r->rec.rows_mu);
	st->ops = r->rec.n_ops;
	st->fail = r->rec.n_fail;
	st->faults = r->rec.n_fault;
	st->samples = r->rec.sample_count;
	st->owned_procs = r->rec.last.owned_processes;
	st->owned_fds = r->rec.last.owned_fds;
	st->owned_mounts = r->rec.last.owned_mounts;
	st->owned_rss_mib = (double)r->rec.last.owned_rss_bytes / 1048576.0;
	pthread_mutex_unlock(&r->rec.rows_mu);
}

/* ---- inventory ---- */
static int cmp_res(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	int c = strcmp(json_string_value(json_object_get(x, "type")), json_string_value(json_object_get(y, "type")));
	return c ? c : strcmp(json_string_value(json_object_get(x, "id")), json_string_value(json_object_get(y, "id")));
}

/* built-in inventory when the workload declares none: mounts under the state
 * root and owned processes (pid and name) */
static json_t *builtin_inventory(struct run *r)
{
	json_t *arr = json_array();
	size_t nm = 0, np = 0;
	char **mounts = sp_sampler_owned_mounts(r->smp.sampler, &nm);
	for (size_t i = 0; i < nm; i++) {
		json_array_append_new(arr, json_pack("{s:s,s:s}", "type", "mount", "id", mounts[i]));
		free(mounts[i]);
	}
	free(mounts);
	pid_t *pids = sp_sampler_signalable(r->smp.sampler, &np);
	for (size_t i = 0; i < np; i++) {
		char path[64], comm[64] = "?";
		snprintf(path, sizeof path, "/proc/%d/comm", (int)pids[i]);
		if (sp_read_file(path, comm, sizeof comm) > 0)
			comm[strcspn(comm, "\n")] = '\0';
		char *id = sp_xasprintf("%d:%s", (int)pids[i], comm);
		json_array_append_new(arr, json_pack("{s:s,s:s}", "type", "process", "id", id));
		free(id);
	}
	free(pids);
	return arr;
}

int sp_soak_write_inventory(struct run *r, const char *file, sp_error *err)
{
	json_t *res = NULL;
	if (r->w.inventory.n) {
		char **argv = sp_soak_expand_argv(&r->w.inventory, &r->gvars);
		sp_soak_capture *cap = sp_xcalloc(1, sizeof *cap);
		sp_soak_proc_result pr;
		sp_soak_run_opts ro = {.timeout_ms = r->w.timeout_ms, .interrupt_ms = -1, .envp = r->envp, .stderr_null = true};
		int rc = sp_proc_run(argv, &ro, cap, &pr, err);
		char *text = sp_capture_text(cap, NULL), *cmd = sp_soak_join_argv(argv);
		char code[64] = "internal";
		if (rc == 0)
			sp_proc_describe(&pr, code, sizeof code);
		char *hdr = sp_xasprintf("## ts=%.3f inventory for %s %s argv: %s", sp_soak_ts_now(r), file, code, cmd);
		sp_bundle_log(&r->rec.b, "inventory.log", hdr, text, strlen(text));
		free(hdr);
		free(cmd);
		sp_soak_free_argv(argv);
		free(cap);
		if (rc < 0) {
			free(text);
			return -1;
		}
		json_error_t je;
		json_t *doc = sp_proc_ok(&pr) ? json_loads(text, 0, &je) : NULL;
		free(text);
		json_t *arr = doc ? json_object_get(doc, "resources") : NULL;
		const char *schema = doc ? json_string_value(json_object_get(doc, "schema")) : NULL;
		if (!doc || !json_is_array(arr) || !schema || strcmp(schema, "sandprobe.inventory.v1")) {
			json_decref(doc);
			return sp_fail_errno(err, 0, "inventory command (%s) did not print a sandprobe.inventory.v1 document; see logs/inventory.log", code);
		}
		res = json_array();
		size_t i;
		json_t *it;
		json_array_foreach(arr, i, it) {
			const char *t = json_string_value(json_object_get(it, "type"));
			const char *id = json_string_value(json_object_get(it, "id"));
			if (!t || !id || !t[0] || !id[0]) {
				json_decref(doc);
				json_decref(res);
				return sp_fail_errno(err, 0, "inventory: resource %zu lacks a string type or id", i);
			}
			json_array_append_new(res, json_pack("{s:s,s:s}", "type", t, "id", id));
		}
		json_decref(doc);
	} else {
		res = builtin_inventory(r);
	}
	/* sorted by (type, id) so that start and final compare line by line too */
	size_t n = json_array_size(res);
	json_t **v = sp_xcalloc(n ? n : 1, sizeof(json_t *));
	for (size_t i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(res, i));
	if (n)
		qsort(v, n, sizeof *v, cmp_res);
	json_t *sorted = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(sorted, v[i]);
	free(v);
	json_decref(res);
	json_t *doc = json_pack("{s:s,s:o}", "schema", "sandprobe.inventory.v1", "resources", sorted);
	char *s = json_dumps(doc, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(doc);
	char *line = sp_xasprintf("%s\n", s);
	free(s);
	int rc = sp_bundle_write(&r->rec.b, file, line, strlen(line), err);
	free(line);
	return rc;
}

/* ---- metadata ---- */
/* digest of a rootfs tree: sorted relative paths with type, mode, and the
 * SHA-256 of file contents or the symlink target */
struct rfs_ent {
	char *path;
	char kind;
	unsigned mode;
	char h[65];
};
static struct rfs_ent *rfs_v;
static size_t rfs_n, rfs_base;
static pthread_mutex_t rfs_mu = PTHREAD_MUTEX_INITIALIZER;

static int rfs_cb(const char *fpath, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)ftw;
	rfs_v = sp_xrealloc(rfs_v, (rfs_n + 1) * sizeof *rfs_v);
	struct rfs_ent *e = &rfs_v[rfs_n++];
	memset(e, 0, sizeof *e);
	e->path = sp_xstrdup(fpath[rfs_base] ? fpath + rfs_base : "/");
	e->mode = (unsigned)(sb->st_mode & 07777);
	e->kind = flag == FTW_D || flag == FTW_DP ? 'd' : flag == FTW_SL || flag == FTW_SLN ? 'l' : S_ISREG(sb->st_mode) ? 'f' : 'o';
	if (e->kind == 'f') {
		sp_outcome o = {0};
		if (sp_ev_sha256_file_hex(fpath, e->h, &o) < 0)
			snprintf(e->h, sizeof e->h, "unreadable");
	} else if (e->kind == 'l') {
		char t[4096];
		ssize_t l = readlink(fpath, t, sizeof t - 1);
		t[l > 0 ? l : 0] = '\0';
		snprintf(e->h, sizeof e->h, "%.64s", t);
	}
	return 0;
}

static int cmp_rfs(const void *a, const void *b)
{
	return strcmp(((const struct rfs_ent *)a)->path, ((const struct rfs_ent *)b)->path);
}

static void rootfs_digest(const char *dir, char *out, size_t size)
{
	struct stat st;
	if (!dir || stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(out, size, "none");
		return;
	}
	pthread_mutex_lock(&rfs_mu);
	rfs_v = NULL;
	rfs_n = 0;
	rfs_base = strlen(dir);
	nftw(dir, rfs_cb, 32, FTW_PHYS | FTW_MOUNT);
	if (rfs_n)
		qsort(rfs_v, rfs_n, sizeof *rfs_v, cmp_rfs);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	for (size_t i = 0; i < rfs_n; i++) {
		char line[8300];
		int l = snprintf(line, sizeof line, "%s\t%c\t%o\t%s\n", rfs_v[i].path, rfs_v[i].kind, rfs_v[i].mode, rfs_v[i].h);
		EVP_DigestUpdate(ctx, line, (size_t)(l < (int)sizeof line ? l : (int)sizeof line - 1));
		free(rfs_v[i].path);
	}
	unsigned char md[32];
	unsigned int ml = 0;
	EVP_DigestFinal_ex(ctx, md, &ml);
	EVP_MD_CTX_free(ctx);
	free(rfs_v);
	rfs_v = NULL;
	pthread_mutex_unlock(&rfs_mu);
	int n = snprintf(out, size, "sha256:");
	for (int i = 0; i < 32 && (size_t)n + 3 <= size; i++)
		n += snprintf(out + n, size - (size_t)n, "%02x", md[i]);
}

static char *runtime_version(struct run *r)
{
	char **argv = sp_soak_expand_argv(&r->w.version_argv, &r->gvars);
	sp_soak_capture *cap = sp_xcalloc(1, sizeof *cap);
	sp_soak_proc_result res;
	sp_error err = {0};
	sp_soak_run_opts ro = {.timeout_ms = 30000, .interrupt_ms = -1, .envp = r->envp};
	char *v = NULL;
	if (sp_proc_run(argv, &ro, cap, &res, &err) == 0 && sp_proc_ok(&res)) {
		char *text = sp_capture_text(cap, NULL);
		text[strcspn(text, "\n")] = '\0';
		sp_tsv_clean(text);
		if (text[0])
			v = sp_xstrdup(sp_trim(text));
		free(text);
	}
	free(cap);
	sp_soak_free_argv(argv);
	return v ? v : sp_xstrdup("unknown");
}

static void meta_add(char **buf, size_t *len, size_t *cap, const char *key, const char *fmt, ...) SP_PRINTF(5, 6);
static void meta_add(char **buf, size_t *len, size_t *cap, const char *key, const char *fmt, ...)
{
	char val[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(val, sizeof val, fmt, ap);
	va_end(ap);
	sp_tsv_clean(val);
	size_t need = strlen(key) + strlen(val) + 3;
	if (*len + need > *cap) {
		*cap = (*len + need) * 2;
		*buf = sp_xrealloc(*buf, *cap);
	}
	*len += (size_t)snprintf(*buf + *len, *cap - *len, "%s=%s\n", key, val);
}

/* a plain decimal, never an exponent, without trailing zeros */
static void plain_decimal(double v, char *out, size_t size)
{
	snprintf(out, size, "%.6f", v);
	char *e = out + strlen(out) - 1;
	while (e > out && *e == '0')
		*e-- = '\0';
	if (*e == '.')
		*e = '\0';
}

int sp_soak_write_metadata(struct run *r, sp_error *err)
{
	char *m = NULL;
	size_t len = 0, cap = 0;
	struct utsname u;
	uname(&u);
	char started[32];
	sp_utc_now(started, sizeof started);
	char *scen = NULL, *faults = NULL, *mix = NULL, *classes = NULL;
	size_t sl = 0, fl = 0, cl = 0;
	for (size_t i = 0; i < r->w.nscen; i++) {
		scen = sp_xrealloc(scen, sl + strlen(r->w.scen[i].id) + 2);
		sl += (size_t)snprintf(scen + sl, strlen(r->w.scen[i].id) + 2, "%s%s", i ? "," : "", r->w.scen[i].id);
		/* each scenario's class, for the composition gate (ops.composition) */
		const char *cn = sp_class_name(r->w.scen[i].cls);
		size_t cw = strlen(r->w.scen[i].id) + strlen(cn) + 3;
		classes = sp_xrealloc(classes, cl + cw);
		cl += (size_t)snprintf(classes + cl, cw, "%s%s:%s", i ? "," : "", r->w.scen[i].id, cn);
		const sp_soak_wfault *f = &r->w.scen[i].fault;
		if (f->present && !(faults && strstr(faults, f->id))) {
			faults = sp_xrealloc(faults, fl + 5);
			fl += (size_t)snprintf(faults + fl, 5, "%s%s", fl ? "," : "", f->id);
		}
	}
	mix = sp_xasprintf("lifecycle:%d,service:%d,storage:%d,network:%d,fault:%d", r->w.mix[0], r->w.mix[1], r->w.mix[2],
			   r->w.mix[3], r->w.mix[4]);
	char *rv = runtime_version(r);
	char digest[80];
	rootfs_digest(r->rootfs, digest, sizeof digest);
	struct sysinfo si;
	sysinfo(&si);
	char num[64];
	meta_add(&m, &len, &cap, "schema", "sandprobe.evidence.v1");
	meta_add(&m, &len, &cap, "run_id", "%s", r->run_id);
	meta_add(&m, &len, &cap, "profile", "%s", r->profile);
	meta_add(&m, &len, &cap, "base_profile", "%s", r->base->name);
	meta_add(&m, &len, &cap, "scenarios", "%s", scen);
	meta_add(&m, &len, &cap, "tool_version", "%s", SP_VERSION);
	meta_add(&m, &len, &cap, "tool_commit", "%s", SP_COMMIT);
	meta_add(&m, &len, &cap, "dirty", "%d", sp_endswith(SP_VERSION, "-dirty") ? 1 : 0);
	meta_add(&m, &len, &cap, "host_kernel", "%s", u.release);
	meta_add(&m, &len, &cap, "host_arch", "%s", u.machine);
	meta_add(&m, &len, &cap, "host_cpus", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	meta_add(&m, &len, &cap, "host_memory_bytes", "%llu", (unsigned long long)si.totalram * si.mem_unit);
	meta_add(&m, &len, &cap, "runtime", "%s", r->w.runtime);
	meta_add(&m, &len, &cap, "runtime_version", "%s", rv);
	meta_add(&m, &len, &cap, "rootfs_digest", "%s", digest);
	meta_add(&m, &len, &cap, "started_at", "%s", started);
	meta_add(&m, &len, &cap, "seed", "%llu", r->seed);
	meta_add(&m, &len, &cap, "workload_sha256", "%s", r->w.sha256);
	meta_add(&m, &len, &cap, "concurrency", "%d", r->concurrency);
	meta_add(&m, &len, &cap, "faults", "%s", faults ? faults : "none");
	meta_add(&m, &len, &cap, "duration_s", "%lld", r->duration_s);
	meta_add(&m, &len, &cap, "sample_interval_s", "%lld", r->interval_s);
	meta_add(&m, &len, &cap, "warmup_s", "%lld", r->warmup_s);
	meta_add(&m, &len, &cap, "threshold.min_span_s", "%lld", r->min_span_s);
	meta_add(&m, &len, &cap, "threshold.max_interval_s", "%lld", r->max_interval_s);
	meta_add(&m, &len, &cap, "threshold.min_periodic_samples", "%lld", r->min_periodic);
	meta_add(&m, &len, &cap, "threshold.max_gap_s", "%lld", r->max_gap_s);
	meta_add(&m, &len, &cap, "threshold.min_success_ratio", "%s", r->min_success);
	plain_decimal(round(r->rss_slope * 1000) / 1000, num, sizeof num);
	meta_add(&m, &len, &cap, "threshold.rss_slope_mib_per_day", "%s", num);
	meta_add(&m, &len, &cap, "threshold.fd_growth_max", "%lld", r->w.fd_growth_max);
	meta_add(&m, &len, &cap, "threshold.p95_regression_pct", "%.10g", r->w.p95_regression_pct);
	meta_add(&m, &len, &cap, "threshold.disk_budget_bytes", "%lld", r->w.disk_budget_bytes);
	meta_add(&m, &len, &cap, "workload_name", "%s", r->w.name);
	meta_add(&m, &len, &cap, "workload_file", "%s", r->w.path);
	meta_add(&m, &len, &cap, "state_root", "%s", r->state_dir);
	meta_add(&m, &len, &cap, "prefix", "%s", r->prefix);
	meta_add(&m, &len, &cap, "class_mix", "%s", mix);
	meta_add(&m, &len, &cap, "scenario_classes", "%s", classes ? classes : "");
	plain_decimal(r->w.rate, num, sizeof num);
	meta_add(&m, &len, &cap, "target_rate_ops_s", "%s", num);
	meta_add(&m, &len, &cap, "runner_cgroup", "%s", r->g.in_cgroup ? r->g.cgroup : "none");
	meta_add(&m, &len, &cap, "journal", "%s", r->g.journal ? r->g.journal : "none");
	{
		char names[2048] = "none";
		size_t nl = 0;
		for (size_t i = 0; i < r->w.ncounters && nl < sizeof names; i++)
			nl += (size_t)snprintf(names + nl, sizeof names - nl, "%s%s", i ? "," : "", r->w.counters[i].name);
		meta_add(&m, &len, &cap, "extra_counters", "%s", names);
	}
	/* release-gate identity: lane=, artifact.<name>= (src/gate/identity.c) */
	for (size_t i = 0; i < r->o->nextra_meta; i++)
		meta_add(&m, &len, &cap, r->o->extra_meta[i].key, "%s", r->o->extra_meta[i].value);
	int rc = sp_bundle_write(&r->rec.b, "metadata.txt", m, len, err);
	free(m);
	free(scen);
	free(classes);
	free(faults);
	free(mix);
	free(rv);
	return rc;
}

/* ---- the closing files ---- */
int sp_soak_write_capabilities(struct run *r, sp_error *err)
{
	size_t cap = 256, len = 0;
	char *s = sp_xmalloc(cap);
	len = (size_t)snprintf(s, cap, "scenario\tattempted\tsucceeded\texpected_faults\tunexpected_failures\tresult\n");
	for (size_t i = 0; i < r->w.nscen; i++) {
		struct scen_state *st = &r->ss[i];
		if (len + 200 > cap) {
			cap = (len + 200) * 2;
			s = sp_xrealloc(s, cap);
		}
		len += (size_t)snprintf(s + len, cap - len, "%s\t%lld\t%lld\t%lld\t%lld\t%s\n", st->sc->id, st->attempted, st->ok,
					st->expected_fault, st->fail, st->attempted > 0 && st->fail == 0 ? "pass" : "fail");
	}
	int rc = sp_bundle_write(&r->rec.b, "capability-results.tsv", s, len, err);
	free(s);
	return rc;
}

int sp_soak_write_summary(struct run *r, double final_ts, sp_error *err)
{
	double span = r->rec.last_ts - r->rec.first_ts;
	double warm = r->rec.warmup_end >= 0 ? r->rec.warmup_end : final_ts;
	double achieved = final_ts > 0 ? (double)r->rec.n_ops / final_ts : 0;
	json_t *cc = json_object();
	for (int c = 0; c < SP_CLASS_COUNT; c++)
		json_object_set_new(cc, sp_class_name((sp_soak_class)c), json_integer(r->sch.class_cycles[c]));
	json_t *doc = json_pack(
		"{s:s,s:s,s:s,s:I,s:f,s:I,s:I,s:f,s:f,s:f,s:{s:I,s:I,s:I,s:I},s:I,s:s,s:s,s:s,s:f,s:f,s:o,s:I,s:I,s:I}",
		"schema", "sandprobe.summary.v1", "run_id", r->run_id, "profile", r->profile, "requested_duration_s",
		(json_int_t)r->duration_s, "measured_duration_s", round(final_ts * 1000) / 1000, "sample_count",
		(json_int_t)r->rec.sample_count, "periodic_samples", (json_int_t)r->rec.periodic_count, "span_s",
		round(span * 1000) / 1000, "max_gap_s", round(r->rec.max_gap * 1000) / 1000, "warmup_end_s",
		round(warm * 1000) / 1000, "operations", "total", (json_int_t)r->rec.n_ops, "ok", (json_int_t)r->rec.n_ok, "fail",
		(json_int_t)r->rec.n_fail, "expected_fault", (json_int_t)r->rec.n_fault, "unexpected_failures", (json_int_t)r->rec.n_fail,
		"stop_condition", r->sch.stop_condition, "cleanup", r->cleanup_ok ? "ok" : "failed", "evidence_path", r->rec.b.dir,
		"requested_rate_ops_s", r->w.rate, "achieved_rate_ops_s", round(achieved * 1000) / 1000, "class_cycles", cc,
		"counter_failures", (json_int_t)atomic_load(&r->smp.counter_failures), "metrics_write_failures",
		(json_int_t)r->rec.metrics_failures, "leftovers_removed", (json_int_t)r->leftovers);
	if (!doc)
		return sp_fail_errno(err, 0, "cannot build summary.json");
	char *s = json_dumps(doc, JSON_INDENT(1) | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(12));
	json_decref(doc);
	char *line = sp_xasprintf("%s\n", s);
	free(s);
	int rc = sp_bundle_write(&r->rec.b, "summary.json", line, strlen(line), err);
	free(line);
	return rc;
}
