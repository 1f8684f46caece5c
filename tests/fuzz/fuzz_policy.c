/* libFuzzer: the policy parser (INI text, validation, --set assignments). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/policy.h"
#include "core/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	sp_policy p;
	sp_error err;
	sp_policy_init(&p);
	sp_policy_load_string(&p, text, "fuzz", &err);
	/* the same bytes as --set assignments, line by line */
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		sp_policy_set(&p, line, &err);
	sp_policy_free(&p);
	free(text);
	return 0;
}
