/* Child process handling for the soak runner (see proc.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "soak/proc.h"
#include "core/spawn.h"
#include "core/util.h"


static size_t cap_half(const sp_soak_capture *c)
{
	return c->half && c->half < SP_CAP_HALF ? c->half : SP_CAP_HALF;
}

void sp_capture_add(sp_soak_capture *c, const char *buf, size_t len)
{
	size_t half = cap_half(c);
	c->total += len;
	if (c->head_len < half) {
		size_t n = half - c->head_len;
		if (n > len)
			n = len;
		memcpy(c->head + c->head_len, buf, n);
		c->head_len += n;
		buf += n;
		len -= n;
	}
	if (len > half) { /* only the last half bytes can stay */
		buf += len - half;
		len = half;
	}
	while (len > 0) {
		size_t n = half - c->tail_pos;
		if (n > len)
			n = len;
		memcpy(c->tail + c->tail_pos, buf, n);
		c->tail_pos = (c->tail_pos + n) % half;
		if (c->tail_len < half)
			c->tail_len = c->tail_len + n > half ? half : c->tail_len + n;
		buf += n;
		len -= n;
	}
}

/* ---- the calling thread's own buffers: one key for all, freed when it ends ---- */
struct thread_bufs {
	sp_soak_tlbuf b[SP_SOAK_TL_N];
};
static pthread_key_t tl_key;
static pthread_once_t tl_once = PTHREAD_ONCE_INIT;

static void tl_free(void *v)
{
	struct thread_bufs *t = v;
	for (size_t i = 0; i < SP_SOAK_TL_N; i++)
		free(t->b[i].p);
	free(t);
}

static void tl_key_make(void)
{
	pthread_key_create(&tl_key, tl_free);
}

sp_soak_tlbuf *sp_soak_thread_buf(enum sp_soak_tl which)
{
	pthread_once(&tl_once, tl_key_make);
	struct thread_bufs *t = pthread_getspecific(tl_key);
	if (!t) {
		t = sp_xcalloc(1, sizeof *t);
		pthread_setspecific(tl_key, t);
	}
	return &t->b[which];
}

sp_soak_capture *sp_capture_for_thread(size_t half)
{
	sp_soak_tlbuf *t = sp_soak_thread_buf(SP_SOAK_TL_CAPTURE);
	sp_soak_capture *c = t->p;
	if (!c) {
		c = sp_xcalloc(1, sizeof *c);
		volatile char *page = (volatile char *)c; /* resident once, not page by page */
		for (size_t off = 0; off < sizeof *c; off += 4096)
			page[off] = 0;
		t->p = c;
		t->cap = sizeof *c;
	}
	c->half = half;
	c->head_len = c->tail_len = c->tail_pos = 0;
	c->total = 0;
	return c;
}

/* When bytes were dropped, the kept head ends and the kept tail starts at a
 * line boundary: a partial line on either side of the cut is dropped with
 * the elided bytes. Redaction works line by line, so a line cut in two
 * ("...api_key=" | "s3cr3t") could otherwise leave a secret whose key was
 * elided. */
static char *capture_text_into(const sp_soak_capture *c, char *out, size_t *capp, size_t *lenp)
{
	unsigned long long elided = c->total - c->head_len - c->tail_len;
	size_t cap = c->head_len + c->tail_len + 80, len = 0;
	if (!out || *capp < cap)
		out = sp_xrealloc(out, cap);
	else
		cap = *capp;
	*capp = cap;
	size_t head_keep = c->head_len, tail_skip = 0;
	size_t half = cap_half(c);
	size_t start = c->tail_len < half ? 0 : c->tail_pos;
	if (elided > 0) {
		while (head_keep > 0 && c->head[head_keep - 1] != '\n')
			head_keep--;
		while (tail_skip < c->tail_len && c->tail[(start + tail_skip) % half] != '\n')
			tail_skip++;
		if (tail_skip < c->tail_len)
			tail_skip++; /* the newline ends the dropped partial line */
		elided += (c->head_len - head_keep) + tail_skip;
	}
	memcpy(out, c->head, head_keep);
	len = head_keep;
	if (elided > 0)
		len += (size_t)snprintf(out + len, cap - len, "[... %llu bytes elided ...]\n", elided);
	for (size_t i = tail_skip; i < c->tail_len; i++)
		out[len++] = c->tail[(start + i) % half];
	out[len] = '\0';
	if (lenp)
		*lenp = len;
	return out;
}

char *sp_capture_text(const sp_soak_capture *c, size_t *lenp)
{
	size_t cap = 0;
	return capture_text_into(c, NULL, &cap, lenp);
}

const char *sp_capture_text_thread(const sp_soak_capture *c, size_t *lenp)
{
	sp_soak_tlbuf *t = sp_soak_thread_buf(SP_SOAK_TL_TEXT);
	t->p = capture_text_into(c, t->p, &t->cap, lenp);
	return t->p;
}

/* ---- pids workers wait for ---- */
static pthread_rwlock_t spawn_lock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t track_mu = PTHREAD_MUTEX_INITIALIZER;
static pid_t *tracked;
static size_t ntracked, captracked;

static void track_add(pid_t pid)
{
	pthread_mutex_lock(&track_mu);
	if (ntracked == captracked) {
		captracked = captracked ? captracked * 2 : 64;
		tracked = sp_xrealloc(tracked, captracked * sizeof(pid_t));
	}
	tracked[ntracked++] = pid;
	pthread_mutex_unlock(&track_mu);
}

static void track_del(pid_t pid)
{
	pthread_mutex_lock(&track_mu);
	for (size_t i = 0; i < ntracked; i++)
		if (tracked[i] == pid) {
			tracked[i] = tracked[--ntracked];
			break;
		}
	pthread_mutex_unlock(&track_mu);
}

static bool is_tracked(pid_t pid)
{
	bool r = false;
	pthread_mutex_lock(&track_mu);
	for (size_t i = 0; i < ntracked && !r; i++)
		r = tracked[i] == pid;
	pthread_mutex_unlock(&track_mu);
	return r;
}

int sp_proc_reap_orphans(void)
{
	pid_t cand[512];
	size_t nc = 0;
	int reaped = 0;
	_cleanup_closedir_ DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	if (!d)
		return 0;
	while ((de = readdir(d)) && nc < SP_ARRAY_SIZE(cand)) {
		if (de->d_name[0] == '.')
			continue;
		char path[96], buf[8192];
		snprintf(path, sizeof path, "/proc/self/task/%s/children", de->d_name);
		if (sp_read_file(path, buf, sizeof buf) <= 0)
			continue;
		char *s = buf, *end;
		while (nc < SP_ARRAY_SIZE(cand)) {
			long v = strtol(s, &end, 10);
			if (end == s)
				break;
			s = end;
			if (v > 0 && !is_tracked((pid_t)v))
				cand[nc++] = (pid_t)v;
		}
	}
	if (!nc)
		return 0;
	/* every spawn that started before this point has registered its pid */
	pthread_rwlock_wrlock(&spawn_lock);
	for (size_t i = 0; i < nc; i++) {
		int st;
		if (!is_tracked(cand[i]) && waitpid(cand[i], &st, WNOHANG) > 0)
			reaped++;
	}
	pthread_rwlock_unlock(&spawn_lock);
	return reaped;
}

static int remaining_ms(uint64_t now, uint64_t deadline)
{
	if (deadline <= now)
		return 0;
	uint64_t ms = (deadline - now + 999999) / 1000000;
	return ms > 1000 ? 1000 : (int)ms;
}

/* ---- rlimits: the runner may raise its own; children get the original ---- */
static struct rlimit child_nofile;
static bool restore_nofile;

void sp_proc_raise_nofile(void)
{
	struct rlimit rl;
	if (restore_nofile || getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	struct rlimit up = rl;
	rlim_t want = 1 << 16;
	if (up.rlim_max != RLIM_INFINITY && up.rlim_max < want)
		want = up.rlim_max;
	if (up.rlim_cur != RLIM_INFINITY && up.rlim_cur >= want)
		return;
	up.rlim_cur = want;
	if (setrlimit(RLIMIT_NOFILE, &up) == 0) {
		child_nofile = rl;
		restore_nofile = true;
	}
}

static void to_capture(void *ctx, int stream, const char *buf, size_t len)
{
	(void)stream;
	if (ctx)
		sp_capture_add(ctx, buf, len);
}

/* what is already in the pipe once the leader exited (a grandchild that
 * keeps the pipe open must not hold the step up) */
static void drain_now(sp_child *c, sp_soak_capture *cap)
{
	char buf[16384];
	for (int i = 0; i < 64 && c->out >= 0; i++) {
		struct pollfd pf = {.fd = c->out, .events = POLLIN};
		if (poll(&pf, 1, 0) <= 0)
			break;
		ssize_t n = read(c->out, buf, sizeof buf);
		if (n <= 0)
			break;
		to_capture(cap, 1, buf, (size_t)n);
	}
	if (c->out >= 0) {
		close(c->out);
		c->out = -1;
	}
}

/* Spawned with core/spawn (own process group, SIGKILL when the spawning
 * thread dies, the original open-files limit); stdout and stderr in one
 * stream into the capture. The soak's own part: the pid is tracked before
 * the orphan reaper may look (spawn_lock), a planned interruption, the
 * run-wide abort flag, and after a kill the group is waited for. */
int sp_proc_run(char *const argv[], const sp_soak_run_opts *o, sp_soak_capture *cap, sp_soak_proc_result *res, sp_error *err)
{
	(void)err;
	memset(res, 0, sizeof *res);
	if (o->abort_flag && atomic_load(o->abort_flag)) {
		/* the run stopped at once: nothing more starts */
		res->aborted = true;
		res->start_ns = res->end_ns = sp_now_ns();
		return 0;
	}
	sp_spawn_opts so = {.capture_out = true, .err_to_out = !o->stderr_null, .envp = o->envp,
			    .die_with_parent = true, .keep_group = true, .sink = to_capture, .sink_ctx = cap,
			    .rlimit_nofile = restore_nofile ? &child_nofile : NULL};
	sp_child c;
	sp_error serr = {0};
	pthread_rwlock_rdlock(&spawn_lock);
	res->start_ns = sp_now_ns();
	int rc = sp_spawn(&c, argv, &so, &serr);
	if (rc == 0)
		track_add(c.pid); /* before the reaper can see it: it waits for the write lock */
	pthread_rwlock_unlock(&spawn_lock);
	if (rc < 0) {
		res->spawn_errno = serr.errnum ? serr.errnum : EIO;
		res->end_ns = sp_now_ns();
		return 0;
	}
	pid_t pid = c.pid;
	uint64_t deadline = res->start_ns + (uint64_t)o->timeout_ms * 1000000ull;
	uint64_t interrupt_at = o->interrupt_ms >= 0 ? res->start_ns + (uint64_t)o->interrupt_ms * 1000000ull : 0;
	bool killed = false;
	for (;;) {
		uint64_t now = sp_now_ns();
		int wait_ms = remaining_ms(now, deadline);
		if (interrupt_at && !res->interrupted) {
			int w2 = remaining_ms(now, interrupt_at);
			if (w2 < wait_ms)
				wait_ms = w2;
		}
		if (o->abort_flag && wait_ms > 100)
			wait_ms = 100;
		int pr = sp_child_poll(&c, wait_ms);
		if (pr != 0) /* exited (or poll failed: reap it below) */
			break;
		now = sp_now_ns();
		if (interrupt_at && !res->interrupted && now >= interrupt_at) {
			res->interrupted = true;
			res->interrupt_ns = now;
			/* our child, not yet reaped: its group id cannot have been reused */
			sp_child_signal(&c, o->interrupt_sig);
		}
		if (!killed && (now >= deadline || (o->abort_flag && atomic_load(o->abort_flag)))) {
			res->timed_out = now >= deadline;
			res->aborted = !res->timed_out;
			killed = true;
			sp_child_signal(&c, SIGKILL);
			deadline = now + 5000000000ull; /* keep polling for the exit */
		}
	}
	drain_now(&c, cap);
	sp_child_wait(&c, sp_now_ns() + 5000000000ull); /* reaps; the group is kept (keep_group) */
	res->status = c.status;
	res->end_ns = sp_now_ns();
	track_del(pid);
	if (killed || (res->interrupted && o->interrupt_sig == SIGKILL)) {
		/* the rest of the group got the signal too: wait (briefly) until it
		 * is gone, orphans reaped, so that no sample or inventory taken
		 * right after this sees a dying process of ours */
		uint64_t until = sp_now_ns() + 2000000000ull;
		while (kill(-pid, 0) == 0 && sp_now_ns() < until) {
			sp_proc_reap_orphans();
			struct timespec ts = {0, 5000000L};
			nanosleep(&ts, NULL);
		}
	}
	if (interrupt_at && !res->interrupted)
		res->interrupt_missed = true;
	sp_child_free(&c);
	return 0;
}

bool sp_proc_ok(const sp_soak_proc_result *r)
{
	return !r->spawn_errno && !r->timed_out && !r->interrupted && !r->aborted && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
}

void sp_proc_describe(const sp_soak_proc_result *r, char *buf, size_t size)
{
	if (r->spawn_errno)
		snprintf(buf, size, "spawn=%s", strerrorname_np(r->spawn_errno) ? strerrorname_np(r->spawn_errno) : "error");
	else if (r->timed_out)
		snprintf(buf, size, "timeout");
	else if (r->aborted)
		snprintf(buf, size, "aborted-by-stop");
	else if (WIFEXITED(r->status))
		snprintf(buf, size, "exit=%d", WEXITSTATUS(r->status));
	else if (WIFSIGNALED(r->status))
		snprintf(buf, size, "signal=%s", sigabbrev_np(WTERMSIG(r->status)) ? sigabbrev_np(WTERMSIG(r->status)) : "?");
	else
		snprintf(buf, size, "status=%d", r->status);
}
