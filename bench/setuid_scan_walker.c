/* Baseline for bench/setuid_scan: the minimal walker. It reads every
 * directory (getdents64) and stats every entry, single-threaded, staying on
 * one filesystem, and does nothing else. A setuid scan cannot be cheaper
 * than a walk that visits the same files. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

struct d64 {
	unsigned long long ino;
	long long off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

static unsigned long long files;
static dev_t rootdev;

static void walk(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return;
	static char buf[65536];
	char **kids = NULL;
	size_t n = 0, cap = 0;
	long got;
	while ((got = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
		for (long off = 0; off < got;) {
			struct d64 *d = (struct d64 *)(buf + off);
			off += d->reclen;
			if (d->name[0] == '.' && (!d->name[1] || (d->name[1] == '.' && !d->name[2])))
				continue;
			struct stat st;
			if (fstatat(fd, d->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				continue;
			files++;
			if (S_ISDIR(st.st_mode) && st.st_dev == rootdev) {
				if (n == cap) {
					cap = cap ? cap * 2 : 16;
					kids = realloc(kids, cap * sizeof *kids);
				}
				size_t len = strlen(path) + strlen(d->name) + 2;
				kids[n] = malloc(len);
				snprintf(kids[n++], len, "%s/%s", strcmp(path, "/") ? path : "", d->name);
			}
		}
	}
	close(fd);
	for (size_t i = 0; i < n; i++) {
		walk(kids[i]);
		free(kids[i]);
	}
	free(kids);
}

int main(int argc, char **argv)
{
	const char *root = argc > 1 ? argv[1] : "/";
	struct stat st;
	if (stat(root, &st) < 0)
		return 1;
	rootdev = st.st_dev;
	walk(root);
	printf("%llu\n", files);
	return 0;
}
