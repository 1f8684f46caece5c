/* The identity a soak run records for the release gate (docs/plan-format.md):
 * `sandprobe soak --lane ID --artifact NAME=FILE|NAME=sha256:HEX`. A file is
 * hashed (SHA-256) when the run is set up; a literal digest (an image digest
 * the runtime resolved) is recorded as given. Validated before anything
 * starts: a bad lane id, artifact name or unreadable file is a usage error. */
#ifndef SP_GATE_IDENTITY_H
#define SP_GATE_IDENTITY_H

#include <stddef.h>

#include "core/error.h"

typedef struct sp_gate_identity {
	char **key, **value; /* "lane", "artifact.<name>" */
	size_t n;
} sp_gate_identity;

/* lane may be NULL; artifacts are the --artifact values. 0, or -1 with a
 * usage error naming the flag. */
int sp_identity_build(sp_gate_identity *id, const char *lane, char *const *artifacts, size_t nartifacts, sp_error *err);
void sp_identity_free(sp_gate_identity *id);

#endif
