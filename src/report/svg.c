#include "report/svg.h"

#include <math.h>
#include <string.h>

#include "core/util.h"

/* geometry of every chart (viewBox units) */
#define W 960.0
#define H 240.0
#define ML 78.0  /* left margin: y tick labels */
#define MR 16.0
#define MT 30.0  /* title */
#define MB 46.0  /* x ticks and legend */

void rp_html_escape(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f)
				fputs("\xef\xbf\xbd", f);
			else
				fputc(*p, f);
		}
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

void rp_format_value(double v, rp_unit u, char *buf, size_t size)
{
	if (isnan(v)) {
		snprintf(buf, size, "-");
		return;
	}
	switch (u) {
	case RP_UNIT_BYTES: {
		static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
		size_t i = 0;
		while (fabs(v) >= 1024 && i + 1 < SP_ARRAY_SIZE(units)) {
			v /= 1024;
			i++;
		}
		snprintf(buf, size, i ? "%.3g %s" : "%.0f %s", v, units[i]);
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

/* a "nice" step (1, 2, 5 x 10^k; for bytes powers of 2 are not needed) so
 * that range/step is at most n */
static double nice_step(double range, int n)
{
	if (range <= 0)
		return 1;
	double raw = range / n;
	double mag = pow(10, floor(log10(raw)));
	double f = raw / mag;
	double step = f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10;
	return step * mag;
}

/* time ticks: seconds, minutes or hours steps */
static double time_step(double xmax)
{
	static const double steps[] = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200,
				       10800, 21600, 43200, 86400, 172800, 432000, 864000};
	for (size_t i = 0; i < SP_ARRAY_SIZE(steps); i++)
		if (xmax / steps[i] <= 8)
			return steps[i];
	return nice_step(xmax, 8);
}

void rp_svg_chart(FILE *f, const rp_chart *c)
{
	double xmax = c->xmax > 0 ? c->xmax : 1;
	double ymax = 0;
	size_t points = 0;
	for (size_t s = 0; s < c->nseries; s++)
		for (size_t i = 0; i < c->series[s].n; i++)
			if (!isnan(c->series[s].y[i])) {
				ymax = fmax(ymax, c->series[s].y[i]);
				points++;
			}
	if (c->ymark > 0)
		ymax = fmax(ymax, c->ymark);
	double ystep;
	if (c->unit == RP_UNIT_BYTES && ymax >= 1024) {
		/* round steps in the binary unit the labels use */
		double unit = 1;
		while (ymax / unit >= 1024 && unit < 1099511627776.0)
			unit *= 1024;
		ystep = nice_step(ymax / unit, 4) * unit;
	} else
		ystep = nice_step(ymax > 0 ? ymax : 1, 4);
	double ytop = ystep * ceil((ymax > 0 ? ymax * 1.05 : 1) / ystep);
	const double pw = W - ML - MR, ph = H - MT - MB;
#define X(v) (ML + (v) / xmax * pw)
#define Y(v) (MT + ph - (v) / ytop * ph)

	fprintf(f, "<svg class=\"chart\" id=\"");
	rp_html_escape(f, c->id);
	fprintf(f, "\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n<title>", W, H);
	rp_html_escape(f, c->title);
	fprintf(f, "</title>\n<text class=\"ct\" x=\"%.1f\" y=\"18\">", ML);
	rp_html_escape(f, c->title);
	fputs("</text>\n", f);
	/* warm-up and fault windows behind everything */
	if (c->warmup_end > 0) {
		double we = fmin(c->warmup_end, xmax);
		fprintf(f, "<rect class=\"warmup\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", X(0), MT,
			X(we) - X(0), ph);
		fprintf(f, "<text class=\"wl\" x=\"%.1f\" y=\"%.1f\">warm-up</text>\n", X(0) + 4, MT + 12);
	}
	for (size_t i = 0; i < c->nfaults; i++) {
		const rp_window *w = &c->faults[i];
		double s = fmin(w->start, xmax), e = fmin(isnan(w->end) ? xmax : w->end, xmax);
		double wpx = fmax(X(e) - X(s), 2);
		fprintf(f, "<rect class=\"fault\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>", X(s), MT,
			wpx, ph);
		fprintf(f, "<text class=\"fl\" x=\"%.1f\" y=\"%.1f\">", X(s) + 2, MT + ph - 4);
		rp_html_escape(f, w->label);
		fputs("</text>\n", f);
	}
	/* grid and y ticks */
	char buf[64];
	for (double v = 0; v <= ytop * 1.0001; v += ystep) {
		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", ML, W - MR, Y(v), Y(v));
		rp_format_value(v, c->unit, buf, sizeof buf);
		fprintf(f, "<text class=\"yt\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", ML - 6, Y(v) + 4, buf);
	}
	double xstep = time_step(xmax);
	for (double v = 0; v <= xmax * 1.0001; v += xstep) {
		rp_format_duration(v, buf, sizeof buf);
		fprintf(f, "<line class=\"tick\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", X(v), X(v), MT + ph,
			MT + ph + 4);
		fprintf(f, "<text class=\"xt\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", X(v), MT + ph + 16, buf);
	}
	fprintf(f, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n", ML, W - MR, MT + ph,
		MT + ph);
	if (c->ymark > 0) {
		fprintf(f, "<line class=\"mark\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", ML, W - MR,
			Y(c->ymark), Y(c->ymark));
		fprintf(f, "<text class=\"ml\" x=\"%.1f\" y=\"%.1f\">", W - MR - 4, Y(c->ymark) - 4);
		rp_html_escape(f, c->ymark_label ? c->ymark_label : "");
		fputs("</text>\n", f);
	}
	/* the series */
	for (size_t s = 0; s < c->nseries; s++) {
		const rp_series *se = &c->series[s];
		fprintf(f, "<path class=\"%s%s\" d=\"", se->css, se->dashed ? " dash" : "");
		bool pen = false;
		size_t drawn = 0;
		for (size_t i = 0; i < se->n; i++) {
			if (isnan(se->y[i]) || isnan(se->x[i])) {
				pen = false;
				continue;
			}
			/* a lone point still shows: a zero-length segment with round caps */
			fprintf(f, "%s%.1f %.1f", pen ? " L" : (drawn ? " M" : "M"), X(fmin(se->x[i], xmax)), Y(se->y[i]));
			if (!pen && (i + 1 >= se->n || isnan(se->y[i + 1])))
				fprintf(f, " l0 0");
			pen = true;
			drawn++;
		}
		fputs("\"/>\n", f);
	}
	/* legend under the x ticks */
	double lx = ML;
	for (size_t s = 0; s < c->nseries; s++) {
		fprintf(f, "<line class=\"%s%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", c->series[s].css,
			c->series[s].dashed ? " dash" : "", lx, lx + 18, H - 10, H - 10);
		fprintf(f, "<text class=\"lg\" x=\"%.1f\" y=\"%.1f\">", lx + 22, H - 6);
		rp_html_escape(f, c->series[s].name);
		fputs("</text>\n", f);
		lx += 40 + 7.0 * (double)strlen(c->series[s].name);
	}
	if (points == 0)
		fprintf(f, "<text class=\"empty\" x=\"%.1f\" y=\"%.1f\">no data</text>\n", ML + pw / 2, MT + ph / 2);
	fputs("</svg>\n", f);
#undef X
#undef Y
}
