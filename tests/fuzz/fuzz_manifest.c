/* libFuzzer: the injection manifest (--manifest FILE, JSON validated field by
 * field) and its octal mode parser. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "checks/manifest.h"
#include "core/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	if (fd < 0 && (fd = memfd_create("fuzz-manifest", MFD_CLOEXEC)) < 0)
		abort();
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	void *m = NULL;
	sp_error err = {0};
	if (sp_manifest_load(path, &m, &err) == 0)
		sp_manifest_free(m);
	/* the same bytes as a mode string */
	char mode[32];
	size_t n = size < sizeof mode - 1 ? size : sizeof mode - 1;
	memcpy(mode, data, n);
	mode[n] = '\0';
	unsigned bits;
	if (sp_manifest_parse_mode(mode, &bits) == 0 && bits > 07777)
		abort();
	return 0;
}
