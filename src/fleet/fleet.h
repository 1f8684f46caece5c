/* Fleet plans for `sandprobe fleet` (YAML, sandprobe-fleet(1)): the doctor
 * image, its profile and --set items, the pod's resources and settings, and
 * the cells: every RuntimeClass on every node (a node name or a node
 * selector). Kubernetes runs the cells (one Job each); sandprobe only
 * renders them. Parsed with the shared YAML tree (src/yaml/ytree.c); every
 * error is a usage error "FILE:LINE: message". */
#ifndef SP_FLEET_FLEET_H
#define SP_FLEET_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/error.h"

#define SP_FLEET_MAX_BYTES (1 << 20)
#define SP_FLEET_MAX_CLASSES 32
#define SP_FLEET_MAX_NODES 256
#define SP_FLEET_MAX_SET 64
#define SP_FLEET_MAX_SELECTOR 16

typedef struct sp_fleet_node {
	char *id;                  /* DNS label: names the cell */
	char *node_name;           /* spec.nodeName, or NULL */
	char **sel_key, **sel_val; /* spec.nodeSelector, nsel pairs */
	size_t nsel;
	int line;
} sp_fleet_node;

typedef struct sp_fleet_plan {
	char *name, *namespace, *image, *profile;
	char **set; /* the doctor's --set items */
	size_t nset;
	bool run_as_non_root;
	int run_as_user;     /* with run_as_non_root */
	bool host_users;     /* false: hostUsers: false (a user namespace per pod) */
	bool apparmor;       /* true: appArmorProfile RuntimeDefault */
	int ttl;             /* ttlSecondsAfterFinished */
	int active_deadline; /* activeDeadlineSeconds */
	char *req_cpu, *req_mem, *lim_cpu, *lim_mem;
	char **classes; /* RuntimeClass names */
	size_t nclasses;
	sp_fleet_node *nodes;
	size_t nnodes;
} sp_fleet_plan;

/* Parse text (len bytes; origin names it in errors): 0, or -1 with a usage
 * error "origin:line: ..." in err and *p empty. */
int sp_fleet_plan_parse(sp_fleet_plan *p, const char *text, size_t len, const char *origin, sp_error *err);
int sp_fleet_plan_load(sp_fleet_plan *p, const char *path, sp_error *err);
void sp_fleet_plan_free(sp_fleet_plan *p);

/* the Job name of cell (node, class): sp-NAME-NODE-CLASS (at most 63
 * characters, checked by the parser) into buf */
void sp_fleet_job_name(const sp_fleet_plan *p, size_t node, size_t cls, char *buf, size_t size);
/* the Job manifest of one cell, as YAML; negative errno on a write error */
int sp_fleet_write_job(FILE *f, const sp_fleet_plan *p, size_t node, size_t cls);

#endif
