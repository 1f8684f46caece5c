/* The bottom of src/evidence/: opening a bundle's files (never through a
 * symlink, never blocking on a fifo), SHA-256 (OpenSSL EVP, chunked) and the
 * small hex helpers. The readers (ev_tsv.c, ev_metadata.c,
 * ev_json.c), the integrity checks (ev_integrity.c) and the writing side
 * (ev_write.c) all call down into this file; it calls none of them. */
#include "evidence/ev_io.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"

#define HASH_CHUNK (1024 * 1024)

void sp_ev_hex(const unsigned char *d, size_t n, char *out)
{
	static const char x[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = x[d[i] >> 4];
		out[2 * i + 1] = x[d[i] & 15];
	}
	out[2 * n] = '\0';
}

/* ---- opening files of a bundle ----------------------------------------- */
/* -1 with o: errnum e, why its sp_ev_strerror */
static int io_why(sp_outcome *o, int e)
{
	return sp_why_errno(o, e, "%s", sp_ev_strerror(e));
}

int sp_ev_open_regular(const char *path, sp_outcome *o)
{
	/* O_NONBLOCK: a fifo planted in a bundle must not hang the verifier */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return io_why(o, errno);
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return io_why(o, e);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return io_why(o, EINVAL);
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

const char *sp_ev_strerror(int e)
{
	return e == ENOENT ? "missing" : e == EINVAL ? "not a regular file" : e == ELOOP ? "a symlink" : e == EFBIG ? "too large" : strerror(e);
}

char *sp_ev_read_all(const char *path, size_t max, size_t *len, int *errnum)
{
	sp_outcome o = {0};
	int fd = sp_ev_open_regular(path, &o);
	if (fd < 0) {
		*errnum = o.errnum;
		return NULL;
	}
	return sp_read_fd_alloc(fd, max, len, errnum); /* closes fd */
}

/* ---- SHA-256 ----------------------------------------------------------- */
int sp_ev_sha256_init(sp_ev_sha256 *h)
{
	h->done = false;
	h->ctx = EVP_MD_CTX_new();
	if (!h->ctx || EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(h->ctx);
		h->ctx = NULL;
		return -1;
	}
	return 0;
}

int sp_ev_sha256_ready(sp_error *err)
{
	sp_ev_sha256 h;
	if (sp_ev_sha256_init(&h) < 0)
		return sp_fail_errno(err, 0, SP_EV_SHA256_INIT_FAILED);
	sp_ev_sha256_free(&h);
	return 0;
}

void sp_ev_sha256_update(sp_ev_sha256 *h, const void *p, size_t n)
{
	if (h->ctx)
		EVP_DigestUpdate(h->ctx, p, n);
}

void sp_ev_sha256_final(sp_ev_sha256 *h)
{
	unsigned int len = 0;
	if (!h->ctx)
		return;
	EVP_DigestFinal_ex(h->ctx, h->digest, &len);
	EVP_MD_CTX_free(h->ctx);
	h->ctx = NULL;
	h->done = true;
}

void sp_ev_sha256_free(sp_ev_sha256 *h)
{
	if (h->ctx)
		EVP_MD_CTX_free(h->ctx);
	h->ctx = NULL;
}

int sp_ev_sha256_file(const char *path, unsigned char digest[32], unsigned long long *size, sp_outcome *o)
{
	int fd = sp_ev_open_regular(path, o);
	if (fd < 0)
		return -1;
	_cleanup_free_ char *buf = sp_xmalloc(HASH_CHUNK);
	sp_ev_sha256 h;
	if (sp_ev_sha256_init(&h) < 0) {
		close(fd);
		return io_why(o, ENOMEM);
	}
	unsigned long long total = 0;
	for (;;) {
		ssize_t n = read(fd, buf, HASH_CHUNK);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			sp_ev_sha256_free(&h);
			return io_why(o, e);
		}
		if (n == 0)
			break;
		sp_ev_sha256_update(&h, buf, (size_t)n);
		total += (unsigned long long)n;
	}
	close(fd);
	sp_ev_sha256_final(&h);
	memcpy(digest, h.digest, 32);
	if (size)
		*size = total;
	return 0;
}

int sp_ev_sha256_file_hex(const char *path, char hex[65], sp_outcome *o)
{
	unsigned char d[32];
	int r = sp_ev_sha256_file(path, d, NULL, o);
	if (r == 0)
		sp_ev_hex(d, 32, hex);
	return r;
}
