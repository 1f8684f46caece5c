/* The bottom layer of src/evidence/ (ev_io.c): opening a bundle's files,
 * SHA-256, and the hex helpers. Everything else in
 * src/evidence/ (readers, integrity, writer, verdict) builds on this and this
 * on nothing of theirs, so the dependencies point one way:
 *   ev_gates -> gates_* -> ev_verdict; ev_gates -> ev_read* -> ev_integrity,
 *   ev_json, ev_metadata -> ev_tsv -> ev_io
 *   ev_write -> ev_io (a writer needs no reader) */
#ifndef SP_EV_IO_H
#define SP_EV_IO_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/outcome.h"

/* Open a bundle file for reading: never follows a symlink, never blocks on
 * a fifo; the fd, or -1 with o (errnum EINVAL: not a regular file; why its
 * sp_ev_strerror). */
int sp_ev_open_regular(const char *path, sp_outcome *o);
/* Whole regular file (at most max bytes, else EFBIG) NUL-terminated, or NULL
 * with *errnum. */
char *sp_ev_read_all(const char *path, size_t max, size_t *len, int *errnum);
/* "missing", "not a regular file", "a symlink", "too large" or strerror */
const char *sp_ev_strerror(int e);

/* ---- SHA-256 (OpenSSL EVP, chunked) ------------------------------------ */
typedef struct sp_ev_sha256 sp_ev_sha256;
struct sp_ev_sha256 {
	void *ctx; /* EVP_MD_CTX */
	bool done;
	unsigned char digest[32];
};
/* 0, or -1 when OpenSSL cannot start a digest (update and final then do
 * nothing and done stays false) */
int sp_ev_sha256_init(sp_ev_sha256 *h);
#define SP_EV_SHA256_INIT_FAILED "openssl: cannot initialise SHA-256"
/* 0, or -1 with err (internal, exit 3) when no digest can be started */
int sp_ev_sha256_ready(sp_error *err);
void sp_ev_sha256_update(sp_ev_sha256 *h, const void *p, size_t n);
void sp_ev_sha256_final(sp_ev_sha256 *h); /* fills digest, frees ctx */
void sp_ev_sha256_free(sp_ev_sha256 *h);
/* hash a whole file in chunks; 0, or -1 with o (errnum, why its
 * sp_ev_strerror; ENOMEM when no digest can be started); *size gets its
 * length */
int sp_ev_sha256_file(const char *path, unsigned char digest[32], unsigned long long *size, sp_outcome *o);

/* n bytes as 2n lowercase hex digits and a NUL */
void sp_ev_hex(const unsigned char *d, size_t n, char *out);
/* sp_ev_sha256_file as 64 hex digits; 0, or -1 with o */
int sp_ev_sha256_file_hex(const char *path, char hex[65], sp_outcome *o);

#endif
