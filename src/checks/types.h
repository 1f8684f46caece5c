/* The policy value grammars the checks define (src/checks/list_types.h). */
#ifndef SP_CHECKS_TYPES_H
#define SP_CHECKS_TYPES_H

#include "core/policy.h"

#define SP_T(sym) extern const sp_policy_type sp_ptype_##sym;
#include "checks/list_types.h"
#undef SP_T

#endif
