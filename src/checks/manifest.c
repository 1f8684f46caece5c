#include "checks/manifest.h"

#include <jansson.h>

#include "core/util.h"

int sp_manifest_load(const char *path, void **out, sp_error *err)
{
	json_error_t je;
	json_t *m = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!m)
		return sp_usage(err, "manifest %s:%d:%d: %s", path, je.line, je.column, je.text);
	if (!json_is_object(m)) {
		json_decref(m);
		return sp_usage(err, "manifest %s: top level must be a JSON object", path);
	}
	*out = m;
	return 0;
}

void sp_manifest_free(void *m)
{
	if (m)
		json_decref((json_t *)m);
}
