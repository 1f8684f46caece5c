/* libFuzzer harness: the streaming TSV reader and the typed row parsers of
 * every evidence TSV file. The first input byte picks the file kind; the
 * rest is the file. */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "evidence/evidence.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	enum sp_ev_file kind = (enum sp_ev_file)(data[0] % SP_EV_NFILES);
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size > 1 && write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
		close(fd);
		return 0;
	}
	lseek(fd, 0, SEEK_SET);
	sp_ev_rows r;
	sp_ev_sha256 h = {0};
	if (sp_rows_open_fd(&r, fd, kind, &h) < 0)
		return 0;
	int rc;
	for (;;) {
		switch (kind) {
		case SP_EV_OPERATIONS: { sp_ev_op x; rc = sp_ops_next(&r, &x); break; }
		case SP_EV_LATENCY: { sp_ev_lat x; rc = sp_latency_next(&r, &x); break; }
		case SP_EV_SAMPLES: { sp_ev_sample x; rc = sp_samples_next(&r, &x); break; }
		case SP_EV_CAPABILITIES: { sp_ev_cap x; rc = sp_caps_next(&r, &x); break; }
		case SP_EV_FAULTS: { sp_ev_fault x; rc = sp_faults_next(&r, &x); break; }
		case SP_EV_NFILES:
		default: rc = 0; break;
		}
		if (rc <= 0)
			break;
	}
	sp_rows_close(&r);
	sp_ev_sha256_free(&h);
	return 0;
}
