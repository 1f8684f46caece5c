/* Positions of JSON pointers in JSON text. jansson reports positions only for
 * parse errors, so after a file has parsed we scan its text once, keeping the
 * current pointer, and record where each wanted pointer (or its nearest
 * ancestor) starts. The text has already been validated by jansson; the
 * scanner still checks every bound and simply stops on anything unexpected. */
#include <stdlib.h>
#include <string.h>

#include "lint/lint.h"

static void ptr_escape_into(char **buf, size_t *len, size_t *cap, const char *key, size_t klen)
{
	for (size_t i = 0; i < klen; i++) {
		const char *rep = NULL;
		if (key[i] == '~')
			rep = "~0";
		else if (key[i] == '/')
			rep = "~1";
		size_t need = rep ? 2 : 1;
		if (*len + need + 1 > *cap) {
			*cap = (*cap + need + 1) * 2;
			*buf = sp_xrealloc(*buf, *cap);
		}
		if (rep) {
			(*buf)[(*len)++] = rep[0];
			(*buf)[(*len)++] = rep[1];
		} else {
			(*buf)[(*len)++] = key[i];
		}
	}
	(*buf)[*len] = '\0';
}

char *sp_jptr_join(const char *base, const char *key)
{
	size_t len = strlen(base ? base : ""), cap = len + strlen(key) + 8;
	char *p = sp_xmalloc(cap);
	memcpy(p, base ? base : "", len);
	p[len++] = '/';
	p[len] = '\0';
	ptr_escape_into(&p, &len, &cap, key, strlen(key));
	return p;
}

char *sp_jptr_index(const char *base, size_t idx)
{
	return sp_xasprintf("%s/%zu", base ? base : "", idx);
}

struct want {
	const char *ptr;
	unsigned line, col;
};

struct scan {
	const char *s;
	size_t n, i;
	unsigned line;
	size_t line_start;
	char *ptr; /* current pointer */
	size_t plen, pcap;
	char *key; /* decoded key scratch */
	size_t kcap;
	struct want *w;
	size_t nw;
	size_t found;
	int depth;
	bool bad;
};

static int want_cmp(const void *a, const void *b)
{
	return strcmp(((const struct want *)a)->ptr, ((const struct want *)b)->ptr);
}

static void mark(struct scan *sc, unsigned line, unsigned col)
{
	struct want key = {.ptr = sc->ptr};
	struct want *w = bsearch(&key, sc->w, sc->nw, sizeof *sc->w, want_cmp);
	if (w && !w->line) {
		w->line = line;
		w->col = col;
		sc->found++;
	}
}

static void ws(struct scan *sc)
{
	while (sc->i < sc->n) {
		char c = sc->s[sc->i];
		if (c == '\n') {
			sc->line++;
			sc->line_start = sc->i + 1;
		} else if (c != ' ' && c != '\t' && c != '\r') {
			break;
		}
		sc->i++;
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool hex4(struct scan *sc, size_t at, unsigned *out)
{
	if (at + 4 > sc->n)
		return false;
	unsigned v = 0;
	for (size_t k = 0; k < 4; k++) {
		int h = hexval(sc->s[at + k]);
		if (h < 0)
			return false;
		v = v * 16 + (unsigned)h;
	}
	*out = v;
	return true;
}

static void key_put(struct scan *sc, size_t *klen, const char *bytes, size_t nb)
{
	if (*klen + nb + 1 > sc->kcap) {
		sc->kcap = (*klen + nb + 1) * 2;
		sc->key = sp_xrealloc(sc->key, sc->kcap);
	}
	memcpy(sc->key + *klen, bytes, nb);
	*klen += nb;
}

/* string at sc->i (a '"'); decode into sc->key when decode, else skip */
static bool string(struct scan *sc, bool decode, size_t *klen)
{
	sc->i++;
	if (klen)
		*klen = 0;
	while (sc->i < sc->n) {
		char c = sc->s[sc->i];
		if (c == '"') {
			sc->i++;
			return true;
		}
		if (c != '\\') {
			if (decode) {
				/* copy a run of plain bytes at once */
				size_t j = sc->i;
				while (j < sc->n && sc->s[j] != '"' && sc->s[j] != '\\')
					j++;
				key_put(sc, klen, sc->s + sc->i, j - sc->i);
				sc->i = j;
			} else {
				const char *q = memchr(sc->s + sc->i, '"', sc->n - sc->i);
				const char *b = memchr(sc->s + sc->i, '\\', sc->n - sc->i);
				const char *stop = q && (!b || q < b) ? q : b;
				if (!stop)
					return false;
				sc->i = (size_t)(stop - sc->s);
			}
			continue;
		}
		if (sc->i + 1 >= sc->n)
			return false;
		char e = sc->s[sc->i + 1];
		sc->i += 2;
		if (!decode) {
			if (e == 'u')
				sc->i += 4;
			continue;
		}
		char one;
		switch (e) {
		case 'b': one = '\b'; break;
		case 'f': one = '\f'; break;
		case 'n': one = '\n'; break;
		case 'r': one = '\r'; break;
		case 't': one = '\t'; break;
		case 'u': {
			unsigned cp;
			if (!hex4(sc, sc->i, &cp))
				return false;
			sc->i += 4;
			if (cp >= 0xD800 && cp < 0xDC00 && sc->i + 6 <= sc->n && sc->s[sc->i] == '\\' &&
			    sc->s[sc->i + 1] == 'u') {
				unsigned lo;
				if (hex4(sc, sc->i + 2, &lo) && lo >= 0xDC00 && lo < 0xE000) {
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					sc->i += 6;
				}
			}
			char u[4];
			size_t nb;
			if (cp < 0x80) {
				u[0] = (char)cp;
				nb = 1;
			} else if (cp < 0x800) {
				u[0] = (char)(0xC0 | (cp >> 6));
				u[1] = (char)(0x80 | (cp & 0x3F));
				nb = 2;
			} else if (cp < 0x10000) {
				u[0] = (char)(0xE0 | (cp >> 12));
				u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
				u[2] = (char)(0x80 | (cp & 0x3F));
				nb = 3;
			} else {
				u[0] = (char)(0xF0 | (cp >> 18));
				u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
				u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
				u[3] = (char)(0x80 | (cp & 0x3F));
				nb = 4;
			}
			key_put(sc, klen, u, nb);
			continue;
		}
		default: one = e; break;
		}
		key_put(sc, klen, &one, 1);
	}
	return false;
}

static void push(struct scan *sc, const char *seg, size_t seglen, bool escape)
{
	if (sc->plen + 1 + 1 > sc->pcap) {
		sc->pcap = (sc->pcap + 2) * 2;
		sc->ptr = sp_xrealloc(sc->ptr, sc->pcap);
	}
	sc->ptr[sc->plen++] = '/';
	sc->ptr[sc->plen] = '\0';
	if (escape) {
		ptr_escape_into(&sc->ptr, &sc->plen, &sc->pcap, seg, seglen);
	} else {
		if (sc->plen + seglen + 1 > sc->pcap) {
			sc->pcap = (sc->plen + seglen + 1) * 2;
			sc->ptr = sp_xrealloc(sc->ptr, sc->pcap);
		}
		memcpy(sc->ptr + sc->plen, seg, seglen);
		sc->plen += seglen;
		sc->ptr[sc->plen] = '\0';
	}
}

static void value(struct scan *sc);

/* After a member or an element: drop its path segment, then true when a
 * ',' announces another, false at the closing character (consumed) or on
 * malformed input (sc->bad). */
static bool next_item(struct scan *sc, size_t save, char close)
{
	sc->plen = save;
	sc->ptr[save] = '\0';
	ws(sc);
	if (sc->i < sc->n && sc->s[sc->i] == ',') {
		sc->i++;
		return true;
	}
	if (sc->i < sc->n && sc->s[sc->i] == close)
		sc->i++;
	else
		sc->bad = true;
	return false;
}

static void object(struct scan *sc)
{
	size_t save = sc->plen;
	sc->i++;
	ws(sc);
	if (sc->i < sc->n && sc->s[sc->i] == '}') {
		sc->i++;
		return;
	}
	while (!sc->bad && sc->i < sc->n && sc->found < sc->nw) {
		ws(sc);
		if (sc->i >= sc->n || sc->s[sc->i] != '"') {
			sc->bad = true;
			return;
		}
		unsigned kl = sc->line, kc = (unsigned)(sc->i - sc->line_start + 1);
		size_t klen = 0;
		if (!string(sc, true, &klen)) {
			sc->bad = true;
			return;
		}
		push(sc, sc->key, klen, true);
		mark(sc, kl, kc);
		ws(sc);
		if (sc->i >= sc->n || sc->s[sc->i] != ':') {
			sc->bad = true;
			return;
		}
		sc->i++;
		ws(sc);
		value(sc);
		if (next_item(sc, save, '}'))
			continue;
		return;
	}
}

static void array(struct scan *sc)
{
	size_t save = sc->plen;
	sc->i++;
	ws(sc);
	if (sc->i < sc->n && sc->s[sc->i] == ']') {
		sc->i++;
		return;
	}
	for (size_t idx = 0; !sc->bad && sc->i < sc->n && sc->found < sc->nw; idx++) {
		ws(sc);
		char num[24];
		int nl = snprintf(num, sizeof num, "%zu", idx);
		push(sc, num, (size_t)nl, false);
		mark(sc, sc->line, (unsigned)(sc->i - sc->line_start + 1));
		value(sc);
		if (next_item(sc, save, ']'))
			continue;
		return;
	}
}

static void value(struct scan *sc)
{
	if (sc->i >= sc->n) {
		sc->bad = true;
		return;
	}
	if (++sc->depth > 4096) {
		sc->bad = true;
		return;
	}
	char c = sc->s[sc->i];
	if (c == '{')
		object(sc);
	else if (c == '[')
		array(sc);
	else if (c == '"') {
		if (!string(sc, false, NULL))
			sc->bad = true;
	} else {
		while (sc->i < sc->n && !strchr(",]} \t\r\n", sc->s[sc->i]))
			sc->i++;
	}
	sc->depth--;
}

void sp_jpos_resolve(const char *text, size_t len, char *const *ptrs, size_t n, unsigned *lines, unsigned *cols)
{
	/* wanted: every pointer and each of its ancestors */
	size_t cap = 16, nw = 0;
	struct want *w = sp_xmalloc(cap * sizeof *w);
	char **owned = sp_xcalloc(n + 1, sizeof *owned);
	for (size_t k = 0; k < n; k++) {
		lines[k] = cols[k] = 0;
		const char *p = ptrs[k] ? ptrs[k] : "";
		owned[k] = sp_xstrdup(p);
	}
	for (size_t k = 0; k < n; k++) {
		/* owned[k] stays intact; ancestors are prefixes ending before a '/' */
		size_t pl = strlen(owned[k]);
		for (size_t e = pl + 1; e-- > 0;) {
			if (e == pl || owned[k][e] == '/') {
				if (nw + 1 > cap) {
					cap *= 2;
					w = sp_xrealloc(w, cap * sizeof *w);
				}
				w[nw++] = (struct want){.ptr = sp_xstrndup(owned[k], e)};
			}
		}
	}
	qsort(w, nw, sizeof *w, want_cmp);
	size_t u = 0;
	for (size_t k = 0; k < nw; k++) {
		if (u && !strcmp(w[u - 1].ptr, w[k].ptr)) {
			free((char *)w[k].ptr);
			continue;
		}
		w[u++] = w[k];
	}
	nw = u;

	struct scan sc = {.s = text, .n = len, .line = 1, .w = w, .nw = nw};
	sc.pcap = 64;
	sc.ptr = sp_xmalloc(sc.pcap);
	sc.ptr[0] = '\0';
	ws(&sc);
	mark(&sc, sc.line, (unsigned)(sc.i - sc.line_start + 1)); /* "" : the root */
	value(&sc);

	for (size_t k = 0; k < n; k++) {
		char *p = owned[k];
		for (;;) {
			struct want key = {.ptr = p};
			struct want *hit = bsearch(&key, w, nw, sizeof *w, want_cmp);
			if (hit && hit->line) {
				lines[k] = hit->line;
				cols[k] = hit->col;
				break;
			}
			char *slash = strrchr(p, '/');
			if (!slash)
				break;
			*slash = '\0';
		}
		free(p);
	}
	for (size_t k = 0; k < nw; k++)
		free((char *)w[k].ptr);
	free(w);
	free(owned);
	free(sc.ptr);
	free(sc.key);
}
