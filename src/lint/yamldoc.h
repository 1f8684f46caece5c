/* YAML documents for the compose and kube kinds (libyaml's document API:
 * aliases share nodes, so "billion laughs" costs nothing; walkers only follow
 * fixed paths, so a recursive alias cannot loop them). */
#ifndef SP_LINT_YAMLDOC_H
#define SP_LINT_YAMLDOC_H

#include <yaml.h>

#include "lint/lint.h"

struct sp_yaml {
	yaml_document_t *docs;
	size_t n;
};

/* mapping lookup; NULL when map is not a mapping or lacks key */
yaml_node_t *sp_y_get(yaml_document_t *d, yaml_node_t *map, const char *key);
/* the key node of key in map (for positions of a missing value's owner) */
yaml_node_t *sp_y_key(yaml_document_t *d, yaml_node_t *map, const char *key);
/* scalar text, or NULL when n is not a scalar */
const char *sp_y_str(yaml_node_t *n);
/* YAML 1.1 booleans as compose and kubectl read them */
bool sp_y_true(yaml_node_t *n);
bool sp_y_false(yaml_node_t *n);
bool sp_y_is_map(yaml_node_t *n);
bool sp_y_is_seq(yaml_node_t *n);
size_t sp_y_len(yaml_node_t *seq);
yaml_node_t *sp_y_at(yaml_document_t *d, yaml_node_t *seq, size_t i);
/* i-th pair of a mapping */
size_t sp_y_npairs(yaml_node_t *map);
void sp_y_pair(yaml_document_t *d, yaml_node_t *map, size_t i, yaml_node_t **k, yaml_node_t **v);
static inline unsigned sp_y_line(const yaml_node_t *n) { return n ? (unsigned)n->start_mark.line + 1 : 0; }
static inline unsigned sp_y_col(const yaml_node_t *n) { return n ? (unsigned)n->start_mark.column + 1 : 0; }
/* a usage error at node n: "file:line:col: pointer: msg" */
int sp_y_error(const sp_lint_file *f, const yaml_node_t *n, const char *pointer, sp_error *err, const char *fmt, ...)
	SP_PRINTF(5, 6);
/* report a finding located at node n */
void sp_y_report(sp_lint *l, size_t fi, sp_lint_rule_id rule, const yaml_node_t *n, const char *pointer,
		 const char *fmt, ...) SP_PRINTF(6, 7);

/* Type checks like sp_lint_json_schema: path with "*" segments, type m mapping,
 * q sequence, s scalar, c mapping or sequence, '*' anything. */
typedef struct sp_yschema {
	const char *path;
	char type;
} sp_yschema;
int sp_y_schema(const sp_lint_file *f, yaml_document_t *d, yaml_node_t *root, const char *prefix,
		const sp_yschema *s, size_t n, sp_error *err);

int sp_lint_compose_validate(sp_lint_file *f, sp_error *err);
int sp_lint_kube_validate(sp_lint_file *f, sp_error *err);

#endif
