/* `sandprobe fleet collect` (src/fleet/collect.c): the doctor reports of a
 * fleet run (report files, or `kubectl logs` output) placed in the plan's
 * cells, and the live matrix made of them (one lane per node x RuntimeClass,
 * written by the live tier's writers). Every refusal is a usage error
 * "FILE:LINE: what": the caller writes nothing then. */
#ifndef SP_FLEET_COLLECT_H
#define SP_FLEET_COLLECT_H

#include "core/error.h"
#include "fleet/fleet.h"
#include "live/live.h"

#define SP_FLEET_MAX_INPUT (64 << 20)

typedef struct sp_fleet_cell {
	void *report; /* json_t: the doctor's report, or NULL (never reported) */
	char *origin; /* FILE:LINE of its first line */
	char *pod;    /* kubectl --prefix's pod, or NULL */
} sp_fleet_cell;

typedef struct sp_fleet_collect {
	const sp_fleet_plan *plan;
	sp_fleet_cell *cells; /* node * nclasses + class */
	size_t nreports;
	size_t other_lines; /* lines outside any report (kubectl's own) */
} sp_fleet_collect;

void sp_fleet_collect_init(sp_fleet_collect *c, const sp_fleet_plan *p);
void sp_fleet_collect_free(sp_fleet_collect *c);
/* the reports in text (len bytes; origin names it in errors): 0, or -1 with a usage error */
int sp_fleet_collect_text(sp_fleet_collect *c, const char *text, size_t len, const char *origin, sp_error *err);
/* a file, "-" (standard input) or a directory (its files, by name; dot files left out) */
int sp_fleet_collect_path(sp_fleet_collect *c, const char *path, sp_error *err);

/* the matrix: one lane per cell, in plan order (a lane's runtime is the RuntimeClass, its variant the node
 * id); a cell that never reported is an error lane, which fails the run */
typedef struct sp_fleet_matrix {
	sp_live_run run;
	sp_live_runtime *rts;
	sp_live_variant *variants;
	char *origin;
} sp_fleet_matrix;
void sp_fleet_matrix_build(const sp_fleet_collect *c, const char *plan_path, sp_fleet_matrix *m);
void sp_fleet_matrix_free(sp_fleet_matrix *m);

#endif
