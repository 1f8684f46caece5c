/* Unit tests for core/fsutil and the one glob matcher: sp_rm_rf removes a
 * tree (files, nested dirs, fifos, dangling and directory symlinks) without
 * following a link out of it, refuses a tree with a mount in it and leaves it
 * whole (checked with the mount really there: a private tmpfs in a mount
 * namespace of the test's own), and a missing path is no error. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "core/util.h"
#include "unit/tap.h"

static void touch(const char *dir, const char *name)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		(void)!write(fd, "x\n", 2);
		close(fd);
	}
}

static bool exists(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0;
}

int main(void)
{
	char root[] = "/tmp/sp-fsutil.XXXXXX", outside[] = "/tmp/sp-fsutil-out.XXXXXX";
	if (!mkdtemp(root) || !mkdtemp(outside)) {
		ok(0, "temp dirs");
		return done_testing();
	}
	char p[512], q[512];
	touch(outside, "keep");
	snprintf(p, sizeof p, "%s/a/b/c", root);
	snprintf(q, sizeof q, "%s/a", root);
	mkdir(q, 0755);
	snprintf(q, sizeof q, "%s/a/b", root);
	mkdir(q, 0755);
	mkdir(p, 0755);
	touch(p, "f");
	touch(root, "top");
	snprintf(q, sizeof q, "%s/a/fifo", root);
	mkfifo(q, 0600);
	snprintf(q, sizeof q, "%s/a/b/link-out", root);
	(void)!symlink(outside, q);
	snprintf(q, sizeof q, "%s/dangling", root);
	(void)!symlink("/nonexistent/sp-fsutil", q);
	chmod(p, 0500); /* a read-only dir is still removed (root) */

	is_int(sp_rm_rf(root), 0, "a tree with files, dirs, a fifo and symlinks is removed");
	ok(!exists(root), "... and is gone");
	snprintf(q, sizeof q, "%s/keep", outside);
	ok(exists(q), "a symlink to a directory outside is removed, not followed");
	is_int(sp_rm_rf(root), 0, "a missing path is no error");

	/* a mount below: refused, nothing removed */
	if (unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0) {
		char m[] = "/tmp/sp-fsutil-m.XXXXXX";
		if (mkdtemp(m)) {
			snprintf(q, sizeof q, "%s/sub", m);
			mkdir(q, 0755);
			touch(m, "beside");
			if (mount("sp-fsutil", q, "tmpfs", 0, "size=64k") == 0) {
				touch(q, "inside");
				is_int(sp_mounts_below(m), 1, "sp_mounts_below counts the tmpfs below the dir");
				is_int(sp_rm_rf(m), -EBUSY, "a tree with a mount in it is refused (-EBUSY)");
				snprintf(p, sizeof p, "%s/beside", m);
				ok(exists(p), "... and nothing of it is removed");
				snprintf(p, sizeof p, "%s/inside", q);
				ok(exists(p), "... the mount's content neither");
				umount2(q, MNT_DETACH);
				is_int(sp_rm_rf(m), 0, "once unmounted it is removed");
				ok(!exists(m), "... and is gone");
			} else {
				printf("ok %d # SKIP cannot mount tmpfs\n", ++tap_n);
			}
			rmdir(q);
			rmdir(m);
		}
	} else {
		printf("ok %d # SKIP no mount namespace: %s\n", ++tap_n, strerror(errno));
	}
	snprintf(q, sizeof q, "%s/keep", outside);
	unlink(q);
	rmdir(outside);

	ok(sp_glob_match("ns.*", "ns.pid"), "glob: ns.* matches ns.pid");
	ok(!sp_glob_match("ns.*", "caps.kill"), "glob: ns.* does not match caps.kill");
	ok(sp_glob_match("*.example.com", "a.example.com"), "glob: a host pattern");
	ok(!sp_glob_match("ns.pid", "ns.pidx"), "glob: a literal is matched whole");
	return done_testing();
}
