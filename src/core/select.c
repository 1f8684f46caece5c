#include "core/select.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

enum node_kind { N_WORD, N_AND, N_OR, N_NOT };

struct sp_kexpr {
	enum node_kind kind;
	char *word;
	struct sp_kexpr *a, *b;
};

struct parser {
	const char *s;
	const char *expr;
	bool (*known)(const char *);
	sp_error *err;
	char tok[256];
	int tok_kind; /* 0 end, 1 word, '(' ')' */
};

static int next(struct parser *p)
{
	while (isspace((unsigned char)*p->s))
		p->s++;
	if (!*p->s)
		return p->tok_kind = 0;
	if (*p->s == '(' || *p->s == ')') {
		p->tok[0] = *p->s;
		p->tok[1] = '\0';
		return p->tok_kind = *p->s++;
	}
	size_t n = 0;
	while (*p->s && !isspace((unsigned char)*p->s) && *p->s != '(' && *p->s != ')') {
		if (n + 1 < sizeof p->tok)
			p->tok[n++] = *p->s;
		p->s++;
	}
	p->tok[n] = '\0';
	return p->tok_kind = 1;
}

static bool is_kw(const struct parser *p, const char *kw)
{
	return p->tok_kind == 1 && !strcmp(p->tok, kw);
}

static sp_kexpr *node(enum node_kind k, sp_kexpr *a, sp_kexpr *b)
{
	sp_kexpr *n = sp_xcalloc(1, sizeof *n);
	n->kind = k;
	n->a = a;
	n->b = b;
	return n;
}

static sp_kexpr *parse_or(struct parser *p);

static sp_kexpr *parse_primary(struct parser *p)
{
	if (p->tok_kind == '(') {
		next(p);
		sp_kexpr *e = parse_or(p);
		if (!e)
			return NULL;
		if (p->tok_kind != ')') {
			sp_usage(p->err, "-k '%s': missing ')'", p->expr);
			sp_kexpr_free(e);
			return NULL;
		}
		next(p);
		return e;
	}
	if (p->tok_kind == 0) {
		sp_usage(p->err, "-k '%s': expression ends too early", p->expr);
		return NULL;
	}
	if (p->tok_kind == ')' || is_kw(p, "and") || is_kw(p, "or")) {
		sp_usage(p->err, "-k '%s': unexpected '%s'", p->expr, p->tok);
		return NULL;
	}
	if ((!strncmp(p->tok, "id:", 3) || !strncmp(p->tok, "cat:", 4)) && !strchr(p->tok, ':')[1]) {
		sp_usage(p->err, "-k '%s': '%s' names nothing after ':'", p->expr, p->tok);
		return NULL;
	}
	if (p->known && !p->known(p->tok)) {
		sp_usage(p->err, "-k '%s': '%s' matches no check id or category", p->expr, p->tok);
		return NULL;
	}
	sp_kexpr *n = node(N_WORD, NULL, NULL);
	n->word = sp_xstrdup(p->tok);
	next(p);
	return n;
}

static sp_kexpr *parse_not(struct parser *p)
{
	if (is_kw(p, "not")) {
		next(p);
		sp_kexpr *e = parse_not(p);
		return e ? node(N_NOT, e, NULL) : NULL;
	}
	return parse_primary(p);
}

static sp_kexpr *parse_and(struct parser *p)
{
	sp_kexpr *l = parse_not(p);
	while (l && is_kw(p, "and")) {
		next(p);
		sp_kexpr *r = parse_not(p);
		if (!r) {
			sp_kexpr_free(l);
			return NULL;
		}
		l = node(N_AND, l, r);
	}
	return l;
}

static sp_kexpr *parse_or(struct parser *p)
{
	sp_kexpr *l = parse_and(p);
	while (l && is_kw(p, "or")) {
		next(p);
		sp_kexpr *r = parse_and(p);
		if (!r) {
			sp_kexpr_free(l);
			return NULL;
		}
		l = node(N_OR, l, r);
	}
	return l;
}

int sp_kexpr_parse(const char *expr, bool (*known)(const char *), sp_kexpr **out, sp_error *err)
{
	struct parser p = {.s = expr, .expr = expr, .known = known, .err = err};
	*out = NULL;
	next(&p);
	if (p.tok_kind == 0)
		return sp_usage(err, "-k: empty expression");
	sp_kexpr *e = parse_or(&p);
	if (!e)
		return -1;
	if (p.tok_kind != 0) {
		sp_kexpr_free(e);
		return sp_usage(err, "-k '%s': unexpected '%s'", expr, p.tok);
	}
	*out = e;
	return 0;
}

static bool is_glob(const char *w)
{
	return strpbrk(w, "*?[") != NULL;
}

bool sp_kword_match(const char *word, const char *id, const char *category)
{
	if (!strncmp(word, "id:", 3))
		return fnmatch(word + 3, id, 0) == 0;
	if (!strncmp(word, "cat:", 4))
		return fnmatch(word + 4, category, 0) == 0;
	if (is_glob(word))
		return fnmatch(word, id, 0) == 0 || fnmatch(word, category, 0) == 0;
	return strstr(id, word) || strstr(category, word);
}

bool sp_kexpr_match(const sp_kexpr *e, const char *id, const char *category)
{
	switch (e->kind) {
	case N_WORD: return sp_kword_match(e->word, id, category);
	case N_AND: return sp_kexpr_match(e->a, id, category) && sp_kexpr_match(e->b, id, category);
	case N_OR: return sp_kexpr_match(e->a, id, category) || sp_kexpr_match(e->b, id, category);
	case N_NOT: return !sp_kexpr_match(e->a, id, category);
	}
	return false;
}

void sp_kexpr_free(sp_kexpr *e)
{
	if (!e)
		return;
	sp_kexpr_free(e->a);
	sp_kexpr_free(e->b);
	free(e->word);
	free(e);
}
