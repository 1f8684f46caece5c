/* podman (rootful) with runc as its OCI runtime: this host's podman default
 * (crun) cannot run on its hybrid cgroup layout. */
#include <stdio.h>
#include <string.h>

#include "live/engine.h"

static const char *const podman_extra[] = {"--runtime", "runc", "--ulimit", "nofile=1024:1024", "--ulimit",
					   "nproc=1024:1024", "--pull", "never", "--log-driver", "none", NULL};
static sp_live_engine_state podman_state;
static sp_live_engine podman = {.bin = "podman", .extra = podman_extra, .has_rootfs = true, .has_mask = true, .st = &podman_state};

static int probe(const sp_live_cfg *cfg, sp_outcome *o)
{
	(void)cfg;
	char *argv[] = {"podman", "info", "--format", "{{.Host.CgroupsVersion}}", NULL};
	if (sp_probe_root(o, "podman lanes need root (rootless podman is not implemented)") < 0 ||
	    sp_probe_tool("podman", o, "podman not installed") < 0 ||
	    sp_probe_tool("runc", o, "podman lanes use runc, which is not installed") < 0 ||
	    sp_probe_cmd(argv, false, 30000, "", o) < 0)
		return -1;
	return 0;
}

const sp_live_runtime sp_rt_podman = {
	.name = "podman",
	.summary = "podman (runtime runc): imported local image, --read-only, --cap-drop ALL, OCI seccomp",
	.probe = probe,
	SP_ENGINE_HOOKS(&podman),
};
