/* Child processes of the soak runner: spawn an argument vector in its own
 * process group with stdout+stderr captured (head and tail kept), wait with
 * a timeout or a planned interruption, and keep track of which pids a
 * worker is waiting for so that the runner (a child subreaper) can reap
 * reparented orphans without stealing a worker's child. */
#ifndef SP_SOAK_PROC_H
#define SP_SOAK_PROC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"

#define SP_CAP_HALF (32 * 1024 - 64) /* head + tail + elision line <= 64 KiB */
/* a step's own output keeps half as much, so that one step's block (with
 * its header and elision line) fits whole in its log file */
#define SP_STEP_HALF (16 * 1024 - 64)

/* Output of one child: the first half bytes and the last half (half:
 * SP_CAP_HALF when 0). */
typedef struct sp_soak_capture {
	size_t half;
	char head[SP_CAP_HALF];
	size_t head_len;
	char tail[SP_CAP_HALF]; /* ring */
	size_t tail_len, tail_pos;
	unsigned long long total;
} sp_soak_capture;

void sp_capture_add(sp_soak_capture *c, const char *buf, size_t len);
/* The calling thread's own buffers, one per use, reused from one operation
 * to the next and freed when the thread ends. */
enum sp_soak_tl {
	SP_SOAK_TL_CAPTURE, /* sp_capture_for_thread's capture */
	SP_SOAK_TL_TEXT,    /* sp_capture_text_thread's text */
	SP_SOAK_TL_REDACT,  /* sp_bundle_log's redacted block */
	SP_SOAK_TL_N
};
typedef struct sp_soak_tlbuf {
	void *p;    /* NULL until first used */
	size_t cap; /* bytes at p */
} sp_soak_tlbuf;
sp_soak_tlbuf *sp_soak_thread_buf(enum sp_soak_tl which);
/* An empty capture of the calling thread's own, reused from one child to
 * the next (no 64 KiB allocated per operation: the runner's memory stays
 * flat); freed when the thread ends. */
sp_soak_capture *sp_capture_for_thread(size_t half);
/* The captured text with a "[... N bytes elided ...]" line when bytes were
 * dropped; a new NUL-terminated string. */
char *sp_capture_text(const sp_soak_capture *c, size_t *len);
/* The same in the calling thread's own buffer, valid until its next call
 * (no allocation per operation). */
const char *sp_capture_text_thread(const sp_soak_capture *c, size_t *len);

typedef struct sp_soak_proc_result {
	int status;           /* waitpid status, valid when !spawn_errno */
	int spawn_errno;      /* the program could not be started */
	bool timed_out;       /* killed by the runner at its timeout */
	bool interrupted;     /* killed by the runner as a planned fault */
	bool interrupt_missed;/* the planned fault came too late: it had exited */
	bool aborted;         /* killed because the run stopped at once */
	uint64_t start_ns, end_ns, interrupt_ns;
} sp_soak_proc_result;

typedef struct sp_soak_run_opts {
	int timeout_ms;       /* kill the process group after this */
	int interrupt_ms;     /* <0: none; else send interrupt_sig to the group after this */
	int interrupt_sig;
	char *const *envp;
	const atomic_int *abort_flag; /* when it becomes non-zero, kill the group (SIGKILL) */
	bool stderr_null;     /* capture stdout only; stderr goes to /dev/null */
} sp_soak_run_opts;

/* Run argv (PATH search) to completion. cap may be NULL (output discarded).
 * Returns 0 (the result says how it ended) or -1 on an internal error. */
int sp_proc_run(char *const argv[], const sp_soak_run_opts *o, sp_soak_capture *cap, sp_soak_proc_result *res, sp_error *err);

/* exit status summarised as "exit=N" / "signal=NAME" / "timeout" / "spawn=ENOENT" */
void sp_proc_describe(const sp_soak_proc_result *r, char *buf, size_t size);
bool sp_proc_ok(const sp_soak_proc_result *r);

/* Raise this process's soft RLIMIT_NOFILE (the sampler keeps /proc handles
 * of owned processes open); children get the original limit back. */
void sp_proc_raise_nofile(void);

/* Reap zombie children that no worker is waiting for (reparented orphans).
 * Returns how many were reaped. */
int sp_proc_reap_orphans(void);

#endif
