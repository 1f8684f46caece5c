/* libFuzzer: the -k expression parser and matcher. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/select.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	sp_kexpr *e = NULL;
	sp_error err;
	if (sp_kexpr_parse(text, NULL, &e, &err) == 0) {
		sp_kexpr_match(e, "ns.pid", "namespaces");
		sp_kexpr_match(e, "caps.effective", "privileges");
	}
	sp_kexpr_free(e);
	free(text);
	return 0;
}
