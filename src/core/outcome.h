/* The one way a helper tells its caller why it could not do its job (a probe's
 * parser, a client, an adapter's step): it returns -1 and fills an sp_outcome
 * with one line of reason and, when an OS call failed, its errno. The caller
 * turns that into a skip, an error or a failure of its result, or prefixes it
 * with context and passes it up. Program errors that end a verb (bad flags,
 * bad files) travel as sp_error (core/error.h) instead; a check never exits.
 *
 *   sp_outcome o = {0};
 *   if (parse(spec, &o) < 0)
 *       return sp_errorr(r, "%s", o.why);
 */
#ifndef SP_OUTCOME_H
#define SP_OUTCOME_H

#include "core/error.h" /* SP_PRINTF */

typedef struct sp_outcome {
	int errnum;     /* errno of the call that failed, 0 when none did */
	char why[1024]; /* one line, no trailing newline */
} sp_outcome;

/* Set the reason (errnum 0); returns -1. */
int sp_why(sp_outcome *o, const char *fmt, ...) SP_PRINTF(2, 3);
/* Set the reason and the errno; the text is exactly fmt's (append
 * strerror(errnum) in fmt when the line should name it); returns -1. */
int sp_why_errno(sp_outcome *o, int errnum, const char *fmt, ...) SP_PRINTF(3, 4);
/* Prepend context: "context: previous reason". */
void sp_why_prefix(sp_outcome *o, const char *fmt, ...) SP_PRINTF(2, 3);

#endif
