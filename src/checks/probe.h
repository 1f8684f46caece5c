/* Helpers shared by checks: mountinfo, unique probe names, kernel version,
 * capability names, running a probe function in a bounded child. */
#ifndef SP_PROBE_H
#define SP_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/caps.h"
#include "core/check.h"

/* one line of /proc/self/mountinfo */
typedef struct sp_mount {
	int id, parent;
	char root[512];
	char mountpoint[512];
	char opts[256];       /* per-mount options: rw,nosuid,... */
	char optional[128];   /* shared:N master:N ... */
	char fstype[64];
	char source[256];
	char super_opts[512];
} sp_mount;

/* Call fn for each mount (in mountinfo order); fn returns nonzero to stop.
 * Returns 0, or -errno if mountinfo cannot be read. */
int sp_mountinfo_each(int (*fn)(const sp_mount *m, void *arg), void *arg);
/* The mount that path resolves into (topmost mount at the longest prefix). */
int sp_mountinfo_find(const char *path, sp_mount *out);
/* Does a comma-separated option list contain opt exactly? */
bool sp_opt_has(const char *opts, const char *opt);

/* "dir/.sandprobe-PID-N-RAND": unique, for O_CREAT|O_EXCL probes */
void sp_probe_name(char *buf, size_t size, const char *dir);

/* kernel version as major*10000+minor*100+patch (0 if unknown) */
unsigned sp_kernel_version(void);

/* Run fn(arg) in a forked child bounded by timeout_ms; the child's exit code
 * is returned in *status_out (as from waitpid). Returns 0, -ETIMEDOUT after
 * killing the child, or -errno when it cannot fork. */
int sp_run_child(int (*fn)(void *arg), void *arg, unsigned timeout_ms, int *status_out);

#endif
