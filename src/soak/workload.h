/* Workload files for `sandprobe soak` (YAML, docs/workload-format.md).
 * sp_workload_load() parses and validates everything before anything runs:
 * an unknown key, a wrong type, an out-of-range value or an unknown
 * placeholder is a usage error naming file:line. */
#ifndef SP_SOAK_WORKLOAD_H
#define SP_SOAK_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "core/util.h"

typedef enum {
	SP_CLASS_LIFECYCLE,
	SP_CLASS_SERVICE,
	SP_CLASS_STORAGE,
	SP_CLASS_NETWORK,
	SP_CLASS_FAULT,
	SP_CLASS_COUNT
} sp_soak_class;

const char *sp_class_name(sp_soak_class c);

#define SP_RATE_MIN 0.0001 /* operations per second: one every 10,000 s */

typedef struct sp_soak_wstep {
	char *op;          /* operation name (operations.tsv "operation") */
	sp_strv argv;      /* argument vector, placeholders unexpanded */
	bool expect_fail;  /* a negative test: the command must exit non-zero */
	bool invariant;    /* a failure is a security invariant violation: stop now */
	int timeout_ms;
	int line;
} sp_soak_wstep;

typedef struct sp_soak_wsteps {
	sp_soak_wstep *v;
	size_t n;
} sp_soak_wsteps;

typedef struct sp_soak_wfault {
	bool present;
	char id[4];        /* F01 to F09 */
	char *step;        /* F01/F07: step to interrupt; F02/F03/F04/F06: step after which to inject */
	char *pidfile;     /* F02/F03/F04/F06: file holding the target pid (must be owned) */
	sp_strv tasks;     /* F04: command listing the daemon's tasks, one per line (placeholders unexpanded) */
	char *portfile;    /* F06: file holding the TCP port the target (a proxy) listens on at 127.0.0.1 */
	char *cut;         /* F06 bounded connection loss (no pidfile): "disconnect" or "stall", written to modefile */
	char *qmp;         /* F08: the canary VM's QMP unix socket (fault_vm.c) */
	sp_strv state;     /* F08: command printing the state the canary keeps on its disk (placeholders unexpanded) */
	int signal;        /* default SIGKILL (F03, F04, F06: SIGTERM) */
	int after_ms;      /* delay after the step starts (F01/F07) or ends (F02/F03/F06) */
	int rto_ms;        /* recovery time objective */
	char *expected;    /* expected outcome, one line */
	int line;
	/* F05 (fault_registry.c) and F06 with cut (fault_netloss.c): the fault
	 * proxy's mode file (under {state}), the mode (F05; F06: cut) applied
	 * for window_ms (default 2000) then undone; F05: the blob stores whose
	 * every blob must match its digest after the recovery */
	char *modefile, *mode;
	int window_ms;
	sp_strv blobs;
	/* F09 (fault_upgrade.c): the runtime link the workload calls (under
	 * {state}), moved from version N to N+1 and back; tasks lists the live
	 * resources; next_fail_closed: under N+1 they may be refused (the list
	 * fails) instead of kept */
	char *link, *from, *to;
	bool next_fail_closed;
} sp_soak_wfault;

typedef struct sp_soak_scenario {
	char *id;          /* RUN-01 ... */
	sp_soak_class cls;
	char *api;         /* operations.tsv "api" column */
	bool parallel;     /* cycles may overlap (steps use per-generation ids only) */
	sp_soak_wsteps start;   /* once, before the first cycle */
	sp_soak_wsteps steps;   /* one cycle */
	sp_soak_wsteps recover; /* after a failed cycle or a fault */
	sp_soak_wsteps stop;    /* once, when the run drains */
	sp_soak_wfault fault;
	int line;
} sp_soak_scenario;

typedef struct sp_soak_counter {
	char *name;        /* resource-samples.tsv column extra.<name> */
	char *dir;         /* count entries of this directory (placeholders allowed) */
	sp_strv argv;      /* or: a command printing one integer */
} sp_soak_counter;

typedef struct sp_soak_workload {
	char *path;
	char sha256[65];
	char *name;
	char *runtime;
	sp_strv version_argv;
	char *state_root;  /* parent directory of the run's state directory */
	char *prefix;      /* declared ownership prefix; the run adds its id */
	char *rootfs;      /* optional, placeholders allowed */
	int concurrency;
	double rate;       /* target operations per second, 0 = unbounded, else >= SP_RATE_MIN */
	int timeout_ms;
	int mix[SP_CLASS_COUNT];
	long long fd_growth_max;
	long long disk_budget_bytes;
	double rss_slope_mib_per_day;
	double p95_regression_pct;
	sp_soak_wsteps setup, cleanup, teardown;
	sp_strv inventory;
	sp_soak_counter *counters;
	size_t ncounters;
	sp_soak_scenario *scen;
	size_t nscen;
} sp_soak_workload;

/* Parse a workload from memory (origin names it in errors). */
int sp_workload_parse(sp_soak_workload *w, const char *text, size_t len, const char *origin, sp_error *err);
/* Read and parse a file; also fills w->sha256 with the file's digest. */
int sp_workload_load(sp_soak_workload *w, const char *path, sp_error *err);
void sp_workload_free(sp_soak_workload *w);

/* Placeholder values for expansion; a NULL field is "not available here". */
typedef struct sp_soak_vars {
	const char *id, *sid, *gen, *state, *rootfs, *prefix, *run, *scenario, *exe;
} sp_soak_vars;

/* Expand {name} placeholders: '{' + [a-z_]+ + '}' not preceded by '$' or
 * '{' and not followed by a second '{'; any other brace is literal. Returns
 * a new string, or NULL when a placeholder is unknown or unavailable (the
 * parser has already refused those, so at run time this does not happen). */
char *sp_expand(const char *tmpl, const sp_soak_vars *v);

#endif
