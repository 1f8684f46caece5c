/* The injection manifest (--manifest FILE): env vars and files the host
 * injected into the sandbox, with the modes and owners they must have. The
 * schema is documented at the top of src/checks/manifest.c. */
#ifndef SP_MANIFEST_H
#define SP_MANIFEST_H

#include "core/error.h"

/* Parse and validate the manifest; usage error (exit 2) naming the file and
 * field when malformed. *out is opaque (json_t *). */
int sp_manifest_load(const char *path, void **out, sp_error *err);
void sp_manifest_free(void *m);
/* "0640" / "640" / "1777" -> permission bits; 0, or -1 when not octal <= 07777 */
int sp_manifest_parse_mode(const char *s, unsigned *out);

#endif
