/* A writer for the cpio "newc" format (the one the kernel unpacks as an
 * initramfs): a 110-byte ASCII header of 13 eight-digit hex fields, the NUL
 * terminated name, padding to 4 bytes, the data, padding to 4 bytes; the
 * archive ends with an entry named TRAILER!!!. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/live.h"

struct sp_live_cpio {
	FILE *f;
	unsigned ino;
	int err;
};

sp_live_cpio *sp_cpio_open(const char *path, sp_error *err)
{
	FILE *f = fopen(path, "wxe");
	if (!f) {
		sp_fail_errno(err, errno, "create %s", path);
		return NULL;
	}
	sp_live_cpio *c = sp_xcalloc(1, sizeof *c);
	c->f = f;
	c->ino = 1000;
	return c;
}

static void pad4(sp_live_cpio *c, size_t n)
{
	static const char zero[4];
	if (n % 4)
		if (fwrite(zero, 1, 4 - n % 4, c->f) != 4 - n % 4)
			c->err = EIO;
}

static int entry(sp_live_cpio *c, const char *name, unsigned mode, size_t size, unsigned rmaj, unsigned rmin, const void *data)
{
	size_t nlen = strlen(name) + 1;
	if (size > 0xffffffffu || nlen > 4096)
		return -(c->err = EFBIG);
	unsigned nlink = S_ISDIR(mode) ? 2 : 1;
	int n = fprintf(c->f, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", c->ino++, mode, 0u, 0u, nlink,
			0u, (unsigned)size, 0u, 0u, rmaj, rmin, (unsigned)nlen, 0u);
	if (n != 110)
		return -(c->err = EIO);
	if (fwrite(name, 1, nlen, c->f) != nlen)
		return -(c->err = EIO);
	pad4(c, 110 + nlen);
	if (size && fwrite(data, 1, size, c->f) != size)
		return -(c->err = EIO);
	pad4(c, size);
	return c->err ? -c->err : 0;
}

int sp_cpio_dir(sp_live_cpio *c, const char *name, unsigned mode)
{
	return entry(c, name, S_IFDIR | (mode & 07777), 0, 0, 0, NULL);
}

int sp_cpio_file(sp_live_cpio *c, const char *name, unsigned mode, const void *data, size_t len)
{
	return entry(c, name, S_IFREG | (mode & 07777), len, 0, 0, data);
}

int sp_cpio_file_from(sp_live_cpio *c, const char *name, unsigned mode, const char *hostpath, sp_error *err)
{
	size_t len = 0;
	int e = 0;
	_cleanup_free_ char *data = sp_read_file_alloc(hostpath, 256u << 20, &len, &e);
	if (!data)
		return sp_fail_errno(err, e, "read %s", hostpath);
	if (sp_cpio_file(c, name, mode, data, len) < 0)
		return sp_fail_errno(err, c->err, "write the initramfs");
	return 0;
}

int sp_cpio_symlink(sp_live_cpio *c, const char *name, const char *target)
{
	return entry(c, name, S_IFLNK | 0777, strlen(target), 0, 0, target);
}

int sp_cpio_node(sp_live_cpio *c, const char *name, unsigned mode, unsigned major, unsigned minor)
{
	return entry(c, name, mode, 0, major, minor, NULL);
}

int sp_cpio_close(sp_live_cpio *c, sp_error *err)
{
	int r = entry(c, "TRAILER!!!", 0, 0, 0, 0, NULL);
	int e = c->err;
	if (fclose(c->f) != 0 && !e)
		e = errno;
	free(c);
	if (r < 0 || e)
		return sp_fail_errno(err, e ? e : EIO, "write the initramfs");
	return 0;
}
