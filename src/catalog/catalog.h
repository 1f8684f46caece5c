/* The doctor's check ids as data, for code outside src/checks/ that must name
 * a check (live's negative-control tables): made from the one list of checks
 * (src/catalog/list.h, SP_X(symbol, "id") lines) and the list of id prefixes
 * (src/catalog/list_prefixes.h). Name a check as SP_CKID(ns_pid) and a whole
 * prefix as SP_CKGLOB(proc) ("proc.*"): both are address constants (fit a
 * static table) and a misspelled or removed one is a compile error. This
 * header includes nothing of src/checks/. */
#ifndef SP_CATALOG_H
#define SP_CATALOG_H

#include <stddef.h>

typedef enum sp_check_id {
#define SP_X(sym, id) SP_CK_##sym,
#include "catalog/list.h"
#undef SP_X
	SP_CK_COUNT
} sp_check_id;

typedef enum sp_check_prefix {
#define SP_P(p) SP_CKP_##p,
#include "catalog/list_prefixes.h"
#undef SP_P
	SP_CKP_COUNT
} sp_check_prefix;

#define SP_X(sym, id) extern const char sp_ckid_##sym[];
#include "catalog/list.h"
#undef SP_X
#define SP_P(p) extern const char sp_ckglob_##p[];
#include "catalog/list_prefixes.h"
#undef SP_P

/* the id of check sym ("ns.pid" for ns_pid) */
#define SP_CKID(sym) (sp_ckid_##sym)
/* the glob of every check whose id starts with "p." ("proc.*" for proc) */
#define SP_CKGLOB(p) (sp_ckglob_##p)

/* by enum id, in report order */
extern const char *const sp_check_ids[SP_CK_COUNT];
extern const char *const sp_check_prefixes[SP_CKP_COUNT]; /* "ns", "proc" ... */
extern const char *const sp_check_globs[SP_CKP_COUNT];    /* "ns.*", "proc.*" ... */

#endif
