/* libyaml events -> sp_soak_ynode tree (see yamltree.h). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <yaml.h>

#include "soak/yamltree.h"
#include "core/util.h"

#define SP_YAML_MAX_DEPTH 32
#define SP_YAML_MAX_NODES 200000

struct builder {
	yaml_parser_t parser;
	const char *origin;
	sp_error *err;
	size_t nodes;
};

static sp_soak_ynode *node_new(sp_ynode_kind kind, int line)
{
	sp_soak_ynode *n = sp_xcalloc(1, sizeof *n);
	n->kind = kind;
	n->line = line;
	return n;
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

void sp_ynode_free(sp_soak_ynode *n)
{
	if (!n)
		return;
	size_t count = n->kind == SP_YN_MAP ? 2 * n->n : n->n;
	for (size_t i = 0; i < count; i++)
		sp_ynode_free(n->items[i]);
	free(n->items);
	free(n->str);
	free(n);
}

/* The keys of one mapping, for the duplicate check: open addressing on
 * FNV-1a, so that a mapping of n keys costs O(n) (a linear scan per key made
 * a 1 MB workload of many keys take half a minute to reject). */
struct keyset {
	const char **v;
	size_t cap, n;
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* Add key; false when it was there already. */
static bool keyset_add(struct keyset *k, const char *key)
{
	if (2 * (k->n + 1) > k->cap) {
		size_t ncap = k->cap ? 2 * k->cap : 16;
		const char **nv = sp_xcalloc(ncap, sizeof *nv);
		for (size_t i = 0; i < k->cap; i++)
			if (k->v[i]) {
				size_t h = (size_t)fnv1a(k->v[i]) & (ncap - 1);
				while (nv[h])
					h = (h + 1) & (ncap - 1);
				nv[h] = k->v[i];
			}
		free(k->v);
		k->v = nv;
		k->cap = ncap;
	}
	size_t h = (size_t)fnv1a(key) & (k->cap - 1);
	while (k->v[h]) {
		if (!strcmp(k->v[h], key))
			return false;
		h = (h + 1) & (k->cap - 1);
	}
	k->v[h] = key;
	k->n++;
	return true;
}

static int next_event(struct builder *b, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&b->parser, ev)) {
		const char *prob = b->parser.problem ? b->parser.problem : "malformed YAML";
		return sp_usage(b->err, "%s:%zu: %s", b->origin, b->parser.problem_mark.line + 1, prob);
	}
	return 0;
}

/* Build the node that starts with ev (already read). */
static int build(struct builder *b, yaml_event_t *ev, int depth, sp_soak_ynode **out)
{
	int line = (int)ev->start_mark.line + 1;
	*out = NULL;
	if (depth > SP_YAML_MAX_DEPTH)
		return sp_usage(b->err, "%s:%d: nesting too deep", b->origin, line);
	if (++b->nodes > SP_YAML_MAX_NODES)
		return sp_usage(b->err, "%s:%d: document too large", b->origin, line);
	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		return sp_usage(b->err, "%s:%d: aliases are not allowed in a workload", b->origin, line);
	case YAML_SCALAR_EVENT: {
		if (ev->data.scalar.anchor)
			return sp_usage(b->err, "%s:%d: anchors are not allowed in a workload", b->origin, line);
		sp_soak_ynode *n = node_new(SP_YN_SCALAR, line);
		n->str = sp_xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
		if (strlen(n->str) != ev->data.scalar.length) {
			sp_ynode_free(n);
			return sp_usage(b->err, "%s:%d: NUL byte in a value", b->origin, line);
		}
		n->quoted = ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
			    ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE ||
			    ev->data.scalar.style == YAML_LITERAL_SCALAR_STYLE ||
			    ev->data.scalar.style == YAML_FOLDED_SCALAR_STYLE;
		*out = n;
		return 0;
	}
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT: {
		int is_map = ev->type == YAML_MAPPING_START_EVENT;
		if ((is_map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor))
			return sp_usage(b->err, "%s:%d: anchors are not allowed in a workload", b->origin, line);
		sp_soak_ynode *n = node_new(is_map ? SP_YN_MAP : SP_YN_SEQ, line);
		sp_soak_ynode *key = NULL; /* MAP: key read, value pending */
		struct keyset keys = {0};
		size_t cap = 0;
		for (;;) {
			yaml_event_t cev;
			if (next_event(b, &cev) < 0)
				goto fail_container;
			if (cev.type == YAML_SEQUENCE_END_EVENT || cev.type == YAML_MAPPING_END_EVENT) {
				yaml_event_delete(&cev);
				break;
			}
			sp_soak_ynode *child = NULL;
			int r = build(b, &cev, depth + 1, &child);
			yaml_event_delete(&cev);
			if (r < 0)
				goto fail_container;
			if (is_map && !key) {
				if (child->kind != SP_YN_SCALAR) {
					sp_usage(b->err, "%s:%d: mapping keys must be plain scalars", b->origin, child->line);
					sp_ynode_free(child);
					goto fail_container;
				}
				if (!keyset_add(&keys, child->str)) {
					char shown[64];
					sp_yaml_printable(child->str, shown, sizeof shown);
					sp_usage(b->err, "%s:%d: duplicate key '%s'", b->origin, child->line, shown);
					sp_ynode_free(child);
					goto fail_container;
				}
				key = child;
				continue;
			}
			size_t used = is_map ? 2 * n->n : n->n;
			size_t need = used + (is_map ? 2 : 1);
			if (need > cap) {
				cap = cap ? cap * 2 : 8;
				if (cap < need)
					cap = need;
				n->items = sp_xrealloc(n->items, cap * sizeof(sp_soak_ynode *));
			}
			if (is_map) {
				n->items[used] = key;
				n->items[used + 1] = child;
				key = NULL;
			} else {
				n->items[used] = child;
			}
			n->n++;
		}
		sp_ynode_free(key);
		free(keys.v);
		*out = n;
		return 0;
fail_container:
		sp_ynode_free(key);
		sp_ynode_free(n);
		free(keys.v);
		return -1;
	}
	case YAML_NO_EVENT:
	case YAML_STREAM_START_EVENT:
	case YAML_STREAM_END_EVENT:
	case YAML_DOCUMENT_START_EVENT:
	case YAML_DOCUMENT_END_EVENT:
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		break;
	}
	return sp_usage(b->err, "%s:%d: unexpected YAML structure", b->origin, line);
}

sp_soak_ynode *sp_yaml_parse(const char *text, size_t len, const char *origin, sp_error *err)
{
	struct builder b = {.origin = origin, .err = err};
	sp_soak_ynode *root = NULL;
	yaml_event_t ev;
	int state = 0; /* 0 before document, 1 in document (root read), 2 after */

	if (!yaml_parser_initialize(&b.parser)) {
		sp_fail_errno(err, 0, "%s: cannot initialise the YAML parser", origin);
		return NULL;
	}
	yaml_parser_set_input_string(&b.parser, (const unsigned char *)text, len);
	for (;;) {
		if (next_event(&b, &ev) < 0)
			goto fail;
		yaml_event_type_t t = ev.type;
		int line = (int)ev.start_mark.line + 1;
		if (t == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		if (t == YAML_STREAM_START_EVENT || t == YAML_DOCUMENT_END_EVENT) {
			yaml_event_delete(&ev);
			continue;
		}
		if (t == YAML_DOCUMENT_START_EVENT) {
			yaml_event_delete(&ev);
			if (state != 0) {
				sp_usage(err, "%s:%d: only one YAML document is allowed", origin, line);
				goto fail;
			}
			state = 1;
			continue;
		}
		int r = build(&b, &ev, 0, &root);
		yaml_event_delete(&ev);
		if (r < 0)
			goto fail;
		state = 2;
	}
	yaml_parser_delete(&b.parser);
	if (!root)
		root = node_new(SP_YN_MAP, 1);
	return root;
fail:
	yaml_parser_delete(&b.parser);
	sp_ynode_free(root);
	return NULL;
}
