/* The live report's JUnit and TAP writers (live/report_ci.c) judge as the
 * live verdict does: a negative control's required failures are passes, a
 * required failure that did not happen is a failure (a defect), a skipped
 * lane is skipped (a failure under --strict). Lanes are built by hand here,
 * as the judge leaves them, so that a defect can be tested without a runtime
 * that fails to isolate. The JUnit file must validate against junit.xsd. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/live.h"
#include "live/report_ci.h"
#include "unit/tap.h"

static sp_live_cfg cfg;

static void lane(sp_live_lane *l, const char *rt, const char *variant, const char *status, const char *reason)
{
	sp_lane_init(l, sp_runtime_find(rt), sp_variant_find(variant), &cfg);
	sp_lres_status(status, &l->status);
	snprintf(l->reason, sizeof l->reason, "%s", reason);
	sp_strv_split(&l->expected_fail, NULL, ",");
	sp_strv_split(&l->missed, NULL, ",");
	sp_strv_split(&l->collateral, NULL, ",");
	sp_strv_split(&l->also_failed, NULL, ",");
	l->ms = 12.3456;
}

static char *render(const sp_live_run *run, int junit)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (junit)
		sp_live_write_junit(f, run);
	else
		sp_live_write_tap(f, run);
	fclose(f);
	return buf;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* the <testcase> element of classname cls and name */
static char *testcase(const char *xml, const char *cls, const char *name)
{
	char *key = sp_xasprintf("<testcase classname=\"%s\" name=\"%s\"", cls, name);
	const char *p = strstr(xml, key);
	free(key);
	if (!p)
		return NULL;
	const char *e = strstr(p, "</testcase>");
	return e ? sp_xstrndup(p, (size_t)(e - p)) : NULL;
}

static int xsd_ok(const char *xml)
{
	char path[] = "/tmp/sp-test-live-ci.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	FILE *f = fdopen(fd, "w");
	fputs(xml, f);
	fclose(f);
	const char *root = getenv("SP_ROOT");
	char *cmd = sp_xasprintf("xmllint --noout --schema %s/docs/schema/junit.xsd %s >/dev/null 2>&1", root ? root : ".", path);
	int rc = system(cmd);
	free(cmd);
	unlink(path);
	return rc == 0;
}

int main(void)
{
	sp_live_run run = {0};
	run.n = 4;
	run.lanes = calloc(run.n, sizeof *run.lanes);
	sp_strv_split(&run.defects, NULL, ",");

	sp_live_lane *s = &run.lanes[0];
	lane(s, "bwrap", "strict", "pass", "all checks passed");
	sp_lres_add(&s->results, "ns.pid", SP_STATUS_PASS, "own", "pid:[2]", "own pid namespace");
	sp_lres_add(&s->results, "host.ns.pid", SP_STATUS_PASS, "differs", "2 vs 1", "differs from the host's");
	sp_lres_add(&s->results, "fs.writable_paths", SP_STATUS_WARN, "", "", "advisory");

	sp_live_lane *n = &run.lanes[1];
	lane(n, "bwrap", "host-pid", "fail", "negative control failed as expected");
	sp_strv_push(&n->expected_fail, "ns.pid");
	sp_strv_push(&n->also_failed, "proc.host_visible");
	sp_lres_add(&n->results, "ns.pid", SP_STATUS_FAIL, "own", "initial", "shares the initial pid namespace");
	sp_lres_add(&n->results, "proc.host_visible", SP_STATUS_FAIL, "none", "1 host process", "host processes visible");
	sp_lres_add(&n->results, "ns.net", SP_STATUS_PASS, "own", "net:[3]", "own net namespace");

	sp_live_lane *d = &run.lanes[2];
	lane(d, "bwrap", "host-net", "fail", "negative control (host network) did not fail: 1 of 1");
	sp_strv_push(&d->expected_fail, "ns.net");
	sp_strv_push(&d->missed, "ns.net");
	d->defect = true;
	sp_lres_add(&d->results, "ns.net", SP_STATUS_PASS, "own", "net:[3]", "own net namespace \xff<&>");
	sp_strv_push(&run.defects, "bwrap/host-net: negative control (host network) did not fail: ns.net");

	sp_live_lane *k = &run.lanes[3];
	lane(k, "unshare", "strict", "skip", "unshare: not usable here");

	char *x = render(&run, 1);
	ok(x && xsd_ok(x), "live JUnit validates against junit.xsd");
	like_str(x, "<testsuites name=\"sandprobe.live\" tests=\"11\" failures=\"2\" errors=\"0\"",
		 "11 cases (4 verdicts, 7 results); 2 failures: the defect's verdict and its missed check");
	is_int(count(x, "<testsuite "), 4, "one suite per lane");
	char *c = testcase(x, "live.bwrap.host-pid.inside", "ns.pid");
	ok(c && !strstr(c, "<failure") && strstr(c, "fail as expected"), "negative control: a required failure is a pass, said so");
	free(c);
	c = testcase(x, "live.bwrap.host-pid.inside", "proc.host_visible");
	ok(c && !strstr(c, "<failure") && strstr(c, "finer probe"), "a failure the variant allows is reported, not judged");
	free(c);
	c = testcase(x, "live.bwrap.host-pid", "verdict");
	ok(c && !strstr(c, "<failure") && strstr(c, "FAILED AS EXPECTED"), "the negative control's verdict passes");
	free(c);
	c = testcase(x, "live.bwrap.host-net.inside", "ns.net");
	ok(c && strstr(c, "<failure") && strstr(c, "negative control did not fail"), "a required failure that did not happen fails");
	free(c);
	c = testcase(x, "live.bwrap.host-net", "verdict");
	ok(c && strstr(c, "<failure") && strstr(c, "type=\"DEFECT\""), "the defect lane's verdict is a failure of type DEFECT");
	free(c);
	c = testcase(x, "live.unshare.strict", "verdict");
	ok(c && strstr(c, "<skipped message=\"SKIP: unshare: not usable here\""), "a skipped lane is <skipped> with the reason");
	free(c);
	c = testcase(x, "live.bwrap.strict.inside", "fs.writable_paths");
	ok(c && !strstr(c, "<failure") && strstr(c, "warn: advisory"), "a WARN is a pass with its status in system-out");
	free(c);
	like_str(x, "time=\"0.012\"", "lane time in seconds with 3 decimals");
	free(x);

	char *t = render(&run, 0);
	like_str(t, "TAP version 13\n1..11\n", "TAP plan: every case");
	is_int(count(t, "\nnot ok "), 2, "TAP: the same 2 failures");
	like_str(t, "ok 11 - unshare/strict verdict SKIP # SKIP unshare: not usable here", "TAP: a skipped lane is a SKIP");
	like_str(t, "not ok 10 - bwrap/host-net ns.net", "TAP: the missed check fails");
	ok(!strstr(t, "\xff"), "TAP: no invalid UTF-8");
	free(t);

	run.strict = true;
	x = render(&run, 1);
	like_str(x, "failures=\"3\"", "--strict: a skipped lane is a failure too");
	ok(x && xsd_ok(x), "and the file still validates");
	free(x);

	/* what the lanes shared, removed at the end of the run: one proof per runtime, a left one fails the run */
	run.strict = false;
	run.n = 2;
	sp_live_run_teardown td[2] = {{.rt = sp_runtime_find("docker"), .ok = true},
				 {.rt = sp_runtime_find("podman"), .ok = false}};
	snprintf(td[0].what, sizeof td[0].what, "image localhost/sandprobe-doctor-1-ab:live (id 0123456789ab) built by this run removed");
	snprintf(td[1].what, sizeof td[1].what, "the engine still lists image localhost/sandprobe-doctor-1-cd:live <&>");
	run.teardown = td;
	run.nteardown = 1;
	size_t ndefects = run.defects.n;
	run.defects.n = 0; /* the two lanes alone: a passing strict lane and a control that failed as it must */
	ok(!sp_live_failed(&run), "a teardown proof that passes does not fail the run");
	run.nteardown = 2;
	ok(sp_live_failed(&run), "one that finds something left fails it");
	run.defects.n = ndefects;
	x = render(&run, 1);
	ok(x && xsd_ok(x), "JUnit with the run's teardown validates against junit.xsd");
	like_str(x, "tests=\"10\" failures=\"1\"", "two more cases, one failure: what was left");
	c = testcase(x, "live.teardown", "podman");
	ok(c && strstr(c, "<failure") && strstr(c, "type=\"LEFT BEHIND\"") && strstr(c, "&lt;&amp;&gt;"),
	   "the left image is a failure of type LEFT BEHIND, escaped");
	free(c);
	c = testcase(x, "live.teardown", "docker");
	ok(c && !strstr(c, "<failure") && strstr(c, "built by this run removed"), "the proven removal is a pass, said so");
	free(c);
	free(x);
	t = render(&run, 0);
	like_str(t, "1..10\n", "TAP plan counts the teardown");
	like_str(t, "ok 9 - teardown/docker image localhost/sandprobe-doctor-1-ab:live", "TAP: the proven removal");
	like_str(t, "not ok 10 - teardown/podman the engine still lists", "TAP: what was left fails");
	free(t);
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		sp_live_write_text(f, &run, false);
		fclose(f);
		like_str(buf, "TEARDOWN: podman FAIL -- the engine still lists image", "text: a TEARDOWN line per proof");
		like_str(buf, "RESULT: FAIL", "text: and the run fails");
		free(buf);
		f = open_memstream(&buf, &len);
		sp_live_write_json(f, &run);
		fclose(f);
		like_str(buf, "\"runtime\": \"docker\",\n      \"status\": \"pass\"", "JSON: teardown items with runtime and status");
		free(buf);
	}
	run.teardown = NULL;
	run.nteardown = 0;
	run.n = 4;

	/* a clean run: no failure at all */
	run.strict = false;
	run.n = 2;
	x = render(&run, 1);
	like_str(x, "tests=\"8\" failures=\"0\" errors=\"0\"", "strict lane + negative control that failed as expected: no failure");
	free(x);
	run.n = 4;

	for (size_t i = 0; i < 4; i++)
		sp_lane_free(&run.lanes[i]);
	free(run.lanes);
	sp_strv_free(&run.defects);
	return done_testing();
}
