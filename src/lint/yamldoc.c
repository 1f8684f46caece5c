/* YAML loading (libyaml) and small node helpers for compose and kube. */
#include <stdarg.h>
#include <string.h>

#include "lint/yamldoc.h"

#define SP_YAML_MAX_DOCS 4096

void sp_lint_yaml_free(struct sp_yaml *y)
{
	if (!y)
		return;
	for (size_t i = 0; i < y->n; i++)
		yaml_document_delete(&y->docs[i]);
	free(y->docs);
	free(y);
}

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

int sp_lint_yaml_parse(sp_lint_file *f, sp_error *err)
{
	if (flow_depth_check(f, err) < 0)
		return -1;
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p))
		return sp_fail_errno(err, 0, "%s: cannot initialise the YAML parser", f->path);
	yaml_parser_set_input_string(&p, (const unsigned char *)f->text, f->len);
	struct sp_yaml *y = sp_xcalloc(1, sizeof *y);
	f->yaml = y;
	int rc = 0;
	for (;;) {
		yaml_document_t doc;
		if (!yaml_parser_load(&p, &doc)) {
			const yaml_mark_t *m = p.problem ? &p.problem_mark : &p.context_mark;
			rc = sp_usage(err, "%s:%zu:%zu: invalid YAML: %s%s%s", f->path, m->line + 1, m->column + 1,
				      p.problem ? p.problem : "parse error", p.context ? " " : "", p.context ? p.context : "");
			break;
		}
		if (!yaml_document_get_root_node(&doc)) {
			yaml_document_delete(&doc);
			break;
		}
		if (y->n >= SP_YAML_MAX_DOCS) {
			yaml_document_delete(&doc);
			rc = sp_usage(err, "%s: more than %d YAML documents", f->path, SP_YAML_MAX_DOCS);
			break;
		}
		y->docs = sp_xrealloc(y->docs, (y->n + 1) * sizeof *y->docs);
		y->docs[y->n++] = doc;
	}
	yaml_parser_delete(&p);
	if (rc < 0)
		return rc;
	if (f->kind == SP_LK_AUTO)
		f->kind = sp_lint_yaml_guess(f);
	if (f->kind == SP_LK_COMPOSE)
		return sp_lint_compose_validate(f, err);
	if (f->kind == SP_LK_KUBE)
		return sp_lint_kube_validate(f, err);
	return 0;
}

sp_lint_kind sp_lint_yaml_guess(const sp_lint_file *f)
{
	if (!f->yaml)
		return SP_LK_AUTO;
	for (size_t i = 0; i < f->yaml->n; i++) {
		yaml_document_t *d = &f->yaml->docs[i];
		yaml_node_t *r = yaml_document_get_root_node(d);
		if (sp_y_get(d, r, "services"))
			return SP_LK_COMPOSE;
		if (sp_y_get(d, r, "apiVersion") && sp_y_get(d, r, "kind"))
			return SP_LK_KUBE;
	}
	return SP_LK_AUTO;
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

void sp_y_pair(yaml_document_t *d, yaml_node_t *map, size_t i, yaml_node_t **k, yaml_node_t **v)
{
	*k = *v = NULL;
	if (i >= sp_y_npairs(map))
		return;
	yaml_node_pair_t *pr = &map->data.mapping.pairs.start[i];
	*k = yaml_document_get_node(d, pr->key);
	*v = yaml_document_get_node(d, pr->value);
}

yaml_node_t *sp_y_key(yaml_document_t *d, yaml_node_t *map, const char *key)
{
	size_t n = sp_y_npairs(map);
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *k, *v;
		sp_y_pair(d, map, i, &k, &v);
		const char *s = sp_y_str(k);
		if (s && !strcmp(s, key))
			return k;
	}
	return NULL;
}

yaml_node_t *sp_y_get(yaml_document_t *d, yaml_node_t *map, const char *key)
{
	size_t n = sp_y_npairs(map);
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *k, *v;
		sp_y_pair(d, map, i, &k, &v);
		const char *s = sp_y_str(k);
		if (s && !strcmp(s, key))
			return v;
	}
	return NULL;
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

static int ywalk(const sp_lint_file *f, yaml_document_t *d, yaml_node_t *n, const char *ptr, const char *rest,
		 char t, sp_error *err, int depth)
{
	if (!n || depth > SP_LINT_MAX_DEPTH)
		return 0;
	if (!*rest) {
		if (!ytype_ok(n, t))
			return sp_y_error(f, n, ptr, err, "expected %s, got %s", ytype_word(t), ynode_word(n));
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
				const char *ks = sp_y_str(k);
				_cleanup_free_ char *p = sp_jptr_join(ptr, ks ? ks : "?");
				if (ywalk(f, d, v, p, next, t, err, depth + 1) < 0)
					return -1;
			}
		} else if (sp_y_is_seq(n)) {
			for (size_t i = 0; i < sp_y_len(n); i++) {
				_cleanup_free_ char *p = sp_jptr_index(ptr, i);
				if (ywalk(f, d, sp_y_at(d, n, i), p, next, t, err, depth + 1) < 0)
					return -1;
			}
		}
		return 0;
	}
	_cleanup_free_ char *key = sp_xstrndup(rest, sl);
	yaml_node_t *v = sp_y_get(d, n, key);
	if (!v)
		return 0;
	_cleanup_free_ char *p = sp_jptr_join(ptr, key);
	return ywalk(f, d, v, p, next, t, err, depth + 1);
}

int sp_y_schema(const sp_lint_file *f, yaml_document_t *d, yaml_node_t *root, const char *prefix,
		const sp_yschema *s, size_t n, sp_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (ywalk(f, d, root, prefix, s[i].path, s[i].type, err, 0) < 0)
			return -1;
	return 0;
}
