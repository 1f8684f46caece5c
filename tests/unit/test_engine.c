/* The runner: isolation of probes (crash, hang), expectations from the
 * policy (advisory, off), --strict, -x, and the summary it computes. */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "checks/registry.h"
#include "checks/runtime.h"
#include "core/runner.h"
#include "core/util.h"
#include "tap.h"

static void run_pass(const sp_ctx *c, sp_result *r) { (void)c; sp_pass(r, "fine"); }
static void run_fail(const sp_ctx *c, sp_result *r) { (void)c; sp_expected(r, "x"); sp_observed(r, "y"); sp_failr(r, "bad"); }
static void run_skip(const sp_ctx *c, sp_result *r) { (void)c; sp_skip(r, "nothing to do"); }
/* SIGILL: sanitizers leave it alone, so the runner sees the raw signal */
static void run_crash(const sp_ctx *c, sp_result *r) { (void)c; (void)r; raise(SIGILL); }
static void run_hang(const sp_ctx *c, sp_result *r) { (void)c; (void)r; for (;;) pause(); }
static void run_silent(const sp_ctx *c, sp_result *r) { (void)c; (void)r; _exit(0); }
static void run_spawn(const sp_ctx *c, sp_result *r)
{
	(void)c;
	/* a grandchild that would outlive the probe: the runner must kill it */
	pid_t p = fork();
	if (p == 0) {
		for (;;)
			pause();
	}
	FILE *f = fopen("/tmp/sandprobe-unit-spawn.pid", "w");
	if (f) {
		fprintf(f, "%d\n", (int)p);
		fclose(f);
	}
	sp_pass(r, "spawned %d", (int)p);
}
static bool unsupported(const sp_ctx *c, sp_outcome *o)
{
	(void)c;
	sp_why(o, "no such thing here");
	return false;
}

#define CHECK(name, fn, ...) {.id = name, .category = "unit", .title = name, .rationale = "", .techniques = "", .policy_keys = "", .run = fn, __VA_ARGS__}
static const sp_check c_pass = CHECK("u.pass", run_pass);
static const sp_check c_pass_inproc = CHECK("u.inproc", run_pass, .flags = SP_CHECK_INPROCESS);
static const sp_check c_fail = CHECK("u.fail", run_fail);
static const sp_check c_skip = CHECK("u.skip", run_skip);
static const sp_check c_crash = CHECK("u.crash", run_crash);
static const sp_check c_hang = CHECK("u.hang", run_hang, .timeout_ms = 150);
static const sp_check c_silent = CHECK("u.silent", run_silent);
static const sp_check c_unsup = CHECK("u.unsup", run_pass, .supported = unsupported);
static const sp_check c_spawn = CHECK("u.spawn", run_spawn);

/* a declared batch: run() leaves state that each member collects */
static int batch_state, batch_runs;
static void b_prepare(const sp_ctx *c) { (void)c; batch_state = 1; }
static void b_run(const sp_ctx *c) { (void)c; batch_state *= 42; batch_runs++; }
static void m_collect(const sp_ctx *c, sp_result *r)
{
	(void)c;
	if (batch_state == 42)
		sp_pass(r, "collected %d (pid %d)", batch_state, (int)getpid());
	else
		sp_failr(r, "state %d", batch_state);
}
static const sp_batch b_ok = {.id = "u.batch", .prepare = b_prepare, .run = b_run};
static const sp_batch b_slow = {.id = "u.slowbatch", .timeout_ms = 300, .prepare = b_prepare, .run = b_run};
#define MEMBER(name, fn, b) CHECK(name, fn, .batch = &b)
static const sp_check m1 = MEMBER("u.m1", m_collect, b_ok);
static const sp_check m2 = MEMBER("u.m2", run_crash, b_ok);
static const sp_check m3 = MEMBER("u.m3", m_collect, b_ok);
static const sp_check m4 = MEMBER("u.m4", run_skip, b_ok);
static const sp_check s1 = MEMBER("u.s1", m_collect, b_slow);
static const sp_check s2 = MEMBER("u.s2", run_hang, b_slow);
static const sp_check s3 = MEMBER("u.s3", m_collect, b_slow);

static sp_report run(const sp_policy *p, const sp_check *const *v, size_t n, sp_doctor_run_opts o)
{
	sp_ctx ctx = {.policy = p, .profile = "unit", .timeout_ms = 2000};
	sp_report rep;
	sp_env env;
	sp_env_fill(&ctx, &env);
	sp_run(&ctx, &env, v, n, &o, &rep);
	return rep;
}

int main(void)
{
	sp_policy p;
	sp_policy_init(&p, &sp_doctor_registry);
	sp_error err;

	const sp_check *all[] = {&c_pass, &c_pass_inproc, &c_fail, &c_skip, &c_crash, &c_hang, &c_silent, &c_unsup};
	uint64_t t0 = sp_now_ns();
	sp_report rep = run(&p, all, 8, (sp_doctor_run_opts){0});
	uint64_t ms = (sp_now_ns() - t0) / 1000000;
	is_int(rep.n, 8, "every check produced a result");
	is_int(rep.results[0].status, SP_STATUS_PASS, "forked pass is pass");
	is_int(rep.results[1].status, SP_STATUS_PASS, "in-process pass is pass");
	is_int(rep.results[2].status, SP_STATUS_FAIL, "fail is fail");
	is_str(rep.results[2].expected, "x", "expected travels back from the child");
	is_str(rep.results[2].observed, "y", "observed travels back from the child");
	is_int(rep.results[3].status, SP_STATUS_SKIP, "skip is skip");

	/* an expectation longer than its field is cut after a whole item */
	sp_result longr = {0};
	char list[1024] = "";
	for (int i = 0; i < 40; i++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s/etc/path-%02d", i ? "," : "", i);
	sp_expected(&longr, "absent: %s", list);
	size_t el = strlen(longr.expected);
	ok(el < sizeof longr.expected, "a long expectation fits its field (%zu bytes)", el);
	ok(el >= 4 && !strcmp(longr.expected + el - 4, " ..."), "... and says it was cut");
	ok(el >= 5 && longr.expected[el - 5] == ',', "... after a whole item, not mid-word: '%s'", longr.expected);
	sp_expected(&longr, "short %s", "text");
	is_str(longr.expected, "short short text" + 6, "a short expectation is kept whole");
	is_int(rep.results[4].status, SP_STATUS_ERROR, "a crashing probe is an error, not a crash of the runner");
	like_str(rep.results[4].detail, "signal 4", "the crash names the signal");
	is_int(rep.results[5].status, SP_STATUS_ERROR, "a hanging probe is an error");
	like_str(rep.results[5].detail, "timed out after 150 ms", "the check's own timeout applies");
	ok(ms < 1500, "the hang was cut at its timeout (whole run %llu ms)", (unsigned long long)ms);
	is_int(rep.results[6].status, SP_STATUS_ERROR, "a probe that exits without a verdict is an error");
	is_int(rep.results[7].status, SP_STATUS_SKIP, "unsupported() means skip");
	like_str(rep.results[7].detail, "no such thing here", "with its reason");
	is_int(rep.sum.pass, 2, "summary counts passes");
	is_int(rep.sum.fail, 1, "summary counts failures");
	is_int(rep.sum.error, 3, "summary counts errors");
	is_int(rep.sum.skip, 2, "summary counts skips");
	ok(rep.failed, "a failure fails the run");
	ok(rep.results[0].check == &c_pass, "results point at their descriptors");
	sp_report_free(&rep);

	/* --strict: skip becomes fail */
	const sp_check *skips[] = {&c_skip, &c_pass};
	rep = run(&p, skips, 2, (sp_doctor_run_opts){.strict = true});
	is_int(rep.results[0].status, SP_STATUS_FAIL, "--strict turns a skip into a failure");
	like_str(rep.results[0].detail, "skipped under --strict", "and says why");
	ok(rep.failed, "and the run fails");
	sp_report_free(&rep);
	rep = run(&p, skips, 2, (sp_doctor_run_opts){0});
	ok(!rep.failed, "without --strict a skip does not fail the run");
	sp_report_free(&rep);

	/* -x stops after the first failure */
	const sp_check *xs[] = {&c_pass, &c_fail, &c_pass};
	rep = run(&p, xs, 3, (sp_doctor_run_opts){.stop_on_fail = true});
	is_int(rep.n, 2, "-x stops after the first failure");
	ok(rep.stopped_early, "and records that it stopped early");
	sp_report_free(&rep);

	/* advisory turns a failure into a warning; the run passes */
	ok(sp_policy_set(&p, "expect.u.*=advisory", &err) < 0, "expect glob must match a real check id");
	sp_policy_entry e = {.key = "expect.u.fail", .value = "advisory", .origin = "unit"};
	sp_policy adv = {.name = "adv", .e = &e, .n = 1};
	const sp_check *f1[] = {&c_fail};
	rep = run(&adv, f1, 1, (sp_doctor_run_opts){0});
	is_int(rep.results[0].status, SP_STATUS_WARN, "advisory failure is a warning");
	like_str(rep.results[0].detail, "advisory: bad", "marked advisory");
	ok(!rep.failed, "a warning does not fail the run");
	is_int(sp_policy_expect(&adv, "u.fail"), SP_EXPECT_ADVISORY, "expect lookup by glob");
	is_int(sp_policy_expect(&adv, "u.pass"), SP_EXPECT_REQUIRED, "default expectation is required");
	sp_report_free(&rep);

	/* a probe's children do not outlive it */
	unlink("/tmp/sandprobe-unit-spawn.pid");
	const sp_check *sp1[] = {&c_spawn};
	rep = run(&p, sp1, 1, (sp_doctor_run_opts){0});
	is_int(rep.results[0].status, SP_STATUS_PASS, "spawning probe passes");
	char buf[32] = "";
	FILE *f = fopen("/tmp/sandprobe-unit-spawn.pid", "r");
	int gpid = 0;
	if (f) {
		if (fgets(buf, sizeof buf, f))
			gpid = atoi(buf);
		fclose(f);
	}
	unlink("/tmp/sandprobe-unit-spawn.pid");
	usleep(50000);
	/* dead means gone, or a zombie waiting for init to reap it */
	char path[64], st[512] = "";
	snprintf(path, sizeof path, "/proc/%d/stat", gpid);
	ssize_t n = sp_read_file(path, st, sizeof st);
	char *rp = n > 0 ? strrchr(st, ')') : NULL;
	bool dead = gpid > 0 && (n < 0 || (rp && (rp[2] == 'Z' || rp[2] == 'X')));
	ok(dead, "the probe's grandchild %d was killed with its process group", gpid);
	if (!dead && gpid > 0)
		kill(gpid, SIGKILL);
	sp_report_free(&rep);

	/* a batch: one child for its members, prepare and run once, each member
	 * judged from the state they left; a member that crashes costs itself */
	const sp_check *bv[] = {&m1, &c_pass, &m2, &m3, &m4};
	rep = run(&p, bv, 5, (sp_doctor_run_opts){0});
	is_int(rep.results[0].status, SP_STATUS_PASS, "a batch member collects what the batch's run left");
	is_int(batch_runs, 0, "the batch ran in a child, not in the runner");
	is_int(rep.results[1].status, SP_STATUS_PASS, "a check between members runs on its own");
	is_int(rep.results[2].status, SP_STATUS_ERROR, "a member that crashes is an error");
	like_str(rep.results[2].detail, "crashed in batch u.batch: signal 4", "naming the batch and the signal");
	is_int(rep.results[3].status, SP_STATUS_PASS, "the next member resumes in a new child (prepare and run again)");
	is_int(rep.results[4].status, SP_STATUS_SKIP, "and the one after");
	int pid0 = atoi(strstr(rep.results[0].detail, "pid ") + 4), pid3 = atoi(strstr(rep.results[3].detail, "pid ") + 4);
	ok(pid0 > 0 && pid3 > 0 && pid0 != pid3 && pid0 != (int)getpid(), "members before and after the crash ran in two children");
	sp_report_free(&rep);
	/* one timeout for the whole batch: a hang costs it once */
	const sp_check *sv[] = {&s1, &s2, &s3, &c_pass};
	t0 = sp_now_ns();
	rep = run(&p, sv, 4, (sp_doctor_run_opts){0});
	ms = (sp_now_ns() - t0) / 1000000;
	is_int(rep.results[0].status, SP_STATUS_PASS, "a member judged before the hang keeps its verdict");
	is_int(rep.results[1].status, SP_STATUS_ERROR, "the hanging member is an error");
	like_str(rep.results[1].detail, "probe batch u.slowbatch timed out after 300 ms (in u.s2)", "naming the batch's one timeout");
	is_int(rep.results[2].status, SP_STATUS_ERROR, "a member after the hang is lost with the batch");
	is_int(rep.results[3].status, SP_STATUS_PASS, "a check after the batch runs normally");
	ok(ms < 1500, "the batch cost its one timeout (whole run %llu ms)", (unsigned long long)ms);
	sp_report_free(&rep);
	/* --timeout-ms overrides the batch's own */
	rep = run(&p, sv, 2, (sp_doctor_run_opts){.timeout_forced = true});
	like_str(rep.results[1].detail, "timed out after 2000 ms", "a forced timeout applies to batches too");
	sp_report_free(&rep);

	/* registry sanity: ids unique, every descriptor complete */
	bool unique = true, complete = true;
	for (size_t i = 0; i < sp_checks_count; i++) {
		const sp_check *c = sp_checks[i];
		complete &= c->id && *c->id && c->category && *c->category && c->title && *c->title && c->rationale &&
			    c->run && c->techniques && c->policy_keys;
		for (size_t j = 0; j < i; j++)
			unique &= strcmp(c->id, sp_checks[j]->id) != 0;
	}
	ok(sp_checks_count >= 15, "registry has the first checks (%zu)", sp_checks_count);
	ok(unique, "check ids are unique");
	ok(complete, "every descriptor has id, category, title, rationale, techniques, policy keys and run");
	ok(sp_check_find("ns.pid") && sp_check_find("fs.writable_paths") && !sp_check_find("nope"), "sp_check_find");
	return done_testing();
}
