/* libFuzzer: sandprobe lint's seccomp parser and rules (src/lint/), with the
 * relation rules against fixed companion files, and every output format. */
#include <stddef.h>
#include <stdint.h>

#include "lib/lint_one.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return sp_lint_fuzz_one(SP_LK_SECCOMP, data, size);
}
