#include "core/outcome.h"

#include <stdarg.h>
#include <stdio.h>

static void vset(sp_outcome *o, int errnum, const char *fmt, va_list ap) SP_PRINTF(3, 0);
static void vset(sp_outcome *o, int errnum, const char *fmt, va_list ap)
{
	vsnprintf(o->why, sizeof o->why, fmt, ap);
	o->errnum = errnum;
}

int sp_why(sp_outcome *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset(o, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int sp_why_errno(sp_outcome *o, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset(o, errnum, fmt, ap);
	va_end(ap);
	return -1;
}

void sp_why_prefix(sp_outcome *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sp_msg_vprefix(o->why, sizeof o->why, fmt, ap);
	va_end(ap);
}
