/* libFuzzer: containerd's gRPC reply bodies (length-prefixed protobuf
 * messages) as the live tier's teardown proof reads them, for each list kind:
 * the first byte picks the kind, the rest is the body. */
#include <stdint.h>
#include <string.h>

#include "live/ctrd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	sp_strv ids;
	sp_strv_split(&ids, NULL, ",");
	if (sp_ctrd_parse((enum sp_ctrd_kind)(data[0] % 3), data + 1, size - 1, &ids) == 0)
		for (size_t i = 0; i < ids.n; i++)
			if (!ids.v[i] || strlen(ids.v[i]) > size)
				__builtin_trap();
	sp_strv_free(&ids);
	return 0;
}
