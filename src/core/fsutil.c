/* The one recursive delete and the one atomic file write (see fsutil.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "core/util.h"

static int rm_at(int dirfd, const char *name, dev_t dev)
{
	struct stat st;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (S_ISDIR(st.st_mode)) {
		/* a mount point mountinfo missed (another namespace's view): never descend */
		if (st.st_dev != dev)
			return -EBUSY;
		int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		DIR *d = fdopendir(fd);
		if (!d) {
			close(fd);
			return -errno;
		}
		struct dirent *de;
		int rc = 0;
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
				int r = rm_at(fd, de->d_name, dev);
				if (r < 0 && rc == 0)
					rc = r;
			}
		closedir(d);
		if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0)
			return rc ? rc : -errno;
		return rc;
	}
	if (unlinkat(dirfd, name, 0) < 0)
		return errno == ENOENT ? 0 : -errno;
	return 0;
}

int sp_rm_rf(const char *path)
{
	if (sp_mounts_below(path) > 0)
		return -EBUSY;
	struct stat st;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	return rm_at(AT_FDCWD, path, st.st_dev);
}

int sp_mounts_below(const char *path)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	char line[4096];
	size_t plen = strlen(path);
	while (plen > 1 && path[plen - 1] == '/')
		plen--;
	int n = 0;
	while (fgets(line, sizeof line, f)) {
		char mp[2048];
		if (sscanf(line, "%*d %*d %*s %*s %2047s", mp) != 1)
			continue;
		if (!strncmp(mp, path, plen) && (mp[plen] == '/' || mp[plen] == '\0'))
			n++;
	}
	return n;
}

/* a new temporary file beside path, its name into *tmp: fd or -errno */
static int open_tmp(int dirfd, const char *path, mode_t mode, unsigned flags, char **tmp)
{
	if (flags & SP_WA_FIXED_TMP) {
		*tmp = sp_xasprintf("%s.tmp", path);
		int fd = openat(dirfd, *tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
		return fd < 0 ? -errno : fd;
	}
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned char r[6];
		if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
			for (size_t i = 0; i < sizeof r; i++)
				r[i] = (unsigned char)random();
		char sfx[sizeof r + 1];
		for (size_t i = 0; i < sizeof r; i++)
			sfx[i] = set[r[i] % (sizeof set - 1)];
		sfx[sizeof r] = '\0';
		*tmp = sp_xasprintf("%s.tmp%s", path, sfx);
		int fd = openat(dirfd, *tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
		free(*tmp);
		*tmp = NULL;
	}
	return -EEXIST;
}

int sp_write_atomic(int dirfd, const char *path, mode_t mode, unsigned flags, sp_wa_fill fill, void *ctx,
		    sp_wa_step *step)
{
	sp_wa_step where = SP_WA_CREATE;
	char *tmp = NULL;
	int fd = open_tmp(dirfd, path, mode, flags, &tmp), rc = fd < 0 ? fd : 0;
	if (fd >= 0) {
		where = SP_WA_WRITE;
		FILE *f = fdopen(fd, "w");
		if (!f) {
			rc = -errno;
			close(fd);
		} else {
			rc = fill(f, ctx);
			if ((flags & SP_WA_EXACT_MODE) && fchmod(fd, mode) < 0 && rc == 0)
				rc = -errno;
			if (fflush(f) != 0 && rc == 0)
				rc = -errno;
			if ((flags & SP_WA_FSYNC) && rc == 0 && fsync(fd) < 0)
				rc = -errno;
			if (fclose(f) != 0 && rc == 0)
				rc = -errno;
		}
		if (rc == 0) {
			where = SP_WA_RENAME;
			if (renameat(dirfd, tmp, dirfd, path) < 0)
				rc = -errno;
		}
		if (rc < 0)
			unlinkat(dirfd, tmp, 0);
	}
	free(tmp);
	if (rc < 0 && step)
		*step = where;
	return rc;
}

int sp_write_output(const char *path, sp_wa_fill fill, void *ctx, const char *what, sp_error *err)
{
	sp_wa_step step;
	int rc = sp_write_atomic(AT_FDCWD, path, 0644, SP_WA_EXACT_MODE, fill, ctx, &step);
	if (rc < 0 && step == SP_WA_CREATE)
		return sp_usage(err, "%s: cannot create: %s", path, strerror(-rc));
	if (rc < 0)
		return sp_fail_errno(err, -rc, "%s: cannot write%s", path, what);
	return 0;
}

struct wa_buf {
	const void *data;
	size_t len;
};

static int fill_buf(FILE *f, void *ctx)
{
	const struct wa_buf *b = ctx;
	errno = 0;
	return b->len && fwrite(b->data, 1, b->len, f) != b->len ? -(errno ? errno : EIO) : 0;
}

int sp_write_atomic_buf(int dirfd, const char *path, mode_t mode, unsigned flags, const void *data, size_t len,
			sp_wa_step *step)
{
	struct wa_buf b = {data, len};
	return sp_write_atomic(dirfd, path, mode, flags, fill_buf, &b, step);
}

long long sp_count_dir(const char *path)
{
	_cleanup_closedir_ DIR *d = opendir(path);
	if (!d)
		return 0;
	long long n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	return n;
}
