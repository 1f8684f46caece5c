/* libFuzzer harness: the whole verdict (sp_verify) on a bundle whose files
 * come from the input, split at lines "@@@@" in this order: metadata.txt,
 * operations.tsv, latency.tsv, resource-samples.tsv, capability-results.tsv,
 * faults.tsv, inventory-start.json, inventory-final.json, summary.json,
 * MANIFEST. Exercises the gates' arithmetic on hostile values. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fsutil.h"
#include "evidence/evidence.h"
#include "lib/bundle_files.h"

static const char *const names[] = {"metadata.txt", "operations.tsv", "latency.tsv", "resource-samples.tsv",
				    "capability-results.tsv", "faults.tsv", "inventory-start.json",
				    "inventory-final.json", "summary.json", "MANIFEST"};
#define NFILES (sizeof names / sizeof names[0])

static char dir[64];

static void cleanup(void)
{
	sp_rm_rf(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/sp-fuzz-bundle.%d", (int)getpid());
		mkdir(dir, 0700);
		char logs[96];
		snprintf(logs, sizeof logs, "%s/logs", dir);
		mkdir(logs, 0700);
		atexit(cleanup);
	}
	sp_fuzz_split_files(dir, names, NFILES, data, size);
	sp_ev_verify_opts o = {0};
	sp_ev_baseline b = {0};
	sp_ev_baseline_entry e = {.scenario = (char *)"RUN-01", .count = 1, .p50 = 1, .p95 = 2, .p99 = 3};
	b.v = &e;
	b.n = 1;
	if (size && (data[size - 1] & 1))
		o.baseline = &b;
	sp_ev_verdict v;
	sp_error err = {0};
	if (sp_verify(dir, &o, &v, &err) == 0)
		sp_fuzz_print_verdict(&v);
	return 0;
}
