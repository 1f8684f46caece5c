/* /proc/self/mountinfo, read and parsed: one sp_mount a line. Syscall-like
 * primitives: they return -errno like the kernel and the caller says what
 * an unreadable mountinfo means for its result. */
#ifndef SP_MOUNTINFO_H
#define SP_MOUNTINFO_H

#include <stdbool.h>

/* one line of /proc/self/mountinfo */
typedef struct sp_mount {
	int id, parent;
	char root[512];
	char mountpoint[512];
	char opts[256];     /* per-mount options: rw,nosuid,... */
	char optional[128]; /* shared:N master:N ... */
	char fstype[64];
	char source[256];
	char super_opts[512];
} sp_mount;

/* Call fn for each mount (in mountinfo order); fn returns nonzero to stop.
 * Returns 0, or -errno if mountinfo cannot be read. */
int sp_mountinfo_each(int (*fn)(const sp_mount *m, void *arg), void *arg);
/* The mount that path resolves into (topmost mount at the longest prefix):
 * 0, -ENOENT when no mount covers path, or -errno. */
int sp_mountinfo_find(const char *path, sp_mount *out);
/* Does a comma-separated option list contain opt exactly? */
bool sp_opt_has(const char *opts, const char *opt);

#endif
