/* sandprobe verify --self-test, inside: the synthetic bundle its cases edit
 * (ev_selftest_bundle.c writes it, independently of the gates) and the
 * cases and their runner (ev_selftest.c). Only these two files include it. */
#ifndef SP_EV_SELFTEST_H
#define SP_EV_SELFTEST_H

#include <jansson.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "core/error.h" /* SP_PRINTF */

/* ---- a small table of strings ------------------------------------------ */
typedef struct tab {
	size_t ncol, nrow; /* nrow counts the header */
	char **c;
} tab;

/* append a row given as one tab-separated formatted string */
void st_tab_row(tab *t, const char *fmt, ...) SP_PRINTF(2, 3);
const char *st_tab_get(const tab *t, size_t row, const char *col);
void st_tab_set(tab *t, size_t row, const char *col, const char *fmt, ...) SP_PRINTF(4, 5);
void st_tab_del_col(tab *t, const char *col);
void st_tab_dup_col(tab *t, const char *col);
void st_tab_del_row(tab *t, size_t row);
void st_tab_dup_row(tab *t, size_t row);

/* ---- the synthetic bundle ---------------------------------------------- */
enum fop { FO_NONE,
	   FO_DELETE,
	   FO_EMPTY,
	   FO_TRUNCATE,
	   FO_APPEND,
	   FO_ADD,
	   FO_SYMLINK,
	   FO_MKDIR_RM,
	   FO_FIFO };

typedef struct bundle {
	tab meta; /* two columns: key, value (no header semantics: row 0 is a key) */
	tab ops, lat, samples, caps, faults;
	char *inv_start, *inv_final;
	char *log;
	size_t log_size; /* when > 0, the log file is this many bytes */
	bool no_caps_recompute;
	void (*summary_edit)(json_t *s);
	/* file operation, before (pre) or after (post) the MANIFEST is written */
	enum fop pre, post;
	const char *pre_path, *post_path;
	bool sign, wrong_key, tamper_sig, demand_key, use_baseline, baseline_one;
	const char *profile_opt;
	void (*manifest_edit)(char **text);
	bool lat_manual;    /* latency.tsv as the case edited it, not derived from the operations */
	bool no_sort;       /* operations.tsv in table order, not sorted by ts */
	bool log_elision;   /* the big log carries the writer's elision line */
	bool via_symlink;   /* verify through a symlink to the bundle */
	const char *dir_as; /* a directory of this name (with a file in it) in the bundle, after sealing */
} bundle;

#define NOPS 200
#define LAT_DEFAULT 50.0

/* the run started yesterday at midnight UTC: walls are real, past dates */
extern time_t st_base_epoch;
/* the signing key and another one */
extern EVP_PKEY *st_key_a, *st_key_b;

void st_meta_set(bundle *b, const char *key, const char *fmt, ...) SP_PRINTF(3, 4);
void st_meta_del(bundle *b, const char *key);
/* an ISO 8601 UTC time: of epoch, of st_base_epoch + ts */
void st_wall_at(char *buf, size_t sz, double epoch);
void st_wall(char *buf, size_t sz, double ts);
/* the correct bundle every case starts from */
void st_bundle_default(bundle *b);
void st_bundle_free(bundle *b);
double st_dval(const char *s);
/* capability rows and summary, from the generator's own tables */
void st_recompute_caps(bundle *b);
void st_sort_ops(bundle *b);
void st_lat_rebuild(bundle *b);
/* the bundle into dir (new): 0, or -1 with errno */
int st_write_bundle(bundle *b, const char *dir);

#endif
