#include "core/output.h"

#include <errno.h>
#include <string.h>

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

static void summary_line(FILE *f, const sp_report *rep)
{
	fprintf(f, "RESULT: %s -- %zu passed, %zu failed, %zu skipped, %zu warned, %zu errors\n",
		rep->failed ? "FAIL" : "PASS", rep->sum.pass, rep->sum.fail, rep->sum.skip, rep->sum.warn,
		rep->sum.error);
}

void sp_write_text(FILE *f, const sp_ctx *ctx, const sp_report *rep, bool verbose)
{
	for (size_t i = 0; i < rep->n; i++) {
		const sp_result *r = &rep->results[i];
		fprintf(f, "%s: %s -- %s\n", sp_status_label(r->status), r->check->id, r->detail);
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
	summary_line(f, rep);
}

/* TAP 13 with a YAML block of evidence for every non-passing result */
static void yaml_str(FILE *f, const char *key, const char *v)
{
	fprintf(f, "  %s: '", key);
	for (const char *p = v; *p; p++) {
		if (*p == '\'')
			fputs("''", f);
		else if (*p == '\n')
			fputc(' ', f);
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
		char detail[sizeof r->detail];
		snprintf(detail, sizeof detail, "%s", r->detail);
		for (char *p = detail; *p; p++)
			if (*p == '#' || *p == '\n')
				*p = ' ';
		fprintf(f, "%s %zu - %s", ok ? "ok" : "not ok", i + 1, r->check->id);
		if (r->status == SP_STATUS_SKIP)
			fprintf(f, " # SKIP %s\n", detail);
		else
			fprintf(f, " - %s\n", detail);
		if (r->status != SP_STATUS_PASS) {
			fputs("  ---\n", f);
			yaml_str(f, "status", sp_status_name(r->status));
			yaml_str(f, "expected", r->expected);
			yaml_str(f, "observed", r->observed);
			fputs("  ...\n", f);
		}
	}
	fprintf(f, "# %s -- %zu passed, %zu failed, %zu skipped, %zu warned, %zu errors\n", rep->failed ? "FAIL" : "PASS",
		rep->sum.pass, rep->sum.fail, rep->sum.skip, rep->sum.warn, rep->sum.error);
}

void sp_xml_escape(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			/* XML 1.0 forbids most control characters */
			if (*p < 0x20 && *p != '\n' && *p != '\t' && *p != '\r')
				fputc('?', f);
			else
				fputc(*p, f);
		}
	}
}

void sp_write_junit(FILE *f, const sp_ctx *ctx, const sp_report *rep)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<testsuites name=\"sandprobe\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.6f\">\n",
		rep->n, rep->sum.fail, rep->sum.error, rep->sum.skip, rep->duration_ms / 1000.0);
	fputs("  <testsuite name=\"sandprobe.doctor\" ", f);
	fprintf(f, "tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.6f\" timestamp=\"%s\">\n", rep->n,
		rep->sum.fail, rep->sum.error, rep->sum.skip, rep->duration_ms / 1000.0, rep->started_at);
	fputs("    <properties>\n", f);
	fputs("      <property name=\"profile\" value=\"", f);
	sp_xml_escape(f, ctx->profile ? ctx->profile : "");
	fputs("\"/>\n      <property name=\"runtime_guess\" value=\"", f);
	sp_xml_escape(f, rep->env.runtime_guess);
	fputs("\"/>\n      <property name=\"kernel_boundary\" value=\"", f);
	sp_xml_escape(f, sp_kernel_kind_name(rep->env.boundary.kind));
	fputs("\"/>\n    </properties>\n", f);
	for (size_t i = 0; i < rep->n; i++) {
		const sp_result *r = &rep->results[i];
		fputs("    <testcase classname=\"", f);
		sp_xml_escape(f, r->check->category);
		fputs("\" name=\"", f);
		sp_xml_escape(f, r->check->id);
		fprintf(f, "\" time=\"%.6f\">\n", (double)r->duration_us / 1e6);
		const char *tag = NULL;
		switch (r->status) {
		case SP_STATUS_FAIL: tag = "failure"; break;
		case SP_STATUS_ERROR: tag = "error"; break;
		case SP_STATUS_SKIP: tag = "skipped"; break;
		case SP_STATUS_PASS:
		case SP_STATUS_WARN: break;
		}
		if (tag) {
			fprintf(f, "      <%s message=\"", tag);
			sp_xml_escape(f, r->detail);
			fputs("\">", f);
			fputs("expected: ", f);
			sp_xml_escape(f, r->expected);
			fputs("\nobserved: ", f);
			sp_xml_escape(f, r->observed);
			fprintf(f, "</%s>\n", tag);
		}
		if (r->status == SP_STATUS_WARN || r->status == SP_STATUS_PASS) {
			fputs("      <system-out>", f);
			fprintf(f, "%s: ", sp_status_label(r->status));
			sp_xml_escape(f, r->detail);
			fputs("\nobserved: ", f);
			sp_xml_escape(f, r->observed);
			fputs("</system-out>\n", f);
		}
		fputs("    </testcase>\n", f);
	}
	fputs("  </testsuite>\n</testsuites>\n", f);
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
