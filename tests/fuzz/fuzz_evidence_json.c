/* libFuzzer harness: the JSON documents of a bundle (inventories, summary,
 * summary as report draws it). The first byte picks the parser. */
#include <stdint.h>

#include "evidence/evidence.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sp_error e;
	if (size < 1)
		return 0;
	const char *doc = (const char *)data + 1;
	if (data[0] & 1) {
		sp_ev_summary s;
		if ((data[0] & 2 ? sp_ev_summary_parse_drawn : sp_ev_summary_parse)(&s, doc, size - 1, &e) == 0)
			sp_ev_summary_free(&s);
	} else {
		sp_ev_inventory a;
		if (sp_inventory_parse(&a, doc, size - 1, &e) == 0) {
			(void)sp_inventory_equal(&a, &a, &e);
			sp_inventory_free(&a);
		}
	}
	return 0;
}
