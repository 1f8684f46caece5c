/* doctor --bundle DIR (see dbundle.h). The tar is written by hand in the
 * POSIX ustar format (a 512-byte header per file, data padded to 512, two
 * zero blocks at the end), which every tar reads; the hashes are SHA-256
 * (core/sha256.h: mbedTLS's, which the static doctor carries for its TLS
 * checks anyway). */
#include "core/dbundle.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "core/output.h"
#include "core/sha256.h"
#include "core/util.h"

typedef struct snap {
	const sp_check *check;
	char *text;
} snap;

struct sp_dbundle {
	char *dir;
	snap *snaps;
	size_t nsnaps;
};

typedef struct bfile {
	char *name; /* relative to the bundle root */
	char *data;
	size_t len;
} bfile;

typedef struct bfiles {
	bfile *v;
	size_t n;
} bfiles;

static void add_file(bfiles *fs, const char *name, char *data, size_t len)
{
	fs->v = sp_xrealloc(fs->v, (fs->n + 1) * sizeof *fs->v);
	fs->v[fs->n++] = (bfile){.name = sp_xstrdup(name), .data = data, .len = len};
}

static void add_text(bfiles *fs, const char *name, const char *text)
{
	add_file(fs, name, sp_xstrdup(text), strlen(text));
}

int sp_dbundle_open(sp_dbundle **out, const char *dir, sp_error *err)
{
	struct stat st;
	if (stat(dir, &st) < 0)
		return sp_usage(err, "doctor: --bundle %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return sp_usage(err, "doctor: --bundle %s: not a directory", dir);
	if (access(dir, W_OK | X_OK) < 0)
		return sp_usage(err, "doctor: --bundle %s: not writable: %s", dir, strerror(errno));
	sp_dbundle *b = sp_xcalloc(1, sizeof *b);
	b->dir = sp_xstrdup(dir);
	*out = b;
	return 0;
}

void sp_dbundle_free(sp_dbundle *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nsnaps; i++)
		free(b->snaps[i].text);
	free(b->snaps);
	free(b->dir);
	free(b);
}

/* ---- the snapshot of a timed-out probe --------------------------------------------- */

typedef struct pstat {
	int pid, pgrp;
	char state;
	char comm[32];
	unsigned long long ticks; /* utime + stime */
	long long rss_pages;
} pstat;

static int read_pstat(int pid, pstat *p)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	if (sp_read_file(path, buf, sizeof buf) <= 0)
		return -1;
	char *lp = strchr(buf, '('), *rp = strrchr(buf, ')');
	if (!lp || !rp || rp < lp)
		return -1;
	snprintf(p->comm, sizeof p->comm, "%.*s", (int)(rp - lp - 1), lp + 1);
	unsigned long long ut, stt;
	long long rss;
	/* after ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
	 * cutime cstime priority nice threads itrealvalue starttime vsize rss */
	if (sscanf(rp + 1, " %c %*d %d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d %*d %*u %*u %lld",
		   &p->state, &p->pgrp, &ut, &stt, &rss) != 5)
		return -1;
	p->pid = pid;
	p->ticks = ut + stt;
	p->rss_pages = rss;
	return 0;
}

static pstat *all_pstats(size_t *n)
{
	DIR *d = opendir("/proc");
	size_t cap = 256, k = 0;
	pstat *v = sp_xmalloc(cap * sizeof *v);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (k == cap)
			v = sp_xrealloc(v, (cap *= 2) * sizeof *v);
		if (read_pstat(atoi(de->d_name), &v[k]) == 0)
			k++;
	}
	if (d)
		closedir(d);
	*n = k;
	return v;
}

typedef struct busy {
	int pid;
	char comm[32];
	char state;
	double cpu; /* percent of one CPU over the sample */
	long long rss_kib;
} busy;

static int by_cpu(const void *a, const void *b)
{
	const busy *x = a, *y = b;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? 1 : -1;
	return x->rss_kib < y->rss_kib ? 1 : x->rss_kib > y->rss_kib ? -1 : 0;
}

/* a text buffer that grows */
typedef struct sbuf {
	char *s;
	size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) SP_PRINTF(2, 3);
static void sb_add(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (b->len + (size_t)n + 1 > b->cap) {
		b->cap = (b->len + (size_t)n + 1) * 2;
		b->s = sp_xrealloc(b->s, b->cap);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static void sb_file(sbuf *b, const char *label, const char *path, size_t max)
{
	int e = 0;
	size_t len = 0;
	_cleanup_free_ char *t = sp_read_file_alloc(path, 1 << 20, &len, &e);
	if (!t) {
		sb_add(b, "%s: %s unreadable (%s)\n", label, path, strerror(e));
		return;
	}
	sb_add(b, "%s (%s):\n", label, path);
	size_t shown = len < max ? len : max;
	for (size_t i = 0; i < shown; i++)
		if (t[i] == '\0')
			t[i] = ' ';
	sb_add(b, "%.*s%s", (int)shown, t, shown && t[shown - 1] != '\n' ? "\n" : "");
	if (shown < len)
		sb_add(b, "  ... (%zu more bytes)\n", len - shown);
}

void sp_dbundle_on_timeout(const sp_check *c, pid_t pid, unsigned timeout_ms, void *arg)
{
	sp_dbundle *b = arg;
	sbuf s = {0};
	char t[32];
	sp_utc_now(t, sizeof t);
	sb_add(&s, "timeout snapshot, taken %s before the probe was killed\n", t);
	sb_add(&s, "check %s ran out of its %u ms; probe pid %d (its own process group)\n\n", c->id, timeout_ms, (int)pid);
	/* the probe and whatever it started */
	size_t n1;
	pstat *before = all_pstats(&n1);
	sb_add(&s, "process group %d:\n", (int)pid);
	for (size_t i = 0; i < n1; i++) {
		if (before[i].pgrp != pid)
			continue;
		char path[64], wchan[64] = "?", cmd[256] = "";
		snprintf(path, sizeof path, "/proc/%d/wchan", before[i].pid);
		if (sp_read_file(path, wchan, sizeof wchan) <= 0)
			snprintf(wchan, sizeof wchan, "?");
		snprintf(path, sizeof path, "/proc/%d/cmdline", before[i].pid);
		ssize_t cl = sp_read_file(path, cmd, sizeof cmd);
		for (ssize_t k = 0; k + 1 < cl; k++)
			if (cmd[k] == '\0')
				cmd[k] = ' ';
		sb_add(&s, "  pid %d state %c waiting in %s comm %s cmdline %s\n", before[i].pid, before[i].state, wchan,
		       before[i].comm, cl > 0 ? cmd : "(none)");
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/stack", (int)pid);
	sb_file(&s, "\nkernel stack of the probe", path, 4096);
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	sb_file(&s, "\nstatus of the probe", path, 4096);
	sb_file(&s, "\nload average", "/proc/loadavg", 256);
	static const char *const pressure[] = {"/proc/pressure/cpu", "/proc/pressure/memory", "/proc/pressure/io"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(pressure); i++)
		if (access(pressure[i], R_OK) == 0)
			sb_file(&s, "\npressure", pressure[i], 512);
	sb_file(&s, "\nmemory", "/proc/meminfo", 1024);
	/* the busiest processes: CPU over a 100 ms sample, then resident memory */
	struct timespec ts = {0, 100 * 1000000};
	nanosleep(&ts, NULL);
	size_t n2;
	pstat *after = all_pstats(&n2);
	long hz = sysconf(_SC_CLK_TCK);
	long page_kib = sysconf(_SC_PAGESIZE) / 1024;
	busy *v = sp_xcalloc(n2 ? n2 : 1, sizeof *v);
	for (size_t i = 0; i < n2; i++) {
		unsigned long long prev = after[i].ticks;
		for (size_t k = 0; k < n1; k++)
			if (before[k].pid == after[i].pid && before[k].ticks <= after[i].ticks)
				prev = before[k].ticks;
		v[i].pid = after[i].pid;
		v[i].state = after[i].state;
		snprintf(v[i].comm, sizeof v[i].comm, "%s", after[i].comm);
		v[i].cpu = hz > 0 ? (double)(after[i].ticks - prev) * 100.0 / (double)hz / 0.1 : 0;
		v[i].rss_kib = after[i].rss_pages * (page_kib > 0 ? page_kib : 4);
	}
	qsort(v, n2, sizeof *v, by_cpu);
	sb_add(&s, "\nbusiest processes (CPU over 100 ms, then resident memory), %zu visible:\n", n2);
	sb_add(&s, "  %7s %6s %10s %s %s\n", "pid", "cpu%", "rss_kib", "S", "comm");
	for (size_t i = 0; i < n2 && i < 10; i++)
		sb_add(&s, "  %7d %6.1f %10lld %c %s\n", v[i].pid, v[i].cpu, v[i].rss_kib, v[i].state, v[i].comm);
	free(v);
	free(before);
	free(after);
	b->snaps = sp_xrealloc(b->snaps, (b->nsnaps + 1) * sizeof *b->snaps);
	b->snaps[b->nsnaps++] = (snap){.check = c, .text = s.s ? s.s : sp_xstrdup("")};
}

/* ---- tar ----------------------------------------------------------------------------- */

static void octal(char *field, size_t size, unsigned long long v)
{
	/* size-1 octal digits, NUL-terminated, zero-padded */
	snprintf(field, size, "%0*llo", (int)size - 1, v);
}

static int tar_header(FILE *f, const char *name, size_t len, char type, unsigned mode, long long mtime)
{
	unsigned char h[512];
	memset(h, 0, sizeof h);
	size_t nl = strlen(name);
	const char *base = name;
	if (nl > 100) {
		/* split at a '/' into prefix (155) and name (100) */
		const char *cut = NULL;
		for (const char *p = name; (p = strchr(p, '/')); p++)
			if ((size_t)(p - name) <= 155 && nl - (size_t)(p - name) - 1 <= 100)
				cut = p;
		if (!cut)
			return -ENAMETOOLONG;
		memcpy(h + 345, name, (size_t)(cut - name));
		base = cut + 1;
	}
	memcpy(h, base, strlen(base));
	octal((char *)h + 100, 8, mode);
	octal((char *)h + 108, 8, 0);
	octal((char *)h + 116, 8, 0);
	octal((char *)h + 124, 12, len);
	octal((char *)h + 136, 12, (unsigned long long)(mtime > 0 ? mtime : 0));
	memset(h + 148, ' ', 8);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memcpy(h + 265, "root", 4);
	memcpy(h + 297, "root", 4);
	unsigned sum = 0;
	for (size_t i = 0; i < sizeof h; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
	return fwrite(h, 1, sizeof h, f) == sizeof h ? 0 : -EIO;
}

int sp_tar_add(FILE *f, const char *name, const void *data, size_t len, long long mtime)
{
	int rc = tar_header(f, name, len, '0', 0644, mtime);
	if (rc < 0)
		return rc;
	if (len && fwrite(data, 1, len, f) != len)
		return -EIO;
	static const char zero[512];
	size_t pad = (512 - len % 512) % 512;
	return pad && fwrite(zero, 1, pad, f) != pad ? -EIO : 0;
}

static int tar_dir(FILE *f, const char *name, long long mtime)
{
	return tar_header(f, name, 0, '5', 0755, mtime);
}

int sp_tar_end(FILE *f)
{
	static const char zero[1024];
	return fwrite(zero, 1, sizeof zero, f) == sizeof zero ? 0 : -EIO;
}

/* ---- the bundle's files ------------------------------------------------------------- */

static void add_report(bfiles *fs, const char *name, sp_format fmt, const sp_ctx *ctx, const sp_report *rep, bool strict)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return;
	int w = sp_write_report(m, fmt, ctx, rep, true, strict);
	if (fclose(m) != 0 || w < 0) {
		free(buf);
		add_text(fs, name, "the report could not be written in this format\n");
		return;
	}
	add_file(fs, name, buf, len);
}

static void add_proc(bfiles *fs, const char *name, const char *path, bool nul_to_space)
{
	int e = 0;
	size_t len = 0;
	char *t = sp_read_file_alloc(path, 8u << 20, &len, &e);
	if (!t) {
		char note[300];
		snprintf(note, sizeof note, "%s unreadable: %s\n", path, strerror(e));
		char un[128];
		snprintf(un, sizeof un, "%s.unavailable", name);
		add_text(fs, un, note);
		return;
	}
	if (nul_to_space)
		for (size_t i = 0; i < len; i++)
			if (t[i] == '\0')
				t[i] = i + 1 == len ? '\n' : ' ';
	add_file(fs, name, t, len);
}

static void add_kernel_log(bfiles *fs)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	if (size <= 0) {
		char note[200];
		snprintf(note, sizeof note, "the kernel log is not readable here: %s\n", size < 0 ? strerror(errno) : "empty buffer");
		add_text(fs, "system/kernel-log.unavailable", note);
		return;
	}
	if (size > (16 << 20))
		size = 16 << 20;
	char *buf = sp_xmalloc((size_t)size);
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n < 0) {
		char note[200];
		snprintf(note, sizeof note, "the kernel log is not readable here: %s\n", strerror(errno));
		free(buf);
		add_text(fs, "system/kernel-log.unavailable", note);
		return;
	}
	add_file(fs, "system/kernel-log", buf, (size_t)n);
}

static bool kept(const sp_result *r)
{
	return r->status == SP_STATUS_FAIL || r->status == SP_STATUS_ERROR || r->status == SP_STATUS_WARN;
}

static void add_checks(bfiles *fs, const sp_dbundle *b, const sp_report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		const sp_result *r = &rep->results[i];
		if (!r->check || !kept(r))
			continue;
		sbuf s = {0};
		sb_add(&s, "id: %s\ncategory: %s\ntitle: %s\nstatus: %s\nexpect: %s\nmethod: %s\nduration_us: %llu\n",
		       r->check->id, r->check->category, r->check->title, sp_status_name(r->status), sp_expect_name(r->expect),
		       r->check->method, (unsigned long long)r->duration_us);
		sb_add(&s, "expected: %s\nobserved: %s\ndetail: %s\n", r->expected, r->observed, r->detail);
		for (size_t k = 0; k < b->nsnaps; k++)
			if (b->snaps[k].check == r->check)
				sb_add(&s, "\n%s", b->snaps[k].text);
		char name[200];
		snprintf(name, sizeof name, "checks/%s.txt", r->check->id);
		add_file(fs, name, s.s ? s.s : sp_xstrdup(""), s.len);
	}
}

int sp_dbundle_write(sp_dbundle *b, const sp_ctx *ctx, const sp_report *rep, bool strict, char *path, size_t size,
		     sp_error *err)
{
	bfiles fs = {0};
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
	char root[96];
	snprintf(root, sizeof root, "sandprobe-doctor-%s-%d", stamp, (int)getpid());

	sbuf readme = {0};
	sb_add(&readme, "sandprobe doctor evidence bundle\nprofile: %s\nstarted_at: %s\nresult: %s (%zu pass, %zu fail, "
			"%zu skip, %zu warn, %zu error)\n",
	       ctx->profile ? ctx->profile : "?", rep->started_at,
	       rep->failed ? "FAIL" : sp_report_nothing_proven(rep) ? "SKIP (nothing was proven)"
								    : "PASS",
	       rep->sum.pass, rep->sum.fail, rep->sum.skip, rep->sum.warn, rep->sum.error);
	sb_add(&readme, "runtime guess: %s\nkernel: %s %s\nuid: %u\n\nMANIFEST holds the SHA-256 of every other file: "
			"run `sha256sum -c MANIFEST` in this directory.\nchecks/ holds each failing, erroring or warning "
			"check's evidence (and, for a timeout, the snapshot taken before the kill).\n",
	       rep->env.runtime_guess, rep->env.kernel, rep->env.arch, rep->env.uid);
	add_file(&fs, "README", readme.s, readme.len);
	add_report(&fs, "report.txt", SP_FMT_TEXT, ctx, rep, strict);
	add_report(&fs, "report.json", SP_FMT_JSON, ctx, rep, strict);
	add_report(&fs, "report.tap", SP_FMT_TAP, ctx, rep, strict);
	add_report(&fs, "report.junit.xml", SP_FMT_JUNIT, ctx, rep, strict);
	add_checks(&fs, b, rep);
	add_proc(&fs, "system/mountinfo", "/proc/self/mountinfo", false);
	add_proc(&fs, "system/cmdline", "/proc/cmdline", false);
	add_proc(&fs, "system/doctor-cmdline", "/proc/self/cmdline", true);
	add_proc(&fs, "system/loadavg", "/proc/loadavg", false);
	add_proc(&fs, "system/meminfo", "/proc/meminfo", false);
	add_proc(&fs, "system/status", "/proc/self/status", false);
	add_proc(&fs, "system/cgroup", "/proc/self/cgroup", false);
	struct utsname u;
	if (uname(&u) == 0) {
		char t[600];
		snprintf(t, sizeof t, "%s %s %s %s %s\n", u.sysname, u.nodename, u.release, u.version, u.machine);
		add_text(&fs, "system/uname", t);
	}
	add_kernel_log(&fs);

	/* MANIFEST last, over everything else */
	sbuf man = {0};
	for (size_t i = 0; i < fs.n; i++) {
		char h[65];
		sp_sha256_hex(fs.v[i].data, fs.v[i].len, h);
		sb_add(&man, "%s  %s\n", h, fs.v[i].name);
	}
	add_file(&fs, "MANIFEST", man.s, man.len);

	int rc = 0;
	snprintf(path, size, "%s/%s.tar", b->dir, root);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		rc = sp_fail_errno(err, errno, "doctor: --bundle: cannot create %s", path);
		if (fd >= 0)
			close(fd);
	} else {
		int w = tar_dir(f, root, (long long)now);
		static const char *const dirs[] = {"checks", "system"};
		for (size_t i = 0; i < SP_ARRAY_SIZE(dirs) && !w; i++) {
			char d[200];
			snprintf(d, sizeof d, "%s/%s", root, dirs[i]);
			w = tar_dir(f, d, (long long)now);
		}
		for (size_t i = 0; i < fs.n && !w; i++) {
			char name[300];
			snprintf(name, sizeof name, "%s/%s", root, fs.v[i].name);
			w = sp_tar_add(f, name, fs.v[i].data, fs.v[i].len, (long long)now);
		}
		if (!w)
			w = sp_tar_end(f);
		if (fflush(f) != 0 || fsync(fileno(f)) != 0)
			w = w ? w : -errno;
		if (fclose(f) != 0 && !w)
			w = -errno;
		if (w) {
			rc = sp_fail_errno(err, -w, "doctor: --bundle: cannot write %s", path);
			unlink(path);
		}
	}
	for (size_t i = 0; i < fs.n; i++) {
		free(fs.v[i].name);
		free(fs.v[i].data);
	}
	free(fs.v);
	return rc;
}
