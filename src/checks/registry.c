/* The one list of checks. Each src/catalog/list_<category>.h holds lines of
 * SP_X(symbol, "id"); each symbol names a `const sp_check sp_check_<symbol>`
 * defined in src/checks/<category>.c. The binary, --list, the docs and the
 * tests all read this table. Adding a check = one descriptor + one line. */
#include "checks/registry.h"

#include <string.h>

#include "checks/types.h"
#include "core/util.h"

#define SP_X(sym, id) extern const sp_check sp_check_##sym;
#include "catalog/list.h"
#undef SP_X

const sp_check *const sp_checks[] = {
#define SP_X(sym, id) &sp_check_##sym,
#include "catalog/list.h"
#undef SP_X
};

const size_t sp_checks_count = SP_ARRAY_SIZE(sp_checks);

/* the grammars of policy values, handed to core's loader (core/policy.h) */
const sp_policy_type *const sp_policy_types[] = {
#define SP_T(sym) &sp_ptype_##sym,
#include "checks/list_types.h"
#undef SP_T
};

const size_t sp_policy_types_count = SP_ARRAY_SIZE(sp_policy_types);

/* read by the runner for every check flagged SP_CHECK_KERNEL_* (runtime.c) */
const char sp_policy_runner_keys[] = "kernel.separate_kernel:boundaries";

const sp_registry sp_doctor_registry = {
	.checks = sp_checks,
	.nchecks = SP_ARRAY_SIZE(sp_checks),
	.types = sp_policy_types,
	.ntypes = SP_ARRAY_SIZE(sp_policy_types),
	.runner_keys = sp_policy_runner_keys,
};

const sp_check *sp_check_find(const char *id)
{
	for (size_t i = 0; i < sp_checks_count; i++)
		if (!strcmp(sp_checks[i]->id, id))
			return sp_checks[i];
	return NULL;
}
