/* The bundle harnesses' shared setup (bundle_files.h). */
#include "bundle_files.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sp_fuzz_put(const char *dir, const char *name, const uint8_t *p, size_t n)
{
	char path[160];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		abort();
	if (n && write(fd, p, n) != (ssize_t)n)
		abort();
	close(fd);
}

void sp_fuzz_split_files(const char *dir, const char *const *names, size_t nnames, const uint8_t *data, size_t size)
{
	static const char sep[] = "\n@@@@\n";
	size_t pos = 0;
	for (size_t i = 0; i < nnames; i++) {
		const uint8_t *end = NULL;
		if (pos <= size)
			end = memmem(data + pos, size - pos, sep, sizeof sep - 1);
		size_t n = end ? (size_t)(end - (data + pos)) + 1 : (pos <= size ? size - pos : 0);
		sp_fuzz_put(dir, names[i], data + pos, n);
		pos = end ? (size_t)(end - data) + sizeof sep - 1 : size + 1;
	}
}

void sp_fuzz_print_verdict(sp_ev_verdict *v)
{
	FILE *f = fopen("/dev/null", "w");
	if (f) {
		sp_verdict_print_json(v, f);
		sp_verdict_print_text(v, f);
		fclose(f);
	}
	sp_verdict_free(v);
}
