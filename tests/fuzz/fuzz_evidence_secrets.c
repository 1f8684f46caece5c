/* libFuzzer harness: the shared secret shapes and the timestamp parser.
 * Property: the writer's redaction of any text leaves nothing the
 * verifier's scan finds (a log soak wrote never fails logs.redacted); and
 * a parsed time is a real one. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evidence/evidence.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t rl;
	char *red = sp_secret_redact((const char *)data, size, &rl);
	unsigned line = 0;
	const char *name = NULL;
	size_t hits = 0;
	if (sp_secret_scan(red, rl, &line, &name, &hits) == 0 && hits)
		abort(); /* the writer left a secret the verifier sees */
	free(red);
	double ep;
	if (sp_ev_parse_iso8601((const char *)data, size, &ep) == 0 && (!isfinite(ep) || ep < 0))
		abort();
	return 0;
}
