/* Evidence bundle writer (docs/evidence-format.md): the directory, the TSV
 * streams written as the run goes, bounded and redacted per-step logs,
 * atomically written whole files, the MANIFEST and its Ed25519 signature. */
#ifndef SP_SOAK_BUNDLE_H
#define SP_SOAK_BUNDLE_H

#include <pthread.h>
#include <stdio.h>

#include <openssl/evp.h>

#include "core/error.h"
#include "soak/proc.h"

typedef struct sp_soak_log {
	char *name;      /* file name under logs/ */
	sp_soak_capture cap;  /* head and tail of everything appended */
	int dirty;
} sp_soak_log;

typedef struct sp_soak_bundle {
	char *dir;       /* absolute */
	int dirfd;
	pthread_mutex_t mu;
	sp_soak_log **logs;
	size_t nlogs;
} sp_soak_bundle;

/* Create dir (it must not exist, or be empty) with logs/ inside. */
int sp_bundle_create(sp_soak_bundle *b, const char *dir, sp_error *err);
void sp_bundle_close(sp_soak_bundle *b);
/* Write a whole file atomically (NAME.tmp then rename). */
int sp_bundle_write(sp_soak_bundle *b, const char *name, const char *data, size_t len, sp_error *err);
/* Append a redacted block to logs/<name>.log; flushed by sp_bundle_flush_logs. */
void sp_bundle_log(sp_soak_bundle *b, const char *name, const char *header, const char *text, size_t len);
int sp_bundle_flush_logs(sp_soak_bundle *b, sp_error *err);
/* Write MANIFEST (and MANIFEST.sig when key is not NULL). */
int sp_bundle_manifest(sp_soak_bundle *b, EVP_PKEY *key, sp_error *err);

/* Secret-shaped values replaced by [REDACTED]; a new string. */
char *sp_redact(const char *text, size_t len, size_t *outlen);
/* Replace tabs, newlines and other control characters by spaces, in place. */
void sp_tsv_clean(char *s);

#endif
