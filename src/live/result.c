/* A lane's results, and the ids of the host-side checks. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/result.h"

#define SP_H(sym, id) const char sp_hostid_##sym[] = id;
#define SP_HG(sym, glob) const char sp_hostglob_##sym[] = glob;
#include "live/list_host.h"
#undef SP_HG
#undef SP_H

int sp_lres_status(const char *s, sp_status *st)
{
	static const sp_status all[] = {SP_STATUS_PASS, SP_STATUS_FAIL, SP_STATUS_SKIP, SP_STATUS_WARN, SP_STATUS_ERROR};
	for (size_t i = 0; s && i < SP_ARRAY_SIZE(all); i++)
		if (!strcmp(s, sp_status_name(all[i]))) {
			*st = all[i];
			return 0;
		}
	return -1;
}

sp_live_result *sp_lres_add(sp_live_results *rs, const char *id, sp_status status, const char *expected, const char *observed,
			    const char *fmt, ...)
{
	rs->v = sp_xrealloc(rs->v, (rs->n + 1) * sizeof *rs->v);
	sp_live_result *r = &rs->v[rs->n++];
	memset(r, 0, sizeof *r);
	snprintf(r->id, sizeof r->id, "%s", id);
	r->status = status;
	r->expected = sp_xstrdup(expected ? expected : "");
	r->observed = sp_xstrdup(observed ? observed : "");
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&r->detail, fmt, ap) < 0)
		r->detail = sp_xstrdup("");
	va_end(ap);
	r->host = sp_startswith(id, "host.");
	return r;
}

const sp_live_result *sp_lres_find(const sp_live_results *rs, const char *id)
{
	for (size_t i = 0; i < rs->n; i++)
		if (!strcmp(rs->v[i].id, id))
			return &rs->v[i];
	return NULL;
}

void sp_lres_free(sp_live_results *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->v[i].expected);
		free(rs->v[i].observed);
		free(rs->v[i].detail);
	}
	free(rs->v);
	rs->v = NULL;
	rs->n = 0;
}
