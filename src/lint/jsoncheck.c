/* Type checks for the JSON kinds, driven by a small path table. */
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

/* walk the rest of path (segments separated by '/') from j at pointer ptr */
static int walk(const sp_lint_file *f, json_t *j, const char *ptr, const char *rest, char t, sp_error *err)
{
	if (!*rest) {
		if (!type_ok(j, t))
			return sp_lint_json_type_error(f, ptr, err, "expected %s, got %s", type_word(t), json_word(j));
		return 0;
	}
	rest++; /* the '/' */
	const char *end = strchr(rest, '/');
	size_t sl = end ? (size_t)(end - rest) : strlen(rest);
	const char *next = rest + sl;
	if (sl == 1 && rest[0] == '*') {
		if (json_is_object(j)) {
			const char *k;
			json_t *v;
			json_object_foreach(j, k, v) {
				_cleanup_free_ char *p = sp_jptr_join(ptr, k);
				if (walk(f, v, p, next, t, err) < 0)
					return -1;
			}
		} else if (json_is_array(j)) {
			size_t i;
			json_t *v;
			json_array_foreach(j, i, v) {
				_cleanup_free_ char *p = sp_jptr_index(ptr, i);
				if (walk(f, v, p, next, t, err) < 0)
					return -1;
			}
		}
		return 0;
	}
	if (!json_is_object(j))
		return 0;
	_cleanup_free_ char *key = sp_xstrndup(rest, sl);
	json_t *v = json_object_get(j, key);
	if (!v)
		return 0;
	_cleanup_free_ char *p = sp_jptr_join(ptr, key);
	return walk(f, v, p, next, t, err);
}

int sp_lint_json_schema(const sp_lint_file *f, void *root, const char *prefix, const sp_jschema *s, size_t n,
			sp_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (walk(f, root, prefix, s[i].path, s[i].type, err) < 0)
			return -1;
	return 0;
}
