/* Policies: what the sandbox's owner believes it isolates. INI files parsed
 * with inih; "[net] egress.deny = x" is the dotted key "net.egress.deny".
 * Shipped profiles (the .ini files under policies/) are embedded in the binary. */
#ifndef SP_POLICY_H
#define SP_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/outcome.h"

struct sp_strv;
struct sp_check;
typedef struct sp_policy_type sp_policy_type;

/* What a policy is validated against: the checks with the keys they declare,
 * the value grammars they register and the keys the runner reads. core
 * knows no checks: the caller hands the registry in (src/checks/registry.h's
 * sp_doctor_registry for the doctor). */
typedef struct sp_registry {
	const struct sp_check *const *checks;
	size_t nchecks;
	const sp_policy_type *const *types;
	size_t ntypes;
	const char *runner_keys; /* "key:type,..." read by the runner for every check */
} sp_registry;

typedef struct sp_policy_entry {
	char *key;
	char *value;
	char *origin; /* "policies/strict.ini:12", "--set" */
} sp_policy_entry;

typedef struct sp_policy {
	char *name;
	sp_policy_entry *e;
	size_t n;
	const sp_registry *reg; /* what keys and values are checked against */
} sp_policy;

struct sp_embedded_policy {
	const char *name;
	const char *text;
};
extern const struct sp_embedded_policy sp_embedded_policies[];

/* An empty policy validated against reg (kept by sp_policy_free). */
void sp_policy_init(sp_policy *p, const sp_registry *reg);
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

/* ---- how values are written ----------------------------------------------
 * Each key a check reads is declared in its policy_keys as "key:TYPE". TYPE
 * is one of core's own (bool, int, list, caps, str) or a grammar a check
 * registers once, beside the parser it calls at run time, in
 * src/checks/list_types.h (SP_T lines; the registry hands core the table).
 * The loader checks every value against its key's type, whether it comes
 * from a file, an inherited base profile or --set: a malformed value is a
 * usage error naming the place and the key ("FILE:LINE: KEY: what is wrong",
 * exit 2), before anything runs. A check never parses a value with code of
 * its own beside the type's parse: the run-time parser IS the validator. */
struct sp_policy_type {
	const char *name;  /* what follows ':' in policy_keys: "targets" */
	const char *what;  /* the grammar in a few words, for errors and docs: "IP:PORT" */
	/* a comma/blank-separated list (split as sp_policy_list splits it):
	 * choices and parse apply to each element */
	bool list;
	size_t max;                 /* list: at most this many elements (what the check probes); 0: any number */
	const char *const *choices; /* NULL, or the only words allowed (NULL-terminated) */
	/* 0, or -1 with what is wrong in why (lowercase, no full stop, naming the
	 * part at fault but not the key or the place: the loader adds those) */
	int (*parse)(const char *text, sp_outcome *o);
};

/* core's own type or one registered in reg by name; NULL when none */
const sp_policy_type *sp_policy_type_find(const sp_registry *reg, const char *name);
/* the type a key is declared with (core's "str" when declared without one);
 * NULL when no check declares the key or its type is unknown (*type_name
 * then says which name, or is NULL) */
const sp_policy_type *sp_policy_key_type(const sp_registry *reg, const char *key, const char **type_name);
/* Is key read by any check of reg (or the runner), or a global policy key? */
bool sp_policy_key_known(const sp_registry *reg, const char *key);
/* value against type: 0, or -1 with what is wrong in o. An empty value
 * is "unset" and always accepted, except by bool and int. */
int sp_policy_value_check(const sp_policy_type *t, const char *value, sp_outcome *o);

#endif
