/* crun: the same OCI bundle as runc. crun refuses a hybrid cgroup layout
 * (v1 controllers plus a cgroup2 tree that holds controllers): detected
 * before launching and reported as the skip reason. */
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <linux/magic.h>

#include "live/oci.h"

static int probe(const sp_live_cfg *cfg, char *why, size_t whysz)
{
	(void)cfg;
	if (sp_oci_probe("crun", why, whysz) < 0)
		return -1;
	struct statfs a, b;
	if (statfs("/sys/fs/cgroup", &a) == 0 && a.f_type == TMPFS_MAGIC && statfs("/sys/fs/cgroup/unified", &b) == 0 &&
	    b.f_type == CGROUP2_SUPER_MAGIC) {
		char ctl[512];
		ssize_t n = sp_read_file("/sys/fs/cgroup/unified/cgroup.controllers", ctl, sizeof ctl);
		if (n > 0 && sp_trim(ctl)[0]) {
			snprintf(why, whysz,
				 "hybrid cgroup host (v1 controllers, cgroup2 at /sys/fs/cgroup/unified holding '%s'): crun "
				 "refuses it (\"cgroups in hybrid mode not supported, drop all controllers from cgroupv2\")",
				 sp_trim(ctl));
			return -1;
		}
	}
	return 0;
}

const sp_runtime sp_rt_crun = {
	.name = "crun",
	.summary = "crun: the same OCI bundle as runc",
	.probe = probe,
	SP_OCI_HOOKS,
};
