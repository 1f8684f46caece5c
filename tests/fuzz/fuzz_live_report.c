/* libFuzzer: sandprobe live's validation of the doctor's report, the one
 * input a sandbox controls completely. The first byte picks the exit status
 * the marker claimed; the rest is the report. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "live/live.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static sp_live_cfg cfg;
	static int ready;
	if (!ready) {
		sp_strv_split(&cfg.ids, "ns.pid,ns.net,caps.effective,caps.bounding,seccomp.mode,fs.rootfs_readonly", ",");
		sp_strv_split(&cfg.run_ids, "ns.pid,caps.effective", ",");
		cfg.profile = "strict";
		ready = 1;
	}
	if (size == 0)
		return 0;
	sp_live_lane l;
	sp_lane_init(&l, &sp_rt_bwrap, &sp_variants[0], &cfg);
	sp_doctor_ingest(&l, (const char *)data + 1, size - 1, data[0] % 4);
	/* whatever was accepted must be well-formed results */
	for (size_t i = 0; i < l.results.n; i++)
		if (!l.results.v[i].id[0] || !l.results.v[i].expected || !l.results.v[i].observed || !l.results.v[i].detail)
			abort();
	sp_lane_free(&l);
	return 0;
}
