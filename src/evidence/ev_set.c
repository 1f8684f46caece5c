/* A set of byte strings for duplicate detection and lookups in linear time
 * (metadata keys, scenario ids, A3S names). Open addressing over SipHash-1-3
 * with a key drawn once per process, so that a bundle cannot be crafted to
 * make every key collide (the quadratic case this replaces). */
#include "evidence/evidence.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

static uint64_t sip_k0, sip_k1;
static bool sip_keyed;

static void sip_key(void)
{
	if (sip_keyed)
		return;
	uint64_t k[2];
	if (getrandom(k, sizeof k, GRND_NONBLOCK) != (ssize_t)sizeof k) {
		/* no entropy yet (early boot): still unpredictable enough per run */
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		k[0] = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
		k[1] = (uint64_t)ts.tv_sec * 0xbf58476d1ce4e5b9ULL ^ (uint64_t)(uintptr_t)&ts;
	}
	sip_k0 = k[0];
	sip_k1 = k[1];
	sip_keyed = true;
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                              \
	do {                                                                  \
		v0 += v1;                                                     \
		v1 = ROTL(v1, 13);                                            \
		v1 ^= v0;                                                     \
		v0 = ROTL(v0, 32);                                            \
		v2 += v3;                                                     \
		v3 = ROTL(v3, 16);                                            \
		v3 ^= v2;                                                     \
		v0 += v3;                                                     \
		v3 = ROTL(v3, 21);                                            \
		v3 ^= v0;                                                     \
		v2 += v1;                                                     \
		v1 = ROTL(v1, 17);                                            \
		v1 ^= v2;                                                     \
		v2 = ROTL(v2, 32);                                            \
	} while (0)

/* SipHash-1-3 (one compression round, three finalisation rounds) */
uint64_t sp_ev_hash(const void *data, size_t n)
{
	sip_key();
	const unsigned char *p = data;
	uint64_t v0 = sip_k0 ^ 0x736f6d6570736575ULL, v1 = sip_k1 ^ 0x646f72616e646f6dULL,
		 v2 = sip_k0 ^ 0x6c7967656e657261ULL, v3 = sip_k1 ^ 0x7465646279746573ULL;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t m;
		memcpy(&m, p + i, 8); /* x86_64 and every target we build: little endian */
		v3 ^= m;
		SIPROUND;
		v0 ^= m;
	}
	uint64_t b = (uint64_t)n << 56;
	for (size_t k = 0; i + k < n; k++)
		b |= (uint64_t)p[i + k] << (8 * k);
	v3 ^= b;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

void sp_strset_free(sp_ev_strset *set)
{
	free(set->v);
	memset(set, 0, sizeof *set);
}

static size_t probe(const sp_ev_strset *set, const char *s, size_t n, uint64_t h)
{
	size_t mask = set->cap - 1, i = (size_t)h & mask;
	for (;;) {
		const sp_ev_strset_ent *e = &set->v[i];
		if (!e->used || (e->h == h && e->n == n && !memcmp(e->s, s, n)))
			return i;
		i = (i + 1) & mask;
	}
}

size_t sp_strset_get(const sp_ev_strset *set, const char *s, size_t n)
{
	if (!set->cap)
		return SIZE_MAX;
	const sp_ev_strset_ent *e = &set->v[probe(set, s, n, sp_ev_hash(s, n))];
	return e->used ? e->idx : SIZE_MAX;
}

size_t sp_strset_put(sp_ev_strset *set, const char *s, size_t n, size_t idx)
{
	if ((set->n + 1) * 2 > set->cap) {
		sp_ev_strset old = *set;
		set->cap = old.cap ? old.cap * 2 : 16;
		set->v = sp_xcalloc(set->cap, sizeof *set->v);
		set->n = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.v[i].used)
				set->v[probe(set, old.v[i].s, old.v[i].n, old.v[i].h)] = old.v[i], set->n++;
		free(old.v);
	}
	uint64_t h = sp_ev_hash(s, n);
	sp_ev_strset_ent *e = &set->v[probe(set, s, n, h)];
	if (e->used)
		return e->idx;
	*e = (sp_ev_strset_ent){.s = s, .n = n, .h = h, .idx = idx, .used = true};
	set->n++;
	return SIZE_MAX;
}
