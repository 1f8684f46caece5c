/* placeholder until the keygen verb lands (see the issue tracker) */
#include <stdio.h>
#include "cmd/cmd.h"
#include "core/error.h"

int cmd_keygen(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "sandprobe: 'keygen' is not implemented yet\n");
	return SP_EXIT_INTERNAL;
}
