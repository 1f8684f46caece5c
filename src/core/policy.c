#include "core/policy.h"

#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/caps.h"
#include "core/check.h"
#include "core/util.h"

void sp_policy_init(sp_policy *p)
{
	memset(p, 0, sizeof *p);
}

void sp_policy_free(sp_policy *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->e[i].key);
		free(p->e[i].value);
		free(p->e[i].origin);
	}
	free(p->e);
	free(p->name);
	memset(p, 0, sizeof *p);
}

static sp_policy_entry *find_entry(const sp_policy *p, const char *key)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->e[i].key, key) == 0)
			return &p->e[i];
	return NULL;
}

static void put(sp_policy *p, const char *key, const char *value, const char *origin, bool overwrite)
{
	sp_policy_entry *e = find_entry(p, key);
	if (e) {
		if (!overwrite)
			return;
		free(e->value);
		free(e->origin);
	} else {
		p->e = sp_xrealloc(p->e, (p->n + 1) * sizeof *p->e);
		e = &p->e[p->n++];
		e->key = sp_xstrdup(key);
	}
	e->value = sp_xstrdup(value);
	e->origin = sp_xstrdup(origin);
}

static bool parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1"};
	static const char *const no[] = {"false", "no", "off", "0"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(yes); i++)
		if (strcasecmp(v, yes[i]) == 0)
			return *out = true, true;
	for (size_t i = 0; i < SP_ARRAY_SIZE(no); i++)
		if (strcasecmp(v, no[i]) == 0)
			return *out = false, true;
	return false;
}

/* The "key[:type]" entry for key in some check's policy_keys (its length
 * in *len), or NULL when no check declares the key. */
static const char *key_spec(const char *key, size_t *len)
{
	size_t klen = strlen(key);
	for (size_t i = 0; i < sp_checks_count; i++) {
		const char *k = sp_checks[i]->policy_keys;
		while (k && *k) {
			*len = strcspn(k, ",");
			const char *colon = memchr(k, ':', *len);
			size_t namelen = colon ? (size_t)(colon - k) : *len;
			if (namelen == klen && strncmp(k, key, klen) == 0)
				return k;
			k += *len;
			if (*k == ',')
				k++;
		}
	}
	return NULL;
}

/* Type of a key as declared by the checks that read it ("key:type"). */
static const char *key_type(const char *key)
{
	size_t len;
	const char *k = key_spec(key, &len);
	const char *colon = k ? memchr(k, ':', len) : NULL;
	if (!colon)
		return "str";
	if (!strncmp(colon + 1, "bool", 4))
		return "bool";
	if (!strncmp(colon + 1, "int", 3))
		return "int";
	if (!strncmp(colon + 1, "caps", 4))
		return "caps";
	return "str";
}

/* keys no single check declares: the policy's own, and the runner's */
static const char *const global_keys[] = {"policy.name", "policy.description", "policy.base",
					  "kernel.separate_kernel"};

bool sp_policy_key_known(const char *key)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(global_keys); i++)
		if (!strcmp(key, global_keys[i]))
			return true;
	size_t len;
	return key_spec(key, &len) != NULL;
}

/* Validate and store one key=value; origin says where it came from. */
static int assign(sp_policy *p, const char *key, const char *value, const char *origin, sp_error *err)
{
	if (!*key)
		return sp_usage(err, "%s: empty policy key", origin);
	if (sp_startswith(key, "expect.")) {
		const char *glob = key + 7;
		bool any = false;
		for (size_t i = 0; i < sp_checks_count && !any; i++)
			any = sp_check_glob_match(glob, sp_checks[i]->id);
		if (!any)
			return sp_usage(err, "%s: [expect] names '%s', which matches no check id", origin, glob);
		if (strcmp(value, "required") && strcmp(value, "advisory") && strcmp(value, "off"))
			return sp_usage(err, "%s: expect.%s = '%s': must be required, advisory or off", origin,
					glob, value);
		put(p, key, value, origin, true);
		return 0;
	}
	if (!sp_policy_key_known(key))
		return sp_usage(err, "%s: unknown policy key '%s' (no check reads it)", origin, key);
	const char *type = key_type(key);
	if (!strcmp(type, "bool")) {
		bool b;
		if (!parse_bool(value, &b))
			return sp_usage(err, "%s: %s = '%s': expected true or false", origin, key, value);
	} else if (!strcmp(type, "int")) {
		unsigned long long v;
		if (sp_parse_u64(value, &v) < 0)
			return sp_usage(err, "%s: %s = '%s': expected a non-negative integer", origin, key, value);
	} else if (!strcmp(type, "caps")) {
		sp_strv names;
		uint64_t mask;
		const char *bad = NULL;
		sp_strv_split(&names, value, ", \t");
		int r = sp_caps_mask(names.v, names.n, &mask, &bad);
		if (r < 0) {
			sp_usage(err, "%s: %s: unknown capability '%s'", origin, key, bad);
			sp_strv_free(&names);
			return -1;
		}
		sp_strv_free(&names);
	}
	if (!strcmp(key, "kernel.separate_kernel")) {
		sp_strv kinds;
		sp_strv_split(&kinds, value, ", \t");
		for (size_t i = 0; i < kinds.n; i++)
			if (strcmp(kinds.v[i], "user-space") && strcmp(kinds.v[i], "guest")) {
				sp_usage(err, "%s: kernel.separate_kernel: '%s' is not a kernel boundary (user-space, guest)",
					 origin, kinds.v[i]);
				sp_strv_free(&kinds);
				return -1;
			}
		sp_strv_free(&kinds);
	}
	if (!strcmp(key, "policy.base"))
		return 0; /* handled by the loader */
	put(p, key, value, origin, true);
	if (!strcmp(key, "policy.name")) {
		free(p->name);
		p->name = sp_xstrdup(value);
	}
	return 0;
}

struct parse_state {
	sp_policy *p;
	const char *origin;
	const char *text; /* reader position */
	int line;
	sp_error *err;
	int failed;
	int depth;
	int too_long; /* line number of an over-long line, 0 if none */
	char last_key[256];
};

static char *reader(char *str, int num, void *stream)
{
	struct parse_state *st = stream;
	if (!*st->text)
		return NULL;
	const char *nl = strchr(st->text, '\n');
	size_t len = nl ? (size_t)(nl - st->text) + 1 : strlen(st->text);
	st->line++;
	if (len > (size_t)num - 1) {
		/* inih would split the line and misread the rest: refuse it */
		if (!st->too_long)
			st->too_long = st->line;
		len = (size_t)num - 1;
		memcpy(str, st->text, len);
		str[len] = '\0';
		st->text += nl ? (size_t)(nl - st->text) + 1 : strlen(st->text);
		return str;
	}
	memcpy(str, st->text, len);
	str[len] = '\0';
	st->text += len;
	return str;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse_state *st = user;
	if (st->failed)
		return 0;
	/* the reader already counted the newline of the current line */
	char origin[512];
	snprintf(origin, sizeof origin, "%s:%d", st->origin, st->line);
	_cleanup_free_ char *key = *section ? sp_xasprintf("%s.%s", section, name) : sp_xstrdup(name);
	if (!strcmp(key, "policy.base")) {
		if (st->depth > 0) {
			sp_usage(st->err, "%s: a base profile cannot name another base", origin);
			st->failed = 1;
			return 0;
		}
		sp_policy base;
		sp_policy_init(&base);
		if (sp_policy_load_profile(&base, value, st->err) < 0) {
			sp_error_prefix(st->err, "%s", origin);
			st->failed = 1;
			sp_policy_free(&base);
			return 0;
		}
		for (size_t i = 0; i < base.n; i++)
			put(st->p, base.e[i].key, base.e[i].value, base.e[i].origin, false);
		if (!st->p->name)
			st->p->name = sp_xstrdup(value);
		sp_policy_free(&base);
		return 1;
	}
	/* an indented continuation line repeats the key: append to lists */
	if (!strcmp(key, st->last_key) && sp_policy_get(st->p, key)) {
		const char *type = key_type(key);
		if (!strcmp(type, "bool") || !strcmp(type, "int")) {
			sp_usage(st->err, "%s: %s given twice", origin, key);
			st->failed = 1;
			return 0;
		}
		_cleanup_free_ char *joined = sp_xasprintf("%s,%s", sp_policy_get(st->p, key), value);
		put(st->p, key, joined, origin, true);
		return 1;
	}
	snprintf(st->last_key, sizeof st->last_key, "%s", key);
	if (assign(st->p, key, value, origin, st->err) < 0) {
		st->failed = 1;
		return 0;
	}
	return 1;
}

static int load_text(sp_policy *p, const char *text, const char *origin, int depth, sp_error *err)
{
	struct parse_state st = {.p = p, .origin = origin, .text = text, .line = 0, .err = err, .depth = depth};
	int r = ini_parse_stream(reader, &st, handler, &st);
	if (st.failed)
		return -1;
	if (st.too_long)
		return sp_usage(err, "%s:%d: line too long (at most 198 characters; continue a list on an indented line)",
				origin, st.too_long);
	if (r > 0)
		return sp_usage(err, "%s:%d: malformed line (expected [section] or key = value)", origin, r);
	if (r < 0)
		return sp_fail_errno(err, ENOMEM, "%s: cannot parse", origin);
	return 0;
}

int sp_policy_load_string(sp_policy *p, const char *text, const char *origin, sp_error *err)
{
	return load_text(p, text, origin, 1, err);
}

int sp_policy_load_profile(sp_policy *p, const char *name, sp_error *err)
{
	for (const struct sp_embedded_policy *e = sp_embedded_policies; e->name; e++) {
		if (strcmp(e->name, name) == 0) {
			_cleanup_free_ char *origin = sp_xasprintf("profile %s", name);
			if (load_text(p, e->text, origin, 1, err) < 0)
				return -1;
			if (!p->name)
				p->name = sp_xstrdup(name);
			return 0;
		}
	}
	char names[256] = "";
	for (const struct sp_embedded_policy *e = sp_embedded_policies; e->name; e++) {
		size_t n = strlen(names);
		snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "", e->name);
	}
	return sp_usage(err, "unknown profile '%s' (shipped: %s)", name, names);
}

int sp_policy_load_file(sp_policy *p, const char *path, sp_error *err)
{
	int e = 0;
	size_t len;
	_cleanup_free_ char *text = sp_read_file_alloc(path, 1 << 20, &len, &e);
	if (!text)
		return sp_usage(err, "policy %s: cannot read: %s", path, strerror(e));
	if (strlen(text) != len)
		return sp_usage(err, "policy %s: contains a NUL byte", path);
	if (load_text(p, text, path, 0, err) < 0)
		return -1;
	if (!p->name)
		p->name = sp_xstrdup(path);
	return 0;
}

int sp_policy_set(sp_policy *p, const char *assignment, sp_error *err)
{
	const char *eq = strchr(assignment, '=');
	if (!eq)
		return sp_usage(err, "--set '%s': expected KEY=VALUE", assignment);
	_cleanup_free_ char *key = sp_xstrndup(assignment, (size_t)(eq - assignment));
	_cleanup_free_ char *value = sp_xstrdup(eq + 1);
	char *k = sp_trim(key), *v = sp_trim(value);
	_cleanup_free_ char *origin = sp_xasprintf("--set %s", k);
	return assign(p, k, v, origin, err);
}

const char *sp_policy_get(const sp_policy *p, const char *key)
{
	sp_policy_entry *e = find_entry(p, key);
	return e ? e->value : NULL;
}

void sp_policy_list(const sp_policy *p, const char *key, sp_strv *out)
{
	sp_strv_split(out, sp_policy_get(p, key), ", \t");
}

bool sp_policy_bool(const sp_policy *p, const char *key, bool def)
{
	const char *v = sp_policy_get(p, key);
	bool b;
	if (!v || !parse_bool(v, &b))
		return def;
	return b;
}

long long sp_policy_int(const sp_policy *p, const char *key, long long def)
{
	const char *v = sp_policy_get(p, key);
	unsigned long long u;
	if (!v || sp_parse_u64(v, &u) < 0 || u > (unsigned long long)__LONG_LONG_MAX__)
		return def;
	return (long long)u;
}
