/* libFuzzer: the nftables ruleset judge (net.transparent.ruleset reads the
 * output of `nft -j list ruleset`, or a file the policy names) and the
 * reader of `nft -a list ruleset` text beside it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/nftrules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	sp_nft_policy pol;
	memset(&pol, 0, sizeof pol);
	snprintf(pol.allow[0].addr, sizeof pol.allow[0].addr, "10.0.0.1");
	pol.allow[0].port = 3128;
	pol.allow[0].proto = SP_NFT_TCP;
	snprintf(pol.allow[1].addr, sizeof pol.allow[1].addr, "::1");
	pol.nallow = 2;
	pol.redirect[0].proto = SP_NFT_TCP;
	pol.redirect[0].port = 443;
	pol.nredirect = 1;
	pol.need_v6 = size & 1;
	/* the same bytes as nft's text listing (what iptables-nft's xt rules mean) */
	pol.listing = (const char *)data;
	pol.listing_len = size;
	pol.allow[1].local = true;
	char line[300];
	if (sp_nft_listing_rule((const char *)data, size, "ip", "nat", "OUTPUT", 2, line, sizeof line) == 0 &&
	    strlen(line) >= sizeof line)
		abort();
	sp_nft_report rep;
	sp_outcome o = {0};
	if (sp_nft_judge((const char *)data, size, &pol, &rep, &o) == 0 && rep.accepts_ok > rep.accepts)
		abort();
	return 0;
}
