/* libFuzzer: the policy parser (INI text, validation, --set assignments)
 * and every value grammar the checks register (core/policy.h): the same
 * bytes as a policy file, as --set lines, as the value of one declared key
 * (chosen by the first byte, so each key's validator is reached through the
 * loader) and as a value for one registered type directly (second byte). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks/registry.h"
#include "core/check.h"
#include "core/policy.h"
#include "core/util.h"

/* every declared key, once (the checks' policy_keys and the runner's) */
static sp_strv keys;

static void collect_keys(void)
{
	sp_strv_split(&keys, NULL, ",");
	for (size_t i = 0; i <= sp_checks_count; i++) {
		sp_strv items;
		sp_strv_split(&items, i < sp_checks_count ? sp_checks[i]->policy_keys : sp_policy_runner_keys, ",");
		for (size_t k = 0; k < items.n; k++) {
			items.v[k][strcspn(items.v[k], ":")] = '\0';
			if (!sp_strv_contains(&keys, items.v[k]))
				sp_strv_push(&keys, items.v[k]);
		}
		sp_strv_free(&items);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!keys.v)
		collect_keys();
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	sp_policy p;
	sp_error err;
	sp_policy_init(&p, &sp_doctor_registry);
	sp_policy_load_string(&p, text, "fuzz", &err);

	/* the rest of the bytes as the value of one key, through --set */
	if (size >= 2 && keys.n) {
		const char *value = text + 2;
		_cleanup_free_ char *assign = sp_xasprintf("%s=%s", keys.v[data[0] % keys.n], value);
		sp_policy_set(&p, assign, &err);
		const sp_policy_type *t = sp_policy_types[data[1] % sp_policy_types_count];
		sp_outcome o = {0};
		if (sp_policy_value_check(t, value, &o) < 0 && !o.why[0])
			abort(); /* a refusal always says why */
	}

	/* the same bytes as --set assignments, line by line */
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		sp_policy_set(&p, line, &err);
	sp_policy_free(&p);
	free(text);
	return 0;
}
