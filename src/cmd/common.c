#include "cmd/common.h"

#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/util.h"

int sp_output_open(const char *verb, const char *path, FILE **out, sp_error *err)
{
	*out = stdout;
	if (!path)
		return 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0)
		return sp_usage(err, "%s: --output %s: %s", verb, path, strerror(errno));
	*out = fdopen(fd, "w");
	if (!*out) {
		int e = errno;
		close(fd);
		*out = stdout;
		return sp_fail_errno(err, e, "%s: --output %s", verb, path);
	}
	return 0;
}

int sp_input_check(const char *verb, const char *flag, const char *path, sp_error *err)
{
	struct stat st;
	const char *sep = *flag ? " " : "";
	if (stat(path, &st) < 0)
		return sp_usage(err, "%s: %s%s%s: %s", verb, flag, sep, path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return sp_usage(err, "%s: %s%s%s: is a directory, expected a file", verb, flag, sep, path);
	if (S_ISREG(st.st_mode) && st.st_size == 0)
		return sp_usage(err, "%s: %s%s%s: is empty", verb, flag, sep, path);
	if (access(path, R_OK) < 0)
		return sp_usage(err, "%s: %s%s%s: %s", verb, flag, sep, path, strerror(errno));
	return 0;
}

int sp_output_check(const char *verb, const char *flag, const char *path, sp_error *err)
{
	struct stat st;
	if (!path)
		return 0;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return sp_usage(err, "%s: %s %s: is a directory, expected a file name", verb, flag, path);
	_cleanup_free_ char *dir = sp_xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (stat(dir, &st) < 0)
		return sp_usage(err, "%s: %s %s: directory %s: %s (create it first: mkdir -p %s)", verb, flag, path, dir,
				strerror(errno), dir);
	if (!S_ISDIR(st.st_mode))
		return sp_usage(err, "%s: %s %s: %s is not a directory", verb, flag, path, dir);
	return 0;
}

int sp_output_truncate(const char *verb, const char *path, FILE *out, sp_error *err)
{
	if (!path || out == stdout)
		return 0;
	if (ftruncate(fileno(out), 0) < 0)
		return sp_fail_errno(err, errno, "%s: --output %s", verb, path);
	return 0;
}

int sp_output_close(const char *verb, const char *path, FILE *out, sp_error *err)
{
	if (out == stdout) {
		if (fflush(stdout) != 0 || ferror(stdout))
			return sp_fail_errno(err, errno ? errno : EIO, "%s: cannot write the report", verb);
		return 0;
	}
	int bad = ferror(out);
	if (fclose(out) != 0 || bad)
		return sp_fail_errno(err, errno ? errno : EIO, "%s: cannot write %s", verb, path);
	return 0;
}

const char *sp_policy_discover(const char **from)
{
	const char *env = getenv(SP_POLICY_ENV);
	if (env && *env) {
		*from = SP_POLICY_ENV;
		return env;
	}
	if (access(SP_POLICY_SYSTEM, F_OK) == 0) {
		*from = SP_POLICY_SYSTEM;
		return SP_POLICY_SYSTEM;
	}
	*from = NULL;
	return NULL;
}

bool sp_color_auto(FILE *f)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");
	if (nc && *nc)
		return false;
	if (term && !strcmp(term, "dumb"))
		return false;
	return isatty(fileno(f)) == 1;
}

static ssize_t null_write(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	(void)buf;
	return (ssize_t)n;
}

FILE *sp_null_stream(void)
{
	cookie_io_functions_t io = {.write = null_write};
	FILE *f = fopencookie(NULL, "w", io);
	if (!f)
		sp_xmalloc((size_t)-1 / 2); /* out of memory: exit 3 as every allocation does */
	return f;
}

void sp_progress(FILE *f, size_t i, size_t n, const char *fmt, ...)
{
	va_list ap;
	fprintf(f, "[%zu/%zu] ", i, n);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fflush(f);
}
