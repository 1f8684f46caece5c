/* bubblewrap, as bwrap is meant to run: unprivileged (when sandprobe runs as
 * root, bwrap runs as nobody, so root inside maps to nobody outside), every
 * namespace (user included), the rootfs bound read-only at /, a fresh /proc
 * with the profile's sensitive paths masked, a minimal /dev, tmpfs /tmp,
 * cap-drop ALL and a seccomp BPF program passed on an fd. bwrap always sets
 * no_new_privs. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/live.h"

static int probe(const sp_live_cfg *cfg, sp_outcome *o)
{
	(void)cfg;
	return sp_probe_tool("bwrap", o, "bwrap not installed (package bubblewrap)");
}

static void claims(sp_live_launch *l)
{
	*l = (sp_live_launch){.ns = SP_NS_ALL, .ro_root = true, .drop_caps = true, .seccomp = true, .nnp = true,
			 .min_dev = true, .tmp = true, .masked = true};
}

/* bwrap runs as nobody when we are root: the rootfs is nobody's, so that root
 * inside (nobody outside) owns it as root owns a root filesystem */
static int prepare(sp_live_lane *l, sp_error *err)
{
	if (getuid() == 0 && chown(l->rootfs, 65534, 65534) < 0)
		return sp_fail_errno(err, errno, "chown %s", l->rootfs);
	return 0;
}

static int launch(sp_live_lane *l, sp_error *err)
{
	const sp_live_launch *a = &l->actual;
	sp_strv argv;
	sp_strv_split(&argv, NULL, ",");
	if (getuid() == 0) {
		sp_strv_push(&argv, "setpriv");
		sp_strv_push(&argv, "--reuid=65534");
		sp_strv_push(&argv, "--regid=65534");
		sp_strv_push(&argv, "--clear-groups");
		sp_strv_push(&argv, "--");
	}
	sp_strv_push(&argv, "bwrap");
	static const char *const flags[] = {"--unshare-pid", "--unshare-net", NULL, "--unshare-uts", "--unshare-ipc",
					    "--unshare-user", "--unshare-cgroup"};
	for (unsigned i = 0; i < 7; i++)
		if ((a->ns & (1u << i)) && flags[i])
			sp_strv_push(&argv, flags[i]);
	if (a->ns & SP_NS_USER) {
		sp_strv_push(&argv, "--uid");
		sp_strv_push(&argv, "0");
		sp_strv_push(&argv, "--gid");
		sp_strv_push(&argv, "0");
	}
	sp_strv_push(&argv, "--die-with-parent");
	sp_strv_push(&argv, a->ro_root ? "--ro-bind" : "--bind");
	sp_strv_push(&argv, l->rootfs);
	sp_strv_push(&argv, "/");
	sp_strv_push(&argv, "--proc");
	sp_strv_push(&argv, "/proc");
	if (a->min_dev) {
		sp_strv_push(&argv, "--dev");
		sp_strv_push(&argv, "/dev");
	} else {
		sp_strv_push(&argv, "--dev-bind");
		sp_strv_push(&argv, "/dev");
		sp_strv_push(&argv, "/dev");
	}
	if (a->tmp) {
		sp_strv_push(&argv, "--tmpfs");
		sp_strv_push(&argv, "/tmp");
	}
	_cleanup_free_ char *emptydir = sp_xasprintf("%s/var", l->rootfs);
	for (size_t i = 0; a->masked && !a->privileged && i < l->cfg->masked.n; i++) {
		/* only what exists under the new /proc (bwrap mounts no /sys): a file gets /dev/null, a dir an empty dir */
		const char *m = l->cfg->masked.v[i];
		struct stat st;
		if (!sp_startswith(m, "/proc/") || stat(m, &st) < 0)
			continue;
		sp_strv_push(&argv, "--ro-bind-try");
		sp_strv_push(&argv, S_ISDIR(st.st_mode) ? emptydir : "/dev/null");
		sp_strv_push(&argv, m);
	}
	sp_strv_push(&argv, "--cap-drop");
	sp_strv_push(&argv, "ALL");
	if (!a->drop_caps) {
		sp_strv_push(&argv, "--cap-add");
		sp_strv_push(&argv, "ALL");
	}
	char fdbuf[16];
	if (a->seccomp) {
		l->seccomp_fd = sp_seccomp_bpf_fd(l->cfg, err);
		if (l->seccomp_fd < 0) {
			sp_strv_free(&argv);
			return -1;
		}
		snprintf(fdbuf, sizeof fdbuf, "%d", l->seccomp_fd);
		sp_strv_push(&argv, "--seccomp");
		sp_strv_push(&argv, fdbuf);
	}
	int r = sp_lane_spawn(l, &argv, err);
	if (l->seccomp_fd >= 0) {
		close(l->seccomp_fd);
		l->seccomp_fd = -1;
	}
	snprintf(l->rtinfo, sizeof l->rtinfo, "bwrap%s%s", a->seccomp ? " --seccomp" : "", a->ro_root ? " --ro-bind" : " --bind");
	return r;
}

const sp_live_runtime sp_rt_bwrap = {
	.name = "bwrap",
	.summary = "bubblewrap: user namespace sandbox, read-only bind root, seccomp BPF",
	.removable = SP_PROT_ALL & ~(unsigned)SP_PROT_NNP, /* bwrap always sets no_new_privs */
	.probe = probe,
	.claims = claims,
	.prepare = prepare,
	.launch = launch,
};
