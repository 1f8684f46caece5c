/* Privileges: capability sets and NoNewPrivs. Each value is read from two
 * sources (/proc/self/status and the syscall) which must agree, and the
 * effective set is proven by the operation one capability guards. */
#include <errno.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "checks/probe.h"
#include "core/util.h"

static int status_caps(const char *field, uint64_t *out, sp_result *r)
{
	char v[64];
	int e = sp_status_field("/proc/self/status", field, v, sizeof v);
	if (e < 0) {
		sp_errorr(r, "cannot read %s from /proc/self/status: %s", field, strerror(-e));
		return -1;
	}
	if (sp_caps_parse(v, out) < 0) {
		sp_errorr(r, "unparseable %s '%s'", field, v);
		return -1;
	}
	return 0;
}

static int policy_mask(const sp_ctx *ctx, const char *key, uint64_t *out)
{
	sp_strv names;
	const char *bad;
	sp_policy_list(ctx->policy, key, &names);
	int r = sp_caps_mask(names.v, names.n, out, &bad);
	sp_strv_free(&names);
	return r;
}

static void run_effective(const sp_ctx *ctx, sp_result *r)
{
	uint64_t eff, allowed = 0;
	if (status_caps("CapEff", &eff, r) < 0)
		return;
	policy_mask(ctx, "caps.effective", &allowed);
	char buf[1024];
	sp_caps_format(allowed, buf, sizeof buf);
	sp_expected(r, "effective capabilities within: %s", buf);
	sp_caps_format(eff, buf, sizeof buf);
	sp_observed(r, "CapEff %016llx (%s)", (unsigned long long)eff, buf);

	/* second source: capget(2) */
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct data[2];
	memset(data, 0, sizeof data);
	if (syscall(SYS_capget, &hdr, data) < 0) {
		sp_errorr(r, "capget failed: %s", strerror(errno));
		return;
	}
	uint64_t eff2 = (uint64_t)data[0].effective | ((uint64_t)data[1].effective << 32);
	if (eff2 != eff) {
		sp_errorr(r, "/proc/self/status (%016llx) and capget (%016llx) disagree", (unsigned long long)eff,
			  (unsigned long long)eff2);
		return;
	}
	/* action: CAP_NET_RAW guards raw sockets */
	bool has_raw = eff & (1ull << CAP_NET_RAW);
	int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
	int e = errno;
	if (fd >= 0)
		close(fd);
	if (fd >= 0)
		sp_observed_add(r, "raw socket opened");
	else
		sp_observed_add(r, "raw socket refused (%s)", strerror(e));
	if (!has_raw && fd >= 0) {
		sp_failr(r, "CapEff lacks cap_net_raw but a raw socket opened: the capability view is wrong");
		return;
	}
	uint64_t extra = eff & ~allowed;
	if (extra) {
		sp_caps_format(extra, buf, sizeof buf);
		sp_failr(r, "capabilities beyond policy: %s", buf);
	} else {
		sp_pass(r, "effective set within policy (%s)", eff ? "non-empty" : "empty");
	}
}

static void run_bounding(const sp_ctx *ctx, sp_result *r)
{
	uint64_t bnd, allowed = 0;
	if (status_caps("CapBnd", &bnd, r) < 0)
		return;
	const char *key = sp_policy_get(ctx->policy, "caps.bounding") ? "caps.bounding" : "caps.effective";
	policy_mask(ctx, key, &allowed);
	char buf[1024];
	sp_caps_format(allowed, buf, sizeof buf);
	sp_expected(r, "bounding set within: %s", buf);
	sp_caps_format(bnd, buf, sizeof buf);
	sp_observed(r, "CapBnd %016llx (%s)", (unsigned long long)bnd, buf);
	/* second source: PR_CAPBSET_READ for every capability the kernel knows */
	uint64_t bnd2 = 0;
	unsigned last = sp_cap_last();
	for (unsigned c = 0; c <= last; c++) {
		int v = prctl(PR_CAPBSET_READ, c, 0, 0, 0);
		if (v < 0) {
			sp_errorr(r, "PR_CAPBSET_READ(%u) failed: %s", c, strerror(errno));
			return;
		}
		if (v)
			bnd2 |= 1ull << c;
	}
	if (bnd2 != bnd) {
		sp_errorr(r, "/proc/self/status (%016llx) and PR_CAPBSET_READ (%016llx) disagree",
			  (unsigned long long)bnd, (unsigned long long)bnd2);
		return;
	}
	uint64_t extra = bnd & ~allowed;
	if (extra) {
		sp_caps_format(extra, buf, sizeof buf);
		sp_failr(r, "bounding set beyond policy: %s", buf);
	} else {
		sp_pass(r, "bounding set within policy");
	}
}

static void run_nnp(const sp_ctx *ctx, sp_result *r)
{
	bool must = sp_policy_bool(ctx->policy, "priv.no_new_privs", true);
	sp_expected(r, "%s", must ? "NoNewPrivs set" : "any (not required by policy)");
	char v[16];
	int e = sp_status_field("/proc/self/status", "NoNewPrivs", v, sizeof v);
	if (e < 0) {
		sp_errorr(r, "cannot read NoNewPrivs: %s", strerror(-e));
		return;
	}
	int p = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	if (p < 0) {
		sp_errorr(r, "PR_GET_NO_NEW_PRIVS failed: %s", strerror(errno));
		return;
	}
	sp_observed(r, "NoNewPrivs %s in status, %d from prctl", v, p);
	if ((strcmp(v, "1") == 0) != (p == 1)) {
		sp_errorr(r, "status and prctl disagree");
		return;
	}
	if (p == 1)
		sp_pass(r, "no_new_privs set: setuid and file capabilities cannot raise privileges");
	else if (must)
		sp_failr(r, "no_new_privs not set: a setuid binary could raise privileges");
	else
		sp_pass(r, "no_new_privs not set, not required by policy");
}

const sp_check sp_check_caps_effective = {
	.id = "caps.effective",
	.category = "privileges",
	.title = "effective capabilities within policy",
	.rationale = "every capability is a kernel privilege the sandbox can use against its host",
	.techniques = "T1611,T1068",
	.policy_keys = "caps.effective:caps",
	.method = "action",
	.run = run_effective,
};

const sp_check sp_check_caps_bounding = {
	.id = "caps.bounding",
	.category = "privileges",
	.title = "bounding capability set within policy",
	.rationale = "the bounding set caps what exec of a privileged file can regain",
	.techniques = "T1611,T1548",
	.policy_keys = "caps.bounding:caps",
	.method = "read",
	.run = run_bounding,
};

const sp_check sp_check_priv_no_new_privs = {
	.id = "priv.no_new_privs",
	.category = "privileges",
	.title = "NoNewPrivs set",
	.rationale = "without no_new_privs, setuid binaries and file capabilities raise privileges",
	.techniques = "T1548.001,T1068",
	.policy_keys = "priv.no_new_privs:bool",
	.method = "read",
	.run = run_nnp,
	.flags = SP_CHECK_INPROCESS,
};
