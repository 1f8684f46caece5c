/* Policies: what the sandbox's owner believes it isolates. INI files parsed
 * with inih; "[net] egress.deny = x" is the dotted key "net.egress.deny".
 * Shipped profiles (the .ini files under policies/) are embedded in the binary. */
#ifndef SP_POLICY_H
#define SP_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

struct sp_strv;

typedef struct sp_policy_entry {
	char *key;
	char *value;
	char *origin; /* "policies/strict.ini:12", "--set" */
} sp_policy_entry;

typedef struct sp_policy {
	char *name;
	sp_policy_entry *e;
	size_t n;
} sp_policy;

struct sp_embedded_policy {
	const char *name;
	const char *text;
};
extern const struct sp_embedded_policy sp_embedded_policies[];

void sp_policy_init(sp_policy *p);
void sp_policy_free(sp_policy *p);
/* Load a shipped profile by name. */
int sp_policy_load_profile(sp_policy *p, const char *name, sp_error *err);
/* Load a policy file (may name a base profile with "[policy] base = NAME"). */
int sp_policy_load_file(sp_policy *p, const char *path, sp_error *err);
/* Parse INI text; origin names it in errors. */
int sp_policy_load_string(sp_policy *p, const char *text, const char *origin, sp_error *err);
/* Apply "KEY=VALUE" (dotted key). */
int sp_policy_set(sp_policy *p, const char *assignment, sp_error *err);

/* NULL when unset */
const char *sp_policy_get(const sp_policy *p, const char *key);
/* split a comma/space separated list value (empty list when unset) */
void sp_policy_list(const sp_policy *p, const char *key, struct sp_strv *out);
bool sp_policy_bool(const sp_policy *p, const char *key, bool def);
long long sp_policy_int(const sp_policy *p, const char *key, long long def);

#endif
