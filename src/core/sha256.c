/* SHA-256 through mbedTLS (see sha256.h) */
#include "core/sha256.h"

#include <mbedtls/sha256.h>
#include <string.h>

void sp_sha256(const void *data, size_t len, unsigned char md[32])
{
	if (mbedtls_sha256_ret(data, len, md, 0) != 0)
		memset(md, 0, 32);
}

void sp_sha256_hex(const void *data, size_t len, char out[65])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char md[32];
	sp_sha256(data, len, md);
	for (size_t i = 0; i < 32; i++) {
		out[2 * i] = digits[md[i] >> 4];
		out[2 * i + 1] = digits[md[i] & 15];
	}
	out[64] = '\0';
}
