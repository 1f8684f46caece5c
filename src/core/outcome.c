#include "core/outcome.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int sp_why(sp_outcome *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(o->why, sizeof o->why, fmt, ap);
	va_end(ap);
	o->errnum = 0;
	return -1;
}

int sp_why_errno(sp_outcome *o, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(o->why, sizeof o->why, fmt, ap);
	va_end(ap);
	o->errnum = errnum;
	return -1;
}

void sp_why_prefix(sp_outcome *o, const char *fmt, ...)
{
	char prefix[512], old[sizeof o->why];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof prefix, fmt, ap);
	va_end(ap);
	memcpy(old, o->why, sizeof old);
	snprintf(o->why, sizeof o->why, "%s: %s", prefix, old);
}
