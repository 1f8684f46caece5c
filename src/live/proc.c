/* Processes for the live tier: spawn a lane's runtime (core/spawn does the
 * deadline and the process-group kill), find programs and the sandbox's
 * shell from the host by its nonce, and the adapters' probe helpers. */
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
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "live/live.h"

int sp_lane_proc_spawn(sp_live_lane *l, char *const argv[], sp_error *err)
{
	/* stdin piped (the sandbox's shell waits on it), stdout bounded (the report), stderr for the reason */
	sp_spawn_opts o = {.pipe_in = true, .capture_out = true, .capture_err = true, .out_max = 8u << 20, .err_max = 1u << 20, .die_with_parent = true, .seccomp_prog = l->prefilter};
	sp_child_free(&l->proc);
	/* what was tried, for the report: the runtime's argv up to the sandbox's own command */
	size_t len = 0;
	for (size_t i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 3;
	free(l->command);
	l->command = sp_xmalloc(len + 8);
	char *w = l->command;
	*w = '\0';
	for (size_t i = 0; argv[i]; i++) {
		if (l->inside.n && !strcmp(argv[i], l->inside.v[0]) && argv[i + 1] &&
		    (!strcmp(argv[i + 1], "-c") || !strcmp(argv[i], "--live-lane"))) {
			w += snprintf(w, len + 8 - (size_t)(w - l->command), "%s%s ...", i ? " " : "", argv[i]);
			break;
		}
		bool q = strpbrk(argv[i], " \t\"'") != NULL;
		w += snprintf(w, len + 8 - (size_t)(w - l->command), "%s%s%s%s", i ? " " : "", q ? "'" : "", argv[i], q ? "'" : "");
	}
	return sp_spawn(&l->proc, argv, &o, err);
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

int sp_lane_spawn(sp_live_lane *l, sp_strv *argv, sp_error *err)
{
	sp_strv_push(argv, "--");
	for (size_t i = 0; i < l->inside.n; i++)
		sp_strv_push(argv, l->inside.v[i]);
	int r = sp_lane_proc_spawn(l, argv->v, err);
	sp_strv_free(argv);
	return r;
}

static int why_unless(bool ok, sp_outcome *o, const char *fmt, va_list ap)
{
	if (ok)
		return 0;
	vsnprintf(o->why, sizeof o->why, fmt, ap);
	o->errnum = 0;
	return -1;
}

int sp_probe_root(sp_outcome *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = why_unless(geteuid() == 0, o, fmt, ap);
	va_end(ap);
	return r;
}

int sp_probe_tool(const char *bin, sp_outcome *o, const char *fmt, ...)
{
	char p[4096];
	va_list ap;
	va_start(ap, fmt);
	int r = why_unless(sp_which(bin, p, sizeof p), o, fmt, ap);
	va_end(ap);
	return r;
}

int sp_probe_cmd(char *const argv[], bool want_out, unsigned timeout_ms, const char *if_silent, sp_outcome *o)
{
	_cleanup_free_ char *out = NULL;
	_cleanup_free_ char *err = NULL;
	int rc = sp_run_cmd(argv, want_out ? &out : NULL, &err, timeout_ms);
	if (rc == 0 && (!want_out || sp_trim(out)[0]))
		return 0;
	char last[256];
	sp_last_line(err, last, sizeof last);
	sp_why(o, "%s %s fails (exit %d): %s", argv[0], argv[1], rc, last[0] ? last : if_silent);
	return -1;
}

/* the parent of a live process; -1 when it is gone or ending (a zombie, or being reaped: the kernel then
 * shows PPid 0) */
static pid_t ppid_of(pid_t pid)
{
	char path[64], buf[8192], v[32], st[32];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	/* both fields from one read: one moment of the process */
	if (sp_read_file(path, buf, sizeof buf) <= 0 || sp_text_field(buf, "PPid", v, sizeof v) < 0 ||
	    sp_text_field(buf, "State", st, sizeof st) < 0 || st[0] == 'Z' || st[0] == 'X')
		return -1;
	return (pid_t)atoi(v);
}

pid_t sp_find_nonce_pid(const char *nonce)
{
	_cleanup_closedir_ DIR *d = opendir("/proc");
	if (!d)
		return -1;
	pid_t found[1024]; /* the doctor forks its probes: copies of it carry its argv until they end */
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		char path[64], buf[8192];
		/* comm first: it needs no lock on the target's memory, cmdline does */
		snprintf(path, sizeof path, "/proc/%s/comm", de->d_name);
		if (sp_read_file(path, buf, sizeof buf) <= 0)
			continue;
		bool sh = !strcmp(buf, "sh\n"), doctor = !strcmp(buf, "sandprobe-docto\n");
		if (!sh && !doctor)
			continue;
		snprintf(path, sizeof path, "/proc/%s/cmdline", de->d_name);
		ssize_t len = sp_read_file(path, buf, sizeof buf);
		if (len <= 0)
			continue;
		/* argv: "/bin/sh" "-c" SCRIPT NONCE ..., or (the doctor image, no shell) DOCTOR "--live-lane" NONCE ... */
		const char *a[4];
		size_t k = 0, off = 0;
		while (k < 4 && off < (size_t)len) {
			a[k++] = buf + off;
			off += strlen(buf + off) + 1;
		}
		if (sh && (k < 4 || strcmp(a[0], "/bin/sh") || strcmp(a[1], "-c") || strcmp(a[3], nonce)))
			continue;
		if (doctor && (k < 3 || strcmp(a[1], "--live-lane") || strcmp(a[2], nonce)))
			continue;
		if (n == SP_ARRAY_SIZE(found))
			return -1;
		found[n++] = (pid_t)atoi(de->d_name);
	}
	if (n <= 1)
		return n ? found[0] : 0;
	/* the shell caught forking its child (a copy of it until the exec), or the doctor its probes: the one whose
	 * parent is not a copy; a copy that ended since it was listed is none of them */
	pid_t top = 0;
	for (size_t i = 0; i < n; i++) {
		pid_t pp = ppid_of(found[i]);
		if (pp < 0)
			continue;
		bool child = false;
		for (size_t k = 0; k < n; k++)
			child |= pp == found[k];
		if (!child) {
			if (top)
				return -1;
			top = found[i];
		}
	}
	return top ? top : -1;
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

ssize_t sp_cmdline(pid_t pid, char *buf, size_t size)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = 0;
	while (len < size - 1) {
		ssize_t n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

bool sp_cmdline_arg(const char *cl, size_t n, const char *flag, char *out, size_t outsz)
{
	size_t fl = strlen(flag);
	for (size_t off = 0; off < n;) {
		const char *a = cl + off;
		size_t al = strnlen(a, n - off);
		if (al > fl && !strncmp(a, flag, fl) && a[fl] == '=') {
			snprintf(out, outsz, "%s", a + fl + 1);
			return true;
		}
		if (al == fl && !strcmp(a, flag) && off + al + 1 < n) {
			snprintf(out, outsz, "%s", a + al + 1);
			return true;
		}
		off += al + 1;
	}
	return false;
}

size_t sp_procs_with(const char *needle, pid_t *pids, size_t max)
{
	_cleanup_closedir_ DIR *d = opendir("/proc");
	if (!d)
		return 0;
	size_t found = 0, nl = strlen(needle);
	pid_t self = getpid();
	struct dirent *de;
	static char buf[65536];
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid_t pid = (pid_t)atoi(de->d_name);
		if (pid == self)
			continue;
		ssize_t n = sp_cmdline(pid, buf, sizeof buf);
		if (n <= 0 || !memmem(buf, (size_t)n, needle, nl))
			continue;
		if (found < max)
			pids[found] = pid;
		found++;
	}
	return found;
}

bool sp_wait_procs_gone(const char *needle, unsigned timeout_ms, char *what, size_t whatsz)
{
	pid_t p[4];
	uint64_t end = sp_now_ns() + (uint64_t)timeout_ms * SP_NS_PER_MS;
	for (;;) {
		size_t n = sp_procs_with(needle, p, 4);
		if (n == 0)
			return true;
		if (sp_now_ns() >= end) {
			char comm[64] = "", path[64];
			snprintf(path, sizeof path, "/proc/%d/comm", (int)p[0]);
			sp_read_file(path, comm, sizeof comm);
			snprintf(what, whatsz, "%zu process(es) still carry %.64s (first: %d %s)", n, needle, (int)p[0], sp_trim(comm));
			return false;
		}
		usleep(5000);
	}
}

pid_t sp_find_shim(const char *id, char *addr, size_t addrsz, char *ns, size_t nssz, char *bundle, size_t bundlesz)
{
	pid_t p[16];
	size_t n = sp_procs_with(id, p, 16);
	static char cl[65536];
	addr[0] = ns[0] = bundle[0] = '\0';
	for (size_t i = 0; i < n && i < 16; i++) {
		ssize_t len = sp_cmdline(p[i], cl, sizeof cl);
		if (len <= 0 || !strstr(cl, "containerd-shim"))
			continue;
		char got[128] = "";
		if (!sp_cmdline_arg(cl, (size_t)len, "-id", got, sizeof got) || strcmp(got, id))
			continue;
		sp_cmdline_arg(cl, (size_t)len, "-address", addr, addrsz);
		sp_cmdline_arg(cl, (size_t)len, "-namespace", ns, nssz);
		char cwd[64];
		snprintf(cwd, sizeof cwd, "/proc/%d/cwd", (int)p[i]);
		ssize_t k = readlink(cwd, bundle, bundlesz - 1);
		bundle[k > 0 ? k : 0] = '\0';
		return p[i];
	}
	return 0;
}

void sp_run_cmds(char **const argvs[], size_t n, int *rcs, char **outs, char **errs, unsigned timeout_ms)
{
	sp_child *c = sp_xcalloc(n ? n : 1, sizeof *c);
	bool *up = sp_xcalloc(n ? n : 1, sizeof *up);
	for (size_t i = 0; i < n; i++) {
		sp_error err;
		sp_spawn_opts o = {.capture_out = outs != NULL, .capture_err = errs != NULL};
		up[i] = sp_spawn(&c[i], argvs[i], &o, &err) == 0;
		if (!up[i]) {
			rcs[i] = -1;
			if (outs)
				outs[i] = sp_xstrdup("");
			if (errs)
				errs[i] = sp_xasprintf("%s\n", err.msg);
		}
	}
	uint64_t deadline = sp_now_ns() + (uint64_t)timeout_ms * SP_NS_PER_MS;
	for (size_t i = 0; i < n; i++) {
		if (!up[i])
			continue;
		int r = sp_child_wait(&c[i], deadline);
		rcs[i] = r == 0 ? sp_child_code(&c[i]) : -1;
		if (outs)
			outs[i] = c[i].out_buf.data ? steal_pointer(&c[i].out_buf.data) : sp_xstrdup("");
		if (errs)
			errs[i] = c[i].err_buf.data ? steal_pointer(&c[i].err_buf.data) : sp_xstrdup("");
		sp_child_free(&c[i]);
	}
	free(c);
	free(up);
}

int sp_unix_connect(const char *path, bool nonblock, sp_outcome *o)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path)
		return sp_why_errno(o, ENAMETOOLONG, "%s", strerror(ENAMETOOLONG));
	memcpy(sa.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0)
		return sp_why_errno(o, errno, "%s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		int e = errno;
		close(fd);
		return sp_why_errno(o, e, "%s", strerror(e));
	}
	return fd;
}
