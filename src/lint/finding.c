/* The floor of the lint module: the rule and kind tables, findings and how a
 * file's input error becomes one, and the JSON helpers every JSON kind uses.
 * The kinds (oci.c, seccomp.c, ...) and the run (lint.c) build on it; it
 * calls none of them. */
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
