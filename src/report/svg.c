#include "report/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/junit.h"
#include "core/util.h"

/* geometry of every chart (viewBox units; the page shows it about 1:1) */
#define W 960.0
#define ML 74.0 /* left margin: y title and tick labels */
#define MR 18.0
#define TITLE_H 26.0
#define ROW_H 13.0 /* one row of fault labels above the plot */
#define LABEL_ROWS 2
#define PLOT_H 170.0
#define XAXIS_H 40.0 /* x ticks and x title */
#define LEGEND_ROW 18.0
/* text widths are estimated generously (Chromium's sans at 11 px averages
 * ~6 px per character) so that labels placed apart never touch */
#define CHAR_W_11 7.0
#define CHAR_W_12 7.6
#define BAND_MERGE_PX 10.0

static const char style[] =
	"text{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;fill:#1d2330}"
	".ct{font-size:14px;font-weight:600}"
	".yt{font-size:11px;fill:#5b6475;text-anchor:end}.xt{font-size:11px;fill:#5b6475;text-anchor:middle}"
	".at{font-size:12px;fill:#3b4252;text-anchor:middle}"
	".lg{font-size:12px}.fl{font-size:11px;fill:#9b2c2c}"
	".empty{font-size:14px;fill:#8a93a3;text-anchor:middle}"
	".grid{stroke:#e6e9ee;stroke-width:1}.axis,.tick{stroke:#8a93a3;stroke-width:1}"
	".warmup{fill:#f3e9b8;opacity:.6}.fault{fill:#e35d5d;opacity:.28}.fault.dense{opacity:.45}"
	".fmark{stroke:#c0392b;stroke-width:1}"
	".mark{stroke:#c0392b;stroke-width:1.4;stroke-dasharray:6 4;fill:none}"
	"path,line.s0,line.s1,line.s2,line.s3,line.req{fill:none;stroke-width:2;stroke-linejoin:round;stroke-linecap:round}"
	".s0{stroke:#2456a6}.s1{stroke:#d9822b}.s2{stroke:#b03a48}.s3{stroke:#2f9e44}.req{stroke:#6b7280}"
	"circle.s0{fill:#2456a6}circle.s1{fill:#d9822b}circle.s2{fill:#b03a48}circle.s3{fill:#2f9e44}"
	"circle.pts{fill:#8a93a3;opacity:.55;stroke:none}"
	".dash{stroke-dasharray:5 4}";

/* escape into f as XML text, always well-formed (core/junit.c) */
static void xml(FILE *f, const char *s)
{
	sp_xml_attr(f, s ? s : "");
}

void rp_base64(FILE *f, const unsigned char *p, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i = 0;
	for (; i + 3 <= n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
		fputc(a[v >> 18], f);
		fputc(a[(v >> 12) & 63], f);
		fputc(a[(v >> 6) & 63], f);
		fputc(a[v & 63], f);
	}
	if (n - i == 1) {
		unsigned v = (unsigned)p[i] << 16;
		fputc(a[v >> 18], f);
		fputc(a[(v >> 12) & 63], f);
		fputs("==", f);
	} else if (n - i == 2) {
		unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8;
		fputc(a[v >> 18], f);
		fputc(a[(v >> 12) & 63], f);
		fputc(a[(v >> 6) & 63], f);
		fputc('=', f);
	}
}

void rp_format_duration(double s, char *buf, size_t size)
{
	if (s < 0)
		s = 0;
	if (s < 120)
		snprintf(buf, size, "%gs", round(s * 10) / 10);
	else if (s < 7200)
		snprintf(buf, size, "%gm", round(s / 6) / 10);
	else if (s < 3 * 86400)
		snprintf(buf, size, "%gh", round(s / 360) / 10);
	else
		snprintf(buf, size, "%gd", round(s / 8640) / 10);
}

static const char *const byte_units[] = {"B", "KiB", "MiB", "GiB", "TiB"};

void rp_format_value(double v, rp_unit u, char *buf, size_t size)
{
	if (isnan(v)) {
		snprintf(buf, size, "-");
		return;
	}
	switch (u) {
	case RP_UNIT_BYTES: {
		size_t i = 0;
		while (fabs(v) >= 1024 && i + 1 < SP_ARRAY_SIZE(byte_units)) {
			v /= 1024;
			i++;
		}
		snprintf(buf, size, i ? "%.3g %s" : "%.0f %s", v, byte_units[i]);
		break;
	}
	case RP_UNIT_MS: snprintf(buf, size, "%.3g ms", v); break;
	case RP_UNIT_RATE: snprintf(buf, size, "%.3g/s", v); break;
	case RP_UNIT_COUNT:
		if (fabs(v) >= 1e6 || (v != floor(v) && fabs(v) < 1e6))
			snprintf(buf, size, "%.4g", v);
		else
			snprintf(buf, size, "%.0f", v);
		break;
	}
}

/* a "nice" step (1, 2, 5 x 10^k) so that range/step is at most n */
static double nice_step(double range, int n)
{
	if (!(range > 0))
		return 1;
	double raw = range / n;
	double mag = pow(10, floor(log10(raw)));
	double f = raw / mag;
	double step = f <= 1 ? 1 : f <= 2 ? 2
			   : f <= 5       ? 5
					  : 10;
	return step * mag;
}

/* a tick label: no trailing zeros, no "-0" */
static void tick_label(double v, double step, char *buf, size_t size)
{
	int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
	if (dec > 6)
		dec = 6;
	if (fabs(v) < step * 1e-6)
		v = 0;
	snprintf(buf, size, "%.*f", dec, v);
}

/* the width of s at CHAR_W per code point */
static double text_w(const char *s, double char_w)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		n += (*p & 0xC0) != 0x80;
	return (double)n * char_w;
}

size_t rp_fault_bands(const rp_window *w, size_t n, double xmax, double px, double min_px, rp_band *out)
{
	if (!n)
		return 0;
	/* order by start (the windows of faults.tsv are in start order, but a
	 * bundle is untrusted input) */
	size_t *ix = sp_xcalloc(n, sizeof *ix);
	for (size_t i = 0; i < n; i++)
		ix[i] = i;
	for (size_t i = 1; i < n; i++) /* insertion sort: n is small, and usually sorted */
		for (size_t j = i; j > 0 && w[ix[j - 1]].start > w[ix[j]].start; j--) {
			size_t t = ix[j];
			ix[j] = ix[j - 1];
			ix[j - 1] = t;
		}
	size_t nb = 0;
	for (size_t k = 0; k < n; k++) {
		const rp_window *x = &w[ix[k]];
		double s = fmax(0, fmin(isnan(x->start) ? 0 : x->start, xmax));
		double e = fmin(isnan(x->end) ? xmax : x->end, xmax);
		if (e < s)
			e = s;
		double x0 = s / xmax * px, x1 = fmax(e / xmax * px, x0 + 2);
		if (nb && x0 <= out[nb - 1].x1 + min_px) {
			rp_band *b = &out[nb - 1];
			b->x1 = fmax(b->x1, x1);
			b->count++;
			if (b->same_label && strcmp(w[b->first].label ? w[b->first].label : "", x->label ? x->label : ""))
				b->same_label = 0;
			continue;
		}
		out[nb++] = (rp_band){.x0 = x0, .x1 = x1, .count = 1, .first = ix[k], .same_label = 1};
	}
	free(ix);
	return nb;
}

typedef struct axis {
	double div;       /* value units per axis unit */
	double step, top; /* in axis units */
	char unit[16];
} axis;

static void y_axis(const rp_chart *c, double ymax, axis *a)
{
	a->div = 1;
	switch (c->unit) {
	case RP_UNIT_BYTES: {
		size_t i = 0;
		while (ymax / a->div >= 1024 && i + 1 < SP_ARRAY_SIZE(byte_units)) {
			a->div *= 1024;
			i++;
		}
		snprintf(a->unit, sizeof a->unit, "%s", byte_units[i]);
		break;
	}
	case RP_UNIT_MS: snprintf(a->unit, sizeof a->unit, "ms"); break;
	case RP_UNIT_RATE: snprintf(a->unit, sizeof a->unit, "ops/s"); break;
	case RP_UNIT_COUNT: snprintf(a->unit, sizeof a->unit, "count"); break;
	}
	double m = ymax / a->div;
	a->step = nice_step(m > 0 ? m : 1, 4);
	if (c->unit == RP_UNIT_COUNT && a->step < 1)
		a->step = 1; /* counts are whole */
	a->top = a->step * ceil((m > 0 ? m * 1.05 : 1) / a->step);
}

static void x_axis(double xmax, axis *a)
{
	static const struct {
		double limit, div;
		const char *unit;
	} u[] = {{180, 1, "s"}, {3 * 3600, 60, "min"}, {72 * 3600, 3600, "h"}, {INFINITY, 86400, "d"}};
	size_t i = 0;
	while (xmax >= u[i].limit)
		i++;
	a->div = u[i].div;
	snprintf(a->unit, sizeof a->unit, "%s", u[i].unit);
	a->step = nice_step(xmax / a->div, 8);
	a->top = xmax / a->div;
}

struct legend_item {
	const char *css, *text;
	int kind; /* 0 line, 1 dashed line, 2 swatch (class), 3 markers */
};

/* the legend's items and where each goes; the texts point into it */
struct legend {
	struct legend_item item[16];
	size_t n;
	char warm_txt[64], fault_txt[96], mark_txt[160];
	double lx[16], lrow[16];
	int rows;
};

/* the plot's frame: what maps a value to a point */
struct frame {
	double xmax, pw, ph, mt, ybase;
	axis ya, xa;
};

#define X(v) (ML + (v) / g->xmax * g->pw)
#define Y(v) (g->ybase - (v) / g->ya.div / g->ya.top * g->ph)

/* each fault band's label and its label row (-1: none fits) */
static void label_bands(const rp_chart *c, const rp_band *bands, size_t nb, int *row, char **label, rp_chart_info *info)
{
	double row_end[LABEL_ROWS];
	for (int r = 0; r < LABEL_ROWS; r++)
		row_end[r] = -1e9;
	for (size_t i = 0; i < nb; i++) {
		const char *l0 = c->faults[bands[i].first].label ? c->faults[bands[i].first].label : "fault";
		if (bands[i].count == 1)
			label[i] = sp_xstrdup(l0);
		else if (bands[i].same_label)
			label[i] = sp_xasprintf("%s \xc3\x97%zu", l0, bands[i].count); /* U+00D7 */
		else
			label[i] = sp_xasprintf("%zu faults", bands[i].count);
		double lw = text_w(label[i], CHAR_W_11), x = ML + bands[i].x0;
		row[i] = -1;
		if (x + lw > W - 2)
			x = W - 2 - lw;
		for (int r = 0; r < LABEL_ROWS; r++)
			if (x >= row_end[r] + 6) {
				row[i] = r;
				row_end[r] = x + lw;
				break;
			}
		info->labelled += row[i] >= 0;
	}
}

/* the legend: series, then threshold, warm-up and fault bands; wraps */
static void legend_layout(const rp_chart *c, size_t nb, bool mark, struct legend *lg)
{
	struct legend_item *leg = lg->item;
	size_t nleg = 0;
	for (size_t s = 0; s < c->nseries && nleg < 10; s++)
		leg[nleg++] = (struct legend_item){c->series[s].css, c->series[s].name,
						   c->series[s].points_only ? 3 : c->series[s].dashed ? 1
												      : 0};
	if (mark) {
		snprintf(lg->mark_txt, sizeof lg->mark_txt, "%s", c->ymark_label ? c->ymark_label : "threshold");
		leg[nleg++] = (struct legend_item){"mark", lg->mark_txt, 1};
	}
	if (c->warmup_end > 0) {
		char d[32];
		rp_format_duration(c->warmup_end, d, sizeof d);
		snprintf(lg->warm_txt, sizeof lg->warm_txt, "warm-up (first %s)", d);
		leg[nleg++] = (struct legend_item){"warmup", lg->warm_txt, 2};
	}
	if (c->nfaults) {
		if (nb == c->nfaults)
			snprintf(lg->fault_txt, sizeof lg->fault_txt, "fault window%s (%zu)", c->nfaults == 1 ? "" : "s",
				 c->nfaults);
		else
			snprintf(lg->fault_txt, sizeof lg->fault_txt, "%zu fault windows in %zu bands", c->nfaults, nb);
		leg[nleg++] = (struct legend_item){"fault", lg->fault_txt, 2};
	}
	int legend_rows = nleg ? 1 : 0;
	double x = ML;
	for (size_t i = 0; i < nleg; i++) {
		double wdt = 26 + text_w(leg[i].text, CHAR_W_12) + 18;
		if (x > ML && x + wdt > W - MR) {
			legend_rows++;
			x = ML;
		}
		lg->lx[i] = x;
		lg->lrow[i] = legend_rows - 1;
		x += wdt;
	}
	lg->n = nleg;
	lg->rows = legend_rows;
}

/* warm-up and fault bands behind everything */
static void draw_bands(FILE *f, const rp_chart *c, const struct frame *g, const rp_band *bands, size_t nb,
		       const int *row, char *const *label)
{
	const double MT = g->mt, ph = g->ph;
	if (c->warmup_end > 0) {
		double we = fmin(c->warmup_end, g->xmax);
		fprintf(f, "<rect class=\"warmup\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n", X(0), MT,
			fmax(X(we) - X(0), 1), ph);
	}
	for (size_t i = 0; i < nb; i++) {
		fprintf(f, "<rect class=\"fault%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
			bands[i].count > 1 ? " dense" : "", ML + bands[i].x0, MT, bands[i].x1 - bands[i].x0, ph);
		if (row[i] >= 0) {
			double lw = text_w(label[i], CHAR_W_11), lxx = ML + bands[i].x0;
			if (lxx + lw > W - 2)
				lxx = W - 2 - lw;
			double ly = TITLE_H + ROW_H * (row[i] + 1) - 2;
			fprintf(f, "<line class=\"fmark\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", ML + bands[i].x0,
				ML + bands[i].x0, ly + 2, MT);
			fprintf(f, "<text class=\"fl\" x=\"%.1f\" y=\"%.1f\">", lxx + 2, ly);
			xml(f, label[i]);
			fputs("</text>\n", f);
		}
	}
}

/* grid, ticks, axes, their titles and the threshold line */
static void draw_axes(FILE *f, const rp_chart *c, const struct frame *g, bool mark)
{
	const double MT = g->mt, ph = g->ph, pw = g->pw, ybase = g->ybase, xmax = g->xmax;
	const axis ya = g->ya, xa = g->xa;
	/* grid, y ticks and the y title (rotated) */
	char buf[64];
	for (double v = 0; v <= ya.top * 1.0001; v += ya.step) {
		double yy = ybase - v / ya.top * ph;
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", ML, W - MR, yy, yy);
		tick_label(v, ya.step, buf, sizeof buf);
		fprintf(f, "<text class=\"yt\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", ML - 6, yy + 4, buf);
	}
	fprintf(f, "<text class=\"at\" transform=\"translate(16 %.1f) rotate(-90)\">", MT + ph / 2);
	xml(f, c->quantity ? c->quantity : c->title);
	fprintf(f, " (%s)</text>\n", ya.unit);
	/* x ticks and title */
	for (double v = 0; v <= xa.top * 1.0001; v += xa.step) {
		double xx = ML + v * xa.div / xmax * pw;
		tick_label(v, xa.step, buf, sizeof buf);
		fprintf(f, "<line class=\"tick\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", xx, xx, ybase, ybase + 4);
		fprintf(f, "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", xx, ybase + 16, buf);
	}
	fprintf(f, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n", ML, W - MR, ybase, ybase);
	fprintf(f, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n", ML, ML, MT, ybase);
	fprintf(f, "<text class=\"at\" x=\"%.1f\" y=\"%.1f\">run time (%s)</text>\n", ML + pw / 2, ybase + 34, xa.unit);
	if (mark)
		fprintf(f, "<path class=\"mark\" d=\"M%.1f %.1f H%.1f\"/>\n", ML, Y(c->ymark), W - MR);
}

/* one series: its line (broken at gaps), and markers where a line alone would
 * be hard to see: few points, or samples */
static void draw_series(FILE *f, const rp_series *se, const struct frame *g)
{
	const double xmax = g->xmax;
	size_t n = 0;
	for (size_t i = 0; i < se->n; i++)
		n += !isnan(se->y[i]) && !isnan(se->x[i]);
	if (!se->points_only) {
		fprintf(f, "<path class=\"%s%s\" d=\"", se->css, se->dashed ? " dash" : "");
		bool pen = false;
		size_t drawn = 0;
		for (size_t i = 0; i < se->n; i++) {
			if (isnan(se->y[i]) || isnan(se->x[i])) {
				pen = false;
				continue;
			}
			fprintf(f, "%s%.1f %.1f", pen ? " L" : (drawn ? " M" : "M"), X(fmin(se->x[i], xmax)), Y(se->y[i]));
			if (!pen && (i + 1 >= se->n || isnan(se->y[i + 1])))
				fprintf(f, " l0 0");
			pen = true;
			drawn++;
		}
		fputs("\"/>\n", f);
	}
	if (se->points_only || n <= 40) {
		double r = se->points_only ? 2.2 : 3.2;
		for (size_t i = 0; i < se->n; i++)
			if (!isnan(se->y[i]) && !isnan(se->x[i]))
				fprintf(f, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"/>", se->css,
					X(fmin(se->x[i], xmax)), Y(se->y[i]), r);
		fputc('\n', f);
	}
}

static void draw_legend(FILE *f, const struct legend *lg, double ybase)
{
	const struct legend_item *leg = lg->item;
	const double *lx = lg->lx, *lrow = lg->lrow;
	for (size_t i = 0; i < lg->n; i++) {
		double ly = ybase + XAXIS_H + LEGEND_ROW * lrow[i] + 12;
		switch (leg[i].kind) {
		case 0:
		case 1:
			if (!strcmp(leg[i].css, "mark"))
				fprintf(f, "<path class=\"mark\" d=\"M%.1f %.1f h20\"/>", lx[i], ly - 4);
			else
				fprintf(f, "<line class=\"%s%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", leg[i].css,
					leg[i].kind ? " dash" : "", lx[i], lx[i] + 20, ly - 4, ly - 4);
			break;
		case 2:
			fprintf(f, "<rect class=\"%s key\" x=\"%.1f\" y=\"%.1f\" width=\"20\" height=\"10\"/>", leg[i].css,
				lx[i], ly - 9);
			break;
		case 3:
			fprintf(f, "<circle class=\"%s key\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"/><circle class=\"%s key\" "
				   "cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\"/>",
				leg[i].css, lx[i] + 5, ly - 4, leg[i].css, lx[i] + 15, ly - 4);
			break;
		}
		fprintf(f, "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">", lx[i] + 26, ly);
		xml(f, leg[i].text);
		fputs("</text>\n", f);
	}
}

#undef X
#undef Y

void rp_svg_chart(FILE *f, const rp_chart *c, rp_chart_info *info)
{
	rp_chart_info dummy;
	if (!info)
		info = &dummy;
	memset(info, 0, sizeof *info);
	struct frame fr = {.xmax = c->xmax > 0 ? c->xmax : 1};
	double ymax = 0;
	size_t points = 0;
	for (size_t s = 0; s < c->nseries; s++)
		for (size_t i = 0; i < c->series[s].n; i++)
			if (!isnan(c->series[s].y[i]) && !isnan(c->series[s].x[i])) {
				ymax = fmax(ymax, c->series[s].y[i]);
				points++;
			}
	bool mark = c->ymark > 0 && !isnan(c->ymark);
	if (mark)
		ymax = fmax(ymax, c->ymark);
	y_axis(c, ymax, &fr.ya);
	x_axis(fr.xmax, &fr.xa);
	snprintf(info->yunit, sizeof info->yunit, "%s", fr.ya.unit);
	snprintf(info->xunit, sizeof info->xunit, "%s", fr.xa.unit);
	fr.pw = W - ML - MR;

	/* fault bands and their label rows, decided before anything is drawn */
	rp_band *bands = sp_xcalloc(c->nfaults ? c->nfaults : 1, sizeof *bands);
	size_t nb = rp_fault_bands(c->faults, c->nfaults, fr.xmax, fr.pw, BAND_MERGE_PX, bands);
	int *row = sp_xcalloc(nb ? nb : 1, sizeof *row);
	char **label = sp_xcalloc(nb ? nb : 1, sizeof *label);
	label_bands(c, bands, nb, row, label, info);
	info->bands = nb;
	info->faults = c->nfaults;
	bool any_row = false;
	for (size_t i = 0; i < nb; i++)
		any_row |= row[i] >= 0;
	fr.mt = TITLE_H + (any_row ? ROW_H * LABEL_ROWS + 4 : 4);

	struct legend lg;
	legend_layout(c, nb, mark, &lg);
	const double H = fr.mt + PLOT_H + XAXIS_H + LEGEND_ROW * lg.rows + 4;
	fr.ph = PLOT_H;
	fr.ybase = fr.mt + fr.ph;

	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
		   "role=\"img\" id=\"",
		W, H, W, H);
	xml(f, c->id);
	fputs("\">\n<title>", f);
	xml(f, c->title);
	fprintf(f, "</title>\n<style>%s</style>\n<rect class=\"bg\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", style, W, H);
	fprintf(f, "<text class=\"ct\" x=\"%.1f\" y=\"18\">", ML);
	xml(f, c->title);
	fputs("</text>\n", f);

	draw_bands(f, c, &fr, bands, nb, row, label);
	draw_axes(f, c, &fr, mark);
	for (size_t s = 0; s < c->nseries; s++)
		draw_series(f, &c->series[s], &fr);
	if (points == 0)
		fprintf(f, "<text class=\"empty\" x=\"%.1f\" y=\"%.1f\">no data</text>\n", ML + fr.pw / 2,
			fr.mt + fr.ph / 2);
	draw_legend(f, &lg, fr.ybase);
	fputs("</svg>\n", f);
	for (size_t i = 0; i < nb; i++)
		free(label[i]);
	free(label);
	free(row);
	free(bands);
}
