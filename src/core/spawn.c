/* Child processes with a deadline and a process-group kill (see spawn.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/spawn.h"
#include "core/util.h"

#define OUT_MAX_DEFAULT (16u << 20)
#define ERR_MAX_DEFAULT (1u << 20)
#define KILL_GRACE_NS (5 * SP_NS_PER_S) /* how long a SIGKILLed leader may take to die */
#define DRAIN_NS (1 * SP_NS_PER_S)      /* reading after the exit: a process outside the group may hold a pipe */

void sp_child_init(sp_child *c)
{
	memset(c, 0, sizeof *c);
	c->pid = -1;
	c->in = c->out = c->err = c->pidfd = -1;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void buf_add(sp_spawn_buf *b, const char *data, size_t n)
{
	if (b->len + n > b->max) {
		b->overflow = true;
		n = b->max > b->len ? b->max - b->len : 0;
		if (n == 0)
			return;
	}
	if (b->len + n + 1 > b->cap) {
		size_t nc = b->cap ? b->cap : 4096;
		while (b->len + n + 1 > nc)
			nc *= 2;
		b->data = sp_xrealloc(b->data, nc);
		b->cap = nc;
	}
	memcpy(b->data + b->len, data, n);
	b->len += n;
	b->data[b->len] = '\0';
}

static void child_exec(char *const argv[], const sp_spawn_opts *o, pid_t parent, int in_fd, int out_fd, int err_fd,
		       int report_fd)
{
	setpgid(0, 0);
	if (o->die_with_parent) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
	}
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	int fds[3] = {in_fd >= 0 ? in_fd : devnull, out_fd >= 0 ? out_fd : devnull, err_fd >= 0 ? err_fd : devnull};
	for (int i = 0; i < 3; i++)
		if (fds[i] < 0 || dup2(fds[i], i) < 0)
			goto fail;
	if (o->rlimit_nofile && setrlimit(RLIMIT_NOFILE, o->rlimit_nofile) < 0)
		goto fail;
	/* the child starts with default dispositions and nothing blocked */
	static const int sigs[] = {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM};
	for (size_t i = 0; i < SP_ARRAY_SIZE(sigs); i++)
		signal(sigs[i], SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (o->seccomp_prog && syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, o->seccomp_prog) != 0)
		goto fail;
	if (o->path) {
		if (o->envp)
			execve(o->path, argv, o->envp);
		else
			execv(o->path, argv);
	} else {
		if (o->envp)
			execvpe(argv[0], argv, o->envp);
		else
			execvp(argv[0], argv);
	}
fail:;
	int e = errno ? errno : ENOEXEC;
	ssize_t w = write(report_fd, &e, sizeof e);
	(void)w;
	_exit(127);
}

int sp_spawn(sp_child *c, char *const argv[], const sp_spawn_opts *o, sp_error *err)
{
	static const sp_spawn_opts defaults = {0};
	if (!o) /* not "o = &defaults": nothing live across vfork may change before it */
		return sp_spawn(c, argv, &defaults, err);
	sp_child_init(c);
	c->out_buf.max = o->out_max ? o->out_max : OUT_MAX_DEFAULT;
	c->err_buf.max = o->err_max ? o->err_max : ERR_MAX_DEFAULT;
	c->keep_group = o->keep_group;
	c->overflow_kills = o->overflow_kills;
	c->sink = o->sink;
	c->sink_ctx = o->sink_ctx;
	if (!argv || !argv[0])
		return sp_fail_errno(err, EINVAL, "spawn: empty argument vector");
	int in[2] = {-1, -1}, out[2] = {-1, -1}, errp[2] = {-1, -1}, report[2] = {-1, -1};
	bool want_err = o->capture_err && !o->err_to_out;
	if ((o->pipe_in && pipe2(in, O_CLOEXEC) < 0) || ((o->capture_out || o->err_to_out) && pipe2(out, O_CLOEXEC) < 0) ||
	    (want_err && pipe2(errp, O_CLOEXEC) < 0) || pipe2(report, O_CLOEXEC) < 0) {
		int e = errno;
		for (int i = 0; i < 2; i++) {
			close_fd(&in[i]);
			close_fd(&out[i]);
			close_fd(&errp[i]);
			close_fd(&report[i]);
		}
		return sp_fail_errno(err, e, "spawn %s: pipe", argv[0]);
	}
	pid_t parent = getpid();
	c->start_ns = sp_now_ns();
	/* vfork: the child shares our memory until it execs, so it makes only system
	 * calls (as glibc's posix_spawn does) and reports an exec failure through
	 * the pipe; a fork of a large multi-threaded parent (the soak runner)
	 * costs page-table copies and a copy-on-write fault for every page the
	 * parent writes afterwards */
	pid_t pid = vfork();
	if (pid == 0)
		child_exec(argv, o, parent, in[0], out[1], o->err_to_out ? out[1] : errp[1], report[1]);
	int fork_errno = errno;
	close_fd(&in[0]);
	close_fd(&out[1]);
	close_fd(&errp[1]);
	close_fd(&report[1]);
	if (pid < 0) {
		close_fd(&in[1]);
		close_fd(&out[0]);
		close_fd(&errp[0]);
		close_fd(&report[0]);
		return sp_fail_errno(err, fork_errno, "spawn %s: fork", argv[0]);
	}
	setpgid(pid, pid); /* also here: no window in which the child is still in our group */
	int child_errno = 0;
	ssize_t n;
	while ((n = read(report[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR)
		;
	close_fd(&report[0]);
	if (n == (ssize_t)sizeof child_errno) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		close_fd(&in[1]);
		close_fd(&out[0]);
		close_fd(&errp[0]);
		return sp_fail_errno(err, child_errno, "cannot execute %s", o->path ? o->path : argv[0]);
	}
	c->pid = pid;
	c->in = in[1];
	c->out = out[0];
	c->err = errp[0];
	c->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (c->pidfd >= 0)
		fcntl(c->pidfd, F_SETFD, FD_CLOEXEC);
	return 0;
}

/* has the leader exited? (not reaped: its pid still pins the group) */
static bool leader_exited(sp_child *c)
{
	if (c->reaped)
		return true;
	siginfo_t si;
	memset(&si, 0, sizeof si);
	if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD; /* someone else reaped it: nothing to wait for */
	return si.si_pid == c->pid;
}

int sp_child_signal(sp_child *c, int sig)
{
	if (c->pid <= 0 || c->reaped)
		return -ESRCH;
	if (kill(-c->pid, sig) < 0) {
		int e = errno;
		/* the leader alone, should it have left the group (setpgid/setsid) */
		if (kill(c->pid, sig) < 0)
			return -e;
	}
	return 0;
}

static void deliver(sp_child *c, int stream, const char *buf, size_t n)
{
	if (c->sink) {
		c->sink(c->sink_ctx, stream, buf, n);
		return;
	}
	sp_spawn_buf *b = stream == 1 ? &c->out_buf : &c->err_buf;
	buf_add(b, buf, n);
	if (stream == 1 && b->overflow && c->overflow_kills && !c->overflowed) {
		c->overflowed = true;
		sp_child_signal(c, SIGKILL);
	}
}

/* one poll round over the output pipes (and the pidfd); returns 1 when
 * something happened or time passed, 0 when there is nothing left to read
 * and no pidfd to wait on, -errno on failure */
static int pump(sp_child *c, int timeout_ms)
{
	struct pollfd fds[3];
	int n = 0, iout = -1, ierr = -1;
	if (c->out >= 0) {
		iout = n;
		fds[n++] = (struct pollfd){.fd = c->out, .events = POLLIN};
	}
	if (c->err >= 0) {
		ierr = n;
		fds[n++] = (struct pollfd){.fd = c->err, .events = POLLIN};
	}
	if (c->pidfd >= 0 && !c->reaped)
		fds[n++] = (struct pollfd){.fd = c->pidfd, .events = POLLIN};
	if (n == 0) {
		if (timeout_ms > 0)
			usleep((useconds_t)(timeout_ms < 10 ? timeout_ms : 10) * 1000u);
		return 0;
	}
	int r = poll(fds, (nfds_t)n, timeout_ms);
	if (r < 0)
		return errno == EINTR ? 1 : -errno;
	char buf[65536];
	for (int i = 0; i < n; i++) {
		if (i != iout && i != ierr)
			continue;
		if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		ssize_t got = read(fds[i].fd, buf, sizeof buf);
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		int *fd = i == iout ? &c->out : &c->err;
		if (got <= 0) {
			close_fd(fd);
			continue;
		}
		deliver(c, i == iout ? 1 : 2, buf, (size_t)got);
	}
	return 1;
}

static int ms_until(uint64_t deadline_ns)
{
	uint64_t now = sp_now_ns();
	if (now >= deadline_ns)
		return 0;
	uint64_t left = (deadline_ns - now + SP_NS_PER_MS - 1) / SP_NS_PER_MS;
	return left > 1000 ? 1000 : (int)left;
}

int sp_child_poll(sp_child *c, int timeout_ms)
{
	if (leader_exited(c))
		return 1;
	/* without a pidfd poll cannot see the exit: look again at least every 10 ms */
	int t = c->pidfd < 0 && (timeout_ms < 0 || timeout_ms > 10) ? 10 : timeout_ms;
	uint64_t deadline = sp_now_ns() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms) * SP_NS_PER_MS;
	for (;;) {
		int r = pump(c, t);
		if (r < 0)
			return r;
		if (leader_exited(c))
			return 1;
		if (timeout_ms >= 0 && sp_now_ns() >= deadline)
			return 0;
	}
}

static bool has_needle(const sp_child *c, const char *needle)
{
	return needle && c->out_buf.data && strstr(c->out_buf.data, needle);
}

int sp_child_read_until(sp_child *c, const char *needle, uint64_t deadline_ns)
{
	for (;;) {
		if (has_needle(c, needle))
			return 1;
		if (c->out < 0 && c->err < 0)
			return 0;
		if (sp_now_ns() >= deadline_ns)
			return -ETIMEDOUT;
		/* the pidfd is not polled here: only output ends this wait */
		int saved = c->pidfd;
		c->pidfd = -1;
		int r = pump(c, ms_until(deadline_ns));
		c->pidfd = saved;
		if (r < 0)
			return r;
	}
}

static void reap(sp_child *c)
{
	int st = 0;
	pid_t w;
	while ((w = waitpid(c->pid, &st, 0)) < 0 && errno == EINTR)
		;
	c->status = w == c->pid ? st : -1;
	c->reaped = true;
	c->end_ns = sp_now_ns();
	close_fd(&c->pidfd);
}

int sp_child_wait(sp_child *c, uint64_t deadline_ns)
{
	close_fd(&c->in);
	if (c->pid <= 0)
		return -1;
	if (c->reaped)
		return c->timed_out ? -ETIMEDOUT : 0;
	bool killed = false;
	uint64_t give_up = 0;
	for (;;) {
		if (leader_exited(c))
			break;
		uint64_t now = sp_now_ns();
		if (!killed && now >= deadline_ns) {
			c->timed_out = true;
			sp_child_signal(c, SIGKILL);
			killed = true;
			give_up = now + KILL_GRACE_NS;
		} else if (killed && now >= give_up) {
			return -1;
		}
		int r = pump(c, killed ? 10 : ms_until(deadline_ns));
		if (r < 0 && r != -EINTR)
			usleep(1000);
	}
	/* the leader is a zombie: its group id is still ours to signal */
	if (!c->keep_group)
		kill(-c->pid, SIGKILL);
	uint64_t drain_end = sp_now_ns() + DRAIN_NS;
	int saved = c->pidfd;
	c->pidfd = -1;
	while ((c->out >= 0 || c->err >= 0) && sp_now_ns() < drain_end)
		if (pump(c, ms_until(drain_end)) < 0)
			break;
	c->pidfd = saved;
	reap(c);
	return c->timed_out ? -ETIMEDOUT : 0;
}

int sp_child_code(const sp_child *c)
{
	if (!c->reaped || c->status < 0)
		return -1;
	if (WIFEXITED(c->status))
		return WEXITSTATUS(c->status);
	if (WIFSIGNALED(c->status))
		return 128 + WTERMSIG(c->status);
	return -1;
}

void sp_child_describe(const sp_child *c, char *buf, size_t size)
{
	if (c->timed_out)
		snprintf(buf, size, "timed out after %.0f ms (killed)", (double)(c->end_ns - c->start_ns) / 1e6);
	else if (c->overflowed)
		snprintf(buf, size, "output past its bound (killed)");
	else if (!c->reaped || c->status < 0)
		snprintf(buf, size, "not reaped");
	else if (WIFEXITED(c->status))
		snprintf(buf, size, "exit %d", WEXITSTATUS(c->status));
	else if (WIFSIGNALED(c->status))
		snprintf(buf, size, "signal %d (%s)", WTERMSIG(c->status), strsignal(WTERMSIG(c->status)));
	else
		snprintf(buf, size, "status 0x%x", (unsigned)c->status);
}

void sp_child_free(sp_child *c)
{
	close_fd(&c->in);
	close_fd(&c->out);
	close_fd(&c->err);
	if (c->pid > 0 && !c->reaped) {
		sp_child_signal(c, SIGKILL);
		reap(c);
	}
	close_fd(&c->pidfd);
	free(c->out_buf.data);
	free(c->err_buf.data);
	sp_child_init(c);
}

int sp_run_cmd(char *const argv[], char **out, char **errout, unsigned timeout_ms)
{
	if (out)
		*out = NULL;
	if (errout)
		*errout = NULL;
	sp_child c;
	sp_error err;
	sp_spawn_opts o = {.capture_out = out != NULL, .capture_err = errout != NULL};
	if (sp_spawn(&c, argv, &o, &err) < 0) {
		if (errout)
			*errout = sp_xasprintf("%s\n", err.msg);
		if (out)
			*out = sp_xstrdup("");
		return -1;
	}
	int r = sp_child_wait(&c, sp_now_ns() + (uint64_t)timeout_ms * SP_NS_PER_MS);
	int code = r == 0 ? sp_child_code(&c) : -1;
	if (out)
		*out = c.out_buf.data ? steal_pointer(&c.out_buf.data) : sp_xstrdup("");
	if (errout) {
		if (r == -ETIMEDOUT) {
			char d[96];
			sp_child_describe(&c, d, sizeof d);
			*errout = sp_xasprintf("%s%s%s\n", c.err_buf.data ? c.err_buf.data : "",
					       c.err_buf.len && c.err_buf.data[c.err_buf.len - 1] != '\n' ? "\n" : "", d);
		} else {
			*errout = c.err_buf.data ? steal_pointer(&c.err_buf.data) : sp_xstrdup("");
		}
	}
	sp_child_free(&c);
	return code;
}

pid_t sp_fork_piped(int pfd[2])
{
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(pfd[0]);
		close(pfd[1]);
		return -e;
	}
	close(pfd[pid == 0 ? 0 : 1]);
	return pid;
}

struct call_msg {
	long ret;
	int err;
};

int sp_child_call(long (*fn)(void *arg), void *arg, unsigned timeout_ms, sp_call *out)
{
	memset(out, 0, sizeof *out);
	int pfd[2];
	pid_t pid = sp_fork_piped(pfd);
	if (pid < 0)
		return (int)pid;
	if (pid == 0) {
		errno = 0;
		long ret = fn(arg);
		struct call_msg m = {.ret = ret, .err = ret <= 0 ? errno : 0};
		ssize_t w = write(pfd[1], &m, sizeof m);
		_exit(w == (ssize_t)sizeof m ? 0 : 1);
	}
	struct call_msg m;
	uint64_t deadline = sp_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	size_t got = sp_read_until(pfd[0], &m, sizeof m, deadline, &out->timed_out);
	close(pfd[0]);
	if (out->timed_out)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got == sizeof m) {
		out->ran = true;
		out->ret = m.ret;
		out->err = m.err;
	}
	if (WIFSIGNALED(status) && !out->timed_out)
		out->sig = WTERMSIG(status);
	return 0;
}
