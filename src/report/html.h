/* The evidence report: one self-contained HTML page (inline CSS and SVG, no
 * scripts, no external assets) for a bundle and the verifier's verdict. */
#ifndef SP_REPORT_HTML_H
#define SP_REPORT_HTML_H

#include <stdio.h>

#include "report/bundle.h"
#include "report/verifier.h"

/* the pages' style sheet (inline in every page; other pages such as the
 * gate's coverage matrix reuse it and add their own few rules) */
extern const char rp_css[];

/* the width in seconds of the time windows latency and rate are bucketed
 * into: a round step giving at most 40 windows over tmax */
double rp_window_width(double tmax);
/* the same, widened (by the same steps) until nevents give at least
 * per_window on average, or one window spans the run */
double rp_window_width_events(double tmax, size_t nevents, double per_window);
/* nearest-rank percentile (p in (0,1]) of sorted v[0..n) */
double rp_percentile(const double *sorted, size_t n, double p);

/* Write the page; 0 or -errno when f cannot be written. */
int rp_render_html(FILE *f, const rp_bundle *b, const rp_verdict *v);

#endif
