/* The isolation catalogue as data: every check is fully described, ids are
 * unique and stable, the ids the CLI contract names (sandprobe-checks(7)) exist, every policy key a
 * check reads is set by each shipped profile, and the seccomp/capability
 * helpers classify as documented. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks/probe.h"
#include "checks/registry.h"
#include "checks/runtime.h"
#include "core/check.h"
#include "core/policy.h"
#include "core/runner.h"
#include "core/util.h"
#include "tap.h"

static const char *const isolation[] = {"namespaces", "processes", "privileges", "seccomp",
					"filesystem", "kernel",	   "devices",	 "cgroups"};

static bool is_isolation(const char *cat)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(isolation); i++)
		if (!strcmp(cat, isolation[i]))
			return true;
	return false;
}

static long child_pid(void *arg)
{
	(void)arg;
	return (long)getpid();
}

/* a probe sequence: probe 1 is killed by a signal, probe 3 hangs past the
 * bound, the others report the pid of the child they ran in */
struct seq_log {
	long pid[5];
	bool got[5];
	int lost_sig[5];
	bool lost[5], lost_to[5];
	size_t stop_at; /* lost() says stop at this probe */
};

static void seq_run(size_t i, void *rec, void *arg)
{
	(void)arg;
	if (i == 1)
		raise(SIGUSR1);
	if (i == 3)
		pause();
	long pid = getpid();
	memcpy(rec, &pid, sizeof pid);
}

static void seq_got(size_t i, const void *rec, void *arg)
{
	struct seq_log *l = arg;
	memcpy(&l->pid[i], rec, sizeof l->pid[i]);
	l->got[i] = true;
}

static bool seq_lost(size_t i, int sig, bool timed_out, void *arg)
{
	struct seq_log *l = arg;
	l->lost[i] = true;
	l->lost_sig[i] = sig;
	l->lost_to[i] = timed_out;
	return i != l->stop_at;
}

int main(void)
{
	size_t n = 0, described = 0, techniques_ok = 0, unique = 1;
	for (size_t i = 0; i < sp_checks_count; i++) {
		const sp_check *c = sp_checks[i];
		if (!is_isolation(c->category))
			continue;
		n++;
		described += c->id && *c->id && c->title && *c->title && c->rationale && *c->rationale && c->run &&
			     c->method && (!strcmp(c->method, "action") || !strcmp(c->method, "read"));
		/* technique ids: AML.Tdddd or Tdddd[.ddd], comma-separated */
		bool ok = true;
		sp_strv t;
		sp_strv_split(&t, c->techniques, ",");
		for (size_t k = 0; k < t.n; k++) {
			const char *s = t.v[k];
			if (sp_startswith(s, "AML."))
				s += 4;
			ok &= s[0] == 'T' && strlen(s) >= 5 && strspn(s + 1, "0123456789.") == strlen(s + 1);
		}
		sp_strv_free(&t);
		techniques_ok += ok;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(sp_checks[j]->id, c->id))
				unique = 0;
	}
	ok(n >= 100, "the isolation catalogue has %zu checks (at least 100)", n);
	is_int(described, n, "every isolation check has id, title, rationale, method and run");
	is_int(techniques_ok, n, "technique ids are well-formed");
	ok(unique, "check ids are unique");

	static const char *const required[] = {"ns.pid", "ns.net", "ns.mnt", "ns.uts", "ns.ipc", "ns.cgroup", "ns.user",
					       "proc.host_visible", "caps.effective", "caps.bounding", "priv.no_new_privs",
					       "priv.setuid_files", "seccomp.mode", "fs.rootfs_readonly",
					       "fs.writable_paths", "kernel.modules", "kernel.kallsyms", "dev.host_devices"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(required); i++)
		ok(sp_check_find(required[i]) != NULL, "required id %s exists", required[i]);

	/* every key a check reads is stated by every shipped profile */
	static const char *const profiles[] = {"strict", "container", "host"};
	for (size_t p = 0; p < SP_ARRAY_SIZE(profiles); p++) {
		sp_policy pol;
		sp_error err;
		sp_policy_init(&pol, &sp_doctor_registry);
		if (sp_policy_load_profile(&pol, profiles[p], &err) < 0) {
			ok(0, "profile %s loads: %s", profiles[p], err.msg);
			continue;
		}
		size_t missing = 0;
		char first[128] = "";
		for (size_t i = 0; i < sp_checks_count; i++) {
			if (!is_isolation(sp_checks[i]->category))
				continue;
			sp_strv keys;
			sp_strv_split(&keys, sp_checks[i]->policy_keys, ",");
			for (size_t k = 0; k < keys.n; k++) {
				char *colon = strchr(keys.v[k], ':');
				if (colon)
					*colon = '\0';
				if (!sp_policy_get(&pol, keys.v[k]) && !missing++)
					snprintf(first, sizeof first, "%s", keys.v[k]);
			}
			sp_strv_free(&keys);
		}
		is_int(missing, 0, "profile %s states every isolation policy key%s%s", profiles[p],
		       missing ? ", first missing: " : "", first);
		/* host: everything advisory */
		if (!strcmp(profiles[p], "host"))
			is_int(sp_policy_expect(&pol, "kernel.modules"), SP_EXPECT_ADVISORY, "host profile is advisory");
		else
			is_int(sp_policy_expect(&pol, "priv.setuid_files"), SP_EXPECT_REQUIRED,
			       "%s requires priv.setuid_files", profiles[p]);
		sp_policy_free(&pol);
	}

	/* a bounded child reports its return value, errno and a kill */
	sp_call c;
	is_int(sp_child_call(child_pid, NULL, 1000, &c), 0, "sp_child_call runs");
	ok(c.ran && c.ret > 0 && c.ret != (long)getpid() && !c.sig, "the child's return value comes back");
	is_str(sp_errname(1), "EPERM", "errno names");

	/* a probe sequence resumes after the probe that killed or hung its child */
	struct seq_log lg = {.stop_at = 99};
	sp_probe_seq seq = {.n = 5,
			    .rec_size = sizeof(long),
			    .timeout_ms = 300,
			    .run = seq_run,
			    .got = seq_got,
			    .lost = seq_lost,
			    .arg = &lg};
	sp_outcome so = {0};
	is_int(sp_probe_seq_run(&seq, &so), 0, "probe sequence runs");
	ok(lg.got[0] && lg.got[2] && lg.got[4] && !lg.got[1] && !lg.got[3], "the probes that finished report");
	ok(lg.lost[1] && lg.lost_sig[1] == SIGUSR1 && !lg.lost_to[1], "probe 1: its killing signal, not a timeout");
	ok(lg.lost[3] && lg.lost_sig[3] == 0 && lg.lost_to[3], "probe 3: timed out");
	ok(!lg.lost[0] && !lg.lost[2] && !lg.lost[4], "no finished probe is lost");
	ok(lg.pid[0] > 0 && lg.pid[0] != lg.pid[2] && lg.pid[2] != lg.pid[4] && lg.pid[0] != (long)getpid(),
	   "each resumption runs in a new child");
	struct seq_log st = {.stop_at = 1};
	seq.arg = &st;
	is_int(sp_probe_seq_run(&seq, &so), 0, "probe sequence runs (stopping)");
	ok(st.got[0] && st.lost[1] && !st.got[2] && !st.lost[2] && !st.got[4], "lost() returning false stops it");
	seq.rec_size = SP_PROBE_SEQ_REC_MAX + 1;
	is_int(sp_probe_seq_run(&seq, &so), -1, "a record too large is refused");
	is_int(so.errnum, EINVAL, "EINVAL");

	/* the scan finds nothing in an empty tree and counts what it walks */
	sp_scan_result *res = sp_xcalloc(1, sizeof *res);
	char *const roots[] = {"/proc/self/fdinfo"};
	sp_scan_opts o = {.roots = roots, .nroots = 1, .budget_ns = 1000000000ull, .threads = 2, .all_mounts = true};
	is_int(sp_suid_scan(&o, res), 0, "scan runs");
	is_int(res->suid + res->sgid + res->fcap, 0, "no setuid file in /proc/self/fdinfo");
	free(res);
	return done_testing();
}
