/* Report writers for the doctor: text, json (sandprobe.doctor.v1), tap (13)
 * and junit (XML). */
#ifndef SP_OUTPUT_H
#define SP_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "core/runner.h"

typedef enum sp_format { SP_FMT_TEXT, SP_FMT_JSON, SP_FMT_TAP, SP_FMT_JUNIT } sp_format;

int sp_format_parse(const char *s, sp_format *out);
/* Write the report; returns 0 or -errno when the output cannot be written. */
int sp_write_report(FILE *f, sp_format fmt, const sp_ctx *ctx, const sp_report *rep, bool verbose, bool strict);
/* --list: the catalogue with each check's expectation under ctx's policy */
int sp_write_list(FILE *f, sp_format fmt, const sp_ctx *ctx, const sp_check *const *checks, size_t n);

/* ANSI colour for the text report's status labels and RESULT line (off by
 * default; the verb decides, see cmd/common.h sp_color_auto) */
void sp_output_set_color(bool on);
/* the label of st ("PASS: " ...), coloured when colour is on */
void sp_write_label(FILE *f, const char *label, const char *suffix);
void sp_write_text(FILE *f, const sp_ctx *ctx, const sp_report *rep, bool verbose);
void sp_write_tap(FILE *f, const sp_report *rep);
void sp_write_junit(FILE *f, const sp_ctx *ctx, const sp_report *rep);
int sp_write_json(FILE *f, const sp_ctx *ctx, const sp_report *rep, bool strict);
int sp_write_list_json(FILE *f, const sp_ctx *ctx, const sp_check *const *checks, size_t n);


#endif
