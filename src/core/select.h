/* -k EXPR: select checks by words combined with and, or, not and
 * parentheses (as pytest -k). A word is
 *   id:PATTERN   the whole check id (PATTERN may be a glob: id:ns.*)
 *   cat:PATTERN  the whole category (cat:namespaces)
 *   a glob       (contains * ? or [) the whole id or the whole category: ns.*
 *   anything else a substring of the id or the category (ns also selects
 *                seccomp.unshare and kernel.userns) */
#ifndef SP_SELECT_H
#define SP_SELECT_H

#include <stdbool.h>

#include "core/error.h"

typedef struct sp_kexpr sp_kexpr;

/* Parse expr. known(word) (may be NULL) says whether a word matches anything;
 * a word that matches nothing is a usage error. */
int sp_kexpr_parse(const char *expr, bool (*known)(const char *word), sp_kexpr **out, sp_error *err);
/* one word (as above) against one check */
bool sp_kword_match(const char *word, const char *id, const char *category);
bool sp_kexpr_match(const sp_kexpr *e, const char *id, const char *category);
void sp_kexpr_free(sp_kexpr *e);

#endif
