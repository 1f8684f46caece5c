/* Processes for the live tier: spawn a runtime with piped stdio, read its
 * output with a deadline, stop it and reap it; find the sandbox's shell from
 * the host by its nonce. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live/live.h"

static void buf_add(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t nc = *cap ? *cap : 4096;
		while (*len + n + 1 > nc)
			nc *= 2;
		*buf = sp_xrealloc(*buf, nc);
		*cap = nc;
	}
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = '\0';
}

int sp_proc_spawn(sp_proc *p, char *const argv[], bool pipe_in, sp_error *err)
{
	int in[2] = {-1, -1}, out[2], errp[2];
	memset(p, 0, sizeof *p);
	p->in = p->out = p->err = -1;
	if (!p->omax)
		p->omax = 8u << 20;
	if (pipe_in && pipe2(in, O_CLOEXEC) < 0)
		return sp_fail_errno(err, errno, "pipe");
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0)
		return sp_fail_errno(err, errno, "pipe");
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0)
		return sp_fail_errno(err, errno, "fork");
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
		dup2(pipe_in ? in[0] : devnull, 0);
		dup2(out[1], 1);
		dup2(errp[1], 2);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		dprintf(2, "cannot execute %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	if (pipe_in) {
		close(in[0]);
		p->in = in[1];
	}
	close(out[1]);
	close(errp[1]);
	p->out = out[0];
	p->err = errp[0];
	p->pid = pid;
	return 0;
}

/* one poll round; returns 0 when both streams are at EOF */
static int pump(sp_proc *p, int timeout_ms)
{
	struct pollfd fds[2];
	int n = 0;
	if (p->out >= 0)
		fds[n++] = (struct pollfd){.fd = p->out, .events = POLLIN};
	if (p->err >= 0)
		fds[n++] = (struct pollfd){.fd = p->err, .events = POLLIN};
	if (n == 0)
		return 0;
	int r = poll(fds, (nfds_t)n, timeout_ms);
	if (r < 0)
		return errno == EINTR ? 1 : -errno;
	char buf[65536];
	for (int i = 0; i < n; i++) {
		if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		ssize_t got = read(fds[i].fd, buf, sizeof buf);
		if (got < 0 && errno == EINTR)
			continue;
		bool is_out = fds[i].fd == p->out;
		if (got <= 0) {
			close(fds[i].fd);
			if (is_out)
				p->out = -1;
			else
				p->err = -1;
			continue;
		}
		if (is_out) {
			if (p->olen + (size_t)got > p->omax) {
				p->overflow = true;
				continue; /* keep draining, drop the excess */
			}
			buf_add(&p->obuf, &p->olen, &p->ocap, buf, (size_t)got);
		} else if (p->elen < (1u << 20)) {
			buf_add(&p->ebuf, &p->elen, &p->ecap, buf, (size_t)got);
		}
	}
	return 1;
}

int sp_proc_read_until(sp_proc *p, const char *needle, uint64_t deadline_ns)
{
	for (;;) {
		if (needle && p->obuf && strstr(p->obuf, needle))
			return 1;
		uint64_t now = sp_now_ns();
		if (now >= deadline_ns)
			return -ETIMEDOUT;
		uint64_t left = (deadline_ns - now) / 1000000 + 1;
		int r = pump(p, left > 1000 ? 1000 : (int)left);
		if (r < 0)
			return r;
		if (r == 0)
			return needle && p->obuf && strstr(p->obuf, needle) ? 1 : 0;
	}
}

int sp_proc_finish(sp_proc *p, uint64_t deadline_ns)
{
	if (p->in >= 0) {
		close(p->in);
		p->in = -1;
	}
	int status = -1;
	if (p->pid <= 0)
		return -1;
	bool killed = false;
	for (;;) {
		pid_t w = waitpid(p->pid, &status, WNOHANG);
		if (w == p->pid)
			break;
		if (w < 0 && errno != EINTR) {
			status = -1;
			break;
		}
		if (!killed && sp_now_ns() >= deadline_ns) {
			kill(-p->pid, SIGKILL);
			kill(p->pid, SIGKILL);
			killed = true;
			deadline_ns = sp_now_ns() + 5000000000ull;
		} else if (killed && sp_now_ns() >= deadline_ns) {
			status = -1;
			break;
		}
		if (pump(p, 2) == 0)
			usleep(500);
	}
	/* drain what is left without blocking on grandchildren that hold the pipes */
	while (p->out >= 0 || p->err >= 0)
		if (pump(p, 50) <= 0 || sp_now_ns() > deadline_ns + 2000000000ull)
			break;
	p->pid = -1;
	return status;
}

void sp_proc_free(sp_proc *p)
{
	if (p->in >= 0)
		close(p->in);
	if (p->out >= 0)
		close(p->out);
	if (p->err >= 0)
		close(p->err);
	if (p->pid > 0) {
		kill(-p->pid, SIGKILL);
		kill(p->pid, SIGKILL);
		while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	free(p->obuf);
	free(p->ebuf);
	memset(p, 0, sizeof *p);
	p->in = p->out = p->err = -1;
}

int sp_run_cmd(char *const argv[], char **out, char **errout, unsigned timeout_ms)
{
	sp_proc p = {.omax = 16u << 20};
	sp_error err;
	if (out)
		*out = NULL;
	if (errout)
		*errout = NULL;
	if (sp_proc_spawn(&p, argv, false, &err) < 0)
		return -1;
	uint64_t deadline = sp_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	sp_proc_read_until(&p, NULL, deadline);
	int st = sp_proc_finish(&p, deadline);
	if (out)
		*out = p.obuf ? steal_pointer(&p.obuf) : sp_xstrdup("");
	if (errout)
		*errout = p.ebuf ? steal_pointer(&p.ebuf) : sp_xstrdup("");
	sp_proc_free(&p);
	if (st < 0)
		return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

bool sp_which(const char *name, char *out, size_t outsz)
{
	if (strchr(name, '/')) {
		if (access(name, X_OK) != 0)
			return false;
		snprintf(out, outsz, "%s", name);
		return true;
	}
	const char *path = getenv("PATH");
	_cleanup_free_ char *copy = sp_xstrdup(path && *path ? path : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
	char *save = NULL;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char cand[4096];
		snprintf(cand, sizeof cand, "%s/%s", d, name);
		if (access(cand, X_OK) == 0) {
			snprintf(out, outsz, "%s", cand);
			return true;
		}
	}
	return false;
}

int sp_lane_spawn(sp_lane *l, sp_strv *argv, sp_error *err)
{
	sp_strv_push(argv, "--");
	for (size_t i = 0; i < l->inside.n; i++)
		sp_strv_push(argv, l->inside.v[i]);
	int r = sp_proc_spawn(&l->proc, argv->v, true, err);
	sp_strv_free(argv);
	return r;
}

static int why_unless(bool ok, char *why, size_t whysz, const char *fmt, va_list ap)
{
	if (ok)
		return 0;
	vsnprintf(why, whysz, fmt, ap);
	return -1;
}

int sp_probe_root(char *why, size_t whysz, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = why_unless(geteuid() == 0, why, whysz, fmt, ap);
	va_end(ap);
	return r;
}

int sp_probe_tool(const char *bin, char *why, size_t whysz, const char *fmt, ...)
{
	char p[4096];
	va_list ap;
	va_start(ap, fmt);
	int r = why_unless(sp_which(bin, p, sizeof p), why, whysz, fmt, ap);
	va_end(ap);
	return r;
}

int sp_probe_cmd(char *const argv[], bool want_out, unsigned timeout_ms, const char *if_silent, char *why, size_t whysz)
{
	_cleanup_free_ char *out = NULL;
	_cleanup_free_ char *err = NULL;
	int rc = sp_run_cmd(argv, want_out ? &out : NULL, &err, timeout_ms);
	if (rc == 0 && (!want_out || sp_trim(out)[0]))
		return 0;
	char last[256];
	sp_last_line(err, last, sizeof last);
	snprintf(why, whysz, "%s %s fails (exit %d): %s", argv[0], argv[1], rc, last[0] ? last : if_silent);
	return -1;
}

pid_t sp_find_nonce_pid(const char *nonce)
{
	_cleanup_closedir_ DIR *d = opendir("/proc");
	if (!d)
		return -1;
	pid_t found = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		char path[64], buf[8192];
		/* comm first: it needs no lock on the target's memory, cmdline does */
		snprintf(path, sizeof path, "/proc/%s/comm", de->d_name);
		if (sp_read_file(path, buf, sizeof buf) <= 0 || strcmp(buf, "sh\n"))
			continue;
		snprintf(path, sizeof path, "/proc/%s/cmdline", de->d_name);
		ssize_t n = sp_read_file(path, buf, sizeof buf);
		if (n <= 0)
			continue;
		/* argv: "/bin/sh" "-c" SCRIPT NONCE ... */
		const char *a[4];
		size_t k = 0, off = 0;
		while (k < 4 && off < (size_t)n) {
			a[k++] = buf + off;
			off += strlen(buf + off) + 1;
		}
		if (k < 4 || strcmp(a[0], "/bin/sh") || strcmp(a[1], "-c") || strcmp(a[3], nonce))
			continue;
		if (found)
			return -1;
		found = (pid_t)atoi(de->d_name);
	}
	return found;
}

void sp_last_line(const char *text, char *out, size_t outsz)
{
	out[0] = '\0';
	if (!text)
		return;
	size_t n = strlen(text);
	while (n && isspace((unsigned char)text[n - 1]))
		n--;
	size_t s = n;
	while (s && text[s - 1] != '\n')
		s--;
	size_t len = n - s;
	if (len >= outsz)
		len = outsz - 1;
	memcpy(out, text + s, len);
	out[len] = '\0';
	for (char *c = out; *c; c++)
		if ((unsigned char)*c < 0x20)
			*c = ' ';
}
