/* fs.mount_facts: each fs.mounts PATH=FSTYPE:MODE (MODE ro or rw) is a mount
 * point in /proc/self/mountinfo with that filesystem type and that
 * per-mount ro/rw option, proven by action too: on a ro mount an exclusive
 * create fails with EROFS, on a rw one a create and unlink work. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "checks/probe.h"
#include "core/check.h"
#include "core/policy.h"
#include "core/util.h"

static int mf_split(const char *s, char *path, size_t psz, char *type, size_t tsz, bool *ro, char *why, size_t whysz)
{
	const char *eq = strrchr(s, '=');
	const char *co = eq ? strchr(eq, ':') : NULL;
	if (s[0] != '/' || !eq || !co || (size_t)(eq - s) >= psz || (size_t)(co - eq - 1) >= tsz || co == eq + 1) {
		snprintf(why, whysz, "'%.80s': expected /PATH=FSTYPE:ro or /PATH=FSTYPE:rw", s);
		return -1;
	}
	if (strcmp(co + 1, "ro") && strcmp(co + 1, "rw")) {
		snprintf(why, whysz, "'%.80s': the mode is ro or rw", s);
		return -1;
	}
	memcpy(path, s, (size_t)(eq - s));
	path[eq - s] = '\0';
	memcpy(type, eq + 1, (size_t)(co - eq - 1));
	type[co - eq - 1] = '\0';
	*ro = !strcmp(co + 1, "ro");
	return 0;
}

static int mf_parse(const char *s, char *why, size_t whysz)
{
	char p[512], t[64];
	bool ro;
	return mf_split(s, p, sizeof p, t, sizeof t, &ro, why, whysz);
}

const sp_policy_type sp_ptype_mount_facts = {.name = "mount_facts", .what = "/PATH=FSTYPE:ro or /PATH=FSTYPE:rw", .list = true, .max = 16, .parse = mf_parse};

static void run_mount_facts(const sp_ctx *ctx, sp_result *r)
{
	sp_strv v;
	sp_policy_list(ctx->policy, "fs.mounts", &v);
	sp_expected(r, "every fs.mounts /PATH=FSTYPE:MODE is a mount of that type, ro or rw in mountinfo and in action");
	if (v.n == 0) {
		sp_skip(r, "fs.mounts is empty: no mount declared");
		sp_strv_free(&v);
		return;
	}
	size_t bad = 0;
	for (size_t i = 0; i < v.n; i++) {
		char path[512], type[64], why[200];
		bool ro;
		if (mf_split(v.v[i], path, sizeof path, type, sizeof type, &ro, why, sizeof why) < 0) {
			sp_errorr(r, "fs.mounts: %s", why);
			sp_strv_free(&v);
			return;
		}
		sp_mount m;
		int e = sp_mountinfo_find(path, &m);
		if (e < 0 && e != -ENOENT) {
			sp_errorr(r, "/proc/self/mountinfo: %s", strerror(-e));
			sp_strv_free(&v);
			return;
		}
		if (e < 0 || strcmp(m.mountpoint, path)) {
			sp_observed_add(r, "%s: not a mount point", path);
			bad++;
			continue;
		}
		bool mro = sp_opt_has(m.opts, "ro");
		char probe[600];
		sp_probe_name(probe, sizeof probe, path);
		int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		int err = fd < 0 ? errno : 0;
		if (fd >= 0) {
			close(fd);
			if (unlink(probe) < 0)
				err = -1;
		}
		const char *act = fd >= 0 ? (err ? "created, unlink failed" : "create+unlink worked")
					  : strerrorname_np(err);
		sp_observed_add(r, "%s: %s %s, write: %s", path, m.fstype, mro ? "ro" : "rw", act ? act : "?");
		bool ok = !strcmp(m.fstype, type) && mro == ro && (ro ? err == EROFS : fd >= 0 && err == 0);
		bad += !ok;
	}
	if (bad)
		sp_failr(r, "%zu of %zu declared mount%s differ%s", bad, v.n, v.n == 1 ? "" : "s", bad == 1 ? "s" : "");
	else
		sp_pass(r, "all %zu declared mount%s as declared", v.n, v.n == 1 ? "" : "s");
	sp_strv_free(&v);
}

/* with nothing declared the runner skips the check without a probe child */
static bool declared(const sp_ctx *ctx, const char *key, char *why, size_t whysz)
{
	const char *v = sp_policy_get(ctx->policy, key);
	if (v && *v)
		return true;
	snprintf(why, whysz, "%s is unset: nothing declared", key);
	return false;
}
static bool has_mounts(const sp_ctx *c, char *w, size_t n) { return declared(c, "fs.mounts", w, n); }

const sp_check sp_check_fs_mount_facts = {
	.id = "fs.mount_facts",
	.supported = has_mounts,
	.category = "filesystem",
	.title = "declared mounts have their filesystem type and ro/rw state, in mountinfo and in action",
	.rationale = "a workspace meant to be writable, or a root meant to be read-only, is the sandbox's basic contract",
	.techniques = "",
	.policy_keys = "fs.mounts:mount_facts",
	.method = "action",
	.run = run_mount_facts,
};
