/* Values and the streaming TSV reader of evidence bundles. One fixed buffer
 * per reader; a row's fields point into it; every byte read can be fed to a
 * SHA-256 so that a file is parsed and hashed in one pass. */
#include "evidence/evidence.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdarg.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

#define READ_CHUNK (256 * 1024)
/* readable bytes after any line split() sees (it loads 16 at a time) */
#define SPLIT_SLACK 32

/* ---- values ----------------------------------------------------------- */
static const double pow10tab[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
				  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};

int sp_ev_parse_dec(const char *s, size_t n, double *out)
{
	if (n == 0 || n > 40)
		return -1;
	unsigned long long v = 0;
	size_t i = 0, digits = 0, frac = 0;
	bool dot = false;
	while (i < n && s[i] >= '0' && s[i] <= '9') {
		if (digits < 19)
			v = v * 10 + (unsigned)(s[i] - '0');
		digits++;
		i++;
	}
	if (i == 0)
		return -1;
	if (i < n && s[i] == '.') {
		dot = true;
		i++;
		size_t f0 = i;
		while (i < n && s[i] >= '0' && s[i] <= '9') {
			if (digits < 19)
				v = v * 10 + (unsigned)(s[i] - '0');
			digits++;
			i++;
		}
		frac = i - f0;
		if (frac == 0)
			return -1;
	}
	if (i != n)
		return -1;
	if (digits <= 15) {
		/* exact integer divided by an exact power of ten: correctly rounded */
		*out = dot ? (double)v / pow10tab[frac] : (double)v;
		return 0;
	}
	char tmp[48];
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	char *end;
	double d = strtod(tmp, &end);
	if (*end || !isfinite(d))
		return -1;
	*out = d;
	return 0;
}

int sp_ev_parse_int(const char *s, size_t n, long long *out)
{
	if (n == 0 || n > 18)
		return -1;
	long long v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

static bool utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		unsigned c = s[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t len;
		unsigned min;
		if ((c & 0xe0) == 0xc0) {
			len = 2;
			min = 0x80;
			c &= 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			len = 3;
			min = 0x800;
			c &= 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			len = 4;
			min = 0x10000;
			c &= 0x07;
		} else {
			return false;
		}
		if (i + len > n)
			return false;
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			c = (c << 6) | (s[i + k] & 0x3f);
		}
		if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
			return false;
		i += len;
	}
	return true;
}

bool sp_ev_is_text(const char *s, size_t n)
{
	if (n == 0)
		return false;
	bool high = false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			return false;
		if (c >= 0x80)
			high = true;
	}
	return !high || utf8_valid((const unsigned char *)s, n);
}

bool sp_ev_is_fault_id(const char *s, size_t n)
{
	return n == 3 && s[0] == 'F' && s[1] == '0' && s[2] >= '1' && s[2] <= '9';
}

bool sp_ev_is_hex(const char *s, size_t n, size_t want)
{
	if (n != want)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* ---- file kinds and their columns -------------------------------------- */
static const char *const cols_ops[] = {"ts", "scenario", "api", "operation", "latency_ms", "result",
				       "generation", "error_code", NULL};
static const char *const cols_lat[] = {"ts", "scenario", "operation", "latency_ms", "warmup", NULL};
static const char *const cols_samples[] = {"ts",
					   "wall",
					   "phase",
					   "owned_processes",
					   "owned_threads",
					   "owned_rss_bytes",
					   "owned_cpu_seconds",
					   "owned_fds",
					   "owned_mounts",
					   "owned_sockets",
					   "owned_cgroups",
					   "disk_bytes",
					   "global_processes",
					   "global_mounts",
					   "runner_rss_bytes",
					   "runner_fds",
					   NULL};
static const char *const cols_caps[] = {"scenario",	       "attempted", "succeeded", "expected_faults",
					"unexpected_failures", "result",    NULL};
static const char *const cols_faults[] = {"fault_id", "target",	 "expected", "started", "ended",
					  "recovery_ms", "rto_ms", "result",   NULL};

static const struct {
	const char *name, *stem;
	const char *const *cols;
} kinds[SP_EV_NFILES] = {
	[SP_EV_OPERATIONS] = {"operations.tsv", "operations", cols_ops},
	[SP_EV_LATENCY] = {"latency.tsv", "latency", cols_lat},
	[SP_EV_SAMPLES] = {"resource-samples.tsv", "samples", cols_samples},
	[SP_EV_CAPABILITIES] = {"capability-results.tsv", "capabilities", cols_caps},
	[SP_EV_FAULTS] = {"faults.tsv", "faults", cols_faults},
};

const char *sp_ev_file_name(enum sp_ev_file f)
{
	return f < SP_EV_NFILES ? kinds[f].name : "?";
}

const char *sp_ev_file_stem(enum sp_ev_file f)
{
	return f < SP_EV_NFILES ? kinds[f].stem : "?";
}

const char *sp_ev_counter_name(enum sp_ev_counter c)
{
	return c < SP_C_NCOUNTERS ? cols_samples[3 + c] : "?";
}

/* ---- reader ------------------------------------------------------------ */
static int rerr(sp_ev_rows *r, enum sp_ev_err e, const char *fmt, ...) SP_PRINTF(3, 4);
static int rerr(sp_ev_rows *r, enum sp_ev_err e, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->msg, sizeof r->msg, "%s", kinds[r->kind].name);
	if (r->line)
		n += snprintf(r->msg + n, sizeof r->msg - (size_t)n, " line %llu", r->line);
	n += snprintf(r->msg + n, sizeof r->msg - (size_t)n, ": ");
	va_start(ap, fmt);
	vsnprintf(r->msg + n, sizeof r->msg - (size_t)n, fmt, ap);
	va_end(ap);
	r->err = e;
	r->why = SP_RW_OTHER;
	return -1;
}

/* the structured side of the last rerr (see sp_ev_rows.why) */
static int rwhy(sp_ev_rows *r, enum sp_rows_why why, size_t n, const char *name, int rc)
{
	r->why = why;
	r->why_n = n;
	snprintf(r->why_name, sizeof r->why_name, "%s", name ? name : "");
	return rc;
}

/* ---- the hashing thread ------------------------------------------------ */
/* Chunks a reader has read are hashed by one thread while the reader parses
 * them (two cores: hash and parse overlap). A chunk buffer is reused only
 * when the hasher is done with it; each reader's chunks are hashed in file
 * order (one FIFO, one thread). */
#define HQ 16
struct hjob {
	sp_ev_sha256 *h;
	const char *p;
	size_t n;
	int *busy;  /* decremented when done */
	bool final; /* finish h instead of updating it */
};

struct sp_ev_hasher {
	pthread_t thr;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct hjob q[HQ];
	size_t head, count;
	bool quit;
};

static void *hasher_main(void *arg)
{
	sp_ev_hasher *hs = arg;
	pthread_mutex_lock(&hs->mu);
	for (;;) {
		while (!hs->count && !hs->quit)
			pthread_cond_wait(&hs->work, &hs->mu);
		if (!hs->count)
			break;
		struct hjob j = hs->q[hs->head];
		hs->head = (hs->head + 1) % HQ;
		hs->count--;
		pthread_cond_broadcast(&hs->done); /* a queue slot is free */
		pthread_mutex_unlock(&hs->mu);
		if (j.final)
			sp_ev_sha256_final(j.h);
		else
			sp_ev_sha256_update(j.h, j.p, j.n);
		pthread_mutex_lock(&hs->mu);
		(*j.busy)--;
		pthread_cond_broadcast(&hs->done);
	}
	pthread_mutex_unlock(&hs->mu);
	return NULL;
}

sp_ev_hasher *sp_ev_hasher_new(void)
{
	sp_ev_hasher *hs = sp_xcalloc(1, sizeof *hs);
	pthread_mutex_init(&hs->mu, NULL);
	pthread_cond_init(&hs->work, NULL);
	pthread_cond_init(&hs->done, NULL);
	if (pthread_create(&hs->thr, NULL, hasher_main, hs) != 0) {
		pthread_mutex_destroy(&hs->mu);
		pthread_cond_destroy(&hs->work);
		pthread_cond_destroy(&hs->done);
		free(hs);
		return NULL; /* callers hash in their own thread */
	}
	return hs;
}

void sp_ev_hasher_free(sp_ev_hasher *hs)
{
	if (!hs)
		return;
	pthread_mutex_lock(&hs->mu);
	hs->quit = true;
	pthread_cond_broadcast(&hs->work);
	pthread_mutex_unlock(&hs->mu);
	pthread_join(hs->thr, NULL);
	pthread_mutex_destroy(&hs->mu);
	pthread_cond_destroy(&hs->work);
	pthread_cond_destroy(&hs->done);
	free(hs);
}

static void hash_submit(sp_ev_rows *r, const char *p, size_t n, int *busy, bool final)
{
	sp_ev_hasher *hs = r->hasher;
	if (!hs) {
		if (final)
			sp_ev_sha256_final(r->hash);
		else
			sp_ev_sha256_update(r->hash, p, n);
		return;
	}
	pthread_mutex_lock(&hs->mu);
	while (hs->count == HQ)
		pthread_cond_wait(&hs->done, &hs->mu);
	hs->q[(hs->head + hs->count) % HQ] = (struct hjob){.h = r->hash, .p = p, .n = n, .busy = busy, .final = final};
	hs->count++;
	(*busy)++;
	pthread_cond_signal(&hs->work);
	pthread_mutex_unlock(&hs->mu);
}

/* wait until the hasher is done with *busy (no-op without a hasher) */
static void hash_wait(sp_ev_rows *r, const int *busy)
{
	sp_ev_hasher *hs = r->hasher;
	if (!hs)
		return;
	pthread_mutex_lock(&hs->mu);
	while (*busy)
		pthread_cond_wait(&hs->done, &hs->mu);
	pthread_mutex_unlock(&hs->mu);
}

/* ---- lines ------------------------------------------------------------- */
/* The reader fills chunk buffers in turn: the unread tail of the current
 * one (a partial line, at most SP_EV_MAX_LINE bytes) is copied to the start
 * of the next, then read() appends up to READ_CHUNK bytes. */
static int refill(sp_ev_rows *r)
{
	char *cur = r->bufs[r->cur];
	size_t avail = r->end - r->start;
	int k = (r->cur + 1) % SP_ROWS_NBUF;
	hash_wait(r, &r->busy[k]);
	char *nb = r->bufs[k];
	memmove(nb, cur + r->start, avail); /* the same buffer when NBUF == 1 */
	size_t got = 0;
	for (;;) {
		ssize_t n = read(r->fd, nb + avail + got, READ_CHUNK - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			r->cur = k;
			r->buf = nb;
			r->start = 0;
			r->end = avail + got;
			if (got && r->hash)
				hash_submit(r, nb + avail, got, &r->busy[k], false);
			return rwhy(r, SP_RW_IO, (size_t)e, NULL, rerr(r, SP_EVE_IO, "read: %s", strerror(e)));
		}
		if (n == 0) {
			r->eof = true;
			break;
		}
		got += (size_t)n;
		if (got >= READ_CHUNK / 2)
			break;
	}
	r->cur = k;
	r->buf = nb;
	r->start = 0;
	r->end = avail + got;
	if (r->hash) {
		if (got)
			hash_submit(r, nb + avail, got, &r->busy[k], false);
		if (r->eof)
			hash_submit(r, NULL, 0, &r->final_busy, true);
	}
	return 0;
}

/* a line of len bytes (and its newline) found at r->start: consumed, 0 or
 * -1 when it is too long */
static inline int take_line(sp_ev_rows *r, size_t len)
{
	r->start += len + 1;
	r->line++;
	if (len + 1 > SP_EV_MAX_LINE)
		return rerr(r, SP_EVE_TYPES, "line longer than %d bytes", SP_EV_MAX_LINE);
	return 0;
}

/* no whole line in the avail bytes at r->start: 1 when more were read (look
 * again), 0 at the end of the file, -1 on a truncated or too long last line
 * or a read error */
static int more_or_end(sp_ev_rows *r, size_t avail)
{
	if (r->eof) {
		if (avail) {
			r->line++;
			return rerr(r, SP_EVE_TYPES, "truncated: last line has no newline");
		}
		return 0;
	}
	if (avail >= SP_EV_MAX_LINE) {
		r->line++;
		return rerr(r, SP_EVE_TYPES, "line longer than %d bytes", SP_EV_MAX_LINE);
	}
	return refill(r) < 0 ? -1 : 1;
}

/* a row split into nf fields against the header: 1, or -1 */
static inline int fields_match(sp_ev_rows *r, size_t nf)
{
	if (nf != r->ncols)
		return rwhy(r, nf == 1 && !r->flen[0] ? SP_RW_EMPTY_LINE : SP_RW_FIELDS, nf, NULL,
			    rerr(r, SP_EVE_TYPES, "%zu fields, the header has %zu", nf, r->ncols));
	return 1;
}

/* next line (without its newline) into line and len: 1, 0 at EOF, -1 error */
static int next_line_mode(sp_ev_rows *r, char **line, size_t *len, bool peek)
{
	for (;;) {
		char *p = r->buf + r->start;
		size_t avail = r->end - r->start;
		char *nl = avail ? memchr(p, '\n', avail) : NULL;
		if (nl) {
			*len = (size_t)(nl - p);
			if (take_line(r, *len) < 0)
				return -1;
			if (peek) {
				/* read-only view into the chunk, valid until the next read */
				*line = p;
			} else if (r->hasher) {
				/* the hasher may still read the chunk: split a copy */
				memcpy(r->linebuf, p, *len);
				r->linebuf[*len] = '\0';
				*line = r->linebuf;
			} else {
				*nl = '\0';
				*line = p;
			}
			return 1;
		}
		int m = more_or_end(r, avail);
		if (m <= 0)
			return m;
	}
}

static int next_line(sp_ev_rows *r, char **line, size_t *len)
{
	return next_line_mode(r, line, len, false);
}

/* bytes that need a look in a field: controls (tab included), DEL and
 * anything >= 0x80; eight at a time */
#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
static inline uint64_t special8(uint64_t x)
{
	uint64_t lt20 = (x - ONES * 0x20) & ~x;          /* high bit: byte < 0x20 (or >= 0x80 borrow) */
	uint64_t y = x ^ (ONES * 0x7f), del = (y - ONES) & ~y; /* high bit: byte == 0x7f */
	return (lt20 | del | x) & HIGHS;
}

/* one byte the mask flagged (possibly falsely, see special8): a tab ends a
 * field, a control character is an error, a high byte asks for UTF-8 */
#define SPLIT_BYTE(pos)                                                                            \
	do {                                                                                       \
		size_t at_ = (pos);                                                                \
		unsigned char c_ = (unsigned char)line[at_];                                       \
		if (c_ == '\t') {                                                                  \
			if (k == SP_EV_MAX_COLS)                                                   \
				return rerr(r, SP_EVE_TYPES, "more than %d fields", SP_EV_MAX_COLS); \
			if (!r->view)                                                              \
				line[at_] = '\0';                                                  \
			r->f[k] = line + fs;                                                       \
			r->flen[k] = at_ - fs;                                                     \
			k++;                                                                       \
			fs = at_ + 1;                                                              \
		} else if (c_ < 0x20 || c_ == 0x7f) {                                              \
			return rerr(r, SP_EVE_TYPES, "control character 0x%02x in field %zu", c_, k + 1); \
		} else if (c_ >= 0x80) {                                                           \
			high = true;                                                               \
		}                                                                                  \
	} while (0)

/* split line at tabs into r->f; checks control characters and UTF-8 */
static int split(sp_ev_rows *r, char *line, size_t len, size_t *nf)
{
	size_t k = 0, i = 0, fs = 0;
	bool high = false;
#ifdef __SSE2__
	/* sixteen bytes at a time: signed "< 0x20" flags controls and every
	 * byte >= 0x80; DEL separately. Every line buffer has SPLIT_SLACK bytes
	 * after the line, so the last block may read past it (masked off). */
	const __m128i lim = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7f);
	for (; i < len; i += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(line + i));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(x, lim), _mm_cmpeq_epi8(x, del)));
		if (len - i < 16)
			m &= (1u << (len - i)) - 1;
		for (; m; m &= m - 1)
			SPLIT_BYTE(i + (size_t)__builtin_ctz(m));
	}
	i = len;
#endif
	for (; i + 8 <= len; i += 8) {
		uint64_t x;
		memcpy(&x, line + i, 8);
		for (uint64_t m = special8(x); m; m &= m - 1)
			SPLIT_BYTE(i + (size_t)__builtin_ctzll(m) / 8);
	}
	for (; i < len; i++) {
		unsigned char c = (unsigned char)line[i];
		if (c < 0x20 || c >= 0x7f)
			SPLIT_BYTE(i);
	}
	if (k == SP_EV_MAX_COLS)
		return rerr(r, SP_EVE_TYPES, "more than %d fields", SP_EV_MAX_COLS);
	if (!r->view)
		line[len] = '\0';
	r->f[k] = line + fs;
	r->flen[k] = len - fs;
	k++;
	if (high) {
		for (size_t j = 0; j < k; j++)
			if (!utf8_valid((const unsigned char *)r->f[j], r->flen[j]))
				return rerr(r, SP_EVE_TYPES, "field %zu is not valid UTF-8", j + 1);
	}
	*nf = k;
	return 0;
}
#undef SPLIT_BYTE

#ifdef __SSE2__
/* View mode, one pass: the next row from p (avail bytes) split at tabs up
 * to its newline. 1 with *len and *nf; 0 when no newline within avail (the
 * caller reads more); -1 on a control character. */
static int scan_row(sp_ev_rows *r, const char *p, size_t avail, size_t *len, size_t *nf)
{
	const __m128i lim = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7f);
	size_t k = 0, fs = 0;
	bool high = false;
	for (size_t i = 0; i < avail; i += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(x, lim), _mm_cmpeq_epi8(x, del)));
		if (avail - i < 16)
			m &= (1u << (avail - i)) - 1;
		for (; m; m &= m - 1) {
			size_t at = i + (size_t)__builtin_ctz(m);
			unsigned char c = (unsigned char)p[at];
			if (c == '\n' || c == '\t') {
				if (k == SP_EV_MAX_COLS) {
					r->line++;
					return rerr(r, SP_EVE_TYPES, "more than %d fields", SP_EV_MAX_COLS);
				}
				r->f[k] = (char *)p + fs;
				r->flen[k] = at - fs;
				k++;
				fs = at + 1;
				if (c == '\n') {
					if (high)
						for (size_t j = 0; j < k; j++)
							if (!utf8_valid((const unsigned char *)r->f[j], r->flen[j])) {
								r->line++;
								return rerr(r, SP_EVE_TYPES, "field %zu is not valid UTF-8", j + 1);
							}
					*len = at;
					*nf = k;
					return 1;
				}
			} else if (c < 0x20 || c == 0x7f) {
				r->line++;
				return rerr(r, SP_EVE_TYPES, "control character 0x%02x in field %zu", c, k + 1);
			} else {
				high = true;
			}
		}
	}
	return 0;
}
#endif

int sp_rows_try_line(sp_ev_rows *r, const char *const *f, const size_t *n, size_t nf, const char *allowed, char *last)
{
	const char *p = r->buf + r->start, *end = r->buf + r->end;
	for (size_t k = 0; k < nf; k++) {
		if ((size_t)(end - p) < n[k] + 1 || p[n[k]] != '\t')
			return 0;
		for (size_t i = 0; i < n[k]; i++)
			if (p[i] != f[k][i])
				return 0;
		p += n[k] + 1;
	}
	if (end - p < 2 || p[1] != '\n' || !p[0] || !strchr(allowed, p[0]))
		return 0;
	*last = p[0];
	r->start = (size_t)(p + 2 - r->buf);
	r->line++;
	return 1;
}

static int rows_open_fd(sp_ev_rows *r, int fd, enum sp_ev_file kind, sp_ev_sha256 *hash, sp_ev_hasher *hs);

int sp_rows_open_fd(sp_ev_rows *r, int fd, enum sp_ev_file kind, sp_ev_sha256 *hash)
{
	return rows_open_fd(r, fd, kind, hash, NULL);
}

static int rows_open_fd(sp_ev_rows *r, int fd, enum sp_ev_file kind, sp_ev_sha256 *hash, sp_ev_hasher *hs)
{
	memset(r, 0, sizeof *r);
	r->hasher = hash ? hs : NULL;
	r->kind = kind;
	r->fd = fd;
	r->hash = hash;
	for (int k = 0; k < SP_ROWS_NBUF; k++)
		r->bufs[k] = sp_xcalloc(1, READ_CHUNK + SP_EV_MAX_LINE + SPLIT_SLACK);
	r->buf = r->bufs[0];
	if (r->hasher)
		r->linebuf = sp_xcalloc(1, SP_EV_MAX_LINE + SPLIT_SLACK);
	if (hash && sp_ev_sha256_init(hash) < 0) {
		rwhy(r, SP_RW_OTHER, 0, NULL, rerr(r, SP_EVE_IO, SP_EV_SHA256_INIT_FAILED));
		goto fail;
	}
	char *line;
	size_t len, nf;
	int rc = next_line(r, &line, &len);
	if (rc == 0) {
		rwhy(r, SP_RW_NOHEADER, 0, NULL, rerr(r, SP_EVE_PRESENT, "empty file (no header row)"));
		goto fail;
	}
	if (rc < 0) {
		if (r->err == SP_EVE_TYPES)
			r->err = SP_EVE_COLUMNS;
		goto fail;
	}
	r->hdr_copy = sp_xcalloc(1, len + SPLIT_SLACK); /* not strndup: a NUL inside must stay visible */
	memcpy(r->hdr_copy, line, len);
	r->hdr_copy[len] = '\0';
	if (split(r, r->hdr_copy, len, &nf) < 0) {
		r->err = SP_EVE_COLUMNS;
		goto fail;
	}
	r->ncols = nf;
	for (size_t i = 0; i < nf; i++) {
		r->hdr[i] = r->f[i];
		if (!r->flen[i]) {
			rwhy(r, nf == 1 ? SP_RW_NOHEADER : SP_RW_EMPTY_COL, i + 1, NULL,
			     rerr(r, SP_EVE_COLUMNS, "header column %zu is empty", i + 1));
			goto fail;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(r->hdr[i], r->hdr[j])) {
				rwhy(r, SP_RW_DUP_COL, i + 1, r->hdr[i],
				     rerr(r, SP_EVE_COLUMNS, "column '%s' appears twice in the header", r->hdr[i]));
				goto fail;
			}
	}
	const char *const *cols = kinds[kind].cols;
	for (size_t c = 0; cols[c]; c++) {
		r->col[c] = -1;
		for (size_t i = 0; i < nf; i++)
			if (!strcmp(r->hdr[i], cols[c]))
				r->col[c] = (int)i;
		if (r->col[c] < 0) {
			rwhy(r, SP_RW_MISSING_COL, c, cols[c],
			     rerr(r, SP_EVE_COLUMNS, "required column '%s' missing from the header", cols[c]));
			goto fail;
		}
	}
	if (kind == SP_EV_SAMPLES) {
		for (size_t i = 0; i < nf; i++) {
			if (!sp_startswith(r->hdr[i], "extra."))
				continue;
			if (r->nextra == SP_EV_MAX_EXTRA) {
				rerr(r, SP_EVE_COLUMNS, "more than %d extra.* columns", SP_EV_MAX_EXTRA);
				goto fail;
			}
			if (!r->hdr[i][6]) {
				rerr(r, SP_EVE_COLUMNS, "column %zu: 'extra.' without a counter name", i + 1);
				goto fail;
			}
			r->extra_col[r->nextra] = (int)i;
			r->extra_name[r->nextra++] = r->hdr[i];
		}
	}
	return 0;
fail:
	sp_rows_close(r);
	return -1;
}

int sp_rows_open(sp_ev_rows *r, const char *dir, enum sp_ev_file kind, sp_ev_sha256 *hash)
{
	return sp_rows_open_hashed(r, dir, kind, hash, NULL);
}

int sp_rows_open_hashed(sp_ev_rows *r, const char *dir, enum sp_ev_file kind, sp_ev_sha256 *hash, sp_ev_hasher *hs)
{
	_cleanup_free_ char *path = sp_xasprintf("%s/%s", dir, kinds[kind].name);
	sp_outcome o = {0};
	int fd = sp_ev_open_regular(path, &o);
	if (fd < 0) {
		memset(r, 0, sizeof *r);
		r->kind = kind;
		r->fd = -1;
		return rwhy(r, SP_RW_OPEN, (size_t)o.errnum, NULL, rerr(r, SP_EVE_PRESENT, "%s", o.why));
	}
	return rows_open_fd(r, fd, kind, hash, hs);
}

void sp_rows_set_view(sp_ev_rows *r)
{
	r->view = true;
}

int sp_rows_peek_line(sp_ev_rows *r, const char **line, size_t *len)
{
	char *l;
	int rc = next_line_mode(r, &l, len, true);
	if (rc > 0)
		*line = l;
	return rc;
}

int sp_rows_split_line(sp_ev_rows *r, const char *line, size_t len)
{
	size_t nf;
	if (!r->linebuf)
		r->linebuf = sp_xcalloc(1, SP_EV_MAX_LINE + SPLIT_SLACK);
	memcpy(r->linebuf, line, len);
	r->linebuf[len] = '\0';
	if (split(r, r->linebuf, len, &nf) < 0)
		return -1;
	return fields_match(r, nf);
}

int sp_rows_next_raw(sp_ev_rows *r)
{
	char *line;
	size_t len = 0, nf = 0;
#ifdef __SSE2__
	if (r->view) {
		for (;;) {
			size_t avail = r->end - r->start;
			if (avail) {
				int s = scan_row(r, r->buf + r->start, avail, &len, &nf);
				if (s < 0)
					return -1;
				if (s > 0)
					return take_line(r, len) < 0 ? -1 : fields_match(r, nf);
			}
			int m = more_or_end(r, avail);
			if (m <= 0)
				return m;
		}
	}
#endif
	int rc = next_line_mode(r, &line, &len, r->view);
	if (rc <= 0)
		return rc;
	if (split(r, line, len, &nf) < 0)
		return -1;
	return fields_match(r, nf);
}

void sp_rows_close(sp_ev_rows *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	/* the hasher may still read our buffers or finish our hash */
	for (int k = 0; k < SP_ROWS_NBUF; k++)
		hash_wait(r, &r->busy[k]);
	hash_wait(r, &r->final_busy);
	for (int k = 0; k < SP_ROWS_NBUF; k++) {
		free(r->bufs[k]);
		r->bufs[k] = NULL;
	}
	r->buf = NULL;
	free(r->linebuf);
	r->linebuf = NULL;
	free(r->hdr_copy);
	r->hdr_copy = NULL;
	if (r->hash && !r->hash->done)
		sp_ev_sha256_free(r->hash);
}

/* ---- typed rows -------------------------------------------------------- */
#define FIELD(c) r->f[r->col[c]], r->flen[r->col[c]]

static int bad(sp_ev_rows *r, int c, const char *what)
{
	const char *const *cols = kinds[r->kind].cols;
	size_t n = r->flen[r->col[c]];
	return rerr(r, SP_EVE_TYPES, "column %s: '%.*s' is not %s", cols[c], (int)(n > 40 ? 40 : n),
		    r->f[r->col[c]], what);
}

static int get_dec(sp_ev_rows *r, int c, double *out)
{
	return sp_ev_parse_dec(FIELD(c), out) < 0 ? bad(r, c, "a non-negative decimal") : 0;
}

static int get_int(sp_ev_rows *r, int c, long long *out)
{
	return sp_ev_parse_int(FIELD(c), out) < 0 ? bad(r, c, "a non-negative integer") : 0;
}

static int get_text(sp_ev_rows *r, int c, const char **out)
{
	/* control characters and UTF-8 were checked by split() */
	if (!r->flen[r->col[c]])
		return bad(r, c, "a non-empty value");
	*out = r->f[r->col[c]];
	return 0;
}

static int get_passfail(sp_ev_rows *r, int c, bool *pass)
{
	const char *v = r->f[r->col[c]];
	if (!strcmp(v, "pass"))
		*pass = true;
	else if (!strcmp(v, "fail"))
		*pass = false;
	else
		return bad(r, c, "pass or fail");
	return 0;
}

int sp_ops_next(sp_ev_rows *r, sp_ev_op *op)
{
	int rc = sp_rows_next_raw(r);
	if (rc <= 0)
		return rc;
	if (get_dec(r, 0, &op->ts) < 0 || get_text(r, 1, &op->scenario) < 0 || get_text(r, 2, &op->api) < 0 ||
	    get_text(r, 3, &op->operation) < 0 || get_dec(r, 4, &op->latency_ms) < 0 ||
	    get_int(r, 6, &op->generation) < 0)
		return -1;
	/* lengths, not NUL: in view mode fields are not NUL-terminated */
	const char *res = r->f[r->col[5]];
	size_t rl = r->flen[r->col[5]];
	if (rl == 2 && !memcmp(res, "ok", 2))
		op->result = SP_RES_OK;
	else if (rl == 4 && !memcmp(res, "fail", 4))
		op->result = SP_RES_FAIL;
	else if (rl == 14 && !memcmp(res, "expected_fault", 14))
		op->result = SP_RES_EXPECTED_FAULT;
	else
		return bad(r, 5, "ok, fail or expected_fault");
	const char *ec = r->f[r->col[7]];
	size_t ecl = r->flen[r->col[7]];
	if (!ecl || ecl > 64 || memchr(ec, ' ', ecl))
		return bad(r, 7, "'-' or a sanitized error code (no spaces, 1-64 characters)");
	op->error_code = ec;
	return 1;
}

int sp_latency_next(sp_ev_rows *r, sp_ev_lat *l)
{
	int rc = sp_rows_next_raw(r);
	if (rc <= 0)
		return rc;
	if (get_dec(r, 0, &l->ts) < 0 || get_text(r, 1, &l->scenario) < 0 || get_text(r, 2, &l->operation) < 0 ||
	    get_dec(r, 3, &l->latency_ms) < 0)
		return -1;
	const char *w = r->f[r->col[4]];
	if (!strcmp(w, "0"))
		l->warmup = 0;
	else if (!strcmp(w, "1"))
		l->warmup = 1;
	else
		return bad(r, 4, "0 or 1");
	return 1;
}

int sp_samples_next(sp_ev_rows *r, sp_ev_sample *s)
{
	int rc = sp_rows_next_raw(r);
	if (rc <= 0)
		return rc;
	if (get_dec(r, 0, &s->ts) < 0)
		return -1;
	s->wall = r->f[r->col[1]];
	if (sp_ev_parse_iso8601(FIELD(1), &s->wall_epoch) < 0)
		return bad(r, 1, "an ISO 8601 UTC time of a real date (2026-01-01T00:00:00Z)");
	const char *ph = r->f[r->col[2]];
	if (!strcmp(ph, "start"))
		s->phase = SP_PHASE_START;
	else if (!strcmp(ph, "periodic"))
		s->phase = SP_PHASE_PERIODIC;
	else if (!strcmp(ph, "final"))
		s->phase = SP_PHASE_FINAL;
	else
		return bad(r, 2, "start, periodic or final");
	for (int c = 0; c < SP_C_NCOUNTERS; c++) {
		if (c == SP_C_OWNED_CPU_SECONDS) {
			s->c[c] = 0;
			if (get_dec(r, 3 + c, &s->cpu_seconds) < 0)
				return -1;
		} else if (get_int(r, 3 + c, &s->c[c]) < 0) {
			return -1;
		}
	}
	for (size_t i = 0; i < r->nextra; i++) {
		if (sp_ev_parse_int(r->f[r->extra_col[i]], r->flen[r->extra_col[i]], &s->extra[i]) < 0) {
			size_t n = r->flen[r->extra_col[i]];
			return rerr(r, SP_EVE_TYPES, "column %s: '%.*s' is not a non-negative integer",
				    r->extra_name[i], (int)(n > 40 ? 40 : n), r->f[r->extra_col[i]]);
		}
	}
	return 1;
}

int sp_caps_next(sp_ev_rows *r, sp_ev_cap *c)
{
	int rc = sp_rows_next_raw(r);
	if (rc <= 0)
		return rc;
	if (get_text(r, 0, &c->scenario) < 0 || get_int(r, 1, &c->attempted) < 0 ||
	    get_int(r, 2, &c->succeeded) < 0 || get_int(r, 3, &c->expected_faults) < 0 ||
	    get_int(r, 4, &c->unexpected_failures) < 0 || get_passfail(r, 5, &c->pass) < 0)
		return -1;
	return 1;
}

int sp_faults_next(sp_ev_rows *r, sp_ev_fault *f)
{
	int rc = sp_rows_next_raw(r);
	if (rc <= 0)
		return rc;
	const char *id = r->f[r->col[0]];
	if (!sp_ev_is_fault_id(id, r->flen[r->col[0]]))
		return bad(r, 0, "a fault id F01..F09");
	f->fault_id = id;
	if (get_text(r, 1, &f->target) < 0 || get_text(r, 2, &f->expected) < 0 || get_dec(r, 3, &f->started) < 0 ||
	    get_dec(r, 4, &f->ended) < 0 || get_dec(r, 5, &f->recovery_ms) < 0 || get_dec(r, 6, &f->rto_ms) < 0 ||
	    get_passfail(r, 7, &f->pass) < 0)
		return -1;
	return 1;
}
