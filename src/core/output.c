#include "core/output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/junit.h"
#include "core/util.h"

int sp_format_parse(const char *s, sp_format *out)
{
	if (!strcmp(s, "text"))
		*out = SP_FMT_TEXT;
	else if (!strcmp(s, "json"))
		*out = SP_FMT_JSON;
	else if (!strcmp(s, "tap"))
		*out = SP_FMT_TAP;
	else if (!strcmp(s, "junit"))
		*out = SP_FMT_JUNIT;
	else
		return -1;
	return 0;
}

static bool color;

void sp_output_set_color(bool on)
{
	color = on;
}

void sp_write_label(FILE *f, const char *label, const char *suffix)
{
	const char *c = NULL;
	if (color) {
		if (!strcmp(label, "PASS"))
			c = "\033[32m";
		else if (!strcmp(label, "FAIL"))
			c = "\033[1;31m";
		else if (!strcmp(label, "WARN"))
			c = "\033[33m";
		else if (!strcmp(label, "SKIP"))
			c = "\033[36m";
		else if (!strcmp(label, "ERROR"))
			c = "\033[1;35m";
	}
	if (c)
		fprintf(f, "%s%s%s\033[0m", c, label, suffix);
	else
		fprintf(f, "%s%s", label, suffix);
}

static void summary_line(FILE *f, const sp_ctx *ctx, const sp_report *rep)
{
	fputs("RESULT: ", f);
	if (sp_report_nothing_proven(rep)) {
		sp_write_label(f, "SKIP", "");
		fprintf(f, " -- nothing was proven: all %zu selected checks skipped\n", rep->n);
		return;
	}
	sp_write_label(f, rep->failed ? "FAIL" : "PASS", "");
	fprintf(f, " -- %zu passed, %zu failed, %zu skipped, %zu warned, %zu errors", rep->sum.pass, rep->sum.fail,
		rep->sum.skip, rep->sum.warn, rep->sum.error);
	/* a PASS beside warnings says what the warnings are, in the same line */
	if (!rep->failed && rep->sum.warn) {
		if (ctx->profile && !strcmp(ctx->profile, "host"))
			fputs(" (profile host is advisory: it describes this host; each WARN is isolation it lacks)", f);
		else
			fputs(" (each WARN is a check the policy marks advisory; --fail-on warn makes it fail)", f);
	}
	fputc('\n', f);
}

void sp_write_text(FILE *f, const sp_ctx *ctx, const sp_report *rep, bool verbose)
{
	for (size_t i = 0; i < rep->n; i++) {
		const sp_result *r = &rep->results[i];
		sp_write_label(f, sp_status_label(r->status), ": ");
		fprintf(f, "%s -- %s\n", r->check->id, r->detail);
		bool evidence = verbose || r->status == SP_STATUS_FAIL || r->status == SP_STATUS_ERROR ||
				r->status == SP_STATUS_WARN;
		if (evidence) {
			if (r->expected[0])
				fprintf(f, "      expected: %s\n", r->expected);
			if (r->observed[0])
				fprintf(f, "      observed: %s\n", r->observed);
		}
	}
	if (rep->stopped_early)
		fprintf(f, "# stopped after the first failure (-x)\n");
	if (verbose) {
		const sp_boundary *b = &rep->env.boundary;
		fprintf(f, "# profile %s, runtime guess %s, %.1f ms\n", ctx->profile, rep->env.runtime_guess,
			rep->duration_ms);
		fprintf(f, "# kernel boundary: %s (%s)%s; signals %s%s%s\n", sp_kernel_kind_name(b->kind), b->kernel,
			b->kind == SP_KERNEL_HOST ? "" : rep->env.boundary_accepted ? ", accepted by policy" : ", not accepted by policy",
			b->signals[0] ? b->signals : "none", b->doubt[0] ? "; " : "", b->doubt);
	}
	summary_line(f, ctx, rep);
}

/* TAP 13 (what prove and TAP::Parser read). A description holds no '#'
 * (it would start a directive) and no control character; YAML scalars are
 * single-quoted, well-formed UTF-8 without control characters. */
void sp_tap_desc(FILE *f, const char *s)
{
	char buf[4096];
	sp_utf8_sanitize(s, buf, sizeof buf, 1, 1);
	for (char *p = buf; *p; p++)
		if (*p == '#')
			*p = ' ';
	fputs(buf, f);
}

void sp_tap_yaml(FILE *f, const char *key, const char *v)
{
	char buf[8192];
	sp_utf8_sanitize(v, buf, sizeof buf, 1, 1);
	fprintf(f, "  %s: '", key);
	for (const char *p = buf; *p; p++) {
		if (*p == '\'')
			fputs("''", f);
		else
			fputc(*p, f);
	}
	fputs("'\n", f);
}

void sp_write_tap(FILE *f, const sp_report *rep)
{
	fprintf(f, "TAP version 13\n1..%zu\n", rep->n);
	for (size_t i = 0; i < rep->n; i++) {
		const sp_result *r = &rep->results[i];
		bool ok = r->status == SP_STATUS_PASS || r->status == SP_STATUS_SKIP || r->status == SP_STATUS_WARN;
		fprintf(f, "%s %zu - ", ok ? "ok" : "not ok", i + 1);
		sp_tap_desc(f, r->check->id);
		if (r->status == SP_STATUS_SKIP) {
			fputs(" # SKIP ", f);
			sp_tap_desc(f, r->detail);
		} else {
			fputs(" - ", f);
			sp_tap_desc(f, r->detail);
		}
		fputc('\n', f);
		if (r->status != SP_STATUS_PASS) {
			fputs("  ---\n", f);
			sp_tap_yaml(f, "status", sp_status_name(r->status));
			sp_tap_yaml(f, "expected", r->expected);
			sp_tap_yaml(f, "observed", r->observed);
			fputs("  ...\n", f);
		}
	}
	if (sp_report_nothing_proven(rep))
		fprintf(f, "# SKIP -- nothing was proven: all %zu selected checks skipped\n", rep->n);
	else
		fprintf(f, "# %s -- %zu passed, %zu failed, %zu skipped, %zu warned, %zu errors\n",
			rep->failed ? "FAIL" : "PASS", rep->sum.pass, rep->sum.fail, rep->sum.skip, rep->sum.warn,
			rep->sum.error);
}

void sp_write_junit(FILE *f, const sp_ctx *ctx, const sp_report *rep)
{
	double secs = rep->duration_ms / 1000.0;
	sp_junit_begin(f, "sandprobe", rep->n, rep->sum.fail, rep->sum.error, secs);
	sp_junit_suite_begin(f, "sandprobe.doctor", rep->n, rep->sum.fail, rep->sum.error, rep->sum.skip, secs,
			     rep->started_at);
	const char *props[] = {"profile", ctx->profile ? ctx->profile : "", "runtime_guess", rep->env.runtime_guess,
			       "kernel_boundary", sp_kernel_kind_name(rep->env.boundary.kind), "result",
			       sp_report_result(rep)};
	sp_junit_properties(f, props, 4);
	for (size_t i = 0; i < rep->n; i++) {
		const sp_result *r = &rep->results[i];
		sp_junit_case c = {.classname = r->check->category,
				   .name = r->check->id,
				   .seconds = (double)r->duration_us / 1e6,
				   .message = r->detail};
		char *body = sp_xasprintf("expected: %s\nobserved: %s", r->expected, r->observed);
		char *out = NULL;
		switch (r->status) {
		case SP_STATUS_FAIL: c.kind = SP_JUNIT_FAILURE; c.text = body; break;
		case SP_STATUS_ERROR: c.kind = SP_JUNIT_ERROR; c.text = body; break;
		case SP_STATUS_SKIP: c.kind = SP_JUNIT_SKIPPED; break;
		case SP_STATUS_PASS:
		case SP_STATUS_WARN:
			c.kind = SP_JUNIT_PASS;
			out = sp_xasprintf("%s: %s\nobserved: %s", sp_status_label(r->status), r->detail, r->observed);
			c.out = out;
			break;
		}
		sp_junit_case_write(f, &c);
		free(body);
		free(out);
	}
	sp_junit_suite_end(f);
	sp_junit_end(f);
}

static void list_text(FILE *f, const sp_ctx *ctx, const sp_check *const *checks, size_t n)
{
	fprintf(f, "%-28s %-12s %-7s %-9s %s\n", "ID", "CATEGORY", "METHOD", "EXPECT", "TITLE [TECHNIQUES]");
	for (size_t i = 0; i < n; i++) {
		const sp_check *c = checks[i];
		fprintf(f, "%-28s %-12s %-7s %-9s %s", c->id, c->category, c->method ? c->method : "read",
			sp_expect_name(sp_policy_expect(ctx->policy, c->id)), c->title);
		if (c->techniques && *c->techniques)
			fprintf(f, " [%s]", c->techniques);
		fputc('\n', f);
	}
	fprintf(f, "# %zu checks, profile %s\n", n, ctx->profile);
}

int sp_write_list(FILE *f, sp_format fmt, const sp_ctx *ctx, const sp_check *const *checks, size_t n)
{
	if (fmt == SP_FMT_JSON)
		return sp_write_list_json(f, ctx, checks, n);
	list_text(f, ctx, checks, n);
	return 0;
}

int sp_write_report(FILE *f, sp_format fmt, const sp_ctx *ctx, const sp_report *rep, bool verbose, bool strict)
{
	switch (fmt) {
	case SP_FMT_TEXT: sp_write_text(f, ctx, rep, verbose); break;
	case SP_FMT_TAP: sp_write_tap(f, rep); break;
	case SP_FMT_JUNIT: sp_write_junit(f, ctx, rep); break;
	case SP_FMT_JSON:
		if (sp_write_json(f, ctx, rep, strict) < 0)
			return -EIO;
		break;
	}
	if (fflush(f) != 0 || ferror(f))
		return -errno;
	return 0;
}
