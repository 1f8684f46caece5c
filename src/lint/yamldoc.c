/* Small node helpers for compose and kube over the shared YAML tree
 * (src/yaml/ytree.c): typed reads, positions, findings and type checks at a
 * node. The file's YAML run is yamlrun.c. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lint/yamldoc.h"

bool sp_y_is_map(sp_ynode *n) { return n && n->kind == SP_YN_MAP; }
bool sp_y_is_seq(sp_ynode *n) { return n && n->kind == SP_YN_SEQ; }

const char *sp_y_str(sp_ynode *n) { return n && n->kind == SP_YN_SCALAR ? n->str : NULL; }

bool sp_y_true(sp_ynode *n)
{
	const char *s = sp_y_str(n);
	return s && (!strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcasecmp(s, "on") || !strcmp(s, "y"));
}

bool sp_y_false(sp_ynode *n)
{
	const char *s = sp_y_str(n);
	return s && (!strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcasecmp(s, "off") || !strcmp(s, "n"));
}

size_t sp_y_len(sp_ynode *seq) { return sp_y_is_seq(seq) ? seq->n : 0; }

sp_ynode *sp_y_at(sp_ydoc *d, sp_ynode *seq, size_t i)
{
	(void)d;
	return i < sp_y_len(seq) ? seq->items[i] : NULL;
}

size_t sp_y_npairs(sp_ynode *map) { return sp_y_is_map(map) ? map->n : 0; }

bool sp_y_null(const sp_ynode *n)
{
	if (!n || n->kind != SP_YN_SCALAR)
		return false;
	if (sp_ynode_has_tag(n, "null"))
		return true;
	if (n->style != SP_YS_PLAIN)
		return false;
	const char *s = n->str;
	return !s[0] || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

void sp_y_pair(sp_ydoc *d, sp_ynode *map, size_t i, sp_ynode **k, sp_ynode **v)
{
	(void)d;
	*k = *v = NULL;
	if (i >= sp_y_npairs(map))
		return;
	sp_ynode *kn = map->items[2 * i];
	if (sp_ynode_is_merge_key(kn))
		return;
	*k = kn;
	*v = map->items[2 * i + 1];
	if (sp_y_null(*v))
		*v = NULL;
}

static sp_ynode *find_pair(sp_ynode *map, const char *key, bool want_key)
{
	size_t n = sp_y_npairs(map), kl = strlen(key);
	for (size_t i = 0; i < n; i++) {
		sp_ynode *k = map->items[2 * i];
		if (k->kind != SP_YN_SCALAR || k->len != kl || memcmp(k->str, key, kl) || sp_ynode_is_merge_key(k))
			continue;
		if (want_key)
			return k;
		sp_ynode *v = map->items[2 * i + 1];
		return sp_y_null(v) ? NULL : v;
	}
	return NULL;
}

sp_ynode *sp_y_key(sp_ydoc *d, sp_ynode *map, const char *key)
{
	(void)d;
	return find_pair(map, key, true);
}

sp_ynode *sp_y_get(sp_ydoc *d, sp_ynode *map, const char *key)
{
	(void)d;
	return find_pair(map, key, false);
}

int sp_y_error(const sp_lint_file *f, const sp_ynode *n, const char *pointer, sp_error *err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return sp_usage(err, "%s:%u:%u: %s: %s", f->path, sp_y_line(n), sp_y_col(n), pointer && *pointer ? pointer : "/",
			msg);
}

void sp_y_report(sp_lint *l, size_t fi, sp_lint_rule_id rule, const sp_ynode *n, const char *pointer,
		 const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *msg = NULL;
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	sp_lint_report(l, fi, rule, pointer, sp_y_line(n), sp_y_col(n), "%s", msg ? msg : "?");
}

static const char *ytype_word(char t)
{
	switch (t) {
	case 'm': return "a mapping";
	case 'q': return "a sequence";
	case 's': return "a scalar";
	case 'c': return "a mapping or a sequence";
	default: return "a value";
	}
}

static const char *ynode_word(const sp_ynode *n)
{
	switch (n->kind) {
	case SP_YN_SCALAR: return "a scalar";
	case SP_YN_SEQ: return "a sequence";
	case SP_YN_MAP: return "a mapping";
	}
	return "nothing";
}

static bool ytype_ok(const sp_ynode *n, char t)
{
	switch (t) {
	case 'm': return n->kind == SP_YN_MAP;
	case 'q': return n->kind == SP_YN_SEQ;
	case 's': return n->kind == SP_YN_SCALAR;
	case 'c': return n->kind == SP_YN_MAP || n->kind == SP_YN_SEQ;
	default: return true;
	}
}

/* The walk keeps the path as segments and builds the JSON pointer only for
 * an error: a 4,000-document file has a million values to look at. */
struct yseg {
	const char *key; /* NULL: an array index */
	size_t klen, idx;
};

static int ywalk_error(const sp_lint_file *f, const sp_ynode *n, const char *prefix, const struct yseg *segs,
		       int nseg, char t, sp_error *err)
{
	_cleanup_free_ char *ptr = sp_xstrdup(prefix ? prefix : "");
	for (int i = 0; i < nseg; i++) {
		char *next;
		if (segs[i].key) {
			_cleanup_free_ char *k = sp_xstrndup(segs[i].key, segs[i].klen);
			next = sp_jptr_join(ptr, k);
		} else {
			next = sp_jptr_index(ptr, segs[i].idx);
		}
		free(ptr);
		ptr = next;
	}
	return sp_y_error(f, n, ptr, err, "expected %s, got %s", ytype_word(t), ynode_word(n));
}

static int ywalk(const sp_lint_file *f, sp_ydoc *d, sp_ynode *n, const char *prefix, struct yseg *segs,
		 int nseg, const char *rest, char t, sp_error *err)
{
	if (!n || sp_y_null(n) || nseg >= SP_LINT_MAX_DEPTH)
		return 0;
	if (!*rest) {
		if (!ytype_ok(n, t))
			return ywalk_error(f, n, prefix, segs, nseg, t, err);
		return 0;
	}
	rest++;
	const char *end = strchr(rest, '/');
	size_t sl = end ? (size_t)(end - rest) : strlen(rest);
	const char *next = rest + sl;
	if (sl == 1 && rest[0] == '*') {
		if (sp_y_is_map(n)) {
			for (size_t i = 0; i < sp_y_npairs(n); i++) {
				sp_ynode *k, *v;
				sp_y_pair(d, n, i, &k, &v);
				if (!k || !v)
					continue;
				const char *ks = sp_y_str(k);
				segs[nseg] = (struct yseg){.key = ks ? ks : "?", .klen = ks ? k->len : 1};
				if (ywalk(f, d, v, prefix, segs, nseg + 1, next, t, err) < 0)
					return -1;
			}
		} else if (sp_y_is_seq(n)) {
			for (size_t i = 0; i < sp_y_len(n); i++) {
				segs[nseg] = (struct yseg){.key = NULL, .idx = i};
				if (ywalk(f, d, sp_y_at(d, n, i), prefix, segs, nseg + 1, next, t, err) < 0)
					return -1;
			}
		}
		return 0;
	}
	if (!sp_y_is_map(n))
		return 0;
	sp_ynode *v = NULL;
	size_t np = sp_y_npairs(n);
	for (size_t i = 0; i < np; i++) {
		sp_ynode *k = n->items[2 * i];
		if (k->kind == SP_YN_SCALAR && k->len == sl && !memcmp(k->str, rest, sl) && !sp_ynode_is_merge_key(k)) {
			v = n->items[2 * i + 1];
			break;
		}
	}
	if (!v)
		return 0;
	segs[nseg] = (struct yseg){.key = rest, .klen = sl};
	return ywalk(f, d, v, prefix, segs, nseg + 1, next, t, err);
}

int sp_y_schema(const sp_lint_file *f, sp_ydoc *d, sp_ynode *root, const char *prefix,
		const sp_lint_yschema *s, size_t n, sp_error *err)
{
	struct yseg segs[SP_LINT_MAX_DEPTH + 1];
	for (size_t i = 0; i < n; i++)
		if (ywalk(f, d, root, prefix, segs, 0, s[i].path, s[i].type, err) < 0)
			return -1;
	return 0;
}
