/* The one recursive delete (see fsutil.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
