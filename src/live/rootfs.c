/* The lane's temp dir and its minimal rootfs: the static doctor, a static
 * busybox as the shell that holds the sandbox open, and the empty mount
 * points runtimes need. Copies (not links): a sandbox with a writable root
 * must not be able to touch the host's binaries. The set-user-ID probe
 * program (core/suid_probe.h) at /sandprobe-setuid-probe, owned by nobody,
 * mode 04755: the doctor's fs.nosuid runs it when it cannot make one of its
 * own (no CAP_CHOWN) to prove whether any set-user-ID bit raises its euid;
 * all it does is exit with its euid's low byte. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/suid_probe.h"
#include "live/live.h"

int sp_copy_file(const char *from, const char *to, mode_t mode, sp_error *err)
{
	_cleanup_close_ int in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return sp_fail_errno(err, errno, "open %s", from);
	struct stat st;
	if (fstat(in, &st) < 0)
		return sp_fail_errno(err, errno, "stat %s", from);
	_cleanup_close_ int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (out < 0)
		return sp_fail_errno(err, errno, "create %s", to);
	off_t left = st.st_size;
	while (left > 0) {
		ssize_t n = sendfile(out, in, NULL, (size_t)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return sp_fail_errno(err, n < 0 ? errno : EIO, "copy %s to %s", from, to);
		left -= n;
	}
	if (fchmod(out, mode) < 0)
		return sp_fail_errno(err, errno, "chmod %s", to);
	return 0;
}

int sp_rootfs_prepare(sp_live_lane *l, sp_error *err)
{
	static const char *const dirs[] = {"bin", "proc", "dev", "sys", "tmp", "etc", "usr", "run", "var", "root"};
	snprintf(l->rootfs, sizeof l->rootfs, "%s/rootfs", l->dir);
	if (mkdir(l->rootfs, 0755) < 0)
		return sp_fail_errno(err, errno, "mkdir %s", l->rootfs);
	for (size_t i = 0; i < SP_ARRAY_SIZE(dirs); i++) {
		char p[700];
		snprintf(p, sizeof p, "%s/%s", l->rootfs, dirs[i]);
		if (mkdir(p, 0755) < 0)
			return sp_fail_errno(err, errno, "mkdir %s", p);
	}
	char p[700];
	snprintf(p, sizeof p, "%s/sandprobe-doctor", l->rootfs);
	if (sp_copy_file(l->cfg->doctor, p, 0755, err) < 0)
		return -1;
	snprintf(p, sizeof p, "%s/bin/busybox", l->rootfs);
	if (sp_copy_file(l->cfg->busybox, p, 0755, err) < 0)
		return -1;
	snprintf(p, sizeof p, "%s/bin/sh", l->rootfs);
	if (symlink("busybox", p) < 0)
		return sp_fail_errno(err, errno, "symlink %s", p);
	if (sp_suid_probe_len) {
		snprintf(p, sizeof p, "%s%s", l->rootfs, SP_SUID_PROBE_PATH);
		_cleanup_close_ int sfd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
		if (sfd < 0)
			return sp_fail_errno(err, errno, "create %s", p);
		if (sp_write_all(sfd, sp_suid_probe_elf, sp_suid_probe_len) < 0 || fchown(sfd, 65534, 65534) < 0 ||
		    fchmod(sfd, 04755) < 0)
			return sp_fail_errno(err, errno, "set-user-ID probe %s", p);
	}
	/* systemd-nspawn wants an OS tree: /usr and an os-release */
	snprintf(p, sizeof p, "%s/etc/os-release", l->rootfs);
	_cleanup_close_ int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return sp_fail_errno(err, errno, "create %s", p);
	static const char osrel[] = "ID=sandprobe\nNAME=\"sandprobe live rootfs\"\n";
	if (sp_write_all(fd, osrel, sizeof osrel - 1) < 0)
		return sp_fail_errno(err, errno, "write %s", p);
	return 0;
}
