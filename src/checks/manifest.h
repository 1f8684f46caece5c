/* The injection manifest (--manifest FILE): env vars and files the host
 * injected into the sandbox, with the modes and owners they must have. */
#ifndef SP_MANIFEST_H
#define SP_MANIFEST_H

#include "core/error.h"

/* Parse and validate the manifest; usage error (exit 2) naming the file and
 * field when malformed. *out is opaque (json_t *). */
int sp_manifest_load(const char *path, void **out, sp_error *err);
void sp_manifest_free(void *m);

#endif
