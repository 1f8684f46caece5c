/* The crosswalk computed over the registries: per (technique, layer) row,
 * which items detect it, which prove by action that it is stopped, or why
 * nothing covers it. Writers: text, json (sandprobe.atlas.v1), md. */
#include "report/atlas.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "core/util.h"

static const char *const layer_names[SP_LAYER_COUNT] = {
	[SP_LAYER_ESCAPE] = "runtime escape",       [SP_LAYER_EGRESS] = "egress filter",
	[SP_LAYER_CREDENTIALS] = "credentials",     [SP_LAYER_PERSISTENCE] = "persistence",
	[SP_LAYER_RESOURCES] = "resource consumption",
};
static const char *const layer_keys[SP_LAYER_COUNT] = {
	[SP_LAYER_ESCAPE] = "escape",           [SP_LAYER_EGRESS] = "egress",
	[SP_LAYER_CREDENTIALS] = "credentials", [SP_LAYER_PERSISTENCE] = "persistence",
	[SP_LAYER_RESOURCES] = "resources",
};

const char *sp_layer_name(sp_atlas_layer l) { return (unsigned)l < SP_LAYER_COUNT ? layer_names[l] : "?"; }
const char *sp_layer_key(sp_atlas_layer l) { return (unsigned)l < SP_LAYER_COUNT ? layer_keys[l] : "?"; }

const char *sp_maturity_name(sp_atlas_maturity m)
{
	switch (m) {
	case SP_MATURITY_REALIZED: return "realized";
	case SP_MATURITY_DEMONSTRATED: return "demonstrated";
	case SP_MATURITY_FEASIBLE: return "feasible";
	case SP_MATURITY_NONE: return "-";
	}
	return "?";
}

const char *sp_reach_name(sp_atlas_reach r)
{
	switch (r) {
	case SP_REACH_YES: return "yes";
	case SP_REACH_PARTLY: return "partly";
	case SP_REACH_NO: return "no";
	}
	return "?";
}

const sp_atlas_technique *sp_technique_find(const char *id)
{
	for (size_t i = 0; i < sp_techniques_count; i++)
		if (!strcmp(sp_techniques[i].id, id))
			return &sp_techniques[i];
	return NULL;
}

/* "Parent: Sub" for a sub-technique whose parent is in the table */
static void full_name(const sp_atlas_technique *t, char *buf, size_t size)
{
	const char *dot = strchr(t->id + (sp_startswith(t->id, "AML.") ? 4 : 0), '.');
	if (dot) {
		char parent[32];
		snprintf(parent, sizeof parent, "%.*s", (int)(dot - t->id), t->id);
		const sp_atlas_technique *p = sp_technique_find(parent);
		if (p) {
			snprintf(buf, size, "%s: %s", p->name, t->name);
			return;
		}
	}
	snprintf(buf, size, "%s", t->name);
}

int sp_atlas_format_parse(const char *s, sp_atlas_format *out)
{
	if (!strcmp(s, "text"))
		*out = SP_ATLAS_TEXT;
	else if (!strcmp(s, "json"))
		*out = SP_ATLAS_JSON;
	else if (!strcmp(s, "md"))
		*out = SP_ATLAS_MD;
	else
		return -1;
	return 0;
}

void sp_atlas_items_add(sp_atlas_items *it, const char *source, const char *id, const char *techniques,
			const char *method)
{
	if (it->n == it->cap) {
		it->cap = it->cap ? it->cap * 2 : 64;
		it->v = sp_xrealloc(it->v, it->cap * sizeof *it->v);
	}
	it->v[it->n++] = (sp_atlas_item){.source = source, .id = id, .techniques = techniques ? techniques : "",
					 .method = method ? method : ""};
}

void sp_atlas_items_free(sp_atlas_items *it)
{
	free(it->v);
	*it = (sp_atlas_items){0};
}

/* does the comma-separated list contain id exactly? */
static bool list_has(const char *list, const char *id)
{
	size_t n = strlen(id);
	for (const char *p = list; *p;) {
		while (*p == ',' || *p == ' ' || *p == '\t')
			p++;
		const char *e = p;
		while (*e && *e != ',')
			e++;
		const char *end = e;
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if ((size_t)(end - p) == n && !memcmp(p, id, n))
			return true;
		p = e;
	}
	return false;
}

bool sp_atlas_item_covers(const sp_atlas_item *item, const sp_atlas_technique *t, const char **via)
{
	if (list_has(item->techniques, t->id)) {
		if (via)
			*via = t->id;
		return true;
	}
	if (t->same_as && list_has(item->techniques, t->same_as)) {
		if (via)
			*via = t->same_as;
		return true;
	}
	return false;
}

size_t sp_atlas_unknown_ids(const sp_atlas_items *items, char ***out)
{
	sp_strv sv = {0};
	for (size_t i = 0; i < items->n; i++) {
		sp_strv ids = {0};
		sp_strv_split(&ids, items->v[i].techniques, ",");
		for (size_t j = 0; j < ids.n; j++)
			if (!sp_technique_find(ids.v[j])) {
				_cleanup_free_ char *s = sp_xasprintf("%s (%s %s)", ids.v[j], items->v[i].source,
								       items->v[i].id);
				sp_strv_push(&sv, s);
			}
		sp_strv_free(&ids);
	}
	*out = sv.v;
	return sv.n;
}

/* the items covering a row, and whether they prove the stop by action */
typedef struct cover {
	const sp_atlas_item *item;
	const char *via;
} cover;

static size_t row_covers(const sp_atlas_items *items, const sp_atlas_technique *t, cover *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < items->n && n < max; i++) {
		const char *via = NULL;
		if (sp_atlas_item_covers(&items->v[i], t, &via))
			out[n++] = (cover){.item = &items->v[i], .via = via};
	}
	return n;
}

static bool is_action(const sp_atlas_item *it) { return !strcmp(it->method, "action"); }

static void item_label(const cover *c, const sp_atlas_technique *t, char *buf, size_t size)
{
	const char *pre = strcmp(c->item->source, "doctor") ? c->item->source : "";
	if (c->via && strcmp(c->via, t->id))
		snprintf(buf, size, "%s%s%s (via %s)", pre, *pre ? ":" : "", c->item->id, c->via);
	else
		snprintf(buf, size, "%s%s%s", pre, *pre ? ":" : "", c->item->id);
}

/* "a, b, c" of the covers (action only when only_action); "-" when none */
static char *cover_list(const cover *cv, size_t n, const sp_atlas_technique *t, bool only_action)
{
	char *s = sp_xstrdup("");
	for (size_t i = 0; i < n; i++) {
		if (only_action && !is_action(cv[i].item))
			continue;
		char lab[256];
		item_label(&cv[i], t, lab, sizeof lab);
		char *next = sp_xasprintf("%s%s%s", s, *s ? ", " : "", lab);
		free(s);
		s = next;
	}
	if (!*s) {
		free(s);
		s = sp_xstrdup("-");
	}
	return s;
}

#define MAX_COVERS 512

struct counts {
	size_t sources[3];
	size_t rows, covered, uncovered, realized_uncovered;
};

static void count_sources(const sp_atlas_items *items, struct counts *c)
{
	for (size_t i = 0; i < items->n; i++) {
		if (!strcmp(items->v[i].source, "doctor"))
			c->sources[0]++;
		else if (!strcmp(items->v[i].source, "lint"))
			c->sources[1]++;
		else
			c->sources[2]++;
	}
	cover cv[MAX_COVERS];
	for (size_t r = 0; r < sp_crosswalk_count; r++) {
		const sp_atlas_technique *t = sp_technique_find(sp_crosswalk_rows[r].technique);
		c->rows++;
		if (t && row_covers(items, t, cv, MAX_COVERS) > 0)
			c->covered++;
		else {
			c->uncovered++;
			if (t && t->maturity == SP_MATURITY_REALIZED)
				c->realized_uncovered++;
		}
	}
}

static void write_text(FILE *f, const sp_atlas_items *items)
{
	struct counts c = {0};
	count_sources(items, &c);
	fprintf(f, "sandprobe threat-model crosswalk: MITRE ATLAS %s, ATT&CK %s\n", SP_ATLAS_RELEASE,
		SP_ATTACK_RELEASE);
	fprintf(f, "sources: %zu doctor checks, %zu lint rules, %zu verify gates\n", c.sources[0], c.sources[1],
		c.sources[2]);
	cover cv[MAX_COVERS];
	for (int l = 0; l < SP_LAYER_COUNT; l++) {
		fprintf(f, "\n== %s ==\n", sp_layer_name(l));
		for (size_t r = 0; r < sp_crosswalk_count; r++) {
			const sp_atlas_crosswalk *row = &sp_crosswalk_rows[r];
			if ((int)row->layer != l)
				continue;
			const sp_atlas_technique *t = sp_technique_find(row->technique);
			if (!t) {
				fprintf(f, "%s (not in the technique table)\n", row->technique);
				continue;
			}
			char name[256];
			full_name(t, name, sizeof name);
			fprintf(f, "%s %s (%s; %s; %s)\n", t->id, name, t->framework, t->tactics,
				t->maturity == SP_MATURITY_NONE ? "no maturity in ATT&CK" : sp_maturity_name(t->maturity));
			fprintf(f, "  reachable: %s -- %s\n", sp_reach_name(row->reach), row->path);
			fprintf(f, "  stopped by: %s\n", row->control);
			size_t n = row_covers(items, t, cv, MAX_COVERS);
			_cleanup_free_ char *det = cover_list(cv, n, t, false);
			_cleanup_free_ char *act = cover_list(cv, n, t, true);
			fprintf(f, "  detected by: %s\n", det);
			fprintf(f, "  stop proven by action: %s\n", act);
			if (n == 0)
				fprintf(f, "  NOT COVERED: %s\n", row->uncovered);
		}
	}
	char **unknown = NULL;
	size_t nu = sp_atlas_unknown_ids(items, &unknown);
	if (nu) {
		fprintf(f, "\ntechnique ids used by checks but missing from the table:\n");
		for (size_t i = 0; i < nu; i++)
			fprintf(f, "  %s\n", unknown[i]);
	}
	sp_strv usv = {.v = unknown, .n = nu};
	sp_strv_free(&usv);
	fprintf(f, "\nsummary: %zu rows, %zu covered, %zu not covered (%zu of them realized)\n", c.rows, c.covered,
		c.uncovered, c.realized_uncovered);
}

/* markdown cell: pipes escaped, never empty */
static void md_cell(FILE *f, const char *s)
{
	fputs("| ", f);
	if (!s || !*s)
		s = "-";
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
	fputc(' ', f);
}

static void write_md(FILE *f, const sp_atlas_items *items)
{
	struct counts c = {0};
	count_sources(items, &c);
	fputs("<!-- GENERATED FILE, do not edit: `sandprobe atlas --format md` writes it.\n"
	      "     After any merge that adds checks, lint rules or gates, regenerate with\n"
	      "     build/sandprobe atlas --format md > docs/threat-model-crosswalk.md\n"
	      "     (tests/report/atlas.t fails while this file differs from the output). -->\n\n",
	      f);
	fputs("# Threat-model crosswalk\n\n", f);
	fprintf(f,
		"Generated by `sandprobe atlas --format md` from the compiled-in technique table "
		"(MITRE ATLAS %s, from mitre-atlas/atlas-data `dist/ATLAS.yaml`; ATT&CK %s) and the "
		"registries compiled into the binary: %zu doctor checks, %zu lint rules, %zu verify gates.\n\n",
		SP_ATLAS_RELEASE, SP_ATTACK_RELEASE, c.sources[0], c.sources[1], c.sources[2]);
	fputs("For each sandbox layer and technique: whether an agent inside the sandbox can reach it, "
	      "what stops it at that layer, which checks detect exposure to it (a check lists the "
	      "technique id, or the ATT&CK id the ATLAS technique refers to), which of those prove the "
	      "stop by an action (method `action`), and, when nothing covers it, why.\n\n",
	      f);
	fprintf(f, "Summary: %zu rows, %zu covered, %zu not covered (%zu of them realized).\n", c.rows, c.covered,
		c.uncovered, c.realized_uncovered);
	cover cv[MAX_COVERS];
	for (int l = 0; l < SP_LAYER_COUNT; l++) {
		fprintf(f, "\n## %c%s\n\n", sp_layer_name(l)[0] - 'a' + 'A', sp_layer_name(l) + 1);
		fputs("| Technique | Maturity | Reachable | Path | Stopped by | Detected by | Stop proven by action | Not covered because |\n"
		      "|---|---|---|---|---|---|---|---|\n",
		      f);
		for (size_t r = 0; r < sp_crosswalk_count; r++) {
			const sp_atlas_crosswalk *row = &sp_crosswalk_rows[r];
			if ((int)row->layer != l)
				continue;
			const sp_atlas_technique *t = sp_technique_find(row->technique);
			if (!t)
				continue;
			char name[300], cell[400];
			full_name(t, name, sizeof name);
			snprintf(cell, sizeof cell, "%s %s", t->id, name);
			size_t n = row_covers(items, t, cv, MAX_COVERS);
			_cleanup_free_ char *det = cover_list(cv, n, t, false);
			_cleanup_free_ char *act = cover_list(cv, n, t, true);
			md_cell(f, cell);
			md_cell(f, sp_maturity_name(t->maturity));
			md_cell(f, sp_reach_name(row->reach));
			md_cell(f, row->path);
			md_cell(f, row->control);
			md_cell(f, det);
			md_cell(f, act);
			md_cell(f, n ? "-" : row->uncovered);
			fputs("|\n", f);
		}
	}
	fputs("\n## Techniques\n\n| Id | Name | Framework | Tactics | Maturity | Same as |\n|---|---|---|---|---|---|\n", f);
	for (size_t i = 0; i < sp_techniques_count; i++) {
		const sp_atlas_technique *t = &sp_techniques[i];
		char name[300];
		full_name(t, name, sizeof name);
		md_cell(f, t->id);
		md_cell(f, name);
		md_cell(f, t->framework);
		md_cell(f, t->tactics);
		md_cell(f, sp_maturity_name(t->maturity));
		md_cell(f, t->same_as);
		fputs("|\n", f);
	}
	fputs("\n## Checks without a technique id\n\n", f);
	size_t none = 0;
	for (size_t i = 0; i < items->n; i++)
		if (!*items->v[i].techniques) {
			fprintf(f, "%s`%s:%s`", none ? ", " : "", items->v[i].source, items->v[i].id);
			none++;
		}
	fputs(none ? "\n" : "none\n", f);
	char **unknown = NULL;
	size_t nu = sp_atlas_unknown_ids(items, &unknown);
	if (nu) {
		fputs("\n## Technique ids used by checks but missing from the table\n\n", f);
		for (size_t i = 0; i < nu; i++)
			fprintf(f, "- %s\n", unknown[i]);
	}
	sp_strv usv = {.v = unknown, .n = nu};
	sp_strv_free(&usv);
}

static json_t *covers_json(const cover *cv, size_t n, bool only_action)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		if (only_action && !is_action(cv[i].item))
			continue;
		json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:s}", "source", cv[i].item->source, "id",
						   cv[i].item->id, "method", cv[i].item->method, "via", cv[i].via));
	}
	return a;
}

static json_t *split_json(const char *s)
{
	json_t *a = json_array();
	sp_strv sv = {0};
	sp_strv_split(&sv, s, ",");
	for (size_t i = 0; i < sv.n; i++)
		json_array_append_new(a, json_string(sv.v[i]));
	sp_strv_free(&sv);
	return a;
}

static int write_json(FILE *f, const sp_atlas_items *items)
{
	struct counts c = {0};
	count_sources(items, &c);
	json_t *root = json_pack("{s:s,s:s,s:s}", "schema", "sandprobe.atlas.v1", "atlas_release", SP_ATLAS_RELEASE,
				 "attack_release", SP_ATTACK_RELEASE);
	json_object_set_new(root, "sources",
			    json_pack("{s:I,s:I,s:I}", "doctor", (json_int_t)c.sources[0], "lint",
				      (json_int_t)c.sources[1], "verify", (json_int_t)c.sources[2]));
	json_t *techs = json_array();
	for (size_t i = 0; i < sp_techniques_count; i++) {
		const sp_atlas_technique *t = &sp_techniques[i];
		char name[300];
		full_name(t, name, sizeof name);
		json_t *o = json_pack("{s:s,s:s,s:s,s:o,s:s}", "id", t->id, "name", name, "framework", t->framework,
				      "tactics", split_json(t->tactics), "maturity",
				      t->maturity == SP_MATURITY_NONE ? "" : sp_maturity_name(t->maturity));
		json_object_set_new(o, "same_as", t->same_as ? json_string(t->same_as) : json_null());
		json_array_append_new(techs, o);
	}
	json_object_set_new(root, "techniques", techs);
	json_t *rows = json_array();
	cover cv[MAX_COVERS];
	for (size_t r = 0; r < sp_crosswalk_count; r++) {
		const sp_atlas_crosswalk *row = &sp_crosswalk_rows[r];
		const sp_atlas_technique *t = sp_technique_find(row->technique);
		if (!t)
			continue;
		size_t n = row_covers(items, t, cv, MAX_COVERS);
		json_t *o = json_pack("{s:s,s:s,s:s,s:s,s:s,s:o,s:o,s:b}", "layer", sp_layer_key(row->layer), "technique",
				      t->id, "reachable", sp_reach_name(row->reach), "path", row->path, "stopped_by",
				      row->control, "detected_by", covers_json(cv, n, false), "stop_proven_by",
				      covers_json(cv, n, true), "covered", n > 0);
		json_object_set_new(o, "uncovered_reason", n ? json_null() : json_string(row->uncovered));
		json_array_append_new(rows, o);
	}
	json_object_set_new(root, "crosswalk", rows);
	char **unknown = NULL;
	size_t nu = sp_atlas_unknown_ids(items, &unknown);
	json_t *ua = json_array();
	for (size_t i = 0; i < nu; i++)
		json_array_append_new(ua, json_string(unknown[i]));
	sp_strv usv = {.v = unknown, .n = nu};
	sp_strv_free(&usv);
	json_object_set_new(root, "unknown_technique_ids", ua);
	json_object_set_new(root, "summary",
			    json_pack("{s:I,s:I,s:I,s:I}", "rows", (json_int_t)c.rows, "covered", (json_int_t)c.covered,
				      "uncovered", (json_int_t)c.uncovered, "realized_uncovered",
				      (json_int_t)c.realized_uncovered));
	int rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	fputc('\n', f);
	return rc < 0 ? -EIO : 0;
}

int sp_atlas_write(FILE *f, sp_atlas_format fmt, const sp_atlas_items *items)
{
	int rc = 0;
	switch (fmt) {
	case SP_ATLAS_TEXT: write_text(f, items); break;
	case SP_ATLAS_JSON: rc = write_json(f, items); break;
	case SP_ATLAS_MD: write_md(f, items); break;
	}
	if (fflush(f) != 0 || ferror(f))
		return -(errno ? errno : EIO);
	return rc;
}
