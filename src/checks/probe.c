#include "checks/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <regex.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "checks/types.h"
#include "core/util.h"

void sp_probe_name(char *buf, size_t size, const char *dir)
{
	static unsigned counter;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	unsigned rnd = (unsigned)ts.tv_nsec ^ ((unsigned)getpid() << 16) ^ (counter * 2654435761u);
	snprintf(buf, size, "%s%s.sandprobe-%d-%u-%08x", dir, sp_endswith(dir, "/") ? "" : "/", (int)getpid(),
		 counter++, rnd);
}

unsigned sp_kernel_version(void)
{
	struct utsname u;
	if (uname(&u) < 0)
		return 0;
	unsigned a = 0, b = 0, c = 0;
	if (sscanf(u.release, "%u.%u.%u", &a, &b, &c) < 2)
		return 0;
	return a * 10000 + b * 100 + c;
}

void sp_private_mountns(void)
{
	if (unshare(CLONE_NEWNS) == 0)
		mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

struct seq_frame {
	int idx;
	union {
		max_align_t align;
		unsigned char data[SP_PROBE_SEQ_REC_MAX];
	} u;
};

int sp_probe_seq_run(const sp_probe_seq *s, sp_outcome *o)
{
	if (s->rec_size > SP_PROBE_SEQ_REC_MAX)
		return sp_why_errno(o, EINVAL, "a probe record of %zu bytes is over %d", s->rec_size, SP_PROBE_SEQ_REC_MAX);
	size_t fsz = offsetof(struct seq_frame, u) + s->rec_size, next = 0;
	while (next < s->n) {
		int pfd[2];
		pid_t pid = sp_fork_piped(pfd);
		if (pid < 0)
			return sp_why_errno(o, (int)-pid, "cannot start a probe child: %s", strerror((int)-pid));
		if (pid == 0) {
			for (size_t i = next; i < s->n; i++) {
				struct seq_frame f;
				memset(&f, 0, sizeof f);
				f.idx = (int)i;
				s->run(i, f.u.data, s->arg);
				if (write(pfd[1], &f, fsz) != (ssize_t)fsz)
					_exit(1);
			}
			_exit(0);
		}
		size_t last = next;
		bool timed_out = false;
		uint64_t deadline = sp_now_ns() + (uint64_t)s->timeout_ms * 1000000ull;
		struct seq_frame f;
		while (sp_read_until(pfd[0], &f, fsz, deadline, &timed_out) == fsz && f.idx >= 0 &&
		       (size_t)f.idx >= last && (size_t)f.idx < s->n) {
			s->got((size_t)f.idx, f.u.data, s->arg);
			last = (size_t)f.idx + 1;
		}
		close(pfd[0]);
		kill(pid, SIGKILL);
		int status = 0;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (last >= s->n)
			break;
		/* the child died (or hung) in probe `last` */
		int sig = WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL ? WTERMSIG(status) : 0;
		if (!s->lost(last, sig, timed_out, s->arg))
			break;
		next = last + 1;
	}
	return 0;
}

int sp_not_one_of(const char *name, const char *what, const char *(*name_at)(size_t i), size_t n, sp_outcome *o)
{
	char *why = o->why;
	size_t cap = sizeof o->why;
	o->errnum = 0;
	size_t w = (size_t)snprintf(why, cap, "'%.60s' is not %s (", name, what);
	for (size_t i = 0; i < n && w < cap; i++)
		w += (size_t)snprintf(why + w, cap - w, "%s%s", i ? ", " : "", name_at(i));
	if (w < cap)
		snprintf(why + w, cap - w, ")");
	return -1;
}

const char *sp_errname(int e)
{
	const char *n = e ? strerrorname_np(e) : "0";
	return n ? n : "E?";
}

int sp_private_dir(const sp_ctx *ctx, char *out, size_t size, sp_outcome *o)
{
	sp_strv dirs;
	sp_policy_list(ctx->policy, "fs.writable", &dirs);
	static const char *const fallback[] = {"/tmp", "/dev/shm", "/var/tmp", "/run"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(fallback); i++)
		sp_strv_push(&dirs, fallback[i]);
	int last = ENOENT;
	for (size_t i = 0; i < dirs.n; i++) {
		char tmpl[512];
		snprintf(tmpl, sizeof tmpl, "%s%s.sandprobe-XXXXXX", dirs.v[i], sp_endswith(dirs.v[i], "/") ? "" : "/");
		if (mkdtemp(tmpl)) {
			snprintf(out, size, "%s", tmpl);
			sp_strv_free(&dirs);
			return 0;
		}
		last = errno;
	}
	sp_strv_free(&dirs);
	return sp_why_errno(o, last, "%s", strerror(last));
}

int sp_private_dir_remove(const char *dir, sp_outcome *o)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (unlinkat(dirfd(d), de->d_name, 0) < 0 && errno == EISDIR)
				unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
		}
		closedir(d);
	}
	if (rmdir(dir) < 0)
		return sp_why_errno(o, errno, "%s", strerror(errno));
	struct stat st;
	if (lstat(dir, &st) == 0)
		return sp_why_errno(o, EEXIST, "%s", strerror(EEXIST));
	return 0;
}

int sp_write_probe(const char *path, bool write0, int *err)
{
	*err = 0;
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0) {
		*err = errno;
		return errno == ENOENT ? -1 : 0;
	}
	int ok = 1;
	/* a handler that rejects the empty write (EINVAL) was still reached */
	if (write0 && write(fd, "", 0) < 0 && (errno == EACCES || errno == EPERM || errno == EROFS)) {
		*err = errno;
		ok = 0;
	}
	close(fd);
	return ok;
}

int sp_create_probe(const char *dir, char *name, size_t size, int *err)
{
	*err = 0;
	sp_probe_name(name, size, dir);
	int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		*err = errno;
		return 0;
	}
	close(fd);
	int u = unlink(name);
	struct stat st;
	bool gone = lstat(name, &st) < 0 && errno == ENOENT;
	return u == 0 && gone ? 1 : -1;
}

uint64_t sp_cap_eff(void)
{
	char v[64];
	uint64_t m = 0;
	if (sp_status_field("/proc/self/status", "CapEff", v, sizeof v) == 0)
		sp_caps_parse(v, &m);
	return m;
}

int sp_seccomp_mode(void)
{
	char v[16];
	if (sp_status_field("/proc/self/status", "Seccomp", v, sizeof v) < 0)
		return -1;
	return atoi(v);
}

bool sp_no_new_privs(void)
{
	return prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
}

/* each line of uid_map: inside outside count */
static int id_map_each(bool gid, bool (*fn)(unsigned long in, unsigned long count, void *arg), void *arg)
{
	char buf[4096];
	ssize_t n = sp_read_file(gid ? "/proc/self/gid_map" : "/proc/self/uid_map", buf, sizeof buf);
	if (n < 0)
		return (int)n;
	char *save = NULL;
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		unsigned long in, outside, count;
		if (sscanf(l, "%lu %lu %lu", &in, &outside, &count) == 3 && fn(in, count, arg))
			return 1;
	}
	return 0;
}

struct id_q {
	unsigned long id, self;
	long found;
};

static bool id_in(unsigned long in, unsigned long count, void *arg)
{
	struct id_q *q = arg;
	return q->id >= in && q->id - in < count;
}

bool sp_id_mapped(unsigned id, bool gid)
{
	struct id_q q = {.id = id};
	return id_map_each(gid, id_in, &q) == 1;
}

static bool id_other(unsigned long in, unsigned long count, void *arg)
{
	struct id_q *q = arg;
	for (unsigned long i = 0; i < count && i < 4; i++)
		if (in + i != q->self && in + i != 65534 && in + i < 0xfffffffful) {
			q->found = (long)(in + i);
			return true;
		}
	return false;
}

long sp_other_mapped_id(unsigned self, bool gid)
{
	struct id_q q = {.self = self, .found = -1};
	id_map_each(gid, id_other, &q);
	return q.found;
}

/* the path lists (fs.*, env.mounts, lsm.landlock_hidden, priv.scan_roots
 * ...): absolute, since a relative one is looked up from wherever the
 * doctor runs, where "absent" would pass for "masked" */
static int path_parse(const char *s, sp_outcome *o)
{
	if (s[0] != '/') {
		sp_why(o, "'%.100s': not an absolute path", s);
		return -1;
	}
	if (strlen(s) >= PATH_MAX) {
		sp_why(o, "'%.60s...': longer than PATH_MAX", s);
		return -1;
	}
	return 0;
}

const sp_policy_type sp_ptype_paths = {.name = "paths", .what = "absolute paths", .list = true, .parse = path_parse};

/* ---- policy regexes ---- */

static size_t sat_add(size_t a, size_t b)
{
	return a > SIZE_MAX / 4 - b ? SIZE_MAX / 4 : a + b;
}

static size_t sat_mul(size_t a, size_t b)
{
	return b && a > SIZE_MAX / 4 / b ? SIZE_MAX / 4 : a * b;
}

/* An upper bound of the nodes an ERE compiles to: each atom (a character,
 * an escape, a bracket expression, a group) counts its size, and a
 * repetition multiplies the size of what it repeats (glibc duplicates a
 * counted repetition {n,m} max(n,m)+1 times and a '+' or '?' twice). */
static size_t ere_size(const char *p)
{
	enum { DEPTH = 64 };
	size_t total[DEPTH], last[DEPTH];
	int d = 0;
	total[0] = last[0] = 0;
#define ATOM(sz) (last[d] = (sz), total[d] = sat_add(total[d], last[d]))
	for (; *p; p++) {
		switch (*p) {
		case '\\':
			if (p[1])
				p++;
			ATOM(1);
			break;
		case '[': {
			const char *q = p + 1;
			if (*q == '^')
				q++;
			if (*q == ']')
				q++;
			while (*q && *q != ']') {
				if (*q == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '=')) {
					char end = q[1];
					const char *e = q + 2;
					while (*e && !(e[0] == end && e[1] == ']'))
						e++;
					q = *e ? e + 2 : e;
					continue;
				}
				q++;
			}
			p = *q ? q : q - 1;
			ATOM(1);
			break;
		}
		case '(':
			if (d + 1 >= DEPTH)
				return SIZE_MAX / 4;
			d++;
			total[d] = last[d] = 0;
			break;
		case ')':
			if (d == 0) {
				ATOM(1);
				break;
			}
			d--;
			ATOM(sat_add(total[d + 1], 1));
			break;
		case '|':
			total[d] = sat_add(total[d], 1);
			last[d] = 0;
			break;
		case '*':
		case '+':
		case '?':
			total[d] = sat_add(total[d], last[d]);
			last[d] = sat_mul(last[d], 2);
			break;
		case '{': {
			const char *q = p + 1;
			char *e;
			if (!isdigit((unsigned char)*q)) {
				ATOM(1);
				break;
			}
			unsigned long n = strtoul(q, &e, 10), m = n;
			if (*e == ',') {
				q = e + 1;
				if (isdigit((unsigned char)*q))
					m = strtoul(q, &e, 10);
				else
					e = (char *)q;
			}
			if (*e != '}') {
				ATOM(1);
				break;
			}
			unsigned long most = n > m ? n : m;
			size_t times = most >= SIZE_MAX / 4 ? SIZE_MAX / 4 : (size_t)most + 1;
			size_t grown = sat_mul(last[d], times);
			total[d] = sat_add(total[d] - last[d], grown);
			last[d] = grown;
			p = e;
			break;
		}
		default:
			ATOM(1);
		}
	}
#undef ATOM
	size_t sum = 0;
	for (int i = 0; i <= d; i++)
		sum = sat_add(sum, total[i]);
	return sum;
}

int sp_regex_compile(struct re_pattern_buffer *re, const char *pattern, int flags, sp_outcome *o)
{
	size_t nodes = ere_size(pattern);
	if (nodes > SP_REGEX_MAX_NODES)
		return sp_why(o, "bad regex: its repetitions multiply out to more than %d nodes (nested or counted "
				 "repetitions, as in a{1,99}{1,99} or a+++)",
			      SP_REGEX_MAX_NODES);
	int rc = regcomp(re, pattern, flags);
	if (rc) {
		char msg[120];
		regerror(rc, re, msg, sizeof msg);
		return sp_why(o, "bad regex: %s", msg);
	}
	return 0;
}

bool sp_policy_list_has(const sp_ctx *ctx, const char *key, const char *item)
{
	sp_strv v;
	sp_policy_list(ctx->policy, key, &v);
	bool has = sp_strv_contains(&v, item);
	sp_strv_free(&v);
	return has;
}

bool sp_expect_required(const sp_ctx *ctx, sp_result *r, const char *key, const char *expected)
{
	bool must = sp_policy_bool(ctx->policy, key, true);
	sp_expected(r, "%s", must ? expected : "any (not required by policy)");
	return must;
}

long sp_exec_status(void *a)
{
	const struct sp_exec_arg *ea = a;
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char *const argv[] = {(char *)ea->path, NULL};
		char *const envp[] = {NULL};
		execve(ea->path, argv, envp);
		int e = errno;
		ssize_t w = write(pfd[1], &e, sizeof e);
		(void)w;
		_exit(255);
	}
	close(pfd[1]);
	int e = 0;
	ssize_t n = read(pfd[0], &e, sizeof e);
	close(pfd[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (n == (ssize_t)sizeof e) {
		errno = e; /* the exec was refused */
		return -2;
	}
	if (!WIFEXITED(st)) {
		errno = EINTR;
		return -1;
	}
	return WEXITSTATUS(st);
}
