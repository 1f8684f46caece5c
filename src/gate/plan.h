/* Release plans for `sandprobe gate` (YAML, docs/plan-format.md): the
 * release candidate's artifact digests, the lanes (host class and
 * isolation), the scenarios with their owners and the profiles each lane
 * requires per kind of change, how long evidence stays valid, how many
 * failed runs a later pass may supersede, and the key bundles must be
 * signed with. Parsed with the shared YAML tree (src/yaml/ytree.c);
 * every error is a usage error "FILE:LINE: message". */
#ifndef SP_GATE_PLAN_H
#define SP_GATE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "core/error.h"

/* the promotion order */
enum { SP_PROF_R0, SP_PROF_G2, SP_PROF_R24, SP_PROF_E72, SP_PROF_COUNT };
extern const char *const sp_prof_names[SP_PROF_COUNT];
/* index of a promotion profile, -1 for any other name (custom included) */
int sp_prof_index(const char *name);

#define SP_PLAN_MAX_LANES 64
#define SP_PLAN_MAX_SCENARIOS 256
#define SP_PLAN_MAX_ARTIFACTS 64
#define SP_PLAN_MAX_BYTES (1 << 20)

typedef struct sp_gate_plan_artifact {
	char *name;
	char digest[72]; /* "sha256:" + 64 lowercase hex */
} sp_gate_plan_artifact;

typedef struct sp_gate_plan_lane {
	char *id, *title, *host_class, *isolation;
	char arch[40];   /* host_class "linux-ARCH": ARCH in uname -m spelling (arm64 -> aarch64) */
	char **runtimes; /* the runtimes a bundle may name (the lane's runtimes:, else the isolation's class) */
	size_t nruntimes;
	const char *boundary;       /* the isolation's kernel boundary: "shared host kernel", ... */
	sp_gate_plan_artifact *art; /* lane-specific artifacts (override the candidate's) */
	size_t nart;
	int line;
} sp_gate_plan_lane;

typedef struct sp_gate_plan_scenario {
	char *id, *title, *owner;
	char workload[65];      /* pinned workload_sha256 (hex), "" when not pinned */
	int retries;            /* failed runs per cell a later pass may supersede */
	/* required[lane] = bitmask of profiles (1 << SP_PROF_*) for the plan's
	 * changes, before the promotion order is applied */
	unsigned *required;
	int line;
} sp_gate_plan_scenario;

typedef struct sp_gate_plan {
	char *path;             /* as given */
	char *name;
	char *candidate_id;
	sp_gate_plan_artifact *art;
	size_t nart;
	char **changes;
	size_t nchanges;
	long long valid_for_s[SP_PROF_COUNT]; /* evidence lifetime per profile */
	bool has_not_before;
	time_t not_before;      /* evidence that started earlier is superseded */
	char not_before_text[40];
	int retries;            /* default for scenarios */
	bool order_in_time;     /* evidence.promotion_order: time (default): an earlier profile's run
				 * must end before the later profile's run starts */
	char *pubkey_path;      /* resolved against the plan's directory, NULL: none */
	int pubkey_line;
	sp_gate_plan_lane *lanes;
	size_t nlanes;
	sp_gate_plan_scenario *scen;
	size_t nscen;
	char sha256[65];        /* of the plan file's bytes */
	char *text;             /* the plan file's bytes (archived verbatim) */
	size_t len;
} sp_gate_plan;

/* Parse text (len bytes; origin names it in errors). base_dir resolves a
 * relative signing.pubkey (NULL: the current directory). 0, or -1 with a
 * usage error. The plan keeps a copy of text. */
int sp_plan_parse(sp_gate_plan *p, const char *text, size_t len, const char *origin, const char *base_dir,
		  sp_error *err);
/* Read and parse the file (at most SP_PLAN_MAX_BYTES). */
int sp_plan_load(sp_gate_plan *p, const char *path, sp_error *err);
void sp_plan_free(sp_gate_plan *p);

/* The artifacts a bundle of lane `lane` must record: the candidate's, each
 * replaced by the lane's own digest when the lane names one, then the
 * lane-only ones. At most max into out; returns the count. */
size_t sp_plan_lane_artifacts(const sp_gate_plan *p, size_t lane, const sp_gate_plan_artifact **out, size_t max);

/* uname -m spelling of an architecture name (amd64 -> x86_64, arm64 ->
 * aarch64 ...), into buf; false when name is not one */
bool sp_gate_norm_arch(const char *name, char *buf, size_t size);

/* "2026-01-01T00:00:00Z" (optionally with a fraction) as seconds since the
 * epoch; -1 when s is not one (calendar checked: no Feb 30) */
int sp_gate_parse_time(const char *s, time_t *out);
void sp_gate_format_time(time_t t, char *buf, size_t size);
/* "90s", "45m", "12h", "14d", "2w" -> seconds; -1 when not one */
int sp_gate_parse_duration(const char *s, long long *out);
void sp_gate_format_duration(long long s, char *buf, size_t size);

#endif
