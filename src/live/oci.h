/* Shared by the OCI runtime adapters (runc.c, crun.c). */
#ifndef SP_LIVE_OCI_H
#define SP_LIVE_OCI_H

#include "live/live.h"

int sp_oci_probe(const char *runtime, sp_outcome *o);
/* write LANE_DIR/config.json for the lane's actual launch (rootfs at LANE_DIR/rootfs) */
int sp_oci_write_bundle(sp_live_lane *l, sp_error *err);
/* the sp_live_runtime hooks of an OCI adapter: the runtime's binary is its adapter's name (l->rt->name) */
int sp_oci_launch(sp_live_lane *l, sp_error *err);
void sp_oci_delete(sp_live_lane *l);
int sp_oci_leftovers(sp_live_lane *l, char *what, size_t whatsz);
/* 1 (named in what) when a cgroup of the lane's name is left under /sys/fs/cgroup */
int sp_oci_cgroup_left(const sp_live_lane *l, char *what, size_t whatsz);
/* what a strict OCI launch gives: every namespace but user, read-only root,
 * no capabilities, no_new_privs, seccomp, minimal /dev, own cgroup */
void sp_oci_claims(sp_live_launch *l);
/* the rest of an OCI adapter's sp_live_runtime initializer, after its name, summary and probe */
#define SP_OCI_HOOKS                                                                                                  \
	.removable = SP_PROT_ALL, .claims = sp_oci_claims, .launch = sp_oci_launch, .teardown = sp_oci_delete, .teardown_if_left = true,        \
	.leftovers = sp_oci_leftovers

#endif
