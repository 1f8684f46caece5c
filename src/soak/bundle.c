/* Evidence bundle writer (see bundle.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "soak/bundle.h"
#include "core/util.h"
#include "evidence/evidence.h"
#include "soak/sampler.h"

int sp_bundle_create(sp_bundle *b, const char *dir, sp_error *err)
{
	memset(b, 0, sizeof *b);
	b->dirfd = -1;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return sp_usage(err, "--out %s: cannot create: %s", dir, strerror(errno));
	if (sp_count_dir(dir) != 0)
		return sp_usage(err, "--out %s: exists and is not an empty directory", dir);
	char *abs = realpath(dir, NULL);
	if (!abs)
		return sp_usage(err, "--out %s: %s", dir, strerror(errno));
	b->dir = abs;
	b->dirfd = open(abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b->dirfd < 0)
		return sp_fail_errno(err, errno, "%s", abs);
	if (mkdirat(b->dirfd, "logs", 0755) < 0)
		return sp_fail_errno(err, errno, "%s/logs", abs);
	pthread_mutex_init(&b->mu, NULL);
	return 0;
}

void sp_bundle_close(sp_bundle *b)
{
	for (size_t i = 0; i < b->nlogs; i++) {
		free(b->logs[i]->name);
		free(b->logs[i]);
	}
	free(b->logs);
	if (b->dirfd >= 0)
		close(b->dirfd);
	free(b->dir);
	if (b->dir)
		pthread_mutex_destroy(&b->mu);
	memset(b, 0, sizeof *b);
	b->dirfd = -1;
}

int sp_bundle_write(sp_bundle *b, const char *name, const char *data, size_t len, sp_error *err)
{
	char tmp[512];
	snprintf(tmp, sizeof tmp, "%s.tmp", name);
	int fd = openat(b->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return sp_fail_errno(err, errno, "%s/%s", b->dir, tmp);
	int r = sp_write_all(fd, data, len);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	close(fd);
	if (r < 0 || renameat(b->dirfd, tmp, b->dirfd, name) < 0) {
		int e = r < 0 ? -r : errno;
		unlinkat(b->dirfd, tmp, 0);
		return sp_fail_errno(err, e, "%s/%s", b->dir, name);
	}
	return 0;
}

void sp_tsv_clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

/* ---- redaction ---- */
struct rx {
	const char *pat;
	int value_group; /* group holding the secret; 0 = the whole match */
	regex_t re;
};

static struct rx rxs[] = {
	/* key = value, key: value, "key": "value" */
	{"(pass(word|wd)?|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?|session[_-]?id)"
	 "[A-Za-z0-9_.-]*[\"']?[[:space:]]*[:=][[:space:]]*[\"']?([^[:space:]\"',;&]{3,})",
	 3, {0}},
	{"(authorization|proxy-authorization)[\"']?[[:space:]]*[:=][[:space:]]*(bearer[[:space:]]+|basic[[:space:]]+|token[[:space:]]+)?([^[:space:]\"',;]{6,})",
	 3, {0}},
	{"bearer[[:space:]]+([A-Za-z0-9._~+/=-]{8,})", 1, {0}},
	{"://[^/:@[:space:]]+:([^/@[:space:]]+)@", 1, {0}},
	{"(AKIA|ASIA)[0-9A-Z]{16}", 0, {0}},
	{"(ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}", 0, {0}},
	{"sk-[A-Za-z0-9_-]{20,}", 0, {0}},
	{"xox[abprs]-[A-Za-z0-9-]{10,}", 0, {0}},
	{"eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}", 0, {0}},
};
static pthread_once_t rx_once = PTHREAD_ONCE_INIT;
static int rx_ok;

static void rx_init(void)
{
	rx_ok = 1;
	for (size_t i = 0; i < SP_ARRAY_SIZE(rxs); i++)
		if (regcomp(&rxs[i].re, rxs[i].pat, REG_EXTENDED | REG_ICASE) != 0)
			rx_ok = 0;
}

/* redact one NUL-terminated line in place-ish: returns a new string */
static char *redact_line(const char *line)
{
	char *cur = sp_xstrdup(line);
	for (size_t i = 0; i < SP_ARRAY_SIZE(rxs); i++) {
		regmatch_t m[5];
		size_t off = 0;
		int guard = 0;
		while (guard++ < 64 && regexec(&rxs[i].re, cur + off, 5, m, off ? REG_NOTBOL : 0) == 0) {
			regmatch_t g = m[rxs[i].value_group];
			if (g.rm_so < 0) {
				off += (size_t)m[0].rm_eo > 0 ? (size_t)m[0].rm_eo : 1;
				continue;
			}
			size_t so = off + (size_t)g.rm_so, eo = off + (size_t)g.rm_eo;
			char *n = sp_xasprintf("%.*s[REDACTED]%s", (int)so, cur, cur + eo);
			free(cur);
			cur = n;
			off = so + strlen("[REDACTED]");
			if (!cur[off])
				break;
		}
	}
	return cur;
}

static bool is_elision_line(const char *line)
{
	return sp_startswith(line, "[... ") && sp_endswith(line, " bytes elided ...]");
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
static char *redact_into(const char *text, size_t len, char *out, size_t *capp, size_t *outlen)
{
	pthread_once(&rx_once, rx_init);
	size_t cap = *capp, olen = 0;
	if (!out || cap < len + 64) {
		cap = len + 64;
		out = sp_xrealloc(out, cap);
	}
	int in_key = 0;
	size_t barrier = 0, since_barrier = 0; /* output offset and lines after it */
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		/* a copy of the line: NUL bytes inside it would hide the rest from
		 * the patterns (and from the string functions), so they become spaces */
		char *line = sp_xmalloc(ll + 1);
		memcpy(line, p, ll);
		line[ll] = '\0';
		for (size_t i = 0; i < ll; i++)
			if (!line[i])
				line[i] = ' ';
		bool begin = strstr(line, "-----BEGIN") && strstr(line, "PRIVATE KEY");
		bool endk = strstr(line, "-----END") && strstr(line, "PRIVATE KEY");
		char *red = NULL;
		if (is_elision_line(line)) {
			red = sp_xstrdup(line); /* kept: says what was dropped; a key block stays open across it */
		} else if (begin) {
			in_key = !endk;
			red = sp_xstrdup("[REDACTED]");
		} else if (in_key) {
			if (endk)
				in_key = 0;
			red = sp_xstrdup("[REDACTED]");
		} else if (endk) {
			/* the block's start is not in this text: everything since the barrier may be its body */
			olen = barrier;
			for (size_t i = 0; i < since_barrier; i++)
				out_put(&out, &olen, &cap, "[REDACTED]\n", 11);
			red = sp_xstrdup("[REDACTED]");
		} else {
			red = rx_ok ? redact_line(line) : sp_xstrdup("[REDACTED]");
		}
		out_put(&out, &olen, &cap, red, strlen(red));
		if (nl)
			out[olen++] = '\n';
		since_barrier++;
		if (is_elision_line(line) && !in_key) {
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

char *sp_redact(const char *text, size_t len, size_t *outlen)
{
	size_t cap = 0;
	return redact_into(text, len, NULL, &cap, outlen);
}

/* the calling thread's redaction buffer, reused from one block to the next */
struct tlbuf {
	char *p;
	size_t cap;
};
static pthread_key_t tl_key;
static pthread_once_t tl_once = PTHREAD_ONCE_INIT;

static void tl_free(void *v)
{
	struct tlbuf *b = v;
	free(b->p);
	free(b);
}

static void tl_make(void)
{
	pthread_key_create(&tl_key, tl_free);
}

static struct tlbuf *thread_buf(void)
{
	pthread_once(&tl_once, tl_make);
	struct tlbuf *b = pthread_getspecific(tl_key);
	if (!b) {
		b = sp_xcalloc(1, sizeof *b);
		pthread_setspecific(tl_key, b);
	}
	return b;
}

void sp_bundle_log(sp_bundle *b, const char *name, const char *header, const char *text, size_t len)
{
	size_t rlen = 0;
	struct tlbuf *tb = thread_buf();
	char *red = NULL;
	if (len) {
		tb->p = redact_into(text, len, tb->p, &tb->cap, &rlen);
		red = tb->p;
	}
	char *hdr = sp_redact(header, strlen(header), NULL);
	pthread_mutex_lock(&b->mu);
	sp_log *lg = NULL;
	for (size_t i = 0; i < b->nlogs && !lg; i++)
		if (!strcmp(b->logs[i]->name, name))
			lg = b->logs[i];
	if (!lg) {
		lg = sp_xcalloc(1, sizeof *lg);
		/* every page of the log's head and tail touched now: the runner's
		 * memory reaches its size when a log first appears (in the warm-up),
		 * instead of growing page by page as the log fills over hours */
		volatile char *page = (volatile char *)lg;
		for (size_t off = 0; off < sizeof *lg; off += 4096)
			page[off] = 0;
		lg->name = sp_xstrdup(name);
		b->logs = sp_xrealloc(b->logs, (b->nlogs + 1) * sizeof *b->logs);
		b->logs[b->nlogs++] = lg;
	}
	sp_capture_add(&lg->cap, hdr, strlen(hdr));
	sp_capture_add(&lg->cap, "\n", 1);
	if (red) {
		sp_capture_add(&lg->cap, red, rlen);
		if (rlen && red[rlen - 1] != '\n')
			sp_capture_add(&lg->cap, "\n", 1);
	}
	lg->dirty = 1;
	pthread_mutex_unlock(&b->mu);
	free(hdr);
}

int sp_bundle_flush_logs(sp_bundle *b, sp_error *err)
{
	int r = 0;
	pthread_mutex_lock(&b->mu);
	for (size_t i = 0; i < b->nlogs; i++) {
		sp_log *lg = b->logs[i];
		if (!lg->dirty)
			continue;
		size_t len;
		const char *text = sp_capture_text_thread(&lg->cap, &len); /* no allocation per flush */
		char name[512];
		snprintf(name, sizeof name, "logs/%s", lg->name);
		sp_error e = {0};
		if (sp_bundle_write(b, name, text, len, &e) == 0)
			lg->dirty = 0; /* a failed write stays dirty: written again at the next flush */
		else if (r == 0) {
			*err = e;
			r = -1;
		}
	}
	pthread_mutex_unlock(&b->mu);
	return r;
}

/* ---- manifest and signature (src/evidence/ does both) ---- */
int sp_bundle_manifest(sp_bundle *b, EVP_PKEY *key, sp_error *err)
{
	char msg[512];
	char *m = sp_ev_manifest_build(b->dir, msg, sizeof msg);
	if (!m)
		return sp_fail_errno(err, 0, "%s: %s", b->dir, msg);
	size_t len = strlen(m);
	int r = sp_bundle_write(b, "MANIFEST", m, len, err);
	if (r == 0 && key) {
		char sig[90];
		size_t siglen;
		if (sp_ev_sign(key, m, len, sig, &siglen) < 0)
			r = sp_fail_errno(err, 0, "cannot sign MANIFEST with Ed25519");
		else
			r = sp_bundle_write(b, "MANIFEST.sig", sig, siglen, err);
	}
	free(m);
	return r;
}
