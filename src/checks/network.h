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

#endif
