/* Error contract (see docs/CONTRIBUTING.md, modelled on crun's design):
 * a function that can fail returns a negative value and fills an sp_error
 * (errno + message); callers add context while it travels up with
 * sp_error_prefix(); only main() prints it. A failing *check* never uses this:
 * it produces a result record instead. */
#ifndef SP_ERROR_H
#define SP_ERROR_H

#include <stdarg.h>
#include <stddef.h>

/* exit codes, docs/man/sandprobe.1 (EXIT STATUS) */
enum {
	SP_EXIT_OK = 0,
	SP_EXIT_FAIL = 1,
	SP_EXIT_USAGE = 2,
	SP_EXIT_INTERNAL = 3,
};

typedef struct sp_error {
	int errnum;     /* errno value, 0 when not an OS error */
	int exit_code;  /* SP_EXIT_USAGE or SP_EXIT_INTERNAL */
	char msg[1024];
} sp_error;

#define SP_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Fill err with a usage error (exit 2); returns -1. */
int sp_usage(sp_error *err, const char *fmt, ...) SP_PRINTF(2, 3);
/* The same, for a place in an input file: "ORIGIN:LINE: message". */
int sp_usage_at(sp_error *err, const char *origin, int line, const char *fmt, ...) SP_PRINTF(4, 5);
/* Fill err with an internal error (exit 3) carrying errnum; returns -1. */
int sp_fail_errno(sp_error *err, int errnum, const char *fmt, ...) SP_PRINTF(3, 4);
/* Prepend context: "context: previous message". */
void sp_error_prefix(sp_error *err, const char *fmt, ...) SP_PRINTF(2, 3);
/* Rewrite the line msg (of size sz) as "<fmt...>: <msg>" (sp_error_prefix
 * and sp_why_prefix both do it). */
void sp_msg_vprefix(char *msg, size_t sz, const char *fmt, va_list ap) SP_PRINTF(3, 0);
/* Print "sandprobe: message" to stderr and return the exit code to use. */
int sp_error_report(const sp_error *err);
void sp_error_clear(sp_error *err);

#endif
