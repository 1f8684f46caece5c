#include "cmd/common.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

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
