/* The doctor's data model: a check descriptor (one per check, listed once in
 * src/catalog/list_*.h), the context a check runs in, and the result record it
 * fills. A check never exits or prints: it fills its sp_result. */
#ifndef SP_CHECK_H
#define SP_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/policy.h"

typedef enum sp_status {
	SP_STATUS_PASS,
	SP_STATUS_FAIL,
	SP_STATUS_SKIP,
	SP_STATUS_WARN,
	SP_STATUS_ERROR,
} sp_status;

/* What the policy says about one check ([expect] section). */
typedef enum sp_expect {
	SP_EXPECT_REQUIRED, /* a failure is a failure */
	SP_EXPECT_ADVISORY, /* a failure is reported as a warning */
	SP_EXPECT_OFF,      /* not run at all */
} sp_expect;

struct sp_check;

/* Fixed-size so that a forked probe can hand it back through a pipe. */
typedef struct sp_result {
	const struct sp_check *check; /* set by the runner */
	sp_status status;
	sp_expect expect;             /* set by the runner, from the policy */
	char expected[256];
	char observed[1024];
	char detail[1024];
	uint64_t duration_us;
} sp_result;

typedef struct sp_ctx {
	const sp_policy *policy;
	const char *profile;       /* profile or policy name */
	const char *manifest_path; /* --manifest FILE, or NULL */
	void *manifest;            /* parsed manifest (json_t *), or NULL */
	bool verbose;
	unsigned timeout_ms;       /* default per-check timeout */
} sp_ctx;

enum {
	/* run in the doctor process itself: only for checks that read a few
	 * small procfs/sysfs files, cannot hang and change nothing */
	SP_CHECK_INPROCESS = 1u << 0,
	/* the property is about what reaches the kernel the sandbox talks to
	 * (namespaces, seccomp, kernel knobs ...): a separate kernel that the
	 * policy accepts (kernel.separate_kernel) satisfies it, a user-space
	 * one (gVisor) and a VM's own guest kernel each by its own bit */
	SP_CHECK_KERNEL_USERSPACE = 1u << 1,
	SP_CHECK_KERNEL_GUEST = 1u << 2,
	SP_CHECK_KERNEL = SP_CHECK_KERNEL_USERSPACE | SP_CHECK_KERNEL_GUEST,
	/* the verdict rests on what the kernel answers system calls that a
	 * user-mode emulator (qemu-user) answers itself or does not translate
	 * faithfully: skipped under emulation (core/emul.h) */
	SP_CHECK_NOEMU = 1u << 3,
};

/* The kernel boundary: which kernel the sandbox's system calls reach. */
typedef enum sp_kernel_kind {
	SP_KERNEL_HOST,      /* the host's kernel (namespaces, containers) */
	SP_KERNEL_USERSPACE, /* a user-space kernel (gVisor's sentry) */
	SP_KERNEL_GUEST,     /* a separate guest kernel (microVM, VM) */
} sp_kernel_kind;

typedef struct sp_boundary {
	sp_kernel_kind kind;
	char kernel[48];    /* "host", "gVisor", "guest under KVM" */
	char signals[384];  /* the evidence, comma-separated */
	char doubt[320];    /* why a separate kernel was not concluded, or "" */
} sp_boundary;

const char *sp_kernel_kind_name(sp_kernel_kind k); /* "host", "user-space", "guest" */
/* Does the policy's kernel.separate_kernel accept boundary b for checks
 * carrying flag bits `flags` (SP_CHECK_KERNEL_*)? (The boundary itself is
 * detected by src/checks/runtime.h.) */
bool sp_boundary_accepts(const sp_ctx *ctx, const sp_boundary *b, unsigned flags);

/* A declared batch: checks whose probes share one piece of work (every
 * capability probe in one child, every network probe in one parallel run).
 * The runner forks one child for the batch, with one timeout: in it,
 * prepare builds the plan, run performs every probe, and each member's own
 * run function collects (judges) its result from what they left. The
 * parent gets each member's result as soon as it is judged; a batch child
 * that dies costs the member it was in, and the rest resume in a new child. */
typedef struct sp_batch {
	const char *id;          /* "caps.probes" */
	const char *what;        /* one line for the docs and --list */
	unsigned timeout_ms;     /* for the whole batch; 0: the context's default */
	/* where the policy sizes the work (probe deadlines): the batch's own
	 * timeout instead of timeout_ms; may be NULL */
	unsigned (*budget_ms)(const sp_ctx *ctx);
	void (*prepare)(const sp_ctx *ctx); /* may be NULL */
	void (*run)(const sp_ctx *ctx);     /* may be NULL */
	/* its work outlasts any other unit's (the 10 MiB round trip): a run
	 * of several at once (-j) starts it first, so it never becomes the tail */
	bool long_running;
} sp_batch;

typedef struct sp_check {
	const char *id;          /* stable, dotted: "ns.pid" */
	const char *category;    /* "namespaces" */
	const char *title;       /* short sentence */
	const char *rationale;   /* why this matters, one line */
	const char *techniques;  /* "AML.T0105,T1611" or "" */
	const char *policy_keys; /* policy keys this check reads, comma-separated */
	const char *method;      /* "action" (proven by an operation) or "read" */
	/* NULL: always supported. Otherwise false + reason means skip. */
	bool (*supported)(const sp_ctx *ctx, sp_outcome *o);
	void (*run)(const sp_ctx *ctx, sp_result *r);
	unsigned timeout_ms;     /* 0: the context's default (ignored for a batch member) */
	unsigned flags;
	const sp_batch *batch;   /* member of a declared batch, or NULL */
} sp_check;

/* Result helpers: set the status and a short reason (detail). */
void sp_set(sp_result *r, sp_status st, const char *fmt, ...) SP_PRINTF(3, 4);
#define sp_pass(r, ...) sp_set((r), SP_STATUS_PASS, __VA_ARGS__)
#define sp_failr(r, ...) sp_set((r), SP_STATUS_FAIL, __VA_ARGS__)
#define sp_skip(r, ...) sp_set((r), SP_STATUS_SKIP, __VA_ARGS__)
#define sp_warn(r, ...) sp_set((r), SP_STATUS_WARN, __VA_ARGS__)
#define sp_errorr(r, ...) sp_set((r), SP_STATUS_ERROR, __VA_ARGS__)
void sp_expected(sp_result *r, const char *fmt, ...) SP_PRINTF(2, 3);
void sp_observed(sp_result *r, const char *fmt, ...) SP_PRINTF(2, 3);
/* append "; text" to observed */
void sp_observed_add(sp_result *r, const char *fmt, ...) SP_PRINTF(2, 3);

const char *sp_status_name(sp_status st);     /* "pass" */
const char *sp_status_label(sp_status st);    /* "PASS" */
const char *sp_expect_name(sp_expect e);

#endif
