/* The threat-model crosswalk: its table is consistent, every technique id a
 * check uses exists, and every realized technique of a layer is covered or
 * says why not; coverage follows the registries. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "checks/registry.h"
#include "core/check.h"
#include "core/util.h"
#include "evidence/evidence.h"
#include "report/atlas.h"
#include "unit/tap.h"

static char *render(sp_atlas_format fmt, const sp_atlas_items *items)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = sp_atlas_write(f, fmt, items);
	fclose(f);
	ok(rc == 0, "sp_atlas_write format %d returns 0", (int)fmt);
	return buf;
}

int main(void)
{
	/* the table itself */
	regex_t idre;
	regcomp(&idre, "^(AML\\.T[0-9]{4}(\\.[0-9]{3})?|T[0-9]{4}(\\.[0-9]{3})?)$", REG_EXTENDED | REG_NOSUB);
	size_t bad_ids = 0, dups = 0, bad_fw = 0, bad_mat = 0, empty = 0;
	for (size_t i = 0; i < sp_techniques_count; i++) {
		const sp_atlas_technique *t = &sp_techniques[i];
		if (regexec(&idre, t->id, 0, NULL, 0) != 0) {
			bad_ids++;
			printf("# bad id %s\n", t->id);
		}
		for (size_t j = 0; j < i; j++)
			dups += !strcmp(sp_techniques[j].id, t->id);
		bool atlas = sp_startswith(t->id, "AML.");
		bad_fw += strcmp(t->framework, atlas ? "ATLAS" : "ATT&CK") != 0;
		/* ATLAS techniques carry a maturity; ATT&CK has none */
		bad_mat += atlas ? t->maturity == SP_MATURITY_NONE : t->maturity != SP_MATURITY_NONE;
		empty += !*t->name || !*t->tactics;
	}
	regfree(&idre);
	is_int(bad_ids, 0, "every technique id is AML.Tnnnn[.nnn] or Tnnnn[.nnn]");
	is_int(dups, 0, "no technique listed twice");
	is_int(bad_fw, 0, "framework matches the id's prefix");
	is_int(bad_mat, 0, "ATLAS entries have a maturity, ATT&CK entries none");
	is_int(empty, 0, "every technique has a name and tactics");

	/* the facts the brief names, as the data says */
	static const struct { const char *id, *name, *maturity; } facts[] = {
		{"AML.T0086", "Exfiltration via AI Agent Tool Invocation", "realized"},
		{"AML.T0025", "Exfiltration via Cyber Means", "realized"},
		{"AML.T0024", "Exfiltration via AI Inference API", "realized"},
		{"AML.T0051", "LLM Prompt Injection", "realized"},
		{"AML.T0053", "AI Agent Tool Invocation", "demonstrated"},
		{"AML.T0029", "Denial of AI Service", "demonstrated"},
		{"AML.T0034", "Cost Harvesting", "feasible"},
		{"AML.T0105", "Escape to Host", "demonstrated"},
		{"T1611", "Escape to Host", "-"},
		{"T1610", "Deploy Container", "-"},
		{"T1609", "Container Administration Command", "-"},
		{"T1613", "Container and Resource Discovery", "-"},
		{"T1612", "Build Image on Host", "-"},
		{"T1552.005", "Cloud Instance Metadata API", "-"},
		{"T1552.007", "Container API", "-"},
	};
	for (size_t i = 0; i < SP_ARRAY_SIZE(facts); i++) {
		const sp_atlas_technique *t = sp_technique_find(facts[i].id);
		ok(t && !strcmp(t->name, facts[i].name) && !strcmp(sp_maturity_name(t->maturity), facts[i].maturity),
		   "%s is '%s' (%s)", facts[i].id, facts[i].name, facts[i].maturity);
	}
	ok(sp_technique_find("AML.T9999") == NULL, "an unknown id is not found");

	/* rows: technique known, every technique in a row, every layer present */
	size_t unknown_rows = 0, rowless = 0, no_text = 0, realized_uncovered_no_reason = 0;
	size_t per_layer[SP_LAYER_COUNT] = {0};
	for (size_t r = 0; r < sp_crosswalk_count; r++) {
		const sp_atlas_crosswalk *row = &sp_crosswalk_rows[r];
		if (!sp_technique_find(row->technique)) {
			unknown_rows++;
			printf("# row for unknown technique %s\n", row->technique);
		}
		if ((unsigned)row->layer < SP_LAYER_COUNT)
			per_layer[row->layer]++;
		no_text += !row->path || !*row->path || !row->control || !*row->control;
	}
	for (size_t i = 0; i < sp_techniques_count; i++) {
		bool found = false;
		for (size_t r = 0; r < sp_crosswalk_count; r++)
			found |= !strcmp(sp_crosswalk_rows[r].technique, sp_techniques[i].id);
		/* a parent listed only to name its sub-techniques needs no row */
		bool parent = false;
		size_t n = strlen(sp_techniques[i].id);
		for (size_t j = 0; j < sp_techniques_count; j++)
			parent |= !strncmp(sp_techniques[j].id, sp_techniques[i].id, n) && sp_techniques[j].id[n] == '.';
		if (!found && !parent) {
			rowless++;
			printf("# technique %s in no crosswalk row\n", sp_techniques[i].id);
		}
	}
	is_int(unknown_rows, 0, "every crosswalk row names a technique of the table");
	is_int(rowless, 0, "every technique (but pure parents) appears in a crosswalk row");
	is_int(no_text, 0, "every row says how it is reached and what stops it");
	for (int l = 0; l < SP_LAYER_COUNT; l++)
		ok(per_layer[l] > 0, "layer '%s' has rows", sp_layer_name(l));

	/* against the registries compiled in */
	sp_atlas_items items = {0};
	sp_atlas_collect(&items);
	is_int(items.n >= sp_checks_count, 1, "every doctor check is a crosswalk source (%zu items)", items.n);
	size_t ngates = 0;
	for (size_t i = 0; i < items.n; i++)
		ngates += !strcmp(items.v[i].source, "verify");
	is_int(ngates, sp_gate_catalog_count, "every catalogued verify gate is a crosswalk source");
	size_t missing = 0;
	for (size_t i = 0; i < sp_checks_count; i++) {
		sp_strv ids = {0};
		sp_strv_split(&ids, sp_checks[i]->techniques, ",");
		for (size_t j = 0; j < ids.n; j++)
			if (!sp_technique_find(ids.v[j])) {
				missing++;
				printf("# check %s uses %s, not in the table\n", sp_checks[i]->id, ids.v[j]);
			}
		sp_strv_free(&ids);
	}
	is_int(missing, 0, "every technique id used by a doctor check exists in the table");
	char **unknown = NULL;
	size_t nu = sp_atlas_unknown_ids(&items, &unknown);
	is_int(nu, 0, "every technique id used by any source (checks, lint rules, gates) exists in the table");
	sp_strv usv = {.v = unknown, .n = nu};
	sp_strv_free(&usv);
	for (size_t r = 0; r < sp_crosswalk_count; r++) {
		const sp_atlas_crosswalk *row = &sp_crosswalk_rows[r];
		const sp_atlas_technique *t = sp_technique_find(row->technique);
		if (!t)
			continue;
		bool covered = false;
		for (size_t i = 0; i < items.n; i++)
			covered |= sp_atlas_item_covers(&items.v[i], t, NULL);
		bool reason = row->uncovered && *row->uncovered;
		if (!covered && !reason) {
			printf("# %s (%s) has no check and no reason\n", t->id, sp_layer_key(row->layer));
			if (t->maturity == SP_MATURITY_REALIZED)
				realized_uncovered_no_reason++;
		}
		if (!covered && !reason)
			no_text++;
	}
	is_int(realized_uncovered_no_reason, 0, "every realized technique of a layer has a check or a stated reason");
	is_int(no_text, 0, "every row of any maturity has a check or a stated reason");

	/* matching: exact ids, sub-techniques do not cover parents, same_as does */
	sp_atlas_item it = {.source = "doctor", .id = "x", .techniques = "T1548.001, AML.T0086", .method = "read"};
	const char *via = NULL;
	ok(sp_atlas_item_covers(&it, sp_technique_find("T1548.001"), &via) && !strcmp(via, "T1548.001"),
	   "a listed id covers its technique");
	ok(!sp_atlas_item_covers(&it, sp_technique_find("T1548"), NULL), "a sub-technique does not cover its parent");
	ok(sp_atlas_item_covers(&it, sp_technique_find("AML.T0086"), NULL), "ids are trimmed of blanks");
	sp_atlas_item it2 = {.source = "doctor", .id = "y", .techniques = "T1611", .method = "action"};
	ok(sp_atlas_item_covers(&it2, sp_technique_find("AML.T0105"), &via) && !strcmp(via, "T1611"),
	   "an ATLAS technique is covered through the ATT&CK id it refers to");
	sp_atlas_item it3 = {.source = "doctor", .id = "z", .techniques = "T16110", .method = "action"};
	ok(!sp_atlas_item_covers(&it3, sp_technique_find("T1611"), NULL), "no prefix matches");

	/* coverage follows the sources: an added lint rule shows up */
	sp_atlas_items none = {0};
	char *before = render(SP_ATLAS_JSON, &none);
	like_str(before, "\"technique\": \"AML.T0025\"", "json lists AML.T0025");
	sp_atlas_items more = {0};
	sp_atlas_items_add(&more, "lint", "egress.allowlist-wildcard", "AML.T0025", "read");
	sp_atlas_items_add(&more, "verify", "rss.slope", "AML.T0029", "read");
	sp_atlas_items_add(&more, "doctor", "net.egress.tcp", "AML.T0025,T9999", "action");
	char *after = render(SP_ATLAS_TEXT, &more);
	like_str(after, "egress.allowlist-wildcard", "text names the added lint rule");
	like_str(after, "stop proven by action: net.egress.tcp", "an action check proves the stop");
	like_str(after, "verify:rss.slope", "a verify gate is named with its source");
	like_str(after, "T9999 (doctor net.egress.tcp)", "an unknown technique id is reported with its user");
	char *md_none = render(SP_ATLAS_MD, &none);
	char *md_more = render(SP_ATLAS_MD, &more);
	like_str(md_none, "| AML.T0025 Exfiltration via Cyber Means |", "md has the AML.T0025 row");
	ok(strcmp(md_none, md_more) != 0, "md changes when the sources change");
	like_str(md_none, "regenerate", "md says how to regenerate it");
	free(before);
	free(after);
	free(md_none);
	free(md_more);
	sp_atlas_items_free(&none);
	sp_atlas_items_free(&more);
	sp_atlas_items_free(&items);
	return done_testing();
}
