/* util-linux unshare: namespaces and a root. It makes a user namespace whose
 * root keeps every capability inside it, chroots into the rootfs and mounts a
 * fresh /proc; setpriv sets no_new_privs first (not in the no-nnp control). The rootfs is bind-mounted
 * onto itself beforehand, read-only (the copy into the sandbox's mount
 * namespace locks the flag), so the sandbox's / is a mount of its own, with
 * a /tmp tmpfs and a minimal /dev (harmless nodes, own devpts, /dev/shm). Its
 * claims are exactly that: no capability drop, no seccomp. Without a pid
 * namespace a user namespace may not mount a proc of the host's pid
 * namespace, so that control binds the host's /proc into the rootfs first.
 * Both binds are removed, and proven removed, at teardown. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "live/live.h"

static int probe(const sp_live_cfg *cfg, sp_outcome *o)
{
	(void)cfg;
	if (sp_probe_root(o, "unshare lanes need root (the rootfs is bind-mounted read-only first)") < 0 ||
	    sp_probe_tool("unshare", o, "unshare not installed (package util-linux)") < 0 ||
	    sp_probe_tool("setpriv", o, "setpriv not installed (package util-linux)") < 0)
		return -1;
	/* --root appeared in util-linux 2.38 */
	char *argv[] = {"unshare", "--help", NULL};
	_cleanup_free_ char *out = NULL;
	if (sp_run_cmd(argv, &out, NULL, 5000) != 0 || !strstr(out, "--root")) {
		sp_why(o, "this unshare has no --root option (util-linux older than 2.38)");
		return -1;
	}
	return 0;
}

static void claims(sp_live_launch *l)
{
	/* --map-root-user maps root inside to the uid that runs unshare */
	*l = (sp_live_launch){.ns = SP_NS_ALL, .nnp = true, .ro_root = true, .tmp = true, .min_dev = true,
			 .root_is_host_root = getuid() == 0};
}

static int launch(sp_live_lane *l, sp_error *err)
{
	const sp_live_launch *a = &l->actual;
	sp_strv argv;
	sp_strv_split(&argv, NULL, ",");
	if (a->nnp) {
		sp_strv_push(&argv, "setpriv");
		sp_strv_push(&argv, "--no-new-privs");
		sp_strv_push(&argv, "--");
	}
	sp_strv_push(&argv, "unshare");
	static const char *const flags[] = {"--pid", "--net", "--mount", "--uts", "--ipc", "--user", "--cgroup"};
	for (unsigned i = 0; i < 7; i++)
		if (a->ns & (1u << i))
			sp_strv_push(&argv, flags[i]);
	if (a->ns & SP_NS_USER)
		sp_strv_push(&argv, "--map-root-user");
	if (a->ns & SP_NS_PID) {
		sp_strv_push(&argv, "--fork");
		sp_strv_push(&argv, "--kill-child");
	}
	_cleanup_free_ char *root = sp_xasprintf("--root=%s", l->rootfs);
	sp_strv_push(&argv, root);
	/* a proc of the new pid namespace, mounted inside the new mount namespace */
	if (a->ns & SP_NS_PID)
		sp_strv_push(&argv, "--mount-proc");
	int r = sp_lane_spawn(l, &argv, err);
	snprintf(l->rtinfo, sizeof l->rtinfo, "%sunshare --root", a->nnp ? "setpriv --no-new-privs " : "");
	return r;
}

static int mnt(const char *src, const char *dir, const char *type, unsigned long flags, const char *data, sp_error *err)
{
	if (mount(src, dir, type, flags, data) < 0)
		return sp_fail_errno(err, errno, "mount %s on %s", type ? type : src ? src : "(remount)", dir);
	return 0;
}

/* a minimal /dev: the harmless nodes, a devpts of its own, a /dev/shm */
static int minimal_dev(const char *dev, sp_error *err)
{
	static const struct { const char *name; unsigned maj, min; } nodes[] = {
		{"null", 1, 3}, {"zero", 1, 5}, {"full", 1, 7}, {"random", 1, 8}, {"urandom", 1, 9}, {"tty", 5, 0},
	};
	if (mnt("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=755,size=256k", err) < 0)
		return -1;
	char p[700];
	for (size_t i = 0; i < SP_ARRAY_SIZE(nodes); i++) {
		snprintf(p, sizeof p, "%s/%s", dev, nodes[i].name);
		if (mknod(p, S_IFCHR | 0666, makedev(nodes[i].maj, nodes[i].min)) < 0 || chmod(p, 0666) < 0)
			return sp_fail_errno(err, errno, "mknod %s", p);
	}
	snprintf(p, sizeof p, "%s/ptmx", dev);
	if (symlink("pts/ptmx", p) < 0)
		return sp_fail_errno(err, errno, "symlink %s", p);
	snprintf(p, sizeof p, "%s/pts", dev);
	if (mkdir(p, 0755) < 0 || mnt("devpts", p, "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620", err) < 0)
		return err->msg[0] ? -1 : sp_fail_errno(err, errno, "mkdir %s", p);
	snprintf(p, sizeof p, "%s/shm", dev);
	if (mkdir(p, 01777) < 0 || mnt("shm", p, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=1777,size=64m", err) < 0)
		return err->msg[0] ? -1 : sp_fail_errno(err, errno, "mkdir %s", p);
	return 0;
}

static int prepare(sp_live_lane *l, sp_error *err)
{
	const sp_live_launch *a = &l->actual;
	char p[600];
	sp_error_clear(err);
	if (mnt(l->rootfs, l->rootfs, NULL, MS_BIND, NULL, err) < 0 || mnt(NULL, l->rootfs, NULL, MS_PRIVATE, NULL, err) < 0)
		return -1;
	if (a->ro_root && mnt(NULL, l->rootfs, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL, err) < 0)
		return -1;
	snprintf(p, sizeof p, "%s/tmp", l->rootfs);
	if (a->tmp && mnt("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=64m", err) < 0)
		return -1;
	snprintf(p, sizeof p, "%s/dev", l->rootfs);
	if (a->min_dev ? minimal_dev(p, err) < 0 : mnt("/dev", p, NULL, MS_BIND | MS_REC, NULL, err) < 0)
		return -1;
	if (a->ns & SP_NS_PID)
		return 0;
	snprintf(p, sizeof p, "%s/proc", l->rootfs);
	return mnt("/proc", p, NULL, MS_BIND | MS_REC, NULL, err);
}

static void teardown(sp_live_lane *l)
{
	/* lazily detaches the rootfs bind and every mount under it */
	umount2(l->rootfs, MNT_DETACH);
}

const sp_live_runtime sp_rt_unshare = {
	.name = "unshare",
	.summary = "util-linux unshare: namespaces, a read-only bind root, nothing else",
	.removable = SP_PROT_PIDNS | SP_PROT_NETNS | SP_PROT_ROROOT | SP_PROT_DEV | SP_PROT_NNP,
	.probe = probe,
	.claims = claims,
	.prepare = prepare,
	.launch = launch,
	.teardown = teardown,
};
