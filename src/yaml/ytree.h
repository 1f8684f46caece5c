/* The one YAML document tree (libyaml's event stream -> nodes), shared by
 * every YAML reader: soak workloads, gate plans and a3s artifacts (plain
 * data: sp_yaml_parse) and lint's compose and Kubernetes files (a stream of
 * documents with anchors, aliases and merge keys: sp_ystream). Every node
 * carries the line and column it starts at. The builder is iterative (no
 * recursion on the input's nesting), duplicate keys are found with one hash
 * set per mapping (linear in the mapping's size), and plain data is bounded
 * in depth and node count. Not part of the static doctor (src/yaml/ is not
 * linked into it, nor is libyaml). */
#ifndef SP_YAML_YTREE_H
#define SP_YAML_YTREE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

typedef enum {
	SP_YN_SCALAR,
	SP_YN_SEQ,
	SP_YN_MAP,
} sp_ynode_kind;

/* scalar styles, as libyaml numbers them */
enum {
	SP_YS_ANY,
	SP_YS_PLAIN,
	SP_YS_SINGLE,
	SP_YS_DOUBLE,
	SP_YS_LITERAL,
	SP_YS_FOLDED,
};

typedef struct sp_ynode {
	sp_ynode_kind kind;
	int line, col;       /* 1-based start of the node */
	unsigned char style; /* SCALAR: SP_YS_* */
	bool quoted;         /* SCALAR: written quoted or as a block (never a null/bool) */
	char *tag;           /* the node's explicit tag as libyaml resolved it, or NULL */
	char *str;           /* SCALAR: the value (NUL-terminated; len bytes, may hold NULs in lint's trees) */
	size_t len;
	struct sp_ynode **items; /* SEQ: items; MAP: keys at 2i, values at 2i+1 */
	size_t n;                /* SEQ: item count; MAP: pair count */
	size_t cap;              /* allocated slots of items */
	size_t id;               /* 0-based position in the document (start order) */
} sp_ynode;

struct sp_yblock;
typedef struct sp_ydoc {
	sp_ynode *root;
	unsigned line, col; /* start of the document */
	size_t nnodes;
	struct sp_yblock *first, *last; /* the nodes, in start order */
	bool has_merge;                 /* a << scalar somewhere (lint) */
	/* the duplicate key lint reports (the first mapping in start order that
	 * has one, its least key): dup_again repeats dup_first */
	size_t dup_map;
	const sp_ynode *dup_first, *dup_again;
} sp_ydoc;

void sp_ydoc_free(sp_ydoc *d);

/* Plain data (workloads, plans, artifacts): one document, no anchors,
 * aliases or non-scalar keys (tags are ignored), no duplicate keys, no NUL bytes, at
 * most 32 levels and 200,000 nodes. Returns the document (an empty one has
 * an empty MAP root) or NULL with a usage error "origin:line: ..." in err. */
sp_ydoc *sp_yaml_parse(const char *text, size_t len, const char *origin, sp_error *err);
/* the value of key in a plain-data mapping, or NULL (also when map is not
 * a mapping) */
const sp_ynode *sp_ynode_get(const sp_ynode *map, const char *key);
/* the first key of a plain-data mapping that allowed (NULL-terminated) does
 * not list, or NULL */
const sp_ynode *sp_ynode_unknown_key(const sp_ynode *map, const char *const *allowed);
/* Typed reads of a plain-data value for the plan and workload parsers:
 * 0, or -1 with a usage error "origin:LINE: 'key' must be ..." in err. */
int sp_ynode_want(const sp_ynode *n, sp_ynode_kind kind, const char *key, const char *origin, sp_error *err);
/* a non-negative unquoted integer from lo to hi */
int sp_ynode_int(const sp_ynode *n, const char *key, int lo, int hi, int *out, const char *origin, sp_error *err);
/* s for a one-line message: control characters become '?', cut to size
 * (with "..." when cut). */
void sp_yaml_printable(const char *s, char *out, size_t size);

/* A stream of documents read one at a time (lint). Errors are
 * "origin:line:col: ..." usage errors (internal when memory runs out). */
typedef enum {
	SP_YM_YAML, /* YAML 1.1 as libyaml's loader reads it: anchors and aliases
		     * (aliases share nodes), tags, complex keys */
	SP_YM_JSON, /* JSON objects one after another: no anchors, aliases or
		     * complex keys, at most SP_YAML_MAX_FLOW_DEPTH levels; the
		     * items of a root mapping's "items" sequence are each built
		     * into a document of their own, passed to item and freed */
} sp_ymode;

#define SP_YAML_MAX_FLOW_DEPTH 1000

typedef int (*sp_yread_fn)(void *ctx, unsigned char *buf, size_t size, size_t *got);
typedef int (*sp_yitem_fn)(void *ctx, sp_ydoc *d, sp_ynode *root, size_t index, sp_error *err);

typedef struct sp_ystream sp_ystream;
sp_ystream *sp_ystream_new(sp_ymode mode, const char *origin, sp_yread_fn read, void *read_ctx, sp_yitem_fn item,
			   void *item_ctx, sp_error *err);
/* the next document into *out (NULL at the end of the stream); -1 + err */
int sp_ystream_next(sp_ystream *s, sp_ydoc **out, sp_error *err);
void sp_ystream_free(sp_ystream *s);

/* the merge key << (plain, or tagged !!merge) */
bool sp_ynode_is_merge_key(const sp_ynode *k);
/* the node's tag is tag:yaml.org,2002:<suffix> */
bool sp_ynode_has_tag(const sp_ynode *n, const char *suffix);
/* a usage error for the duplicate key the document holds, if any:
 * "origin:line:col: duplicate key 'k' (first at line n)" */
int sp_ydoc_check_dups(const sp_ydoc *d, const char *origin, sp_error *err);
/* Expand the merge keys of every mapping in place (YAML 1.1: a mapping or a
 * sequence of mappings; the mapping's own keys win, then earlier sources
 * over later ones; merged pairs share the source's nodes). -1 + err when a
 * merge bomb exceeds the work budget. */
int sp_ydoc_expand_merges(sp_ydoc *d, const char *origin, sp_error *err);

#endif
