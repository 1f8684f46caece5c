/* The lint run: files in, kinds detected, parsed, checked, findings out. */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lint/lint.h"

const sp_lint_rule sp_lint_rules[SP_LR__COUNT] = {
#define SP_LR_ROW(sym, id_, kind_, sev_, title_, why_, tech_) \
	[SP_LR_##sym] = {.id = id_, .kind = kind_, .sev = sev_, .title = title_, .rationale = why_, .techniques = tech_},
	SP_LINT_RULES(SP_LR_ROW)
#undef SP_LR_ROW
};

static const char *const kind_names[] = {
	[SP_LK_AUTO] = "auto",	       [SP_LK_OCI] = "oci",	[SP_LK_ALLOWLIST] = "allowlist",
	[SP_LK_SECCOMP] = "seccomp",   [SP_LK_COMPOSE] = "compose", [SP_LK_KUBE] = "kube",
	[SP_LK_SQUID] = "squid",
};

const char *sp_lint_kind_name(sp_lint_kind k)
{
	return (size_t)k < SP_ARRAY_SIZE(kind_names) ? kind_names[k] : "?";
}

int sp_lint_kind_parse(const char *s, sp_lint_kind *out)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(kind_names); i++)
		if (!strcmp(s, kind_names[i])) {
			*out = (sp_lint_kind)i;
			return 0;
		}
	return -1;
}

const char *sp_lint_sev_name(sp_lint_sev s)
{
	switch (s) {
	case SP_SEV_NOTE: return "note";
	case SP_SEV_WARNING: return "warning";
	case SP_SEV_ERROR: return "error";
	}
	return "?";
}

int sp_lint_sev_parse(const char *s, sp_lint_sev *out)
{
	if (!strcmp(s, "note"))
		*out = SP_SEV_NOTE;
	else if (!strcmp(s, "warning"))
		*out = SP_SEV_WARNING;
	else if (!strcmp(s, "error"))
		*out = SP_SEV_ERROR;
	else
		return -1;
	return 0;
}

const sp_lint_rule *sp_lint_rule_find(const char *id)
{
	for (size_t i = 0; i < SP_LR__COUNT; i++)
		if (!strcmp(sp_lint_rules[i].id, id))
			return &sp_lint_rules[i];
	return NULL;
}

void sp_lint_init(sp_lint *l, const sp_lint_opts *o)
{
	memset(l, 0, sizeof *l);
	if (o)
		l->opts = *o;
}

void sp_lint_free(sp_lint *l)
{
	for (size_t i = 0; i < l->nfiles; i++) {
		sp_lint_file *f = &l->files[i];
		free(f->path);
		free(f->text);
		if (f->json)
			json_decref(f->json);
		sp_lint_squid_free(f->squid);
		for (size_t k = 0; k < f->nproxies; k++) {
			free(f->proxies[k].name);
			free(f->proxies[k].value);
			free(f->proxies[k].pointer);
		}
		free(f->proxies);
	}
	free(l->files);
	for (size_t i = 0; i < l->nf; i++) {
		free(l->f[i].pointer);
		free(l->f[i].message);
	}
	free(l->f);
	memset(l, 0, sizeof *l);
}

void sp_lint_report(sp_lint *l, size_t file, sp_lint_rule_id rule, const char *pointer, unsigned line,
		    unsigned column, const char *fmt, ...)
{
	if (l->nf == l->capf) {
		l->capf = l->capf ? l->capf * 2 : 16;
		l->f = sp_xrealloc(l->f, l->capf * sizeof *l->f);
	}
	va_list ap;
	va_start(ap, fmt);
	char *msg = NULL;
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = sp_xstrdup("?");
	va_end(ap);
	l->f[l->nf++] = (sp_lint_finding){
		.rule = rule,
		.file = file,
		.pointer = pointer ? sp_xstrdup(pointer) : NULL,
		.line = line,
		.column = column,
		.message = msg,
	};
}

void sp_lint_add_proxyref(sp_lint_file *f, const char *name, const char *value, const char *pointer, unsigned line,
			  unsigned column)
{
	f->proxies = sp_xrealloc(f->proxies, (f->nproxies + 1) * sizeof *f->proxies);
	f->proxies[f->nproxies++] = (sp_lint_proxyref){
		.name = sp_xstrdup(name),
		.value = sp_xstrdup(value),
		.pointer = pointer ? sp_xstrdup(pointer) : NULL,
		.line = line,
		.column = column,
	};
}

void sp_lint_input_error(sp_lint *l, size_t fi, const sp_error *err)
{
	sp_lint_file *f = &l->files[fi];
	const char *m = err->msg;
	size_t pl = strlen(f->path);
	unsigned line = 0, col = 0;
	if (!strncmp(m, f->path, pl) && m[pl] == ':') {
		m += pl + 1;
		char *e;
		unsigned long a = strtoul(m, &e, 10);
		if (e != m && *e == ':' && a > 0 && a < 1u << 31) {
			line = (unsigned)a;
			m = e + 1;
			unsigned long b = strtoul(m, &e, 10);
			if (e != m && *e == ':' && b < 1u << 31) {
				col = (unsigned)b;
				m = e + 1;
			}
		}
		while (*m == ' ')
			m++;
	}
	if (line && !col)
		col = 1;
	/* an input error has a line: "line 1" when the whole file is at fault */
	sp_lint_report(l, fi, SP_LR_INPUT_INVALID, NULL, line ? line : 1, col ? col : 1, "%s", m);
	f->failed = true;
}

static bool has_ext(const char *path, const char *ext)
{
	size_t pl = strlen(path), el = strlen(ext);
	return pl >= el && !strcasecmp(path + pl - el, ext);
}

/* the first non-blank byte, skipping a UTF-8 BOM */
static char first_byte(const char *t, size_t n)
{
	size_t i = 0;
	if (n >= 3 && (unsigned char)t[0] == 0xEF && (unsigned char)t[1] == 0xBB && (unsigned char)t[2] == 0xBF)
		i = 3;
	while (i < n && strchr(" \t\r\n", t[i]))
		i++;
	return i < n ? t[i] : '\0';
}

static bool looks_like_squid(const char *t, size_t n)
{
	static const char *const directives[] = {"http_port", "http_access", "acl ", "https_port", "cache_peer"};
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && (t[j] == ' ' || t[j] == '\t'))
			j++;
		for (size_t d = 0; d < SP_ARRAY_SIZE(directives); d++) {
			size_t dl = strlen(directives[d]);
			if (n - j >= dl && !memcmp(t + j, directives[d], dl))
				return true;
		}
		const char *nl = memchr(t + i, '\n', n - i);
		if (!nl)
			break;
		i = (size_t)(nl - t) + 1;
	}
	return false;
}

static int guess_json_kind(sp_lint_file *f, sp_error *err)
{
	json_t *j = f->json;
	if (json_is_object(j)) {
		if (json_object_get(j, "ociVersion") || (json_object_get(j, "process") && json_object_get(j, "root")) ||
		    ((json_object_get(j, "linux") || json_object_get(j, "freebsd") || json_object_get(j, "zos")) &&
		     !json_object_get(j, "defaultAction"))) {
			f->kind = SP_LK_OCI;
			return 0;
		}
		if (json_object_get(j, "domains") || json_object_get(j, "inference_providers") ||
		    json_object_get(j, "forbidden_hosts")) {
			f->kind = SP_LK_ALLOWLIST;
			return 0;
		}
		if (json_object_get(j, "defaultAction") || json_object_get(j, "syscalls")) {
			f->kind = SP_LK_SECCOMP;
			return 0;
		}
	}
	return sp_usage(err,
			"%s: cannot tell what kind of config this is (no ociVersion, domains or defaultAction); "
			"use --kind",
			f->path);
}

/* Does a JSON text hold a Kubernetes object (or List)? The members of the
 * first top-level object are scanned without building it: a List can be
 * tens of megabytes that jansson would hold whole. */
static bool json_is_kube(const char *t, size_t n)
{
	int depth = 0;
	bool api = false, kind = false, items = false;
	for (size_t i = 0; i < n; i++) {
		char c = t[i];
		if (c == '"') {
			size_t s = i + 1;
			for (i = s; i < n && t[i] != '"'; i++)
				if (t[i] == '\\')
					i++;
			if (depth != 1)
				continue;
			size_t len = i - s, j = i + 1;
			while (j < n && strchr(" \t\r\n", t[j]))
				j++;
			if (j >= n || t[j] != ':')
				continue;
			api |= len == 10 && !memcmp(t + s, "apiVersion", 10);
			kind |= len == 4 && !memcmp(t + s, "kind", 4);
			items |= len == 5 && !memcmp(t + s, "items", 5);
			if (api && (kind || items))
				return true;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (--depth <= 0)
				return false;
		}
	}
	return false;
}

static int parse_file(sp_lint *l, size_t fi, sp_error *err)
{
	sp_lint_file *f = &l->files[fi];
	sp_lint_kind k = f->kind;
	char c = first_byte(f->text, f->len);
	if (k == SP_LK_AUTO) {
		bool yaml_ext = has_ext(f->path, ".yaml") || has_ext(f->path, ".yml");
		if (!yaml_ext && (c == '{' || c == '[' || has_ext(f->path, ".json"))) {
			if (c == '{' && json_is_kube(f->text, f->len)) {
				f->kind = SP_LK_KUBE;
				f->checked = true;
				return sp_lint_yaml_run(l, fi, true, err);
			}
			if (sp_lint_json_parse(f, err) < 0)
				return -1;
			json_t *j = f->json;
			if (json_is_object(j) && json_is_object(json_object_get(j, "services")) &&
			    !json_object_get(j, "ociVersion")) {
				/* a compose file written as JSON: read like its YAML form */
				json_decref(j);
				f->json = NULL;
				f->kind = SP_LK_COMPOSE;
				f->is_sandbox = true;
				f->checked = true;
				return sp_lint_yaml_run(l, fi, true, err);
			}
			if (guess_json_kind(f, err) < 0)
				return -1;
		} else if (!yaml_ext && (has_ext(f->path, ".conf") || looks_like_squid(f->text, f->len))) {
			f->kind = SP_LK_SQUID;
			return sp_lint_squid_parse(f, err);
		} else {
			f->checked = true; /* guesses the kind from the documents */
			return sp_lint_yaml_run(l, fi, c == '{', err);
		}
	} else if (k == SP_LK_OCI || k == SP_LK_ALLOWLIST || k == SP_LK_SECCOMP) {
		if (sp_lint_json_parse(f, err) < 0)
			return -1;
	} else if (k == SP_LK_COMPOSE || k == SP_LK_KUBE) {
		f->is_sandbox = k == SP_LK_COMPOSE;
		f->checked = true;
		return sp_lint_yaml_run(l, fi, c == '{', err);
	} else if (k == SP_LK_SQUID) {
		return sp_lint_squid_parse(f, err);
	}
	switch (f->kind) {
	case SP_LK_OCI: f->is_sandbox = true; return sp_lint_oci_validate(f, err);
	case SP_LK_SECCOMP: return sp_lint_seccomp_validate(f, err);
	case SP_LK_ALLOWLIST: return sp_lint_allowlist_validate(f, err);
	case SP_LK_AUTO:
	case SP_LK_COMPOSE:
	case SP_LK_KUBE:
	case SP_LK_SQUID: break;
	}
	return 0;
}

static sp_lint_file *new_file(sp_lint *l, const char *name, sp_lint_kind kind)
{
	l->files = sp_xrealloc(l->files, (l->nfiles + 1) * sizeof *l->files);
	sp_lint_file *f = &l->files[l->nfiles];
	memset(f, 0, sizeof *f);
	f->path = sp_xstrdup(name);
	f->kind = kind;
	f->no_external = l->opts.no_external_files;
	l->nfiles++; /* owned by l from here, freed by sp_lint_free even on error */
	return f;
}

static char *steal_text(char **p)
{
	char *t = *p;
	*p = NULL;
	return t;
}

/* a file that could not be read at all: kept, so that the report names it */
static int unreadable(sp_lint *l, const char *name, sp_lint_kind kind, sp_error *err)
{
	new_file(l, name, kind);
	sp_lint_input_error(l, l->nfiles - 1, err);
	return -1;
}

/* the text (len + 1 bytes, NUL-terminated) becomes the file's */
static int add_owned(sp_lint *l, const char *name, char *text, size_t len, sp_lint_kind kind, sp_error *err)
{
	sp_lint_file *f = new_file(l, name, kind);
	f->text = text;
	f->len = len;
	size_t fi = l->nfiles - 1;
	int rc = parse_file(l, fi, err);
	if (rc < 0 && err->exit_code != SP_EXIT_INTERNAL && !l->files[fi].failed)
		sp_lint_input_error(l, fi, err);
	return rc;
}

int sp_lint_add_buffer(sp_lint *l, const char *name, const char *data, size_t len, sp_lint_kind kind, sp_error *err)
{
	if (len > SP_LINT_MAX_FILE) {
		sp_usage(err, "%s: file too large (%zu bytes, the limit is %u MiB)", name, len, SP_LINT_MAX_FILE >> 20);
		return unreadable(l, name, kind, err);
	}
	char *text = sp_xmalloc(len + 1);
	memcpy(text, data, len);
	text[len] = '\0';
	return add_owned(l, name, text, len, kind, err);
}

int sp_lint_add_file(sp_lint *l, const char *path, sp_lint_kind kind, sp_error *err)
{
	int e = 0;
	size_t len = 0;
	_cleanup_free_ char *text = sp_read_file_alloc(path, SP_LINT_MAX_FILE, &len, &e);
	if (!text) {
		if (e == EFBIG)
			sp_usage(err, "%s: file too large (the limit is %u MiB)", path, SP_LINT_MAX_FILE >> 20);
		else
			sp_usage(err, "%s: cannot read: %s", path, strerror(e));
		return unreadable(l, path, kind, err);
	}
	if (memchr(text, '\0', len)) {
		sp_usage(err, "%s: binary data (a NUL byte at offset %zu)", path,
			 (size_t)((char *)memchr(text, '\0', len) - text));
		return unreadable(l, path, kind, err);
	}
	/* sp_read_file_alloc NUL-terminates what it read */
	return add_owned(l, path, steal_text(&text), len, kind, err);
}

static int finding_cmp(const void *a, const void *b)
{
	const sp_lint_finding *x = a, *y = b;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->column != y->column)
		return x->column < y->column ? -1 : 1;
	if (x->rule != y->rule)
		return x->rule < y->rule ? -1 : 1;
	return strcmp(x->message, y->message);
}

/* fill line/column of JSON findings from their pointers, one scan per file */
static void resolve_positions(sp_lint *l)
{
	for (size_t fi = 0; fi < l->nfiles; fi++) {
		sp_lint_file *f = &l->files[fi];
		if (!f->json)
			continue;
		size_t n = 0;
		for (size_t i = 0; i < l->nf; i++)
			if (l->f[i].file == fi && !l->f[i].line && l->f[i].pointer)
				n++;
		if (!n)
			continue;
		char **ptrs = sp_xmalloc(n * sizeof *ptrs);
		size_t *idx = sp_xmalloc(n * sizeof *idx);
		unsigned *lines = sp_xmalloc(n * sizeof *lines), *cols = sp_xmalloc(n * sizeof *cols);
		size_t k = 0;
		for (size_t i = 0; i < l->nf; i++)
			if (l->f[i].file == fi && !l->f[i].line && l->f[i].pointer) {
				ptrs[k] = l->f[i].pointer;
				idx[k++] = i;
			}
		sp_jpos_resolve(f->text, f->len, ptrs, n, lines, cols);
		for (k = 0; k < n; k++) {
			l->f[idx[k]].line = lines[k];
			l->f[idx[k]].column = cols[k];
		}
		free(ptrs);
		free(idx);
		free(lines);
		free(cols);
	}
}

void sp_lint_run(sp_lint *l)
{
	for (size_t fi = 0; fi < l->nfiles; fi++) {
		if (l->files[fi].failed || l->files[fi].checked)
			continue;
		switch (l->files[fi].kind) {
		case SP_LK_OCI: sp_lint_oci_check(l, fi); break;
		case SP_LK_SECCOMP: sp_lint_seccomp_check(l, fi); break;
		case SP_LK_ALLOWLIST: sp_lint_allowlist_check(l, fi); break;
		case SP_LK_SQUID: sp_lint_squid_check(l, fi); break;
		case SP_LK_COMPOSE:
		case SP_LK_KUBE:
		case SP_LK_AUTO: break;
		}
	}
	sp_lint_relations_check(l);
	resolve_positions(l);
	if (l->nf > 1)
		qsort(l->f, l->nf, sizeof *l->f, finding_cmp);
}

int sp_lint_worst(const sp_lint *l)
{
	int worst = -1;
	for (size_t i = 0; i < l->nf; i++)
		if ((int)sp_lint_rules[l->f[i].rule].sev > worst)
			worst = (int)sp_lint_rules[l->f[i].rule].sev;
	return worst;
}

/* JSON parsing shared by the JSON kinds: duplicate keys are refused at parse time */
int sp_lint_json_parse(sp_lint_file *f, sp_error *err)
{
	json_error_t je;
	json_t *j = json_loadb(f->text, f->len, JSON_REJECT_DUPLICATES, &je);
	if (!j)
		return sp_usage(err, "%s:%d:%d: invalid JSON: %s", f->path, je.line, je.column, je.text);
	f->json = j;
	return 0;
}

int sp_lint_json_type_error(const sp_lint_file *f, const char *pointer, sp_error *err, const char *fmt, ...)
{
	unsigned line = 0, col = 0;
	char *p = (char *)pointer;
	sp_jpos_resolve(f->text, f->len, &p, 1, &line, &col);
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return sp_usage(err, "%s:%u:%u: %s: %s", f->path, line, col, pointer[0] ? pointer : "/", msg);
}
