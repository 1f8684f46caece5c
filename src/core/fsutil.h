/* File-tree helpers shared by every verb: the one recursive delete. */
#ifndef SP_FSUTIL_H
#define SP_FSUTIL_H

/* Mounts in this process's mountinfo at or below path (0 none, -errno). */
int sp_mounts_below(const char *path);

/* Remove path and everything below it, never following a symbolic link and
 * never crossing into a mount: with a mount at or below path nothing is
 * removed and -EBUSY is returned (a mount left there is a leak to report,
 * not something to delete through). A missing path is 0. Otherwise 0, or the
 * first -errno met (the rest of the tree is still removed). */
int sp_rm_rf(const char *path);

#endif
