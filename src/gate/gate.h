/* `sandprobe gate`: may this release candidate be promoted? Every bundle
 * is judged by the verifier (sp_verify, with the plan's key when it names
 * one), matched to its cells (scenario x lane x profile) by its own
 * metadata, and every cell is decided: pass, fail, missing, expired,
 * wrong-candidate, wrong-lane, superseded, or blocked by the promotion
 * order R0 -> G2 -> R24 -> E72. See docs/plan-format.md for the rules. */
#ifndef SP_GATE_GATE_H
#define SP_GATE_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "core/error.h"
#include "evidence/evidence.h"
#include "gate/plan.h"

#define SP_GATE_SCHEMA "sandprobe.gate.v1"
#define SP_GATE_MAX_BUNDLES 100000
/* a bundle may end this many seconds after the decision time (clock skew
 * between the soak host and the gate host) */
#define SP_GATE_CLOCK_SKEW_S 60

typedef enum sp_gate_cell_state {
	SP_CELL_PASS,
	SP_CELL_FAIL,
	SP_CELL_MISSING,
	SP_CELL_EXPIRED,
	SP_CELL_WRONG,      /* wrong candidate: digest mismatch or a dirty build */
	SP_CELL_SUPERSEDED, /* evidence of a test definition the plan replaced */
	SP_CELL_BLOCKED,    /* passes, but an earlier profile of the promotion order does not */
	SP_CELL_WRONG_LANE, /* only runs on another host class or isolation than the lane's */
	SP_CELL_NSTATES
} sp_gate_cell_state;
const char *sp_cell_state_name(sp_gate_cell_state s);   /* "wrong-candidate" ... */
const char *sp_cell_state_label(sp_gate_cell_state s);  /* "WRONG-CANDIDATE" ... */

/* what one bundle is to one cell it claims */
typedef enum sp_gate_claim_disp {
	SP_CLAIM_USED,      /* the cell's deciding evidence */
	SP_CLAIM_OLDER,     /* a passing run a newer passing run replaces */
	SP_CLAIM_RETRIED,   /* a failed run superseded by a later pass the plan's retries allow */
	SP_CLAIM_FAILED,    /* a failed run of the candidate that counts */
	SP_CLAIM_UNTRUSTED, /* integrity failed (edited, unsigned ...): counts as a failed run */
	SP_CLAIM_FUTURE,    /* ended after the decision time: counts as a failed run */
	SP_CLAIM_EXPIRED,
	SP_CLAIM_WRONG,
	SP_CLAIM_SUPERSEDED,
	SP_CLAIM_WRONG_LANE, /* ran on another architecture or runtime than the lane's */
	SP_CLAIM_NDISP
} sp_gate_claim_disp;
const char *sp_claim_disp_name(sp_gate_claim_disp d);

typedef struct sp_gate_bundle {
	char *path;             /* as given (resolved) */
	char key[80];           /* "b0001-<run id>": stable for the same set of bundles */
	bool readable;          /* metadata.txt parsed */
	char *run_id, *profile, *lane, *started_text, *workload;
	char **scen;
	size_t nscen;
	sp_ev_kv *kv;              /* all of metadata.txt */
	size_t nkv;
	bool dirty;
	time_t started, ended;
	char manifest_sha256[65]; /* "" when there is no readable MANIFEST */
	bool verified;          /* sp_verify ran */
	bool pass;              /* every gate passed */
	bool trusted;           /* integrity.manifest (and the signature, when required) pass */
	size_t ngates, nfail;
	char failed[200];       /* failing gate ids, comma-separated, cut */
	char why[600];          /* why unreadable / untrusted */
	ssize_t dup_of;         /* the same bundle presented twice: index of the first, else -1 */
	size_t nclaims;
	char note[200];         /* why it fills no cell */
	sp_ev_verdict *verdict;    /* kept when sp_gate_opts.keep_verdicts */
} sp_gate_bundle;

typedef struct sp_gate_claim {
	size_t bundle;
	sp_gate_claim_disp disp;
	char reason[300];
} sp_gate_claim;

typedef struct sp_gate_cell {
	size_t scen, lane;
	int prof;
	bool required, implied; /* implied: required only by the promotion order */
	sp_gate_cell_state state;
	char reason[600];
	ssize_t decisive;       /* bundle index, -1 */
	sp_gate_claim *claims;
	size_t nclaims, capclaims;
} sp_gate_cell;

typedef struct sp_gate_problem {
	ssize_t bundle;         /* -1: not one bundle */
	char kind[24];          /* unreadable, untrusted, duplicate-run, future */
	char message[700];
} sp_gate_problem;

typedef struct sp_gate_opts {
	time_t at;              /* decision time */
	time_t now;             /* when the decision is made (0: not known, no backdating check) */
	bool keep_verdicts;     /* keep each bundle's verdict (reports) */
	char *const *skipped;   /* entries of the evidence roots that are not bundles ("PATH: reason") */
	size_t nskipped;
} sp_gate_opts;

/* one cell whose re-made state differs from the archived one */
typedef struct sp_gate_celldiff {
	char id[200];
	char archived[24], remade[24];
} sp_gate_celldiff;

typedef struct sp_gate_decision {
	const sp_gate_plan *plan;
	time_t at;
	char at_text[32];
	bool signature_required;
	char pubkey_sha256[65]; /* of the plan's key file, "" when none */
	sp_gate_bundle *b;
	size_t nb;
	sp_gate_cell *cells;        /* plan order: scenario, lane, profile; required or claimed */
	size_t ncells;
	sp_gate_problem *prob;
	size_t nprob;
	size_t nrequired;
	size_t count[SP_CELL_NSTATES]; /* over required cells */
	bool pass;
	char **skipped; /* entries of the evidence roots not decided on, with the reason */
	size_t nskipped;
	time_t made_at;        /* wall clock when decided (0: unknown) */
	size_t expired_by_now; /* passing cells whose evidence has expired by made_at (a backdated --at) */
	/* --from-archive: whether the archived decision was reproduced */
	bool from_archive, reproduced;
	char archived_result[20];
	char **diffs; /* every difference found, one line each */
	size_t ndiffs;
	sp_gate_celldiff *celldiffs;
	size_t ncelldiffs;
} sp_gate_decision;
/* "pass", "fail" or "not-reproduced" */
const char *sp_gate_result(const sp_gate_decision *d);

/* Expand the command line's paths: a directory holding metadata.txt or a
 * MANIFEST is a bundle; any other directory holds bundles: each entry that
 * is a directory (hidden names included, a symbolic link resolved to its
 * target), sorted by name. Entries that are not directories go to *skipped
 * ("PATH: reason"); an entry that cannot be examined (dangling link, no
 * permission) is refused. 0, or -1 with a usage error. */
int sp_gate_collect(char *const *args, size_t nargs, char ***dirs, size_t *ndirs, char ***skipped, size_t *nskipped,
		    sp_error *err);
void sp_gate_dirs_free(char **dirs, size_t n);

/* Decide. pubkey_override (may be NULL) replaces the plan's signing.pubkey
 * path (re-deciding from an archive uses the archived copy). 0, or -1 with
 * err (usage: the plan's key is unreadable; internal otherwise). */
int sp_gate_decide(const sp_gate_plan *plan, char *const *dirs, size_t ndirs, const sp_gate_opts *o,
		   const char *pubkey_override, sp_gate_decision *d, sp_error *err);
void sp_decision_free(sp_gate_decision *d);

/* "RUN-01/oci-sandbox/G2" */
void sp_gcell_id(const sp_gate_decision *d, const sp_gate_cell *c, char *buf, size_t size);

/* outputs (output.c); 0 or -errno when f cannot be written */
struct json_t;
/* the sandprobe.gate.v1 document (new reference) */
struct json_t *sp_gate_decision_json(const sp_gate_decision *d);
int sp_gate_write_text(FILE *f, const sp_gate_decision *d);
int sp_gate_write_json(FILE *f, const sp_gate_decision *d);
int sp_gate_write_junit(FILE *f, const sp_gate_decision *d);
/* HTML coverage matrix; report_dir (relative to the page, may be NULL) is
 * where each bundle's report is linked as <report_dir>/<key>.html */
int sp_gate_write_html(FILE *f, const sp_gate_decision *d, const char *report_dir);
/* Write each used bundle's report page into dir (created); needs
 * keep_verdicts. 0 or -1 with err. */
int sp_gate_write_reports(const sp_gate_decision *d, const char *dir, sp_error *err);

/* archive.c: copy the plan, the bundles, the decision and the reports into
 * dir (which must not exist) under a MANIFEST, signed with sign_key (may
 * be NULL), and prove the archive re-decides the same. */
int sp_gate_archive(const sp_gate_decision *d, const char *dir, void *sign_key, sp_error *err);
/* Re-decide from an archive alone. pubkey (may be NULL) checks the
 * archive's MANIFEST.sig. *same says whether the re-made decision equals the
 * archived one; diff names the first difference; d->reproduced, d->diffs
 * and d->celldiffs record them all (the outputs then say not-reproduced). */
int sp_gate_from_archive(const char *dir, void *pubkey, bool keep_verdicts, sp_gate_plan *plan, sp_gate_decision *d, bool *same,
			 char *diff, size_t diffsz, sp_error *err);

#endif
