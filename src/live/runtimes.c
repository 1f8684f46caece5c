/* The table of runtime adapters, in the order the matrix shows them. */
#include <string.h>

#include "live/live.h"

const sp_runtime *const sp_runtimes[] = {
	&sp_rt_bwrap, &sp_rt_unshare, &sp_rt_runc, &sp_rt_crun, &sp_rt_runsc, &sp_rt_podman,
	&sp_rt_docker, &sp_rt_docker_runsc, &sp_rt_containerd_runc, &sp_rt_containerd_runsc, &sp_rt_firejail, &sp_rt_nspawn, &sp_rt_qemu,
};
const size_t sp_runtimes_count = SP_ARRAY_SIZE(sp_runtimes);

const sp_runtime *sp_runtime_find(const char *name)
{
	for (size_t i = 0; i < sp_runtimes_count; i++)
		if (!strcmp(sp_runtimes[i]->name, name))
			return sp_runtimes[i];
	return NULL;
}
