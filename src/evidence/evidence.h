/* Evidence bundles (schema sandprobe.evidence.v1, docs/evidence-format.md):
 * streaming parsers shared by soak (writer), verify (judge) and report
 * (renderer). Everything here reads untrusted input: every parser bounds its
 * memory (fixed line buffer, chunked hashing) and names file/line/field in
 * its messages.
 *
 * Reading a bundle (as report and soak do):
 *   sp_error err; const char *kind;
 *   sp_ev_meta m; if (sp_meta_load(&m, dir, NULL, &err, &kind) < 0) ... err.msg
 *   sp_ev_rows r; if (sp_rows_open(&r, dir, SP_EV_OPERATIONS, NULL) < 0) ... r.msg
 *   sp_ev_op op; int rc; while ((rc = sp_ops_next(&r, &op)) > 0) { ... }
 *   if (rc < 0) ... r.msg names file, line and column
 *   sp_rows_close(&r); sp_meta_free(&m);
 * and the same with sp_samples_next, sp_latency_next, sp_caps_next and
 * sp_faults_next; sp_inventory_load and sp_ev_summary_load for the JSON files;
 * sp_ev_manifest_build to write a MANIFEST; sp_verify for the whole verdict. */
#ifndef SP_EVIDENCE_H
#define SP_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "evidence/ev_io.h"

#define SP_EVIDENCE_SCHEMA "sandprobe.evidence.v1"
#define SP_INVENTORY_SCHEMA "sandprobe.inventory.v1"
#define SP_SUMMARY_SCHEMA "sandprobe.summary.v1"
#define SP_VERIFY_SCHEMA "sandprobe.verify.v1"
#define SP_BASELINE_SCHEMA "sandprobe.baseline.v1"

/* longest accepted TSV / metadata line (bytes, newline included) */
#define SP_EV_MAX_LINE 65536
/* logs/ files: 64 KiB plus the "[... N bytes elided ...]" line */
#define SP_EV_MAX_LOG (65536 + 128)


/* ---- values ----------------------------------------------------------- */
/* Non-negative decimal "123" or "12.345" (no sign, exponent, inf or nan).
 * 0 on success, -1 when s is not one. */
int sp_ev_parse_dec(const char *s, size_t n, double *out);
/* Non-negative integer of at most 18 digits. */
int sp_ev_parse_int(const char *s, size_t n, long long *out);
/* sp_ev_parse_iso8601(s, n, NULL) == 0 */
bool sp_ev_is_iso8601(const char *s, size_t n);
/* non-empty, valid UTF-8, no control characters */
bool sp_ev_is_text(const char *s, size_t n);
bool sp_ev_is_hex(const char *s, size_t n, size_t want);
/* a fault id of the catalogue: F01 .. F09 */
bool sp_ev_is_fault_id(const char *s, size_t n);

/* The one timestamp parser: 2026-01-01T00:00:00Z (optionally .fraction
 * before Z), a real calendar date (no Feb 30, leap years, a leap second only
 * at 23:59:60 on Jun 30 / Dec 31), year 1970 or later; *epoch (may be NULL)
 * gets seconds since 1970-01-01 UTC. 0, or -1 when s is not one. */
int sp_ev_parse_iso8601(const char *s, size_t n, double *epoch);
/* 28..31, or 0 for a month outside 1..12 */
int sp_ev_days_in_month(long year, int month);

/* ---- a set of strings (duplicate detection in linear time) ------------- */
typedef struct sp_ev_strset_ent {
	const char *s; /* not owned: must outlive the set */
	size_t n, idx;
	uint64_t h;
	bool used;
} sp_ev_strset_ent;
typedef struct sp_ev_strset {
	sp_ev_strset_ent *v;
	size_t cap, n;
} sp_ev_strset;
/* SipHash-1-3 under a key drawn once per process */
uint64_t sp_ev_hash(const void *data, size_t n);
/* Insert s (n bytes) with idx; returns SIZE_MAX when inserted, else the idx
 * of the equal string already there (nothing inserted). */
size_t sp_strset_put(sp_ev_strset *set, const char *s, size_t n, size_t idx);
/* idx of s, or SIZE_MAX */
size_t sp_strset_get(const sp_ev_strset *set, const char *s, size_t n);
void sp_strset_free(sp_ev_strset *set);
#define _cleanup_strset_ __attribute__((cleanup(sp_strset_free)))

/* ---- secret shapes (ev_secrets.c: the writer redacts, the verifier
 * detects, with the same list) ------------------------------------------- */
/* false when the patterns cannot be compiled (then redact everything) */
bool sp_secret_ready(void);
size_t sp_secret_shape_count(void);
/* In the NUL-terminated line: the first secret-shaped value at or after
 * byte off that is not already [REDACTED]. 1 with [*so, *eo) and the
 * shape's name, 0 none, -1 patterns unavailable. A private key block's
 * first line is a secret as a whole. */
int sp_secret_find(const char *line, size_t off, size_t *so, size_t *eo, const char **name);
bool sp_secret_key_begin(const char *line);
bool sp_secret_key_end(const char *line);
/* text with every secret-shaped value replaced by [REDACTED] (whole lines
 * of private key blocks); a new NUL-terminated string. Its output has no
 * finding for sp_secret_find. */
char *sp_secret_redact(const char *text, size_t len, size_t *outlen);
/* The same into a buffer the caller keeps (out, *capp: grown as needed,
 * returned). The writer's elision line "[... N bytes elided ...]" is kept and
 * is a barrier: a private key's END line whose BEGIN is not in the text
 * redacts every line back to the last barrier. */
char *sp_secret_redact_into(const char *text, size_t len, char *out, size_t *capp, size_t *outlen);
/* Findings in buf (edited in place and restored; NULs count as spaces):
 * *hits, and the first one's line and shape. 0, or -1 when unavailable. */
int sp_secret_scan(char *buf, size_t len, unsigned *first_line, const char **first_name, size_t *hits);


/* ---- metadata.txt ----------------------------------------------------- */
typedef struct sp_ev_kv {
	char *key, *value;
	unsigned line;
} sp_ev_kv;

typedef struct sp_ev_thresholds {
	double min_span_s, max_interval_s, max_gap_s, min_success_ratio;
	double rss_slope_mib_per_day, p95_regression_pct;
	long long min_periodic_samples, fd_growth_max, disk_budget_bytes;
} sp_ev_thresholds;

typedef struct sp_ev_meta {
	sp_ev_kv *kv;
	size_t n;
	/* typed view, valid when sp_meta_load returned 0 */
	const char *schema, *run_id, *profile;
	char **scenarios; /* declared scenario ids */
	size_t nscenarios;
	char **faults; /* declared fault ids (empty for "none") */
	size_t nfaults;
	double duration_s, sample_interval_s, warmup_s;
	sp_ev_thresholds th;
} sp_ev_meta;

/* Generic key=value parser (one key once, "key=value" per line, newline at
 * the end). 0, or -1 with err (usage: "line N: ..."). */
int sp_kv_parse_buf(const char *buf, size_t len, sp_ev_kv **out, size_t *n, sp_error *err);
/* The same, also saying why it failed for callers that word their own
 * messages (why may be NULL; key is the offending key, cut to 63 bytes). */
enum sp_kv_fail { SP_KVF_EMPTY, SP_KVF_NUL, SP_KVF_TRUNCATED, SP_KVF_LONG, SP_KVF_SYNTAX, SP_KVF_KEY, SP_KVF_VALUE, SP_KVF_DUP };
typedef struct sp_ev_kv_why {
	enum sp_kv_fail code;
	unsigned line;
	char key[64];
} sp_ev_kv_why;
int sp_kv_parse_why(const char *buf, size_t len, sp_ev_kv **out, size_t *n, sp_error *err, sp_ev_kv_why *why);
const char *sp_kv_get(const sp_ev_kv *kv, size_t n, const char *key);
void sp_kv_free(sp_ev_kv *kv, size_t n);

/* Parse and type-check dir/metadata.txt (hash, may be NULL, receives its
 * SHA-256). Returns 0, or -1 with err naming the line and key (usage; internal
 * only when no digest can start); *kind is
 * "schema" when the schema is missing or unknown, "keys" for any other
 * problem, "present" when the file is missing/empty. */
int sp_meta_load(sp_ev_meta *m, const char *dir, sp_ev_sha256 *hash, sp_error *err, const char **kind);
int sp_meta_parse_buf(sp_ev_meta *m, const char *buf, size_t len, sp_error *err, const char **kind);
void sp_meta_free(sp_ev_meta *m);

/* named profiles of evidence.md; false when name is not one (custom is) */
bool sp_profile_thresholds(const char *name, sp_ev_thresholds *out);
/* out = the stricter of a and b, field by field */
void sp_thresholds_stricter(const sp_ev_thresholds *a, const sp_ev_thresholds *b, sp_ev_thresholds *out);

/* ---- TSV files -------------------------------------------------------- */
enum sp_ev_file {
	SP_EV_OPERATIONS,
	SP_EV_LATENCY,
	SP_EV_SAMPLES,
	SP_EV_CAPABILITIES,
	SP_EV_FAULTS,
	SP_EV_NFILES
};
const char *sp_ev_file_name(enum sp_ev_file f); /* "operations.tsv" */
const char *sp_ev_file_stem(enum sp_ev_file f); /* "operations" (gate ids) */

/* failure classes of a row reader */
enum sp_ev_err { SP_EVE_NONE, SP_EVE_PRESENT, SP_EVE_COLUMNS, SP_EVE_TYPES, SP_EVE_IO };

enum { SP_RES_OK, SP_RES_FAIL, SP_RES_EXPECTED_FAULT };
enum { SP_PHASE_START, SP_PHASE_PERIODIC, SP_PHASE_FINAL };

/* counters of resource-samples.tsv, in column order */
enum sp_ev_counter {
	SP_C_OWNED_PROCESSES,
	SP_C_OWNED_THREADS,
	SP_C_OWNED_RSS_BYTES,
	SP_C_OWNED_CPU_SECONDS, /* decimal: stored in dvalue */
	SP_C_OWNED_FDS,
	SP_C_OWNED_MOUNTS,
	SP_C_OWNED_SOCKETS,
	SP_C_OWNED_CGROUPS,
	SP_C_DISK_BYTES,
	SP_C_GLOBAL_PROCESSES,
	SP_C_GLOBAL_MOUNTS,
	SP_C_RUNNER_RSS_BYTES,
	SP_C_RUNNER_FDS,
	SP_C_NCOUNTERS
};
const char *sp_ev_counter_name(enum sp_ev_counter c);

#define SP_EV_MAX_COLS 128
#define SP_EV_MAX_EXTRA 64

/* what went wrong, for callers that word their own messages (the report) */
enum sp_rows_why {
	SP_RW_NONE,
	SP_RW_OTHER,       /* msg says it */
	SP_RW_OPEN,        /* why_n: errno of opening the file */
	SP_RW_IO,          /* why_n: errno of a read */
	SP_RW_NOHEADER,    /* empty file or empty first line */
	SP_RW_EMPTY_COL,   /* why_n: 1-based header column */
	SP_RW_DUP_COL,     /* why_name: the column */
	SP_RW_MISSING_COL, /* why_name: the required column */
	SP_RW_FIELDS,      /* why_n: fields of the row (ncols in the header) */
	SP_RW_EMPTY_LINE,
};

/* One thread that hashes the chunks readers read, while they parse them. */
typedef struct sp_ev_hasher sp_ev_hasher;
/* NULL when no thread can be started (readers then hash themselves) */
sp_ev_hasher *sp_ev_hasher_new(void);
/* waits for every job, joins the thread */
void sp_ev_hasher_free(sp_ev_hasher *hs);

#define SP_ROWS_NBUF 3
/* Streaming row reader: a few fixed chunk buffers, one row at a time. */
typedef struct sp_ev_rows {
	enum sp_ev_file kind;
	int fd;
	char *bufs[SP_ROWS_NBUF];
	int busy[SP_ROWS_NBUF], final_busy; /* jobs of the hasher on each */
	int cur;
	sp_ev_hasher *hasher;
	char *buf;          /* bufs[cur] */
	char *linebuf;      /* with a hasher: the current line, copied out of the chunk */
	bool view;          /* fields are views into the chunk: not NUL-terminated */
	size_t start, end;  /* unread bytes are buf[start..end) */
	bool eof;
	unsigned long long line;
	char *hdr_copy;
	const char *hdr[SP_EV_MAX_COLS];
	size_t ncols;
	int col[16]; /* index of each required column, in the kind's order */
	int extra_col[SP_EV_MAX_EXTRA];
	const char *extra_name[SP_EV_MAX_EXTRA]; /* "extra.<name>" */
	size_t nextra;
	char *f[SP_EV_MAX_COLS]; /* fields of the current row */
	size_t flen[SP_EV_MAX_COLS];
	sp_ev_sha256 *hash;
	enum sp_ev_err err;
	char msg[512];
	enum sp_rows_why why; /* with err: why_n / why_name as the enum says */
	size_t why_n;
	char why_name[64]; /* cut to 63 bytes */
} sp_ev_rows;

/* Open dir/<file>, read and check its header. hash (may be NULL) receives
 * every byte read. 0, or -1 with r->err and r->msg set (the reader is
 * closed again). */
int sp_rows_open(sp_ev_rows *r, const char *dir, enum sp_ev_file kind, sp_ev_sha256 *hash);
/* Same over an already open fd (taken over). */
int sp_rows_open_fd(sp_ev_rows *r, int fd, enum sp_ev_file kind, sp_ev_sha256 *hash);
/* sp_rows_open with the hashing done by hs (may be NULL); hash is final
 * only after sp_rows_close. */
int sp_rows_open_hashed(sp_ev_rows *r, const char *dir, enum sp_ev_file kind, sp_ev_sha256 *hash, sp_ev_hasher *hs);
/* Next raw row: 1, 0 at the end, -1 on error (r->err, r->msg). */
int sp_rows_next_raw(sp_ev_rows *r);
/* The next line without splitting it: a read-only view (no newline, not
 * NUL-terminated) valid until the next call; 1, 0 at the end, -1 error. */
int sp_rows_peek_line(sp_ev_rows *r, const char **line, size_t *len);
/* From now on the fields of next_raw / sp_ops_next are read-only views into
 * the chunk, NOT NUL-terminated (use the lengths; no copy of each line). */
void sp_rows_set_view(sp_ev_rows *r);
/* When the next line, already read, is f[0] TAB ... f[nf-1] TAB and one
 * character of allowed: consume it, *last = that character, 1; else 0 and
 * nothing consumed (a fast path for a line known in advance). */
int sp_rows_try_line(sp_ev_rows *r, const char *const *f, const size_t *n, size_t nf, const char *allowed, char *last);
/* Split a line (from sp_rows_peek_line) into r's fields as next_raw does. */
int sp_rows_split_line(sp_ev_rows *r, const char *line, size_t len);
void sp_rows_close(sp_ev_rows *r);

typedef struct sp_ev_op {
	double ts, latency_ms;
	const char *scenario, *api, *operation, *error_code;
	int result; /* SP_RES_* */
	long long generation;
} sp_ev_op;

typedef struct sp_ev_lat {
	double ts, latency_ms;
	const char *scenario, *operation;
	int warmup;
} sp_ev_lat;

typedef struct sp_ev_sample {
	double ts;
	const char *wall;
	double wall_epoch; /* wall as seconds since the epoch */
	int phase;	   /* SP_PHASE_* */
	long long c[SP_C_NCOUNTERS]; /* integers (cpu seconds: 0, see cpu_seconds) */
	double cpu_seconds;
	long long extra[SP_EV_MAX_EXTRA]; /* r->extra_name[i] */
} sp_ev_sample;

typedef struct sp_ev_cap {
	const char *scenario;
	long long attempted, succeeded, expected_faults, unexpected_failures;
	bool pass;
} sp_ev_cap;

typedef struct sp_ev_fault {
	const char *fault_id, *target, *expected;
	double started, ended, recovery_ms, rto_ms;
	bool pass;
} sp_ev_fault;

/* typed iterators: 1 row, 0 end, -1 error (r->err SP_EVE_TYPES names the
 * line and column). Strings point into the reader's buffer: valid until the
 * next call. */
int sp_ops_next(sp_ev_rows *r, sp_ev_op *op);
int sp_latency_next(sp_ev_rows *r, sp_ev_lat *l);
int sp_samples_next(sp_ev_rows *r, sp_ev_sample *s);
int sp_caps_next(sp_ev_rows *r, sp_ev_cap *c);
int sp_faults_next(sp_ev_rows *r, sp_ev_fault *f);

/* ---- JSON files ------------------------------------------------------- */
typedef struct sp_ev_res_id {
	char *type, *id;
} sp_ev_res_id;
typedef struct sp_ev_inventory {
	sp_ev_res_id *v;
	size_t n;
} sp_ev_inventory;
/* parse an inventory document; 0 or -1 with err (usage: a bad file) */
int sp_inventory_parse(sp_ev_inventory *inv, const char *buf, size_t len, sp_error *err);
int sp_inventory_load(sp_ev_inventory *inv, const char *path, sp_ev_sha256 *hash, sp_error *err);
/* set equality of (type,id); on difference err (usage) names the first one */
bool sp_inventory_equal(const sp_ev_inventory *a, const sp_ev_inventory *b, sp_error *err);
void sp_inventory_free(sp_ev_inventory *inv);

typedef struct sp_ev_summary {
	char *run_id, *profile, *stop_condition, *cleanup, *evidence_path;
	double requested_duration_s, measured_duration_s, span_s, max_gap_s, warmup_end_s;
	long long sample_count, periodic_samples;
	long long ops_total, ops_ok, ops_fail, ops_expected_fault, unexpected_failures;
} sp_ev_summary;
/* 0, or -1 with err: usage (a bad file), internal when no digest can start */
int sp_ev_summary_parse(sp_ev_summary *s, const char *buf, size_t len, sp_error *err);
int sp_ev_summary_load(sp_ev_summary *s, const char *path, sp_ev_sha256 *hash, sp_error *err);
/* The same for drawing a bundle (sandprobe report): a field the document's
 * "absent" array names (a bundle from sandprobe import) may be missing, and
 * is then NaN, -1 (integers, operations.* when operations is absent) or
 * NULL; every field that is there is held to the same types and values. */
int sp_ev_summary_parse_drawn(sp_ev_summary *s, const char *buf, size_t len, sp_error *err);
int sp_ev_summary_load_drawn(sp_ev_summary *s, const char *path, sp_error *err);
void sp_ev_summary_free(sp_ev_summary *s);

/* ---- MANIFEST, signature (hashing: ev_io.h) ----------------------------- */

typedef struct sp_ev_manifest_entry {
	char *path;
	unsigned char digest[32];
} sp_ev_manifest_entry;
typedef struct sp_ev_manifest {
	sp_ev_manifest_entry *v;
	size_t n;
} sp_ev_manifest;
/* "<64 hex>  <relative path>\n" lines, sorted by path (byte order), no
 * duplicates, no absolute paths and no "." or ".." components. */
int sp_ev_manifest_parse(sp_ev_manifest *m, const char *buf, size_t len, sp_error *err);
void sp_ev_manifest_free(sp_ev_manifest *m);
/* relative paths of every file of the bundle except MANIFEST, MANIFEST.sig
 * and verify.out, sorted; non-regular entries (symlinks, fifos) fail. 0, or
 * -1 with err: usage for what the bundle holds, internal (with errno) when a
 * directory or entry cannot be read. */
int sp_bundle_list(const char *dir, char ***paths, size_t *n, sp_error *err);
/* MANIFEST text for dir (what the soak runner writes), or NULL with err as
 * sp_bundle_list's (internal also when a file cannot be hashed) */
char *sp_ev_manifest_build(const char *dir, sp_error *err);

/* Ed25519. Loading a PEM public key: 0 or -1 with err (usage error). */
int sp_pubkey_load(void **pkey, const char *path, sp_error *err);
void sp_pubkey_free(void *pkey);
/* 1 valid, 0 invalid (err, a usage error, says why), -1 internal error */
int sp_sig_verify(void *pkey, const void *data, size_t len, const char *sig_b64, size_t siglen, sp_error *err);

/* ---- the writing side (ev_write.c: soak and keygen) -------------------- */
/* Ed25519 signature of data as MANIFEST.sig holds it: one line of base64
 * (88 characters and a newline, NUL-terminated); 0 or -1. */
int sp_ev_sign(void *pkey, const void *data, size_t len, char sig_b64[90], size_t *siglen);
/* Ed25519 private key (PEM PKCS#8) for --sign-key: 0 or -1 with err (usage). */
int sp_privkey_load(void **pkey, const char *path, sp_error *err);
/* a new Ed25519 key pair (free with sp_pubkey_free), NULL on failure */
void *sp_ev_keygen(void);
/* PEM file (private: PKCS#8) created with exactly mode, never over an
 * existing file; 0, or -1 with o (errnum; why its strerror; nothing left
 * behind). */
int sp_ev_pem_write(const char *path, unsigned mode, void *pkey, bool private_key, sp_outcome *o);

/* ---- statistics -------------------------------------------------------- */
typedef struct sp_ev_dvec {
	double *v;
	size_t n, cap;
} sp_ev_dvec;
void sp_dvec_push(sp_ev_dvec *d, double x);
void sp_dvec_free(sp_ev_dvec *d);
/* nearest-rank quantile: the value of rank ceil(p/100 * n) (1-based) of the
 * sorted data, found by selection (reorders v). n must be > 0. */
double sp_quantile(double *v, size_t n, double p);
/* p50, p95 and p99 as sp_quantile gives them, in one pass of selections
 * over shrinking ranges (reorders v). n must be > 0. */
void sp_quantiles3(double *v, size_t n, double *p50, double *p95, double *p99);

/* online least squares (Welford co-moments) */
typedef struct sp_ev_linreg {
	unsigned long long n;
	double mx, my, sxx, sxy, xmin, xmax;
} sp_ev_linreg;
void sp_linreg_add(sp_ev_linreg *l, double x, double y);
/* slope dy/dx; 0 with fewer than 2 distinct x */
double sp_linreg_slope(const sp_ev_linreg *l);

/* ---- baseline ---------------------------------------------------------- */
typedef struct sp_ev_baseline_entry {
	char *scenario;
	unsigned long long count;
	double p50, p95, p99;
} sp_ev_baseline_entry;
typedef struct sp_ev_baseline {
	char *run_id;
	sp_ev_baseline_entry *v;
	size_t n;
} sp_ev_baseline;
/* 0, or -1 with err ("<path>: ...", usage) */
int sp_baseline_load(sp_ev_baseline *b, const char *path, sp_error *err);
void sp_baseline_free(sp_ev_baseline *b);

/* ---- the verdict ------------------------------------------------------- */
enum { SP_GATE_PASS, SP_GATE_FAIL };
typedef struct sp_ev_gate {
	char id[64];
	int status;
	char measured[64], threshold[64];
	char message[320];
} sp_ev_gate;

typedef struct sp_ev_gate_info {
	const char *id;
	const char *techniques;
	const char *what;
} sp_ev_gate_info;
extern const sp_ev_gate_info sp_gate_catalog[];
extern const size_t sp_gate_catalog_count;
/* the catalogue entry of a reported gate id, or NULL */
const sp_ev_gate_info *sp_gate_info_find(const char *id);

/* The gates the verifier can report, as one X-macro list in report order
 * (the order of sp_ev_verify's report, and of the catalogue that atlas and
 * the docs print). A line of each kind:
 *   G(NAME, "id", techniques, what, judge)  a gate and its judge, which
 *       reports it here (ev_judge.h declares it, ev_gates.c calls it);
 *   J(NAME, suffix, judge)  another report line of a gate declared above: a
 *       family member ("faults" for columns.faults) or a second judge
 *       (summary.consistent is reported where its input says);
 *   C(NAME, "id", techniques, what)  a gate with no report line of its own
 *       here: a family whose J lines follow, an A3S gate its verifier
 *       reports, an id the catalogue keeps;
 *   A(NAME, "id", techniques, what, judge)  an A3S cluster gate: only
 *       src/a3s/ expands judge (its cluster judges, in this order); evidence/
 *       never names it.
 * G, C and A give enum sp_gate_id SP_G_NAME and its catalogue entry: the id
 * printed (an exact id, or a family "columns.*" whose members are
 * "columns.<suffix>"), the techniques (MITRE ATLAS / ATT&CK ids,
 * comma-separated) a failing gate detects over a run and what it proves.
 * Every place that names a gate (the verifier, the A3S judge, the self-test
 * cases, gate/) names it by its enum (sp_ev_gate_ref, SP_GREF/SP_GFAM), so a
 * renamed or misspelled gate is a compile error. Techniques are claimed only
 * where a failing gate shows the attack's effect over a run: resources that
 * grow without bound (the sandbox's limits failed to hold, T1499 /
 * AML.T0029) and credentials written to logs. The a3s.* entries are the
 * gates of A3S Box bundles (verify --format a3s): A3S's rules, and
 * sandprobe's where the data allows.
 * Adding a gate: one G line at its place in the report and its judge (see
 * ev_judge.h); an A3S cluster gate: one A line and its judge in
 * src/a3s/a3s_verify.c. */
#define SP_GATE_DOS "T1499,AML.T0029"
#define SP_GATE_LIST(G, J, C, A) \
	G(FILES_PRESENT, "files.present", "", "every required file of the bundle is present", sp_judge_files_present) \
	C(METADATA_TXT, "metadata.txt", "", "metadata.txt parses") \
	G(METADATA_SCHEMA, "metadata.schema", "", "the bundle's schema version is known", sp_judge_metadata_schema) \
	G(METADATA_KEYS, "metadata.keys", "", "metadata.txt has every required key", sp_judge_metadata_keys) \
	G(PROFILE_CLAIM, "profile.claim", "", "the run meets the duration and interval its claimed profile demands", sp_judge_profile_claim) \
	G(METADATA_ABSENT, "metadata.absent", "", "no field is marked absent (an imported bundle marks what its source does not record)", sp_judge_metadata_absent) \
	C(COLUMNS_ANY, "columns.*", "", "a TSV file has every required column") \
	J(COLUMNS_ANY, "faults", sp_judge_columns) \
	C(TYPES_ANY, "types.*", "", "every value of a file has its declared type") \
	J(TYPES_ANY, "faults", sp_judge_types) \
	C(FAULTS_TSV, "faults.tsv", "", "faults.tsv parses") \
	G(FAULTS_RECOVERED, "faults.recovered", "", "every fault recovered within its RTO", sp_judge_faults_recovered) \
	G(FAULTS_DECLARED, "faults.declared", "", "every injected fault was declared by the workload", sp_judge_faults_declared) \
	J(COLUMNS_ANY, "capabilities", sp_judge_columns) \
	J(TYPES_ANY, "capabilities", sp_judge_types) \
	C(OPERATIONS_ANY, "operations.*", "", "operations.tsv: rows, outcomes and expected faults consistent") \
	J(COLUMNS_ANY, "operations", sp_judge_columns) \
	J(TYPES_ANY, "operations", sp_judge_types) \
	G(OPS_SUCCESS, "ops.success", "", "the operation success rate meets the threshold", sp_judge_ops_success) \
	G(OPS_EXPECTED_FAULTS, "ops.expected_faults", "", "failures during injected faults are the expected ones", sp_judge_ops_expected_faults) \
	G(OPS_COMPOSITION, "ops.composition", "", "an R24 or E72 run combines the five classes 40/20/15/15/10 (seed 002), declared and achieved", sp_judge_ops_composition) \
	G(CAPABILITY_COVERAGE, "capability.coverage", "", "every declared capability was probed", sp_judge_capability_coverage) \
	G(CAPABILITY_AGREE, "capability.agree", "", "capability probes agree with the claimed sandbox", sp_judge_capability_agree) \
	J(COLUMNS_ANY, "samples", sp_judge_columns) \
	J(TYPES_ANY, "samples", sp_judge_types) \
	C(LATENCY_TSV, "latency.tsv", "", "latency.tsv parses") \
	J(COLUMNS_ANY, "latency", sp_judge_columns) \
	J(TYPES_ANY, "latency", sp_judge_types) \
	G(LATENCY_AGREE, "latency.agree", "", "latency.tsv holds exactly the ok operations of operations.tsv (ts, scenario, operation, latency)", sp_judge_latency_agree) \
	G(LATENCY_WARMUP, "latency.warmup", "", "latency rows after the warm-up exist", sp_judge_latency_warmup) \
	G(LATENCY_P95, "latency.p95", "", "p95 regression judged against a baseline (passes, saying so, without --baseline)", sp_judge_latency_p95) \
	G(LATENCY_P95_ANY, "latency.p95.*", "", "a scenario's p95 latency within the baseline's margin", sp_judge_latency_p95_scenario) \
	G(SAMPLES_MONOTONIC, "samples.monotonic", "", "sample timestamps increase", sp_judge_samples_monotonic) \
	G(SAMPLES_PHASES, "samples.phases", "", "one start sample, periodic samples, one final sample", sp_judge_samples_phases) \
	G(SAMPLES_SPAN, "samples.span", "", "samples span the run", sp_judge_samples_span) \
	G(SAMPLES_COUNT, "samples.count", "", "enough periodic samples for the duration", sp_judge_samples_count) \
	G(SAMPLES_GAP, "samples.gap", "", "no gap between samples beyond the threshold", sp_judge_samples_gap) \
	G(SAMPLES_INTERVAL, "samples.interval", "", "the declared sample interval within the maximum, and the measured median interval too", sp_judge_samples_interval) \
	G(SAMPLES_CADENCE, "samples.cadence", "", "periodic samples follow the sampler's schedule (none before its slot): no burst pads the count", sp_judge_samples_cadence) \
	G(LEAK_RSS_SLOPE, "leak.rss_slope", SP_GATE_DOS, "owned resident memory does not grow beyond the slope threshold", sp_judge_leak_rss_slope) \
	G(LEAK_FD_GROWTH, "leak.fd_growth", SP_GATE_DOS, "owned open descriptors do not grow over the run", sp_judge_leak_fd_growth) \
	G(LEAK_FD_FINAL, "leak.fd_final", SP_GATE_DOS, "open descriptors at the end are back to the start", sp_judge_leak_fd_final) \
	G(DISK_PEAK, "disk.peak", SP_GATE_DOS, "disk use of the run's state stays within the budget", sp_judge_disk_peak) \
	G(DISK_FINAL, "disk.final", SP_GATE_DOS, "disk use at the end is back within the budget", sp_judge_disk_final) \
	G(CLEANUP_OWNED_PROCESSES, "cleanup.owned_processes", "", "no process the run owned outlives it", sp_judge_cleanup_owned) \
	G(CLEANUP_OWNED_MOUNTS, "cleanup.owned_mounts", "", "no mount the run owned outlives it", sp_judge_cleanup_owned) \
	G(CLEANUP_OWNED_SOCKETS, "cleanup.owned_sockets", "", "no socket the run owned outlives it", sp_judge_cleanup_owned) \
	G(CLEANUP_OWNED_CGROUPS, "cleanup.owned_cgroups", "", "no cgroup the run owned outlives it", sp_judge_cleanup_owned) \
	G(CLEANUP_ANY, "cleanup.*", "", "any other owned resource counter of the samples is back to its start value", sp_judge_cleanup_extra) \
	G(SAMPLES_WALL, "samples.wall", "", "sample wall clocks are real dates in step with ts, never back, not before started_at, not in the future", sp_judge_samples_wall) \
	G(OPERATIONS_ORDER, "operations.order", "", "operation rows in time order, all between the start and the final sample", sp_judge_operations_order) \
	G(FAULTS_WINDOW, "faults.window", "", "every fault window inside the run and as long as its recorded recovery", sp_judge_faults_window) \
	G(WARMUP_BOUNDED, "warmup.bounded", "", "the warm-up is no longer than the profile allows (15 minutes, scaled) and ends in the first half of the run", sp_judge_warmup_bounded) \
	J(TYPES_ANY, "inventory", sp_judge_types_inventory) \
	G(CLEANUP_INVENTORY, "cleanup.inventory", "", "nothing owned is left in the post-run inventory", sp_judge_cleanup_inventory) \
	C(SUMMARY_JSON, "summary.json", "", "summary.json parses") \
	J(TYPES_ANY, "summary", sp_judge_types_summary) \
	G(SUMMARY_CONSISTENT, "summary.consistent", "", "summary.json agrees with the rows it summarizes", sp_judge_summary_unread) \
	G(CLEANUP_STATUS, "cleanup.status", "", "the runner's own cleanup reported success", sp_judge_cleanup_status) \
	G(RUN_COMPLETED, "run.completed", "", "the run ended on its duration, not on an error or a signal", sp_judge_run_completed) \
	J(SUMMARY_CONSISTENT, NULL, sp_judge_summary_consistent) \
	G(LOGS_BOUNDED, "logs.bounded", "", "logs within their size bound", sp_judge_logs_bounded) \
	G(LOGS_REDACTED, "logs.redacted", "T1552,AML.T0055", "no credential-shaped text in the logs", sp_judge_logs_redacted) \
	G(INTEGRITY_MANIFEST, "integrity.manifest", "", "MANIFEST lists every file with its SHA-256, and nothing else", sp_judge_integrity_manifest) \
	G(INTEGRITY_SIGNATURE, "integrity.signature", "", "the Ed25519 signature over MANIFEST verifies", sp_judge_integrity_signature) \
	C(A3S_KIND, "a3s.kind", "", "the bundle is an A3S host or cluster bundle (detected from metadata.txt, or --kind)") \
	C(A3S_METADATA, "a3s.metadata", "", "metadata.txt has every key A3S reads, typed, none given twice with different values") \
	C(A3S_DRY_RUN, "a3s.dry_run", "", "a dry run is accepted only with --allow-dry-run and no gate; a cluster run has dry_run=0") \
	C(A3S_RESULT, "a3s.result", "", "summary.txt says result=pass") \
	C(A3S_ITERATIONS, "a3s.iterations", "", "a host soak ran iterations and none failed") \
	C(A3S_SAMPLES_COLUMNS, "a3s.samples.columns", "", "resource-samples.tsv has timestamp, phase and the counters of its kind") \
	C(A3S_SAMPLES_TYPES, "a3s.samples.types", "", "every timestamp a real ISO 8601 UTC time, every counter a non-negative integer") \
	C(A3S_SAMPLES_MONOTONIC, "a3s.samples.monotonic", "", "sample timestamps never go back") \
	C(A3S_SAMPLES_PHASES, "a3s.samples.phases", "", "one start sample first (host) and one final sample last") \
	C(A3S_WALL, "a3s.wall", "", "samples start at or after metadata started_at and none is in the future") \
	C(A3S_DURATION, "a3s.duration", "", "summary duration_secs is not shorter than the sample span (60 s allowed)") \
	C(A3S_MIN_DURATION, "a3s.min_duration", "", "the duration and the samples' span meet the minimum duration (flag or metadata)") \
	C(A3S_MIN_SAMPLES, "a3s.min_samples", "", "enough resource samples (flag or metadata)") \
	C(A3S_MIN_SPAN, "a3s.min_span", "", "the samples span the minimum (flag or metadata)") \
	C(A3S_MAX_GAP, "a3s.max_gap", "", "no gap between samples beyond the maximum (flag or metadata)") \
	C(A3S_PROFILE, "a3s.profile", "", "the samples meet the claimed profile (G2, R24, E72: span, count, gap, median interval)") \
	C(A3S_RSS_SLOPE_ANY, "a3s.rss_slope.*", SP_GATE_DOS, "an RSS column's slope after a 15-minute warm-up at most 50 MiB/day") \
	C(A3S_SNAPSHOTS, "a3s.snapshots", "", "start, final and per-iteration CLI snapshots present") \
	C(A3S_LOGS, "a3s.logs", "", "a log for every declared suite in every iteration") \
	C(A3S_CLEANUP_ANY, "a3s.cleanup.*", "", "a host counter (shims, mounts, box_dirs, socket_dirs) not above its start value at the end") \
	A(A3S_ARTIFACTS, "a3s.artifacts", "", "the cluster's kubectl artifacts present, non-empty, without a collection error", a3s_judge_artifacts) \
	A(A3S_RUNTIMECLASS, "a3s.runtimeclass", "", "the RuntimeClass object: kind, name, handler and node selector a3s-box.io/runtime=true", a3s_judge_runtimeclass) \
	A(A3S_NODES, "a3s.nodes", "", "selected nodes counted, listed once each, labelled runtime=true and test-tier=production-soak", a3s_judge_nodes) \
	A(A3S_PODS, "a3s.pods", "", "no pending, failed or unknown pod, no restart, no active or failed job in the samples", a3s_judge_pods) \
	A(A3S_POD_EVIDENCE, "a3s.pod_evidence", "", "the final pod tables agree and show every pod on the RuntimeClass, a selected node, healthy", a3s_judge_pod_evidence) \
	A(A3S_EVENTS, "a3s.events", "", "only Normal Kubernetes events", a3s_judge_events) \
	A(A3S_SMOKE_EXEC, "a3s.smoke_exec", "", "a successful exec on every selected node, of pods in the final evidence", a3s_judge_smoke_exec) \
	A(A3S_JOBS, "a3s.jobs", "", "every churn Job completion proven: pods Succeeded on selected nodes, logged, counted", a3s_judge_jobs) \
	A(A3S_COMPLEX, "a3s.complex", "", "the redis, postgres, nginx and python workloads logged their markers and answered an exec", a3s_judge_complex) \
	A(A3S_POST_CLEANUP, "a3s.post_cleanup", "", "nothing left after cleanup, counted after the final sample", a3s_judge_post_cleanup)
/* a kind of line an expansion leaves out */
#define SP_GATE_SKIP(...)

enum sp_gate_id {
#define SP_GATE_ENUM(name, ...) SP_G_##name,
	SP_GATE_LIST(SP_GATE_ENUM, SP_GATE_SKIP, SP_GATE_ENUM, SP_GATE_ENUM) /* SP_G_<NAME>, in list order */
#undef SP_GATE_ENUM
	SP_G_COUNT
};

/* a reported gate: an id of the catalogue, and for a family the suffix of
 * its member ("operations" for types.operations); NULL suffix otherwise */
typedef struct sp_ev_gate_ref {
	enum sp_gate_id id;
	const char *suffix;
} sp_ev_gate_ref;
/* an exact gate, a family member (suffix a string), as values and as
 * initialisers of static tables */
#define SP_GREF(name) ((sp_ev_gate_ref){SP_G_##name, NULL})
#define SP_GFAM(name, sfx) ((sp_ev_gate_ref){SP_G_##name##_ANY, (sfx)})
#define SP_GREF_INIT(name) {SP_G_##name, NULL}
#define SP_GFAM_INIT(name, sfx) {SP_G_##name##_ANY, (sfx)}
/* the printed id of r into out: "samples.span", "types.operations" */
const char *sp_gate_ref_id(sp_ev_gate_ref r, char out[64]);

typedef struct sp_ev_verdict {
	char *bundle, *profile;
	char *input; /* "sandprobe.evidence.v1", "a3s.host" or "a3s.cluster" */
	sp_ev_gate *g;
	size_t n, cap;
	size_t npass, nfail;
	/* per-scenario post-warm-up latency quantiles (for --emit-baseline) */
	sp_ev_baseline lat;
} sp_ev_verdict;

/* which kind of bundle dir holds */
enum sp_input { SP_INPUT_AUTO, SP_INPUT_SANDPROBE, SP_INPUT_A3S };
enum sp_a3s_kind { SP_A3S_AUTO, SP_A3S_HOST, SP_A3S_CLUSTER };

/* A3S verifier options (verify-soak-evidence.sh's flags); zero = defaults */
typedef struct sp_ev_a3s_opts {
	enum sp_a3s_kind kind;
	bool allow_dry_run;
	long long min_duration_s, min_samples, min_span_s, max_gap_s; /* 0: not asked */
} sp_ev_a3s_opts;

typedef struct sp_ev_verify_opts {
	const char *profile;       /* --profile, NULL for the bundle's own */
	const sp_ev_baseline *baseline; /* --baseline, may be NULL */
	void *pubkey;              /* --pubkey (EVP_PKEY), may be NULL */
	/* added later; a zero-initialised struct keeps the old behaviour for
	 * sandprobe bundles and auto-detects A3S ones */
	enum sp_input input;
	const sp_ev_a3s_opts *a3s;    /* may be NULL */
} sp_ev_verify_opts;

/* Judge the sandprobe.evidence.v1 bundle in the directory dir by every
 * gate of its contract (o->input is not read: telling the bundle's kind and
 * calling the right judge is sp_verify's, src/verify/). Gate failures are
 * results, not errors: returns 0 (then v->nfail says the verdict) or -1
 * with err for usage/internal errors. */
int sp_ev_verify(const char *dir, const sp_ev_verify_opts *o, sp_ev_verdict *v, sp_error *err);
/* bytes quoted from a bundle made printable UTF-8, in place */
void sp_ev_sanitize(char *p);
/* add a gate to a verdict (for judges outside ev_gates.c) */
sp_ev_gate *sp_verdict_add(sp_ev_verdict *v, bool pass, sp_ev_gate_ref id, const char *measured, const char *threshold,
			const char *fmt, ...) SP_PRINTF(6, 7);
/* a gate that could not be evaluated: fails, saying why */
void sp_verdict_na(sp_ev_verdict *v, sp_ev_gate_ref id, const char *why);
void sp_verdict_free(sp_ev_verdict *v);
const sp_ev_gate *sp_verdict_find(const sp_ev_verdict *v, sp_ev_gate_ref id);
void sp_verdict_print_text(const sp_ev_verdict *v, FILE *f);
void sp_verdict_print_json(const sp_ev_verdict *v, FILE *f);
/* write v->lat as a baseline JSON file (atomic rename); 0 or -1 with err */
int sp_baseline_write(const sp_ev_verdict *v, const char *path, sp_error *err);

/* the self-test of verify: TAP lines on f; 0 when every case behaves */
int sp_verify_selftest(FILE *f, bool verbose);

#endif
