/* Statistics of the gates: exact quantiles by selection over compact double
 * arrays, online least squares (Welford co-moments: one pass, stable). */
#include "evidence/evidence.h"

#include <math.h>
#include <stdlib.h>

#include "core/util.h"

void sp_dvec_push(sp_ev_dvec *d, double x)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap + d->cap / 2 : 256;
		d->v = sp_xrealloc(d->v, d->cap * sizeof *d->v);
	}
	d->v[d->n++] = x;
}

void sp_dvec_free(sp_ev_dvec *d)
{
	free(d->v);
	d->v = NULL;
	d->n = d->cap = 0;
}

static inline void swapd(double *a, double *b)
{
	double t = *a;
	*a = *b;
	*b = t;
}

/* Hoare-style quickselect with median-of-three pivots: v[k] ends up being
 * the k-th smallest (0-based); everything before it is <=, after it >=. */
static void select_k(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	unsigned long long seed = 0x9e3779b97f4a7c15ULL ^ n;
	while (hi > lo) {
		if (hi - lo < 16) {
			for (size_t i = lo + 1; i <= hi; i++) {
				double x = v[i];
				size_t j = i;
				while (j > lo && v[j - 1] > x) {
					v[j] = v[j - 1];
					j--;
				}
				v[j] = x;
			}
			return;
		}
		/* a pseudo-random element moved to the middle, then the median of
		 * lo, mid and hi as the pivot value: no adversarial worst case, and
		 * Hoare's partition always returns lo <= j < hi */
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		size_t mid = lo + (hi - lo) / 2, rnd = lo + (size_t)(seed % (hi - lo + 1));
		swapd(&v[mid], &v[rnd]);
		double a = v[lo], b = v[mid], c = v[hi];
		double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		size_t i = lo - 1, j = hi + 1;
		for (;;) {
			do
				i++;
			while (v[i] < pivot);
			do
				j--;
			while (v[j] > pivot);
			if (i >= j)
				break;
			swapd(&v[i], &v[j]);
		}
		/* v[lo..j] <= pivot <= v[j+1..hi] */
		if (k <= j)
			hi = j;
		else
			lo = j + 1;
	}
}

static size_t rank_of(size_t n, double p)
{
	double r = ceil(p / 100.0 * (double)n - 1e-9);
	size_t rank = r < 1 ? 1 : (size_t)r;
	return rank > n ? n : rank;
}

double sp_quantile(double *v, size_t n, double p)
{
	if (n == 0)
		return NAN;
	size_t rank = rank_of(n, p);
	select_k(v, n, rank - 1);
	return v[rank - 1];
}

void sp_quantiles3(double *v, size_t n, double *p50, double *p95, double *p99)
{
	/* after selecting rank k, v[0..k) holds the k smallest: a lower rank
	 * is selected within them */
	size_t r99 = rank_of(n, 99), r95 = rank_of(n, 95), r50 = rank_of(n, 50);
	select_k(v, n, r99 - 1);
	*p99 = v[r99 - 1];
	if (r95 < r99)
		select_k(v, r99 - 1, r95 - 1);
	*p95 = v[r95 - 1];
	if (r50 < r95)
		select_k(v, r95 - 1, r50 - 1);
	*p50 = v[r50 - 1];
}

void sp_linreg_add(sp_ev_linreg *l, double x, double y)
{
	l->n++;
	if (l->n == 1) {
		l->xmin = l->xmax = x;
	} else {
		if (x < l->xmin)
			l->xmin = x;
		if (x > l->xmax)
			l->xmax = x;
	}
	double dx = x - l->mx;
	l->mx += dx / (double)l->n;
	l->my += (y - l->my) / (double)l->n;
	l->sxx += dx * (x - l->mx);
	l->sxy += dx * (y - l->my);
}

double sp_linreg_slope(const sp_ev_linreg *l)
{
	if (l->n < 2 || l->sxx <= 0)
		return 0;
	return l->sxy / l->sxx;
}
