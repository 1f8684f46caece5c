#include "core/emul.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/banned.h"
#include "core/cleanup.h"

static int emulated = -1;
static char evidence[2 * PATH_MAX + 96];

static void detect(void)
{
	char told[PATH_MAX], real[PATH_MAX];
	ssize_t a = readlink("/proc/self/exe", told, sizeof told - 1);
	_cleanup_close_ int dfd = open("/proc/self", O_PATH | O_DIRECTORY | O_CLOEXEC);
	ssize_t b = dfd >= 0 ? readlinkat(dfd, "exe", real, sizeof real - 1) : -1;
	emulated = 0;
	if (a <= 0 || b <= 0) {
		snprintf(evidence, sizeof evidence, "/proc/self/exe unreadable: no emulation evidence");
		return;
	}
	told[a] = '\0';
	real[b] = '\0';
	if (!strcmp(told, real)) {
		snprintf(evidence, sizeof evidence, "the kernel runs %s itself", real);
		return;
	}
	emulated = 1;
	const char *base = strrchr(real, '/');
	base = base ? base + 1 : real;
	snprintf(evidence, sizeof evidence, "the kernel runs %s, which presents itself as %s (%s)", real, told,
		 !strncmp(base, "qemu-", 5) ? "qemu-user emulation" : "user-mode emulation");
}

bool sp_user_emulation(char *how, size_t size)
{
	if (emulated < 0)
		detect();
	if (how && size)
		snprintf(how, size, "%s", evidence);
	return emulated == 1;
}
