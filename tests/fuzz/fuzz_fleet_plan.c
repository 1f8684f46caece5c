/* libFuzzer harness for the fleet plan parser (YAML -> validated plan,
 * src/fleet/plan.c), and for the Jobs rendered from what it accepted. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fleet/fleet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sp_fleet_plan p;
	sp_error err = {0};
	if (sp_fleet_plan_parse(&p, (const char *)data, size, "fuzz.yaml", &err) == 0) {
		FILE *f = fopen("/dev/null", "w");
		if (f) {
			for (size_t n = 0; n < p.nnodes; n++)
				for (size_t c = 0; c < p.nclasses; c++)
					(void)sp_fleet_write_job(f, &p, n, c);
			fclose(f);
		}
		sp_fleet_plan_free(&p);
	} else if (!err.msg[0]) {
		abort(); /* a refusal always says why */
	}
	return 0;
}
