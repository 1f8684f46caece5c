/* docker (CLI): the same lanes as podman against a Docker engine. Without a
 * reachable engine (`docker info` fails) every lane is a skip naming why. */
#include <stdio.h>
#include <string.h>

#include "live/engine.h"

static const char *const docker_extra[] = {"--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024",
					   "--pull", "never", "--log-driver", "none", NULL};
static sp_engine docker = {.bin = "docker", .extra = docker_extra};

static int probe(const sp_live_cfg *cfg, char *why, size_t whysz)
{
	(void)cfg;
	char *argv[] = {"docker", "info", "--format", "{{.ServerVersion}}", NULL};
	if (sp_probe_tool("docker", why, whysz, "docker CLI not installed") < 0 ||
	    sp_probe_cmd(argv, true, 20000, "no engine", why, whysz) < 0)
		return -1;
	return 0;
}

const sp_runtime sp_rt_docker = {
	.name = "docker",
	.summary = "docker (CLI): imported local image, --read-only, --cap-drop ALL, OCI seccomp",
	.probe = probe,
	SP_ENGINE_HOOKS(&docker),
};
