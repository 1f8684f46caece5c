/* A compose or kube file's YAML run: the file read into the shared tree
 * (src/yaml/ytree.c) one document at a time, each document's kind told, and
 * handed to compose.c or kube.c. The node helpers they use are in yamldoc.c. */
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
