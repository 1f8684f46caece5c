/* The strings behind catalog/catalog.h, one per line of the lists. */
#include "catalog/catalog.h"
#include "core/util.h" /* the libc headers: every object is built fortified (tests/build/hardened.t) */

#define SP_X(sym, id) const char sp_ckid_##sym[] = id;
#include "catalog/list.h"
#undef SP_X
#define SP_P(p) const char sp_ckglob_##p[] = #p ".*";
#include "catalog/list_prefixes.h"
#undef SP_P

const char *const sp_check_ids[SP_CK_COUNT] = {
#define SP_X(sym, id) sp_ckid_##sym,
#include "catalog/list.h"
#undef SP_X
};

const char *const sp_check_prefixes[SP_CKP_COUNT] = {
#define SP_P(p) #p,
#include "catalog/list_prefixes.h"
#undef SP_P
};

const char *const sp_check_globs[SP_CKP_COUNT] = {
#define SP_P(p) sp_ckglob_##p,
#include "catalog/list_prefixes.h"
#undef SP_P
};
