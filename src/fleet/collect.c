/* `sandprobe fleet collect`: the doctor reports of a fleet run, placed in
 * the plan's cells and merged into the live matrix (one lane per node x
 * RuntimeClass; the live tier's writers write it).
 *
 * Framing (sandprobe-fleet(1), COLLECT): an input is read line by line. A
 * line that is exactly "{" opens a report and the next line that is exactly
 * "}" closes it (the doctor's --format json writes its report so); a line
 * that starts with "{" otherwise is a report on one line. Other lines
 * (kubectl's own) are not reports. `kubectl logs --prefix` lines
 * ("[pod/POD/CONTAINER] text") are first sorted by their prefix, so pods'
 * logs may interleave. A report names its cell itself: environment.fleet
 * (the Job's SP_FLEET_CELL and SP_FLEET_NODE_NAME, spec.nodeName from the
 * kubelet), never its file name; a --prefix pod must be one of that cell's
 * Job. Anything else is a usage error naming the file and line: a report cut
 * short, one that is not valid JSON or not a doctor report, a cell the plan
 * does not have, a node other than the plan pins, a second report for a
 * cell. */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cleanup.h"
#include "core/outcome.h"
#include "core/util.h"
#include "fleet/collect.h"

#define MAX_STREAMS 4096
#define MAX_REPORT (8 << 20)
#define MAX_RESULTS 4096 /* the doctor has a few hundred checks */

void sp_fleet_collect_init(sp_fleet_collect *c, const sp_fleet_plan *p)
{
	memset(c, 0, sizeof *c);
	c->plan = p;
	c->cells = sp_xcalloc(p->nnodes * p->nclasses, sizeof *c->cells);
}

void sp_fleet_collect_free(sp_fleet_collect *c)
{
	if (!c->cells)
		return;
	for (size_t i = 0; i < c->plan->nnodes * c->plan->nclasses; i++) {
		json_decref(c->cells[i].report);
		free(c->cells[i].origin);
		free(c->cells[i].pod);
	}
	free(c->cells);
	memset(c, 0, sizeof *c);
}

/* one report being framed: its text and the input line of each of its lines */
struct frame {
	char *key; /* the --prefix (POD/CONTAINER), "" without */
	char *pod; /* its POD */
	bool open;
	char *buf;
	size_t len, cap;
	int *lines;
	size_t nlines, lcap;
};

static void frame_add(struct frame *f, const char *s, size_t n, int line)
{
	if (f->len + n + 2 > f->cap) {
		f->cap = (f->len + n + 2) * 2;
		f->buf = sp_xrealloc(f->buf, f->cap);
	}
	memcpy(f->buf + f->len, s, n);
	f->len += n;
	f->buf[f->len++] = '\n';
	f->buf[f->len] = '\0';
	if (f->nlines == f->lcap) {
		f->lcap = f->lcap ? f->lcap * 2 : 64;
		f->lines = sp_xrealloc(f->lines, f->lcap * sizeof *f->lines);
	}
	f->lines[f->nlines++] = line;
}

static void frame_reset(struct frame *f)
{
	f->open = false;
	f->len = 0;
	f->nlines = 0;
}

/* the input line of line k (1-based) of the frame */
static int frame_line(const struct frame *f, int k)
{
	if (f->nlines == 0)
		return 0;
	if (k < 1)
		k = 1;
	if ((size_t)k > f->nlines)
		k = (int)f->nlines;
	return f->lines[k - 1];
}

static const char *str_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static const char *const statuses[] = {"pass", "fail", "skip", "warn", "error"};

/* the report's own consistency: 0, or -1 and what is wrong */
static int check_report(json_t *root, sp_outcome *o)
{
	if (!json_is_object(root))
		return sp_why(o, "the report is not a JSON object");
	const char *schema = str_of(root, "schema");
	if (!schema || strcmp(schema, "sandprobe.doctor.v1"))
		return sp_why(o, "not a doctor report (schema '%.60s', expected sandprobe.doctor.v1)", schema ? schema : "(none)");
	const char *result = str_of(root, "result");
	if (!result || (strcmp(result, "pass") && strcmp(result, "fail")))
		return sp_why(o, "result: expected \"pass\" or \"fail\"");
	json_t *env = json_object_get(root, "environment");
	if (!json_is_object(env) || !str_of(env, "kernel"))
		return sp_why(o, "environment.kernel: missing (a doctor report has it)");
	json_t *results = json_object_get(root, "results");
	if (!json_is_array(results))
		return sp_why(o, "results: missing or not an array");
	if (json_array_size(results) > MAX_RESULTS)
		return sp_why(o, "results: %zu, more than %d", json_array_size(results), MAX_RESULTS);
	json_t *sum = json_object_get(root, "summary");
	if (!json_is_object(sum))
		return sp_why(o, "summary: missing or not an object");
	size_t counts[SP_ARRAY_SIZE(statuses)] = {0};
	size_t i;
	json_t *r;
	json_array_foreach(results, i, r) {
		const char *id = str_of(r, "id"), *st = str_of(r, "status");
		if (!id || !*id || strlen(id) >= sizeof((sp_live_result *)0)->id || !st)
			return sp_why(o, "results[%zu]: id or status missing", i);
		size_t k = 0;
		while (k < SP_ARRAY_SIZE(statuses) && strcmp(st, statuses[k]))
			k++;
		if (k == SP_ARRAY_SIZE(statuses))
			return sp_why(o, "results[%zu] (%.96s): status '%.20s' is not pass, fail, skip, warn or error", i, id, st);
		counts[k]++;
		if (!str_of(r, "expected") || !str_of(r, "observed") || !str_of(r, "detail"))
			return sp_why(o, "results[%zu] (%.96s): expected, observed or detail missing", i, id);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(id, str_of(json_array_get(results, j), "id")))
				return sp_why(o, "results[%zu]: check %.96s reported twice", i, id);
	}
	for (size_t k = 0; k < SP_ARRAY_SIZE(statuses); k++) {
		json_t *n = json_object_get(sum, statuses[k]);
		if (!json_is_integer(n) || json_integer_value(n) != (json_int_t)counts[k])
			return sp_why(o, "summary.%s says %lld, the results have %zu", statuses[k],
				      json_is_integer(n) ? (long long)json_integer_value(n) : -1LL, counts[k]);
	}
	return 0;
}

/* place a parsed report in its cell */
static int place(sp_fleet_collect *c, json_t *root, const char *origin, int line, const char *pod, sp_error *err)
{
	const sp_fleet_plan *p = c->plan;
	sp_outcome o = {0};
	if (check_report(root, &o) < 0)
		return sp_usage_at(err, origin, line, "%s", o.why);
	json_t *fl = json_object_get(json_object_get(root, "environment"), "fleet");
	const char *cell = str_of(fl, "cell");
	if (!cell)
		return sp_usage_at(err, origin, line,
				   "the report names no cell (environment.fleet.cell): not from a fleet Job, whose doctor has SP_FLEET_CELL");
	const char *slash = strchr(cell, '/');
	size_t n = 0, k = 0;
	if (slash) {
		while (n < p->nnodes && (strlen(p->nodes[n].id) != (size_t)(slash - cell) || strncmp(p->nodes[n].id, cell, (size_t)(slash - cell))))
			n++;
		while (k < p->nclasses && strcmp(p->classes[k], slash + 1))
			k++;
	}
	const char *miss = !slash ? "a cell is NODE/RUNTIMECLASS" : n == p->nnodes ? "no such node id"
										   : NULL;
	if (!miss && k == p->nclasses)
		miss = "no such RuntimeClass";
	if (miss)
		return sp_usage_at(err, origin, line, "cell '%.120s' is not in plan %s (%s)", cell, p->name, miss);
	const char *node_name = str_of(fl, "node_name");
	if (!node_name || !*node_name)
		return sp_usage_at(err, origin, line, "cell %.120s: the report names no node (environment.fleet.node_name, from spec.nodeName)", cell);
	if (p->nodes[n].node_name && strcmp(p->nodes[n].node_name, node_name))
		return sp_usage_at(err, origin, line, "cell %.120s: the report ran on node '%.120s', the plan pins node '%s'", cell, node_name,
				   p->nodes[n].node_name);
	char job[128];
	sp_fleet_job_name(p, n, k, job, sizeof job);
	if (pod && (strncmp(pod, job, strlen(job)) || pod[strlen(job)] != '-'))
		return sp_usage_at(err, origin, line, "cell %.120s: pod %.120s is not a pod of its Job %s", cell, pod, job);
	sp_fleet_cell *ce = &c->cells[n * p->nclasses + k];
	if (ce->report)
		return sp_usage_at(err, origin, line, "a second report for cell %s/%s (the first: %s)", p->nodes[n].id, p->classes[k],
				   ce->origin);
	ce->report = json_incref(root);
	ce->origin = sp_xasprintf("%s:%d", origin, line);
	ce->pod = pod ? sp_xstrdup(pod) : NULL;
	c->nreports++;
	return 0;
}

static int end_frame(sp_fleet_collect *c, struct frame *f, const char *origin, sp_error *err)
{
	json_error_t je;
	int first = frame_line(f, 1);
	json_t *root = json_loadb(f->buf, f->len, JSON_REJECT_DUPLICATES, &je);
	int rc;
	if (!root)
		rc = sp_usage_at(err, origin, frame_line(f, je.line), "the report starting at line %d is not valid JSON: %s", first, je.text);
	else
		rc = place(c, root, origin, first, f->pod[0] ? f->pod : NULL, err);
	json_decref(root);
	frame_reset(f);
	return rc;
}

int sp_fleet_collect_text(sp_fleet_collect *c, const char *text, size_t len, const char *origin, sp_error *err)
{
	struct frame *fr = NULL;
	size_t nfr = 0, last = 0;
	int rc = 0, line = 0;
	for (size_t pos = 0; pos < len && rc == 0;) {
		const char *s = text + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		pos += n + 1;
		line++;
		if (n && s[n - 1] == '\r')
			n--;
		if (memchr(s, '\0', n)) {
			rc = sp_usage_at(err, origin, line, "a NUL byte: not a report or a log");
			break;
		}
		/* kubectl logs --prefix: "[pod/POD/CONTAINER] " */
		const char *key = "";
		size_t klen = 0;
		if (n > 5 && !memcmp(s, "[pod/", 5)) {
			const char *end = memchr(s, ']', n);
			if (end && (size_t)(end - s) + 1 < n && end[1] == ' ') {
				key = s + 5;
				klen = (size_t)(end - key);
				n -= (size_t)(end + 2 - s);
				s = end + 2;
			}
		}
		/* the stream of this line: most often the last one's */
		size_t i = last < nfr && strlen(fr[last].key) == klen && !memcmp(fr[last].key, key, klen) ? last : 0;
		while (i < nfr && (strlen(fr[i].key) != klen || memcmp(fr[i].key, key, klen)))
			i++;
		last = i;
		if (i == nfr) {
			if (nfr == MAX_STREAMS) {
				rc = sp_usage_at(err, origin, line, "more than %d pods' logs in one input", MAX_STREAMS);
				break;
			}
			fr = sp_xrealloc(fr, (nfr + 1) * sizeof *fr);
			memset(&fr[nfr], 0, sizeof *fr);
			fr[nfr].key = sp_xstrndup(key, klen);
			/* the pod: POD of POD/CONTAINER */
			fr[nfr].pod = sp_xstrdup(fr[nfr].key);
			char *sl = strchr(fr[nfr].pod, '/');
			if (sl)
				*sl = '\0';
			nfr++;
		}
		struct frame *f = &fr[i];
		if (f->open) {
			if (f->len + n > MAX_REPORT) {
				rc = sp_usage_at(err, origin, frame_line(f, 1), "the report starting here is larger than %d bytes", MAX_REPORT);
				break;
			}
			frame_add(f, s, n, line);
			if (n == 1 && s[0] == '}')
				rc = end_frame(c, f, origin, err);
		} else if (n == 1 && s[0] == '{') {
			f->open = true;
			frame_add(f, s, n, line);
		} else if (n > 0 && s[0] == '{') {
			frame_add(f, s, n, line);
			rc = end_frame(c, f, origin, err);
		} else {
			c->other_lines++;
		}
	}
	for (size_t i = 0; i < nfr; i++) {
		if (rc == 0 && fr[i].open)
			rc = sp_usage_at(err, origin, frame_line(&fr[i], 1),
					 "the report starting here never ends (no line '}' after it: cut short?)");
		free(fr[i].key);
		free(fr[i].pod);
		free(fr[i].buf);
		free(fr[i].lines);
	}
	free(fr);
	return rc;
}

static int collect_file(sp_fleet_collect *c, const char *path, sp_error *err)
{
	int errnum = 0;
	size_t len = 0;
	_cleanup_free_ char *text = sp_read_file_alloc(path, SP_FLEET_MAX_INPUT, &len, &errnum);
	if (!text)
		return errnum == EFBIG ? sp_usage(err, "%s: larger than %d bytes", path, SP_FLEET_MAX_INPUT)
				       : sp_usage(err, "%s: cannot read: %s", path, strerror(errnum));
	size_t before = c->nreports;
	if (sp_fleet_collect_text(c, text, len, path, err) < 0)
		return -1;
	if (c->nreports == before)
		return sp_usage(err, "%s: no doctor report in it (a report opens with a line '{')", path);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int sp_fleet_collect_path(sp_fleet_collect *c, const char *path, sp_error *err)
{
	struct stat st;
	if (strcmp(path, "-") == 0)
		return collect_file(c, "/dev/stdin", err);
	if (stat(path, &st) < 0)
		return sp_usage(err, "%s: %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return collect_file(c, path, err);
	_cleanup_closedir_ DIR *d = opendir(path);
	if (!d)
		return sp_usage(err, "%s: %s", path, strerror(errno));
	sp_strv names = {0};
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			sp_strv_push(&names, de->d_name);
	if (names.n)
		qsort(names.v, names.n, sizeof *names.v, by_name);
	int rc = 0;
	size_t files = 0;
	for (size_t i = 0; i < names.n && rc == 0; i++) {
		_cleanup_free_ char *p = sp_xasprintf("%s/%s", path, names.v[i]);
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			files++;
			rc = collect_file(c, p, err);
		}
	}
	sp_strv_free(&names);
	if (rc == 0 && files == 0)
		return sp_usage(err, "%s: no report files in the directory", path);
	return rc;
}

/* ---- the matrix ---- */

void sp_fleet_matrix_free(sp_fleet_matrix *m)
{
	for (size_t i = 0; i < m->run.n; i++) {
		sp_live_lane *l = &m->run.lanes[i];
		sp_lres_free(&l->results);
		json_decref(l->json_extra);
	}
	free(m->run.lanes);
	free(m->rts);
	free(m->variants);
	free(m->origin);
	memset(m, 0, sizeof *m);
}

void sp_fleet_matrix_build(const sp_fleet_collect *c, const char *plan_path, sp_fleet_matrix *m)
{
	const sp_fleet_plan *p = c->plan;
	memset(m, 0, sizeof *m);
	m->rts = sp_xcalloc(p->nclasses, sizeof *m->rts);
	m->variants = sp_xcalloc(p->nnodes, sizeof *m->variants);
	for (size_t k = 0; k < p->nclasses; k++) {
		m->rts[k].name = p->classes[k];
		m->rts[k].summary = "a RuntimeClass of the fleet";
	}
	for (size_t n = 0; n < p->nnodes; n++)
		m->variants[n].name = p->nodes[n].id;
	sp_live_run *run = &m->run;
	run->matrix = true;
	run->suite = "fleet";
	run->n = p->nnodes * p->nclasses;
	run->lanes = sp_xcalloc(run->n, sizeof *run->lanes);
	size_t missing = 0;
	for (size_t n = 0; n < p->nnodes; n++)
		for (size_t k = 0; k < p->nclasses; k++) {
			size_t i = n * p->nclasses + k;
			const sp_fleet_cell *ce = &c->cells[i];
			sp_live_lane *l = &run->lanes[i];
			l->rt = &m->rts[k];
			l->variant = &m->variants[n];
			l->seccomp_fd = -1;
			char job[128];
			sp_fleet_job_name(p, n, k, job, sizeof job);
			json_t *fl = json_pack("{s:s,s:s,s:s,s:s,s:b}", "cell", "", "node", p->nodes[n].id, "runtime_class", p->classes[k],
					       "job", job, "reported", ce->report != NULL);
			json_object_set_new(fl, "cell", json_sprintf("%s/%s", p->nodes[n].id, p->classes[k]));
			if (!ce->report) {
				missing++;
				l->status = SP_STATUS_ERROR;
				snprintf(l->reason, sizeof l->reason, "never reported: no report of cell %s/%s (Job %s) in the inputs",
					 p->nodes[n].id, p->classes[k], job);
				snprintf(l->rtinfo, sizeof l->rtinfo, "node %s, RuntimeClass %s: no report", p->nodes[n].id, p->classes[k]);
				l->json_extra = json_pack("{s:o}", "fleet", fl);
				continue;
			}
			json_t *root = ce->report, *env = json_object_get(root, "environment");
			const char *node_name = str_of(json_object_get(env, "fleet"), "node_name");
			const char *kernel = str_of(env, "kernel");
			json_t *kb = json_object_get(env, "kernel_boundary");
			const char *kind = str_of(kb, "kind");
			if (kind && (!strcmp(kind, "host") || !strcmp(kind, "user-space") || !strcmp(kind, "guest"))) {
				snprintf(l->boundary, sizeof l->boundary, "%s", kind);
				l->boundary_accepted = strcmp(kind, "host") && json_is_true(json_object_get(kb, "accepted"));
			}
			snprintf(l->doctor_kernel, sizeof l->doctor_kernel, "%s", kernel);
			sp_lres_status(str_of(root, "result"), &l->status); /* pass or fail (check_report) */
			json_t *dms = json_object_get(root, "duration_ms");
			l->doctor_ms = l->ms = json_is_number(dms) && json_number_value(dms) >= 0 ? json_number_value(dms) : 0;
			json_t *results = json_object_get(root, "results");
			size_t j;
			json_t *r;
			json_array_foreach(results, j, r) {
				sp_status st = SP_STATUS_ERROR;
				sp_lres_status(str_of(r, "status"), &st); /* one of the five (check_report) */
				sp_lres_add(&l->results, str_of(r, "id"), st, str_of(r, "expected"), str_of(r, "observed"), "%s",
					    str_of(r, "detail"));
			}
			snprintf(l->reason, sizeof l->reason, "reported by %s: %zu results, doctor %s", ce->origin, json_array_size(results),
				 sp_status_name(l->status));
			snprintf(l->rtinfo, sizeof l->rtinfo, "node %s (%s), RuntimeClass %s, kernel %s%s%s%s", p->nodes[n].id, node_name,
				 p->classes[k], kernel, l->boundary[0] ? " (" : "", l->boundary, l->boundary[0] ? ")" : "");
			json_object_set_new(fl, "node_name", json_string(node_name));
			json_object_set_new(fl, "report", json_string(ce->origin));
			json_object_set_new(fl, "pod", ce->pod ? json_string(ce->pod) : json_null());
			json_object_set_new(fl, "kernel", json_string(kernel));
			json_object_set_new(fl, "profile", json_incref(json_object_get(root, "profile")));
			json_object_set_new(fl, "summary", json_incref(json_object_get(root, "summary")));
			l->json_extra = json_pack("{s:o}", "fleet", fl);
		}
	sp_live_platform *pf = &run->platform;
	snprintf(pf->host_kind, sizeof pf->host_kind, "fleet");
	snprintf(pf->kvm_reason, sizeof pf->kvm_reason, "not probed: fleet collect reads reports");
	m->origin = sp_xasprintf("fleet %s (%s): %zu cells, %zu reported, %zu never reported", p->name, plan_path, run->n,
				 c->nreports, missing);
	snprintf(pf->notes, sizeof pf->notes, "%s", m->origin);
	run->origin = m->origin;
}
