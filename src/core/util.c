#include "core/util.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <sys/wait.h>
#include <signal.h>

static void (*oom_handler)(void);

void sp_set_oom_handler(void (*fn)(void))
{
	oom_handler = fn;
}

__attribute__((noreturn)) static void oom(void)
{
	if (oom_handler)
		oom_handler();
	abort();
}

void *sp_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *sp_xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		oom();
	return p;
}

void *sp_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom();
	return q;
}

char *sp_xstrdup(const char *s)
{
	char *p = strdup(s ? s : "");
	if (!p)
		oom();
	return p;
}

char *sp_xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (!p)
		oom();
	return p;
}

char *sp_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p = NULL;
	va_start(ap, fmt);
	int r = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (r < 0)
		oom();
	return p;
}

ssize_t sp_read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	size_t off = 0;
	while (off + 1 < size) {
		ssize_t r = read(fd, buf + off, size - 1 - off);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			buf[off] = '\0';
			return -e;
		}
		if (r == 0)
			break;
		off += (size_t)r;
	}
	close(fd);
	if (size)
		buf[off] = '\0';
	return (ssize_t)off;
}

char *sp_read_fd_alloc(int fd, size_t max, size_t *len, int *errnum)
{
	size_t cap = 4096, off = 0;
	char *buf = sp_xmalloc(cap);
	for (;;) {
		if (off + 1 >= cap) {
			if (cap > max) {
				free(buf);
				close(fd);
				*errnum = EFBIG;
				return NULL;
			}
			cap *= 2;
			buf = sp_xrealloc(buf, cap);
		}
		ssize_t r = read(fd, buf + off, cap - 1 - off);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			*errnum = errno;
			free(buf);
			close(fd);
			return NULL;
		}
		if (r == 0)
			break;
		off += (size_t)r;
		if (off > max) {
			free(buf);
			close(fd);
			*errnum = EFBIG;
			return NULL;
		}
	}
	close(fd);
	buf[off] = '\0';
	if (len)
		*len = off;
	return buf;
}

char *sp_read_file_alloc(const char *path, size_t max, size_t *len, int *errnum)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		*errnum = errno;
		return NULL;
	}
	return sp_read_fd_alloc(fd, max, len, errnum);
}

int sp_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int sp_text_field(const char *text, const char *key, char *out, size_t outsz)
{
	size_t klen = strlen(key);
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (len > klen && strncmp(line, key, klen) == 0 && line[klen] == ':') {
			snprintf(out, outsz, "%.*s", (int)(len - klen - 1), line + klen + 1);
			char *t = sp_trim(out);
			memmove(out, t, strlen(t) + 1);
			return 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

int sp_status_field(const char *path, const char *key, char *out, size_t outsz)
{
	char buf[8192];
	ssize_t n = sp_read_file(path, buf, sizeof buf);
	if (n < 0)
		return (int)n;
	return sp_text_field(buf, key, out, outsz);
}

uint64_t sp_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sp_utc_now(char *buf, size_t size)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void sp_strv_push(sp_strv *sv, const char *s)
{
	sv->v = sp_xrealloc(sv->v, (sv->n + 2) * sizeof(char *));
	sv->v[sv->n++] = sp_xstrdup(s);
	sv->v[sv->n] = NULL;
}

void sp_strv_split(sp_strv *out, const char *s, const char *seps)
{
	out->v = NULL;
	out->n = 0;
	out->v = sp_xcalloc(1, sizeof(char *));
	if (!s)
		return;
	const char *p = s;
	while (*p) {
		size_t len = strcspn(p, seps);
		char *item = sp_xstrndup(p, len);
		char *t = sp_trim(item);
		if (*t)
			sp_strv_push(out, t);
		free(item);
		p += len;
		if (*p)
			p++;
	}
}

bool sp_strv_contains(const sp_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return true;
	return false;
}

void sp_strv_free(sp_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

bool sp_glob_match(const char *glob, const char *s)
{
	return fnmatch(glob, s, 0) == 0;
}

char *sp_trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

bool sp_startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool sp_endswith(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

int sp_parse_u64(const char *s, unsigned long long *out)
{
	if (!s || !*s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

size_t sp_read_until(int fd, void *buf, size_t size, uint64_t deadline, bool *timed_out)
{
	size_t got = 0;
	for (;;) {
		uint64_t now = sp_now_ns();
		if (now >= deadline) {
			*timed_out = true;
			break;
		}
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int pr = poll(&p, 1, (int)((deadline - now + 999999) / 1000000ull));
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			break;
		if (pr == 0)
			continue;
		ssize_t n = read(fd, (char *)buf + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		if (got == size)
			break;
	}
	return got;
}

int sp_sysctl_long(const char *path, long *out)
{
	char buf[64];
	ssize_t n = sp_read_file(path, buf, sizeof buf);
	if (n < 0)
		return (int)n;
	char *end;
	errno = 0;
	long v = strtol(sp_trim(buf), &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	*out = v;
	return 0;
}
