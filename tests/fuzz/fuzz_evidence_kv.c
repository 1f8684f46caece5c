/* libFuzzer harness: metadata.txt (key=value parser and the typed view). */
#include <stdint.h>

#include "evidence/evidence.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sp_ev_meta m;
	sp_error err;
	const char *kind;
	if (sp_meta_parse_buf(&m, (const char *)data, size, &err, &kind) == 0) {
		sp_ev_thresholds p;
		if (sp_profile_thresholds(m.profile, &p))
			sp_thresholds_stricter(&m.th, &p, &p);
	}
	sp_meta_free(&m);
	return 0;
}
