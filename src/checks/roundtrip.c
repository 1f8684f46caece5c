/* The shared large-file round trip (see roundtrip.h). */
#include "checks/roundtrip.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/probe.h"
#include "core/util.h"

/* ---- the round-trip digest: the static doctor carries no libcrypto, and a
 * round trip only needs to detect corruption and truncation. Words of 8 bytes
 * go through a multiply-rotate chain (several times faster than a byte-wise
 * FNV-1a on 10 MiB); the tail bytes and the length close each update, so the
 * digest depends on how the data is split into updates: both sides of a
 * round trip use the same block size. ---- */
static uint64_t digest_mix(uint64_t h, uint64_t w)
{
	h ^= w * 0x9e3779b97f4a7c15ull;
	h = (h << 31 | h >> 33) * 0xbf58476d1ce4e5b9ull;
	return h;
}

void sp_wf_digest_init(uint64_t *h)
{
	*h = 0xcbf29ce484222325ull;
}

void sp_wf_digest_update(uint64_t *h, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t x = *h;
	size_t i = 0;
	/* four independent chains over interleaved words (no chain waits on
	 * another's multiply), folded into the digest at the end */
	uint64_t l[4] = {x, x ^ 0x6a09e667f3bcc908ull, x ^ 0xbb67ae8584caa73bull, x ^ 0x3c6ef372fe94f82bull};
	for (; i + 32 <= len; i += 32)
		for (int k = 0; k < 4; k++) {
			uint64_t w;
			memcpy(&w, p + i + 8 * k, 8);
			l[k] = digest_mix(l[k], w);
		}
	for (int k = 0; k < 4; k++)
		x = digest_mix(x, l[k]);
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		x = digest_mix(x, w);
	}
	for (; i < len; i++)
		x = digest_mix(x, 0x100ull | p[i]);
	*h = digest_mix(x, (uint64_t)len);
}

/* two members, each once the whole round trip when they do not share it */
static unsigned roundtrip_budget(const sp_ctx *ctx)
{
	return 2 * ctx->timeout_ms;
}

const sp_batch sp_batch_roundtrip = {
	.id = "roundtrip",
	.what = "one large file written, fsynced, read back and removed for fs.large_write and wf.bigfile",
	.budget_ms = roundtrip_budget,
	.long_running = true,
};

static struct {
	bool done;
	dev_t dev;
	ino_t ino;
	long long mib;
	sp_roundtrip rt;
} cache;

static ssize_t read_block(int fd, unsigned char *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return got ? (ssize_t)got : -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static void perform(sp_roundtrip *rt, const char *dir, long long mib)
{
	memset(rt, 0, sizeof *rt);
	snprintf(rt->dir, sizeof rt->dir, "%s", dir);
	rt->total = (size_t)mib << 20;
	sp_probe_name(rt->name, sizeof rt->name, dir);
	int fd = open(rt->name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		rt->create_err = errno;
		return;
	}
	size_t bsz = 1u << 16;
	_cleanup_free_ unsigned char *buf = sp_xmalloc(bsz);
	sp_wf_digest_init(&rt->wdigest);
	sp_wf_digest_init(&rt->rdigest);
	/* a cheap generator, so the data is not all one byte and no two blocks
	 * are alike: each word a mix of its own position (no chain between
	 * words, so it vectorizes) */
	uint64_t seed = 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	uint64_t t0 = sp_now_ns();
	for (size_t off = 0; off < rt->total; off += bsz) {
		for (size_t i = 0; i < bsz; i += 8) {
			uint64_t x = (seed + off + i) * 0xbf58476d1ce4e5b9ull;
			x ^= x >> 31;
			memcpy(buf + i, &x, 8);
		}
		sp_wf_digest_update(&rt->wdigest, buf, bsz);
		const unsigned char *p = buf;
		size_t left = bsz;
		while (left) {
			ssize_t n = write(fd, p, left);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				rt->write_err = n < 0 ? errno : ENOSPC;
				break;
			}
			p += n;
			left -= (size_t)n;
			rt->written += (size_t)n;
		}
		if (rt->write_err)
			break;
	}
	if (!rt->write_err && fsync(fd) < 0)
		rt->fsync_err = errno;
	uint64_t t1 = sp_now_ns();
	if (!rt->write_err && !rt->fsync_err && lseek(fd, 0, SEEK_SET) == 0) {
		for (;;) {
			ssize_t n = read_block(fd, buf, bsz);
			if (n <= 0)
				break;
			sp_wf_digest_update(&rt->rdigest, buf, (size_t)n);
			rt->read += (size_t)n;
		}
	}
	uint64_t t2 = sp_now_ns();
	rt->write_ms = (double)(t1 - t0) / 1e6;
	rt->read_ms = (double)(t2 - t1) / 1e6;
	close(fd);
	struct stat st;
	rt->removed = unlink(rt->name) == 0 && lstat(rt->name, &st) < 0 && errno == ENOENT;
}

const sp_roundtrip *sp_roundtrip_get(const char *dir, long long mib, const char *who)
{
	struct stat st;
	bool known = stat(dir, &st) == 0;
	if (cache.done && known && cache.dev == st.st_dev && cache.ino == st.st_ino && cache.mib == mib)
		return &cache.rt;
	perform(&cache.rt, dir, mib);
	snprintf(cache.rt.by, sizeof cache.rt.by, "%s", who);
	cache.done = known;
	cache.dev = known ? st.st_dev : 0;
	cache.ino = known ? st.st_ino : 0;
	cache.mib = mib;
	return &cache.rt;
}
