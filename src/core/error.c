#include "core/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void vformat(sp_error *err, const char *fmt, va_list ap)
{
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
}

int sp_usage(sp_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vformat(err, fmt, ap);
	va_end(ap);
	err->errnum = 0;
	err->exit_code = SP_EXIT_USAGE;
	return -1;
}

int sp_usage_at(sp_error *err, const char *origin, int line, const char *fmt, ...)
{
	char m[sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	return sp_usage(err, "%s:%d: %s", origin, line, m);
}

int sp_fail_errno(sp_error *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vformat(err, fmt, ap);
	va_end(ap);
	err->errnum = errnum;
	err->exit_code = SP_EXIT_INTERNAL;
	if (errnum) {
		size_t n = strlen(err->msg);
		snprintf(err->msg + n, sizeof err->msg - n, ": %s", strerror(errnum));
	}
	return -1;
}

void sp_msg_vprefix(char *msg, size_t sz, const char *fmt, va_list ap)
{
	char prefix[512], old[1024];
	vsnprintf(prefix, sizeof prefix, fmt, ap);
	snprintf(old, sizeof old < sz ? sizeof old : sz, "%s", msg);
	snprintf(msg, sz, "%s: %s", prefix, old);
}

void sp_error_prefix(sp_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sp_msg_vprefix(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
}

int sp_error_report(const sp_error *err)
{
	fprintf(stderr, "sandprobe: %s\n", err->msg[0] ? err->msg : "unknown error");
	return err->exit_code ? err->exit_code : SP_EXIT_INTERNAL;
}

void sp_error_clear(sp_error *err)
{
	memset(err, 0, sizeof *err);
}
