/* Type checks for the JSON kinds, driven by a small path table. The walk
 * keeps the current pointer in one growing buffer (no allocation per value:
 * a 1 MiB config.json has tens of thousands of them). */
#include <jansson.h>
#include <string.h>

#include "lint/lint.h"

static const char *type_word(char t)
{
	switch (t) {
	case 'o': return "an object";
	case 'a': return "an array";
	case 'A': return "an array or null";
	case 's': return "a string";
	case 'b': return "a boolean";
	case 'i': return "an integer";
	case 'n': return "a number";
	default: return "a value";
	}
}

static const char *json_word(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "?";
}

static bool type_ok(const json_t *j, char t)
{
	switch (t) {
	case 'o': return json_is_object(j);
	case 'a': return json_is_array(j);
	case 'A': return json_is_array(j) || json_is_null(j);
	case 's': return json_is_string(j);
	case 'b': return json_is_boolean(j);
	case 'i': return json_is_integer(j);
	case 'n': return json_is_number(j);
	default: return true;
	}
}

struct pbuf {
	char *s;
	size_t len, cap;
};

/* append "/seg" (escaped when it is an object key) */
static void pb_push(struct pbuf *b, const char *seg, bool key)
{
	size_t sl = strlen(seg), need = b->len + 2 + 2 * sl;
	if (need > b->cap) {
		b->cap = need * 2;
		b->s = sp_xrealloc(b->s, b->cap);
	}
	b->s[b->len++] = '/';
	for (size_t i = 0; i < sl; i++) {
		if (key && (seg[i] == '~' || seg[i] == '/')) {
			b->s[b->len++] = '~';
			b->s[b->len++] = seg[i] == '~' ? '0' : '1';
		} else {
			b->s[b->len++] = seg[i];
		}
	}
	b->s[b->len] = '\0';
}

static int walk(const sp_lint_file *f, json_t *j, struct pbuf *b, const char *rest, char t, sp_error *err)
{
	if (!*rest) {
		if (!type_ok(j, t))
			return sp_lint_json_type_error(f, b->s, err, "expected %s, got %s", type_word(t), json_word(j));
		return 0;
	}
	rest++; /* the '/' */
	const char *end = strchr(rest, '/');
	size_t sl = end ? (size_t)(end - rest) : strlen(rest);
	const char *next = rest + sl;
	size_t save = b->len;
	if (sl == 1 && rest[0] == '*') {
		if (json_is_object(j)) {
			const char *k;
			json_t *v;
			json_object_foreach(j, k, v) {
				pb_push(b, k, true);
				int r = walk(f, v, b, next, t, err);
				b->len = save;
				b->s[save] = '\0';
				if (r < 0)
					return -1;
			}
		} else if (json_is_array(j)) {
			size_t i;
			json_t *v;
			json_array_foreach(j, i, v) {
				char num[24];
				snprintf(num, sizeof num, "%zu", i);
				pb_push(b, num, false);
				int r = walk(f, v, b, next, t, err);
				b->len = save;
				b->s[save] = '\0';
				if (r < 0)
					return -1;
			}
		}
		return 0;
	}
	if (!json_is_object(j))
		return 0;
	char key[64];
	if (sl >= sizeof key)
		return 0; /* schema keys are short */
	memcpy(key, rest, sl);
	key[sl] = '\0';
	json_t *v = json_object_get(j, key);
	if (!v)
		return 0;
	pb_push(b, key, true);
	int r = walk(f, v, b, next, t, err);
	b->len = save;
	b->s[save] = '\0';
	return r;
}

int sp_lint_json_schema(const sp_lint_file *f, void *root, const char *prefix, const sp_lint_jschema *s, size_t n,
			sp_error *err)
{
	struct pbuf b = {.cap = 256};
	b.s = sp_xmalloc(b.cap);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		b.len = strlen(prefix);
		if (b.len + 1 > b.cap) {
			b.cap = b.len + 256;
			b.s = sp_xrealloc(b.s, b.cap);
		}
		memcpy(b.s, prefix, b.len + 1);
		rc = walk(f, root, &b, s[i].path, s[i].type, err);
	}
	free(b.s);
	return rc;
}
