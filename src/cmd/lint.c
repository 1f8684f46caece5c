/* placeholder until the lint verb lands (see the issue tracker) */
#include <stdio.h>
#include "cmd/cmd.h"
#include "core/error.h"

int cmd_lint(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "sandprobe: 'lint' is not implemented yet\n");
	return SP_EXIT_INTERNAL;
}
