/* Small helpers shared by every verb: allocation that aborts cleanly on OOM
 * (exit 3), file reading, string lists, clocks. */
#ifndef SP_UTIL_H
#define SP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/cleanup.h"
#include "core/error.h"

#define SP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The sp_x* allocators never return NULL: out of memory, they call the
 * handler main installs (it says so and exits: library code never prints
 * or exits), or abort() when none is installed. fn must not return. */
void sp_set_oom_handler(void (*fn)(void));
void *sp_xmalloc(size_t n);
void *sp_xcalloc(size_t n, size_t m);
void *sp_xrealloc(void *p, size_t n);
char *sp_xstrdup(const char *s);
char *sp_xstrndup(const char *s, size_t n);
char *sp_xasprintf(const char *fmt, ...) SP_PRINTF(1, 2);

/* Read at most size-1 bytes of path into buf, NUL-terminated.
 * Returns the length read, or -errno. */
ssize_t sp_read_file(const char *path, char *buf, size_t size);
/* Read a whole file (at most max bytes; -EFBIG beyond) into a new buffer.
 * Returns the buffer (NUL-terminated) or NULL with *errnum set. */
char *sp_read_file_alloc(const char *path, size_t max, size_t *len, int *errnum);
/* The same for an open descriptor, which it closes in every case. */
char *sp_read_fd_alloc(int fd, size_t max, size_t *len, int *errnum);
/* Write all of buf to fd, retrying on EINTR and short writes; 0 or -errno. */
int sp_write_all(int fd, const void *buf, size_t len);
/* Value of "Key:" in a /proc/.../status style file, trimmed; 0 or -errno
 * (-ENOENT when the key is absent). */
int sp_status_field(const char *path, const char *key, char *out, size_t outsz);
/* the same from text already read ("Key: value" lines): 0, or -ENOENT */
int sp_text_field(const char *text, const char *key, char *out, size_t outsz);
/* integer value of a /proc/sys file: 0 or -errno */
int sp_sysctl_long(const char *path, long *out);

/* monotonic clock in nanoseconds */
uint64_t sp_now_ns(void);
/* Read from fd into buf until size bytes, end of file, an error, or the
 * sp_now_ns() deadline (then *timed_out = true); returns the bytes read. */
size_t sp_read_until(int fd, void *buf, size_t size, uint64_t deadline, bool *timed_out);
/* wall clock as 2026-01-01T00:00:00Z */
void sp_utc_now(char *buf, size_t size);

/* A NULL-terminated vector of strings. */
typedef struct sp_strv {
	char **v;
	size_t n;
} sp_strv;

/* Split s at any of seps, trimming blanks, dropping empty items. */
void sp_strv_split(sp_strv *out, const char *s, const char *seps);
void sp_strv_push(sp_strv *sv, const char *s);
bool sp_strv_contains(const sp_strv *sv, const char *s);
void sp_strv_free(sp_strv *sv);

char *sp_trim(char *s);
/* The one glob matcher (shell patterns, fnmatch(3) without flags): check ids
 * and globs ("ns.*"), host names, device names. */
bool sp_glob_match(const char *glob, const char *s);
bool sp_startswith(const char *s, const char *prefix);
bool sp_endswith(const char *s, const char *suffix);
/* parse a non-negative decimal integer that fits in long long; 0 or -1 */
int sp_parse_u64(const char *s, unsigned long long *out);

/* banned.h turns unsafe functions into errors. It must come after every
 * system header that declares them: with -D_FORTIFY_SOURCE, <string.h> and
 * <stdio.h> define inline wrappers named strcpy, sprintf ... that the macros
 * would otherwise rewrite. Pull those headers in here first (as git's
 * git-compat-util.h does); later includes of them are no-ops. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "core/banned.h"
#endif
