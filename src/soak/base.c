/* The bottom floor of a soak run (see soak/base.h): what every part uses.
 * It calls no part of the run; the step runner is the run's callback. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "soak/run.h"

/* ---- notes, clock, stop ---- */
double sp_soak_ts_now(const struct run *r)
{
	/* rounded to the millisecond that the bundle prints, so that every
	 * derived figure agrees with the rows */
	return (double)((sp_now_ns() - r->rec.t0_ns + 500000) / 1000000) / 1e3;
}

double sp_soak_ns_to_ts(const struct run *r, uint64_t ns)
{
	return (double)(ns - r->rec.t0_ns) / 1e9;
}

void sp_soak_reserve_heap(void)
{
	const size_t n = 960u << 10; /* below M_MMAP_THRESHOLD: from the arena */
	char *p = malloc(n);
	if (!p)
		return;
	memset(p, 1, n);
	/* the writes happen, and stay (M_TRIM_THRESHOLD) */
	__asm__ volatile(""
			 :
			 : "r"(p)
			 : "memory");
	free(p);
}

void sp_soak_set_stop(struct sched_state *sch, int level, const char *cond)
{
	pthread_mutex_lock(&sch->mu);
	int cur = atomic_load(&sch->stop);
	if (!sch->stop_condition[0] || (level == 2 && cur < 2))
		snprintf(sch->stop_condition, sizeof sch->stop_condition, "%s", cond);
	if (level > cur)
		atomic_store(&sch->stop, level);
	if (level >= 2)
		atomic_store(&sch->abort_ops, 1);
	pthread_cond_broadcast(&sch->cv);
	pthread_mutex_unlock(&sch->mu);
}

void sp_soak_note(struct notes *n, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&n->mu);
	if (n->v.n < 256) /* a flood of notes is not news */
		sp_strv_push(&n->v, buf);
	pthread_mutex_unlock(&n->mu);
}

void sp_soak_sleep_unless_aborted(struct sched_state *sch, int ms)
{
	uint64_t end = sp_now_ns() + (uint64_t)ms * 1000000ull;
	while (!atomic_load(&sch->abort_ops)) {
		uint64_t now = sp_now_ns();
		if (now >= end)
			break;
		uint64_t d = end - now > 50000000ull ? 50000000ull : end - now;
		struct timespec ts = {0, (long)d};
		nanosleep(&ts, NULL);
	}
}

/* ---- argv and placeholders ---- */
char *sp_soak_join_argv(char **argv)
{
	size_t len = 0;
	for (char **a = argv; *a; a++)
		len += strlen(*a) + 1;
	char *s = sp_xmalloc(len + 1), *p = s;
	for (char **a = argv; *a; a++) {
		size_t l = strlen(*a);
		memcpy(p, *a, l);
		p += l;
		*p++ = ' ';
	}
	if (p > s)
		p--;
	*p = '\0';
	return s;
}

char **sp_soak_expand_argv(const sp_strv *tmpl, const sp_soak_vars *v)
{
	char **out = sp_xcalloc(tmpl->n + 1, sizeof(char *));
	for (size_t i = 0; i < tmpl->n; i++) {
		out[i] = sp_expand(tmpl->v[i], v);
		if (!out[i]) /* the parser refused unknown placeholders: keep it literal */
			out[i] = sp_xstrdup(tmpl->v[i]);
	}
	return out;
}

void sp_soak_free_argv(char **argv)
{
	for (char **a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

void sp_soak_vars_for(struct run *r, struct scen_state *st, unsigned long long gen, sp_soak_vars *v, char *idbuf,
		      size_t idsz, char *genbuf, size_t gensz)
{
	*v = r->gvars;
	snprintf(genbuf, gensz, "%llu", gen);
	snprintf(idbuf, idsz, "%s-%llu", st->sid, gen);
	v->id = idbuf;
	v->sid = st->sid;
	v->gen = genbuf;
	v->scenario = st->sc->id;
}

/* ---- paths and files ---- */
bool sp_soak_dir_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

bool sp_soak_path_in_state(const struct run *r, const char *path)
{
	size_t n = strlen(r->state_dir);
	return path && !strncmp(path, r->state_dir, n) && path[n] == '/' && path[n + 1] && !strstr(path, "/../") &&
	       !sp_endswith(path, "/..");
}

/* the metrics file (Prometheus text format, node_exporter textfile
 * collector) is written as NAME.tmp renamed over NAME: both must be possible */
int sp_soak_check_metrics_path(const char *path, sp_error *err)
{
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return sp_usage(err, "--metrics-file %s: is a directory", path);
	char *tmp = sp_xasprintf("%s.tmp", path);
	bool existed = stat(tmp, &st) == 0;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	int e = errno;
	if (fd >= 0) {
		close(fd);
		if (!existed)
			unlink(tmp);
	}
	free(tmp);
	if (fd < 0)
		return sp_usage(err, "--metrics-file %s: cannot write %s.tmp there: %s", path, path, strerror(e));
	return 0;
}

int sp_soak_port_read(const char *path)
{
	char buf[32];
	if (!path || sp_read_file(path, buf, sizeof buf) <= 0)
		return -1;
	char *end;
	long p = strtol(buf, &end, 10);
	if (end == buf || (*end && *end != '\n') || p < 1 || p > 65535)
		return -1;
	return (int)p;
}

/* Only loopback: refused, or no answer within 300 ms, is 0. */
int sp_soak_port_accepts(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int rc = connect(fd, (struct sockaddr *)&a, sizeof a);
	if (rc < 0 && errno == EINPROGRESS) {
		struct pollfd pf = {.fd = fd, .events = POLLOUT};
		int err = 0;
		socklen_t el = sizeof err;
		rc = poll(&pf, 1, 300) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0 ? 0 : -1;
	}
	close(fd);
	return rc == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int sp_soak_command_lines(struct run *r, const sp_strv *cmd, const sp_soak_vars *v, sp_strv *out)
{
	char **argv = sp_soak_expand_argv(cmd, v);
	sp_soak_capture *cap = sp_xcalloc(1, sizeof *cap);
	sp_soak_proc_result pr;
	sp_error err;
	sp_soak_run_opts ro = {.timeout_ms = r->w.timeout_ms, .interrupt_ms = -1, .envp = r->envp, .stderr_null = true};
	int rc = argv ? sp_proc_run(argv, &ro, cap, &pr, &err) : -1;
	sp_soak_free_argv(argv);
	if (rc < 0 || !sp_proc_ok(&pr) || cap->total > cap->head_len) {
		free(cap);
		return -1;
	}
	char *text = sp_capture_text(cap, NULL);
	free(cap);
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *t = sp_trim(l);
		if (*t)
			sp_strv_push(out, t);
	}
	free(text);
	if (out->n)
		qsort(out->v, out->n, sizeof *out->v, cmp_str);
	return 0;
}

/* ---- step lists ---- */
bool sp_soak_run_steps(struct run *r, struct scen_state *st, const sp_soak_wsteps *steps, unsigned long long gen)
{
	for (size_t i = 0; i < steps->n; i++) {
		if (atomic_load(&r->sch.abort_ops))
			return false;
		if (r->sch.run_step(r, st, &steps->v[i], gen, false, -1, 0, NULL) != OP_OK)
			return false;
	}
	return true;
}

bool sp_soak_run_global_steps(struct run *r, const sp_soak_wsteps *steps, const char *section, int max_timeout_ms)
{
	bool all = true;
	for (size_t i = 0; i < steps->n; i++) {
		const sp_soak_wstep *s = &steps->v[i];
		char **argv = sp_soak_expand_argv(&s->argv, &r->gvars);
		sp_soak_capture *cap = sp_capture_for_thread(SP_STEP_HALF);
		sp_soak_proc_result res;
		sp_error err = {0};
		int tmo = max_timeout_ms > 0 && s->timeout_ms > max_timeout_ms ? max_timeout_ms : s->timeout_ms;
		sp_soak_run_opts ro = {.timeout_ms = tmo, .interrupt_ms = -1, .envp = r->envp};
		char code[64] = "internal";
		bool ok = false;
		if (sp_proc_run(argv, &ro, cap, &res, &err) == 0) {
			sp_proc_describe(&res, code, sizeof code);
			ok = s->expect_fail ? (!res.spawn_errno && !res.timed_out && !sp_proc_ok(&res)) : sp_proc_ok(&res);
		}
		size_t tlen;
		const char *text = sp_capture_text_thread(cap, &tlen);
		char *cmd = sp_soak_join_argv(argv);
		char *hdr = sp_xasprintf("## ts=%.3f %s op=%s result=%s %s argv: %s", sp_soak_ts_now(r), section, s->op,
					 ok ? "ok" : "fail", code, cmd);
		char name[160];
		snprintf(name, sizeof name, "%s.%s.log", section, s->op);
		if (r->rec.bundle_made)
			sp_bundle_log(&r->rec.b, name, hdr, text, tlen);
		if (!ok)
			sp_soak_note(&r->notes, "%s step '%s' failed (%s); see logs/%s", section, s->op, code, name);
		free(hdr);
		free(cmd);
		sp_soak_free_argv(argv);
		if (!ok)
			all = false;
	}
	return all;
}
