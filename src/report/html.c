/* The evidence report page. Every string that comes from the bundle or the
 * verifier goes through sp_html_text(). */
#include "report/html.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/junit.h"
#include "core/util.h"
#include "core/version.h"
#include "report/svg.h"

#define E(s) sp_html_text(f, (s) ? (s) : "-")

const char rp_css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1d2330;background:#f6f7f9;margin:0}"
	"div.main{max-width:1000px;margin:0 auto;padding:18px 24px 40px}"
	"h1{font-size:22px;margin:8px 0 2px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d5d9e0;padding-bottom:4px}"
	"h3{font-size:14px;margin:16px 0 4px}"
	".sub{color:#5b6475;margin:0 0 12px}"
	"div.nav{font-size:13px;margin:6px 0 14px}div.nav a{margin-right:12px;color:#2456a6;text-decoration:none}"
	".badge{display:inline-block;padding:2px 10px;border-radius:10px;font-weight:600;font-size:13px;vertical-align:middle}"
	".b-pass{background:#d8f0dd;color:#17602a}.b-fail{background:#f8d7d7;color:#8a1c1c}.b-unk{background:#e6e8ec;color:#4a5160}"
	"table{border-collapse:collapse;width:100%;background:#fff;font-size:13px;margin:4px 0 8px}"
	"th,td{border:1px solid #dde1e7;padding:4px 7px;text-align:left;vertical-align:top}"
	"th{background:#eef1f5;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums}"
	"tr.fail td{background:#fdf0f0}td.pass{color:#17602a;font-weight:600}td.fail{color:#a11d1d;font-weight:600}"
	".facts td:first-child{width:200px;color:#4a5160}"
	".note{background:#fff7e0;border:1px solid #ecd48a;padding:8px 10px;border-radius:4px}"
	"img.chart{display:block;width:100%;height:auto;border:1px solid #dde1e7;margin:6px 0;background:#fff}"
	"pre{background:#fff;border:1px solid #dde1e7;padding:8px;overflow-x:auto;font-size:12px}"
	"div.footer{color:#5b6475;font-size:12px;margin-top:30px}";

static const double win_steps[] = {0.1,  0.2,  0.5,  1,     2,     5,     10,    15,     30,    60,   120,  300,
				   600,  900,  1800, 3600,  7200,  10800, 21600, 43200, 86400, 172800, 432000};

double rp_window_width(double tmax)
{
	/* sub-second windows only for runs too short for four 1 s windows */
	for (size_t i = tmax >= 4 ? 3 : 0; i < SP_ARRAY_SIZE(win_steps); i++)
		if (tmax / win_steps[i] <= 40)
			return win_steps[i];
	return ceil(tmax / 40);
}

double rp_window_width_events(double tmax, size_t nevents, double per_window)
{
	double w = rp_window_width(tmax);
	if (!nevents)
		return w;
	for (size_t i = 0; i < SP_ARRAY_SIZE(win_steps); i++) {
		if (win_steps[i] < w)
			continue;
		w = win_steps[i];
		if ((double)nevents / ceil(tmax / w) >= per_window || w >= tmax)
			break;
	}
	return w;
}

double rp_percentile(const double *sorted, size_t n, double p)
{
	if (n == 0)
		return NAN;
	double rank = ceil(p * (double)n);
	size_t i = rank < 1 ? 0 : (size_t)rank - 1;
	return sorted[i < n ? i : n - 1];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void fmt_num(FILE *f, double v, const char *suffix)
{
	if (isnan(v))
		fputs("-", f);
	else
		fprintf(f, "%.6g%s", v, suffix);
}

static void fact(FILE *f, const char *k, const char *v)
{
	fputs("<tr><td>", f);
	E(k);
	fputs("</td><td>", f);
	E(v);
	fputs("</td></tr>\n", f);
}

static void header(FILE *f, const rp_bundle *b, const rp_verdict *v)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>sandprobe evidence report: ",
	      f);
	E(rp_meta(b, "run_id"));
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<div class=\"main\">\n", rp_css);
	fputs("<h1>Evidence report ", f);
	if (v->available && v->result)
		fprintf(f, "<span class=\"badge b-%s\">%s</span>", !strcmp(v->result, "pass") ? "pass" : "fail",
			!strcmp(v->result, "pass") ? "PASS" : "FAIL");
	else
		fputs("<span class=\"badge b-unk\">NOT VERIFIED</span>", f);
	fputs("</h1>\n<p class=\"sub\">run <b>", f);
	E(rp_meta(b, "run_id"));
	fputs("</b> &middot; profile ", f);
	E(rp_meta(b, "profile"));
	fputs(" &middot; runtime ", f);
	E(rp_meta(b, "runtime"));
	fputs(" &middot; started ", f);
	E(rp_meta(b, "started_at"));
	fputs("</p>\n<div class=\"nav\"><a href=\"#gates\">gates</a><a href=\"#resources\">resources</a>"
	      "<a href=\"#rate\">operation rate</a><a href=\"#latency\">latency</a>"
	      "<a href=\"#capabilities\">capabilities</a><a href=\"#faults\">faults</a><a href=\"#run\">run facts</a></div>\n",
	      f);
}

static void gates(FILE *f, const rp_bundle *b, const rp_verdict *v)
{
	fputs("<h2 id=\"gates\">Verifier gates</h2>\n", f);
	if (!v->available) {
		fputs("<p class=\"note\" id=\"verifier-unavailable\">verifier unavailable: ", f);
		E(v->reason);
		fputs("</p>\n<p>Thresholds fixed before the run (metadata.txt), unjudged:</p>\n"
		      "<table class=\"thresholds\">\n<tr><th>threshold</th><th>value</th></tr>\n", f);
		for (size_t i = 0; i < b->nmeta; i++)
			if (sp_startswith(b->meta[i].key, "threshold."))
				fact(f, b->meta[i].key + 10, b->meta[i].value);
		fputs("</table>\n", f);
		return;
	}
	fprintf(f, "<p>%lld passed, %lld failed &middot; result <b>", v->npass, v->nfail);
	E(v->result);
	fputs("</b></p>\n<table class=\"gates\">\n<tr><th>gate</th><th>status</th><th>measured</th><th>threshold</th><th>message</th></tr>\n", f);
	for (size_t i = 0; i < v->ngates; i++) {
		const rp_gate *g = &v->gates[i];
		bool pass = !strcmp(g->status, "pass");
		fprintf(f, "<tr class=\"gate %s\"><td>", pass ? "pass" : "fail");
		E(g->id);
		fprintf(f, "</td><td class=\"%s\">", pass ? "pass" : "fail");
		E(g->status);
		fputs("</td><td class=\"num\">", f);
		E(g->measured);
		fputs("</td><td class=\"num\">", f);
		E(g->threshold);
		fputs("</td><td>", f);
		E(g->message);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* chart context shared by every chart of the page */
typedef struct page {
	const rp_bundle *b;
	double tmax, warmup;
	rp_window *faults;
	size_t nfaults;
} page;

/* a chart: its SVG document embedded as an <img> (a data: URI, nothing
 * fetched), so that the page is plain HTML any HTML parser accepts; the alt
 * text says what the chart shows */
static void chart(FILE *f, const page *pg, const char *id, const char *title, const char *quantity, rp_unit unit,
		  const rp_series *s, size_t ns, double mark, const char *mark_label)
{
	rp_chart c = {.title = title, .id = id, .quantity = quantity, .unit = unit, .xmax = pg->tmax,
		      .warmup_end = pg->warmup, .faults = pg->faults, .nfaults = pg->nfaults, .series = s, .nseries = ns,
		      .ymark = mark, .ymark_label = mark_label};
	char *svg = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&svg, &len);
	if (!m) {
		fputs("<p class=\"note\">chart unavailable: out of memory</p>\n", f);
		return;
	}
	rp_chart_info info;
	rp_svg_chart(m, &c, &info);
	fclose(m);
	fputs("<img class=\"chart\" id=\"", f);
	E(id);
	fputs("\" alt=\"", f);
	E(title);
	fputs(": ", f);
	E(quantity);
	fprintf(f, " (%s) over run time (%s)", info.yunit, info.xunit);
	for (size_t i = 0; i < ns; i++) {
		fputs(i ? ", " : "; series ", f);
		E(s[i].name);
	}
	if (info.faults)
		fprintf(f, "; %zu fault windows in %zu bands", info.faults, info.bands);
	fprintf(f, "\" width=\"960\" src=\"data:image/svg+xml;base64,");
	rp_base64(f, (const unsigned char *)svg, len);
	fputs("\">\n", f);
	free(svg);
}

static double meta_num(const rp_bundle *b, const char *key)
{
	const char *s = rp_meta(b, key);
	if (!s || !*s)
		return NAN;
	char *end;
	double v = strtod(s, &end);
	return *end || !isfinite(v) ? NAN : v;
}

static void resources(FILE *f, const page *pg)
{
	const rp_bundle *b = pg->b;
	const double *ts = rp_column(b, "ts");
	size_t n = b->nsamples;
	fprintf(f, "<h2 id=\"resources\">Resources over time</h2>\n<p>%zu samples (start, periodic, final); "
		   "warm-up shaded, fault windows in red.</p>\n", n);
#define SER(name_, col_, css_) {.name = name_, .x = ts, .y = rp_column(b, col_), .n = n, .css = css_}
	rp_series rss[] = {SER("owned RSS", "owned_rss_bytes", "s0"), SER("runner RSS", "runner_rss_bytes", "s1")};
	chart(f, pg, "chart-rss", "Memory (RSS)", "resident memory", RP_UNIT_BYTES, rss, 2, 0, NULL);
	rp_series fds[] = {SER("owned fds", "owned_fds", "s0"), SER("runner fds", "runner_fds", "s1")};
	double fdmax = meta_num(b, "threshold.fd_growth_max");
	const double *ofd = rp_column(b, "owned_fds");
	char lab[96];
	snprintf(lab, sizeof lab, "start + allowed growth (%g)", fdmax);
	chart(f, pg, "chart-fds", "File descriptors", "open file descriptors", RP_UNIT_COUNT, fds, 2,
	      isnan(fdmax) || !n ? 0 : ofd[0] + fdmax, lab);
	rp_series procs[] = {SER("owned processes", "owned_processes", "s0"), SER("owned threads", "owned_threads", "s1")};
	chart(f, pg, "chart-processes", "Processes", "processes and threads", RP_UNIT_COUNT, procs, 2, 0, NULL);
	rp_series mounts[] = {SER("owned mounts", "owned_mounts", "s0"), SER("owned sockets", "owned_sockets", "s1"),
			      SER("owned cgroups", "owned_cgroups", "s2")};
	chart(f, pg, "chart-mounts", "Mounts, sockets, cgroups", "objects", RP_UNIT_COUNT, mounts, 3, 0, NULL);
	rp_series disk[] = {SER("disk bytes (state root)", "disk_bytes", "s0")};
	double budget = meta_num(b, "threshold.disk_budget_bytes");
	const double *dk = rp_column(b, "disk_bytes");
	char blab[96];
	rp_format_value(budget, RP_UNIT_BYTES, lab, sizeof lab);
	snprintf(blab, sizeof blab, "start + budget (%s)", lab);
	chart(f, pg, "chart-disk", "Disk", "state root size", RP_UNIT_BYTES, disk, 1, isnan(budget) || !n ? 0 : dk[0] + budget, blab);
	for (size_t c = 0; c < b->ncols; c++) {
		if (!sp_startswith(b->col_name[c], "extra."))
			continue;
		rp_series ex[] = {{.name = b->col_name[c], .x = ts, .y = b->col[c], .n = n, .css = "s0"}};
		_cleanup_free_ char *cid = sp_xasprintf("chart-%s", b->col_name[c]);
		_cleanup_free_ char *title = sp_xasprintf("Workload counter %s", b->col_name[c] + 6);
		chart(f, pg, cid, title, b->col_name[c] + 6, RP_UNIT_COUNT, ex, 1, 0, NULL);
	}
#undef SER
}

static void rate(FILE *f, const page *pg, double w, size_t nwin)
{
	const rp_bundle *b = pg->b;
	double *x = sp_xcalloc(nwin, sizeof(double)), *y = sp_xcalloc(nwin, sizeof(double));
	for (size_t i = 0; i < b->nops; i++) {
		size_t k = (size_t)(b->ops[i].ts / w);
		y[k < nwin ? k : nwin - 1] += 1;
	}
	/* windows after the last operation (the final sample comes later) are
	 * not drawn: there was nothing left to run, not a rate of zero */
	double opmax = 0;
	for (size_t i = 0; i < b->nops; i++)
		opmax = fmax(opmax, b->ops[i].ts);
	for (size_t k = 0; k < nwin; k++) {
		double start = (double)k * w, width = fmin(w, opmax - start);
		if (width < w * 0.25)
			width = w * 0.25; /* a short last window would overstate the rate */
		x[k] = fmin(start + w / 2, pg->tmax);
		y[k] = b->nops && start <= opmax ? y[k] / width : NAN;
	}
	double req = meta_num(b, "requested_rate_per_s");
	char wbuf[32];
	rp_format_duration(w, wbuf, sizeof wbuf);
	fprintf(f, "<h2 id=\"rate\">Operation rate</h2>\n<p>Achieved: finished operations per second in %s windows", wbuf);
	if (isnan(req))
		fputs("; no requested rate in metadata.txt (key <code>requested_rate_per_s</code>).</p>\n", f);
	else
		fprintf(f, "; requested %.6g/s (dashed line).</p>\n", req);
	rp_series s[] = {{.name = "achieved ops/s", .x = x, .y = y, .n = nwin, .css = "s0"}};
	chart(f, pg, "chart-rate", "Achieved vs requested operation rate", "finished operations", RP_UNIT_RATE, s, 1, isnan(req) ? 0 : req,
	      "requested");
	/* per scenario */
	double dur = !isnan(b->summary.measured_duration_s) && b->summary.measured_duration_s > 0 ? b->summary.measured_duration_s : pg->tmax;
	fputs("<table class=\"rates\">\n<tr><th>scenario</th><th>operations</th><th>ok</th><th>fail</th>"
	      "<th>expected fault</th><th>achieved ops/s</th><th>requested ops/s</th></tr>\n", f);
	for (size_t s_i = 0; s_i < b->nscenarios; s_i++) {
		long long cnt[3] = {0, 0, 0};
		for (size_t i = 0; i < b->nops; i++)
			if (b->ops[i].scenario == s_i)
				cnt[b->ops[i].result]++;
		long long tot = cnt[0] + cnt[1] + cnt[2];
		fprintf(f, "<tr%s><td>", cnt[RP_FAIL] ? " class=\"fail\"" : "");
		E(b->scenarios[s_i]);
		fprintf(f, "</td><td class=\"num\">%lld</td><td class=\"num\">%lld</td><td class=\"num\">%lld</td>"
			   "<td class=\"num\">%lld</td><td class=\"num\">",
			tot, cnt[RP_OK], cnt[RP_FAIL], cnt[RP_EXPECTED_FAULT]);
		fmt_num(f, dur > 0 ? (double)tot / dur : NAN, "");
		fputs("</td><td class=\"num\">", f);
		_cleanup_free_ char *key = sp_xasprintf("requested_rate_per_s.%s", b->scenarios[s_i]);
		fmt_num(f, meta_num(b, key), "");
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	free(x);
	free(y);
}

typedef struct latkey {
	unsigned scenario, win;
	double ms;
} latkey;

static int cmp_latkey(const void *a, const void *b)
{
	const latkey *x = a, *y = b;
	if (x->scenario != y->scenario)
		return x->scenario < y->scenario ? -1 : 1;
	if (x->win != y->win)
		return x->win < y->win ? -1 : 1;
	return (x->ms > y->ms) - (x->ms < y->ms);
}

static void latency(FILE *f, const page *pg, double w, size_t nwin)
{
	const rp_bundle *b = pg->b;
	char wbuf[32];
	rp_format_duration(w, wbuf, sizeof wbuf);
	fprintf(f, "<h2 id=\"latency\">Latency per scenario</h2>\n<p>p50, p95 and p99 of latency.tsv in %s windows "
		   "(nearest rank); %zu samples.</p>\n", wbuf, b->nlat);
	latkey *k = sp_xcalloc(b->nlat ? b->nlat : 1, sizeof(latkey));
	for (size_t i = 0; i < b->nlat; i++) {
		size_t win = (size_t)(b->lat[i].ts / w);
		k[i] = (latkey){.scenario = b->lat[i].scenario, .win = (unsigned)(win < nwin ? win : nwin - 1),
				.ms = b->lat[i].latency_ms};
	}
	qsort(k, b->nlat, sizeof(latkey), cmp_latkey);
	double *x = sp_xcalloc(nwin, sizeof(double));
	double *p[3];
	for (int j = 0; j < 3; j++)
		p[j] = sp_xcalloc(nwin, sizeof(double));
	double *vals = sp_xcalloc(b->nlat ? b->nlat : 1, sizeof(double));
	double *sx = sp_xcalloc(b->nlat ? b->nlat : 1, sizeof(double)), *sy = sp_xcalloc(b->nlat ? b->nlat : 1, sizeof(double));
	fputs("<table class=\"latency\">\n<tr><th>scenario</th><th>samples</th><th>after warm-up</th>"
	      "<th>p50</th><th>p95</th><th>p99</th><th>max</th></tr>\n", f);
	size_t i = 0;
	for (unsigned s = 0; s < b->nscenarios; s++) {
		/* whole-run percentiles after warm-up, for the table */
		size_t nv = 0, nall = 0;
		for (size_t r = 0; r < b->nlat; r++)
			if (b->lat[r].scenario == s) {
				nall++;
				if (!b->lat[r].warmup)
					vals[nv++] = b->lat[r].latency_ms;
			}
		qsort(vals, nv, sizeof(double), cmp_double);
		fputs("<tr><td>", f);
		E(b->scenarios[s]);
		fprintf(f, "</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td>", nall, nv);
		static const double ps[3] = {0.50, 0.95, 0.99};
		for (int j = 0; j < 3; j++) {
			fputs("<td class=\"num\">", f);
			fmt_num(f, rp_percentile(vals, nv, ps[j]), " ms");
			fputs("</td>", f);
		}
		fputs("<td class=\"num\">", f);
		fmt_num(f, nv ? vals[nv - 1] : NAN, " ms");
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	for (unsigned s = 0; s < b->nscenarios; s++) {
		for (size_t wv = 0; wv < nwin; wv++) {
			x[wv] = fmin(((double)wv + 0.5) * w, pg->tmax);
			p[0][wv] = p[1][wv] = p[2][wv] = NAN;
		}
		while (i < b->nlat && k[i].scenario == s) {
			size_t j = i;
			while (j < b->nlat && k[j].scenario == s && k[j].win == k[i].win)
				j++;
			size_t nv = j - i;
			for (size_t q = 0; q < nv; q++)
				vals[q] = k[i + q].ms;
			p[0][k[i].win] = rp_percentile(vals, nv, 0.50);
			p[1][k[i].win] = rp_percentile(vals, nv, 0.95);
			p[2][k[i].win] = rp_percentile(vals, nv, 0.99);
			i = j;
		}
		/* the samples themselves behind the percentiles, while they are few
		 * enough to see (a short run has little else to show) */
		size_t ns = 0;
		for (size_t r = 0; r < b->nlat; r++)
			ns += b->lat[r].scenario == s;
		size_t nse = 0;
		rp_series se[4];
		if (ns && ns <= 2000) {
			size_t q = 0;
			for (size_t r = 0; r < b->nlat; r++)
				if (b->lat[r].scenario == s) {
					sx[q] = b->lat[r].ts;
					sy[q++] = b->lat[r].latency_ms;
				}
			se[nse++] = (rp_series){.name = "each operation", .x = sx, .y = sy, .n = q, .css = "pts", .points_only = 1};
		}
		se[nse++] = (rp_series){.name = "p50", .x = x, .y = p[0], .n = nwin, .css = "s0"};
		se[nse++] = (rp_series){.name = "p95", .x = x, .y = p[1], .n = nwin, .css = "s1"};
		se[nse++] = (rp_series){.name = "p99", .x = x, .y = p[2], .n = nwin, .css = "s2"};
		_cleanup_free_ char *id = sp_xasprintf("chart-latency-%u", s);
		_cleanup_free_ char *title = sp_xasprintf("Latency %s", b->scenarios[s]);
		chart(f, pg, id, title, "latency", RP_UNIT_MS, se, nse, 0, NULL);
	}
	free(vals);
	free(sx);
	free(sy);
	free(k);
	free(x);
	for (int j = 0; j < 3; j++)
		free(p[j]);
}

static void capabilities(FILE *f, const rp_bundle *b)
{
	fprintf(f, "<h2 id=\"capabilities\">Capability results</h2>\n");
	if (!b->ncaps) {
		fputs("<p class=\"note\">capability-results.tsv has no rows.</p>\n", f);
		return;
	}
	fputs("<table class=\"caps\">\n<tr><th>scenario</th><th>attempted</th><th>succeeded</th><th>expected faults</th>"
	      "<th>unexpected failures</th><th>result</th></tr>\n", f);
	for (size_t i = 0; i < b->ncaps; i++) {
		const rp_capability *c = &b->caps[i];
		fprintf(f, "<tr class=\"cap%s\"><td>", c->pass ? "" : " fail");
		E(c->scenario);
		fprintf(f, "</td><td class=\"num\">%lld</td><td class=\"num\">%lld</td><td class=\"num\">%lld</td>"
			   "<td class=\"num\">%lld</td><td class=\"%s\">%s</td></tr>\n",
			c->attempted, c->succeeded, c->expected_faults, c->unexpected_failures, c->pass ? "pass" : "fail",
			c->pass ? "pass" : "fail");
	}
	fputs("</table>\n", f);
}

static void faults(FILE *f, const rp_bundle *b)
{
	fprintf(f, "<h2 id=\"faults\">Faults</h2>\n");
	if (!b->nfaults) {
		fputs("<p>No faults were injected (faults.tsv has no rows).</p>\n", f);
		return;
	}
	fputs("<table class=\"faults\">\n<tr><th>fault</th><th>target</th><th>expected</th><th>started</th><th>ended</th>"
	      "<th>recovery</th><th>RTO</th><th>result</th></tr>\n", f);
	for (size_t i = 0; i < b->nfaults; i++) {
		const rp_fault *x = &b->faults[i];
		fprintf(f, "<tr class=\"fault%s\"><td>", x->pass ? "" : " fail");
		E(x->id);
		fputs("</td><td>", f);
		E(x->target);
		fputs("</td><td>", f);
		E(x->expected);
		fputs("</td><td class=\"num\">", f);
		fmt_num(f, x->started, " s");
		fputs("</td><td class=\"num\">", f);
		fmt_num(f, x->ended, " s");
		fputs("</td><td class=\"num\">", f);
		fmt_num(f, x->recovery_ms, " ms");
		fputs("</td><td class=\"num\">", f);
		fmt_num(f, x->rto_ms, " ms");
		fprintf(f, "</td><td class=\"%s\">%s</td></tr>\n", x->pass ? "pass" : "fail", x->pass ? "pass" : "fail");
	}
	fputs("</table>\n", f);
}

/* "601 s", or "-" when the summary has no such field */
static const char *secs(double v, char *buf, size_t size)
{
	if (isnan(v))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.6g s", v);
	return buf;
}

static void run_facts(FILE *f, const rp_bundle *b, double warmup)
{
	fputs("<h2 id=\"run\">Run facts</h2>\n<table class=\"facts\">\n", f);
	char buf[128];
	fact(f, "run id", rp_meta(b, "run_id"));
	fact(f, "profile", rp_meta(b, "profile"));
	fact(f, "scenarios", rp_meta(b, "scenarios"));
	_cleanup_free_ char *rt = sp_xasprintf("%s (%s)", rp_meta(b, "runtime") ? rp_meta(b, "runtime") : "-",
					       rp_meta(b, "runtime_version") ? rp_meta(b, "runtime_version") : "-");
	fact(f, "runtime", rt);
	char mem[32];
	rp_format_value(meta_num(b, "host_memory_bytes"), RP_UNIT_BYTES, mem, sizeof mem);
	_cleanup_free_ char *host = sp_xasprintf(
		"%s %s, %s cpus, %s memory", rp_meta(b, "host_kernel") ? rp_meta(b, "host_kernel") : "-",
		rp_meta(b, "host_arch") ? rp_meta(b, "host_arch") : "-",
		rp_meta(b, "host_cpus") ? rp_meta(b, "host_cpus") : "-", mem);
	fact(f, "host", host);
	fact(f, "started at", rp_meta(b, "started_at"));
	char n1[32], n2[32], n3[32], n4[32];
	snprintf(buf, sizeof buf, "requested %s, measured %s, sample span %s, max gap %s",
		 secs(b->summary.requested_duration_s, n1, sizeof n1), secs(b->summary.measured_duration_s, n2, sizeof n2),
		 secs(b->summary.span_s, n3, sizeof n3), secs(b->summary.max_gap_s, n4, sizeof n4));
	fact(f, "duration", buf);
	snprintf(buf, sizeof buf, "ends at %.6g s (metadata warmup_s %s)", warmup,
		 rp_meta(b, "warmup_s") ? rp_meta(b, "warmup_s") : "-");
	fact(f, "warm-up", buf);
	fact(f, "stop condition", b->summary.stop_condition);
	fact(f, "cleanup", b->summary.cleanup);
	_cleanup_free_ char *tool = sp_xasprintf("%s, commit %s, dirty %s",
						 rp_meta(b, "tool_version") ? rp_meta(b, "tool_version") : "-",
						 rp_meta(b, "tool_commit") ? rp_meta(b, "tool_commit") : "-",
						 rp_meta(b, "dirty") ? rp_meta(b, "dirty") : "-");
	fact(f, "tool", tool);
	fact(f, "faults configured", rp_meta(b, "faults"));
	fact(f, "seed", rp_meta(b, "seed"));
	fact(f, "concurrency", rp_meta(b, "concurrency"));
	fputs("</table>\n<h3 id=\"metadata\">All metadata.txt keys</h3>\n<table class=\"meta\">\n", f);
	for (size_t i = 0; i < b->nmeta; i++)
		fact(f, b->meta[i].key, b->meta[i].value);
	fputs("</table>\n", f);
	/* the verdict the soak runner recorded, when the bundle has one */
	_cleanup_free_ char *path = sp_xasprintf("%s/verify.out", b->dir);
	size_t len = 0;
	int e = 0;
	_cleanup_free_ char *vo = sp_read_file_alloc(path, 1u << 20, &len, &e);
	if (vo) {
		fputs("<h3 id=\"verify-out\">verify.out recorded in the bundle</h3>\n<pre>", f);
		E(vo);
		fputs("</pre>\n", f);
	}
}

int rp_render_html(FILE *f, const rp_bundle *b, const rp_verdict *v)
{
	page pg = {.b = b, .tmax = rp_time_max(b), .warmup = rp_warmup_end(b)};
	if (pg.tmax <= 0)
		pg.tmax = 1;
	pg.faults = sp_xcalloc(b->nfaults ? b->nfaults : 1, sizeof(rp_window));
	for (size_t i = 0; i < b->nfaults; i++)
		pg.faults[i] = (rp_window){.start = b->faults[i].started, .end = b->faults[i].ended, .label = b->faults[i].id};
	pg.nfaults = b->nfaults;
	/* windows wide enough for a rate to mean something: 3 operations each on average */
	double w = rp_window_width_events(pg.tmax, b->nops, 3);
	size_t nwin = (size_t)ceil(pg.tmax / w);
	if (nwin == 0)
		nwin = 1;

	header(f, b, v);
	gates(f, b, v);
	resources(f, &pg);
	rate(f, &pg, w, nwin);
	latency(f, &pg, w, nwin);
	capabilities(f, b);
	faults(f, b);
	run_facts(f, b, pg.warmup);
	fprintf(f, "<div class=\"footer\">Generated by sandprobe %s from ", SP_VERSION);
	E(b->dir);
	fputs(". Self-contained: no scripts, no external resources.</div>\n</div>\n</body>\n</html>\n", f);
	free(pg.faults);
	if (fflush(f) != 0 || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}
