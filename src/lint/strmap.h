/* A case-insensitive string -> small int list map (open addressing), for
 * the lookups that would otherwise be quadratic: allowlist hosts against
 * providers and forbidden hosts, hosts against squid dstdomain values. */
#ifndef SP_LINT_STRMAP_H
#define SP_LINT_STRMAP_H

#include <stddef.h>

typedef struct sp_lint_strmap_ent {
	char *key; /* lower case; NULL: empty slot */
	int *vals;
	size_t nv;
} sp_lint_strmap_ent;

typedef struct sp_lint_strmap {
	sp_lint_strmap_ent *e;
	size_t cap, n;
} sp_lint_strmap;

void sp_strmap_add(sp_lint_strmap *m, const char *key, int val);
const sp_lint_strmap_ent *sp_strmap_get(const sp_lint_strmap *m, const char *key);
void sp_strmap_free(sp_lint_strmap *m);

#endif
