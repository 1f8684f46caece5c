/* What several verbs' argument handling shares (cmd/ only): the report file
 * of -o/--output, and the default policy's discovery. */
#ifndef SP_CMD_COMMON_H
#define SP_CMD_COMMON_H

#include <stdbool.h>
#include <stdio.h>

#include "core/error.h"
#include "core/util.h"

/* Open PATH for the report without truncating it (an unwritable path fails
 * before anything runs: exit 2); NULL path: standard output. */
int sp_output_open(const char *verb, const char *path, FILE **out, sp_error *err);
/* Truncate an opened report file (just before writing). */
int sp_output_truncate(const char *verb, const char *path, FILE *out, sp_error *err);
/* Flush and close the report; 0, or -1 with err filled (exit 3). */
int sp_output_close(const char *verb, const char *path, FILE *out, sp_error *err);

/* Input files and output paths checked before anything runs (exit 2, one
 * line naming the flag and the path): sp_input_check refuses a missing,
 * unreadable, empty or non-regular file ("VERB: FLAG PATH: why"; FLAG may be
 * "" for an operand); sp_output_check refuses an output path that is a
 * directory or whose directory does not exist. */
int sp_input_check(const char *verb, const char *flag, const char *path, sp_error *err);
int sp_output_check(const char *verb, const char *flag, const char *path, sp_error *err);

/* A stream that discards what is written to it (--quiet), without /dev/null. */
FILE *sp_null_stream(void);

/* One progress line "[i/n] ..." on f (a verb decides when: never with
 * --quiet, never mixed into a report on the same stream). */
void sp_progress(FILE *f, size_t i, size_t n, const char *fmt, ...) SP_PRINTF(4, 5);

/* The policy a verb uses when it is given neither --profile nor --policy:
 * the file named by $SANDPROBE_POLICY, else /etc/sandprobe/policy.ini when
 * it exists, else NULL (the verb's default profile). *from says which
 * ("SANDPROBE_POLICY" or the path). */
#define SP_POLICY_ENV "SANDPROBE_POLICY"
#ifndef SP_SYSCONFDIR
#define SP_SYSCONFDIR "/etc"
#endif
#define SP_POLICY_SYSTEM SP_SYSCONFDIR "/sandprobe/policy.ini"
const char *sp_policy_discover(const char **from);

/* Colour for a terminal: on when f is a terminal, $NO_COLOR is unset or
 * empty (no-color.org) and $TERM is not "dumb". */
bool sp_color_auto(FILE *f);

#endif
