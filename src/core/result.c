#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/check.h"
#include "core/util.h"

void sp_set(sp_result *r, sp_status st, const char *fmt, ...)
{
	va_list ap;
	r->status = st;
	va_start(ap, fmt);
	vsnprintf(r->detail, sizeof r->detail, fmt, ap);
	va_end(ap);
}

/* A text longer than its field is cut after its last whole item (a comma or
 * a space within the field's last quarter) and marked with " ...", never in
 * the middle of a word or a path. */
static void clip_to_field(char *buf, size_t size, int n)
{
	if (n < 0 || (size_t)n < size)
		return;
	const char mark[] = " ...";
	size_t limit = size - sizeof mark; /* room for the mark and its NUL */
	size_t cut = limit;
	while (cut > size * 3 / 4 && buf[cut] != ',' && buf[cut] != ' ')
		cut--;
	if (cut <= size * 3 / 4)
		cut = limit;
	else if (buf[cut] == ',')
		cut++; /* keep the comma: the list goes on */
	memcpy(buf + cut, mark, sizeof mark);
}

void sp_expected(sp_result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(r->expected, sizeof r->expected, fmt, ap);
	va_end(ap);
	clip_to_field(r->expected, sizeof r->expected, n);
}

void sp_observed(sp_result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->observed, sizeof r->observed, fmt, ap);
	va_end(ap);
}

void sp_observed_add(sp_result *r, const char *fmt, ...)
{
	size_t n = strlen(r->observed);
	if (n && n + 2 < sizeof r->observed) {
		r->observed[n++] = ';';
		r->observed[n++] = ' ';
		r->observed[n] = '\0';
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->observed + n, sizeof r->observed - n, fmt, ap);
	va_end(ap);
}

const char *sp_status_name(sp_status st)
{
	switch (st) {
	case SP_STATUS_PASS: return "pass";
	case SP_STATUS_FAIL: return "fail";
	case SP_STATUS_SKIP: return "skip";
	case SP_STATUS_WARN: return "warn";
	case SP_STATUS_ERROR: return "error";
	}
	return "error";
}

const char *sp_status_label(sp_status st)
{
	switch (st) {
	case SP_STATUS_PASS: return "PASS";
	case SP_STATUS_FAIL: return "FAIL";
	case SP_STATUS_SKIP: return "SKIP";
	case SP_STATUS_WARN: return "WARN";
	case SP_STATUS_ERROR: return "ERROR";
	}
	return "ERROR";
}

const char *sp_expect_name(sp_expect e)
{
	switch (e) {
	case SP_EXPECT_REQUIRED: return "required";
	case SP_EXPECT_ADVISORY: return "advisory";
	case SP_EXPECT_OFF: return "off";
	}
	return "required";
}

const char *sp_kernel_kind_name(sp_kernel_kind k)
{
	switch (k) {
	case SP_KERNEL_HOST: return "host";
	case SP_KERNEL_USERSPACE: return "user-space";
	case SP_KERNEL_GUEST: return "guest";
	}
	return "host";
}
