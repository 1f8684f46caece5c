/* A small document tree built from libyaml's event stream, so that the
 * workload parser can walk mappings and sequences with the line of every
 * node at hand (for "file:line: ..." errors). Anchors, aliases, tags and
 * multi-document streams are refused: a workload is plain data. */
#ifndef SP_SOAK_YAMLTREE_H
#define SP_SOAK_YAMLTREE_H

#include <stddef.h>

#include "core/error.h"

typedef enum { SP_YN_SCALAR, SP_YN_SEQ, SP_YN_MAP } sp_ynode_kind;

typedef struct sp_soak_ynode {
	sp_ynode_kind kind;
	int line;        /* 1-based line of the node's start */
	int quoted;      /* scalar written with quotes (never a null/bool) */
	char *str;       /* SCALAR: the value */
	struct sp_soak_ynode **items; /* SEQ: items; MAP: keys at 2i, values at 2i+1 */
	size_t n;        /* SEQ: item count; MAP: pair count */
} sp_soak_ynode;

/* Parse text (len bytes) into a tree. origin names the file in errors.
 * Returns the root (an empty document is an empty MAP) or NULL with a
 * usage error "origin:line: ..." in err. */
sp_soak_ynode *sp_yaml_parse(const char *text, size_t len, const char *origin, sp_error *err);
void sp_ynode_free(sp_soak_ynode *n);
/* s for a one-line message: control characters become '?', cut to size
 * (with "..." when cut). */
void sp_yaml_printable(const char *s, char *out, size_t size);

#endif
