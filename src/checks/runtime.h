/* Where the doctor runs (src/checks/runtime.c): the kernel boundary and the
 * runtime guess, detected by reads before the first check. The doctor's
 * command fills the environment block and hands it to the runner. */
#ifndef SP_CHECKS_RUNTIME_H
#define SP_CHECKS_RUNTIME_H

#include "core/runner.h"

/* Detected once, on the first call. */
const sp_boundary *sp_boundary_get(void);
/* Does the policy's kernel.separate_kernel accept the detected boundary for
 * checks carrying flag bits `flags` (SP_CHECK_KERNEL_*)? */
bool sp_boundary_accepted(const sp_ctx *ctx, unsigned flags);
/* Engine and runtime guess from several signals. */
void sp_runtime_guess(sp_env *env);
/* Fill the environment block (kernel, arch, uid, boundary, runtime guess). */
void sp_env_fill(const sp_ctx *ctx, sp_env *env);

#endif
