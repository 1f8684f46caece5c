/* systemd-nspawn: the rootfs as an unregistered machine, read-only, private
 * network, no_new_privs, every capability dropped, its built-in seccomp
 * filter, its minimal /dev without /dev/net (a tmpfs over it: nspawn always
 * makes /dev/net/tun, and its device policy lets it open); stdio passed
 * through (--console=pipe).
 *
 * nspawn's --system-call-filter has no argument filters, and its built-in
 * allow list lets @process (clone, clone3) through whatever the deny list
 * says: clone(CLONE_NEWUSER) made a user namespace in the sandbox. So the
 * lane's own filter is loaded on systemd-nspawn before it execs (as a unit's
 * RestrictNamespaces=~user SystemCallArchitectures=native would): clone with
 * CLONE_NEWUSER refused, clone3 ENOSYS, the 32-bit ABIs refused, and the deny
 * list but for what nspawn itself needs to build the container (mount API,
 * unshare, setns, pivot_root, keyctl; nspawn's own filter refuses those to
 * the sandbox, which has no capabilities). Stacked filters: the strictest
 * answer wins. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/live.h"

static int probe(const sp_live_cfg *cfg, sp_outcome *o)
{
	(void)cfg;
	if (sp_probe_root(o, "systemd-nspawn needs root") < 0 ||
	    sp_probe_tool("systemd-nspawn", o, "systemd-nspawn not installed (package systemd-container)") < 0)
		return -1;
	return 0;
}

static void claims(sp_live_launch *l)
{
	*l = (sp_live_launch){.ns = SP_NS_PID | SP_NS_NET | SP_NS_MNT | SP_NS_UTS | SP_NS_IPC, .ro_root = true, .drop_caps = true,
			 .seccomp = true, .nnp = true, .min_dev = true, .tmp = true, .root_is_host_root = true};
}

/* the lane's filter but for what nspawn itself needs to build the container */
static void *prefilter(const sp_live_cfg *cfg, sp_error *err)
{
	static const char *const nspawn_needs[] = {"mount", "umount2", "unshare", "setns", "pivot_root", "fsopen",
						   "fsmount", "open_tree", "move_mount", "keyctl", NULL};
	return sp_seccomp_prefilter(cfg, nspawn_needs, err);
}

static int launch(sp_live_lane *l, sp_error *err)
{
	const sp_live_launch *a = &l->actual;
	sp_strv argv;
	sp_strv_split(&argv, NULL, ",");
	if (!a->seccomp) {
		/* nspawn always installs its filter unless told by the environment */
		sp_strv_push(&argv, "env");
		sp_strv_push(&argv, "SYSTEMD_SECCOMP=0");
	}
	sp_strv_push(&argv, "systemd-nspawn");
	sp_strv_push(&argv, "--quiet");
	sp_strv_push(&argv, "--register=no");
	sp_strv_push(&argv, "--keep-unit");
	sp_strv_push(&argv, "--console=pipe");
	_cleanup_free_ char *m = sp_xasprintf("--machine=%s", l->name);
	sp_strv_push(&argv, m);
	_cleanup_free_ char *d = sp_xasprintf("--directory=%s", l->rootfs);
	sp_strv_push(&argv, d);
	if (a->ns & SP_NS_NET)
		sp_strv_push(&argv, "--private-network");
	if (a->ro_root)
		sp_strv_push(&argv, "--read-only");
	if (a->nnp)
		sp_strv_push(&argv, "--no-new-privileges=yes");
	if (a->drop_caps)
		sp_strv_push(&argv, "--drop-capability=all");
	else
		sp_strv_push(&argv, "--capability=all");
	if (a->tmp)
		sp_strv_push(&argv, "--tmpfs=/tmp:mode=1777,nosuid,nodev");
	if (a->min_dev)
		sp_strv_push(&argv, "--tmpfs=/dev/net:mode=0755,nosuid,noexec,nodev");
	_cleanup_free_ char *filter = NULL;
	if (a->seccomp) {
		free(l->prefilter);
		l->prefilter = prefilter(l->cfg, err);
		if (!l->prefilter) {
			sp_strv_free(&argv);
			return -1;
		}
		/* its built-in filter plus the syscalls the profile wants refused (no argument filters here) */
		filter = sp_seccomp_deny_arg(l->cfg, "--system-call-filter=~", " ");
		sp_strv_push(&argv, filter);
	}
	snprintf(l->rtinfo, sizeof l->rtinfo, "systemd-nspawn --register=no%s%s",
		 a->seccomp ? ", under the lane's filter (clone CLONE_NEWUSER, clone3, 32-bit ABIs, the deny list)"
			    : " SYSTEMD_SECCOMP=0",
		 a->min_dev ? ", /dev/net hidden" : "");
	sp_lane_note(l, "host control paths hidden: none needed (the lane's own rootfs, no host path bound in)");
	return sp_lane_spawn(l, &argv, err);
}

static int leftovers(sp_live_lane *l, char *what, size_t whatsz)
{
	char p[256];
	snprintf(p, sizeof p, "/run/systemd/nspawn/propagate/%s", l->name);
	if (access(p, F_OK) == 0) {
		snprintf(what, whatsz, "%s left", p);
		return 1;
	}
	snprintf(what, whatsz, "no propagation dir left");
	return 0;
}

const sp_live_runtime sp_rt_nspawn = {
	.name = "systemd-nspawn",
	.summary = "systemd-nspawn: unregistered machine, --read-only, --private-network, caps dropped, the lane's "
		   "seccomp filter, /dev without tun",
	.removable = SP_PROT_NETNS | SP_PROT_ROROOT | SP_PROT_CAPS | SP_PROT_SECCOMP | SP_PROT_DEV,
	.probe = probe,
	.claims = claims,
	.launch = launch,
	.prefilter = prefilter,
	.leftovers = leftovers,
};
