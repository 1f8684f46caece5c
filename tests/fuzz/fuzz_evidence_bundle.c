/* libFuzzer harness: the whole verdict (sp_verify) on a bundle whose files
 * come from the input, split at lines "@@@@" in this order: metadata.txt,
 * operations.tsv, latency.tsv, resource-samples.tsv, capability-results.tsv,
 * faults.tsv, inventory-start.json, inventory-final.json, summary.json,
 * MANIFEST. Exercises the gates' arithmetic on hostile values. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evidence/evidence.h"

static const char *const names[] = {"metadata.txt", "operations.tsv", "latency.tsv", "resource-samples.tsv",
				    "capability-results.tsv", "faults.tsv", "inventory-start.json",
				    "inventory-final.json", "summary.json", "MANIFEST"};
#define NFILES (sizeof names / sizeof names[0])

static char dir[64];

static void put(const char *name, const uint8_t *p, size_t n)
{
	char path[128];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		abort();
	if (n && write(fd, p, n) != (ssize_t)n)
		abort();
	close(fd);
}

static void cleanup(void)
{
	char path[128];
	for (size_t i = 0; i < NFILES; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		unlink(path);
	}
	snprintf(path, sizeof path, "%s/logs", dir);
	rmdir(path);
	rmdir(dir);
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
	static const char sep[] = "\n@@@@\n";
	size_t pos = 0;
	for (size_t i = 0; i < NFILES; i++) {
		const uint8_t *end = NULL;
		if (pos <= size)
			end = memmem(data + pos, size - pos, sep, sizeof sep - 1);
		size_t n = end ? (size_t)(end - (data + pos)) + 1 : (pos <= size ? size - pos : 0);
		put(names[i], data + pos, n);
		pos = end ? (size_t)(end - data) + sizeof sep - 1 : size + 1;
	}
	sp_ev_verify_opts o = {0};
	sp_ev_baseline b = {0};
	sp_ev_baseline_entry e = {.scenario = (char *)"RUN-01", .count = 1, .p50 = 1, .p95 = 2, .p99 = 3};
	b.v = &e;
	b.n = 1;
	if (size && (data[size - 1] & 1))
		o.baseline = &b;
	sp_ev_verdict v;
	sp_error err = {0};
	if (sp_verify(dir, &o, &v, &err) == 0) {
		FILE *f = fopen("/dev/null", "w");
		if (f) {
			sp_verdict_print_json(&v, f);
			sp_verdict_print_text(&v, f);
			fclose(f);
		}
		sp_verdict_free(&v);
	}
	return 0;
}
