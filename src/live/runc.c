/* runc: an OCI bundle run in the foreground (see oci.c). */
#include "live/oci.h"

void sp_oci_claims(sp_live_launch *l)
{
	*l = (sp_live_launch){.ns = SP_NS_ALL & ~(unsigned)SP_NS_USER, .ro_root = true, .drop_caps = true, .seccomp = true,
			 .nnp = true, .min_dev = true, .tmp = true, .own_cgroup = true, .masked = true, .root_is_host_root = true};
}

static int probe(const sp_live_cfg *cfg, sp_outcome *o)
{
	(void)cfg;
	return sp_oci_probe("runc", o);
}

const sp_live_runtime sp_rt_runc = {
	.name = "runc",
	.summary = "runc: OCI bundle, read-only root, no capabilities, OCI seccomp, own cgroup",
	.probe = probe,
	SP_OCI_HOOKS,
};
