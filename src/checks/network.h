/* Network checks (src/checks/network.c). */
#ifndef SP_NETWORK_H
#define SP_NETWORK_H

#include "core/check.h"

/* The declared batch every DNS, egress and proxy probe runs in; a network
 * check joins it with .batch = &sp_batch_net. */
extern const sp_batch sp_batch_net;

/* Forget the cached probe batch (the next net.* check runs it again). The
 * batch is also rebuilt when a check runs with a different policy. */
void sp_net_batch_reset(void);

/* Make sure the batch ran for this policy; returns the batch's fault (""
 * when it ran). For the modules that ride in it (net_ext.h). */
const char *sp_net_batch_ensure(const sp_ctx *ctx);

#endif
