/* YAML loading (libyaml) and small node helpers for compose and kube. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lint/yamldoc.h"

/* libyaml's time grows with the square of flow nesting ("[[[[..."): 100k
 * levels take 20 s. Refuse deep flow nesting before parsing. Quotes and
 * comments are skipped; a bracket inside a plain scalar may be counted,
 * which only matters past the limit. */
#define SP_YAML_MAX_FLOW_DEPTH 1000

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

/* the tag libyaml gives a node, compared without a strcmp of the common
 * "tag:yaml.org,2002:str" prefix on every call */
static bool has_tag(const yaml_node_t *n, const char *suffix)
{
	static const char base[] = "tag:yaml.org,2002:";
	const char *t = (const char *)n->tag;
	/* the byte after the prefix, read only when the tag is that long */
	return t && !memchr(t, '\0', sizeof base - 1) && t[sizeof base - 1] == suffix[0] &&
	       !strncmp(t, base, sizeof base - 1) && !strcmp(t + sizeof base - 1, suffix);
}

static bool is_merge_key(const yaml_node_t *k)
{
	if (!k || k->type != YAML_SCALAR_NODE)
		return false;
	/* the merge key is the scalar << (plain, or tagged !!merge) */
	return k->data.scalar.length == 2 && !memcmp(k->data.scalar.value, "<<", 2) &&
	       (k->data.scalar.style == YAML_PLAIN_SCALAR_STYLE || has_tag(k, "merge"));
}

/* Expand the merge keys of every mapping in place (YAML 1.1 merge: a
 * mapping or a sequence of mappings; the mapping's own keys win, then
 * earlier sources over later ones). Sources are expanded first; a source
 * that contains the mapping (a recursive alias) is skipped. The budget
 * bounds the work a merge bomb can cause. */
struct merge_ctx {
	yaml_document_t *d;
	unsigned char *state; /* 0 untouched, 1 in progress, 2 done */
	size_t budget;
};

static bool has_key(struct merge_ctx *m, int id, const yaml_node_t *key)
{
	yaml_node_t *map = yaml_document_get_node(m->d, id);
	size_t n = sp_y_npairs(map);
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *k = yaml_document_get_node(m->d, map->data.mapping.pairs.start[i].key);
		if (m->budget)
			m->budget--;
		if (k && k->type == YAML_SCALAR_NODE && k->data.scalar.length == key->data.scalar.length &&
		    !memcmp(k->data.scalar.value, key->data.scalar.value, key->data.scalar.length) && !is_merge_key(k))
			return true;
	}
	return false;
}

static int merge_into(struct merge_ctx *m, int id, int depth);

static int merge_source(struct merge_ctx *m, int id, int src, int depth)
{
	if (src == id || !sp_y_is_map(yaml_document_get_node(m->d, src)) || m->state[src] == 1)
		return 0;
	if (merge_into(m, src, depth + 1) < 0)
		return -1;
	size_t n = sp_y_npairs(yaml_document_get_node(m->d, src));
	for (size_t i = 0; i < n; i++) {
		yaml_node_pair_t pr = yaml_document_get_node(m->d, src)->data.mapping.pairs.start[i];
		yaml_node_t *k = yaml_document_get_node(m->d, pr.key);
		if (!k || k->type != YAML_SCALAR_NODE || is_merge_key(k) || has_key(m, id, k))
			continue;
		if (!m->budget)
			return -1;
		m->budget--;
		if (!yaml_document_append_mapping_pair(m->d, id, pr.key, pr.value))
			return -1;
	}
	return 0;
}

static int merge_into(struct merge_ctx *m, int id, int depth)
{
	if (m->state[id] || depth > 64)
		return 0;
	m->state[id] = 1;
	size_t n = sp_y_npairs(yaml_document_get_node(m->d, id));
	for (size_t i = 0; i < n; i++) {
		yaml_node_pair_t pr = yaml_document_get_node(m->d, id)->data.mapping.pairs.start[i];
		if (!is_merge_key(yaml_document_get_node(m->d, pr.key)))
			continue;
		yaml_node_t *v = yaml_document_get_node(m->d, pr.value);
		if (sp_y_is_map(v)) {
			if (merge_source(m, id, pr.value, depth) < 0)
				return -1;
		} else if (sp_y_is_seq(v)) {
			size_t nv = sp_y_len(v);
			for (size_t j = 0; j < nv; j++) {
				int src = yaml_document_get_node(m->d, pr.value)->data.sequence.items.start[j];
				if (merge_source(m, id, src, depth) < 0)
					return -1;
			}
		}
	}
	m->state[id] = 2;
	return 0;
}

static int expand_merges(const sp_lint_file *f, yaml_document_t *d, sp_error *err)
{
	size_t n = (size_t)(d->nodes.top - d->nodes.start);
	bool any = false;
	for (size_t i = 0; i < n && !any; i++)
		any = is_merge_key(&d->nodes.start[i]);
	if (!any)
		return 0;
	struct merge_ctx m = {.d = d, .state = sp_xcalloc(n + 1, 1), .budget = (size_t)1 << 22};
	int rc = 0;
	for (size_t i = 1; i <= n && rc == 0; i++)
		if (yaml_document_get_node(d, (int)i)->type == YAML_MAPPING_NODE)
			rc = merge_into(&m, (int)i, 0);
	free(m.state);
	if (rc < 0)
		return sp_usage(err, "%s:%zu:%zu: YAML merge keys (<<) expand to too many keys", f->path,
				d->start_mark.line + 1, d->start_mark.column + 1);
	return 0;
}

/* A key given twice in one mapping: kubectl and compose refuse it, and a
 * reviewer who reads the first value is shown a setting the tool ignores. */
struct keyref {
	const unsigned char *s;
	size_t len;
	const yaml_node_t *node;
};

static int keyref_cmp(const void *a, const void *b)
{
	const struct keyref *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->s, y->s, n);
	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node; /* nodes are in document order */
}

static int check_duplicates(const sp_lint_file *f, yaml_document_t *d, sp_error *err)
{
	size_t nn = (size_t)(d->nodes.top - d->nodes.start);
	struct keyref *keys = NULL;
	size_t cap = 0;
	int rc = 0;
	for (size_t i = 0; i < nn && rc == 0; i++) {
		yaml_node_t *m = &d->nodes.start[i];
		size_t np = sp_y_npairs(m), k = 0;
		if (np < 2)
			continue;
		if (np > cap) {
			cap = np;
			keys = sp_xrealloc(keys, cap * sizeof *keys);
		}
		for (size_t j = 0; j < np; j++) {
			yaml_node_t *kn = yaml_document_get_node(d, m->data.mapping.pairs.start[j].key);
			if (kn && kn->type == YAML_SCALAR_NODE && !is_merge_key(kn))
				keys[k++] = (struct keyref){kn->data.scalar.value, kn->data.scalar.length, kn};
		}
		if (k <= 8) { /* most mappings: compare pairwise */
			bool dup = false;
			for (size_t a = 1; a < k && !dup; a++)
				for (size_t b = 0; b < a && !dup; b++)
					dup = keys[a].len == keys[b].len && !memcmp(keys[a].s, keys[b].s, keys[a].len);
			if (!dup)
				continue;
		}
		qsort(keys, k, sizeof *keys, keyref_cmp);
		for (size_t j = 1; j < k; j++)
			if (keys[j].len == keys[j - 1].len && !memcmp(keys[j].s, keys[j - 1].s, keys[j].len) &&
			    keys[j].node != keys[j - 1].node) {
				const yaml_node_t *first = keys[j - 1].node, *again = keys[j].node;
				if (sp_y_line(again) < sp_y_line(first)) {
					const yaml_node_t *t = first;
					first = again;
					again = t;
				}
				rc = sp_usage(err, "%s:%u:%u: duplicate key '%.*s' (first at line %u)", f->path,
					      sp_y_line(again), sp_y_col(again), (int)(keys[j].len > 200 ? 200 : keys[j].len),
					      (const char *)keys[j].s, sp_y_line(first));
				break;
			}
	}
	free(keys);
	return rc;
}

sp_lint_kind sp_lint_yaml_doc_kind(yaml_document_t *d, yaml_node_t *root)
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

static int load_error(const sp_lint_file *f, yaml_parser_t *p, sp_error *err)
{
	if (p->error == YAML_MEMORY_ERROR)
		return sp_fail_errno(err, ENOMEM, "%s: out of memory reading YAML", f->path);
	const yaml_mark_t *m = p->problem ? &p->problem_mark : &p->context_mark;
	return sp_usage(err, "%s:%zu:%zu: invalid YAML: %s%s%s", f->path, m->line + 1, m->column + 1,
			p->problem ? p->problem : "parse error", p->context ? " " : "", p->context ? p->context : "");
}

/* Kubernetes JSON is read from libyaml's events into documents of its own
 * making, so that the items of a List ("kubectl get -o json" of a whole
 * cluster: tens of megabytes) are each built, linted and freed in turn:
 * memory is bounded by the largest item. The List itself keeps its other
 * members and an empty items sequence. The items' findings stand only if the
 * object turns out to be a List (kubectl writes "kind" after "items"). */
struct jloader {
	yaml_parser_t *p;
	const sp_lint_file *f;
	sp_error *err;
	int (*item)(void *ctx, yaml_document_t *d, yaml_node_t *root, size_t index, sp_error *err);
	void *ctx;
	size_t nitems;
};

static int jl_event(struct jloader *j, yaml_event_t *ev)
{
	if (!yaml_parser_parse(j->p, ev))
		return load_error(j->f, j->p, j->err);
	return 0;
}

static void set_marks(yaml_document_t *d, int id, const yaml_event_t *ev)
{
	yaml_node_t *n = yaml_document_get_node(d, id);
	n->start_mark = ev->start_mark;
	n->end_mark = ev->end_mark;
}

enum jl_role { JL_NORMAL, JL_ROOT, JL_ITEMS };
static int jl_node(struct jloader *j, yaml_document_t *d, yaml_event_t *ev, int depth, enum jl_role role, int *out);

/* a new document holding one List item, linted and freed */
static int jl_item(struct jloader *j, yaml_event_t *ev, int depth)
{
	yaml_document_t item;
	if (!yaml_document_initialize(&item, NULL, NULL, NULL, 1, 1))
		return sp_fail_errno(j->err, ENOMEM, "%s: out of memory reading JSON", j->f->path);
	int id = 0;
	int rc = jl_node(j, &item, ev, depth, JL_NORMAL, &id);
	if (rc == 0)
		rc = j->item(j->ctx, &item, yaml_document_get_node(&item, id), j->nitems++, j->err);
	yaml_document_delete(&item);
	return rc;
}

static int jl_node(struct jloader *j, yaml_document_t *d, yaml_event_t *ev, int depth, enum jl_role role, int *out)
{
	if (depth > SP_YAML_MAX_FLOW_DEPTH)
		return sp_usage(j->err, "%s:%zu:%zu: YAML nested deeper than %d levels", j->f->path,
				ev->start_mark.line + 1, ev->start_mark.column + 1, SP_YAML_MAX_FLOW_DEPTH);
	switch (ev->type) {
	case YAML_SCALAR_EVENT: {
		if (ev->data.scalar.anchor)
			return sp_usage(j->err, "%s:%zu:%zu: anchors are not JSON", j->f->path, ev->start_mark.line + 1,
					ev->start_mark.column + 1);
		int id = yaml_document_add_scalar(d, ev->data.scalar.tag, ev->data.scalar.value,
						  (int)ev->data.scalar.length, ev->data.scalar.style);
		if (!id)
			return sp_fail_errno(j->err, ENOMEM, "%s: out of memory reading JSON", j->f->path);
		set_marks(d, id, ev);
		*out = id;
		return 0;
	}
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT: {
		bool map = ev->type == YAML_MAPPING_START_EVENT;
		if (map ? ev->data.mapping_start.anchor != NULL : ev->data.sequence_start.anchor != NULL)
			return sp_usage(j->err, "%s:%zu:%zu: anchors are not JSON", j->f->path, ev->start_mark.line + 1,
					ev->start_mark.column + 1);
		int id = map ? yaml_document_add_mapping(d, ev->data.mapping_start.tag, ev->data.mapping_start.style)
			     : yaml_document_add_sequence(d, ev->data.sequence_start.tag, ev->data.sequence_start.style);
		if (!id)
			return sp_fail_errno(j->err, ENOMEM, "%s: out of memory reading JSON", j->f->path);
		set_marks(d, id, ev);
		int key = 0;
		for (;;) {
			yaml_event_t cev;
			if (jl_event(j, &cev) < 0)
				return -1;
			if (cev.type == YAML_SEQUENCE_END_EVENT || cev.type == YAML_MAPPING_END_EVENT) {
				yaml_document_get_node(d, id)->end_mark = cev.end_mark;
				yaml_event_delete(&cev);
				break;
			}
			int rc, child = 0;
			if (!map && role == JL_ITEMS) { /* one List item: linted and freed */
				rc = jl_item(j, &cev, depth + 1);
				yaml_event_delete(&cev);
				if (rc < 0)
					return -1;
				continue;
			}
			enum jl_role cr = JL_NORMAL;
			if (map && key && role == JL_ROOT && cev.type == YAML_SEQUENCE_START_EVENT) {
				yaml_node_t *k = yaml_document_get_node(d, key);
				if (k->data.scalar.length == 5 && !memcmp(k->data.scalar.value, "items", 5))
					cr = JL_ITEMS;
			}
			rc = jl_node(j, d, &cev, depth + 1, cr, &child);
			yaml_event_delete(&cev);
			if (rc < 0)
				return -1;
			if (map && !key) {
				if (yaml_document_get_node(d, child)->type != YAML_SCALAR_NODE)
					return sp_usage(j->err, "%s:%u:%u: a mapping key that is not a scalar", j->f->path,
							sp_y_line(yaml_document_get_node(d, child)),
							sp_y_col(yaml_document_get_node(d, child)));
				key = child;
				continue;
			}
			int ok = map ? yaml_document_append_mapping_pair(d, id, key, child)
				     : yaml_document_append_sequence_item(d, id, child);
			if (!ok)
				return sp_fail_errno(j->err, ENOMEM, "%s: out of memory reading JSON", j->f->path);
			key = 0;
		}
		*out = id;
		return 0;
	}
	case YAML_ALIAS_EVENT:
		return sp_usage(j->err, "%s:%zu:%zu: aliases are not JSON", j->f->path, ev->start_mark.line + 1,
				ev->start_mark.column + 1);
	case YAML_NO_EVENT:
	case YAML_STREAM_START_EVENT:
	case YAML_STREAM_END_EVENT:
	case YAML_DOCUMENT_START_EVENT:
	case YAML_DOCUMENT_END_EVENT:
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT: break;
	}
	return sp_usage(j->err, "%s:%zu:%zu: unexpected JSON structure", j->f->path, ev->start_mark.line + 1,
			ev->start_mark.column + 1);
}

/* the next document of the stream into doc; *end at the end of the stream */
static int jl_document(struct jloader *j, yaml_document_t *doc, bool *end)
{
	*end = false;
	for (;;) {
		yaml_event_t ev;
		if (jl_event(j, &ev) < 0)
			return -1;
		yaml_event_type_t t = ev.type;
		if (t == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			*end = true;
			return 0;
		}
		if (t != YAML_DOCUMENT_START_EVENT) {
			yaml_event_delete(&ev);
			continue;
		}
		yaml_event_delete(&ev);
		if (!yaml_document_initialize(doc, NULL, NULL, NULL, 1, 1))
			return sp_fail_errno(j->err, ENOMEM, "%s: out of memory reading JSON", j->f->path);
		int root = 0, rc = 0;
		for (;;) {
			if (jl_event(j, &ev) < 0) {
				yaml_document_delete(doc);
				return -1;
			}
			if (ev.type == YAML_DOCUMENT_END_EVENT) {
				yaml_event_delete(&ev);
				break;
			}
			rc = root ? sp_usage(j->err, "%s: unexpected JSON structure", j->f->path)
				  : jl_node(j, doc, &ev, 0, JL_ROOT, &root);
			yaml_event_delete(&ev);
			if (rc < 0) {
				yaml_document_delete(doc);
				return -1;
			}
		}
		if (!root) { /* an empty document: a node-less one reads as the end */
			yaml_document_delete(doc);
			continue;
		}
		return 0;
	}
}

struct item_ctx {
	sp_lint *l;
	size_t fi;
	struct sp_kube_file **kst;
	bool failed;
	sp_error first; /* the first item that could not be linted */
};

static int on_item(void *ctx, yaml_document_t *d, yaml_node_t *root, size_t index, sp_error *err)
{
	struct item_ctx *c = ctx;
	if (!*c->kst)
		*c->kst = sp_lint_kube_begin(c->l, c->fi);
	sp_error e;
	sp_error_clear(&e);
	if (check_duplicates(&c->l->files[c->fi], d, &e) < 0 ||
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
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p))
		return sp_fail_errno(err, 0, "%s: cannot initialise the YAML parser", f->path);
	struct reader r = {.s = f->text, .n = f->len, .json = json};
	yaml_parser_set_input(&p, read_handler, &r);
	struct sp_kube_file *kst = NULL;
	int rc = 0;
	bool any_doc = false;
	/* Kubernetes JSON: Lists item by item */
	bool stream = json && f->kind == SP_LK_KUBE;
	struct item_ctx ictx = {.l = l, .fi = fi, .kst = &kst};
	sp_error jerr;
	sp_error_clear(&jerr);
	struct jloader jl = {.p = &p, .f = f, .err = &jerr, .item = on_item, .ctx = &ictx};
	for (;;) {
		yaml_document_t doc;
		sp_error e;
		sp_error_clear(&e);
		size_t mark = l->nf;
		bool loaded;
		if (stream) {
			bool end = false;
			loaded = jl_document(&jl, &doc, &end) == 0;
			if (loaded && end)
				break;
		} else {
			loaded = yaml_parser_load(&p, &doc) != 0;
			if (!loaded)
				load_error(f, &p, &e);
		}
		if (!loaded) {
			if (stream)
				e = jerr;
			if (e.exit_code != SP_EXIT_INTERNAL)
				sp_lint_input_error(l, fi, &e);
			if (rc == 0 || e.exit_code == SP_EXIT_INTERNAL)
				*err = e;
			rc = -1;
			break;
		}
		yaml_node_t *root = yaml_document_get_root_node(&doc);
		if (!root) { /* the end of the stream */
			yaml_document_delete(&doc);
			break;
		}
		if (sp_y_null(root)) { /* an empty or comment-only document, a trailing --- */
			yaml_document_delete(&doc);
			continue;
		}
		any_doc = true;
		int dr = check_duplicates(f, &doc, &e);
		if (dr == 0)
			dr = expand_merges(f, &doc, &e);
		if (dr == 0 && f->kind == SP_LK_AUTO) {
			f->kind = sp_lint_yaml_doc_kind(&doc, root);
			f->is_sandbox = f->kind == SP_LK_COMPOSE;
		}
		if (dr == 0 && f->kind == SP_LK_KUBE) {
			if (!kst)
				kst = sp_lint_kube_begin(l, fi);
			if (stream)
				sp_lint_kube_items_judged(l, fi, kst, &doc, root, mark);
			dr = sp_lint_kube_doc(l, fi, kst, &doc, root, &e);
		} else if (dr == 0 && f->kind == SP_LK_COMPOSE) {
			dr = sp_lint_compose_doc(l, fi, &doc, root, &e);
		}
		yaml_document_delete(&doc);
		if (dr < 0) {
			sp_lint_input_error(l, fi, &e);
			if (rc == 0)
				*err = e;
			rc = -1;
		}
	}
	yaml_parser_delete(&p);
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

bool sp_y_is_map(yaml_node_t *n) { return n && n->type == YAML_MAPPING_NODE; }
bool sp_y_is_seq(yaml_node_t *n) { return n && n->type == YAML_SEQUENCE_NODE; }

const char *sp_y_str(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

bool sp_y_true(yaml_node_t *n)
{
	const char *s = sp_y_str(n);
	return s && (!strcasecmp(s, "true") || !strcasecmp(s, "yes") || !strcasecmp(s, "on") || !strcmp(s, "y"));
}

bool sp_y_false(yaml_node_t *n)
{
	const char *s = sp_y_str(n);
	return s && (!strcasecmp(s, "false") || !strcasecmp(s, "no") || !strcasecmp(s, "off") || !strcmp(s, "n"));
}

size_t sp_y_len(yaml_node_t *seq)
{
	return sp_y_is_seq(seq) ? (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start) : 0;
}

yaml_node_t *sp_y_at(yaml_document_t *d, yaml_node_t *seq, size_t i)
{
	if (i >= sp_y_len(seq))
		return NULL;
	return yaml_document_get_node(d, seq->data.sequence.items.start[i]);
}

size_t sp_y_npairs(yaml_node_t *map)
{
	return sp_y_is_map(map) ? (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start) : 0;
}

bool sp_y_null(const yaml_node_t *n)
{
	if (!n || n->type != YAML_SCALAR_NODE)
		return false;
	if (has_tag(n, "null"))
		return true;
	if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *s = (const char *)n->data.scalar.value;
	return !s[0] || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

void sp_y_pair(yaml_document_t *d, yaml_node_t *map, size_t i, yaml_node_t **k, yaml_node_t **v)
{
	*k = *v = NULL;
	if (i >= sp_y_npairs(map))
		return;
	yaml_node_pair_t *pr = &map->data.mapping.pairs.start[i];
	yaml_node_t *kn = yaml_document_get_node(d, pr->key);
	if (is_merge_key(kn))
		return;
	*k = kn;
	*v = yaml_document_get_node(d, pr->value);
	if (sp_y_null(*v))
		*v = NULL;
}

static yaml_node_t *find_pair(yaml_document_t *d, yaml_node_t *map, const char *key, bool want_key)
{
	size_t n = sp_y_npairs(map), kl = strlen(key);
	for (size_t i = 0; i < n; i++) {
		yaml_node_pair_t *pr = &map->data.mapping.pairs.start[i];
		yaml_node_t *k = yaml_document_get_node(d, pr->key);
		if (!k || k->type != YAML_SCALAR_NODE || k->data.scalar.length != kl ||
		    memcmp(k->data.scalar.value, key, kl) || is_merge_key(k))
			continue;
		if (want_key)
			return k;
		yaml_node_t *v = yaml_document_get_node(d, pr->value);
		return sp_y_null(v) ? NULL : v;
	}
	return NULL;
}

yaml_node_t *sp_y_key(yaml_document_t *d, yaml_node_t *map, const char *key)
{
	return find_pair(d, map, key, true);
}

yaml_node_t *sp_y_get(yaml_document_t *d, yaml_node_t *map, const char *key)
{
	return find_pair(d, map, key, false);
}

int sp_y_error(const sp_lint_file *f, const yaml_node_t *n, const char *pointer, sp_error *err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return sp_usage(err, "%s:%u:%u: %s: %s", f->path, sp_y_line(n), sp_y_col(n), pointer && *pointer ? pointer : "/",
			msg);
}

void sp_y_report(sp_lint *l, size_t fi, sp_lint_rule_id rule, const yaml_node_t *n, const char *pointer,
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

static const char *ynode_word(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE: return "a scalar";
	case YAML_SEQUENCE_NODE: return "a sequence";
	case YAML_MAPPING_NODE: return "a mapping";
	case YAML_NO_NODE: break;
	}
	return "nothing";
}

static bool ytype_ok(const yaml_node_t *n, char t)
{
	switch (t) {
	case 'm': return n->type == YAML_MAPPING_NODE;
	case 'q': return n->type == YAML_SEQUENCE_NODE;
	case 's': return n->type == YAML_SCALAR_NODE;
	case 'c': return n->type == YAML_MAPPING_NODE || n->type == YAML_SEQUENCE_NODE;
	default: return true;
	}
}

/* The walk keeps the path as segments and builds the JSON pointer only for
 * an error: a 4,000-document file has a million values to look at. */
struct yseg {
	const char *key; /* NULL: an array index */
	size_t klen, idx;
};

static int ywalk_error(const sp_lint_file *f, const yaml_node_t *n, const char *prefix, const struct yseg *segs,
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

static int ywalk(const sp_lint_file *f, yaml_document_t *d, yaml_node_t *n, const char *prefix, struct yseg *segs,
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
				yaml_node_t *k, *v;
				sp_y_pair(d, n, i, &k, &v);
				if (!k || !v)
					continue;
				const char *ks = sp_y_str(k);
				segs[nseg] = (struct yseg){.key = ks ? ks : "?", .klen = ks ? k->data.scalar.length : 1};
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
	yaml_node_t *v = NULL;
	size_t np = sp_y_npairs(n);
	for (size_t i = 0; i < np; i++) {
		yaml_node_pair_t *pr = &n->data.mapping.pairs.start[i];
		yaml_node_t *k = yaml_document_get_node(d, pr->key);
		if (k && k->type == YAML_SCALAR_NODE && k->data.scalar.length == sl &&
		    !memcmp(k->data.scalar.value, rest, sl) && !is_merge_key(k)) {
			v = yaml_document_get_node(d, pr->value);
			break;
		}
	}
	if (!v)
		return 0;
	segs[nseg] = (struct yseg){.key = rest, .klen = sl};
	return ywalk(f, d, v, prefix, segs, nseg + 1, next, t, err);
}

int sp_y_schema(const sp_lint_file *f, yaml_document_t *d, yaml_node_t *root, const char *prefix,
		const sp_lint_yschema *s, size_t n, sp_error *err)
{
	struct yseg segs[SP_LINT_MAX_DEPTH + 1];
	for (size_t i = 0; i < n; i++)
		if (ywalk(f, d, root, prefix, segs, 0, s[i].path, s[i].type, err) < 0)
			return -1;
	return 0;
}
