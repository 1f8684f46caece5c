/* The registry (src/checks/registry.c): every check, the grammars of policy
 * values the checks register, and the keys the runner reads, as one
 * sp_registry handed to core's policy loader. */
#ifndef SP_CHECKS_REGISTRY_H
#define SP_CHECKS_REGISTRY_H

#include "core/check.h"

extern const sp_check *const sp_checks[];
extern const size_t sp_checks_count;
const sp_check *sp_check_find(const char *id);

/* the checks' grammars and the keys the runner reads for every check, as
 * "key:type,..." (kernel.separate_kernel) */
extern const sp_policy_type *const sp_policy_types[];
extern const size_t sp_policy_types_count;
extern const char sp_policy_runner_keys[];

/* all of the above, for sp_policy_init */
extern const sp_registry sp_doctor_registry;

#endif
