/* The lint run: files in, kinds detected, parsed, checked, findings out. */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lint/lint.h"

/* One row a kind: how its text is read (a JSON kind parses, then validates
 * the types it reads; squid parses; compose and kube are linted document by
 * document while yamlrun.c reads them), what checks it after every file is
 * in (its table of rule checks, checkreg.h: a new rule never touches this
 * row), and whether it is a sandbox config that may carry proxy settings.
 * Adding a kind: a row here, its name in finding.c and its module. */
struct kind_ops {
	int (*parse)(sp_lint_file *f, sp_error *err);
	int (*validate)(sp_lint_file *f, sp_error *err);
	void (*check)(sp_lint *l, size_t fi);
	bool yaml;
	bool sandbox;
};
static const struct kind_ops kinds[] = {
	[SP_LK_AUTO] = {0},
	[SP_LK_OCI] = {sp_lint_json_parse, sp_lint_oci_validate, sp_lint_oci_check, false, true},
	[SP_LK_ALLOWLIST] = {sp_lint_json_parse, sp_lint_allowlist_validate, sp_lint_allowlist_check, false, false},
	[SP_LK_SECCOMP] = {sp_lint_json_parse, sp_lint_seccomp_validate, sp_lint_seccomp_check, false, false},
	[SP_LK_COMPOSE] = {NULL, NULL, NULL, true, true},
	[SP_LK_KUBE] = {NULL, NULL, NULL, true, false},
	[SP_LK_SQUID] = {sp_lint_squid_parse, NULL, sp_lint_squid_check, false, false},
};

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
	} else {
		const struct kind_ops *o = &kinds[k];
		if (o->yaml) {
			f->is_sandbox = o->sandbox;
			f->checked = true;
			return sp_lint_yaml_run(l, fi, c == '{', err);
		}
		int rc = o->parse(f, err);
		if (rc < 0 || !o->validate)
			return rc;
	}
	const struct kind_ops *o = &kinds[f->kind];
	if (!o->validate)
		return 0;
	if (o->sandbox)
		f->is_sandbox = true;
	return o->validate(f, err);
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
		const struct kind_ops *o = &kinds[l->files[fi].kind];
		if (o->check)
			o->check(l, fi);
	}
	sp_lint_relations_check(l);
	resolve_positions(l);
	if (l->nf > 1)
		qsort(l->f, l->nf, sizeof *l->f, finding_cmp);
}
