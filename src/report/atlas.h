/* Threat-model crosswalk: a compiled-in table of the MITRE ATLAS and ATT&CK
 * techniques that matter for sandboxes and agent egress, the layers of a
 * sandbox each one goes through, and which sandprobe checks (doctor registry,
 * lint rules, verify gates) detect it or prove it stopped. Coverage is
 * computed at run time from the registries, so checks added later appear
 * without touching this table. */
#ifndef SP_ATLAS_H
#define SP_ATLAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* the releases the facts below were read from */
#define SP_ATLAS_RELEASE "5.6.0"          /* mitre-atlas/atlas-data dist/ATLAS.yaml, tag v5.6.1 */
#define SP_ATTACK_RELEASE "Enterprise v18" /* attack.mitre.org */

typedef enum sp_atlas_maturity {
	SP_MATURITY_REALIZED,     /* used in the wild against real AI systems */
	SP_MATURITY_DEMONSTRATED, /* shown by research or red teams */
	SP_MATURITY_FEASIBLE,     /* plausible, not yet shown */
	SP_MATURITY_NONE,         /* ATT&CK: no maturity field */
} sp_atlas_maturity;

typedef struct sp_atlas_technique {
	const char *id;        /* "AML.T0086", "T1611", "T1552.007" */
	const char *name;      /* as the framework spells it */
	const char *framework; /* "ATLAS" or "ATT&CK" */
	const char *tactics;   /* "Exfiltration" or "Persistence, Defense Evasion" */
	sp_atlas_maturity maturity;
	const char *same_as;   /* ATLAS: the ATT&CK technique it refers to, or NULL */
} sp_atlas_technique;

typedef enum sp_atlas_layer {
	SP_LAYER_ESCAPE,
	SP_LAYER_EGRESS,
	SP_LAYER_CREDENTIALS,
	SP_LAYER_PERSISTENCE,
	SP_LAYER_RESOURCES,
	SP_LAYER_COUNT,
} sp_atlas_layer;

typedef enum sp_atlas_reach {
	SP_REACH_YES,    /* an agent in the sandbox can attempt it through this layer */
	SP_REACH_PARTLY, /* only in some configurations (see path) */
	SP_REACH_NO,     /* not reachable from inside the sandbox (see path) */
} sp_atlas_reach;

/* One (technique, layer) row of the crosswalk. */
typedef struct sp_atlas_crosswalk {
	const char *technique;
	sp_atlas_layer layer;
	sp_atlas_reach reach;
	const char *path;      /* how it is attempted from inside, or why it is not reachable */
	const char *control;   /* what stops it at this layer */
	const char *uncovered; /* shown when nothing covers it: why, and what would */
} sp_atlas_crosswalk;

extern const sp_atlas_technique sp_techniques[];
extern const size_t sp_techniques_count;
extern const sp_atlas_crosswalk sp_crosswalk_rows[];
extern const size_t sp_crosswalk_count;

const sp_atlas_technique *sp_technique_find(const char *id);
const char *sp_layer_name(sp_atlas_layer l);    /* "runtime escape" */
const char *sp_layer_key(sp_atlas_layer l);     /* "escape" */
const char *sp_maturity_name(sp_atlas_maturity m); /* "realized", "-" for none */
const char *sp_reach_name(sp_atlas_reach r);    /* "yes", "partly", "no" */

/* Something that can cover a technique: a doctor check, a lint rule, a
 * verify gate. */
typedef struct sp_atlas_item {
	const char *source;     /* "doctor", "lint", "verify" */
	const char *id;         /* "ns.net" */
	const char *techniques; /* comma-separated ids */
	const char *method;     /* "action" (proves the stop), "read" or "" */
} sp_atlas_item;

typedef struct sp_atlas_items {
	sp_atlas_item *v;
	size_t n, cap;
} sp_atlas_items;

void sp_atlas_items_add(sp_atlas_items *it, const char *source, const char *id, const char *techniques,
			const char *method);
void sp_atlas_items_free(sp_atlas_items *it);
/* every registry compiled into this binary (src/report/atlas_sources.c) */
void sp_atlas_collect(sp_atlas_items *out);

/* does item list technique id (or the ATT&CK id the technique is the same as)?
 * *via is set to the id that matched */
bool sp_atlas_item_covers(const sp_atlas_item *item, const sp_atlas_technique *t, const char **via);

typedef enum sp_atlas_format { SP_ATLAS_TEXT, SP_ATLAS_JSON, SP_ATLAS_MD } sp_atlas_format;
int sp_atlas_format_parse(const char *s, sp_atlas_format *out);
/* Write the crosswalk computed over items; 0 or -errno on a write error. */
int sp_atlas_write(FILE *f, sp_atlas_format fmt, const sp_atlas_items *items);

/* technique ids used by items that the table does not know ("T1234 (doctor x.y)") */
size_t sp_atlas_unknown_ids(const sp_atlas_items *items, char ***out);

#endif
