/* libFuzzer harness for F05's fault-proxy mode line (the mode file the
 * proxy re-reads at each connection): parsed, it is one known mode with an
 * argument in its bounds, or rejected with a reason. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "soak/faultproxy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	sp_fp_mode_t m;
	const char *why = NULL;
	if (sp_fp_mode_parse(text, size, &m, &why) == 0) {
		if (m.mode > SP_FP_REDIRECT || m.arg < 0 || m.arg > (1L << 30) || (m.mode == SP_FP_REDIRECT && (m.arg < 1 || m.arg > 65535)))
			abort();
	} else if (!why || !*why) {
		abort();
	}
	free(text);
	return 0;
}
