/* The live report for CI systems: JUnit XML (core/junit.c, within the common
 * JUnit schema's rules) and TAP 13. Both say what the live verdict says:
 * a lane is one <testsuite> (one block of TAP lines) with a "verdict" case
 * first, then one case per result. In a negative control, a check the removed
 * protection must fail is a PASS when it failed ("failed as expected") and a
 * FAILURE when it did not; failures the variant allows (finer probes of the
 * same property, collateral) are reported, not judged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/junit.h"
#include "core/output.h"
#include "live/live.h"
#include "live/report_ci.h"

typedef struct ci_case {
	sp_junit_kind kind;
	char note[160]; /* why, when the kind is not the result's own status */
} ci_case;

static bool bad(sp_status status)
{
	return status == SP_STATUS_FAIL || status == SP_STATUS_ERROR;
}

static const char *lane_verdict(const sp_live_lane *l)
{
	if (l->status == SP_STATUS_SKIP)
		return "SKIP";
	if (!l->variant->removes)
		return l->status != SP_STATUS_PASS ? "FAIL" : "PASS";
	return l->defect ? "DEFECT" : "FAILED AS EXPECTED";
}

static void classify(const sp_live_lane *l, const sp_live_result *r, ci_case *c)
{
	c->note[0] = '\0';
	bool neg = l->variant->removes != 0;
	if (neg && sp_strv_contains(&l->expected_fail, r->id)) {
		if (bad(r->status)) {
			c->kind = SP_JUNIT_PASS;
			snprintf(c->note, sizeof c->note, "%s as expected: the variant removes %s", sp_status_name(r->status),
				 l->variant->property ? l->variant->property : "a protection");
		} else {
			c->kind = SP_JUNIT_FAILURE;
			snprintf(c->note, sizeof c->note, "negative control did not fail (%s): this check must fail without %s",
				 sp_status_name(r->status), l->variant->property ? l->variant->property : "the protection");
		}
		return;
	}
	if (neg && bad(r->status)) {
		c->kind = SP_JUNIT_PASS;
		snprintf(c->note, sizeof c->note, "%s, %s of the removed protection (not judged)", sp_status_name(r->status),
			 sp_strv_contains(&l->also_failed, r->id) ? "a finer probe" : "collateral");
		return;
	}
	if (r->status == SP_STATUS_FAIL)
		c->kind = SP_JUNIT_FAILURE;
	else if (r->status == SP_STATUS_ERROR)
		c->kind = SP_JUNIT_ERROR;
	else if (r->status == SP_STATUS_SKIP)
		c->kind = SP_JUNIT_SKIPPED;
	else
		c->kind = SP_JUNIT_PASS;
}

/* a skipped lane fails under --strict, as sp_live_failed() judges */
static sp_junit_kind verdict_kind(const sp_live_run *run, const sp_live_lane *l)
{
	const char *v = lane_verdict(l);
	if (!strcmp(v, "SKIP"))
		return run->strict ? SP_JUNIT_FAILURE : SP_JUNIT_SKIPPED;
	if (!strcmp(v, "PASS") || !strcmp(v, "FAILED AS EXPECTED"))
		return SP_JUNIT_PASS;
	return l->status == SP_STATUS_ERROR ? SP_JUNIT_ERROR : SP_JUNIT_FAILURE;
}

struct counts {
	size_t tests, failures, errors, skipped;
};

static void count(struct counts *n, sp_junit_kind k)
{
	n->tests++;
	n->failures += k == SP_JUNIT_FAILURE;
	n->errors += k == SP_JUNIT_ERROR;
	n->skipped += k == SP_JUNIT_SKIPPED;
}

static void lane_counts(const sp_live_run *run, const sp_live_lane *l, struct counts *n)
{
	memset(n, 0, sizeof *n);
	count(n, verdict_kind(run, l));
	for (size_t k = 0; k < l->results.n; k++) {
		ci_case c;
		classify(l, &l->results.v[k], &c);
		count(n, c.kind);
	}
}

void sp_live_write_junit(FILE *f, const sp_live_run *run)
{
	struct counts all = {0};
	double secs = 0;
	for (size_t i = 0; i < run->n; i++) {
		struct counts n;
		lane_counts(run, &run->lanes[i], &n);
		all.tests += n.tests;
		all.failures += n.failures;
		all.errors += n.errors;
		secs += run->lanes[i].ms / 1000.0;
	}
	size_t td_failed = 0;
	for (size_t i = 0; i < run->nteardown; i++)
		td_failed += !run->teardown[i].ok;
	all.tests += run->nteardown;
	all.failures += td_failed;
	/* a defect (a negative control that did not fail) is its lane's failed verdict */
	char *top = sp_xasprintf("sandprobe.%s", run->suite ? run->suite : "live");
	sp_junit_begin(f, top, all.tests, all.failures, all.errors, secs);
	for (size_t i = 0; i < run->n; i++) {
		const sp_live_lane *l = &run->lanes[i];
		struct counts n;
		lane_counts(run, l, &n);
		char *suite = sp_xasprintf("%s.%s.%s", run->suite ? run->suite : "live", l->rt->name, l->variant->name);
		sp_junit_suite_begin(f, suite, n.tests, n.failures, n.errors, n.skipped, l->ms / 1000.0, NULL);
		const char *props[] = {"runtime", l->rt->name, "variant", l->variant->name, "negative_control",
				       l->variant->removes ? "true" : "false", "removes",
				       l->variant->property ? l->variant->property : "", "launch", l->rtinfo};
		sp_junit_properties(f, props, 5);
		const char *v = lane_verdict(l);
		char *vmsg = sp_xasprintf("%s: %s", v, l->reason);
		sp_junit_case vc = {.classname = suite, .name = "verdict", .seconds = l->ms / 1000.0,
				    .kind = verdict_kind(run, l), .message = vmsg, .type = v,
				    .text = l->stderr_tail, .out = vmsg};
		if (vc.kind == SP_JUNIT_PASS)
			vc.text = NULL;
		else
			vc.out = NULL;
		sp_junit_case_write(f, &vc);
		for (size_t k = 0; k < l->results.n; k++) {
			const sp_live_result *r = &l->results.v[k];
			ci_case c;
			classify(l, r, &c);
			char *cls = sp_xasprintf("%s.%s", suite, r->host ? "host" : "inside");
			char *body = sp_xasprintf("expected: %s\nobserved: %s", r->expected ? r->expected : "",
						  r->observed ? r->observed : "");
			char *msg = c.note[0] ? sp_xasprintf("%s -- %s", c.note, r->detail ? r->detail : "")
					      : sp_xstrdup(r->detail ? r->detail : "");
			char *out = sp_xasprintf("%s: %s\n%s", sp_status_name(r->status), msg, body);
			sp_junit_case jc = {.classname = cls, .name = r->id, .kind = c.kind, .message = msg, .text = body};
			if (c.kind == SP_JUNIT_PASS)
				jc.out = out;
			sp_junit_case_write(f, &jc);
			free(cls);
			free(body);
			free(msg);
			free(out);
		}
		sp_junit_suite_end(f);
		free(vmsg);
		free(suite);
	}
	if (run->nteardown) {
		/* what the lanes shared, removed at the end of the run */
		sp_junit_suite_begin(f, "live.teardown", run->nteardown, td_failed, 0, 0, 0, NULL);
		for (size_t i = 0; i < run->nteardown; i++) {
			const sp_live_run_teardown *t = &run->teardown[i];
			sp_junit_case jc = {.classname = "live.teardown", .name = t->rt->name,
					    .kind = t->ok ? SP_JUNIT_PASS : SP_JUNIT_FAILURE, .message = t->what,
					    .type = t->ok ? "PASS" : "LEFT BEHIND"};
			if (t->ok)
				jc.out = t->what;
			else
				jc.text = t->what;
			sp_junit_case_write(f, &jc);
		}
		sp_junit_suite_end(f);
	}
	sp_junit_end(f);
	free(top);
}

void sp_live_write_tap(FILE *f, const sp_live_run *run)
{
	size_t total = 0;
	for (size_t i = 0; i < run->n; i++) {
		struct counts n;
		lane_counts(run, &run->lanes[i], &n);
		total += n.tests;
	}
	total += run->nteardown;
	fprintf(f, "TAP version 13\n1..%zu\n", total);
	size_t t = 0;
	for (size_t i = 0; i < run->n; i++) {
		const sp_live_lane *l = &run->lanes[i];
		sp_junit_kind vk = verdict_kind(run, l);
		fprintf(f, "%s %zu - %s/%s verdict ", vk == SP_JUNIT_FAILURE || vk == SP_JUNIT_ERROR ? "not ok" : "ok", ++t,
			l->rt->name, l->variant->name);
		sp_tap_desc(f, lane_verdict(l));
		fputs(vk == SP_JUNIT_SKIPPED ? " # SKIP " : " - ", f);
		sp_tap_desc(f, l->reason);
		fputc('\n', f);
		for (size_t k = 0; k < l->results.n; k++) {
			const sp_live_result *r = &l->results.v[k];
			ci_case c;
			classify(l, r, &c);
			bool nok = c.kind == SP_JUNIT_FAILURE || c.kind == SP_JUNIT_ERROR;
			fprintf(f, "%s %zu - %s/%s ", nok ? "not ok" : "ok", ++t, l->rt->name, l->variant->name);
			sp_tap_desc(f, r->id);
			fputs(c.kind == SP_JUNIT_SKIPPED ? " # SKIP " : " - ", f);
			sp_tap_desc(f, r->detail ? r->detail : "");
			fputc('\n', f);
			if (r->status != SP_STATUS_PASS || c.note[0]) {
				fputs("  ---\n", f);
				sp_tap_yaml(f, "status", sp_status_name(r->status));
				sp_tap_yaml(f, "side", r->host ? "host" : "inside");
				if (c.note[0])
					sp_tap_yaml(f, "judged", c.note);
				sp_tap_yaml(f, "expected", r->expected ? r->expected : "");
				sp_tap_yaml(f, "observed", r->observed ? r->observed : "");
				fputs("  ...\n", f);
			}
		}
	}
	for (size_t i = 0; i < run->nteardown; i++) {
		const sp_live_run_teardown *td = &run->teardown[i];
		fprintf(f, "%s %zu - teardown/%s ", td->ok ? "ok" : "not ok", ++t, td->rt->name);
		sp_tap_desc(f, td->what);
		fputc('\n', f);
	}
	fprintf(f, "# %s\n", sp_live_failed(run) ? "FAIL" : "PASS");
}
