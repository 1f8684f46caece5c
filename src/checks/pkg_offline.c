/* Package managers that work offline, proven by function (pkg.*): each
 * manager the policy lists in pkg.offline installs a tiny package this check
 * writes itself, from a local file, with nothing but loopback reachable, and
 * the installed thing is then used; every install is undone.
 *
 *  pkg.pip   a wheel (a zip: module, METADATA, WHEEL, RECORD) goes into a
 *            venv made in a private temporary directory (python3 -m venv
 *            --without-pip --system-site-packages, then the venv's python
 *            -m pip install --no-index --no-deps; without a system pip, a
 *            venv with pip from ensurepip); the venv's python imports the
 *            module and must find it in the venv's site-packages.
 *  pkg.dpkg  a .deb (an ar of debian-binary, control.tar, data.tar, all
 *            uncompressed) with one file, /usr/local/bin/NAME, a shell
 *            script; dpkg -i installs it into the sandbox's own system, the
 *            script is run, then dpkg --purge removes it on every path
 *            (also after a failed install) and dpkg-query proves it gone.
 *            It refuses to start when a package of that name is known to
 *            dpkg or the file exists. The install and the purge hold dpkg's
 *            frontend lock (pkg.dpkg and pkg.apt may run at once).
 *  pkg.apt   the same kind of .deb installed by apt-get install ./FILE.deb
 *            with no sources, an empty lists directory and its own cache in
 *            the private directory, every proxy a loopback port nobody
 *            serves; then run, purged and proven gone as pkg.dpkg's.
 *  pkg.npm   an npm package tarball (package/package.json, package/index.js)
 *            installed with npm install --offline into --prefix in the
 *            private directory, its cache there too, the registry set to a
 *            loopback port nobody serves; node then require()s it and must
 *            resolve it below that prefix. Then npm install -g of the same
 *            tarball into a second prefix there (never the system's): its
 *            PREFIX/bin/NAME must lead into PREFIX/lib/node_modules and,
 *            run, print the token.
 *
 * Every name carries this run's pid and random tag, and the module, script
 * and package print a token made of it: only this run's install can print
 * it. Each step runs as its own process group, bounded; the check's own
 * bound is above the sum, so dpkg --purge always gets its turn. A manager
 * that is not on PATH is a skip with the reason; one that is there but does
 * not work is a fail. These checks change the system (dpkg and apt write
 * dpkg's database and /usr/local/bin), so they run only when the policy
 * asks. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checks/probe.h"
#include "checks/types.h"
#include "core/fsutil.h"
#include "core/spawn.h"
#include "core/util.h"
#include "catalog/catalog.h"

extern char **environ;

static const char *const managers[] = {"pip", "dpkg", "apt", "npm", NULL};
const sp_policy_type sp_ptype_pkg_managers = {
	.name = "pkg_managers", .what = "pip, dpkg, apt or npm", .list = true, .choices = managers};

/* ---- a byte buffer and the three archive formats ----------------------------------- */

typedef struct buf {
	unsigned char *p;
	size_t n, cap;
} buf;

static void put(buf *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 512;
		b->p = sp_xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void put_le(buf *b, uint32_t v, int bytes)
{
	unsigned char c[4];
	for (int i = 0; i < bytes; i++)
		c[i] = (unsigned char)(v >> (8 * i));
	put(b, c, (size_t)bytes);
}

static uint32_t crc32(const void *data, size_t n)
{
	const unsigned char *p = data;
	uint32_t c = 0xffffffffu;
	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
	}
	return ~c;
}

/* one ustar member (a regular file) */
static void tar_file(buf *b, const char *name, unsigned mode, const char *data)
{
	unsigned char h[512] = {0};
	size_t len = strlen(data);
	snprintf((char *)h, 100, "%s", name);
	snprintf((char *)h + 100, 8, "%07o", mode);
	snprintf((char *)h + 108, 8, "%07o", 0);
	snprintf((char *)h + 116, 8, "%07o", 0);
	snprintf((char *)h + 124, 12, "%011zo", len);
	snprintf((char *)h + 136, 12, "%011o", 0);
	h[156] = '0';
	memcpy(h + 257, "ustar\0"
			"00",
	       8);
	memcpy(h + 265, "root", 4);
	memcpy(h + 297, "root", 4);
	memset(h + 148, ' ', 8);
	unsigned sum = 0;
	for (size_t i = 0; i < sizeof h; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	put(b, h, sizeof h);
	put(b, data, len);
	static const unsigned char zero[512];
	put(b, zero, (512 - len % 512) % 512);
}

static void tar_end(buf *b)
{
	static const unsigned char zero[1024];
	put(b, zero, sizeof zero);
}

static void ar_member(buf *b, const char *name, const void *data, size_t len)
{
	char h[61];
	snprintf(h, sizeof h, "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", name, "0", "0", "0", "100644", len);
	put(b, h, 60);
	put(b, data, len);
	if (len % 2)
		put(b, "\n", 1);
}

/* a zip of stored (uncompressed) members */
typedef struct zipw {
	buf data, dir;
	unsigned count;
} zipw;

static void zip_file(zipw *z, const char *name, const char *content)
{
	uint32_t len = (uint32_t)strlen(content), crc = crc32(content, len), off = (uint32_t)z->data.n;
	uint16_t nl = (uint16_t)strlen(name);
	/* local header: signature, version 2.0, flags, stored, time, date (1980-01-01) */
	put_le(&z->data, 0x04034b50u, 4);
	put_le(&z->data, 20, 2);
	put_le(&z->data, 0, 2);
	put_le(&z->data, 0, 2);
	put_le(&z->data, 0, 2);
	put_le(&z->data, 0x21, 2);
	put_le(&z->data, crc, 4);
	put_le(&z->data, len, 4);
	put_le(&z->data, len, 4);
	put_le(&z->data, nl, 2);
	put_le(&z->data, 0, 2);
	put(&z->data, name, nl);
	put(&z->data, content, len);
	/* central directory entry */
	put_le(&z->dir, 0x02014b50u, 4);
	put_le(&z->dir, 0x0314, 2); /* made by: unix, 2.0 */
	put_le(&z->dir, 20, 2);
	put_le(&z->dir, 0, 2);
	put_le(&z->dir, 0, 2);
	put_le(&z->dir, 0, 2);
	put_le(&z->dir, 0x21, 2);
	put_le(&z->dir, crc, 4);
	put_le(&z->dir, len, 4);
	put_le(&z->dir, len, 4);
	put_le(&z->dir, nl, 2);
	put_le(&z->dir, 0, 2);
	put_le(&z->dir, 0, 2);
	put_le(&z->dir, 0, 2);
	put_le(&z->dir, 0, 2);
	put_le(&z->dir, 0100644u << 16, 4);
	put_le(&z->dir, off, 4);
	put(&z->dir, name, nl);
	z->count++;
}

static void zip_end(zipw *z, buf *out)
{
	put(out, z->data.p, z->data.n);
	put(out, z->dir.p, z->dir.n);
	put_le(out, 0x06054b50u, 4);
	put_le(out, 0, 2);
	put_le(out, 0, 2);
	put_le(out, z->count, 2);
	put_le(out, z->count, 2);
	put_le(out, (uint32_t)z->dir.n, 4);
	put_le(out, (uint32_t)z->data.n, 4);
	put_le(out, 0, 2);
	free(z->data.p);
	free(z->dir.p);
}

/* write b to dir/name (exclusive create); 0, or -1 with o (the call's
 * strerror, for the caller to prefix) */
static int write_out(const char *dir, const char *name, const buf *b, char *path, size_t size, sp_outcome *o)
{
	snprintf(path, size, "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return sp_why_errno(o, errno, "%s", strerror(errno));
	int rc = sp_write_all(fd, b->p, b->n), e = rc < 0 ? -rc : 0;
	if (close(fd) < 0 && !e)
		e = errno;
	return e ? sp_why_errno(o, e, "%s", strerror(e)) : 0;
}

/* ---- running a step ------------------------------------------------------------------ */

typedef struct step {
	int code; /* exit code, 128 + signal, -1 killed at the bound or not run */
	bool timed_out;
	bool absent;    /* the program could not be executed (ENOENT) */
	char err[200];  /* why it could not start */
	char out[4096]; /* stdout and stderr, the last 4 KiB */
	unsigned ms;
} step;

/* our environment with the given NAME=VALUE entries set over it */
static char **env_with(char *const *set)
{
	size_t n = 0, k = 0;
	while (environ && environ[n])
		n++;
	while (set[k])
		k++;
	char **e = sp_xcalloc(n + k + 1, sizeof *e);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		bool over = false;
		for (size_t j = 0; j < k && !over; j++) {
			size_t l = strcspn(set[j], "=") + 1;
			over = !strncmp(environ[i], set[j], l);
		}
		if (!over)
			e[m++] = environ[i];
	}
	for (size_t j = 0; j < k; j++)
		e[m++] = set[j];
	return e;
}

/* input, when not NULL, is written to the step's stdin (then closed) */
static void run_step_in(char *const argv[], char *const *envp, const char *input, unsigned timeout_ms, step *s)
{
	memset(s, 0, sizeof *s);
	s->code = -1;
	sp_child c;
	sp_error err = {0};
	sp_spawn_opts o = {.pipe_in = input != NULL, .capture_out = true, .err_to_out = true, .out_max = 1u << 20, .envp = envp, .die_with_parent = true};
	if (sp_spawn(&c, argv, &o, &err) < 0) {
		s->absent = err.errnum == ENOENT;
		snprintf(s->err, sizeof s->err, "%s", err.msg);
		snprintf(s->out, sizeof s->out, "%s", err.msg);
		return;
	}
	if (input && c.in >= 0) {
		(void)sp_write_all(c.in, input, strlen(input)); /* a short line: the pipe holds it */
		close(c.in);
		c.in = -1;
	}
	int rc = sp_child_wait(&c, sp_now_ns() + (uint64_t)timeout_ms * SP_NS_PER_MS);
	s->timed_out = rc == -ETIMEDOUT;
	s->code = s->timed_out ? -1 : sp_child_code(&c);
	s->ms = (unsigned)((c.end_ns > c.start_ns ? c.end_ns - c.start_ns : 0) / SP_NS_PER_MS);
	if (c.out_buf.data) {
		size_t l = c.out_buf.len, keep = l < sizeof s->out ? l : sizeof s->out - 1;
		memcpy(s->out, c.out_buf.data + l - keep, keep);
		s->out[keep] = '\0';
	}
	sp_child_free(&c);
}

static void run_step(char *const argv[], char *const *envp, unsigned timeout_ms, step *s)
{
	run_step_in(argv, envp, NULL, timeout_ms, s);
}

/* the last non-empty line of a step's output, shortened, for observed */
static const char *last_line(const step *s, char *line, size_t size)
{
	if (s->err[0]) {
		snprintf(line, size, "%s", s->err);
		return line;
	}
	size_t e = strlen(s->out);
	while (e && (s->out[e - 1] == '\n' || s->out[e - 1] == '\r' || s->out[e - 1] == ' '))
		e--;
	size_t b = e;
	while (b && s->out[b - 1] != '\n')
		b--;
	size_t l = e - b;
	snprintf(line, size, "%.*s%s", (int)(l > 160 ? 160 : l), s->out + b, l > 160 ? "..." : "");
	return line;
}

/* "exit 1 in 120 ms: LAST LINE" */
static void step_said(const step *s, char *out, size_t size)
{
	char line[200];
	last_line(s, line, sizeof line);
	if (s->err[0])
		snprintf(out, size, "%s", line);
	else if (s->timed_out)
		snprintf(out, size, "no end within its bound (killed): '%s'", line);
	else
		snprintf(out, size, "exit %d in %u ms: '%s'", s->code, s->ms, line);
}

/* does the step's last line end with text? ("No module named pip", not
 * "No module named pip._internal": a pip that is there but broken fails) */
static bool said_last(const step *s, const char *text)
{
	char line[200];
	last_line(s, line, sizeof line);
	return sp_endswith(line, text);
}

static bool step_ok(const step *s)
{
	return !s->err[0] && !s->timed_out && s->code == 0;
}

/* is name an executable file in a directory of $PATH? */
static bool on_path(const char *name)
{
	const char *p = getenv("PATH");
	sp_strv dirs;
	sp_strv_split(&dirs, p && *p ? p : "/usr/local/bin:/usr/bin:/bin", ":");
	bool found = false;
	for (size_t i = 0; i < dirs.n && !found; i++) {
		char f[PATH_MAX];
		snprintf(f, sizeof f, "%s/%s", dirs.v[i], name);
		struct stat st;
		found = stat(f, &st) == 0 && S_ISREG(st.st_mode) && access(f, X_OK) == 0;
	}
	sp_strv_free(&dirs);
	return found;
}

/* this run's tag: pid and 24 random bits, [0-9a-z] only (dpkg, npm and
 * Python all accept it in a name) */
static void make_tag(char *tag, size_t size)
{
	unsigned r = 0;
	if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
		r = (unsigned)sp_now_ns();
	snprintf(tag, size, "%ld%06x", (long)getpid(), r & 0xffffffu);
}

/* ---- selection ------------------------------------------------------------------------ */

static bool asks(const sp_ctx *ctx, const char *which, sp_outcome *o)
{
	if (sp_policy_list_has(ctx, "pkg.offline", which))
		return true;
	sp_why(o, "the policy does not ask for %s (pkg.offline)", which);
	return false;
}

static bool asks_pip(const sp_ctx *ctx, sp_outcome *o) { return asks(ctx, "pip", o); }
static bool asks_dpkg(const sp_ctx *ctx, sp_outcome *o) { return asks(ctx, "dpkg", o); }
static bool asks_apt(const sp_ctx *ctx, sp_outcome *o) { return asks(ctx, "apt", o); }
static bool asks_npm(const sp_ctx *ctx, sp_outcome *o) { return asks(ctx, "npm", o); }

/* the private directory is gone (after sp_rm_rf), or observed says why not */
static void remove_dir(sp_result *r, const char *dir)
{
	int rc = sp_rm_rf(dir);
	struct stat st;
	if (rc < 0 || lstat(dir, &st) == 0)
		sp_observed_add(r, "LEFT BEHIND: %s could not be removed: %s", dir, strerror(rc < 0 ? -rc : EEXIST));
}

/* ---- pkg.pip ------------------------------------------------------------------------- */

static void run_pip(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "pip installs a local wheel into a new venv with no index, and the venv's python imports it");
	if (!on_path("python3")) {
		sp_skip(r, "python3 is not on PATH %s", getenv("PATH") ? getenv("PATH") : "");
		return;
	}
	char dir[256];
	sp_outcome dir_o = {0};
	int rc = sp_private_dir(ctx, dir, sizeof dir, &dir_o);
	if (rc < 0) {
		sp_errorr(r, "no private directory for the venv: %s", dir_o.why);
		return;
	}
	char tag[32], mod[64], token[64], dist[64];
	make_tag(tag, sizeof tag);
	snprintf(mod, sizeof mod, "sandprobe_probe_%s", tag);
	snprintf(dist, sizeof dist, "%s-1.0", mod);
	snprintf(token, sizeof token, "sandprobe-pip-ok-%s", tag);
	/* the wheel */
	char meta[160], init[160], record[512], n_init[96], n_meta[128], n_wheel[128], n_record[128];
	snprintf(n_init, sizeof n_init, "%s/__init__.py", mod);
	snprintf(n_meta, sizeof n_meta, "%s.dist-info/METADATA", dist);
	snprintf(n_wheel, sizeof n_wheel, "%s.dist-info/WHEEL", dist);
	snprintf(n_record, sizeof n_record, "%s.dist-info/RECORD", dist);
	snprintf(init, sizeof init, "def ping():\n    return \"%s\"\n", token);
	snprintf(meta, sizeof meta, "Metadata-Version: 2.1\nName: %s\nVersion: 1.0\n", mod);
	snprintf(record, sizeof record, "%s,,\n%s,,\n%s,,\n%s,,\n", n_init, n_meta, n_wheel, n_record);
	zipw z = {0};
	zip_file(&z, n_init, init);
	zip_file(&z, n_meta, meta);
	zip_file(&z, n_wheel, "Wheel-Version: 1.0\nGenerator: sandprobe\nRoot-Is-Purelib: true\nTag: py3-none-any\n");
	zip_file(&z, n_record, record);
	buf whl = {0};
	zip_end(&z, &whl);
	char wname[128], wheel[512], venv[300], vpy[340], run[300];
	snprintf(wname, sizeof wname, "%s-1.0-py3-none-any.whl", mod);
	sp_outcome o = {0};
	rc = write_out(dir, wname, &whl, wheel, sizeof wheel, &o);
	free(whl.p);
	snprintf(venv, sizeof venv, "%s/venv", dir);
	snprintf(vpy, sizeof vpy, "%s/bin/python", venv);
	snprintf(run, sizeof run, "%s/run", dir);
	if (rc == 0 && mkdir(run, 0700) < 0)
		rc = sp_why_errno(&o, errno, "%s", strerror(errno));
	if (rc < 0) {
		sp_errorr(r, "cannot write the wheel in %s: %s", dir, o.why);
		remove_dir(r, dir);
		return;
	}
	char tmpdir[300];
	snprintf(tmpdir, sizeof tmpdir, "TMPDIR=%s", dir);
	char *set[] = {tmpdir, "PIP_NO_INDEX=1", "PIP_DISABLE_PIP_VERSION_CHECK=1", "PYTHONDONTWRITEBYTECODE=1", NULL};
	_cleanup_free_ char **envp = env_with(set);
	step s;
	char said[400];
	/* 1: the venv (its python links to the sandbox's; pip comes from the system) */
	char *a1[] = {"python3", "-m", "venv", "--without-pip", "--system-site-packages", venv, NULL};
	run_step(a1, envp, 20000, &s);
	step_said(&s, said, sizeof said);
	sp_observed(r, "python3 -m venv: %s", said);
	if (!step_ok(&s)) {
		if (said_last(&s, "No module named venv"))
			sp_skip(r, "python3 has no venv module");
		else
			sp_failr(r, "python3 -m venv failed");
		remove_dir(r, dir);
		return;
	}
	/* 2: pip install from the file, no index */
	char *a2[] = {vpy, "-m", "pip", "install", "--no-index", "--no-deps", "--no-cache-dir", "--no-input", wheel, NULL};
	run_step(a2, envp, 30000, &s);
	step_said(&s, said, sizeof said);
	sp_observed_add(r, "pip install %s: %s", wname, said);
	if (!step_ok(&s) && said_last(&s, "No module named pip")) {
		/* no pip beside python3: a venv of its own, pip from the wheel
		 * python3 bundles (ensurepip, offline), as an agent would make it */
		char venv2[320];
		snprintf(venv2, sizeof venv2, "%s/venv-pip", dir);
		char *b1[] = {"python3", "-m", "venv", venv2, NULL};
		run_step(b1, envp, 60000, &s);
		step_said(&s, said, sizeof said);
		sp_observed_add(r, "no system pip; python3 -m venv with ensurepip: %s", said);
		if (!step_ok(&s)) {
			if (strstr(s.out, "ensurepip"))
				sp_skip(r, "no pip: python3 has neither pip nor ensurepip");
			else
				sp_failr(r, "python3 -m venv (with pip) failed");
			remove_dir(r, dir);
			return;
		}
		snprintf(venv, sizeof venv, "%s", venv2);
		snprintf(vpy, sizeof vpy, "%s/bin/python", venv);
		run_step(a2, envp, 30000, &s);
		step_said(&s, said, sizeof said);
		sp_observed_add(r, "the venv's pip install %s: %s", wname, said);
	}
	if (!step_ok(&s)) {
		if (said_last(&s, "No module named pip"))
			sp_skip(r, "pip is not installed for python3 (No module named pip)");
		else
			sp_failr(r, "pip install of a local wheel into a venv failed");
		remove_dir(r, dir);
		return;
	}
	/* 3: the venv's python imports it, from the venv */
	char code[300];
	snprintf(code, sizeof code, "import %s as m; print(m.__file__); print(m.ping())", mod);
	char *a3[] = {vpy, "-c", code, NULL};
	char cwd[PATH_MAX];
	bool back = getcwd(cwd, sizeof cwd) != NULL;
	if (chdir(run) < 0) /* an empty directory: the import cannot come from the working directory */
		back = false;
	run_step(a3, envp, 15000, &s);
	if (back && chdir(cwd) < 0)
		back = false;
	step_said(&s, said, sizeof said);
	char where[400];
	snprintf(where, sizeof where, "%s/lib/", venv);
	bool in_venv = strstr(s.out, where) && strstr(s.out, "site-packages/");
	bool token_seen = strstr(s.out, token) != NULL;
	sp_observed_add(r, "import %s: %s%s", mod, said, in_venv ? "" : " (not from the venv)");
	if (step_ok(&s) && in_venv && token_seen)
		sp_pass(r, "pip installed a local wheel into a venv and python imported it from the venv's site-packages");
	else
		sp_failr(r, "the installed module %s", step_ok(&s) ? "did not come from the venv or printed no token" : "could not be imported");
	remove_dir(r, dir);
}

/* ---- pkg.dpkg and pkg.apt ---------------------------------------------------------- */

#define DEB_DIR "/usr/local/bin"
#define FRONTEND_LOCK "/var/lib/dpkg/lock-frontend"

/* dpkg-query -W NAME: 1 known to dpkg, 0 unknown, -1 cannot tell (observed
 * in r when not NULL) */
static int dpkg_knows(sp_result *r, char *const *envp, const char *name)
{
	char *a[] = {"dpkg-query", "-W", (char *)name, NULL};
	step s;
	run_step(a, envp, 10000, &s);
	if (!s.err[0] && !s.timed_out && s.code == 1 && strstr(s.out, "no packages found"))
		return 0;
	if (step_ok(&s))
		return 1;
	char said[400];
	step_said(&s, said, sizeof said);
	if (r)
		sp_observed_add(r, "dpkg-query -W %s: %s", name, said);
	return -1;
}

/* dpkg's frontend lock, as apt takes it, waited for up to wait_ms: pkg.dpkg
 * and pkg.apt may run at once, and dpkg itself does not wait. Returns the
 * descriptor holding it (dpkg is then run with DPKG_FRONTEND_LOCKED set), or
 * -1 with o: no lock file to open (a read-only database: dpkg then says so
 * itself) or errnum EAGAIN, still held by someone else at the end. */
static int frontend_lock(unsigned wait_ms, sp_outcome *o)
{
	int fd = open(FRONTEND_LOCK, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (fd < 0)
		return sp_why_errno(o, errno, "%s: %s", FRONTEND_LOCK, strerror(errno));
	uint64_t end = sp_now_ns() + (uint64_t)wait_ms * SP_NS_PER_MS;
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	while (fcntl(fd, F_SETLK, &fl) < 0) {
		int e = errno;
		if ((e != EAGAIN && e != EACCES) || sp_now_ns() >= end) {
			close(fd);
			if (e == EACCES || e == EAGAIN)
				return sp_why_errno(o, EAGAIN, "%s still held by another process", FRONTEND_LOCK);
			return sp_why_errno(o, e, "%s: %s", FRONTEND_LOCK, strerror(e));
		}
		usleep(50000);
	}
	return fd;
}

/* envp with DPKG_FRONTEND_LOCKED=1 over it when lock holds the lock */
static char **locked_env(char *const *envp, int lock)
{
	char *set[] = {"DPKG_FRONTEND_LOCKED=1", NULL};
	if (lock < 0) {
		size_t n = 0;
		while (envp[n])
			n++;
		char **e = sp_xcalloc(n + 1, sizeof *e);
		memcpy(e, envp, n * sizeof *e);
		return e;
	}
	char **saved = environ;
	environ = (char **)envp;
	char **e = env_with(set);
	environ = saved;
	return e;
}

/* Whatever dpkg recorded of name goes. After a failed unpack dpkg keeps the
 * name as "install ok not-installed", which --purge alone ignores: the
 * selection is set to purge first, and the purge then drops the entry; both
 * under the frontend lock. Returns dpkg_knows afterwards (0: gone); r (may
 * be NULL) gets what was said. */
static int purge_probe(sp_result *r, char *const *envp, const char *name)
{
	int left = dpkg_knows(r, envp, name);
	if (left == 0)
		return 0;
	sp_outcome lo = {0};
	int lock = frontend_lock(20000, &lo);
	if (lock < 0 && lo.errnum == EAGAIN && r)
		sp_observed_add(r, "%s still held by another process after 20 s", FRONTEND_LOCK);
	_cleanup_free_ char **lenv = locked_env(envp, lock);
	step s;
	char said[400], sel[100];
	snprintf(sel, sizeof sel, "%s purge\n", name);
	char *a1[] = {"dpkg", "--set-selections", NULL};
	run_step_in(a1, lenv, sel, 10000, &s);
	if (!step_ok(&s) && r) {
		step_said(&s, said, sizeof said);
		sp_observed_add(r, "dpkg --set-selections: %s", said);
	}
	char *a2[] = {"dpkg", "--purge", (char *)name, NULL};
	run_step(a2, lenv, 20000, &s);
	if (lock >= 0)
		close(lock);
	if (r) {
		step_said(&s, said, sizeof said);
		sp_observed_add(r, "dpkg --purge: %s", said);
	}
	return dpkg_knows(r, envp, name);
}

/* The kill path: when the runner kills this check at its bound (a forced
 * --timeout-ms shorter than the steps), the package must still go. A
 * janitor forked before the install leaves the check's process group (the
 * runner kills that group) and waits on a pipe: a 'd' then EOF means the
 * check purged it and it exits at once; EOF alone means the check died, and
 * it purges, bounded by the steps' own bounds. It holds none of the check's
 * descriptors (the runner's result pipe must see EOF). The normal path waits
 * for it. A whole sandbox torn down within the purge's time (its pid
 * namespace's init gone) takes the janitor with it. */
static pid_t start_janitor(char *const *envp, const char *name, int *wfd, sp_outcome *o)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return sp_why_errno(o, errno, "%s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return sp_why_errno(o, e, "%s", strerror(e));
	}
	if (pid == 0) {
		setsid();
		int keep = p[0] >= 3 ? p[0] : fcntl(p[0], F_DUPFD_CLOEXEC, 3);
		if (keep < 0)
			_exit(1);
		int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
		for (int fd = 0; fd < 3 && nul >= 0; fd++)
			dup2(nul, fd);
		if (keep > 3)
			close_range(3, (unsigned)keep - 1, 0);
		close_range((unsigned)keep + 1, ~0u, 0);
		char c = 0;
		ssize_t n;
		while ((n = read(keep, &c, 1)) < 0 && errno == EINTR)
			;
		if (n == 1 && c == 'd')
			_exit(0);
		_exit(purge_probe(NULL, envp, name) == 0 ? 0 : 1);
	}
	close(p[0]);
	*wfd = p[1];
	return pid;
}

/* the check purged it: the janitor exits without acting; wait for it */
static void stop_janitor(pid_t pid, int wfd)
{
	if (pid <= 0)
		return;
	ssize_t w = write(wfd, "d", 1);
	(void)w;
	close(wfd);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* the .deb: no directory entries in data.tar, so dpkg owns the one file and
 * its removal never takes a directory with it; 0, or -1 with o */
static int write_deb(const char *dir, const char *name, const char *token, const char *file, char *dname,
		     size_t dnsz, char *debpath, size_t dpsz, sp_outcome *o)
{
	char control[300], script[200], member[160];
	snprintf(control, sizeof control,
		 "Package: %s\nVersion: 1.0\nArchitecture: all\nMaintainer: sandprobe <nobody@invalid>\n"
		 "Priority: optional\nSection: misc\nDescription: sandprobe doctor offline probe (removed at once)\n",
		 name);
	snprintf(script, sizeof script, "#!/bin/sh\necho %s\n", token);
	snprintf(member, sizeof member, ".%s", file);
	buf ct = {0}, dt = {0}, deb = {0};
	tar_file(&ct, "./control", 0644, control);
	tar_end(&ct);
	tar_file(&dt, member, 0755, script);
	tar_end(&dt);
	put(&deb, "!<arch>\n", 8);
	ar_member(&deb, "debian-binary", "2.0\n", 4);
	ar_member(&deb, "control.tar", ct.p, ct.n);
	ar_member(&deb, "data.tar", dt.p, dt.n);
	snprintf(dname, dnsz, "%s_1.0_all.deb", name);
	int rc = write_out(dir, dname, &deb, debpath, dpsz, o);
	free(ct.p);
	free(dt.p);
	free(deb.p);
	return rc;
}

/* apt-get install of a local file with no way out: no sources, an empty
 * lists directory and its own cache (nothing but the file to choose from,
 * nothing of the system's apt state written but dpkg's), every proxy a
 * loopback port nobody serves (a misconfiguration can only reach loopback),
 * no retries; it waits up to 20 s for dpkg's frontend lock. 0, or -1 with o
 * (a directory could not be made) */
static int apt_install(const char *dir, const char *debpath, char *const *envp, step *s, sp_outcome *o)
{
	char cache[300], lists[300], partial[320], parts[300], ext[300];
	snprintf(cache, sizeof cache, "%s/apt-cache", dir);
	snprintf(lists, sizeof lists, "%s/apt-lists", dir);
	snprintf(partial, sizeof partial, "%s/partial", lists);
	snprintf(parts, sizeof parts, "%s/apt-sources.d", dir);
	snprintf(ext, sizeof ext, "%s/apt-extended_states", dir);
	if (mkdir(cache, 0700) < 0 || mkdir(lists, 0700) < 0 || mkdir(partial, 0700) < 0 || mkdir(parts, 0700) < 0)
		return sp_why_errno(o, errno, "%s", strerror(errno));
	char o_cache[320], o_lists[320], o_parts[330], o_ext[330];
	snprintf(o_cache, sizeof o_cache, "Dir::Cache=%s", cache);
	snprintf(o_lists, sizeof o_lists, "Dir::State::Lists=%s", lists);
	snprintf(o_parts, sizeof o_parts, "Dir::Etc::SourceParts=%s", parts);
	snprintf(o_ext, sizeof o_ext, "Dir::State::extended_states=%s", ext);
	char *a[] = {"apt-get", "install", "-y", "-qq", "--no-install-recommends",
		     "-o", o_cache, "-o", o_lists, "-o", "Dir::Etc::SourceList=/dev/null", "-o", o_parts,
		     "-o", o_ext, "-o", "Acquire::http::Proxy=http://127.0.0.1:9/",
		     "-o", "Acquire::https::Proxy=http://127.0.0.1:9/", "-o", "Acquire::ftp::Proxy=http://127.0.0.1:9/",
		     "-o", "Acquire::Retries=0", "-o", "Acquire::Languages=none", "-o", "APT::Sandbox::User=root",
		     "-o", "DPkg::Lock::Timeout=20",
		     (char *)debpath, NULL};
	run_step(a, envp, 40000, s);
	return 0;
}

/* pkg.dpkg (apt false): dpkg -i; pkg.apt: apt-get install ./FILE.deb */
static void run_deb(const sp_ctx *ctx, sp_result *r, bool apt)
{
	const char *tool = apt ? "apt-get" : "dpkg";
	if (!on_path(tool) || !on_path("dpkg") || !on_path("dpkg-query")) {
		sp_skip(r, "%s is not on PATH %s",
			!on_path(tool) ? tool : (on_path("dpkg") ? "dpkg-query" : "dpkg"),
			getenv("PATH") ? getenv("PATH") : "");
		return;
	}
	struct stat st;
	if (stat(DEB_DIR, &st) < 0 || !S_ISDIR(st.st_mode)) {
		sp_errorr(r, "%s, where the probe package puts its program, is not a directory", DEB_DIR);
		return;
	}
	char tag[32], name[64], token[64], file[128];
	make_tag(tag, sizeof tag);
	snprintf(name, sizeof name, "sandprobe-%s-%s", apt ? "apt" : "probe", tag);
	snprintf(token, sizeof token, "sandprobe-%s-ok-%s", apt ? "apt" : "dpkg", tag);
	snprintf(file, sizeof file, DEB_DIR "/%s", name);
	char *set[] = {"DEBIAN_FRONTEND=noninteractive", NULL};
	_cleanup_free_ char **envp = env_with(set);
	int known = dpkg_knows(r, envp, name);
	if (known != 0 || lstat(file, &st) == 0) {
		if (known < 0)
			sp_errorr(r, "dpkg-query cannot say whether %s is known", name);
		else
			sp_errorr(r, "refused: %s already %s", name, known ? "is known to dpkg" : "exists as " DEB_DIR "/NAME");
		return;
	}
	char dir[256];
	sp_outcome dir_o = {0};
	int rc = sp_private_dir(ctx, dir, sizeof dir, &dir_o);
	if (rc < 0) {
		sp_errorr(r, "no private directory for the .deb: %s", dir_o.why);
		return;
	}
	char dname[128], debpath[512];
	sp_outcome o = {0};
	rc = write_deb(dir, name, token, file, dname, sizeof dname, debpath, sizeof debpath, &o);
	if (rc < 0) {
		sp_errorr(r, "cannot write the .deb in %s: %s", dir, o.why);
		remove_dir(r, dir);
		return;
	}
	int jfd = -1;
	pid_t janitor = start_janitor(envp, name, &jfd, &o);
	if (janitor < 0) {
		sp_errorr(r, "cannot start the janitor that purges the package if this check is killed: %s", o.why);
		remove_dir(r, dir);
		return;
	}
	step s;
	char said[400];
	if (apt) {
		rc = apt_install(dir, debpath, envp, &s, &o);
		if (rc < 0)
			snprintf(s.err, sizeof s.err, "cannot make apt's directories in %s: %s", dir, o.why);
	} else {
		int lock = frontend_lock(20000, &o);
		if (lock < 0 && o.errnum == EAGAIN)
			sp_observed(r, "%s still held by another process after 20 s", FRONTEND_LOCK);
		_cleanup_free_ char **lenv = locked_env(envp, lock);
		char *a1[] = {"dpkg", "-i", debpath, NULL};
		run_step(a1, lenv, 20000, &s);
		if (lock >= 0)
			close(lock);
	}
	bool installed = step_ok(&s);
	step_said(&s, said, sizeof said);
	sp_observed_add(r, "%s %s: %s", apt ? "apt-get install" : "dpkg -i", dname, said);
	bool ran = false;
	if (installed) {
		char *a2[] = {file, NULL};
		run_step(a2, envp, 5000, &s);
		ran = step_ok(&s) && strstr(s.out, token);
		step_said(&s, said, sizeof said);
		sp_observed_add(r, "%s: %s", file, said);
	}
	/* every path: whatever dpkg recorded goes */
	int left = purge_probe(r, envp, name);
	stop_janitor(janitor, jfd);
	bool file_left = lstat(file, &st) == 0;
	remove_dir(r, dir);
	if (left != 0 || file_left) {
		sp_observed_add(r, "LEFT BEHIND: %s%s%s", left ? name : "", left && file_left ? " and " : "",
				file_left ? file : "");
		sp_errorr(r, "the probe package could not be removed: remove it with dpkg --purge %s", name);
		return;
	}
	sp_observed_add(r, "purged: dpkg-query no longer knows %s, %s is gone", name, file);
	if (!installed)
		sp_failr(r, "%s of a local .deb failed", apt ? "apt-get install" : "dpkg -i");
	else if (!ran)
		sp_failr(r, "the installed program did not run or printed no token");
	else
		sp_pass(r, "%s installed a local .deb, its program ran, and it was purged", apt ? "apt-get" : "dpkg");
}

static void run_dpkg(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "dpkg installs a local .deb, its program runs, and dpkg --purge removes it");
	run_deb(ctx, r, false);
}

static void run_apt(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "apt-get installs a local .deb with no sources and no network, its program runs, and it is purged");
	run_deb(ctx, r, true);
}

/* ---- pkg.npm ------------------------------------------------------------------------- */

static void run_npm(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "npm installs a local package tarball offline into a private prefix, and node requires it");
	if (!on_path("npm")) {
		sp_skip(r, "npm is not on PATH %s", getenv("PATH") ? getenv("PATH") : "");
		return;
	}
	char dir[256];
	sp_outcome dir_o = {0};
	int rc = sp_private_dir(ctx, dir, sizeof dir, &dir_o);
	if (rc < 0) {
		sp_errorr(r, "no private directory for npm: %s", dir_o.why);
		return;
	}
	char tag[32], name[64], token[64];
	make_tag(tag, sizeof tag);
	snprintf(name, sizeof name, "sandprobe-probe-%s", tag);
	snprintf(token, sizeof token, "sandprobe-npm-ok-%s", tag);
	char pj[300], js[160];
	snprintf(pj, sizeof pj,
		 "{\"name\":\"%s\",\"version\":\"1.0.0\",\"main\":\"index.js\",\"bin\":{\"%s\":\"bin.js\"},"
		 "\"license\":\"MIT\"}\n",
		 name, name);
	snprintf(js, sizeof js, "exports.ping = () => \"%s\";\n", token);
	buf t = {0};
	tar_file(&t, "package/package.json", 0644, pj);
	tar_file(&t, "package/index.js", 0644, js);
	tar_file(&t, "package/bin.js", 0755, "#!/usr/bin/env node\nconsole.log(require('./index.js').ping());\n");
	tar_end(&t);
	char tname[128], tarball[512], prefix[300], cache[300];
	snprintf(tname, sizeof tname, "%s-1.0.0.tar", name);
	sp_outcome o = {0};
	rc = write_out(dir, tname, &t, tarball, sizeof tarball, &o);
	free(t.p);
	snprintf(prefix, sizeof prefix, "%s/prefix", dir);
	snprintf(cache, sizeof cache, "%s/cache", dir);
	if (rc == 0 && (mkdir(prefix, 0700) < 0 || mkdir(cache, 0700) < 0))
		rc = sp_why_errno(&o, errno, "%s", strerror(errno));
	if (rc < 0) {
		sp_errorr(r, "cannot write the package in %s: %s", dir, o.why);
		remove_dir(r, dir);
		return;
	}
	char e_cache[320], e_tmp[300];
	snprintf(e_cache, sizeof e_cache, "npm_config_cache=%s", cache);
	snprintf(e_tmp, sizeof e_tmp, "TMPDIR=%s", dir);
	/* nothing leaves the box: offline, and a registry on a loopback port
	 * nobody serves (the discard port) */
	char *set[] = {e_cache, e_tmp, "npm_config_registry=http://127.0.0.1:9/", "npm_config_offline=true",
		       "npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false",
		       "npm_config_ignore_scripts=true", NULL};
	_cleanup_free_ char **envp = env_with(set);
	step s;
	char said[400];
	char *a1[] = {"npm", "install", "--offline", "--no-save", "--no-audit", "--no-fund", "--prefix", prefix, tarball, NULL};
	run_step(a1, envp, 40000, &s);
	step_said(&s, said, sizeof said);
	sp_observed(r, "npm install %s: %s", tname, said);
	if (!step_ok(&s)) {
		sp_failr(r, "npm install of a local tarball failed");
		remove_dir(r, dir);
		return;
	}
	char code[300];
	snprintf(code, sizeof code, "console.log(require.resolve('%s')); console.log(require('%s').ping())", name, name);
	char *a2[] = {"node", "-e", code, NULL};
	char cwd[PATH_MAX];
	bool back = getcwd(cwd, sizeof cwd) != NULL;
	if (chdir(prefix) < 0)
		back = false;
	run_step(a2, envp, 15000, &s);
	if (back && chdir(cwd) < 0)
		back = false;
	step_said(&s, said, sizeof said);
	char where[400];
	snprintf(where, sizeof where, "%s/node_modules/%s/", prefix, name);
	bool below = strstr(s.out, where) != NULL, token_seen = strstr(s.out, token) != NULL;
	sp_observed_add(r, "node require('%s'): %s%s", name, said, below ? "" : " (not from the prefix)");
	if (!step_ok(&s) || !below || !token_seen) {
		sp_failr(r, "the installed package %s",
			 step_ok(&s) ? "did not come from the prefix or printed no token" : "could not be required");
		remove_dir(r, dir);
		return;
	}
	/* the global install, into a prefix of its own (never the system's):
	 * PREFIX/bin/NAME must be a link into PREFIX/lib/node_modules/NAME and
	 * print the token when run */
	char global[300], gbin[400], gmod[400];
	snprintf(global, sizeof global, "%s/global", dir);
	snprintf(gbin, sizeof gbin, "%s/bin/%s", global, name);
	snprintf(gmod, sizeof gmod, "%s/lib/node_modules/%s/", global, name);
	if (mkdir(global, 0700) < 0) {
		sp_errorr(r, "cannot make the global prefix %s: %s", global, strerror(errno));
		remove_dir(r, dir);
		return;
	}
	char *a3[] = {"npm", "install", "-g", "--offline", "--no-audit", "--no-fund", "--prefix", global, tarball, NULL};
	run_step(a3, envp, 40000, &s);
	step_said(&s, said, sizeof said);
	sp_observed_add(r, "npm install -g --prefix %s: %s", global, said);
	if (!step_ok(&s)) {
		sp_failr(r, "npm install -g of a local tarball into a private prefix failed");
		remove_dir(r, dir);
		return;
	}
	char real[PATH_MAX];
	if (!realpath(gbin, real)) {
		sp_observed_add(r, "%s: %s", gbin, strerror(errno));
		sp_failr(r, "npm install -g left no program in PREFIX/bin");
		remove_dir(r, dir);
		return;
	}
	char *a4[] = {gbin, NULL};
	back = getcwd(cwd, sizeof cwd) != NULL;
	if (chdir(prefix) < 0)
		back = false;
	run_step(a4, envp, 15000, &s);
	if (back && chdir(cwd) < 0)
		back = false;
	step_said(&s, said, sizeof said);
	bool linked = sp_startswith(real, gmod);
	token_seen = strstr(s.out, token) != NULL;
	sp_observed_add(r, "%s -> %s: %s", gbin, real, said);
	if (step_ok(&s) && linked && token_seen)
		sp_pass(r, "npm installed a local tarball offline, node required it from the prefix, and its bin from a "
			   "global install ran from PREFIX/bin");
	else
		sp_failr(r, "the globally installed bin %s",
			 !linked ? "is not a link into the prefix's node_modules" : "did not run or printed no token");
	remove_dir(r, dir);
}

/* ---- descriptors ---------------------------------------------------------------------- */

const sp_check sp_check_pkg_pip = {
	.id = SP_CKID(pkg_pip),
	.category = "packages",
	.title = "pip installs a local wheel into a venv offline, and python imports it",
	.rationale = "an agent that cannot install its dependencies from a local file cannot work offline",
	.techniques = "",
	.policy_keys = "pkg.offline:pkg_managers",
	.method = "action",
	.run = run_pip,
	.supported = asks_pip,
	/* venv 20 s + install 30 s (+ ensurepip venv 60 s + install 30 s) + import 15 s */
	.timeout_ms = 160000,
};

const sp_check sp_check_pkg_dpkg = {
	.id = SP_CKID(pkg_dpkg),
	.category = "packages",
	.title = "dpkg installs a local .deb offline, its program runs, and it is purged",
	.rationale = "an agent that cannot install a system package from a local file cannot work offline",
	.techniques = "",
	.policy_keys = "pkg.offline:pkg_managers",
	.method = "action",
	.run = run_dpkg,
	.supported = asks_dpkg,
	/* 3 queries 30 s + lock 20 s + install 20 s + run 5 s + lock 20 s + selection 10 s + purge 20 s:
	 * the purge always has its turn */
	.timeout_ms = 130000,
};

const sp_check sp_check_pkg_apt = {
	.id = SP_CKID(pkg_apt),
	.category = "packages",
	.title = "apt-get installs a local .deb with no sources and no network, its program runs, and it is purged",
	.rationale = "an agent that cannot apt-get install a local .deb cannot install system packages offline",
	.techniques = "",
	.policy_keys = "pkg.offline:pkg_managers",
	.method = "action",
	.run = run_apt,
	.supported = asks_apt,
	/* 3 queries 30 s + install 40 s (lock 20 s in it) + run 5 s + lock 20 s + selection 10 s + purge 20 s */
	.timeout_ms = 130000,
};

const sp_check sp_check_pkg_npm = {
	.id = SP_CKID(pkg_npm),
	.category = "packages",
	.title = "npm installs a local tarball offline, node requires it, and its bin from a global install runs",
	.rationale = "an agent that cannot install a node package from a local file cannot work offline",
	.techniques = "",
	.policy_keys = "pkg.offline:pkg_managers",
	.method = "action",
	.run = run_npm,
	.supported = asks_npm,
	/* install 40 s + require 15 s + global install 40 s + bin 15 s */
	.timeout_ms = 115000,
};
