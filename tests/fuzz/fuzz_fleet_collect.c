/* libFuzzer harness for `fleet collect`'s reader (src/fleet/collect.c): the
 * framing of report files and `kubectl logs [--prefix]` output, the report's
 * validation and its placement in a fixed plan's cells, then the matrix and
 * its writers over what was accepted. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/collect.h"
#include "live/report_ci.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char plan_yaml[] = "name: t\n"
				"namespace: sandprobe\n"
				"image: registry.example/doctor:1\n"
				"runtime_classes: [runc, runsc]\n"
				"nodes:\n"
				"  - id: this\n"
				"    node_name: vm\n"
				"  - id: pool\n"
				"    node_selector: {pool: b}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static sp_fleet_plan plan;
	static int ready;
	sp_error err = {0};
	if (!ready) {
		if (sp_fleet_plan_parse(&plan, plan_yaml, sizeof plan_yaml - 1, "plan.yaml", &err) < 0)
			abort();
		ready = 1;
	}
	sp_fleet_collect c;
	sp_fleet_collect_init(&c, &plan);
	if (sp_fleet_collect_text(&c, (const char *)data, size, "fuzz.log", &err) == 0) {
		sp_fleet_matrix m;
		sp_fleet_matrix_build(&c, "plan.yaml", &m);
		FILE *f = fopen("/dev/null", "w");
		if (f) {
			(void)sp_live_write_json(f, &m.run);
			sp_live_write_html(f, &m.run);
			sp_live_write_junit(f, &m.run);
			sp_live_write_text(f, &m.run, false);
			fclose(f);
		}
		sp_fleet_matrix_free(&m);
	} else if (!err.msg[0] || strchr(err.msg, '\n')) {
		abort(); /* a refusal always says why, on one line */
	}
	sp_fleet_collect_free(&c);
	return 0;
}
