/* The table of runtime adapters (live/list_runtimes.h), in the order the
 * matrix shows them. */
#include <string.h>

#include "live/live.h"

const sp_live_runtime *const sp_runtimes[SP_RTID_COUNT] = {
#define SP_RT(sym) [SP_RTID_##sym] = &sp_rt_##sym,
#include "live/list_runtimes.h"
#undef SP_RT
};
const size_t sp_runtimes_count = SP_ARRAY_SIZE(sp_runtimes);

const sp_live_runtime *sp_runtime_find(const char *name)
{
	for (size_t i = 0; i < sp_runtimes_count; i++)
		if (!strcmp(sp_runtimes[i]->name, name))
			return sp_runtimes[i];
	return NULL;
}
