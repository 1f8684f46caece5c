/* Evidence bundle writer (see bundle.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "soak/bundle.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "evidence/evidence.h"
#include "soak/sampler.h"

int sp_bundle_create(sp_soak_bundle *b, const char *dir, sp_error *err)
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

void sp_bundle_close(sp_soak_bundle *b)
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

int sp_bundle_write(sp_soak_bundle *b, const char *name, const char *data, size_t len, sp_error *err)
{
	sp_wa_step step;
	int r = sp_write_atomic_buf(b->dirfd, name, 0644, SP_WA_FIXED_TMP | SP_WA_FSYNC, data, len, &step);
	if (r < 0 && step == SP_WA_CREATE)
		return sp_fail_errno(err, -r, "%s/%s.tmp", b->dir, name);
	if (r < 0)
		return sp_fail_errno(err, -r, "%s/%s", b->dir, name);
	return 0;
}

void sp_tsv_clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

/* ---- redaction: the shared list of secret shapes (src/evidence/) ---- */
char *sp_redact(const char *text, size_t len, size_t *outlen)
{
	return sp_secret_redact(text, len, outlen);
}

void sp_bundle_log(sp_soak_bundle *b, const char *name, const char *header, const char *text, size_t len)
{
	size_t rlen = 0;
	sp_soak_tlbuf *tb = sp_soak_thread_buf(SP_SOAK_TL_REDACT); /* reused from one block to the next */
	char *red = NULL;
	if (len) {
		tb->p = sp_secret_redact_into(text, len, tb->p, &tb->cap, &rlen);
		red = tb->p;
	}
	char *hdr = sp_redact(header, strlen(header), NULL);
	pthread_mutex_lock(&b->mu);
	sp_soak_log *lg = NULL;
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

int sp_bundle_flush_logs(sp_soak_bundle *b, sp_error *err)
{
	int r = 0;
	pthread_mutex_lock(&b->mu);
	for (size_t i = 0; i < b->nlogs; i++) {
		sp_soak_log *lg = b->logs[i];
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
int sp_bundle_manifest(sp_soak_bundle *b, EVP_PKEY *key, sp_error *err)
{
	sp_error merr;
	char *m = sp_ev_manifest_build(b->dir, &merr);
	if (!m)
		return sp_fail_errno(err, 0, "%s: %s", b->dir, merr.msg);
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
