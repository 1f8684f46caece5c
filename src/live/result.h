/* A lane's results (the doctor's, ingested, and the host side's): a small
 * module of their own, so the lane (which runs the host checks) and the host
 * checks (which add results) both use it and not each other. Also the ids of
 * the host-side checks (live/list_host.h) as address constants. */
#ifndef SP_LIVE_RESULT_H
#define SP_LIVE_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/check.h"
#include "core/util.h"

#define SP_H(sym, id) extern const char sp_hostid_##sym[];
#define SP_HG(sym, glob) extern const char sp_hostglob_##sym[];
#include "live/list_host.h"
#undef SP_HG
#undef SP_H
/* the id of host check sym ("host.ns.pid" for ns_pid), a group of them ("host.ns.*" for ns) */
#define SP_HOSTID(sym) (sp_hostid_##sym)
#define SP_HOSTGLOB(sym) (sp_hostglob_##sym)

/* one result of a lane (doctor or host side) */
typedef struct sp_live_result {
	char id[96];
	sp_status status;
	char *expected, *observed, *detail;
	bool host;      /* a host.* check */
} sp_live_result;

typedef struct sp_live_results {
	sp_live_result *v;
	size_t n;
} sp_live_results;

/* a status by its name ("pass" ... "error"): 0, or -1 when s names none */
int sp_lres_status(const char *s, sp_status *st);
sp_live_result *sp_lres_add(sp_live_results *rs, const char *id, sp_status status, const char *expected,
			    const char *observed, const char *fmt, ...) SP_PRINTF(6, 7);
const sp_live_result *sp_lres_find(const sp_live_results *rs, const char *id);
void sp_lres_free(sp_live_results *rs);

#endif
