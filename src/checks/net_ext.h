/* Probes of other checks that ride in the network batch (network.c): the
 * tls.* handshakes through the proxy and the net.transparent.* direct
 * connections and DNS queries start at the same moment as the net.* probes,
 * in the same parallel run, so the whole group costs its longest timeout.
 * Each module adds forked children here while the batch is built; after the
 * run, each child's status and output buffer are copied back into the
 * doctor, where the module judges its checks from them. */
#ifndef SP_NET_EXT_H
#define SP_NET_EXT_H

#include <stddef.h>

#include "checks/net_probe.h"
#include "checks/net_proxy.h"
#include "core/check.h"

/* A module whose probes ride in the batch (tls.c, transparent.c): it
 * registers itself at start-up (sp_net_ext_register, from a constructor),
 * so the batch names no module and no module is named from below. */
typedef struct sp_net_ext_module {
	const char *name; /* "tls" */
	unsigned order;   /* build order in the batch: lower first */
	/* add the module's children for this policy (sp_net_ext_add) */
	void (*build)(const sp_ctx *ctx, const sp_proxy_plan *proxy, unsigned egress_timeout_ms);
	/* forget the module's plan */
	void (*reset)(void);
} sp_net_ext_module;

/* Join the table (at most SP_NET_EXT_MAX modules; kept sorted by order). */
#define SP_NET_EXT_MAX 8
void sp_net_ext_register(const sp_net_ext_module *m);

/* Build every registered module's children for this policy (called by the
 * batch after the proxy plan); returns the longest child timeout in ms
 * (0: none). */
unsigned sp_net_ext_build(const sp_ctx *ctx, const sp_proxy_plan *proxy, unsigned egress_timeout_ms);
/* The children to run with the batch, and how many. */
sp_netchild *sp_net_ext_children(size_t *n);
/* Bytes the batch child sends back for them, and the sending and receiving. */
size_t sp_net_ext_wire_size(void);
int sp_net_ext_write(int fd);
void sp_net_ext_read(const char *buf);
void sp_net_ext_reset(void);

/* what a child gets beyond its probe's own deadline, to report at it */
#define SP_NET_EXT_GRACE_MS 300u

/* For the modules: add a child while building (returns its index) and read
 * it back when judging. */
size_t sp_net_ext_add(int (*fn)(void *arg, int fd), void *arg, void *out, size_t outsz, unsigned timeout_ms);
const sp_netchild *sp_net_ext_get(size_t idx);
/* A child's fate as text when it gave no result ("timed out" ...), or NULL
 * when its output is complete. */
const char *sp_net_ext_failure(size_t idx);


#endif
