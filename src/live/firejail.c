/* firejail: chroot into the lane's rootfs with a new pid/mount/uts/ipc
 * namespace, --net=none, every capability dropped, its default seccomp
 * filter, no_new_privs, a read-only root and a private /dev. */
#include <stdio.h>
#include <string.h>

#include "live/live.h"

static int probe(const sp_live_cfg *cfg, char *why, size_t whysz)
{
	(void)cfg;
	if (sp_probe_tool("firejail", why, whysz, "firejail not installed") < 0)
		return -1;
	/* --chroot is off unless firejail.config says "chroot yes" (default "no" since 0.9.72) */
	_cleanup_fclose_ FILE *f = fopen("/etc/firejail/firejail.config", "re");
	bool chroot_on = false;
	char line[512];
	while (f && fgets(line, sizeof line, f)) {
		char *t = sp_trim(line);
		if (sp_startswith(t, "chroot ") || sp_startswith(t, "chroot\t"))
			chroot_on = !strcmp(sp_trim(t + 6), "yes");
	}
	if (!chroot_on) {
		snprintf(why, whysz, "firejail's chroot feature is disabled (/etc/firejail/firejail.config has no 'chroot yes'; "
				     "the default is no), and the lane runs the doctor from its own rootfs");
		return -1;
	}
	return 0;
}

static void claims(sp_launch *l)
{
	*l = (sp_launch){.ns = SP_NS_PID | SP_NS_NET | SP_NS_MNT | SP_NS_UTS | SP_NS_IPC, .ro_root = true, .drop_caps = true,
			 .seccomp = true, .nnp = true, .min_dev = true, .tmp = true, .root_is_host_root = true};
}

static int launch(sp_lane *l, sp_error *err)
{
	const sp_launch *a = &l->actual;
	sp_strv argv;
	sp_strv_split(&argv, NULL, ",");
	sp_strv_push(&argv, "firejail");
	sp_strv_push(&argv, "--noprofile");
	sp_strv_push(&argv, "--quiet");
	_cleanup_free_ char *chroot = sp_xasprintf("--chroot=%s", l->rootfs);
	sp_strv_push(&argv, chroot);
	if (a->ns & SP_NS_NET)
		sp_strv_push(&argv, "--net=none");
	if (a->ns & SP_NS_IPC)
		sp_strv_push(&argv, "--ipc-namespace");
	if (a->drop_caps)
		sp_strv_push(&argv, "--caps.drop=all");
	if (a->seccomp)
		sp_strv_push(&argv, "--seccomp");
	if (a->nnp)
		sp_strv_push(&argv, "--nonewprivs");
	if (a->ro_root)
		sp_strv_push(&argv, "--read-only=/");
	if (a->min_dev)
		sp_strv_push(&argv, "--private-dev");
	if (a->tmp)
		sp_strv_push(&argv, "--private-tmp");
	snprintf(l->rtinfo, sizeof l->rtinfo, "firejail --chroot");
	return sp_lane_spawn(l, &argv, err);
}

const sp_runtime sp_rt_firejail = {
	.name = "firejail",
	.summary = "firejail: chroot, --net=none, caps.drop=all, default seccomp, read-only /",
	.removable = SP_PROT_NETNS | SP_PROT_ROROOT | SP_PROT_CAPS | SP_PROT_SECCOMP,
	.probe = probe,
	.claims = claims,
	.launch = launch,
};
