/* YAML loading (the shared tree, src/yaml/ytree.c) and small node helpers for
 * compose and kube. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lint/yamldoc.h"

/* libyaml's time grows with the square of flow nesting ("[[[[..."): 100k
 * levels take 20 s. Refuse deep flow nesting (SP_YAML_MAX_FLOW_DEPTH)
 * before parsing. Quotes and comments are skipped; a bracket inside a plain
 * scalar may be counted, which only matters past the limit. */

static int flow_depth_check(const sp_lint_file *f, sp_error *err)
{
	const char *t = f->text;
	size_t n = f->len, line = 1, line_start = 0;
	int depth = 0;
	char quote = 0;
	for (size_t i = 0; i < n; i++) {
		char c = t[i], prev = i ? t[i - 1] : '\n';
		if (c == '\n') {
			line++;
			line_start = i + 1;
		}
		if (quote) {
			if (quote == '"' && c == '\\')
				i++;
			else if (c == quote)
				quote = 0;
			continue;
		}
		bool boundary = strchr(" \t\n[{,:", prev) != NULL;
		if ((c == '"' || c == '\'') && boundary) {
			quote = c;
		} else if (c == '#' && (prev == ' ' || prev == '\t' || prev == '\n')) {
			while (i + 1 < n && t[i + 1] != '\n')
				i++;
		} else if (c == '[' || c == '{') {
			if (++depth > SP_YAML_MAX_FLOW_DEPTH)
				return sp_usage(err, "%s:%zu:%zu: YAML nested deeper than %d levels", f->path, line,
						i - line_start + 1, SP_YAML_MAX_FLOW_DEPTH);
		} else if ((c == ']' || c == '}') && depth > 0) {
			depth--;
		}
	}
	return 0;
}

/* The reader libyaml pulls from: the file's text, and for JSON two repairs
 * that make kubectl's output YAML that libyaml reads (JSON is YAML 1.2, but
 * libyaml is 1.1): a UTF-16 surrogate pair escape (\ud83d\ude00, what
 * Python's json writes for characters outside the BMP) becomes the \U form,
 * and a second top-level value starting a line ("}\n{" between objects that
 * kubectl prints one after another) becomes a new document ("--- {"). */
struct reader {
	const char *s;
	size_t n, i;
	bool json, in_str, top_done;
	int depth;
	char pend[16];
	size_t np, pp;
};

static int hexv(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static long hex4(const char *p)
{
	long v = 0;
	for (int k = 0; k < 4; k++) {
		int h = hexv(p[k]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

/* the next byte(s) of JSON input into r->pend */
static void json_step(struct reader *r)
{
	const char *s = r->s;
	size_t i = r->i;
	char c = s[i];
	r->np = r->pp = 0;
	if (r->in_str) {
		if (c == '\\' && i + 1 < r->n) {
			if (s[i + 1] == 'u' && i + 12 <= r->n && s[i + 6] == '\\' && s[i + 7] == 'u') {
				long hi = hex4(s + i + 2), lo = hex4(s + i + 8);
				if (hi >= 0xD800 && hi <= 0xDBFF && lo >= 0xDC00 && lo <= 0xDFFF) {
					unsigned long cp =
						0x10000ul + (((unsigned long)hi - 0xD800) << 10) + ((unsigned long)lo - 0xDC00);
					snprintf(r->pend, sizeof r->pend, "\\U%08lX", cp);
					r->np = 10;
					r->i = i + 12;
					return;
				}
			}
			r->pend[0] = c;
			r->pend[1] = s[i + 1];
			r->np = 2;
			r->i = i + 2;
			return;
		}
		if (c == '"')
			r->in_str = false;
	} else if (c == '"') {
		r->in_str = true;
	} else if (c == '{' || c == '[') {
		if (r->depth == 0 && r->top_done && (i == 0 || s[i - 1] == '\n')) {
			memcpy(r->pend, "--- ", 4);
			r->np = 4;
		}
		r->depth++;
	} else if ((c == '}' || c == ']') && r->depth > 0) {
		if (--r->depth == 0)
			r->top_done = true;
	}
	r->pend[r->np++] = c;
	r->i = i + 1;
}

static int read_handler(void *data, unsigned char *buf, size_t size, size_t *got)
{
	struct reader *r = data;
	size_t k = 0;
	if (!r->json) {
		k = r->n - r->i < size ? r->n - r->i : size;
		memcpy(buf, r->s + r->i, k);
		r->i += k;
		*got = k;
		return 1;
	}
	while (k < size) {
		if (r->pp == r->np) {
			if (r->i >= r->n)
				break;
			/* the bytes that change no state go straight through */
			const char *s = r->s;
			size_t i = r->i, n = r->n;
			while (k < size && i < n) {
				char c = s[i];
				if (c == '"' || c == '\\' || (!r->in_str && (c == '{' || c == '[' || c == '}' || c == ']')))
					break;
				buf[k++] = (unsigned char)c;
				i++;
			}
			r->i = i;
			if (k == size || i >= n)
				continue;
			json_step(r);
		}
		while (k < size && r->pp < r->np)
			buf[k++] = (unsigned char)r->pend[r->pp++];
	}
	*got = k;
	return 1;
}

sp_lint_kind sp_lint_yaml_doc_kind(sp_ydoc *d, sp_ynode *root)
{
	if (!sp_y_is_map(root))
		return SP_LK_AUTO;
	if (sp_y_get(d, root, "apiVersion") && sp_y_get(d, root, "kind"))
		return SP_LK_KUBE;
	static const char *const compose_keys[] = {"services", "networks", "volumes", "configs", "secrets", "include"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(compose_keys); i++)
		if (sp_y_key(d, root, compose_keys[i]))
			return SP_LK_COMPOSE;
	return SP_LK_AUTO;
}

struct item_ctx {
	sp_lint *l;
	size_t fi;
	struct sp_kube_file **kst;
	bool failed;
	sp_error first; /* the first item that could not be linted */
};

static int on_item(void *ctx, sp_ydoc *d, sp_ynode *root, size_t index, sp_error *err)
{
	struct item_ctx *c = ctx;
	if (!*c->kst)
		*c->kst = sp_lint_kube_begin(c->l, c->fi);
	sp_error e;
	sp_error_clear(&e);
	if (sp_ydoc_check_dups(d, c->l->files[c->fi].path, &e) < 0 ||
	    sp_lint_kube_item(c->l, c->fi, *c->kst, d, root, index, &e) < 0) {
		if (e.exit_code == SP_EXIT_INTERNAL) {
			*err = e;
			return -1;
		}
		sp_lint_input_error(c->l, c->fi, &e);
		if (!c->failed)
			c->first = e;
		c->failed = true;
	}
	return 0;
}

int sp_lint_yaml_run(sp_lint *l, size_t fi, bool json, sp_error *err)
{
	sp_lint_file *f = &l->files[fi];
	if (flow_depth_check(f, err) < 0) {
		sp_lint_input_error(l, fi, err);
		return -1;
	}
	struct reader r = {.s = f->text, .n = f->len, .json = json};
	struct sp_kube_file *kst = NULL;
	int rc = 0;
	bool any_doc = false;
	/* Kubernetes JSON: Lists item by item */
	bool stream = json && f->kind == SP_LK_KUBE;
	struct item_ctx ictx = {.l = l, .fi = fi, .kst = &kst};
	sp_ystream *ys = sp_ystream_new(stream ? SP_YM_JSON : SP_YM_YAML, f->path, read_handler, &r,
					stream ? on_item : NULL, &ictx, err);
	if (!ys)
		return -1;
	for (;;) {
		sp_ydoc *doc;
		sp_error e;
		sp_error_clear(&e);
		size_t mark = l->nf;
		if (sp_ystream_next(ys, &doc, &e) < 0) {
			if (e.exit_code != SP_EXIT_INTERNAL)
				sp_lint_input_error(l, fi, &e);
			if (rc == 0 || e.exit_code == SP_EXIT_INTERNAL)
				*err = e;
			rc = -1;
			break;
		}
		if (!doc) /* the end of the stream */
			break;
		sp_ynode *root = doc->root;
		if (!root || sp_y_null(root)) { /* an empty or comment-only document, a trailing --- */
			sp_ydoc_free(doc);
			continue;
		}
		any_doc = true;
		int dr = sp_ydoc_check_dups(doc, f->path, &e);
		if (dr == 0)
			dr = sp_ydoc_expand_merges(doc, f->path, &e);
		if (dr == 0 && f->kind == SP_LK_AUTO) {
			f->kind = sp_lint_yaml_doc_kind(doc, root);
			f->is_sandbox = f->kind == SP_LK_COMPOSE;
		}
		if (dr == 0 && f->kind == SP_LK_KUBE) {
			if (!kst)
				kst = sp_lint_kube_begin(l, fi);
			if (stream)
				sp_lint_kube_items_judged(l, fi, kst, doc, root, mark);
			dr = sp_lint_kube_doc(l, fi, kst, doc, root, &e);
		} else if (dr == 0 && f->kind == SP_LK_COMPOSE) {
			dr = sp_lint_compose_doc(l, fi, doc, root, &e);
		}
		sp_ydoc_free(doc);
		if (dr < 0) {
			sp_lint_input_error(l, fi, &e);
			if (rc == 0)
				*err = e;
			rc = -1;
		}
	}
	sp_ystream_free(ys);
	if (rc == 0 && ictx.failed) {
		*err = ictx.first;
		rc = -1;
	}
	if (kst)
		sp_lint_kube_end(l, fi, kst);
	if (rc == 0 && f->kind == SP_LK_AUTO) {
		sp_usage(err, "%s: cannot tell what kind of config this is (%s); use --kind", f->path,
			 any_doc ? "YAML without 'services', 'volumes' or 'apiVersion'/'kind'" : "no YAML document in it");
		sp_lint_input_error(l, fi, err);
		rc = -1;
	}
	return rc;
}

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
