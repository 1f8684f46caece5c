/* Unit tests for core/fsutil and the one glob matcher: sp_rm_rf removes a
 * tree (files, nested dirs, fifos, dangling and directory symlinks) without
 * following a link out of it, refuses a tree with a mount in it and leaves it
 * whole (checked with the mount really there: a private tmpfs in a mount
 * namespace of the test's own), and a missing path is no error.
 * sp_write_atomic: the file appears whole with its mode (umask or exact), a
 * failing writer, a missing directory or a rename onto a directory leave the
 * target as it was and no temporary file behind, and a symbolic link where
 * the fixed temporary name goes is not followed. sp_text_field: a key's value
 * from "Key: value" text. */
#include <dirent.h>
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

/* the entries of dir, but . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

static char *slurp(const char *p)
{
	static char buf[256];
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static int fill_half_then_fail(FILE *f, void *ctx)
{
	(void)ctx;
	fputs("partial", f);
	return -ENOSPC;
}

static mode_t mode_of(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0 ? st.st_mode & 07777 : 0;
}

static void test_write_atomic(void)
{
	char d[] = "/tmp/sp-fsutil-wa.XXXXXX";
	if (!mkdtemp(d)) {
		ok(0, "temp dir");
		return;
	}
	char p[512], q[512];
	snprintf(p, sizeof p, "%s/out", d);
	mode_t old = umask(077);
	sp_wa_step step = SP_WA_RENAME;
	is_int(sp_write_atomic_buf(AT_FDCWD, p, 0644, SP_WA_EXACT_MODE, "one\n", 4, &step), 0, "atomic write: 0");
	is_str(slurp(p), "one\n", "... the content is there");
	is_int(mode_of(p), 0644, "... SP_WA_EXACT_MODE: 0644 under umask 077");
	is_int(entries(d), 1, "... and no temporary file is left");
	is_int(sp_write_atomic_buf(AT_FDCWD, p, 0644, 0, "two\n", 4, NULL), 0, "a second write replaces the file");
	is_str(slurp(p), "two\n", "... with the new content");
	is_int(mode_of(p), 0600, "... without SP_WA_EXACT_MODE the umask applies (0644 & ~077)");
	umask(old);

	is_int(sp_write_atomic(AT_FDCWD, p, 0644, 0, fill_half_then_fail, NULL, &step), -ENOSPC,
	       "a failing writer: its -errno");
	is_int(step, SP_WA_WRITE, "... step SP_WA_WRITE");
	is_str(slurp(p), "two\n", "... the target is as it was");
	is_int(entries(d), 1, "... and the temporary file is removed");

	snprintf(q, sizeof q, "%s/no/such/out", d);
	is_int(sp_write_atomic_buf(AT_FDCWD, q, 0644, 0, "x", 1, &step), -ENOENT, "a missing directory: -ENOENT");
	is_int(step, SP_WA_CREATE, "... step SP_WA_CREATE");

	snprintf(q, sizeof q, "%s/sub", d);
	mkdir(q, 0755);
	touch(q, "inside");
	int rc = sp_write_atomic_buf(AT_FDCWD, q, 0644, 0, "x", 1, &step);
	ok(rc == -EISDIR || rc == -ENOTEMPTY || rc == -EEXIST, "renaming onto a non-empty directory fails (%d)", rc);
	is_int(step, SP_WA_RENAME, "... step SP_WA_RENAME");
	is_int(entries(d), 2, "... and the temporary file is removed");

	/* SP_WA_FIXED_TMP, relative to a directory fd: PATH.tmp, never through a link */
	int dfd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	snprintf(q, sizeof q, "%s/victim", d);
	touch(d, "victim");
	snprintf(p, sizeof p, "%s/rel.tmp", d);
	(void)!symlink(q, p);
	is_int(sp_write_atomic_buf(dfd, "rel", 0644, SP_WA_FIXED_TMP | SP_WA_FSYNC, "r", 1, &step), -ELOOP,
	       "fixed temporary name: a symbolic link there is not followed (-ELOOP)");
	is_str(slurp(q), "x\n", "... the link's target is untouched");
	unlink(p);
	is_int(sp_write_atomic_buf(dfd, "rel", 0644, SP_WA_FIXED_TMP | SP_WA_FSYNC, "r", 1, &step), 0,
	       "fixed temporary name, relative to a directory fd: 0");
	snprintf(p, sizeof p, "%s/rel", d);
	is_str(slurp(p), "r", "... the content is there");
	snprintf(p, sizeof p, "%s/rel.tmp", d);
	ok(!exists(p), "... and rel.tmp is gone");
	close(dfd);

	/* a verb's -o FILE: the error says which part failed */
	sp_error err = {0};
	snprintf(q, sizeof q, "%s/no/such/out", d);
	is_int(sp_write_output(q, fill_half_then_fail, NULL, " the page", &err), -1, "sp_write_output: -1");
	is_int(err.exit_code, SP_EXIT_USAGE, "... no directory to create it in: a usage error");
	like_str(err.msg, "/no/such/out: cannot create: No such file or directory", "... naming the path");
	snprintf(q, sizeof q, "%s/page", d);
	is_int(sp_write_output(q, fill_half_then_fail, NULL, " the page", &err), -1, "a failing writer: -1");
	is_int(err.exit_code, SP_EXIT_INTERNAL, "... an internal error");
	like_str(err.msg, "/page: cannot write the page", "... naming the path");
	ok(!exists(q), "... and nothing is left at the path");
	sp_rm_rf(d);
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
	test_write_atomic();
	/* sp_text_field: "Key: value" lines of text already read (one read of /proc/PID/status) */
	{
		const char st[] = "Name:\tsh\nState:\tS (sleeping)\nPPid:\t  42 \nPPidX:\t7\nEmpty:\n";
		char v[32];
		is_int(sp_text_field(st, "PPid", v, sizeof v), 0, "text field: PPid found");
		is_str(v, "42", "text field: its value, trimmed");
		is_int(sp_text_field(st, "State", v, sizeof v), 0, "text field: State found");
		is_str(v, "S (sleeping)", "text field: a value with spaces");
		is_int(sp_text_field(st, "PPidX", v, sizeof v), 0, "text field: a key that extends another is its own");
		is_str(v, "7", "text field: PPidX is not PPid's");
		is_int(sp_text_field(st, "Empty", v, sizeof v), 0, "text field: an empty value");
		is_str(v, "", "text field: empty");
		is_int(sp_text_field(st, "Uid", v, sizeof v), -ENOENT, "text field: an absent key is -ENOENT");
		is_int(sp_text_field(st, "Nam", v, sizeof v), -ENOENT, "text field: a key's prefix is no key");
		char small[3];
		is_int(sp_text_field(st, "State", small, sizeof small), 0, "text field: a small buffer");
		is_str(small, "S", "text field: cut to the buffer, trimmed");
		is_int(sp_text_field("PPid: 9", "PPid", v, sizeof v), 0, "text field: the last line without a newline");
		is_str(v, "9", "text field: its value");
		is_str(st, "Name:\tsh\nState:\tS (sleeping)\nPPid:\t  42 \nPPidX:\t7\nEmpty:\n", "text field: the text is left as it was");
	}
	return done_testing();
}
