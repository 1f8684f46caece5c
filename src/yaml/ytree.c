/* libyaml events -> sp_ynode documents (see ytree.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "yaml/ytree.h"
#include "core/util.h"

#define SP_YAML_MAX_DEPTH 32
#define SP_YAML_MAX_NODES 200000
#define YBLOCK 256

struct sp_yblock {
	struct sp_yblock *next;
	size_t used;
	sp_ynode n[YBLOCK];
};

#define YM_PLAIN (-1) /* the mode of sp_yaml_parse (beside sp_ymode's) */

/* ---- documents */

static sp_ydoc *doc_new(unsigned line, unsigned col)
{
	sp_ydoc *d = sp_xcalloc(1, sizeof *d);
	d->line = line;
	d->col = col;
	d->dup_map = SIZE_MAX;
	return d;
}

static sp_ynode *node_new(sp_ydoc *d, sp_ynode_kind kind, const yaml_mark_t *m)
{
	if (!d->last || d->last->used == YBLOCK) {
		struct sp_yblock *b = sp_xmalloc(sizeof *b);
		b->next = NULL;
		b->used = 0;
		if (d->last)
			d->last->next = b;
		else
			d->first = b;
		d->last = b;
	}
	sp_ynode *n = &d->last->n[d->last->used++];
	memset(n, 0, sizeof *n);
	n->kind = kind;
	n->line = (int)m->line + 1;
	n->col = (int)m->column + 1;
	n->id = d->nnodes++;
	return n;
}

void sp_ydoc_free(sp_ydoc *d)
{
	if (!d)
		return;
	for (struct sp_yblock *b = d->first, *next; b; b = next) {
		next = b->next;
		for (size_t i = 0; i < b->used; i++) {
			free(b->n[i].items);
			free(b->n[i].str);
			free(b->n[i].tag);
		}
		free(b);
	}
	free(d);
}

static void node_append(sp_ynode *n, sp_ynode *a, sp_ynode *b)
{
	size_t used = n->kind == SP_YN_MAP ? 2 * n->n : n->n;
	size_t need = used + (b ? 2 : 1);
	if (need > n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 8;
		n->cap = cap < need ? need : cap;
		n->items = sp_xrealloc(n->items, n->cap * sizeof *n->items);
	}
	n->items[used] = a;
	if (b)
		n->items[used + 1] = b;
	n->n++;
}

void sp_yaml_printable(const char *s, char *out, size_t size)
{
	size_t len = strlen(s), n = 0;
	bool cut = len + 1 > size;
	size_t keep = cut ? (size > 4 ? size - 4 : 0) : len;
	for (; n < keep; n++)
		out[n] = (unsigned char)s[n] < 0x20 || s[n] == 0x7f ? '?' : s[n];
	if (cut && size >= 4) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = '\0';
}

bool sp_ynode_has_tag(const sp_ynode *n, const char *suffix)
{
	static const char base[] = "tag:yaml.org,2002:";
	const char *t = n->tag;
	return t && !strncmp(t, base, sizeof base - 1) && !strcmp(t + sizeof base - 1, suffix);
}

bool sp_ynode_is_merge_key(const sp_ynode *k)
{
	return k && k->kind == SP_YN_SCALAR && k->len == 2 && !memcmp(k->str, "<<", 2) &&
	       (k->style == SP_YS_PLAIN || sp_ynode_has_tag(k, "merge"));
}

/* ---- hash sets of keys (one per open mapping) and of anchors */

static uint64_t fnv1a(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* one open-addressing table keyed by text (s, len): a mapping's keys, with the two first distinct nodes
 * (in start order) that hold each (a, b), and the stream's anchors, with the node each names (a; the
 * name is then the table's own copy) */
struct kent {
	const char *s;
	size_t len;
	sp_ynode *a, *b;
};

struct keyset {
	struct kent *v;
	size_t cap, n;
	bool dup;
};

static struct kent *keyset_slot(struct kent *v, size_t cap, const char *s, size_t len)
{
	size_t h = (size_t)fnv1a(s, len) & (cap - 1);
	while (v[h].s && (v[h].len != len || memcmp(v[h].s, s, len)))
		h = (h + 1) & (cap - 1);
	return &v[h];
}

/* the entry of text (s, len), or NULL */
static struct kent *keyset_find(const struct keyset *k, const char *s, size_t len)
{
	if (!k->cap)
		return NULL;
	struct kent *e = keyset_slot(k->v, k->cap, s, len);
	return e->s ? e : NULL;
}

/* the entry of text (s, len): an empty one (s NULL) when new, to be filled by the caller */
static struct kent *keyset_add(struct keyset *k, const char *s, size_t len)
{
	if (2 * (k->n + 1) > k->cap) {
		size_t ncap = k->cap ? 2 * k->cap : 16;
		struct kent *nv = sp_xcalloc(ncap, sizeof *nv);
		for (size_t i = 0; i < k->cap; i++)
			if (k->v[i].s)
				*keyset_slot(nv, ncap, k->v[i].s, k->v[i].len) = k->v[i];
		free(k->v);
		k->v = nv;
		k->cap = ncap;
	}
	struct kent *e = keyset_slot(k->v, k->cap, s, len);
	if (!e->s)
		k->n++;
	return e;
}

static void anchors_clear(struct keyset *a)
{
	for (size_t i = 0; i < a->cap; i++)
		free((char *)a->v[i].s);
	free(a->v);
	*a = (struct keyset){0};
}

/* ---- the builder */

enum frole {
	FR_NORMAL,
	FR_ROOT,  /* JSON: the root mapping of a document */
	FR_ITEMS, /* JSON: its "items" sequence */
};

struct frame {
	sp_ynode *n;
	sp_ynode *key; /* MAP: key read, value pending */
	struct keyset keys;
	enum frole role;
};

struct sp_ystream {
	yaml_parser_t parser;
	int mode; /* sp_ymode, or YM_PLAIN */
	const char *origin;
	sp_yitem_fn item;
	void *item_ctx;
	size_t nitems;
	sp_error *err;
	sp_ydoc *doc;  /* the document being built */
	sp_ydoc *main; /* JSON: the document outside the current item */
	struct frame *st;
	size_t depth, stcap;
	struct keyset anchors; /* the names are the table's own copies */
	bool done;
};

static int yerr(sp_ystream *s, const yaml_mark_t *m, const char *fmt, ...) SP_PRINTF(3, 4);
static int yerr(sp_ystream *s, const yaml_mark_t *m, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (s->mode == YM_PLAIN)
		return sp_usage(s->err, "%s:%zu: %s", s->origin, m->line + 1, msg);
	return sp_usage(s->err, "%s:%zu:%zu: %s", s->origin, m->line + 1, m->column + 1, msg);
}

static int parse_error(sp_ystream *s)
{
	yaml_parser_t *p = &s->parser;
	if (s->mode == YM_PLAIN)
		return sp_usage(s->err, "%s:%zu: %s", s->origin, p->problem_mark.line + 1,
				p->problem ? p->problem : "malformed YAML");
	if (p->error == YAML_MEMORY_ERROR)
		return sp_fail_errno(s->err, ENOMEM, "%s: out of memory reading YAML", s->origin);
	const yaml_mark_t *m = p->problem ? &p->problem_mark : &p->context_mark;
	return yerr(s, m, "invalid YAML: %s%s%s", p->problem ? p->problem : "parse error", p->context ? " " : "",
		    p->context ? p->context : "");
}

static int next_event(sp_ystream *s, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&s->parser, ev))
		return parse_error(s);
	return 0;
}

/* lint's duplicate: of the keys given twice in mapping f, the least */
static void dup_judge(sp_ydoc *d, struct frame *f)
{
	if (!f->keys.dup || f->n->id >= d->dup_map)
		return;
	const struct kent *best = NULL;
	for (size_t i = 0; i < f->keys.cap; i++) {
		const struct kent *e = &f->keys.v[i];
		if (!e->s || !e->b)
			continue;
		if (best) {
			size_t n = e->len < best->len ? e->len : best->len;
			int c = memcmp(e->s, best->s, n);
			if (c > 0 || (c == 0 && e->len >= best->len))
				continue;
		}
		best = e;
	}
	if (!best)
		return;
	d->dup_map = f->n->id;
	d->dup_first = best->a;
	d->dup_again = best->b;
}

static void frame_pop(sp_ystream *s)
{
	struct frame *f = &s->st[--s->depth];
	free(f->keys.v);
}

/* a complete node goes to its parent (or becomes the root) */
static int attach(sp_ystream *s, sp_ynode *n)
{
	if (!s->depth) {
		s->doc->root = n;
		return 0;
	}
	struct frame *f = &s->st[s->depth - 1];
	if (f->role == FR_ITEMS) { /* one List item: checked and freed */
		sp_ydoc *item = s->doc;
		item->root = n;
		s->doc = s->main;
		int rc = s->item(s->item_ctx, item, n, s->nitems++, s->err);
		sp_ydoc_free(item);
		return rc;
	}
	if (f->n->kind == SP_YN_SEQ) {
		node_append(f->n, n, NULL);
		return 0;
	}
	if (f->key) {
		node_append(f->n, f->key, n);
		f->key = NULL;
		return 0;
	}
	if (n->kind != SP_YN_SCALAR) {
		yaml_mark_t m = {.line = (size_t)n->line - 1, .column = (size_t)n->col - 1};
		if (s->mode == YM_PLAIN)
			return yerr(s, &m, "mapping keys must be plain scalars");
		if (s->mode == SP_YM_JSON)
			return yerr(s, &m, "a mapping key that is not a scalar");
	} else if (!sp_ynode_is_merge_key(n) || s->mode == YM_PLAIN) {
		struct kent *e = keyset_add(&f->keys, n->str, n->len);
		if (!e->s) {
			e->s = n->str;
			e->len = n->len;
			e->a = n;
		} else if (s->mode == YM_PLAIN) {
			char shown[64];
			yaml_mark_t m = {.line = (size_t)n->line - 1};
			sp_yaml_printable(n->str, shown, sizeof shown);
			return yerr(s, &m, "duplicate key '%s'", shown);
		} else if (n != e->a && n != e->b) { /* the two first distinct nodes in start order */
			if (n->id < e->a->id) {
				e->b = e->a;
				e->a = n;
			} else if (!e->b || n->id < e->b->id) {
				e->b = n;
			}
			f->keys.dup = true;
		}
	}
	f->key = n;
	return 0;
}

static bool is_json(const sp_ystream *s) { return s->mode == SP_YM_JSON; }

static const char *event_anchor(const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_SCALAR_EVENT: return (const char *)ev->data.scalar.anchor;
	case YAML_SEQUENCE_START_EVENT: return (const char *)ev->data.sequence_start.anchor;
	case YAML_MAPPING_START_EVENT: return (const char *)ev->data.mapping_start.anchor;
	case YAML_NO_EVENT:
	case YAML_STREAM_START_EVENT:
	case YAML_STREAM_END_EVENT:
	case YAML_DOCUMENT_START_EVENT:
	case YAML_DOCUMENT_END_EVENT:
	case YAML_ALIAS_EVENT:
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT: break;
	}
	return NULL;
}

/* Build the node that starts with ev (already read) and every node below it. */
static int build(sp_ystream *s, yaml_event_t *ev)
{
	size_t base = s->depth;
	for (;;) {
		yaml_event_type_t t = ev->type;
		const yaml_mark_t *m = &ev->start_mark;
		int rc = 0;
		if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) {
			if (s->depth == base)
				return yerr(s, m, "unexpected YAML structure");
			sp_ynode *n = s->st[s->depth - 1].n;
			dup_judge(s->doc, &s->st[s->depth - 1]);
			frame_pop(s);
			rc = attach(s, n);
		} else if (t == YAML_SCALAR_EVENT || t == YAML_ALIAS_EVENT || t == YAML_SEQUENCE_START_EVENT ||
			   t == YAML_MAPPING_START_EVENT) {
			size_t depth = s->depth;
			const char *anchor = event_anchor(ev);
			if (s->mode == YM_PLAIN) {
				if (depth > SP_YAML_MAX_DEPTH)
					return yerr(s, m, "nesting too deep");
				if (s->doc->nnodes >= SP_YAML_MAX_NODES)
					return yerr(s, m, "document too large");
				if (t == YAML_ALIAS_EVENT)
					return yerr(s, m, "aliases are not allowed in a workload");
				if (anchor)
					return yerr(s, m, "anchors are not allowed in a workload");
			} else if (is_json(s)) {
				if (depth > SP_YAML_MAX_FLOW_DEPTH)
					return yerr(s, m, "YAML nested deeper than %d levels", SP_YAML_MAX_FLOW_DEPTH);
				if (t == YAML_ALIAS_EVENT)
					return yerr(s, m, "aliases are not JSON");
				if (anchor)
					return yerr(s, m, "anchors are not JSON");
				if (depth && s->st[depth - 1].role == FR_ITEMS)
					s->doc = doc_new(1, 1);
			}
			sp_ynode *n;
			if (t == YAML_ALIAS_EVENT) {
				const char *name = (const char *)ev->data.alias.anchor;
				const struct kent *a = keyset_find(&s->anchors, name, strlen(name));
				if (!a)
					return yerr(s, m, "invalid YAML: found undefined alias");
				rc = attach(s, a->a);
				goto next;
			}
			if (t == YAML_SCALAR_EVENT) {
				n = node_new(s->doc, SP_YN_SCALAR, m);
				n->str = (char *)ev->data.scalar.value; /* taken from the event */
				ev->data.scalar.value = NULL;
				n->len = ev->data.scalar.length;
				n->style = (unsigned char)ev->data.scalar.style;
				n->quoted = n->style == SP_YS_SINGLE || n->style == SP_YS_DOUBLE ||
					    n->style == SP_YS_LITERAL || n->style == SP_YS_FOLDED;
				n->tag = (char *)ev->data.scalar.tag;
				ev->data.scalar.tag = NULL;
				if (s->mode == YM_PLAIN && strlen(n->str) != n->len)
					return yerr(s, m, "NUL byte in a value");
				if (n->len == 2 && !memcmp(n->str, "<<", 2))
					s->doc->has_merge = true;
			} else {
				bool map = t == YAML_MAPPING_START_EVENT;
				n = node_new(s->doc, map ? SP_YN_MAP : SP_YN_SEQ, m);
				yaml_char_t **tagp = map ? &ev->data.mapping_start.tag : &ev->data.sequence_start.tag;
				n->tag = (char *)*tagp;
				*tagp = NULL;
			}
			if (n->tag && !strcmp(n->tag, "!")) {
				free(n->tag);
				n->tag = NULL;
			}
			if (anchor) { /* registered before its content: an alias inside refers to it */
				size_t alen = strlen(anchor);
				struct kent *a = keyset_add(&s->anchors, anchor, alen);
				if (a->s)
					return yerr(s, m, "invalid YAML: second occurrence found duplicate anchor; first occurrence");
				a->s = sp_xstrndup(anchor, alen);
				a->len = alen;
				a->a = n;
			}
			if (t == YAML_SCALAR_EVENT) {
				rc = attach(s, n);
			} else {
				if (s->depth == s->stcap) {
					s->stcap = s->stcap ? 2 * s->stcap : 16;
					s->st = sp_xrealloc(s->st, s->stcap * sizeof *s->st);
				}
				enum frole role = FR_NORMAL;
				if (is_json(s) && !depth && n->kind == SP_YN_MAP && s->doc == s->main)
					role = FR_ROOT;
				else if (is_json(s) && s->item && depth == 1 && n->kind == SP_YN_SEQ &&
					 s->st[0].role == FR_ROOT) {
					const sp_ynode *k = s->st[0].key;
					if (k && k->len == 5 && !memcmp(k->str, "items", 5))
						role = FR_ITEMS;
				}
				s->st[s->depth++] = (struct frame){.n = n, .role = role};
			}
		} else {
			return yerr(s, m, is_json(s) ? "unexpected JSON structure" : "unexpected YAML structure");
		}
	next:
		if (rc < 0)
			return -1;
		if (s->depth == base)
			return 0;
		yaml_event_delete(ev);
		if (next_event(s, ev) < 0)
			return -1;
	}
}

static void stream_reset(sp_ystream *s)
{
	while (s->depth)
		frame_pop(s);
	if (s->doc != s->main)
		sp_ydoc_free(s->doc);
	s->doc = NULL;
	anchors_clear(&s->anchors);
}

/* the root node from ev (and every node below it) into s->doc; ev freed */
static int build_document(sp_ystream *s, yaml_event_t *ev)
{
	int rc = build(s, ev);
	yaml_event_delete(ev);
	return rc;
}

static sp_ystream *stream_new(int mode, const char *origin, sp_error *err)
{
	sp_ystream *s = sp_xcalloc(1, sizeof *s);
	if (!yaml_parser_initialize(&s->parser)) {
		sp_fail_errno(err, 0, "%s: cannot initialise the YAML parser", origin);
		free(s);
		return NULL;
	}
	s->mode = mode;
	s->origin = origin;
	return s;
}

void sp_ystream_free(sp_ystream *s)
{
	if (!s)
		return;
	stream_reset(s);
	free(s->st);
	yaml_parser_delete(&s->parser);
	free(s);
}

sp_ystream *sp_ystream_new(sp_ymode mode, const char *origin, sp_yread_fn read, void *read_ctx, sp_yitem_fn item,
			   void *item_ctx, sp_error *err)
{
	sp_ystream *s = stream_new((int)mode, origin, err);
	if (!s)
		return NULL;
	yaml_parser_set_input(&s->parser, read, read_ctx);
	s->item = item;
	s->item_ctx = item_ctx;
	return s;
}

int sp_ystream_next(sp_ystream *s, sp_ydoc **out, sp_error *err)
{
	*out = NULL;
	s->err = err;
	if (s->done)
		return 0;
	yaml_event_t ev;
	for (;;) { /* to the start of the next document */
		if (next_event(s, &ev) < 0)
			return -1;
		yaml_event_type_t t = ev.type;
		if (t == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			s->done = true;
			return 0;
		}
		if (t == YAML_DOCUMENT_START_EVENT)
			break;
		yaml_event_delete(&ev);
	}
	if (is_json(s))
		s->doc = doc_new(1, 1);
	else
		s->doc = doc_new((unsigned)ev.start_mark.line + 1, (unsigned)ev.start_mark.column + 1);
	s->main = s->doc;
	yaml_event_delete(&ev);
	int rc = 0;
	for (;;) {
		if (next_event(s, &ev) < 0) {
			rc = -1;
			break;
		}
		if (ev.type == YAML_DOCUMENT_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (s->doc->root) {
			yaml_event_delete(&ev);
			rc = sp_usage(err, "%s: unexpected JSON structure", s->origin);
			break;
		}
		rc = build_document(s, &ev);
		if (rc < 0)
			break;
	}
	sp_ydoc *d = s->main;
	if (rc < 0) {
		stream_reset(s);
		s->main = NULL;
		sp_ydoc_free(d);
		s->done = true;
		return -1;
	}
	s->doc = s->main = NULL;
	anchors_clear(&s->anchors);
	*out = d;
	return 0;
}

/* ---- plain data */

sp_ydoc *sp_yaml_parse(const char *text, size_t len, const char *origin, sp_error *err)
{
	sp_ystream *s = stream_new(YM_PLAIN, origin, err);
	if (!s)
		return NULL;
	s->err = err;
	yaml_parser_set_input_string(&s->parser, (const unsigned char *)text, len);
	s->doc = s->main = doc_new(1, 1);
	sp_ydoc *d = s->doc;
	yaml_event_t ev;
	int state = 0; /* 0 before document, 1 in document, 2 after */
	for (;;) {
		if (next_event(s, &ev) < 0)
			goto fail;
		yaml_event_type_t t = ev.type;
		if (t == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (t == YAML_STREAM_START_EVENT || t == YAML_DOCUMENT_END_EVENT) {
			yaml_event_delete(&ev);
			continue;
		}
		if (t == YAML_DOCUMENT_START_EVENT) {
			yaml_mark_t m = ev.start_mark;
			yaml_event_delete(&ev);
			if (state != 0) {
				yerr(s, &m, "only one YAML document is allowed");
				goto fail;
			}
			state = 1;
			continue;
		}
		if (build_document(s, &ev) < 0)
			goto fail;
		state = 2;
	}
	if (!d->root) {
		yaml_mark_t m = {0};
		d->root = node_new(d, SP_YN_MAP, &m);
	}
	s->doc = s->main = NULL;
	sp_ystream_free(s);
	return d;
fail:
	stream_reset(s);
	s->main = NULL;
	sp_ystream_free(s);
	sp_ydoc_free(d);
	return NULL;
}

const sp_ynode *sp_ynode_get(const sp_ynode *map, const char *key)
{
	if (!map || map->kind != SP_YN_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++)
		if (!strcmp(map->items[2 * i]->str, key))
			return map->items[2 * i + 1];
	return NULL;
}

const sp_ynode *sp_ynode_unknown_key(const sp_ynode *map, const char *const *allowed)
{
	for (size_t i = 0; map->kind == SP_YN_MAP && i < map->n; i++) {
		const sp_ynode *k = map->items[2 * i];
		size_t j = 0;
		while (allowed[j] && strcmp(k->str, allowed[j]))
			j++;
		if (!allowed[j])
			return k;
	}
	return NULL;
}

/* ---- lint's duplicate keys and merge keys */

int sp_ydoc_check_dups(const sp_ydoc *d, const char *origin, sp_error *err)
{
	if (d->dup_map == SIZE_MAX)
		return 0;
	const sp_ynode *first = d->dup_first, *again = d->dup_again;
	if (again->line < first->line) {
		const sp_ynode *t = first;
		first = again;
		again = t;
	}
	return sp_usage(err, "%s:%d:%d: duplicate key '%.*s' (first at line %d)", origin, again->line, again->col,
			(int)(first->len > 200 ? 200 : first->len), first->str, first->line);
}

/* The budget bounds the work a merge bomb can cause; a source that contains
 * the mapping (a recursive alias) is skipped. */
struct merge_ctx {
	unsigned char *state; /* 0 untouched, 1 in progress, 2 done */
	size_t budget;
};

static bool has_key(struct merge_ctx *m, const sp_ynode *map, const sp_ynode *key)
{
	for (size_t i = 0; i < map->n; i++) {
		const sp_ynode *k = map->items[2 * i];
		if (m->budget)
			m->budget--;
		if (k->kind == SP_YN_SCALAR && k->len == key->len && !memcmp(k->str, key->str, key->len) &&
		    !sp_ynode_is_merge_key(k))
			return true;
	}
	return false;
}

static int merge_into(struct merge_ctx *m, sp_ynode *map, int depth);

static int merge_source(struct merge_ctx *m, sp_ynode *map, sp_ynode *src, int depth)
{
	if (src == map || src->kind != SP_YN_MAP || m->state[src->id] == 1)
		return 0;
	if (merge_into(m, src, depth + 1) < 0)
		return -1;
	for (size_t i = 0; i < src->n; i++) {
		sp_ynode *k = src->items[2 * i], *v = src->items[2 * i + 1];
		if (k->kind != SP_YN_SCALAR || sp_ynode_is_merge_key(k) || has_key(m, map, k))
			continue;
		if (!m->budget)
			return -1;
		m->budget--;
		node_append(map, k, v);
	}
	return 0;
}

static int merge_into(struct merge_ctx *m, sp_ynode *map, int depth)
{
	if (m->state[map->id] || depth > 64)
		return 0;
	m->state[map->id] = 1;
	size_t n = map->n;
	for (size_t i = 0; i < n; i++) {
		if (!sp_ynode_is_merge_key(map->items[2 * i]))
			continue;
		sp_ynode *v = map->items[2 * i + 1];
		if (v->kind == SP_YN_MAP) {
			if (merge_source(m, map, v, depth) < 0)
				return -1;
		} else if (v->kind == SP_YN_SEQ) {
			for (size_t j = 0; j < v->n; j++)
				if (merge_source(m, map, v->items[j], depth) < 0)
					return -1;
		}
	}
	m->state[map->id] = 2;
	return 0;
}

int sp_ydoc_expand_merges(sp_ydoc *d, const char *origin, sp_error *err)
{
	if (!d->has_merge)
		return 0;
	struct merge_ctx m = {.state = sp_xcalloc(d->nnodes + 1, 1), .budget = (size_t)1 << 22};
	int rc = 0;
	for (struct sp_yblock *b = d->first; b && rc == 0; b = b->next)
		for (size_t i = 0; i < b->used && rc == 0; i++)
			if (b->n[i].kind == SP_YN_MAP)
				rc = merge_into(&m, &b->n[i], 0);
	free(m.state);
	if (rc < 0)
		return sp_usage(err, "%s:%u:%u: YAML merge keys (<<) expand to too many keys", origin, d->line, d->col);
	return 0;
}

int sp_ynode_want(const sp_ynode *n, sp_ynode_kind kind, const char *key, const char *origin, sp_error *err)
{
	static const char *const kn[] = {"a scalar", "a list", "a mapping"};
	if (n->kind != kind)
		return sp_usage_at(err, origin, n->line, "'%s' must be %s", key, kn[kind]);
	return 0;
}

int sp_ynode_int(const sp_ynode *n, const char *key, int lo, int hi, int *out, const char *origin, sp_error *err)
{
	unsigned long long v;
	if (sp_ynode_want(n, SP_YN_SCALAR, key, origin, err) < 0)
		return -1;
	if (n->quoted || sp_parse_u64(n->str, &v) < 0 || v < (unsigned long long)lo || v > (unsigned long long)hi)
		return sp_usage_at(err, origin, n->line, "'%s' must be an integer from %d to %d (got '%.40s')", key, lo,
				   hi, n->str);
	*out = (int)v;
	return 0;
}
