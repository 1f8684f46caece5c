/* -k EXPR: select checks by substring of id or category, combined with
 * and, or, not and parentheses (as pytest -k). */
#ifndef SP_SELECT_H
#define SP_SELECT_H

#include <stdbool.h>

#include "core/error.h"

typedef struct sp_kexpr sp_kexpr;

/* Parse expr. known(word) (may be NULL) says whether a word matches anything;
 * a word that matches nothing is a usage error. */
int sp_kexpr_parse(const char *expr, bool (*known)(const char *word), sp_kexpr **out, sp_error *err);
bool sp_kexpr_match(const sp_kexpr *e, const char *id, const char *category);
void sp_kexpr_free(sp_kexpr *e);

#endif
