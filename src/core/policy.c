#include "core/policy.h"

#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/caps.h"
#include "core/check.h"
#include "core/util.h"

void sp_policy_init(sp_policy *p, const sp_registry *reg)
{
	memset(p, 0, sizeof *p);
	p->reg = reg;
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
	const sp_registry *reg = p->reg;
	memset(p, 0, sizeof *p);
	p->reg = reg;
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

static bool parse_int(const char *v, long long *out)
{
	unsigned long long u;
	if (sp_parse_u64(v, &u) < 0 || u > (unsigned long long)__LONG_LONG_MAX__)
		return false;
	*out = (long long)u;
	return true;
}

/* ---- core's own types ---- */

static int bool_parse(const char *v, sp_outcome *o)
{
	bool b;
	if (parse_bool(v, &b))
		return 0;
	sp_why(o, "'%s': expected true or false", v);
	return -1;
}

static int int_parse(const char *v, sp_outcome *o)
{
	long long n;
	if (parse_int(v, &n))
		return 0;
	sp_why(o, "'%s': expected a non-negative integer", v);
	return -1;
}

/* one capability name, as sp_caps_mask (the checks' own reader) takes it */
static int cap_parse(const char *v, sp_outcome *o)
{
	char *name = (char *)v;
	uint64_t mask;
	const char *bad = NULL;
	if (sp_caps_mask(&name, 1, &mask, &bad) == 0)
		return 0;
	sp_why(o, "unknown capability '%s'", bad ? bad : v);
	return -1;
}

static const sp_policy_type t_bool = {.name = "bool", .what = "true or false", .parse = bool_parse};
static const sp_policy_type t_int = {.name = "int", .what = "a non-negative integer", .parse = int_parse};
static const sp_policy_type t_list = {.name = "list", .what = "a list of words", .list = true};
static const sp_policy_type t_caps = {.name = "caps", .what = "capability names or ALL", .list = true, .parse = cap_parse};
static const sp_policy_type t_str = {.name = "str", .what = "text"};
static const sp_policy_type *const core_types[] = {&t_bool, &t_int, &t_list, &t_caps, &t_str};

const sp_policy_type *sp_policy_type_find(const sp_registry *reg, const char *name)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(core_types); i++)
		if (!strcmp(core_types[i]->name, name))
			return core_types[i];
	for (size_t i = 0; reg && i < reg->ntypes; i++)
		if (!strcmp(reg->types[i]->name, name))
			return reg->types[i];
	return NULL;
}

static int check_one(const sp_policy_type *t, const char *v, sp_outcome *o)
{
	char *why = o->why;
	size_t cap = sizeof o->why;
	if (t->choices) {
		bool ok = false;
		for (const char *const *c = t->choices; *c && !ok; c++)
			ok = !strcmp(*c, v);
		if (!ok) {
			size_t n = (size_t)snprintf(why, cap, "'%s': expected ", v);
			for (const char *const *c = t->choices; *c && n < cap; c++)
				n += (size_t)snprintf(why + n, cap - n, "%s%s", c == t->choices ? "" : c[1] ? ", "
													    : " or ",
						      *c);
			return -1;
		}
	}
	if (t->parse && t->parse(v, o) < 0) {
		if (!o->why[0])
			sp_why(o, "'%s': expected %s", v, t->what);
		return -1;
	}
	return 0;
}

int sp_policy_value_check(const sp_policy_type *t, const char *value, sp_outcome *o)
{
	o->errnum = 0;
	o->why[0] = '\0';
	if (!t->list) {
		if (*value || t == &t_bool || t == &t_int)
			return check_one(t, value, o);
		return 0;
	}
	sp_strv items;
	sp_strv_split(&items, value, ", \t");
	int r = 0;
	if (t->max && items.n > t->max) {
		sp_why(o, "%zu entries, at most %zu (the check probes no more)", items.n, t->max);
		r = -1;
	}
	for (size_t i = 0; i < items.n && r == 0; i++)
		r = check_one(t, items.v[i], o);
	sp_strv_free(&items);
	return r;
}

/* The "key[:type]" entry for key in a "k1:t1,k2:t2" declaration (its
 * length in *len), or NULL. */
static const char *spec_in(const char *k, const char *key, size_t *len)
{
	size_t klen = strlen(key);
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
	return NULL;
}

/* the declaration of key by some check (or the runner), or NULL */
static const char *key_spec(const sp_registry *reg, const char *key, size_t *len)
{
	if (!reg)
		return NULL;
	for (size_t i = 0; i < reg->nchecks; i++) {
		const char *k = spec_in(reg->checks[i]->policy_keys, key, len);
		if (k)
			return k;
	}
	return spec_in(reg->runner_keys, key, len);
}

const sp_policy_type *sp_policy_key_type(const sp_registry *reg, const char *key, const char **type_name)
{
	static char name[64];
	size_t len;
	const char *k = key_spec(reg, key, &len);
	*type_name = NULL;
	if (!k)
		return NULL;
	const char *colon = memchr(k, ':', len);
	if (!colon)
		return &t_str;
	snprintf(name, sizeof name, "%.*s", (int)(len - (size_t)(colon + 1 - k)), colon + 1);
	*type_name = name;
	return sp_policy_type_find(reg, name);
}

/* the policy's own keys, which no check declares */
static const char *const global_keys[] = {"policy.name", "policy.description", "policy.base"};

bool sp_policy_key_known(const sp_registry *reg, const char *key)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(global_keys); i++)
		if (!strcmp(key, global_keys[i]))
			return true;
	size_t len;
	return key_spec(reg, key, &len) != NULL;
}

/* the value against the key's declared type; place names where it came from */
static int validate(const sp_registry *reg, const char *key, const char *value, const char *place, sp_error *err)
{
	const char *tname;
	const sp_policy_type *t = sp_policy_key_type(reg, key, &tname);
	if (!t)
		return sp_fail_errno(err, EINVAL, "%s: %s: declared with type '%s', which no check registers (internal)",
				     place, key, tname ? tname : "?");
	sp_outcome o = {0};
	if (sp_policy_value_check(t, value, &o) < 0)
		return sp_usage(err, "%s: %s: %.399s", place, key, o.why);
	return 0;
}

/* Validate and store one key=value; origin says where it came from (and is
 * kept), place is how an error names it. */
static int assign(sp_policy *p, const char *key, const char *value, const char *origin, const char *place,
		  sp_error *err)
{
	if (!*key)
		return sp_usage(err, "%s: empty policy key", place);
	if (sp_startswith(key, "expect.")) {
		const char *glob = key + 7;
		bool any = false;
		for (size_t i = 0; p->reg && i < p->reg->nchecks && !any; i++)
			any = sp_glob_match(glob, p->reg->checks[i]->id);
		if (!any)
			return sp_usage(err, "%s: [expect] names '%s', which matches no check id", place, glob);
		if (strcmp(value, "required") && strcmp(value, "advisory") && strcmp(value, "off"))
			return sp_usage(err, "%s: expect.%s = '%s': must be required, advisory or off", place, glob,
					value);
		put(p, key, value, origin, true);
		return 0;
	}
	if (!sp_policy_key_known(p->reg, key))
		return sp_usage(err, "%s: unknown policy key '%s' (no check reads it)", place, key);
	if (!strcmp(key, "policy.base"))
		return 0; /* handled by the loader */
	if (!sp_startswith(key, "policy.") && validate(p->reg, key, value, place, err) < 0)
		return -1;
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
		sp_policy_init(&base, st->p->reg);
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
		const char *tname;
		const sp_policy_type *t = sp_policy_key_type(st->p->reg, key, &tname);
		if (t == &t_bool || t == &t_int) {
			sp_usage(st->err, "%s: %s given twice", origin, key);
			st->failed = 1;
			return 0;
		}
		/* the whole value again: the line adds to what its type must accept */
		_cleanup_free_ char *joined = sp_xasprintf("%s,%s", sp_policy_get(st->p, key), value);
		if (validate(st->p->reg, key, joined, origin, st->err) < 0) {
			st->failed = 1;
			return 0;
		}
		put(st->p, key, joined, origin, true);
		return 1;
	}
	snprintf(st->last_key, sizeof st->last_key, "%s", key);
	if (assign(st->p, key, value, origin, origin, st->err) < 0) {
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
	/* a file that sets no key and names no base would be judged by the checks'
	 * built-in defaults, which are no profile: refuse it rather than guess */
	bool any = false;
	for (size_t i = 0; i < p->n && !any; i++)
		any = strncmp(p->e[i].key, "policy.", 7) != 0;
	if (!any)
		return sp_usage(err, "policy %s: sets no key and names no base profile (add '[policy] base = strict' to inherit one)",
				path);
	if (!p->name)
		p->name = sp_xstrdup(path);
	return 0;
}

/* a value as an error shows it: at most 80 characters, and a URL's
 * credentials ("scheme://user:secret@host") never */
static void show_value(const char *v, char *out, size_t size)
{
	const char *scheme = strstr(v, "://");
	const char *at = scheme ? strchr(scheme + 3, '@') : NULL;
	const char *slash = scheme ? strchr(scheme + 3, '/') : NULL;
	if (at && (!slash || at < slash))
		snprintf(out, size, "%.*s<redacted>%.60s", (int)(scheme + 3 - v), v, at);
	else
		snprintf(out, size, "%.80s%s", v, strlen(v) > 80 ? "..." : "");
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
	char shown[100];
	show_value(v, shown, sizeof shown);
	_cleanup_free_ char *place = sp_xasprintf("--set %s=%s", k, shown);
	return assign(p, k, v, origin, place, err);
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
	long long n;
	if (!v || !parse_int(v, &n))
		return def;
	return n;
}
