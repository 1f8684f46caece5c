/* SHA-256 for the code the static doctor carries (the doctor bundle's
 * MANIFEST, injection.env's comparison, certificate fingerprints). It is
 * mbedTLS's, the library the doctor's TLS probes use, so the doctor links no
 * libcrypto; the host verbs hash evidence with OpenSSL (src/evidence/). */
#ifndef SP_SHA256_H
#define SP_SHA256_H

#include <stddef.h>

void sp_sha256(const void *data, size_t len, unsigned char md[32]);
/* 64 lowercase hex digits and a NUL */
void sp_sha256_hex(const void *data, size_t len, char out[65]);

#endif
