/* doctor --bundle DIR: evidence kept when checks fail. One tar file in DIR
 * (sandprobe-doctor-UTC-PID.tar, never overwriting anything) holding one
 * directory of the same name with
 *   MANIFEST            SHA-256 of every other file, sha256sum format
 *                       (`sha256sum -c MANIFEST` works from the directory)
 *   report.txt .json .tap .junit.xml   the report in every format
 *   checks/ID.txt       each failing, erroring (timed out included) or
 *                       warning check: its verdict and evidence; for a
 *                       timeout, the probe's state, its process group, the
 *                       load, memory and the busiest processes, taken the
 *                       moment it ran out of time, before it was killed
 *   system/             mountinfo, the kernel and doctor command lines,
 *                       uname, loadavg, meminfo, this process's status and
 *                       cgroup, and the kernel log where readable (else a
 *                       note saying why not)
 * The environment is never copied (it may hold credentials). */
#ifndef SP_DBUNDLE_H
#define SP_DBUNDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/check.h"
#include "core/error.h"
#include "core/runner.h"

typedef struct sp_dbundle sp_dbundle;

/* DIR must be an existing, writable directory: else a usage error (exit 2),
 * before any check runs. */
int sp_dbundle_open(sp_dbundle **out, const char *dir, sp_error *err);
/* The runner's timeout hook (sp_set_timeout_hook): arg is the bundle. */
void sp_dbundle_on_timeout(const sp_check *c, pid_t pid, unsigned timeout_ms, void *arg);
/* Write the tar; its path in path. 0, or -1 with err (exit 3). */
int sp_dbundle_write(sp_dbundle *b, const sp_ctx *ctx, const sp_report *rep, bool strict, char *path, size_t size,
		     sp_error *err);
void sp_dbundle_free(sp_dbundle *b);

/* Append a ustar entry (a regular file, mode 0644) to f; 0 or -errno.
 * Exposed for tests. */
int sp_tar_add(FILE *f, const char *name, const void *data, size_t len, long long mtime);
/* The two zero blocks that end an archive. */
int sp_tar_end(FILE *f);

#endif
