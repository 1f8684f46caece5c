/* libFuzzer harness for the workload parser (YAML -> validated workload),
 * and for placeholder expansion of whatever it accepted. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "soak/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	sp_soak_workload w;
	sp_error err = {0};
	if (sp_workload_parse(&w, text, size, "fuzz.yaml", &err) == 0) {
		sp_soak_vars v = {.id = "i", .sid = "s", .gen = "1", .state = "/s", .rootfs = "/r", .prefix = "p", .run = "r", .scenario = "S", .exe = "e"};
		for (size_t i = 0; i < w.nscen; i++)
			for (size_t j = 0; j < w.scen[i].steps.n; j++)
				for (size_t k = 0; k < w.scen[i].steps.v[j].argv.n; k++)
					free(sp_expand(w.scen[i].steps.v[j].argv.v[k], &v));
		sp_workload_free(&w);
	}
	free(text);
	return 0;
}
