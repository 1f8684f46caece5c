/* libFuzzer harness: the A3S judge (sp_a3s_verify) and the importer
 * (sp_a3s_import) on a bundle whose files come from the input, split at
 * lines "@@@@" in the order of names[] below; the last byte picks the kind
 * and the gate flags. Every other cluster artifact is a one-line file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "a3s/a3s.h"
#include "core/fsutil.h"
#include "lib/bundle_files.h"

static const char *const names[] = {"metadata.txt",	     "summary.txt",	     "resource-samples.tsv",
				    "runtimeclass.yaml",     "final-pod-statuses.tsv", "final-pod-nodes.tsv",
				    "final-pod-runtimeclasses.tsv", "selected-node-names.txt", "selected-node-labels.tsv",
				    "smoke-exec.txt",	     "complex-exec.txt",     "job-pod-statuses.tsv",
				    "job-logs.txt",	     "post-cleanup-counts.tsv", "events.tsv"};
#define NFILES (sizeof names / sizeof names[0])
static const char *const fixed[] = {"selected-nodes.txt", "final-get-all.txt", "final-pods.yaml", "events.txt",
				    "describe-pods.txt", "complex-logs.txt", "job.yaml", "job-runtimeclass.txt",
				    "job-pods.txt", "post-cleanup-namespace.txt", "post-cleanup-get-all.txt",
				    "start-cli-snapshot.txt", "final-cli-snapshot.txt", "iteration-1-cli-snapshot.txt",
				    "iteration-1-core.log"};

static char dir[64], out[80];

static void cleanup(void)
{
	sp_rm_rf(out);
	sp_rm_rf(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/sp-fuzz-a3s.%d", (int)getpid());
		snprintf(out, sizeof out, "/tmp/sp-fuzz-a3s-out.%d", (int)getpid());
		mkdir(dir, 0700);
		for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
			sp_fuzz_put(dir, fixed[i], (const uint8_t *)"a3s-box x\n", 10);
		atexit(cleanup);
	}
	sp_fuzz_split_files(dir, names, NFILES, data, size);
	unsigned last = size ? data[size - 1] : 0;
	sp_ev_a3s_opts ao = {.kind = (enum sp_a3s_kind)(last % 3), .allow_dry_run = (last >> 2) & 1,
			  .min_duration_s = (last >> 3) & 1 ? 60 : 0, .min_samples = (last >> 4) & 1 ? 3 : 0,
			  .min_span_s = (last >> 5) & 1 ? 60 : 0, .max_gap_s = (last >> 6) & 1 ? 600 : 0};
	sp_ev_verify_opts o = {.input = SP_INPUT_A3S, .a3s = &ao, .profile = (last >> 7) & 1 ? "G2" : NULL};
	sp_ev_verdict v;
	sp_error err = {0};
	if (sp_verify(dir, &o, &v, &err) == 0)
		sp_fuzz_print_verdict(&v);
	/* the importer on the same bundle; then its output through the
	 * sandprobe verifier */
	sp_rm_rf(out);
	sp_error ierr = {0};
	if (sp_a3s_import(dir, out, (enum sp_a3s_kind)(last % 3), &ierr) == 0) {
		sp_ev_verify_opts so = {.input = SP_INPUT_SANDPROBE};
		if (sp_verify(out, &so, &v, &err) == 0)
			sp_verdict_free(&v);
	}
	return 0;
}
