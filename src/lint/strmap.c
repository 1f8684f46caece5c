#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "core/util.h"
#include "lint/strmap.h"

static uint64_t hash_ci(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++) {
		h ^= (unsigned char)tolower((unsigned char)*s);
		h *= 1099511628211ull;
	}
	return h;
}

static sp_lint_strmap_ent *slot(const sp_lint_strmap *m, const char *key)
{
	size_t i = (size_t)hash_ci(key) & (m->cap - 1);
	while (m->e[i].key && strcasecmp(m->e[i].key, key))
		i = (i + 1) & (m->cap - 1);
	return &m->e[i];
}

static void grow(sp_lint_strmap *m)
{
	sp_lint_strmap old = *m;
	m->cap = old.cap ? old.cap * 2 : 64;
	m->e = sp_xcalloc(m->cap, sizeof *m->e);
	for (size_t i = 0; i < old.cap; i++)
		if (old.e[i].key)
			*slot(m, old.e[i].key) = old.e[i];
	free(old.e);
}

void sp_strmap_add(sp_lint_strmap *m, const char *key, int val)
{
	if ((m->n + 1) * 2 > m->cap)
		grow(m);
	sp_lint_strmap_ent *e = slot(m, key);
	if (!e->key) {
		e->key = sp_xstrdup(key);
		for (char *p = e->key; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		m->n++;
	}
	for (size_t i = 0; i < e->nv; i++)
		if (e->vals[i] == val)
			return;
	e->vals = sp_xrealloc(e->vals, (e->nv + 1) * sizeof *e->vals);
	e->vals[e->nv++] = val;
}

const sp_lint_strmap_ent *sp_strmap_get(const sp_lint_strmap *m, const char *key)
{
	if (!m->cap)
		return NULL;
	const sp_lint_strmap_ent *e = slot(m, key);
	return e->key ? e : NULL;
}

void sp_strmap_free(sp_lint_strmap *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		free(m->e[i].key);
		free(m->e[i].vals);
	}
	free(m->e);
	memset(m, 0, sizeof *m);
}
