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
#include <unistd.h>

#include "live/live.h"

int sp_lane_proc_spawn(sp_lane *l, char *const argv[], sp_error *err)
{
	/* stdin piped (the sandbox's shell waits on it), stdout bounded (the report), stderr for the reason */
	sp_spawn_opts o = {.pipe_in = true, .capture_out = true, .capture_err = true, .out_max = 8u << 20,
			   .err_max = 1u << 20, .die_with_parent = true};
	sp_child_free(&l->proc);
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

int sp_lane_spawn(sp_lane *l, sp_strv *argv, sp_error *err)
{
	sp_strv_push(argv, "--");
	for (size_t i = 0; i < l->inside.n; i++)
		sp_strv_push(argv, l->inside.v[i]);
	int r = sp_lane_proc_spawn(l, argv->v, err);
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
