/* The one list of checks. Each src/checks/list_<category>.h holds lines of
 * SP_X(symbol); each symbol names a `const sp_check sp_check_<symbol>`
 * defined in src/checks/<category>.c. The binary, --list, the docs and the
 * tests all read this table. Adding a check = one descriptor + one line. */
#include "core/check.h"
#include "core/util.h"

#define SP_X(sym) extern const sp_check sp_check_##sym;
#include "checks/list.h"
#undef SP_X

const sp_check *const sp_checks[] = {
#define SP_X(sym) &sp_check_##sym,
#include "checks/list.h"
#undef SP_X
};

const size_t sp_checks_count = SP_ARRAY_SIZE(sp_checks);
