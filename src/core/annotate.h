/* GitHub Actions workflow commands (::error file=F,line=N,col=N,title=T::MSG),
 * which the runner turns into annotations on the run and the pull request.
 * Escaping as the runner reads it: in the message % CR LF become %25 %0D
 * %0A; in a property value also ':' and ',' (%3A %2C). Text is made
 * well-formed UTF-8 first (core/junit.h). */
#ifndef SP_ANNOTATE_H
#define SP_ANNOTATE_H

#include <stdio.h>

#include "core/runner.h"

/* level: "error", "warning" or "notice"; file NULL: none; line/col 0: none */
void sp_gh_annotation(FILE *f, const char *level, const char *file, unsigned line, unsigned col, const char *title,
		      const char *msg);
/* one annotation per FAIL/ERROR (error) and WARN (warning) of a doctor report */
void sp_gh_annotate_report(FILE *f, const sp_report *rep);

#endif
