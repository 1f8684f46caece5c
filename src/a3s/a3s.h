/* A3S Box soak evidence (deploy/scripts/verify-soak-evidence.sh's host and
 * RuntimeClass cluster bundles): readers shared by the judge (a3s_verify.c)
 * and the importer (a3s_import.c). Everything here reads untrusted input:
 * whole files are bounded, rows are counted, and every message names the
 * file and line. The layout is A3S's; the code is sandprobe's own. */
#ifndef SP_A3S_H
#define SP_A3S_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "evidence/evidence.h"

/* largest A3S file read whole (kubectl describe output can be large) */
#define A3S_MAX_FILE (64u * 1024 * 1024)

/* metadata.txt / summary.txt: "key=value" lines among free text (A3S writes
 * uname, git status and environment lines in between). The first value of
 * a key is the one A3S reads; a later line giving the same key another
 * value is recorded as a conflict. */
typedef struct a3s_kv {
	sp_ev_kv *v;
	size_t n, cap;
	sp_ev_strset set;
	char conflict[200]; /* "line N: key K given twice with different values (first on line M)" */
	bool suites_colon;  /* a "selected_suites:" line (A3S detects a host bundle by it too) */
} a3s_kv;

/* 0, or -1 with err (usage: missing, empty, too large) */
int a3s_kv_load(a3s_kv *kv, const char *dir, const char *name, sp_error *err);
void a3s_kv_parse(a3s_kv *kv, const char *buf, size_t len);
const char *a3s_kv_get(const a3s_kv *kv, const char *key);
/* the line of key, 0 when absent */
unsigned a3s_kv_line(const a3s_kv *kv, const char *key);
void a3s_kv_free(a3s_kv *kv);

/* digits only, at most 18 of them (A3S's is_non_negative_int, bounded) */
bool a3s_is_uint(const char *s, long long *out);

/* A tab-separated table with a header row (resource-samples.tsv,
 * post-cleanup-counts.tsv). Blank lines are skipped, as A3S's awk does;
 * a row with another number of fields than the header is an error. */
typedef struct a3s_table {
	char *copy;
	char **hdr;
	size_t ncol;
	char **cell; /* nrow x ncol */
	unsigned *line;
	size_t nrow;
} a3s_table;
/* 0; -1 with err (usage) naming file and line (missing, empty, no header, a column
 * twice, a row of the wrong width, control characters) */
int a3s_table_load(a3s_table *t, const char *dir, const char *name, sp_error *err);
int a3s_table_col(const a3s_table *t, const char *name);
const char *a3s_cell(const a3s_table *t, size_t row, int col);
void a3s_table_free(a3s_table *t);

/* A whole text artifact, and its non-blank lines split on blanks (awk's
 * default fields). */
typedef struct a3s_text {
	char *buf;
	size_t len;
} a3s_text;
typedef struct a3s_row {
	char *f[8];
	size_t nf;
	unsigned line;
	const char *text; /* the whole line */
} a3s_row;
typedef struct a3s_rows {
	char *copy, *copy2;
	a3s_row *r;
	size_t n;
} a3s_rows;
/* 0; -1 with err (usage) "NAME: missing" / "NAME: empty" / "NAME: larger than ..." */
int a3s_text_load(a3s_text *x, const char *dir, const char *name, sp_error *err);
void a3s_text_free(a3s_text *x);
/* line of the first kubectl collection error ("Error from server", "The
 * connection to the server", "Unable to connect", "error: " at the start of
 * a line), 0 when none */
unsigned a3s_kubectl_error(const a3s_text *x);
void a3s_rows_make(a3s_rows *rs, const a3s_text *x);
void a3s_rows_free(a3s_rows *rs);
/* lines that contain needle */
size_t a3s_count_lines_with(const a3s_text *x, const char *needle);
/* a line that starts with prefix: its line number, 0 when none */
unsigned a3s_line_starting(const a3s_text *x, const char *prefix);

/* sandprobe import a3s: the A3S bundle in src as a sandprobe.evidence.v1
 * bundle in out (new or empty), absent fields marked, nothing invented.
 * 0, or -1 with err (usage: bad input, nothing written that is valid). */
int sp_a3s_import(const char *src, const char *out, enum sp_a3s_kind kind, sp_error *err);

/* SP_INPUT_SANDPROBE or SP_INPUT_A3S for the bundle in dir (by its
 * metadata.txt: a sandprobe schema, or A3S's runtime_class/selected_suites) */
enum sp_input sp_input_detect(const char *dir);
/* the A3S judge: the same verdict as sp_ev_verify's, gate ids a3s.* */
int sp_a3s_verify(const char *dir, const sp_ev_verify_opts *o, sp_ev_verdict *v, sp_error *err);

#endif
