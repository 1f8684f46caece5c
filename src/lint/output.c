/* Lint writers: text, JSON (sandprobe.lint.v1), SARIF 2.1.0, and the rule
 * catalogue (--list-rules). */
#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "core/json.h"
#include "core/version.h"
#include "lint/lint.h"

int sp_lint_format_parse(const char *s, sp_lint_format *out)
{
	if (!strcmp(s, "text"))
		*out = SP_LF_TEXT;
	else if (!strcmp(s, "json"))
		*out = SP_LF_JSON;
	else if (!strcmp(s, "sarif"))
		*out = SP_LF_SARIF;
	else
		return -1;
	return 0;
}

static void counts(const sp_lint *l, size_t c[3])
{
	c[0] = c[1] = c[2] = 0;
	for (size_t i = 0; i < l->nf; i++)
		c[sp_lint_rules[l->f[i].rule].sev]++;
}

static bool failed(const sp_lint *l, sp_lint_sev fail_on)
{
	int w = sp_lint_worst(l);
	return w >= 0 && w >= (int)fail_on;
}

static void write_text(FILE *f, const sp_lint *l, sp_lint_sev fail_on)
{
	for (size_t i = 0; i < l->nf; i++) {
		const sp_lint_finding *x = &l->f[i];
		const sp_lint_rule *r = &sp_lint_rules[x->rule];
		fprintf(f, "%s", l->files[x->file].path);
		if (x->line)
			fprintf(f, ":%u:%u", x->line, x->column);
		fprintf(f, ": %s: %s: %s", sp_lint_sev_name(r->sev), r->id, x->message);
		if (x->pointer)
			fprintf(f, " [%s]", x->pointer[0] ? x->pointer : "/");
		fputc('\n', f);
	}
	size_t c[3];
	counts(l, c);
	fprintf(f, "RESULT: %s -- %zu errors, %zu warnings, %zu notes in %zu file%s (fail on %s)\n",
		failed(l, fail_on) ? "FAIL" : "PASS", c[SP_SEV_ERROR], c[SP_SEV_WARNING], c[SP_SEV_NOTE], l->nfiles,
		l->nfiles == 1 ? "" : "s", sp_lint_sev_name(fail_on));
}

static json_t *json_report(const sp_lint *l, sp_lint_sev fail_on)
{
	json_t *root = json_object();
	json_object_set_new(root, "schema", json_string("sandprobe.lint.v1"));
	json_object_set_new(root, "tool", json_pack("{s:s,s:s}", "name", "sandprobe", "version", SP_VERSION));
	json_t *files = json_array();
	for (size_t i = 0; i < l->nfiles; i++)
		json_array_append_new(files, json_pack("{s:o,s:s}", "path", sp_json_str(l->files[i].path), "kind",
						       sp_lint_kind_name(l->files[i].kind)));
	json_object_set_new(root, "files", files);
	json_t *fs = json_array();
	for (size_t i = 0; i < l->nf; i++) {
		const sp_lint_finding *x = &l->f[i];
		const sp_lint_rule *r = &sp_lint_rules[x->rule];
		json_t *o = json_object();
		json_object_set_new(o, "rule", json_string(r->id));
		json_object_set_new(o, "severity", json_string(sp_lint_sev_name(r->sev)));
		json_object_set_new(o, "message", sp_json_str(x->message));
		json_object_set_new(o, "file", sp_json_str(l->files[x->file].path));
		json_object_set_new(o, "pointer", x->pointer ? sp_json_str(x->pointer) : json_null());
		json_object_set_new(o, "line", x->line ? json_integer(x->line) : json_null());
		json_object_set_new(o, "column", x->column ? json_integer(x->column) : json_null());
		json_object_set_new(o, "techniques", sp_json_csv_array(r->techniques));
		json_array_append_new(fs, o);
	}
	json_object_set_new(root, "findings", fs);
	size_t c[3];
	counts(l, c);
	json_object_set_new(root, "summary",
			    json_pack("{s:I,s:I,s:I}", "error", (json_int_t)c[SP_SEV_ERROR], "warning",
				      (json_int_t)c[SP_SEV_WARNING], "note", (json_int_t)c[SP_SEV_NOTE]));
	json_object_set_new(root, "fail_on", json_string(sp_lint_sev_name(fail_on)));
	json_object_set_new(root, "result", json_string(failed(l, fail_on) ? "fail" : "pass"));
	return root;
}

/* a URI for a path: file:///abs for absolute paths, a relative reference
 * otherwise (what code-scanning uploads expect); percent-encode the rest */
static json_t *uri_of(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(path);
	_cleanup_free_ char *u = sp_xmalloc(n * 3 + 8);
	size_t k = 0;
	if (path[0] == '/') {
		memcpy(u, "file://", 7);
		k = 7;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)path[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-._~/", c)) {
			u[k++] = (char)c;
		} else {
			u[k++] = '%';
			u[k++] = hex[c >> 4];
			u[k++] = hex[c & 15];
		}
	}
	u[k] = '\0';
	return json_string(u);
}

/* Where a SARIF viewer sends a user to learn about the tool and its rules
 * (the lint man page of the project's repository); packagers may point it at
 * their own copy with -DSP_LINT_INFO_URI=... */
#ifndef SP_LINT_INFO_URI
#define SP_LINT_INFO_URI "https://github.com/sandprobe/sandprobe/blob/main/docs/man/sandprobe-lint.1"
#endif

/* "kube.rbac_pod_exec" -> "KubeRbacPodExec": SARIF's friendly rule name */
static json_t *pascal_name(const char *id)
{
	char buf[128];
	size_t k = 0;
	bool up = true;
	for (const char *c = id; *c && k + 1 < sizeof buf; c++) {
		if (*c == '.' || *c == '_' || *c == '-') {
			up = true;
			continue;
		}
		buf[k++] = up && *c >= 'a' && *c <= 'z' ? (char)(*c - 'a' + 'A') : *c;
		up = false;
	}
	buf[k] = '\0';
	return json_string(buf);
}

/* GitHub code scanning ranks security results by this CVSS-like score:
 * >= 9 critical, >= 7 high, >= 4 medium, else low */
static const char *security_severity(const sp_lint_rule *r)
{
	switch (r->sev) {
	case SP_SEV_ERROR: return "8.0";
	case SP_SEV_WARNING: return "5.0";
	case SP_SEV_NOTE: return "2.0";
	}
	return "5.0";
}

static json_t *sarif_rule(const sp_lint_rule *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_string(r->id));
	json_object_set_new(o, "name", pascal_name(r->id));
	json_object_set_new(o, "shortDescription", json_pack("{s:s}", "text", r->title));
	json_object_set_new(o, "fullDescription", json_pack("{s:s}", "text", r->rationale));
	json_object_set_new(o, "helpUri", json_string(SP_LINT_INFO_URI));
	json_object_set_new(o, "help", json_pack("{s:s}", "text", r->rationale));
	json_object_set_new(o, "defaultConfiguration", json_pack("{s:s}", "level", sp_lint_sev_name(r->sev)));
	json_t *tags = sp_json_csv_array(r->techniques);
	json_array_append_new(tags, json_string("security"));
	json_object_set_new(o, "properties",
			    json_pack("{s:o,s:s,s:s}", "tags", tags, "security-severity", security_severity(r), "precision",
				      "high"));
	return o;
}

/* SARIF wants a numeric version and a semantic one; a build from git has
 * "git describe" output (a tag, or a bare commit hash) */
static void sarif_versions(char *num, size_t nsz, char *sem, size_t ssz)
{
	const char *v = SP_VERSION;
	size_t i = 0;
	bool numeric = v[0] >= '0' && v[0] <= '9';
	for (; v[i] && numeric; i++)
		numeric = (v[i] >= '0' && v[i] <= '9') || v[i] == '.';
	snprintf(num, nsz, "%s", numeric ? v : "0.0.0");
	int dots = 0;
	for (const char *c = v; *c; c++)
		dots += *c == '.';
	if (numeric && dots == 2) {
		snprintf(sem, ssz, "%s", v);
		return;
	}
	/* 0.0.0+<build metadata>: only [0-9A-Za-z.-] */
	size_t k = (size_t)snprintf(sem, ssz, "0.0.0+");
	for (const char *c = v; *c && k + 1 < ssz; c++) {
		bool ok = (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '.' ||
			  *c == '-';
		sem[k++] = ok ? *c : '-';
	}
	sem[k] = '\0';
}

static json_t *sarif_driver(void)
{
	json_t *rules = json_array();
	for (size_t i = 0; i < SP_LR__COUNT; i++)
		json_array_append_new(rules, sarif_rule(&sp_lint_rules[i]));
	char num[64], sem[96];
	sarif_versions(num, sizeof num, sem, sizeof sem);
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:o}", "name", "sandprobe", "fullName", "sandprobe " SP_VERSION, "version",
			 num, "semanticVersion", sem, "informationUri", SP_LINT_INFO_URI, "rules", rules);
}

static json_t *sarif_location(const sp_lint *l, const sp_lint_finding *x)
{
	json_t *phys = json_pack("{s:{s:o}}", "artifactLocation", "uri", uri_of(l->files[x->file].path));
	if (x->line)
		json_object_set_new(phys, "region",
				    json_pack("{s:I,s:I}", "startLine", (json_int_t)x->line, "startColumn",
					      (json_int_t)(x->column ? x->column : 1)));
	json_t *loc = json_pack("{s:o}", "physicalLocation", phys);
	if (x->pointer)
		json_object_set_new(loc, "logicalLocations",
				    json_pack("[{s:o,s:s}]", "fullyQualifiedName", sp_json_str(x->pointer[0] ? x->pointer : "/"),
					      "kind", "object"));
	return loc;
}

static json_t *sarif_report(const sp_lint *l)
{
	json_t *results = json_array();
	json_t *notes = json_array();
	for (size_t i = 0; i < l->nf; i++) {
		const sp_lint_finding *x = &l->f[i];
		const sp_lint_rule *r = &sp_lint_rules[x->rule];
		json_t *res = json_object();
		json_object_set_new(res, "ruleId", json_string(r->id));
		json_object_set_new(res, "ruleIndex", json_integer((json_int_t)x->rule));
		json_object_set_new(res, "level", json_string(sp_lint_sev_name(r->sev)));
		json_object_set_new(res, "message", json_pack("{s:o}", "text", sp_json_str(x->message)));
		json_object_set_new(res, "locations", json_pack("[o]", sarif_location(l, x)));
		json_array_append_new(results, res);
		/* an input the tool could not lint is also a tool execution notification */
		if (x->rule == SP_LR_INPUT_INVALID)
			json_array_append_new(
				notes, json_pack("{s:s,s:{s:o},s:[o],s:{s:s,s:I}}", "level", "error", "message", "text",
						 sp_json_str(x->message), "locations", sarif_location(l, x), "descriptor",
						 "id", r->id, "index", (json_int_t)x->rule));
	}
	json_t *inv = json_pack("{s:b}", "executionSuccessful", json_array_size(notes) == 0);
	if (json_array_size(notes))
		json_object_set_new(inv, "toolExecutionNotifications", notes);
	else
		json_decref(notes);
	json_t *run = json_pack("{s:{s:o},s:[o],s:o,s:s}", "tool", "driver", sarif_driver(), "invocations", inv,
				"results", results, "columnKind", "unicodeCodePoints");
	return json_pack("{s:s,s:s,s:[o]}", "$schema", "https://json.schemastore.org/sarif-2.1.0.json", "version",
			 "2.1.0", "runs", run);
}

static int dump(FILE *f, json_t *j)
{
	int r = json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(j);
	if (r < 0)
		return -EIO;
	fputc('\n', f);
	return 0;
}

int sp_lint_write(FILE *f, sp_lint_format fmt, const sp_lint *l, sp_lint_sev fail_on)
{
	int r = 0;
	switch (fmt) {
	case SP_LF_TEXT: write_text(f, l, fail_on); break;
	case SP_LF_JSON: r = dump(f, json_report(l, fail_on)); break;
	case SP_LF_SARIF: r = dump(f, sarif_report(l)); break;
	}
	if (fflush(f) != 0 || ferror(f))
		return -(errno ? errno : EIO);
	return r;
}

int sp_lint_write_rules(FILE *f, sp_lint_format fmt)
{
	if (fmt == SP_LF_TEXT) {
		for (size_t i = 0; i < SP_LR__COUNT; i++) {
			const sp_lint_rule *r = &sp_lint_rules[i];
			fprintf(f, "%-32s %-7s %-9s %s\n", r->id, sp_lint_sev_name(r->sev),
				r->kind == SP_LK_AUTO ? "relation" : sp_lint_kind_name(r->kind), r->title);
			fprintf(f, "    why: %s\n", r->rationale);
			if (r->techniques[0])
				fprintf(f, "    techniques: %s\n", r->techniques);
		}
	} else if (fmt == SP_LF_JSON) {
		json_t *rules = json_array();
		for (size_t i = 0; i < SP_LR__COUNT; i++) {
			const sp_lint_rule *r = &sp_lint_rules[i];
			json_array_append_new(
				rules, json_pack("{s:s,s:s,s:s,s:s,s:s,s:o}", "id", r->id, "kind",
						 r->kind == SP_LK_AUTO ? "relation" : sp_lint_kind_name(r->kind), "severity",
						 sp_lint_sev_name(r->sev), "title", r->title, "rationale", r->rationale,
						 "techniques", sp_json_csv_array(r->techniques)));
		}
		int rc = dump(f, json_pack("{s:s,s:o}", "schema", "sandprobe.lint.rules.v1", "rules", rules));
		if (rc < 0)
			return rc;
	} else {
		json_t *run = json_pack("{s:{s:o},s:[]}", "tool", "driver", sarif_driver(), "results");
		int rc = dump(f, json_pack("{s:s,s:s,s:[o]}", "$schema", "https://json.schemastore.org/sarif-2.1.0.json",
					   "version", "2.1.0", "runs", run));
		if (rc < 0)
			return rc;
	}
	if (fflush(f) != 0 || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}
