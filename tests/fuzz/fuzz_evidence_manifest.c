/* libFuzzer harness: MANIFEST (sha256sum format) and MANIFEST.sig (base64
 * Ed25519 signature checked against a fixed key). */
#include <openssl/evp.h>
#include <stdint.h>
#include <string.h>

#include "evidence/evidence.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static EVP_PKEY *key;
	sp_error err;
	if (!key) {
		static const unsigned char pub[32] = {0x3d, 0x40, 0x17, 0xc3, 0xe8, 0x43, 0x89, 0x5a, 0x92, 0xb7, 0x0a,
						      0xa7, 0x4d, 0x1b, 0x7e, 0xbc, 0x9c, 0x98, 0x2c, 0xcf, 0x2e, 0xc4,
						      0x96, 0x8c, 0xc0, 0xcd, 0x55, 0xf1, 0x2a, 0xf4, 0x66, 0x0c};
		key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub, sizeof pub);
	}
	sp_ev_manifest m;
	if (sp_ev_manifest_parse(&m, (const char *)data, size, &err) == 0)
		sp_ev_manifest_free(&m);
	/* the last line, if any, as a signature of everything before it */
	const uint8_t *nl = size ? memchr(data, '\n', size) : NULL;
	if (key && nl)
		(void)sp_sig_verify(key, nl + 1, size - (size_t)(nl + 1 - data), (const char *)data,
				    (size_t)(nl - data) + 1, &err);
	return 0;
}
