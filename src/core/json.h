/* Small jansson helpers shared by the JSON writers (doctor report, lint). */
#ifndef SP_JSON_H
#define SP_JSON_H

#include <jansson.h>

/* A JSON string for s (NULL gives ""). json_string() refuses invalid UTF-8:
 * then a lossy copy with every byte >= 0x80 replaced by '?' is used. */
json_t *sp_json_str(const char *s);

/* A JSON array of the comma-separated items of csv ("" gives []). */
json_t *sp_json_csv_array(const char *csv);

#endif
