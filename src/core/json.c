/* Small jansson helpers shared by the JSON writers (doctor report, lint). */
#include "core/json.h"
#include "core/util.h"

json_t *sp_json_str(const char *s)
{
	json_t *j = json_string(s ? s : "");
	if (j)
		return j;
	_cleanup_free_ char *copy = sp_xstrdup(s);
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	return json_string(copy);
}

json_t *sp_json_csv_array(const char *csv)
{
	json_t *a = json_array();
	sp_strv v;
	sp_strv_split(&v, csv, ",");
	for (size_t i = 0; i < v.n; i++)
		json_array_append_new(a, json_string(v.v[i]));
	sp_strv_free(&v);
	return a;
}
