/* File-tree helpers shared by every verb: the one recursive delete and the
 * one write-to-a-temporary-file-then-rename. */
#ifndef SP_FSUTIL_H
#define SP_FSUTIL_H

#include <stdio.h>
#include <sys/types.h>

#include "core/error.h"

/* Mounts in this process's mountinfo at or below path (0 none, -errno). */
int sp_mounts_below(const char *path);

/* Remove path and everything below it, never following a symbolic link and
 * never crossing into a mount: with a mount at or below path nothing is
 * removed and -EBUSY is returned (a mount left there is a leak to report,
 * not something to delete through). A missing path is 0. Otherwise 0, or the
 * first -errno met (the rest of the tree is still removed). */
int sp_rm_rf(const char *path);

/* Entries of the directory at path other than . and .. (0 when it cannot be
 * opened). */
long long sp_count_dir(const char *path);

/* sp_write_atomic flags */
enum {
	SP_WA_EXACT_MODE = 1, /* the file gets mode as given (fchmod): the umask does not apply */
	SP_WA_FSYNC = 2,      /* fsync the file before it is renamed into place */
	SP_WA_FIXED_TMP = 4,  /* the temporary file is PATH.tmp (truncated when present), not a
				 new PATH.tmpXXXXXX */
};
/* where sp_write_atomic failed */
typedef enum sp_wa_step {
	SP_WA_CREATE, /* the temporary file could not be created */
	SP_WA_WRITE,  /* writing, flushing or closing it failed */
	SP_WA_RENAME, /* it could not be renamed over path */
} sp_wa_step;
/* writes the whole content to f: 0, or -errno */
typedef int (*sp_wa_fill)(FILE *f, void *ctx);

/* Write path (relative to dirfd, or AT_FDCWD) whole or not at all: fill
 * writes into a temporary file beside it (created with mode, the umask
 * applying unless SP_WA_EXACT_MODE; never through a symbolic link), which is
 * then renamed over path. 0, or -errno with *step (when not NULL) saying
 * which part failed; on failure the temporary file is removed and path is
 * as it was. */
int sp_write_atomic(int dirfd, const char *path, mode_t mode, unsigned flags, sp_wa_fill fill, void *ctx,
		    sp_wa_step *step);
/* A verb's -o FILE written with sp_write_atomic (mode 0644, exactly): 0, or
 * -1 with err: a usage error "PATH: cannot create: ..." when the temporary
 * file cannot be created beside it, else internal "PATH: cannot write<what>" */
int sp_write_output(const char *path, sp_wa_fill fill, void *ctx, const char *what, sp_error *err);
/* the same with len bytes of data as the content */
int sp_write_atomic_buf(int dirfd, const char *path, mode_t mode, unsigned flags, const void *data, size_t len,
			sp_wa_step *step);

#endif
