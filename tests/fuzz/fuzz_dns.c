/* libFuzzer: the DNS reply parser (net.dns.*, net.lookup, net.listening and
 * net.transparent read what a resolver sends with it), under the query id
 * the first two bytes carry and under one it does not. */
#include <stdint.h>
#include <string.h>

#include "checks/net_probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sp_dns_answer a;
	uint16_t id = size >= 2 ? (uint16_t)(data[0] << 8 | data[1]) : 0;
	if (sp_dns_parse_reply(data, size, id, &a) == 0) {
		for (unsigned i = 0; i < a.nanswers && i < 4; i++)
			if (strlen(a.addrs[i]) >= sizeof a.addrs[i])
				__builtin_trap();
	}
	(void)sp_dns_parse_reply(data, size, (uint16_t)(id + 1), &a);
	uint8_t q[300];
	(void)sp_dns_build_query(q, sizeof q, id, size ? "a.example" : "b", 1);
	return 0;
}
