/* SVG line charts over run time, each a standalone SVG document (own
 * stylesheet, no scripts) that the page embeds as an <img>: titled axes with
 * units (one unit per axis, chosen from the range: B/KiB/MiB/GiB, s/min/h/d),
 * a legend that wraps, the warm-up shaded, fault windows merged into bands
 * with a count where they are too dense to tell apart, their labels in rows
 * above the plot that never overlap, a threshold line, markers where a
 * series has few points. */
#ifndef SP_REPORT_SVG_H
#define SP_REPORT_SVG_H

#include <stddef.h>
#include <stdio.h>

typedef enum rp_unit { RP_UNIT_COUNT, RP_UNIT_BYTES, RP_UNIT_MS, RP_UNIT_RATE } rp_unit;

typedef struct rp_series {
	const char *name;
	const double *x, *y; /* y NaN: a gap in the line */
	size_t n;
	const char *css;     /* class of the path: s0..s3, req, pts */
	int dashed;
	int points_only;     /* markers, no line (individual samples) */
} rp_series;

typedef struct rp_window {
	double start, end; /* end NaN: still open at the end of the run */
	const char *label;
} rp_window;

typedef struct rp_chart {
	const char *title;
	const char *id;      /* element id (anchor) */
	const char *quantity; /* the y axis title without its unit: "memory", "file descriptors" */
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

/* what a chart shows, for the page: fault bands drawn and labelled */
typedef struct rp_chart_info {
	size_t bands, labelled, faults;
	char yunit[16], xunit[8];
} rp_chart_info;

/* Fault windows as bands: those closer than min_px (at width px for xmax
 * seconds) merge into one. Fills start/end (px), count; returns the number
 * of bands (at most n). */
typedef struct rp_band {
	double x0, x1;
	size_t count;
	size_t first; /* index of its first window */
	int same_label;
} rp_band;
size_t rp_fault_bands(const rp_window *w, size_t n, double xmax, double px, double min_px, rp_band *out);

/* write the chart as a standalone SVG document */
void rp_svg_chart(FILE *f, const rp_chart *c, rp_chart_info *info);
/* "1.5 GiB", "12 ms", "3.2/s", "42" into buf */
void rp_format_value(double v, rp_unit u, char *buf, size_t size);
/* "90s", "15m", "2h30m" */
void rp_format_duration(double s, char *buf, size_t size);
/* base64 (RFC 4648, padded) of n bytes */
void rp_base64(FILE *f, const unsigned char *p, size_t n);

#endif
