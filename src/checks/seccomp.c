/* Seccomp and LSM. */
#include <errno.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "checks/probe.h"
#include "core/util.h"

static void run_mode(const sp_ctx *ctx, sp_result *r)
{
	bool must = sp_policy_bool(ctx->policy, "seccomp.required", true);
	sp_expected(r, "%s", must ? "seccomp filter mode (2) with at least one filter" : "any (not required by policy)");
	char mode[16], filters[16] = "";
	int e = sp_status_field("/proc/self/status", "Seccomp", mode, sizeof mode);
	if (e < 0) {
		sp_errorr(r, "cannot read Seccomp from /proc/self/status: %s", strerror(-e));
		return;
	}
	bool have_count = sp_status_field("/proc/self/status", "Seccomp_filters", filters, sizeof filters) == 0;
	int p = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	sp_observed(r, "Seccomp %s, Seccomp_filters %s, PR_GET_SECCOMP %d", mode, have_count ? filters : "(absent)", p);
	if (p >= 0 && (p == 2) != (strcmp(mode, "2") == 0)) {
		sp_errorr(r, "status and prctl disagree on the seccomp mode");
		return;
	}
	bool filtered = !strcmp(mode, "2") && (!have_count || strcmp(filters, "0") != 0);
	if (filtered)
		sp_pass(r, "seccomp filter in force (%s filter%s)", have_count ? filters : "some",
			have_count && !strcmp(filters, "1") ? "" : "s");
	else if (must)
		sp_failr(r, "no seccomp filter: every syscall reaches the kernel");
	else
		sp_pass(r, "no seccomp filter, not required by policy");
}

const sp_check sp_check_seccomp_mode = {
	.id = "seccomp.mode",
	.category = "seccomp",
	.title = "seccomp filter in force",
	.rationale = "a syscall filter removes kernel attack surface the sandbox does not need",
	.techniques = "T1611,T1068",
	.policy_keys = "seccomp.required:bool",
	.method = "read",
	.run = run_mode,
	.flags = SP_CHECK_INPROCESS,
};
