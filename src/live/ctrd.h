/* containerd's own API (gRPC over HTTP/2 on its unix socket, what ctr asks)
 * for the teardown proof's lists: the containers, tasks and snapshots of a
 * namespace. One call costs a connection and a request, not the 15-25 ms of
 * starting ctr. */
#ifndef SP_LIVE_CTRD_H
#define SP_LIVE_CTRD_H

#include <stddef.h>
#include <stdint.h>

#include "core/outcome.h"
#include "core/util.h"

enum sp_ctrd_kind {
	SP_CTRD_CONTAINERS, /* Containers/List: each container's id */
	SP_CTRD_TASKS,      /* Tasks/List: each task's container id and process id */
	SP_CTRD_SNAPSHOTS,  /* Snapshots/List of the default snapshotter: each snapshot's name (key) */
};

/* the ids of one kind in namespace ns of the containerd at addr (a unix socket path), appended to
 * ids: 0, or -1 with the reason in why (no answer, an HTTP/2 or gRPC error, a malformed reply) */
int sp_ctrd_list(const char *addr, const char *ns, enum sp_ctrd_kind kind, sp_strv *ids, unsigned timeout_ms, sp_outcome *o);

/* a reply's body (its length-prefixed gRPC messages) of a list of kind: the ids appended to ids;
 * 0, or -1 when it is malformed (untrusted: fuzzed) */
int sp_ctrd_parse(enum sp_ctrd_kind kind, const uint8_t *body, size_t len, sp_strv *ids);

/* what containerd at addr holds in namespace ns that carries id (its name in the id, key or name),
 * among the kinds in mask (1 << kind): asked on its API, else (no answer there) with ctr's lists.
 * 0 nothing, 1 something (what names it), -1 cannot tell (what says why); *by says how it was asked
 * ("containerd's API", or "ctr" with why the API was not used) */
int sp_ctrd_holds(const char *addr, const char *ns, const char *id, unsigned mask, char *what, size_t whatsz, char *by,
		  size_t bysz);

/* the snapshotter ctr lists by default: $CONTAINERD_SNAPSHOTTER, else overlayfs */
const char *sp_ctrd_snapshotter(void);

#endif
