/* Container engines driven through their CLI (podman, docker): the lane's
 * rootfs is imported once per run as a local image (no registry), each lane
 * is `ENGINE run -i --name NAME ...` in the foreground, teardown is
 * `ENGINE rm -f NAME`, and the proof is that the engine no longer knows it.
 * The image is removed when the run ends. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "live/engine.h"

void sp_engine_claims(sp_launch *l)
{
	*l = (sp_launch){.ns = SP_NS_ALL & ~(unsigned)SP_NS_USER, .ro_root = true, .drop_caps = true, .seccomp = true,
			 .nnp = true, .min_dev = true, .tmp = true, .own_cgroup = true, .masked = true, .root_is_host_root = true};
}

int sp_engine_prepare(sp_lane *l, sp_error *err)
{
	sp_engine *e = l->rt->engine;
	if (e->image[0])
		return 0;
	char tarp[600];
	snprintf(tarp, sizeof tarp, "%s/rootfs.tar", l->dir);
	char *tar[] = {"tar", "-C", l->rootfs, "--numeric-owner", "-cf", tarp, ".", NULL};
	_cleanup_free_ char *eo = NULL;
	if (sp_run_cmd(tar, NULL, &eo, 30000) != 0)
		return sp_fail_errno(err, EIO, "tar of the rootfs failed: %s", eo ? eo : "");
	char image[128];
	snprintf(image, sizeof image, "localhost/sandprobe-live-%d-%s:latest", (int)getpid(), l->nonce + 8);
	char *imp[] = {(char *)e->bin, "import", tarp, image, NULL};
	free(eo);
	eo = NULL;
	int rc = sp_run_cmd(imp, NULL, &eo, 120000);
	unlink(tarp);
	if (rc != 0) {
		char last[256];
		sp_last_line(eo, last, sizeof last);
		return sp_fail_errno(err, EIO, "%s import failed: %s", e->bin, last);
	}
	snprintf(e->image, sizeof e->image, "%s", image);
	return 0;
}

int sp_engine_launch(sp_lane *l, sp_error *err)
{
	const sp_engine *e = l->rt->engine;
	const sp_launch *a = &l->actual;
	sp_strv argv;
	sp_strv_split(&argv, NULL, ",");
	sp_strv_push(&argv, e->bin);
	sp_strv_push(&argv, "run");
	sp_strv_push(&argv, "-i");
	sp_strv_push(&argv, "--rm");
	sp_strv_push(&argv, "--name");
	sp_strv_push(&argv, l->name);
	for (const char *const *x = e->extra; x && *x; x++)
		sp_strv_push(&argv, *x);
	sp_strv_push(&argv, "--network");
	sp_strv_push(&argv, (a->ns & SP_NS_NET) ? "none" : "host");
	sp_strv_push(&argv, "--pid");
	sp_strv_push(&argv, (a->ns & SP_NS_PID) ? "private" : "host");
	sp_strv_push(&argv, "--cgroupns");
	sp_strv_push(&argv, (a->ns & SP_NS_CGROUP) ? "private" : "host");
	if (a->ro_root)
		sp_strv_push(&argv, "--read-only");
	if (a->tmp) {
		sp_strv_push(&argv, "--tmpfs");
		sp_strv_push(&argv, "/tmp:rw,nosuid,nodev,size=65536k");
	}
	if (a->privileged) {
		sp_strv_push(&argv, "--privileged");
	} else {
		if (a->drop_caps) {
			sp_strv_push(&argv, "--cap-drop");
			sp_strv_push(&argv, "ALL");
		} else {
			/* the host's own set: a capability it lacks makes the OCI runtime fail */
			sp_strv caps;
			sp_strv_split(&caps, NULL, ",");
			sp_host_caps(&caps);
			for (size_t i = 0; i < caps.n; i++) {
				sp_strv_push(&argv, "--cap-add");
				sp_strv_push(&argv, caps.v[i]);
			}
			sp_strv_free(&caps);
		}
	}
	if (a->nnp) {
		sp_strv_push(&argv, "--security-opt");
		sp_strv_push(&argv, "no-new-privileges");
	}
	_cleanup_free_ char *mask = NULL;
	if (a->masked && !a->privileged && l->cfg->masked.n && e->has_mask) {
		/* the engine's defaults plus the profile's list */
		size_t len = 0;
		for (size_t i = 0; i < l->cfg->masked.n; i++)
			len += strlen(l->cfg->masked.v[i]) + 1;
		mask = sp_xmalloc(len + 8);
		char *w = mask + snprintf(mask, len + 8, "mask=");
		for (size_t i = 0; i < l->cfg->masked.n; i++)
			w += snprintf(w, len + 8 - (size_t)(w - mask), "%s%s", i ? ":" : "", l->cfg->masked.v[i]);
		sp_strv_push(&argv, "--security-opt");
		sp_strv_push(&argv, mask);
	}
	char sopt[700];
	if (a->seccomp) {
		char path[600];
		snprintf(path, sizeof path, "%s/seccomp.json", l->dir);
		json_t *j = sp_seccomp_oci(l->cfg);
		int r = json_dump_file(j, path, 0);
		json_decref(j);
		if (r < 0) {
			sp_strv_free(&argv);
			return sp_fail_errno(err, EIO, "cannot write %s", path);
		}
		snprintf(sopt, sizeof sopt, "seccomp=%s", path);
	} else {
		snprintf(sopt, sizeof sopt, "seccomp=unconfined");
	}
	sp_strv_push(&argv, "--security-opt");
	sp_strv_push(&argv, sopt);
	if (!a->min_dev && !a->privileged) {
		sp_strv_push(&argv, "-v");
		sp_strv_push(&argv, "/dev:/dev");
	}
	if (!a->ro_root && e->has_rootfs) {
		/* an imported layer's root is mode 0555 (containers/storage), so without
		 * --read-only a write at / would still be refused by permissions: the
		 * writable-root control runs from the lane's own rootfs (mode 0755) */
		sp_strv_push(&argv, "--rootfs");
		sp_strv_push(&argv, l->rootfs);
	} else {
		sp_strv_push(&argv, e->image);
	}
	for (size_t i = 0; i < l->inside.n; i++)
		sp_strv_push(&argv, l->inside.v[i]);
	snprintf(l->rtinfo, sizeof l->rtinfo, "%s run %s %s%s", e->bin, !a->ro_root && e->has_rootfs ? "--rootfs" : "image",
		 !a->ro_root && e->has_rootfs ? l->rootfs : e->image, a->privileged ? " --privileged" : "");
	int r = sp_lane_proc_spawn(l, argv.v, err);
	sp_strv_free(&argv);
	return r;
}

void sp_engine_teardown(sp_lane *l)
{
	const sp_engine *e = l->rt->engine;
	char *argv[] = {(char *)e->bin, "rm", "-f", l->name, NULL};
	sp_run_cmd(argv, NULL, NULL, 30000);
}

int sp_engine_leftovers(sp_lane *l, char *what, size_t whatsz)
{
	const sp_engine *e = l->rt->engine;
	char filter[128];
	snprintf(filter, sizeof filter, "name=^%s$", l->name);
	char *argv[] = {(char *)e->bin, "ps", "-a", "-q", "--filter", filter, NULL};
	_cleanup_free_ char *out = NULL;
	int rc = sp_run_cmd(argv, &out, NULL, 30000);
	if (rc != 0) {
		snprintf(what, whatsz, "%s ps failed (exit %d): cannot prove the container is gone", e->bin, rc);
		return 1;
	}
	if (sp_trim(out)[0]) {
		snprintf(what, whatsz, "container %s still listed (%s)", l->name, sp_trim(out));
		return 1;
	}
	snprintf(what, whatsz, "container %s gone", l->name);
	return 0;
}

void sp_engine_finish(const sp_runtime *rt, const sp_live_cfg *cfg)
{
	(void)cfg;
	sp_engine *e = rt->engine;
	if (!e->image[0])
		return;
	char *argv[] = {(char *)e->bin, "rmi", "-f", e->image, NULL};
	sp_run_cmd(argv, NULL, NULL, 60000);
	e->image[0] = '\0';
}
