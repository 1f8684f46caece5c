/* Minimal TAP producer for C unit tests: ok(), is_int(), is_str(),
 * done_testing(). Each test binary prints TAP 13 on stdout. */
#ifndef SP_TEST_TAP_H
#define SP_TEST_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

__attribute__((format(printf, 2, 3))) static int ok(int cond, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	return cond;
}

#define is_int(got, want, ...)                                                               \
	do {                                                                                 \
		long long g_ = (long long)(got), w_ = (long long)(want);                     \
		if (!ok(g_ == w_, __VA_ARGS__))                                               \
			printf("#   got %lld, want %lld\n", g_, w_);                             \
	} while (0)

#define is_str(got, want, ...)                                                               \
	do {                                                                                 \
		const char *g_ = (got), *w_ = (want);                                        \
		if (!ok(g_ && w_ && strcmp(g_, w_) == 0, __VA_ARGS__))                        \
			printf("#   got '%s', want '%s'\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
	} while (0)

#define like_str(got, needle, ...)                                                          \
	do {                                                                                 \
		const char *g_ = (got), *w_ = (needle);                                      \
		if (!ok(g_ && strstr(g_, w_) != NULL, __VA_ARGS__))                            \
			printf("#   got '%s', want it to contain '%s'\n", g_ ? g_ : "(null)", w_); \
	} while (0)

static int done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
