/* libFuzzer: the credential matcher that fs.agent_config_secrets runs over
 * every line of an agent's configuration files (untrusted text). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/environment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (char *line = text, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		const char *shape = sp_text_credential_shape(line);
		/* a shape is a fixed name, never a copy of the input */
		if (shape && strlen(shape) > 40)
			abort();
		if (shape && shape >= text && shape <= text + size)
			abort();
		(void)sp_env_credential_shape(line);
	}
	free(text);
	return 0;
}
