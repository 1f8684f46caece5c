/* Every registry that can cover a technique, read at run time: checks added
 * to the doctor's registry (src/checks/list_*.h) appear here by themselves.
 * The lint rules and verify gates join with one line each below once their
 * registries exist on the main branch (each entry: source, id, comma-separated
 * technique ids, method "action" or "read"). */
#include "core/check.h"
#include "lint/lint.h"
#include "report/atlas.h"

void sp_atlas_collect(sp_atlas_items *out)
{
	for (size_t i = 0; i < sp_checks_count; i++) {
		const sp_check *c = sp_checks[i];
		sp_atlas_items_add(out, "doctor", c->id, c->techniques, c->method);
	}
	/* lint rules prove nothing by action: they read configuration */
	for (size_t i = 0; i < SP_LR__COUNT; i++)
		sp_atlas_items_add(out, "lint", sp_lint_rules[i].id, sp_lint_rules[i].techniques, "read");
	/* verify gates: for each gate g: sp_atlas_items_add(out, "verify", g->id, g->techniques, "read"); */
}
