/* The lint harnesses' shared entry point (lint_one.c). */
#ifndef SP_FUZZ_LINT_ONE_H
#define SP_FUZZ_LINT_ONE_H

#include <stddef.h>

#include "lint/lint.h"

/* parse bytes as one kind with fixed companion files, run the rules and
 * render every output format; always 0 */
int sp_lint_fuzz_one(sp_lint_kind kind, const unsigned char *data, size_t size);

#endif
