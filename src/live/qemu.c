/* qemu: a throwaway microVM. The kernel comes from the host's /boot (the
 * newest vmlinuz-*) or --kernel; the initramfs is written here (cpio newc)
 * around the static doctor and a static busybox, whose tiny /init mounts
 * /proc, /sys, /dev and a /tmp tmpfs, makes / read-only, runs the doctor,
 * prints its report and the exit marker on the second serial port (our
 * stdout) and reboots, which ends qemu (-no-reboot). KVM when it really
 * works here, software emulation (TCG) otherwise; the choice and its reason
 * are reported. Inside a VM the namespaces and capabilities are the guest's
 * own: the boundary is the hypervisor, so the claims are a read-only root
 * and the guest kernel (host.vm.kernel proves the report came from it). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "live/live.h"

static int newest_kernel(char *out, size_t outsz)
{
	_cleanup_closedir_ DIR *d = opendir("/boot");
	if (!d)
		return -1;
	char best[256] = "";
	struct dirent *de;
	while ((de = readdir(d)))
		if (sp_startswith(de->d_name, "vmlinuz-") && (!best[0] || strverscmp(de->d_name, best) > 0))
			snprintf(best, sizeof best, "%s", de->d_name);
	if (!best[0])
		return -1;
	snprintf(out, outsz, "/boot/%s", best);
	return 0;
}

/* the release string of an x86 bzImage (boot protocol header) */
static int bzimage_release(const char *path, char *out, size_t outsz)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unsigned char hdr[0x210];
	if (pread(fd, hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr || memcmp(hdr + 0x202, "HdrS", 4) != 0)
		return -EINVAL;
	unsigned off = (unsigned)hdr[0x20e] | ((unsigned)hdr[0x20f] << 8);
	char ver[256];
	ssize_t n = pread(fd, ver, sizeof ver - 1, (off_t)off + 0x200);
	if (n <= 0)
		return -EINVAL;
	ver[n] = '\0';
	size_t len = strcspn(ver, " \n");
	if (len == 0)
		return -EINVAL;
	snprintf(out, outsz, "%.*s", (int)len, ver);
	return 0;
}

static const char *qemu_binary(void)
{
	struct utsname u;
	uname(&u);
	return !strcmp(u.machine, "x86_64") ? "qemu-system-x86_64" : NULL;
}

static int pick_kernel(const sp_live_cfg *cfg, char *path, size_t psz, char *why, size_t whysz)
{
	if (cfg->kernel[0])
		snprintf(path, psz, "%s", cfg->kernel);
	else if (newest_kernel(path, psz) < 0) {
		snprintf(why, whysz, "no kernel: /boot has no vmlinuz-* (apt-get install linux-image-amd64, or --kernel FILE)");
		return -1;
	}
	if (access(path, R_OK) != 0) {
		snprintf(why, whysz, "kernel %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int probe(const sp_live_cfg *cfg, char *why, size_t whysz)
{
	const char *q = qemu_binary();
	if (!q) {
		snprintf(why, whysz, "qemu lanes are implemented for x86_64 hosts only");
		return -1;
	}
	if (sp_probe_tool(q, why, whysz, "%s not installed (package qemu-system-x86)", q) < 0)
		return -1;
	char k[4096], rel[128];
	if (pick_kernel(cfg, k, sizeof k, why, whysz) < 0)
		return -1;
	if (bzimage_release(k, rel, sizeof rel) < 0) {
		snprintf(why, whysz, "kernel %s is not an x86 bzImage", k);
		return -1;
	}
	char kwhy[256];
	if (!strcmp(cfg->accel, "kvm") && !sp_kvm_usable(kwhy, sizeof kwhy)) {
		snprintf(why, whysz, "--accel kvm, but KVM is not usable: %s", kwhy);
		return -1;
	}
	return 0;
}

static void claims(sp_live_launch *l)
{
	*l = (sp_live_launch){.vm = true, .ro_root = true, .tmp = true};
}

static void shquote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

static int prepare(sp_live_lane *l, sp_error *err)
{
	char why[512], k[4096];
	if (pick_kernel(l->cfg, k, sizeof k, why, sizeof why) < 0 || bzimage_release(k, l->vm_kernel, sizeof l->vm_kernel) < 0)
		return sp_usage(err, "%s", why);
	/* the init script */
	char *script = NULL;
	size_t slen = 0;
	FILE *f = open_memstream(&script, &slen);
	if (!f)
		return sp_fail_errno(err, errno, "open_memstream");
	fprintf(f, "#!/bin/sh\n"
		   "export PATH=/bin\n"
		   "busybox mount -t proc proc /proc\n"
		   "busybox mount -t sysfs sysfs /sys\n"
		   "busybox mount -t devtmpfs devtmpfs /dev\n"
		   "busybox mkdir -p /dev/pts /dev/shm\n"
		   "busybox mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts /dev/pts\n"
		   "busybox mount -t tmpfs -o mode=1777,nosuid,nodev shm /dev/shm\n"
		   "busybox mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp\n");
	if (l->actual.ro_root)
		fprintf(f, "busybox mount -o remount,ro /\n");
	fprintf(f, "out=/dev/ttyS1\necho \"@@%s-begin@@\" > $out\n/sandprobe-doctor", l->nonce);
	for (size_t i = 0; i < l->doctor_args.n; i++) {
		fputc(' ', f);
		shquote(f, l->doctor_args.v[i]);
	}
	fprintf(f, " > $out\nrc=$?\necho > $out\necho \"@@%s:$rc@@\" > $out\nbusybox sync\nbusybox reboot -f\n", l->nonce);
	fclose(f);

	char path[600];
	snprintf(path, sizeof path, "%s/initramfs.cpio", l->dir);
	sp_live_cpio *c = sp_cpio_open(path, err);
	if (!c) {
		free(script);
		return -1;
	}
	int r = 0;
	static const char *const dirs[] = {"bin", "dev", "proc", "sys", "tmp", "root"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(dirs) && r == 0; i++)
		r = sp_cpio_dir(c, dirs[i], 0755);
	if (r == 0)
		r = sp_cpio_node(c, "dev/console", 020600, 5, 1);
	if (r == 0)
		r = sp_cpio_node(c, "dev/null", 020666, 1, 3);
	if (r == 0)
		r = sp_cpio_symlink(c, "bin/sh", "busybox");
	if (r == 0)
		r = sp_cpio_file(c, "init", 0755, script, slen);
	free(script);
	if (r < 0) {
		sp_cpio_close(c, err);
		return sp_fail_errno(err, EIO, "write %s", path);
	}
	if (sp_cpio_file_from(c, "bin/busybox", 0755, l->cfg->busybox, err) < 0 ||
	    sp_cpio_file_from(c, "sandprobe-doctor", 0755, l->cfg->doctor, err) < 0) {
		sp_error e2;
		sp_cpio_close(c, &e2);
		return -1;
	}
	return sp_cpio_close(c, err);
}

static bool kvm_failed_boot; /* this run: KVM passed the probe but a guest did not boot */

static int spawn(sp_live_lane *l, const char *accel, sp_error *err);

static int launch(sp_live_lane *l, sp_error *err)
{
	const char *accel;
	char kwhy[256];
	bool kvm = sp_kvm_usable(kwhy, sizeof kwhy);
	if (kvm && kvm_failed_boot && strcmp(l->cfg->accel, "kvm")) {
		accel = "tcg";
		snprintf(l->vm_accel, sizeof l->vm_accel, "tcg (KVM passed its probe but an earlier guest did not boot under it)");
	} else if (!strcmp(l->cfg->accel, "tcg")) {
		accel = "tcg";
		snprintf(l->vm_accel, sizeof l->vm_accel, "tcg (--accel tcg)");
	} else if (kvm) {
		accel = "kvm";
		snprintf(l->vm_accel, sizeof l->vm_accel, "kvm (%s)", kwhy);
	} else {
		accel = "tcg";
		snprintf(l->vm_accel, sizeof l->vm_accel, "tcg (software emulation: %s)", kwhy);
	}
	return spawn(l, accel, err);
}

static int spawn(sp_live_lane *l, const char *accel, sp_error *err)
{
	char why[256], k[4096];
	if (pick_kernel(l->cfg, k, sizeof k, why, sizeof why) < 0)
		return sp_usage(err, "%s", why);
	char initrd[600], console[700];
	snprintf(initrd, sizeof initrd, "%s/initramfs.cpio", l->dir);
	snprintf(console, sizeof console, "file:%s/console.log", l->dir);
	char *argv[] = {(char *)qemu_binary(), "-accel", (char *)accel, "-M", "pc", "-m", "256M", "-smp", "1",
			"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
			"-serial", console, "-serial", "stdio", "-kernel", k, "-initrd", initrd,
			"-append", "console=ttyS0 quiet loglevel=1 panic=-1 rdinit=/init", NULL};
	snprintf(l->rtinfo, sizeof l->rtinfo, "%s -accel %s -M pc, kernel %s (%s), initramfs %s", argv[0], accel, k,
		 l->vm_kernel, initrd);
	return sp_lane_proc_spawn(l, argv, err);
}

/* under KVM a guest prints its begin marker within seconds; TCG gets no watchdog */
static unsigned watchdog_ms(void)
{
	const char *e = getenv("SP_LIVE_KVM_WATCHDOG_MS"); /* tests shorten it */
	unsigned long long v;
	return e && sp_parse_u64(e, &v) == 0 && v >= 100 && v <= 600000 ? (unsigned)v : 30000;
}

static unsigned boot_watchdog_ms(sp_live_lane *l)
{
	return sp_startswith(l->vm_accel, "kvm") && strcmp(l->cfg->accel, "kvm") ? watchdog_ms() : 0;
}

static int fallback(sp_live_lane *l, sp_error *err)
{
	kvm_failed_boot = true;
	snprintf(l->vm_accel, sizeof l->vm_accel, "tcg (KVM passed its probe, but the guest printed nothing in %u ms under it)",
		 watchdog_ms());
	return spawn(l, "tcg", err);
}

static int host_pid(sp_live_lane *l, sp_error *err)
{
	(void)err;
	l->host_pid = 0; /* the guest's processes are not host processes */
	return 0;
}

const sp_live_runtime sp_rt_qemu = {
	.name = "qemu",
	.summary = "qemu microVM: host kernel, initramfs built around the doctor, serial console; KVM or TCG",
	.removable = SP_PROT_ROROOT,
	.probe = probe,
	.claims = claims,
	.prepare = prepare,
	.launch = launch,
	.host_pid = host_pid,
	.boot_watchdog_ms = boot_watchdog_ms,
	.fallback = fallback,
};
