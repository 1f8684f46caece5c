/* YAML documents for the compose and kube kinds (the shared tree,
 * src/yaml/ytree.h, in its stream mode: aliases share nodes, so "billion
 * laughs" costs nothing; walkers only follow fixed paths, so a recursive
 * alias cannot loop them). A file is read one
 * document at a time: each is loaded, its merge keys (<<) are expanded in
 * place, it is type-checked and linted, then freed, so memory is bounded by
 * the largest document rather than the file. Kubernetes JSON (one object, a
 * List, or several objects one after the other as kubectl prints them) goes
 * through the same path. */
#ifndef SP_LINT_YAMLDOC_H
#define SP_LINT_YAMLDOC_H

#include "lint/lint.h"
#include "yaml/ytree.h"

/* mapping lookup; NULL when map is not a mapping, lacks key, or the value is
 * null (`key:`, `key: ~`, `key: null`): a null field is an absent one */
sp_ynode *sp_y_get(sp_ydoc *d, sp_ynode *map, const char *key);
/* the key node of key in map (for positions of a missing value's owner) */
sp_ynode *sp_y_key(sp_ydoc *d, sp_ynode *map, const char *key);
/* scalar text, or NULL when n is not a scalar */
const char *sp_y_str(sp_ynode *n);
/* a YAML null: a plain empty, ~ or null scalar, or one tagged !!null */
bool sp_y_null(const sp_ynode *n);
/* YAML 1.1 booleans as compose and kubectl read them */
bool sp_y_true(sp_ynode *n);
bool sp_y_false(sp_ynode *n);
bool sp_y_is_map(sp_ynode *n);
bool sp_y_is_seq(sp_ynode *n);
size_t sp_y_len(sp_ynode *seq);
sp_ynode *sp_y_at(sp_ydoc *d, sp_ynode *seq, size_t i);
/* i-th pair of a mapping; *k and *v are NULL for a merge key (<<), whose
 * pairs are already part of the mapping, and *v is NULL for a null value */
size_t sp_y_npairs(sp_ynode *map);
void sp_y_pair(sp_ydoc *d, sp_ynode *map, size_t i, sp_ynode **k, sp_ynode **v);
static inline unsigned sp_y_line(const sp_ynode *n) { return n ? (unsigned)n->line : 0; }
static inline unsigned sp_y_col(const sp_ynode *n) { return n ? (unsigned)n->col : 0; }
/* a usage error at node n: "file:line:col: pointer: msg" */
int sp_y_error(const sp_lint_file *f, const sp_ynode *n, const char *pointer, sp_error *err, const char *fmt, ...)
	SP_PRINTF(5, 6);
/* report a finding located at node n */
void sp_y_report(sp_lint *l, size_t fi, sp_lint_rule_id rule, const sp_ynode *n, const char *pointer,
		 const char *fmt, ...) SP_PRINTF(6, 7);

/* Type checks like sp_lint_json_schema: path with "*" segments, type m mapping,
 * q sequence, s scalar, c mapping or sequence, '*' anything. Null values are
 * absent values and always pass. */
typedef struct sp_lint_yschema {
	const char *path;
	char type;
} sp_lint_yschema;
int sp_y_schema(const sp_lint_file *f, sp_ydoc *d, sp_ynode *root, const char *prefix,
		const sp_lint_yschema *s, size_t n, sp_error *err);

/* Read every document of file fi (kind compose, kube, or auto: guessed from
 * the first document that says), checking each as it comes. A document that
 * fails its type checks is reported (lint.input_invalid) and the next one is
 * read; a syntax error ends the file. -1 with err (the first error) when any
 * document could not be linted. */
int sp_lint_yaml_run(sp_lint *l, size_t fi, bool json, sp_error *err);

/* per-document entry points of the kinds (-1 + err: a type error in it) */
int sp_lint_compose_doc(sp_lint *l, size_t fi, sp_ydoc *d, sp_ynode *root, sp_error *err);
struct sp_kube_file;
struct sp_kube_file *sp_lint_kube_begin(sp_lint *l, size_t fi);
int sp_lint_kube_doc(sp_lint *l, size_t fi, struct sp_kube_file *st, sp_ydoc *d, sp_ynode *root,
		     sp_error *err);
/* one item of a List read item by item (Kubernetes JSON) */
int sp_lint_kube_item(sp_lint *l, size_t fi, struct sp_kube_file *st, sp_ydoc *d, sp_ynode *item,
		      size_t index, sp_error *err);
/* the document the items were in is now whole: unless it is a List, the
 * findings of its items (l->f from mark on) are withdrawn */
void sp_lint_kube_items_judged(sp_lint *l, size_t fi, struct sp_kube_file *st, sp_ydoc *d, sp_ynode *root,
			       size_t mark);
/* after the last document: the findings that depend on other documents */
void sp_lint_kube_end(sp_lint *l, size_t fi, struct sp_kube_file *st);

/* is this document root a compose file's, a Kubernetes object's, neither? */
sp_lint_kind sp_lint_yaml_doc_kind(sp_ydoc *d, sp_ynode *root);

#endif
