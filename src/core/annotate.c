#include "core/annotate.h"

#include <stdlib.h>
#include <string.h>

#include "core/junit.h"
#include "core/util.h"

static void esc(FILE *f, const char *s, int property)
{
	size_t n = strlen(s ? s : "");
	char *buf = sp_xmalloc(n * 3 + 4);
	sp_utf8_sanitize(s, buf, n * 3 + 4, 0, 0);
	for (const char *p = buf; *p; p++) {
		switch (*p) {
		case '%': fputs("%25", f); break;
		case '\r': fputs("%0D", f); break;
		case '\n': fputs("%0A", f); break;
		case ':':
			if (property)
				fputs("%3A", f);
			else
				fputc(':', f);
			break;
		case ',':
			if (property)
				fputs("%2C", f);
			else
				fputc(',', f);
			break;
		default: fputc(*p, f);
		}
	}
	free(buf);
}

void sp_gh_annotation(FILE *f, const char *level, const char *file, unsigned line, unsigned col, const char *title,
		      const char *msg)
{
	fprintf(f, "::%s", level);
	const char *sep = " ";
	if (file && *file) {
		fputs(" file=", f);
		esc(f, file, 1);
		sep = ",";
	}
	if (line) {
		fprintf(f, "%sline=%u", sep, line);
		sep = ",";
		if (col)
			fprintf(f, ",col=%u", col);
	}
	if (title && *title) {
		fprintf(f, "%stitle=", sep);
		esc(f, title, 1);
	}
	fputs("::", f);
	esc(f, msg, 0);
	fputc('\n', f);
}

void sp_gh_annotate_report(FILE *f, const sp_report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		const sp_result *r = &rep->results[i];
		const char *level = r->status == SP_STATUS_FAIL || r->status == SP_STATUS_ERROR ? "error"
				    : r->status == SP_STATUS_WARN				    ? "warning"
												    : NULL;
		if (!level)
			continue;
		char *title = sp_xasprintf("%s (%s)", r->check->id, sp_status_label(r->status));
		char *msg = sp_xasprintf("%s\nexpected: %s\nobserved: %s", r->detail, r->expected, r->observed);
		sp_gh_annotation(f, level, NULL, 0, 0, title, msg);
		free(title);
		free(msg);
	}
}
