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
#include <limits.h>
#include <sys/stat.h>
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

/* the release string of an x86 bzImage (boot protocol header): 0, or -1 (o: "kernel PATH is not an x86
 * bzImage", errnum set when it could not be opened) */
static int bzimage_release(const char *path, char *out, size_t outsz, sp_outcome *o)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sp_why_errno(o, errno, "kernel %s is not an x86 bzImage", path);
	unsigned char hdr[0x210];
	if (pread(fd, hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr || memcmp(hdr + 0x202, "HdrS", 4) != 0)
		return sp_why(o, "kernel %s is not an x86 bzImage", path);
	unsigned off = (unsigned)hdr[0x20e] | ((unsigned)hdr[0x20f] << 8);
	char ver[256];
	ssize_t n = pread(fd, ver, sizeof ver - 1, (off_t)off + 0x200);
	if (n <= 0)
		return sp_why(o, "kernel %s is not an x86 bzImage", path);
	ver[n] = '\0';
	size_t len = strcspn(ver, " \n");
	if (len == 0)
		return sp_why(o, "kernel %s is not an x86 bzImage", path);
	snprintf(out, outsz, "%.*s", (int)len, ver);
	return 0;
}

static const char *qemu_binary(void)
{
	struct utsname u;
	uname(&u);
	return !strcmp(u.machine, "x86_64") ? "qemu-system-x86_64" : NULL;
}

static int pick_kernel(const sp_live_cfg *cfg, char *path, size_t psz, sp_outcome *o)
{
	if (cfg->kernel[0])
		snprintf(path, psz, "%s", cfg->kernel);
	else if (newest_kernel(path, psz) < 0) {
		sp_why(o, "no kernel: /boot has no vmlinuz-* (apt-get install linux-image-amd64, or --kernel FILE)");
		return -1;
	}
	if (access(path, R_OK) != 0) {
		sp_why(o, "kernel %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int probe(const sp_live_cfg *cfg, sp_outcome *o)
{
	const char *q = qemu_binary();
	if (!q) {
		sp_why(o, "qemu lanes are implemented for x86_64 hosts only");
		return -1;
	}
	if (sp_probe_tool(q, o, "%s not installed (package qemu-system-x86)", q) < 0)
		return -1;
	char k[4096], rel[128];
	if (pick_kernel(cfg, k, sizeof k, o) < 0)
		return -1;
	if (bzimage_release(k, rel, sizeof rel, o) < 0)
		return -1;
	sp_outcome kwhy = {0};
	if (!strcmp(cfg->accel, "kvm") && !sp_kvm_usable(&kwhy))
		return sp_why(o, "--accel kvm, but KVM is not usable: %s", kwhy.why);
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

/* ---- the shared workspace (--workspace): 9p over virtio-pci ----
 * A distribution kernel has virtio, 9pnet and 9p as modules: the ones the
 * mount needs, with what they depend on (modules.dep of the booted
 * kernel's release), go into the initramfs in load order and the init
 * insmods them. A module the kernel has built in (modules.builtin) is
 * skipped. */
#define WS_TAG "sandprobe-ws"
#define WS_GUEST "/workspace"

static int dep_line(const char *dep, const char *mod, char *out, size_t outsz)
{
	/* the line whose first field (before ':') ends in /MOD.ko */
	char tail[80];
	int tl = snprintf(tail, sizeof tail, "/%s.ko:", mod);
	for (const char *p = dep; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *colon = memchr(p, ':', len);
		if (colon && colon - p + 1 >= tl && !memcmp(colon + 1 - tl, tail, (size_t)tl)) {
			snprintf(out, outsz, "%.*s", (int)len, p);
			return 0;
		}
		p = nl ? nl + 1 : p + len;
	}
	return -1;
}

static int dep_add(const char *dep, const char *path, sp_strv *order, int depth)
{
	if (depth > 16)
		return -1;
	if (sp_strv_contains(order, path))
		return 0;
	/* find path's own line */
	size_t pl = strlen(path);
	for (const char *p = dep; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len > pl && !memcmp(p, path, pl) && p[pl] == ':') {
			char line[4096];
			snprintf(line, sizeof line, "%.*s", (int)(len - pl - 1), p + pl + 1);
			char *save = NULL;
			for (char *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save))
				if (dep_add(dep, t, order, depth + 1) < 0)
					return -1;
			sp_strv_push(order, path);
			return 0;
		}
		p = nl ? nl + 1 : p + len;
	}
	return -1;
}

/* the module files (relative to /lib/modules/REL) the 9p mount needs, in load order */
static int ws_modules(const char *rel, sp_strv *order, sp_outcome *o)
{
	char path[512];
	snprintf(path, sizeof path, "/lib/modules/%s/modules.dep", rel);
	size_t len = 0;
	int e = 0;
	_cleanup_free_ char *dep = sp_read_file_alloc(path, 64u << 20, &len, &e);
	snprintf(path, sizeof path, "/lib/modules/%s/modules.builtin", rel);
	_cleanup_free_ char *builtin = sp_read_file_alloc(path, 64u << 20, &len, &e);
	static const char *const want[] = {"virtio_pci", "9pnet_virtio", "9p"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(want); i++) {
		char needle[64], line[4096];
		snprintf(needle, sizeof needle, "/%s.ko\n", want[i]);
		if (builtin && strstr(builtin, needle))
			continue;
		if (!dep || dep_line(dep, want[i], line, sizeof line) < 0) {
			sp_why(o, "kernel %s: %s is neither built in nor a module in /lib/modules/%s", rel, want[i], rel);
			return -1;
		}
		*strchr(line, ':') = '\0';
		if (dep_add(dep, line, order, 0) < 0) {
			sp_why(o, "kernel %s: cannot resolve the dependencies of %s in modules.dep", rel, line);
			return -1;
		}
	}
	for (size_t i = 0; i < order->n; i++)
		if (!sp_endswith(order->v[i], ".ko")) {
			sp_why(o, "kernel %s: module %s is compressed; the initramfs loads plain .ko files only", rel,
			       order->v[i]);
			return -1;
		}
	return 0;
}

/* the marker beside the shared directory (its parent): a file that must not be reachable from the guest */
typedef struct qemu_priv {
	char marker[PATH_MAX];
	char export_dir[PATH_MAX];
} qemu_priv;

static void remove_marker(sp_live_lane *l)
{
	qemu_priv *q = l->priv;
	if (q && q->marker[0] && unlink(q->marker) == 0)
		q->marker[0] = '\0';
	else if (q && q->marker[0] && errno == ENOENT)
		q->marker[0] = '\0';
}

static int ws_prepare(sp_live_lane *l, FILE *init, sp_strv *mods, sp_error *err)
{
	sp_outcome o = {0};
	if (ws_modules(l->vm_kernel, mods, &o) < 0)
		return sp_usage(err, "--workspace: %.599s", o.why);
	qemu_priv *q = sp_xcalloc(1, sizeof *q);
	l->priv = q;
	char parent[PATH_MAX];
	snprintf(parent, sizeof parent, "%s", l->cfg->workspace);
	char *slash = strrchr(parent, '/');
	if (slash == parent)
		slash[1] = '\0';
	else
		*slash = '\0';
	snprintf(q->export_dir, sizeof q->export_dir, "%s", l->cfg->ws_parent ? parent : l->cfg->workspace);
	snprintf(q->marker, sizeof q->marker, "%s%s.sandprobe-outside-%s", parent, strcmp(parent, "/") ? "/" : "", l->nonce + 8);
	int fd = open(q->marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		int e = errno;
		q->marker[0] = '\0';
		return sp_fail_errno(err, e, "--workspace: the marker beside %s", l->cfg->workspace);
	}
	dprintf(fd, "sandprobe live: outside the shared workspace %s; must not be reachable from the guest\n",
		l->cfg->workspace);
	close(fd);
	for (size_t i = 0; i < mods->n; i++) {
		const char *b = strrchr(mods->v[i], '/');
		fprintf(init, "busybox insmod /lib/modules/%s\n", b ? b + 1 : mods->v[i]);
	}
	fprintf(init, "busybox mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 %s %s\n", WS_TAG, WS_GUEST);
	/* the doctor's ws.* checks: where the workspace is, and the host path that must stay out of it */
	_cleanup_free_ char *a1 = sp_xasprintf("ws.path=%s", WS_GUEST);
	_cleanup_free_ char *a2 = sp_xasprintf("ws.outside=%s", q->marker);
	sp_strv_push(&l->doctor_args, "--set");
	sp_strv_push(&l->doctor_args, a1);
	sp_strv_push(&l->doctor_args, "--set");
	sp_strv_push(&l->doctor_args, a2);
	return 0;
}

static int prepare(sp_live_lane *l, sp_error *err)
{
	sp_outcome o = {0};
	char k[4096];
	if (pick_kernel(l->cfg, k, sizeof k, &o) < 0 || bzimage_release(k, l->vm_kernel, sizeof l->vm_kernel, &o) < 0)
		return sp_usage(err, "%.511s", o.why);
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
	sp_strv mods;
	sp_strv_split(&mods, NULL, ",");
	if (l->cfg->workspace[0] && ws_prepare(l, f, &mods, err) < 0) {
		fclose(f);
		free(script);
		sp_strv_free(&mods);
		return -1;
	}
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
		sp_strv_free(&mods);
		return -1;
	}
	int r = 0;
	static const char *const dirs[] = {"bin", "dev", "proc", "sys", "tmp", "root", "workspace", "lib", "lib/modules"};
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
		sp_strv_free(&mods);
		return sp_fail_errno(err, EIO, "write %s", path);
	}
	for (size_t i = 0; i < mods.n; i++) {
		const char *b = strrchr(mods.v[i], '/');
		_cleanup_free_ char *in = sp_xasprintf("lib/modules/%s", b ? b + 1 : mods.v[i]);
		_cleanup_free_ char *host = sp_xasprintf("/lib/modules/%s/%s", l->vm_kernel, mods.v[i]);
		if (sp_cpio_file_from(c, in, 0644, host, err) < 0) {
			sp_error e2;
			sp_cpio_close(c, &e2);
			sp_strv_free(&mods);
			return -1;
		}
	}
	sp_strv_free(&mods);
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
	sp_outcome ko = {0};
	bool kvm = sp_kvm_usable(&ko);
	const char *kwhy = ko.why; /* at most 255 bytes */
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
	sp_outcome o = {0};
	char k[4096];
	if (pick_kernel(l->cfg, k, sizeof k, &o) < 0)
		return sp_usage(err, "%.255s", o.why);
	char initrd[600], console[700];
	snprintf(initrd, sizeof initrd, "%s/initramfs.cpio", l->dir);
	snprintf(console, sizeof console, "file:%s/console.log", l->dir);
	const qemu_priv *q = l->priv;
	_cleanup_free_ char *fsdev = NULL;
	if (q && q->export_dir[0]) {
		/* mapped-xattr: the guest's owners and modes live in xattrs; host files are the qemu user's, never setuid */
		char qp[2 * PATH_MAX];
		size_t at = 0;
		for (const char *c = q->export_dir; *c && at < sizeof qp - 2; c++) {
			if (*c == ',') /* qemu's option syntax doubles a comma */
				qp[at++] = ',';
			qp[at++] = *c;
		}
		qp[at] = '\0';
		fsdev = sp_xasprintf("local,id=ws,path=%s,security_model=mapped-xattr", qp);
	}
	/* no_timer_check: on a loaded host a TCG guest can fail the kernel's IO-APIC timer check and panic */
	char *argv[] = {(char *)qemu_binary(), "-accel", (char *)accel, "-M", "pc", "-m", "256M", "-smp", "1",
			"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
			"-serial", console, "-serial", "stdio", "-kernel", k, "-initrd", initrd,
			"-append", "console=ttyS0 quiet loglevel=1 panic=-1 no_timer_check rdinit=/init",
			fsdev ? "-fsdev" : NULL, fsdev, "-device", "virtio-9p-pci,fsdev=ws,mount_tag=" WS_TAG, NULL};
	snprintf(l->rtinfo, sizeof l->rtinfo, "%s -accel %s -M pc, kernel %s (%s), initramfs %s%s%s%s", argv[0], accel, k,
		 l->vm_kernel, initrd, fsdev ? ", 9p workspace " : "", fsdev ? q->export_dir : "",
		 fsdev && l->cfg->ws_parent ? " (the parent: --workspace-export-parent)" : "");
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

/* the marker beside the workspace: removed, and proven gone */
static int leftovers(sp_live_lane *l, char *what, size_t whatsz)
{
	qemu_priv *q = l->priv;
	if (!q)
		return snprintf(what, whatsz, "no workspace"), 0;
	char m[PATH_MAX];
	snprintf(m, sizeof m, "%s", q->marker);
	remove_marker(l);
	struct stat st;
	if (q->marker[0] || (m[0] && lstat(m, &st) == 0))
		return snprintf(what, whatsz, "workspace marker %s NOT REMOVED", m), 1;
	return snprintf(what, whatsz, "workspace marker %s removed", m), 0;
}

static void lane_free(sp_live_lane *l)
{
	remove_marker(l);
	free(l->priv);
	l->priv = NULL;
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
	.leftovers = leftovers,
	.lane_free = lane_free,
};
