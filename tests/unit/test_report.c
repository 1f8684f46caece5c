/* The report's pieces: percentiles, windows, escaping, value formats, the
 * verifier's JSON, and the bundle readers' errors (file:line, exit 2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/junit.h"
#include "core/util.h"
#include "report/bundle.h"
#include "report/html.h"
#include "report/svg.h"
#include "report/verifier.h"
#include "unit/tap.h"

static char *escape(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	sp_html_text(f, s);
	fclose(f);
	return buf;
}

static void put(const char *dir, const char *name, const char *text)
{
	char *p = sp_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
	free(p);
}

static const char *const SAMPLES_HDR =
	"ts\twall\tphase\towned_processes\towned_threads\towned_rss_bytes\towned_cpu_seconds\towned_fds\t"
	"owned_mounts\towned_sockets\towned_cgroups\tdisk_bytes\tglobal_processes\tglobal_mounts\trunner_rss_bytes\trunner_fds\n";

/* a correct summary.json is SUMMARY_HEAD "warmup_end_s":N, SUMMARY_TAIL */
#define SUMMARY_HEAD \
	"{\"schema\":\"sandprobe.summary.v1\",\"run_id\":\"r1\",\"profile\":\"custom\",\"requested_duration_s\":10," \
	"\"measured_duration_s\":10,\"sample_count\":3,\"periodic_samples\":1,\"span_s\":10,\"max_gap_s\":5,"
#define SUMMARY_TAIL \
	"\"operations\":{\"total\":4,\"ok\":2,\"fail\":1,\"expected_fault\":1},\"unexpected_failures\":1," \
	"\"stop_condition\":\"duration\",\"cleanup\":\"ok\",\"evidence_path\":\"/x\"}"

/* a minimal correct bundle */
static void minimal(const char *d)
{
	put(d, "metadata.txt", "schema=sandprobe.evidence.v1\nrun_id=r1\nscenarios=A,B\nwarmup_s=1\n");
	char *s = sp_xasprintf("%s0\t2026-01-01T00:00:00Z\tstart\t1\t1\t100\t0\t3\t1\t0\t0\t10\t5\t5\t7\t4\n"
			       "5\t2026-01-01T00:00:00Z\tperiodic\t2\t2\t200\t0.5\t4\t1\t0\t0\t20\t5\t5\t7\t4\n"
			       "10\t2026-01-01T00:00:00Z\tfinal\t1\t1\t150\t1\t3\t1\t0\t0\t10\t5\t5\t7\t4\n",
			       SAMPLES_HDR);
	put(d, "resource-samples.tsv", s);
	free(s);
	put(d, "operations.tsv", "ts\tscenario\tapi\toperation\tlatency_ms\tresult\tgeneration\terror_code\n"
				 "1\tA\tcli\trun\t10\tok\t1\t-\n2\tB\tcli\trun\t20\tok\t1\t-\n"
				 "3\tA\tcli\trun\t30\texpected_fault\t1\tE\n4\tB\tcli\trun\t40\tfail\t1\tX\n");
	put(d, "latency.tsv", "ts\tscenario\toperation\tlatency_ms\twarmup\n1\tA\trun\t10\t1\n2\tB\trun\t20\t0\n");
	put(d, "capability-results.tsv", "scenario\tattempted\tsucceeded\texpected_faults\tunexpected_failures\tresult\n"
					 "A\t2\t1\t1\t0\tpass\nB\t2\t1\t0\t1\tfail\n");
	put(d, "faults.tsv", "fault_id\ttarget\texpected\tstarted\tended\trecovery_ms\trto_ms\tresult\n"
			     "F01\tbox\tE\t2.5\t-\t-\t1000\tfail\n");
	put(d, "summary.json", SUMMARY_HEAD "\"warmup_end_s\":4," SUMMARY_TAIL "\n");
}

static char *load_error(const char *d)
{
	rp_bundle b;
	sp_error err = {0};
	if (rp_bundle_load(&b, d, &err) == 0) {
		rp_bundle_free(&b);
		return sp_xstrdup("(loaded)");
	}
	ok(err.exit_code == SP_EXIT_USAGE, "a malformed bundle is a usage error (exit 2)");
	const char *m = err.msg;
	size_t n = strlen(d);
	if (!strncmp(m, d, n))
		m += n + 1; /* drop "DIR/" */
	return sp_xstrdup(m);
}

int main(void)
{
	/* percentiles and windows */
	double v[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
	is_int(rp_percentile(v, 10, 0.5), 5, "p50 of 1..10 is 5 (nearest rank)");
	is_int(rp_percentile(v, 10, 0.95), 10, "p95 of 1..10 is 10");
	is_int(rp_percentile(v, 1, 0.99), 1, "percentile of one value is the value");
	ok(isnan(rp_percentile(v, 0, 0.5)), "percentile of nothing is NaN");
	is_int(rp_window_width(600), 15, "600 s run: 15 s windows");
	is_int(rp_window_width(86400), 3600, "24 h run: 1 h windows");
	is_int(rp_window_width(259200), 7200, "72 h run: 2 h windows (36 of them)");
	is_int(rp_window_width(10), 1, "10 s run: 1 s windows");

	/* escaping and formats */
	char *e = escape("<a href=\"x\">'&'</a>\x01");
	is_str(e, "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;\xef\xbf\xbd", "HTML escaping, control chars replaced");
	free(e);
	char buf[64];
	rp_format_value(1536, RP_UNIT_BYTES, buf, sizeof buf);
	is_str(buf, "1.5 KiB", "bytes formatted in binary units");
	rp_format_value(52428800, RP_UNIT_BYTES, buf, sizeof buf);
	is_str(buf, "50 MiB", "50 MiB");
	rp_format_duration(5400, buf, sizeof buf);
	is_str(buf, "90m", "durations in minutes below 2 h");
	rp_format_duration(86400, buf, sizeof buf);
	is_str(buf, "24h", "and hours below 3 days");

	/* verifier JSON */
	rp_verdict vd = {0};
	const char *good = "{\"schema\":\"sandprobe.verify.v1\",\"gates\":[{\"id\":\"a\",\"status\":\"pass\",\"measured\":3,"
			   "\"threshold\":\"<= 4\",\"message\":\"m\"},{\"id\":\"b\",\"status\":\"fail\"}],\"result\":\"fail\"}";
	is_int(rp_verdict_parse(good, strlen(good), &vd), 0, "verify.v1 output parses");
	is_int(vd.ngates, 2, "two gates");
	is_str(vd.gates[0].measured, "3", "a numeric measured value is kept as text");
	is_str(vd.gates[1].threshold, "", "an absent threshold is empty");
	is_int(vd.npass * 10 + vd.nfail, 11, "one pass, one fail");
	rp_verdict_free(&vd);
	const char *wrong = "{\"schema\":\"sandprobe.doctor.v1\",\"gates\":[],\"result\":\"pass\"}";
	is_int(rp_verdict_parse(wrong, strlen(wrong), &vd), -1, "another schema is refused");
	like_str(vd.reason, "not sandprobe.verify.v1", "and the reason says so");
	rp_verdict_free(&vd);
	is_int(rp_verdict_parse("nope", 4, &vd), -1, "non-JSON is refused");
	rp_verdict_free(&vd);

	/* bundle readers */
	char tmpl[] = "/tmp/sp-test-report.XXXXXX";
	char *d = mkdtemp(tmpl);
	ok(d != NULL, "temp dir");
	minimal(d);
	rp_bundle b;
	sp_error err = {0};
	is_int(rp_bundle_load(&b, d, &err), 0, "a minimal correct bundle loads");
	if (err.msg[0])
		printf("# %s\n", err.msg);
	is_int(b.nsamples, 3, "three samples");
	is_int(b.nops, 4, "four operations");
	is_int(b.nscenarios, 2, "scenarios from metadata");
	is_int(b.ops[2].result, RP_EXPECTED_FAULT, "expected_fault parsed");
	ok(isnan(b.faults[0].ended) && isnan(b.faults[0].recovery_ms), "'-' is a missing end/recovery");
	is_int(rp_warmup_end(&b), 4, "warm-up end from summary.json");
	is_int(rp_time_max(&b), 10, "time range from the final sample");
	is_int(rp_column(&b, "owned_rss_bytes")[1], 200, "sample columns by name");
	b.summary.warmup_end_s = NAN;
	is_int(rp_warmup_end(&b), 4, "computed warm-up end: second op of every scenario (B at 4)");
	char *html = NULL;
	size_t hlen = 0;
	FILE *hf = open_memstream(&html, &hlen);
	rp_verdict unavailable = {0};
	snprintf(unavailable.reason, sizeof unavailable.reason, "test <reason>");
	is_int(rp_render_html(hf, &b, &unavailable), 0, "renders");
	fclose(hf);
	like_str(html, "verifier unavailable: test &lt;reason&gt;", "unavailable reason escaped");
	like_str(html, "<tr class=\"cap fail\"><td>B</td>", "failed capability row marked");
	like_str(html, "id=\"chart-latency-1\"", "one latency chart per scenario");
	free(html);
	rp_bundle_free(&b);

	struct {
		const char *file, *text, *want;
	} cases[] = {
		{"metadata.txt", "schema=sandprobe.evidence.v1\nnoequals\n", "metadata.txt:2: expected key=value"},
		{"metadata.txt", "run_id=x\n", "metadata.txt: missing key 'schema'"},
		{"metadata.txt", "schema=sandprobe.evidence.v1\n", "metadata.txt: missing key 'run_id'"},
		{"operations.tsv", "ts\tscenario\n", "operations.tsv:1: missing column 'api'"},
		{"operations.tsv", "ts\tscenario\tapi\toperation\tlatency_ms\tresult\tgeneration\terror_code\n1\tA\tc\tr\t1e999\tok\t1\t-\n",
		 "operations.tsv:2: latency_ms: '1e999' is not a number"},
		{"operations.tsv", "ts\tscenario\tapi\toperation\tlatency_ms\tresult\tgeneration\terror_code\n-1\tA\tc\tr\t1\tok\t1\t-\n",
		 "operations.tsv:2: ts: -1 is negative"},
		{"operations.tsv", "ts\tts\n", "operations.tsv:1: duplicate column 'ts'"},
		{"latency.tsv", "ts\tscenario\toperation\tlatency_ms\twarmup\n1\tA\tr\t1\t2\n", "latency.tsv:2: warmup: '2' is neither 0 nor 1"},
		{"latency.tsv", "ts\tscenario\toperation\tlatency_ms\twarmup\n\n", "latency.tsv:2: empty line"},
		{"latency.tsv", "", "latency.tsv:1: missing header row"},
		{"faults.tsv", "fault_id\ttarget\texpected\tstarted\tended\trecovery_ms\trto_ms\tresult\nF01\tt\te\t1\t2\t3\t4\tok\n",
		 "faults.tsv:2: result: 'ok' is neither pass nor fail"},
		{"operations.tsv", "ts\tscenario\tapi\toperation\tlatency_ms\tresult\tgeneration\terror_code\n1\tA\tc\tr\t1e3\tok\t1\t-\n",
		 "operations.tsv:2: latency_ms: '1e3' is not a plain decimal"},
		{"operations.tsv", "ts\tscenario\tapi\toperation\tlatency_ms\tresult\tgeneration\terror_code\n1\tA\t\tr\t1\tok\t1\t-\n",
		 "operations.tsv:2: api: empty"},
		{"operations.tsv", "ts\tscenario\tapi\toperation\tlatency_ms\tresult\tgeneration\terror_code\n1\tA\tc\tr\t1\tok\tg\t-\n",
		 "operations.tsv:2: generation: 'g' is not a non-negative integer"},
		{"operations.tsv", "ts\tscenario\tapi\toperation\tlatency_ms\tresult\tgeneration\terror_code\n1\tA\tc\tr\t1\tfail\t1\ta b\n",
		 "operations.tsv:2: error_code: 'a b' is not '-' or a sanitized error code"},
		{"latency.tsv", "ts\tscenario\toperation\tlatency_ms\twarmup\n1\tA\t\t1\t0\n", "latency.tsv:2: operation: empty"},
		{"faults.tsv", "fault_id\ttarget\texpected\tstarted\tended\trecovery_ms\trto_ms\tresult\nF10\tt\te\t1\t2\t3\t4\tpass\n",
		 "faults.tsv:2: fault_id: 'F10' is not a fault id F01..F09"},
		{"capability-results.tsv", "scenario\tattempted\tsucceeded\texpected_faults\tunexpected_failures\tresult\n"
					   "A\t1234567890123456789\t1\t0\t0\tpass\n",
		 "capability-results.tsv:2: attempted: '1234567890123456789' is not a non-negative integer"},
		{"summary.json", "[]", "summary.json: top level is not an object"},
		{"summary.json", "{\n\"schema\":,}", "summary.json:2: "},
		{"summary.json", SUMMARY_HEAD "\"warmup_end_s\":\"x\"," SUMMARY_TAIL,
		 "summary.json: field warmup_end_s: missing or not a non-negative number"},
		{"summary.json", "{\"schema\":\"sandprobe.summary.v1\",\"warmup_end_s\":4}",
		 "summary.json: field run_id: missing or not a non-empty string"},
		{"summary.json", SUMMARY_HEAD SUMMARY_TAIL, "summary.json: field warmup_end_s: missing"},
	};
	for (size_t i = 0; i < SP_ARRAY_SIZE(cases); i++) {
		minimal(d);
		put(d, cases[i].file, cases[i].text);
		char *m = load_error(d);
		like_str(m, cases[i].want, "%s: error names file:line and field", cases[i].file);
		free(m);
	}
	/* a field the absent array names may be missing (sandprobe import) */
	minimal(d);
	put(d, "summary.json",
	    "{\"schema\":\"sandprobe.summary.v1\",\"run_id\":\"r1\",\"profile\":\"custom\",\"requested_duration_s\":10,"
	    "\"measured_duration_s\":10,\"sample_count\":3,\"periodic_samples\":1,\"span_s\":10,\"max_gap_s\":5,"
	    "\"operations\":{\"total\":4,\"ok\":2,\"fail\":1,\"expected_fault\":1},\"unexpected_failures\":1,"
	    "\"cleanup\":\"ok\",\"evidence_path\":\"/x\",\"absent\":[\"warmup_end_s\",\"stop_condition\"]}");
	is_int(rp_bundle_load(&b, d, &err), 0, "a summary without the fields its absent array names loads");
	if (err.msg[0])
		printf("# %s\n", err.msg);
	ok(isnan(b.summary.warmup_end_s) && !b.summary.stop_condition, "... they are NaN / NULL");
	is_str(b.summary.cleanup, "ok", "... the others are read");
	rp_bundle_free(&b);
	/* samples: a row after final, and ts going back */
	minimal(d);
	char *s = sp_xasprintf("%s0\t2026-01-01T00:00:00Z\tstart\t1\t1\t1\t0\t1\t1\t0\t0\t1\t1\t1\t1\t1\n"
			       "9\t2026-01-01T00:00:00Z\tperiodic\t1\t1\t1\t0\t1\t1\t0\t0\t1\t1\t1\t1\t1\n"
			       "5\t2026-01-01T00:00:00Z\tfinal\t1\t1\t1\t0\t1\t1\t0\t0\t1\t1\t1\t1\t1\n",
			       SAMPLES_HDR);
	put(d, "resource-samples.tsv", s);
	free(s);
	char *m = load_error(d);
	like_str(m, "resource-samples.tsv:4: ts: 5 goes back in time", "samples must not go back in time");
	free(m);
	s = sp_xasprintf("%s0\t2026-01-01T00:00:00Z\tstart\t1\t1\t1\t0\t1\t1\t0\t0\t1\t1\t1\t1\t1\n"
			 "5\t2026-01-01T00:00:00Z\tfinal\t1\t1\t1\t0\t1\t1\t0\t0\t1\t1\t1\t1\t1\n"
			 "6\t2026-01-01T00:00:00Z\tperiodic\t1\t1\t1\t0\t1\t1\t0\t0\t1\t1\t1\t1\t1\n",
			 SAMPLES_HDR);
	put(d, "resource-samples.tsv", s);
	free(s);
	m = load_error(d);
	like_str(m, "resource-samples.tsv:4: a row after the 'final' row", "nothing after the final sample");
	free(m);

	char *cmd = sp_xasprintf("rm -rf '%s'", d);
	ok(system(cmd) == 0, "cleanup");
	free(cmd);
	return done_testing();
}
