/* Run the verifier as a separate process (`PROG verify DIR --format json`,
 * PROG = /proc/self/exe, or $SANDPROBE_VERIFY for tests) and read its
 * sandprobe.verify.v1 verdict. A verifier that is missing, crashes, times
 * out or prints something else is "unavailable" with a reason: the report
 * renders without the gate table, it never fails because of it. */
#ifndef SP_REPORT_VERIFIER_H
#define SP_REPORT_VERIFIER_H

#include <stddef.h>

typedef struct rp_gate {
	char *id, *status, *measured, *threshold, *message;
} rp_gate;

typedef struct rp_verdict {
	int available;     /* 1: gates and result below are valid */
	char reason[512];  /* why not, when unavailable */
	int exit_code;
	char *result;      /* "pass" | "fail" */
	rp_gate *gates;
	size_t ngates;
	long long npass, nfail;
} rp_verdict;

void rp_verify_run(const char *dir, unsigned timeout_s, rp_verdict *v);
/* parse verifier output (exposed for unit tests); 0, or -1 with v->reason */
int rp_verdict_parse(const char *json, size_t len, rp_verdict *v);
void rp_verdict_free(rp_verdict *v);

#endif
