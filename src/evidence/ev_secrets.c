/* The one list of secret shapes: the soak writer redacts with it and the
 * verifier (logs.redacted) detects with it, so the two cannot drift apart. A
 * value already replaced by [REDACTED] is never a finding, and the writer
 * re-checks its own output with the finder, so a log it wrote can never trip
 * the verifier. Shapes are POSIX extended regular expressions on one line;
 * each names the group that holds the secret and a literal that any match
 * contains (a cheap prefilter before the regular expression runs). */
#include "evidence/evidence.h"

#include <ctype.h>
#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

#define REDACTED "[REDACTED]"

static const struct shape {
	const char *name;
	const char *re;
	int group;		/* the secret; 0 = the whole match */
	bool icase;
	const char *const lit[8]; /* any of these (lowercase when icase) must occur */
} shapes[] = {
	{"a key=value credential",
	 "(pass(word|wd)?|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?|session[_-]?id)"
	 "[A-Za-z0-9_.-]*[\"']?[[:space:]]*[:=][[:space:]]*[\"']?([^[:space:]\"',;&]{3,})",
	 3, true, {"pass", "pwd", "secret", "token", "key", "credential", "session"}},
	{"an Authorization header",
	 "(authorization|proxy-authorization)[\"']?[[:space:]]*[:=][[:space:]]*(bearer[[:space:]]+|basic[[:space:]]+|token[[:space:]]+)?"
	 "([^[:space:]\"',;]{6,})",
	 3, true, {"authorization"}},
	{"a bearer token", "bearer[[:space:]]+([A-Za-z0-9._~+/=-]{8,})", 1, true, {"bearer"}},
	{"a URL with a password", "://[^/:@[:space:]]+:([^/@[:space:]]+)@", 1, false, {"://"}},
	{"an AWS access key id", "(AKIA|ASIA)[0-9A-Z]{16}", 0, false, {"AKIA", "ASIA"}},
	{"a GitHub token", "(ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}", 0, false, {"gh", "github_pat"}},
	{"an API key (sk-, sk-proj-)", "sk-[A-Za-z0-9_-]{20,}", 0, false, {"sk-"}},
	{"a Slack token", "xox[abprs]-[A-Za-z0-9-]{10,}", 0, false, {"xox"}},
	{"a JSON web token", "eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}", 0, false, {"eyJ"}},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

/* the first line of a private key block (PEM, OpenSSH, PGP) */
static const char key_begin_re[] = "-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----";

static regex_t rx[NSHAPES], rx_begin;
static pthread_once_t rx_once = PTHREAD_ONCE_INIT;
static bool rx_ok;

static void rx_init(void)
{
	rx_ok = regcomp(&rx_begin, key_begin_re, REG_EXTENDED) == 0;
	for (size_t i = 0; i < NSHAPES; i++)
		if (regcomp(&rx[i], shapes[i].re, REG_EXTENDED | (shapes[i].icase ? REG_ICASE : 0)) != 0)
			rx_ok = false;
}

bool sp_secret_ready(void)
{
	pthread_once(&rx_once, rx_init);
	return rx_ok;
}

size_t sp_secret_shape_count(void)
{
	return NSHAPES + 1;
}

static bool has_lit(const struct shape *sh, const char *line, const char *lower)
{
	for (size_t k = 0; k < SP_ARRAY_SIZE(sh->lit) && sh->lit[k]; k++)
		if (strstr(sh->icase ? lower : line, sh->lit[k]))
			return true;
	return false;
}

bool sp_secret_key_begin(const char *line)
{
	if (!sp_secret_ready() || !strstr(line, "-----BEGIN"))
		return false;
	return regexec(&rx_begin, line, 0, NULL, 0) == 0;
}

bool sp_secret_key_end(const char *line)
{
	return strstr(line, "-----END") != NULL;
}

/* earliest secret at or after off in the NUL-terminated line; lower is the
 * line in lowercase (for the prefilter) */
static bool find_from(const char *line, const char *lower, size_t off, size_t *so, size_t *eo, const char **name)
{
	bool found = false;
	for (size_t i = 0; i < NSHAPES; i++) {
		if (!has_lit(&shapes[i], line + off, lower + off))
			continue;
		size_t o = off;
		regmatch_t m[5];
		while (line[o] && regexec(&rx[i], line + o, 5, m, o ? REG_NOTBOL : 0) == 0) {
			regmatch_t g = m[shapes[i].group];
			size_t s = o + (size_t)g.rm_so, e = o + (size_t)g.rm_eo;
			if (g.rm_so >= 0 && e > s && !(e - s == strlen(REDACTED) && !memcmp(line + s, REDACTED, e - s))) {
				/* the earliest, and of those the longest: two shapes over one value
				 * (a key=value whose value is an Authorization header's) are
				 * redacted as one */
				if (!found || s < *so || (s == *so && e > *eo)) {
					*so = s;
					*eo = e;
					*name = shapes[i].name;
					found = true;
				}
				break;
			}
			/* an already redacted value: look further right */
			size_t next = o + (size_t)(m[0].rm_eo > m[0].rm_so ? m[0].rm_eo : m[0].rm_so + 1);
			if (next <= o)
				next = o + 1;
			o = next;
		}
	}
	return found;
}

static char *lowercase(const char *s, size_t n)
{
	char *l = sp_xmalloc(n + 1);
	for (size_t i = 0; i < n; i++)
		l[i] = (char)tolower((unsigned char)s[i]);
	l[n] = '\0';
	return l;
}

int sp_secret_find(const char *line, size_t off, size_t *so, size_t *eo, const char **name)
{
	if (!sp_secret_ready())
		return -1;
	if (sp_secret_key_begin(line)) {
		*so = 0;
		*eo = strlen(line);
		*name = "a private key block";
		return 1;
	}
	size_t n = strlen(line);
	if (off >= n)
		return 0;
	_cleanup_free_ char *lower = lowercase(line, n);
	return find_from(line, lower, off, so, eo, name) ? 1 : 0;
}

/* one line (NUL-terminated, no newline) redacted: a new string */
static char *redact_line(const char *line)
{
	char *cur = sp_xstrdup(line);
	size_t off = 0;
	for (int guard = 0; guard < 4096; guard++) {
		size_t so, eo;
		const char *name;
		if (sp_secret_find(cur, off, &so, &eo, &name) != 1)
			return cur;
		char *n = sp_xasprintf("%.*s" REDACTED "%s", (int)so, cur, cur + eo);
		free(cur);
		cur = n;
		/* from the line's start again: a shape whose match begins before
		 * this redaction (an Authorization header around a key=value) may
		 * still hold what is left of the value; a value that is exactly
		 * [REDACTED] is never found again, so each step removes a secret */
		off = 0;
	}
	/* cannot converge (cannot happen: each step consumes the line): the
	 * whole line goes */
	free(cur);
	return sp_xstrdup(REDACTED);
}

/* the writer's elision line (docs/evidence-format.md), exactly: "[... N
 * bytes elided ...]" with N decimal digits (kept verbatim, so it can hold
 * nothing else) */
static bool is_elision_line(const char *line)
{
	static const char pre[] = "[... ", post[] = " bytes elided ...]";
	if (strncmp(line, pre, sizeof pre - 1))
		return false;
	const char *d = line + sizeof pre - 1, *e = d;
	while (*e >= '0' && *e <= '9')
		e++;
	return e > d && e - d <= 20 && !strcmp(e, post);
}

static void out_put(char **out, size_t *olen, size_t *cap, const char *s, size_t n)
{
	if (*olen + n + 2 > *cap) {
		*cap = (*olen + n + 2) * 2;
		*out = sp_xrealloc(*out, *cap);
	}
	memcpy(*out + *olen, s, n);
	*olen += n;
}

/* Line by line. A private key block is redacted from its BEGIN line to its
 * END line; an END line without a BEGIN (the BEGIN was elided, or the text
 * starts inside the block) redacts every line back to the last barrier (the
 * start of the text or an elision line), so that the body of a key whose
 * first line was cut off never survives either. */
char *sp_secret_redact_into(const char *text, size_t len, char *out, size_t *capp, size_t *outlen)
{
	bool ok = sp_secret_ready();
	size_t cap = *capp, olen = 0;
	if (!out || cap < len + 64) {
		cap = len + 64;
		out = sp_xrealloc(out, cap);
	}
	bool in_key = false;
	size_t barrier = 0, since_barrier = 0; /* output offset and lines after it */
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = sp_xmalloc(ll + 1); /* not strndup: it would stop at a NUL byte */
		memcpy(line, p, ll);
		line[ll] = '\0';
		/* NUL bytes inside a line would hide the rest from the patterns */
		for (size_t i = 0; i < ll; i++)
			if (!line[i])
				line[i] = ' ';
		bool begin = sp_secret_key_begin(line), endk = sp_secret_key_end(line), elision = is_elision_line(line);
		char *red;
		if (elision) {
			red = sp_xstrdup(line); /* kept: says what was dropped; a key block stays open across it */
		} else if (!ok) {
			red = sp_xstrdup(REDACTED);
		} else if (begin) {
			in_key = !endk;
			red = sp_xstrdup(REDACTED);
		} else if (in_key) {
			if (endk)
				in_key = false;
			red = sp_xstrdup(REDACTED);
		} else if (endk) {
			/* the block's start is not in this text: everything since the barrier may be its body */
			olen = barrier;
			for (size_t i = 0; i < since_barrier; i++)
				out_put(&out, &olen, &cap, REDACTED "\n", strlen(REDACTED) + 1);
			red = sp_xstrdup(REDACTED);
		} else {
			red = redact_line(line);
		}
		out_put(&out, &olen, &cap, red, strlen(red));
		if (nl)
			out[olen++] = '\n';
		since_barrier++;
		if (elision && !in_key) {
			barrier = olen;
			since_barrier = 0;
		}
		free(red);
		free(line);
		p = nl ? nl + 1 : end;
	}
	out[olen] = '\0';
	if (outlen)
		*outlen = olen;
	*capp = cap;
	return out;
}

char *sp_secret_redact(const char *text, size_t len, size_t *outlen)
{
	size_t cap = 0;
	return sp_secret_redact_into(text, len, NULL, &cap, outlen);
}

int sp_secret_scan(char *buf, size_t len, unsigned *first_line, const char **first_name, size_t *hits)
{
	if (!sp_secret_ready())
		return -1;
	*hits = 0;
	unsigned line = 0;
	for (char *l = buf; l && l < buf + len;) {
		char *nl = memchr(l, '\n', (size_t)(buf + len - l));
		char *le = nl ? nl : buf + len;
		char save = *le;
		*le = '\0';
		line++;
		for (char *c = l; c < le; c++)
			if (!*c)
				*c = ' ';
		size_t so, eo;
		const char *name;
		if (sp_secret_find(l, 0, &so, &eo, &name) == 1 && !(*hits)++) {
			*first_line = line;
			*first_name = name;
		}
		*le = save;
		l = nl ? nl + 1 : NULL;
	}
	return 0;
}
