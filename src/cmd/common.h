/* What several verbs' argument handling shares (cmd/ only): the report file
 * of -o/--output, and the default policy's discovery. */
#ifndef SP_CMD_COMMON_H
#define SP_CMD_COMMON_H

#include <stdbool.h>
#include <stdio.h>

#include "core/error.h"

/* Open PATH for the report without truncating it (an unwritable path fails
 * before anything runs: exit 2); NULL path: standard output. */
int sp_output_open(const char *verb, const char *path, FILE **out, sp_error *err);
/* Truncate an opened report file (just before writing). */
int sp_output_truncate(const char *verb, const char *path, FILE *out, sp_error *err);
/* Flush and close the report; 0, or -1 with err filled (exit 3). */
int sp_output_close(const char *verb, const char *path, FILE *out, sp_error *err);

#endif
