/* Readers of A3S Box evidence (see a3s.h). */
#include "a3s/a3s.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static char *load(const char *dir, const char *name, size_t *len, sp_error *err)
{
	_cleanup_free_ char *p = sp_xasprintf("%s/%s", dir, name);
	int e = 0;
	char *buf = sp_ev_read_all(p, A3S_MAX_FILE, len, &e);
	if (!buf) {
		if (e == EFBIG)
			sp_usage(err, "%s: larger than %u MiB", name, A3S_MAX_FILE >> 20);
		else
			sp_usage(err, "%s: %s", name, sp_ev_strerror(e));
		return NULL;
	}
	if (*len == 0) {
		free(buf);
		sp_usage(err, "%s: empty", name);
		return NULL;
	}
	return buf;
}

bool a3s_is_uint(const char *s, long long *out)
{
	size_t n = s ? strlen(s) : 0;
	return sp_ev_parse_int(s ? s : "", n, out) == 0;
}

/* ---- key=value among free text ----------------------------------------- */
static bool key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
	       c == '-';
}

void a3s_kv_parse(a3s_kv *kv, const char *buf, size_t len)
{
	unsigned line = 0;
	for (const char *l = buf; l < buf + len;) {
		const char *nl = memchr(l, '\n', (size_t)(buf + len - l));
		size_t ll = nl ? (size_t)(nl - l) : (size_t)(buf + len - l);
		line++;
		if (ll >= 16 && !memcmp(l, "selected_suites:", 16))
			kv->suites_colon = true;
		const char *eq = memchr(l, '=', ll);
		size_t kl = eq ? (size_t)(eq - l) : 0;
		bool keyed = kl > 0;
		for (size_t i = 0; keyed && i < kl; i++)
			keyed = key_char(l[i]);
		if (keyed) {
			if (kv->n == kv->cap) {
				kv->cap = kv->cap ? 2 * kv->cap : 32;
				kv->v = sp_xrealloc(kv->v, kv->cap * sizeof *kv->v);
			}
			sp_ev_kv *e = &kv->v[kv->n];
			e->key = sp_xstrndup(l, kl);
			size_t vl = ll - kl - 1;
			if (vl && eq[vl] == '\r')
				vl--;
			e->value = sp_xstrndup(eq + 1, vl);
			e->line = line;
			size_t first = sp_strset_put(&kv->set, e->key, kl, kv->n);
			if (first == SIZE_MAX) {
				kv->n++;
			} else {
				if (strcmp(kv->v[first].value, e->value) && !kv->conflict[0])
					snprintf(kv->conflict, sizeof kv->conflict,
						 "line %u: key %.60s given twice with different values (first on line %u)", line,
						 e->key, kv->v[first].line);
				free(e->key);
				free(e->value);
			}
		}
		l = nl ? nl + 1 : buf + len;
	}
}

int a3s_kv_load(a3s_kv *kv, const char *dir, const char *name, sp_error *err)
{
	memset(kv, 0, sizeof *kv);
	size_t len = 0;
	_cleanup_free_ char *buf = load(dir, name, &len, err);
	if (!buf)
		return -1;
	a3s_kv_parse(kv, buf, len);
	return 0;
}

const char *a3s_kv_get(const a3s_kv *kv, const char *key)
{
	size_t i = sp_strset_get(&kv->set, key, strlen(key));
	return i == SIZE_MAX ? NULL : kv->v[i].value;
}

unsigned a3s_kv_line(const a3s_kv *kv, const char *key)
{
	size_t i = sp_strset_get(&kv->set, key, strlen(key));
	return i == SIZE_MAX ? 0 : kv->v[i].line;
}

void a3s_kv_free(a3s_kv *kv)
{
	sp_kv_free(kv->v, kv->n);
	sp_strset_free(&kv->set);
	memset(kv, 0, sizeof *kv);
}

/* ---- tables -------------------------------------------------------------- */
void a3s_table_free(a3s_table *t)
{
	free(t->copy);
	free(t->hdr);
	free(t->cell);
	free(t->line);
	memset(t, 0, sizeof *t);
}

int a3s_table_load(a3s_table *t, const char *dir, const char *name, sp_error *err)
{
	memset(t, 0, sizeof *t);
	size_t len = 0;
	t->copy = load(dir, name, &len, err);
	if (!t->copy)
		return -1;
	if (memchr(t->copy, '\0', len)) {
		a3s_table_free(t);
		return sp_usage(err, "%s: contains a NUL byte", name);
	}
	size_t cap = 0;
	unsigned line = 0;
	_cleanup_strset_ sp_ev_strset cols = {0};
	for (char *l = t->copy; l < t->copy + len;) {
		char *nl = memchr(l, '\n', (size_t)(t->copy + len - l));
		char *end = nl ? nl : t->copy + len;
		*end = '\0';
		if (end > l && end[-1] == '\r')
			end[-1] = '\0';
		line++;
		bool blank = true;
		for (char *c = l; *c && blank; c++)
			blank = *c == ' ' || *c == '\t';
		if (line > 1 && blank) {
			l = end + 1;
			continue;
		}
		for (char *c = l; *c; c++)
			if ((unsigned char)*c < 0x20 && *c != '\t') {
				unsigned bad = (unsigned char)*c;
				a3s_table_free(t);
				return sp_usage(err, "%s line %u: control character 0x%02x", name, line, bad);
			}
		/* split at tabs */
		size_t nf = 1;
		for (char *c = l; *c; c++)
			nf += *c == '\t';
		if (line == 1) {
			t->ncol = nf;
			t->hdr = sp_xcalloc(nf, sizeof *t->hdr);
			char *f = l;
			for (size_t k = 0; k < nf; k++) {
				char *tab = strchr(f, '\t');
				if (tab)
					*tab = '\0';
				t->hdr[k] = f;
				if (!*f) {
					a3s_table_free(t);
					return sp_usage(err, "%s line 1: header column %zu is empty", name, k + 1);
				}
				if (sp_strset_put(&cols, f, strlen(f), k) != SIZE_MAX) {
					int r = sp_usage(err, "%s line 1: column '%.60s' appears twice in the header", name, f);
					a3s_table_free(t);
					return r;
				}
				f = tab ? tab + 1 : f + strlen(f);
			}
		} else {
			if (nf != t->ncol) {
				a3s_table_free(t);
				return sp_usage(err, "%s line %u: %zu fields, the header has %zu", name, line, nf,
						 t->ncol);
			}
			if (t->nrow == cap) {
				cap = cap ? 2 * cap : 64;
				t->cell = sp_xrealloc(t->cell, cap * t->ncol * sizeof *t->cell);
				t->line = sp_xrealloc(t->line, cap * sizeof *t->line);
			}
			char *f = l;
			for (size_t k = 0; k < nf; k++) {
				char *tab = strchr(f, '\t');
				if (tab)
					*tab = '\0';
				t->cell[t->nrow * t->ncol + k] = f;
				f = tab ? tab + 1 : f + strlen(f);
			}
			t->line[t->nrow++] = line;
		}
		l = end + 1;
	}
	return 0;
}

int a3s_table_col(const a3s_table *t, const char *name)
{
	for (size_t i = 0; i < t->ncol; i++)
		if (!strcmp(t->hdr[i], name))
			return (int)i;
	return -1;
}

const char *a3s_cell(const a3s_table *t, size_t row, int col)
{
	return col < 0 || row >= t->nrow ? "" : t->cell[row * t->ncol + (size_t)col];
}

/* ---- text artifacts ------------------------------------------------------ */
int a3s_text_load(a3s_text *x, const char *dir, const char *name, sp_error *err)
{
	memset(x, 0, sizeof *x);
	x->buf = load(dir, name, &x->len, err);
	return x->buf ? 0 : -1;
}

void a3s_text_free(a3s_text *x)
{
	free(x->buf);
	memset(x, 0, sizeof *x);
}

static bool starts(const char *l, size_t ll, const char *p)
{
	size_t n = strlen(p);
	return ll >= n && !memcmp(l, p, n);
}

unsigned a3s_kubectl_error(const a3s_text *x)
{
	static const char *const prefixes[] = {"Error from server", "The connection to the server",
					       "Unable to connect to the server", "Unable to connect", "error: "};
	unsigned line = 0;
	for (const char *l = x->buf; l && l < x->buf + x->len;) {
		const char *nl = memchr(l, '\n', (size_t)(x->buf + x->len - l));
		size_t ll = nl ? (size_t)(nl - l) : (size_t)(x->buf + x->len - l);
		line++;
		for (size_t i = 0; i < SP_ARRAY_SIZE(prefixes); i++)
			if (starts(l, ll, prefixes[i]))
				return line;
		l = nl ? nl + 1 : NULL;
	}
	return 0;
}

unsigned a3s_line_starting(const a3s_text *x, const char *prefix)
{
	unsigned line = 0;
	for (const char *l = x->buf; l && l < x->buf + x->len;) {
		const char *nl = memchr(l, '\n', (size_t)(x->buf + x->len - l));
		size_t ll = nl ? (size_t)(nl - l) : (size_t)(x->buf + x->len - l);
		line++;
		if (starts(l, ll, prefix))
			return line;
		l = nl ? nl + 1 : NULL;
	}
	return 0;
}

size_t a3s_count_lines_with(const a3s_text *x, const char *needle)
{
	size_t n = 0, nl_ = strlen(needle);
	for (const char *l = x->buf; l && l < x->buf + x->len;) {
		const char *nl = memchr(l, '\n', (size_t)(x->buf + x->len - l));
		size_t ll = nl ? (size_t)(nl - l) : (size_t)(x->buf + x->len - l);
		if (nl_ <= ll && memmem(l, ll, needle, nl_))
			n++;
		l = nl ? nl + 1 : NULL;
	}
	return n;
}

void a3s_rows_make(a3s_rows *rs, const a3s_text *x)
{
	memset(rs, 0, sizeof *rs);
	rs->copy = sp_xmalloc(x->len + 1);
	memcpy(rs->copy, x->buf, x->len);
	rs->copy[x->len] = '\0';
	rs->copy2 = sp_xmalloc(x->len + 1);
	memcpy(rs->copy2, x->buf, x->len);
	rs->copy2[x->len] = '\0';
	size_t cap = 0;
	unsigned line = 0;
	char *text = rs->copy2;
	for (char *l = rs->copy; l < rs->copy + x->len;) {
		char *nl = memchr(l, '\n', (size_t)(rs->copy + x->len - l));
		char *end = nl ? nl : rs->copy + x->len;
		*end = '\0';
		char *tl = text + (l - rs->copy);
		tl[end - l] = '\0';
		line++;
		a3s_row row = {.line = line, .text = tl};
		for (char *c = l; *c;) {
			while (*c == ' ' || *c == '\t' || *c == '\r')
				*c++ = '\0';
			if (!*c)
				break;
			if (row.nf < SP_ARRAY_SIZE(row.f))
				row.f[row.nf++] = c;
			while (*c && *c != ' ' && *c != '\t' && *c != '\r')
				c++;
		}
		if (row.nf) {
			if (rs->n == cap) {
				cap = cap ? 2 * cap : 32;
				rs->r = sp_xrealloc(rs->r, cap * sizeof *rs->r);
			}
			rs->r[rs->n++] = row;
		}
		l = end + 1;
	}
}

void a3s_rows_free(a3s_rows *rs)
{
	free(rs->copy);
	free(rs->copy2);
	free(rs->r);
	memset(rs, 0, sizeof *rs);
}

/* ---- which bundle is this ------------------------------------------------ */
enum sp_input sp_input_detect(const char *dir)
{
	sp_error e;
	a3s_kv kv;
	if (a3s_kv_load(&kv, dir, "metadata.txt", &e) < 0)
		return SP_INPUT_SANDPROBE; /* and metadata.txt's gates say what is wrong */
	enum sp_input in = SP_INPUT_SANDPROBE;
	const char *schema = a3s_kv_get(&kv, "schema"), *rc = a3s_kv_get(&kv, "runtime_class");
	if (!schema && ((rc && *rc) || a3s_kv_get(&kv, "selected_suites") || kv.suites_colon))
		in = SP_INPUT_A3S;
	a3s_kv_free(&kv);
	return in;
}
