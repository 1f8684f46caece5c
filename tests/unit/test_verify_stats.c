/* Statistics of the verifier: nearest-rank quantiles by selection against a
 * full sort, online least squares against the closed form, threshold
 * merging of profiles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/evidence.h"
#include "unit/tap.h"

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static unsigned long long rng = 88172645463325252ULL;
static double rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng % 1000000) / 1000.0;
}

/* nearest rank on a sorted copy */
static double ref_q(const double *v, size_t n, double p)
{
	double *s = malloc(n * sizeof *s);
	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, cmpd);
	size_t r = (size_t)ceil(p / 100.0 * (double)n);
	if (r < 1)
		r = 1;
	double q = s[r - 1];
	free(s);
	return q;
}

static void quantiles(void)
{
	static const size_t sizes[] = {1, 2, 3, 5, 16, 17, 20, 99, 100, 101, 1000, 4097, 100000};
	static const double ps[] = {50, 95, 99, 100, 1};
	for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
		size_t n = sizes[si];
		for (int kind = 0; kind < 4; kind++) {
			double *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w);
			for (size_t i = 0; i < n; i++) {
				switch (kind) {
				case 0: v[i] = rnd(); break;
				case 1: v[i] = (double)i; break;           /* sorted */
				case 2: v[i] = (double)(n - i); break;     /* reversed */
				default: v[i] = (double)(i % 3); break;    /* many duplicates */
				}
			}
			int good = 1;
			for (size_t pi = 0; pi < sizeof ps / sizeof ps[0]; pi++) {
				memcpy(w, v, n * sizeof *w);
				double want = ref_q(v, n, ps[pi]), got = sp_quantile(w, n, ps[pi]);
				if (got != want) {
					good = 0;
					printf("#   n=%zu kind=%d p%.0f: got %g want %g\n", n, kind, ps[pi], got, want);
				}
			}
			memcpy(w, v, n * sizeof *w);
			double q50, q95, q99;
			sp_quantiles3(w, n, &q50, &q95, &q99);
			if (q50 != ref_q(v, n, 50) || q95 != ref_q(v, n, 95) || q99 != ref_q(v, n, 99)) {
				good = 0;
				printf("#   n=%zu kind=%d quantiles3: %g %g %g\n", n, kind, q50, q95, q99);
			}
			ok(good, "quantiles p1/p50/p95/p99/p100 (one at a time and as three) of %zu values (kind %d) equal a full sort", n, kind);
			free(v);
			free(w);
		}
	}
	/* exact rank: 20 values 1..20, p95 is the 19th */
	double v[20];
	for (int i = 0; i < 20; i++)
		v[i] = 20 - i;
	ok(sp_quantile(v, 20, 95) == 19, "p95 of 1..20 is 19 (nearest rank)");
	ok(sp_quantile(v, 20, 50) == 10, "p50 of 1..20 is 10 (nearest rank)");
	ok(sp_quantile(v, 20, 99) == 20, "p99 of 1..20 is 20 (nearest rank)");
	ok(isnan(sp_quantile(v, 0, 50)), "a quantile of nothing is NaN");
}

static void regression(void)
{
	sp_ev_linreg l = {0};
	for (int i = 0; i < 100; i++)
		sp_linreg_add(&l, 1000.0 + 60.0 * i, 3.5 * (1000.0 + 60.0 * i) + 1e8);
	ok(fabs(sp_linreg_slope(&l) - 3.5) < 1e-9, "slope of an exact line with a large offset: %.12g", sp_linreg_slope(&l));
	is_int(l.n, 100, "linreg counts its points");
	ok(l.xmin == 1000 && l.xmax == 1000 + 60 * 99, "linreg keeps the x range");

	sp_ev_linreg c = {0};
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	int n = 500;
	for (int i = 0; i < n; i++) {
		double x = i * 7.0, y = rnd() * 1000;
		sp_linreg_add(&c, x, y);
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
	}
	double want = (n * sxy - sx * sy) / (n * sxx - sx * sx);
	ok(fabs(sp_linreg_slope(&c) - want) < 1e-9 * fabs(want) + 1e-12, "slope of noisy data equals the closed form");

	sp_ev_linreg one = {0};
	sp_linreg_add(&one, 5, 5);
	ok(sp_linreg_slope(&one) == 0, "one point: slope 0");
	sp_ev_linreg same = {0};
	sp_linreg_add(&same, 5, 5);
	sp_linreg_add(&same, 5, 9);
	ok(sp_linreg_slope(&same) == 0, "two points at the same x: slope 0");
}

static void profiles(void)
{
	sp_ev_thresholds g2, r24, custom = {0}, out;
	ok(sp_profile_thresholds("G2", &g2), "G2 is a profile");
	ok(sp_profile_thresholds("R24", &r24), "R24 is a profile");
	ok(!sp_profile_thresholds("custom", &custom), "custom is not a named profile");
	ok(!sp_profile_thresholds("G3", &custom), "G3 is not a profile");
	is_int((long long)g2.min_span_s, 7200, "G2 span 7200 s");
	is_int(g2.min_periodic_samples, 24, "G2 24 periodic samples");
	is_int((long long)g2.max_gap_s, 600, "G2 gap 600 s");
	ok(g2.min_success_ratio == 1, "G2 zero unexpected failures");
	ok(r24.min_success_ratio == 0.995, "R24 99.5%% success");
	is_int(r24.min_periodic_samples, 288, "R24 288 periodic samples");
	sp_ev_thresholds m = {.min_span_s = 100000, .max_interval_s = 600, .max_gap_s = 60, .min_success_ratio = 0.9,
			   .rss_slope_mib_per_day = 10, .p95_regression_pct = 50, .min_periodic_samples = 5,
			   .fd_growth_max = 3, .disk_budget_bytes = 10};
	sp_thresholds_stricter(&m, &r24, &out);
	ok(out.min_span_s == 100000 && out.max_interval_s == 300 && out.max_gap_s == 60 &&
		   out.min_success_ratio == 0.995 && out.rss_slope_mib_per_day == 10 && out.p95_regression_pct == 30 &&
		   out.min_periodic_samples == 288 && out.fd_growth_max == 3 && out.disk_budget_bytes == 10,
	   "the stricter of metadata and R24 wins field by field");
}

int main(void)
{
	quantiles();
	regression();
	profiles();
	return done_testing();
}
