/* libFuzzer harness for the release plan parser (YAML -> validated plan,
 * src/gate/plan.c), and for the lookups the decision makes on what it
 * accepted. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gate/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sp_gate_plan p;
	sp_error err = {0};
	if (sp_plan_parse(&p, (const char *)data, size, "fuzz.yaml", "/nonexistent", &err) == 0) {
		const sp_gate_plan_artifact *a[2 * SP_PLAN_MAX_ARTIFACTS];
		for (size_t l = 0; l < p.nlanes; l++)
			(void)sp_plan_lane_artifacts(&p, l, a, sizeof a / sizeof a[0]);
		sp_plan_free(&p);
	} else if (!err.msg[0]) {
		abort(); /* a refusal always says why */
	}
	return 0;
}
