/* Every registry that can cover a technique, read at run time: doctor checks
 * (src/catalog/list_*.h), lint rules (src/lint/rules.h) and verify gates (the
 * gate catalogue, SP_GATE_LIST in src/evidence/evidence.h, in its report
 * order). Each entry: source, id, comma-separated technique ids, method
 * "action" or "read". */
#include "checks/registry.h"
#include "core/check.h"
#include "evidence/evidence.h"
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
	/* verify gates read a soak run's evidence: they detect, never stop */
	for (size_t i = 0; i < sp_gate_catalog_count; i++)
		sp_atlas_items_add(out, "verify", sp_gate_catalog[i].id, sp_gate_catalog[i].techniques, "read");
}
