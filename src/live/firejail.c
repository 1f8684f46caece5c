/* firejail without its chroot feature (off in Debian's firejail.config):
 * a strict sandbox over the host's own filesystem, read-only:
 *   firejail --noprofile --quiet --net=none --ipc-namespace --caps.drop=all
 *            --seccomp=<the lane's deny list> --seccomp.block-secondary
 *            --restrict-namespaces --nonewprivs --private-dev --private-tmp
 *            --read-only=/ --blacklist=<each host control path> --private=LANE/home
 *            -- /bin/sh -c ... ~/sandprobe-doctor
 * A read-only view does not stop connect() on the host's unix sockets: every
 * host control path that exists (runtime sockets, engine and kubelet state:
 * hide.c) is blacklisted, and the lane's notes name them.
 * The doctor comes in through the private home (LANE/home, mounted on root's
 * home); the shell is the host's /bin/sh. firejail always makes a pid, mount
 * and uts namespace. Negative controls drop one flag each (host-net,
 * writable-root, kept-caps, host-dev, no-seccomp); firejail has no host-pid
 * or privileged mode. Teardown proof: firejail's own records of the sandbox
 * under /run/firejail are gone with it. */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/live.h"

static int probe(const sp_live_cfg *cfg, sp_outcome *o)
{
	(void)cfg;
	if (sp_probe_tool("firejail", o, "firejail not installed (tried: firejail --version)") < 0 ||
	    sp_probe_root(o, "the firejail lane runs as root (the doctor comes in through root's private home)") < 0)
		return -1;
	struct passwd *pw = getpwuid(0);
	if (!pw || strcmp(pw->pw_dir, "/root")) {
		sp_why(o, "root's home is %s, not /root: the lane's doctor path assumes /root", pw ? pw->pw_dir : "(none)");
		return -1;
	}
	char *argv[] = {"firejail", "--version", NULL};
	return sp_probe_cmd(argv, true, 10000, "no version", o);
}

static void claims(sp_live_launch *l)
{
	*l = (sp_live_launch){.ns = SP_NS_PID | SP_NS_NET | SP_NS_MNT | SP_NS_UTS | SP_NS_IPC, .ro_root = true, .drop_caps = true,
			 .seccomp = true, .nnp = true, .min_dev = true, .tmp = true, .root_is_host_root = true, .host_fs_root = true};
}

static int prepare(sp_live_lane *l, sp_error *err)
{
	char home[600], doc[700];
	snprintf(home, sizeof home, "%s/home", l->dir);
	if (mkdir(home, 0700) < 0)
		return sp_fail_errno(err, errno, "mkdir %s", home);
	snprintf(doc, sizeof doc, "%s/sandprobe-doctor", home);
	return sp_copy_file(l->cfg->doctor, doc, 0755, err);
}

static int launch(sp_live_lane *l, sp_error *err)
{
	const sp_live_launch *a = &l->actual;
	sp_strv argv;
	sp_strv_split(&argv, NULL, ",");
	sp_strv_push(&argv, "firejail");
	sp_strv_push(&argv, "--noprofile");
	sp_strv_push(&argv, "--quiet");
	if (a->ns & SP_NS_NET)
		sp_strv_push(&argv, "--net=none");
	if (a->ns & SP_NS_IPC)
		sp_strv_push(&argv, "--ipc-namespace");
	if (a->drop_caps)
		sp_strv_push(&argv, "--caps.drop=all");
	_cleanup_free_ char *sec = NULL;
	if (a->seccomp) {
		/* firejail's default list plus the lane's (clone and clone3: --restrict-namespaces sees their flags) */
		sec = sp_seccomp_deny_arg(l->cfg, "--seccomp=", ",");
		sp_strv_push(&argv, sec);
		sp_strv_push(&argv, "--seccomp.block-secondary");
		sp_strv_push(&argv, "--restrict-namespaces");
	}
	if (a->nnp)
		sp_strv_push(&argv, "--nonewprivs");
	if (a->min_dev)
		sp_strv_push(&argv, "--private-dev");
	if (a->tmp)
		sp_strv_push(&argv, "--private-tmp");
	if (a->ro_root)
		sp_strv_push(&argv, "--read-only=/");
	if (a->min_dev)
		sp_strv_push(&argv, "--tmpfs=/dev/shm"); /* --private-dev keeps the host's /dev/shm: a shared memory of the host's */
	sp_strv hidden;
	sp_host_control_paths(&hidden);
	char list[600] = "";
	size_t at = 0;
	for (size_t i = 0; i < hidden.n; i++) {
		_cleanup_free_ char *bl = sp_xasprintf("--blacklist=%s", hidden.v[i]);
		sp_strv_push(&argv, bl);
		if (at < sizeof list)
			at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? " " : "", hidden.v[i]);
	}
	sp_lane_note(l, "host control paths hidden (--blacklist): %s", hidden.n ? list : "none here");
	sp_strv_free(&hidden);
	_cleanup_free_ char *home = sp_xasprintf("--private=%s/home", l->dir);
	sp_strv_push(&argv, home);
	snprintf(l->rtinfo, sizeof l->rtinfo, "firejail over the host's filesystem (no chroot), private home %s/home", l->dir);
	return sp_lane_spawn(l, &argv, err);
}

/* firejail records each sandbox under /run/firejail/<kind>/<pid of the firejail process> */
static int leftovers(sp_live_lane *l, char *what, size_t whatsz)
{
	pid_t fj = l->proc.pid;
	if (fj <= 0) {
		snprintf(what, whatsz, "firejail never ran");
		return 0;
	}
	static const char *const kinds[] = {"sandbox", "name", "profile", "network", "bandwidth", "x11", "dbus"};
	char pid[32];
	snprintf(pid, sizeof pid, "%d", (int)fj);
	for (int round = 0; round < 100; round++) {
		char left[600] = "";
		for (size_t i = 0; i < SP_ARRAY_SIZE(kinds) && !left[0]; i++) {
			char p[300];
			snprintf(p, sizeof p, "/run/firejail/%s/%s", kinds[i], pid);
			if (access(p, F_OK) == 0)
				snprintf(left, sizeof left, "%s", p);
		}
		if (!left[0])
			break;
		if (round == 99) {
			snprintf(what, whatsz, "firejail's record %s is left", left);
			return 1;
		}
		usleep(20000);
	}
	char pw[256];
	if (!sp_wait_procs_gone(l->nonce, 5000, pw, sizeof pw)) {
		snprintf(what, whatsz, "%s", pw);
		return 1;
	}
	snprintf(what, whatsz, "no record of firejail %d under /run/firejail, no process carries the lane's nonce", (int)fj);
	return 0;
}

const sp_live_runtime sp_rt_firejail = {
	.name = "firejail",
	.summary = "firejail (no chroot): the host's filesystem read-only, private home, /dev and /tmp, --net=none, no "
		   "capabilities, seccomp, no_new_privs",
	/* not no-nnp: firejail's --seccomp sets no_new_privs itself (the host sees NoNewPrivs 1 without --nonewprivs) */
	.removable = SP_PROT_NETNS | SP_PROT_ROROOT | SP_PROT_CAPS | SP_PROT_DEV | SP_PROT_SECCOMP,
	.probe = probe,
	.claims = claims,
	.prepare = prepare,
	.launch = launch,
	.leftovers = leftovers,
	.doctor_at = "/root/sandprobe-doctor",
};
