#include <stdlib.h>
#include <string.h>

#include "core/junit.h"
#include "core/util.h"
#include "evidence/ev_ci.h"

/* "cleanup.processes" -> "cleanup": the gate's family */
static void family(const char *id, char *out, size_t n)
{
	size_t k = strcspn(id, ".");
	snprintf(out, n, "verify.%.*s", (int)k, id);
}

void sp_verdict_print_junit(const sp_ev_verdict *v, FILE *f)
{
	sp_junit_begin(f, "sandprobe.verify", v->n, v->nfail, 0, 0);
	char *suite = sp_xasprintf("verify %s", v->bundle ? v->bundle : "");
	sp_junit_suite_begin(f, suite, v->n, v->nfail, 0, 0, 0, NULL);
	const char *props[] = {"bundle", v->bundle ? v->bundle : "", "profile", v->profile ? v->profile : ""};
	sp_junit_properties(f, props, 2);
	for (size_t i = 0; i < v->n; i++) {
		const sp_ev_gate *g = &v->g[i];
		char cls[80];
		family(g->id, cls, sizeof cls);
		char *body = sp_xasprintf("measured: %s\nthreshold: %s", g->measured, g->threshold);
		char *out = sp_xasprintf("%s\n%s", g->message, body);
		sp_junit_case c = {.classname = cls, .name = g->id, .message = g->message};
		if (g->status == SP_GATE_PASS) {
			c.kind = SP_JUNIT_PASS;
			c.out = out;
		} else {
			c.kind = SP_JUNIT_FAILURE;
			c.type = "gate";
			c.text = body;
		}
		sp_junit_case_write(f, &c);
		free(body);
		free(out);
	}
	sp_junit_suite_end(f);
	sp_junit_end(f);
	free(suite);
}

void sp_verdict_print_tap(const sp_ev_verdict *v, FILE *f)
{
	fprintf(f, "TAP version 13\n1..%zu\n", v->n);
	for (size_t i = 0; i < v->n; i++) {
		const sp_ev_gate *g = &v->g[i];
		fprintf(f, "%s %zu - ", g->status == SP_GATE_PASS ? "ok" : "not ok", i + 1);
		sp_tap_desc(f, g->id);
		fputs(" - ", f);
		sp_tap_desc(f, g->message);
		fputc('\n', f);
		if (g->status != SP_GATE_PASS) {
			fputs("  ---\n", f);
			sp_tap_yaml(f, "measured", g->measured);
			sp_tap_yaml(f, "threshold", g->threshold);
			fputs("  ...\n", f);
		}
	}
	fprintf(f, "# %s -- %zu gates passed, %zu failed\n", v->nfail ? "FAIL" : "PASS", v->npass, v->nfail);
}
