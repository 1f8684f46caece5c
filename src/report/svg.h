/* Inline SVG line charts over run time: axes, ticks, legend, the warm-up
 * shaded, fault windows marked, one <path> per series. No scripts. */
#ifndef SP_REPORT_SVG_H
#define SP_REPORT_SVG_H

#include <stddef.h>
#include <stdio.h>

typedef enum rp_unit { RP_UNIT_COUNT, RP_UNIT_BYTES, RP_UNIT_MS, RP_UNIT_RATE } rp_unit;

typedef struct rp_series {
	const char *name;
	const double *x, *y; /* y NaN: a gap in the line */
	size_t n;
	const char *css;     /* class of the path: s0..s3, req */
	int dashed;
} rp_series;

typedef struct rp_window {
	double start, end;
	const char *label;
} rp_window;

typedef struct rp_chart {
	const char *title;
	const char *id;      /* element id (anchor) */
	rp_unit unit;
	double xmax;         /* seconds */
	double warmup_end;   /* shaded [0, warmup_end) when > 0 */
	const rp_window *faults;
	size_t nfaults;
	const rp_series *series;
	size_t nseries;
	double ymark;        /* a horizontal threshold line when > 0 (NaN or 0: none) */
	const char *ymark_label;
} rp_chart;

/* write the chart as an <svg> element */
void rp_svg_chart(FILE *f, const rp_chart *c);
/* "1.5 GiB", "12 ms", "3.2/s", "42" into buf */
void rp_format_value(double v, rp_unit u, char *buf, size_t size);
/* "90s", "15m", "2h30m" */
void rp_format_duration(double s, char *buf, size_t size);
/* HTML/XML-escape s into f (control characters become U+FFFD) */
void rp_html_escape(FILE *f, const char *s);

#endif
