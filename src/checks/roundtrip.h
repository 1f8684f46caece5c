/* The shared large-file round trip. fs.large_write (a file of
 * fs.large_write_mib in the first fs.writable path) and wf.bigfile (one of
 * workflows.bigfile_mib in the scratch dir, fsynced, read back with the same
 * digest) need the same operation: when they name the same directory and
 * size, one round trip serves both. They are members of one batch (one
 * child), so the first to ask performs it and the other reads its result. */
#ifndef SP_ROUNDTRIP_H
#define SP_ROUNDTRIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/check.h"

/* the round-trip digest of the static doctor (no libcrypto): a 64-bit
 * multiply-rotate chain over 8-byte words; split-dependent (see roundtrip.c) */
void sp_wf_digest_init(uint64_t *h);
void sp_wf_digest_update(uint64_t *h, const void *buf, size_t len);

typedef struct sp_roundtrip {
	char dir[512];
	char name[600]; /* the probe file */
	int create_err; /* errno of the exclusive create, 0 when it was made */
	size_t total;   /* bytes meant */
	size_t written; /* bytes written before a write error */
	int write_err;  /* errno of the failed write, 0 if none */
	int fsync_err;  /* errno of fsync, 0 if none (or not reached) */
	size_t read;    /* bytes read back */
	uint64_t wdigest, rdigest;
	double write_ms, read_ms;
	bool removed; /* unlinked and verified gone */
	char by[48];  /* the check that performed it */
} sp_roundtrip;

/* The round trip of mib MiB in dir: performed (by check id who) on the
 * first call for that directory (same device and inode) and size, the same
 * result afterwards. */
const sp_roundtrip *sp_roundtrip_get(const char *dir, long long mib, const char *who);

/* fs.large_write and wf.bigfile */
extern const sp_batch sp_batch_roundtrip;

#endif
