/* Parsers of evidence: values, key=value, TSV rows (streaming reader),
 * MANIFEST, inventories, summary, baseline. Each accepts what the format
 * allows and rejects, with the line and field named, what it does not. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "evidence/evidence.h"
#include "unit/tap.h"

static char tmpdir[] = "/tmp/sp-test-verify.XXXXXX";

static void put(const char *name, const char *text, size_t len)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%s", tmpdir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		abort();
	close(fd);
}

static void values(void)
{
	double d;
	long long ll;
	ok(sp_ev_parse_dec("12.345", 6, &d) == 0 && d == 12.345, "decimal 12.345");
	ok(sp_ev_parse_dec("0", 1, &d) == 0 && d == 0, "decimal 0");
	ok(sp_ev_parse_dec("86400.000", 9, &d) == 0 && d == 86400, "decimal 86400.000");
	ok(sp_ev_parse_dec("0.995", 5, &d) == 0 && d == 0.995, "decimal 0.995 is the nearest double");
	ok(sp_ev_parse_dec("12345678901234567.5", 19, &d) == 0 && d == 12345678901234567.5, "long decimal via strtod");
	static const char *const baddec[] = {"", "-1", "+1", "1e3", "nan", "inf", ".5", "5.", "1.2.3", " 1", "1 ", "0x10", "1,5"};
	for (size_t i = 0; i < sizeof baddec / sizeof baddec[0]; i++)
		ok(sp_ev_parse_dec(baddec[i], strlen(baddec[i]), &d) < 0, "decimal rejects '%s'", baddec[i]);
	ok(sp_ev_parse_int("123456789012345678", 18, &ll) == 0 && ll == 123456789012345678LL, "integer of 18 digits");
	static const char *const badint[] = {"", "-1", "1.0", "1234567890123456789", "12a", " 1"};
	for (size_t i = 0; i < sizeof badint / sizeof badint[0]; i++)
		ok(sp_ev_parse_int(badint[i], strlen(badint[i]), &ll) < 0, "integer rejects '%s'", badint[i]);
	ok(sp_ev_is_iso8601("2026-01-01T00:00:00Z", 20), "ISO 8601 time");
	ok(sp_ev_is_iso8601("2026-01-01T00:00:00.125Z", 24), "ISO 8601 time with fraction");
	ok(!sp_ev_is_iso8601("2026-01-01 00:00:00Z", 20), "ISO 8601 needs T");
	ok(!sp_ev_is_iso8601("2026-01-01T00:00:00+01:00", 25), "ISO 8601 must be UTC (Z)");
	ok(!sp_ev_is_iso8601("2026-00-01T00:00:00Z", 20), "ISO 8601 month 00 rejected");
	/* the one timestamp parser: the calendar, leap years, leap seconds */
	static const char *const good_t[] = {"2028-02-29T00:00:00Z", "2000-02-29T12:00:00Z", "2026-04-30T23:59:59Z",
					     "2026-12-31T23:59:60Z", "2026-06-30T23:59:60Z", "1970-01-01T00:00:00Z",
					     "2026-01-31T00:00:00.5Z"};
	for (size_t i = 0; i < sizeof good_t / sizeof good_t[0]; i++)
		ok(sp_ev_is_iso8601(good_t[i], strlen(good_t[i])), "time %s accepted", good_t[i]);
	static const char *const bad_t[] = {"2026-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2026-02-30T00:00:00Z",
					    "2026-02-31T00:00:00Z", "2026-04-31T00:00:00Z", "2026-06-31T00:00:00Z",
					    "2026-06-29T23:59:60Z", "2026-12-31T23:58:60Z", "2026-01-01T24:00:00Z",
					    "1969-12-31T23:59:59Z", "2026-01-01T00:00:00.Z", "2026-01-00T00:00:00Z"};
	for (size_t i = 0; i < sizeof bad_t / sizeof bad_t[0]; i++)
		ok(!sp_ev_is_iso8601(bad_t[i], strlen(bad_t[i])), "time %s rejected", bad_t[i]);
	double ep = 0;
	ok(sp_ev_parse_iso8601("2026-01-01T00:00:00Z", 20, &ep) == 0 && ep == 1767225600.0, "2026-01-01 is epoch 1767225600");
	ok(sp_ev_parse_iso8601("2028-03-01T00:00:01.250Z", 24, &ep) == 0 && ep == 1835481601.25,
	   "2028-03-01T00:00:01.25 after a leap day is epoch 1835481601.25");
	ok(sp_ev_parse_iso8601("1970-01-01T00:00:00Z", 20, &ep) == 0 && ep == 0, "the epoch is 0");
	ok(sp_ev_is_text("caf\xc3\xa9", 5), "UTF-8 text accepted");
	ok(!sp_ev_is_text("caf\xc3(", 5), "invalid UTF-8 rejected");
	ok(!sp_ev_is_text("\xc0\xaf", 2), "overlong UTF-8 rejected");
	ok(!sp_ev_is_text("a\rb", 3), "carriage return rejected");
	ok(!sp_ev_is_text("", 0), "empty text rejected");
}

static void kv(void)
{
	sp_ev_kv *k;
	size_t n;
	sp_error err;
	const char *good = "a=1\nb.c=x=y\nempty=\n";
	ok(sp_kv_parse_buf(good, strlen(good), &k, &n, &err) == 0 && n == 3, "three keys parsed");
	is_str(sp_kv_get(k, n, "b.c"), "x=y", "value keeps later '='");
	is_str(sp_kv_get(k, n, "empty"), "", "an empty value");
	ok(sp_kv_get(k, n, "nope") == NULL, "absent key is NULL");
	sp_kv_free(k, n);
	const char *dup = "a=1\nb=2\na=3\n";
	ok(sp_kv_parse_buf(dup, strlen(dup), &k, &n, &err) < 0, "duplicate key rejected");
	like_str(err.msg, "line 3: key a given twice (first on line 1)", "duplicate key message names both lines");
	is_int(err.exit_code, SP_EXIT_USAGE, "a bad key=value file is a usage error (exit 2)");
	const char *trunc = "a=1\nb=2";
	ok(sp_kv_parse_buf(trunc, strlen(trunc), &k, &n, &err) < 0, "missing final newline rejected");
	like_str(err.msg, "line 2: truncated", "truncation message names the line");
	const char *noeq = "a=1\nplain\n";
	ok(sp_kv_parse_buf(noeq, strlen(noeq), &k, &n, &err) < 0, "line without '=' rejected");
	like_str(err.msg, "line 2: not key=value", "message names line 2");
	ok(sp_kv_parse_buf("a=1\0\n", 5, &k, &n, &err) < 0, "NUL byte rejected");
}

static const char *META =
	"schema=sandprobe.evidence.v1\nrun_id=r1\nprofile=custom\nscenarios=A,B\ntool_version=1\ntool_commit=c\n"
	"dirty=0\nhost_kernel=6\nhost_arch=x86_64\nhost_cpus=2\nhost_memory_bytes=1024\nruntime=rt\n"
	"runtime_version=rt 1\nrootfs_digest=none\nstarted_at=2026-01-01T00:00:00Z\nseed=1\n"
	"workload_sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\nconcurrency=1\nfaults=none\n"
	"duration_s=60\nsample_interval_s=10\nwarmup_s=5\nthreshold.min_span_s=60\nthreshold.max_interval_s=10\n"
	"threshold.min_periodic_samples=4\nthreshold.max_gap_s=10\nthreshold.min_success_ratio=0.995\n"
	"threshold.rss_slope_mib_per_day=50\nthreshold.fd_growth_max=2\nthreshold.p95_regression_pct=30\n"
	"threshold.disk_budget_bytes=100\n";

static void meta(void)
{
	sp_ev_meta m;
	sp_error err;
	const char *kind;
	ok(sp_meta_parse_buf(&m, META, strlen(META), &err, &kind) == 0, "typed metadata parses");
	is_int(m.nscenarios, 2, "two scenarios");
	is_int(m.nfaults, 0, "faults=none is no fault");
	ok(m.th.min_success_ratio == 0.995 && m.th.fd_growth_max == 2 && m.warmup_s == 5, "thresholds read");
	sp_meta_free(&m);
	char *v2 = strdup(META);
	memcpy(v2 + strlen("schema=sandprobe.evidence.v"), "2", 1);
	ok(sp_meta_parse_buf(&m, v2, strlen(v2), &err, &kind) < 0 && !strcmp(kind, "schema"),
	   "unknown schema version rejected as a schema problem");
	like_str(err.msg, "unknown schema 'sandprobe.evidence.v2'", "schema message quotes the value");
	sp_meta_free(&m);
	free(v2);
	char *bad = NULL;
	if (asprintf(&bad, "%s", META) < 0)
		abort();
	char *p = strstr(bad, "host_cpus=2");
	p[10] = 'x';
	ok(sp_meta_parse_buf(&m, bad, strlen(bad), &err, &kind) < 0 && !strcmp(kind, "keys"), "host_cpus=x rejected");
	like_str(err.msg, "line 10: key host_cpus: 'x' is not a positive integer", "message names line, key and type");
	sp_meta_free(&m);
	free(bad);
}

static void rows(void)
{
	sp_ev_rows r;
	sp_ev_op op;
	const char *ops = "ts\textra\tscenario\tapi\toperation\tlatency_ms\tresult\tgeneration\terror_code\n"
			  "1.5\tq\tA\tcli\tcreate\t12.25\tok\t0\t-\n"
			  "2\tq\tB\tcli\tstart\t1\texpected_fault\t3\tE_X\n";
	put("operations.tsv", ops, strlen(ops));
	sp_ev_sha256 h = {0};
	ok(sp_rows_open(&r, tmpdir, SP_EV_OPERATIONS, &h) == 0, "operations.tsv opens (columns by name, extra column ok)");
	ok(sp_ops_next(&r, &op) == 1 && op.ts == 1.5 && !strcmp(op.scenario, "A") && op.latency_ms == 12.25 &&
		   op.result == SP_RES_OK,
	   "first row typed");
	ok(sp_ops_next(&r, &op) == 1 && op.result == SP_RES_EXPECTED_FAULT && op.generation == 3, "second row typed");
	ok(sp_ops_next(&r, &op) == 0, "end of rows");
	ok(h.done, "the file was hashed while it was read");
	unsigned char d[32];
	char path[256];
	snprintf(path, sizeof path, "%s/operations.tsv", tmpdir);
	sp_outcome ho = {0};
	sp_ev_sha256_file(path, d, NULL, &ho);
	ok(memcmp(d, h.digest, 32) == 0, "streamed digest equals the chunked file digest");
	sp_rows_close(&r);

	const char *missing = "ts\tscenario\tapi\toperation\tresult\tgeneration\terror_code\n";
	put("operations.tsv", missing, strlen(missing));
	ok(sp_rows_open(&r, tmpdir, SP_EV_OPERATIONS, NULL) < 0 && r.err == SP_EVE_COLUMNS, "missing column rejected");
	like_str(r.msg, "required column 'latency_ms' missing", "message names the column");

	const char *badtype = "ts\tscenario\tapi\toperation\tlatency_ms\tresult\tgeneration\terror_code\n"
			      "1\tA\tcli\tc\t1\tok\t0\t-\n1\tA\tcli\tc\tfast\tok\t0\t-\n";
	put("operations.tsv", badtype, strlen(badtype));
	ok(sp_rows_open(&r, tmpdir, SP_EV_OPERATIONS, NULL) == 0, "opens");
	ok(sp_ops_next(&r, &op) == 1, "good first row");
	ok(sp_ops_next(&r, &op) < 0 && r.err == SP_EVE_TYPES, "bad type rejected");
	like_str(r.msg, "operations.tsv line 3: column latency_ms: 'fast' is not a non-negative decimal",
		 "type message names file, line, column and value");
	sp_rows_close(&r);

	const char *nfields = "ts\tscenario\tapi\toperation\tlatency_ms\tresult\tgeneration\terror_code\n1\tA\n";
	put("operations.tsv", nfields, strlen(nfields));
	sp_rows_open(&r, tmpdir, SP_EV_OPERATIONS, NULL);
	ok(sp_ops_next(&r, &op) < 0, "short row rejected");
	like_str(r.msg, "line 2: 2 fields, the header has 8", "field-count message");
	sp_rows_close(&r);

	const char *trunc = "ts\tscenario\tapi\toperation\tlatency_ms\tresult\tgeneration\terror_code\n1\tA\tcli\tc\t1\tok\t0\t-";
	put("operations.tsv", trunc, strlen(trunc));
	sp_rows_open(&r, tmpdir, SP_EV_OPERATIONS, NULL);
	ok(sp_ops_next(&r, &op) < 0, "last line without newline rejected");
	like_str(r.msg, "truncated", "truncation named");
	sp_rows_close(&r);

	/* a line longer than the fixed buffer allows */
	size_t big = SP_EV_MAX_LINE + 100;
	char *long_line = malloc(big + 200);
	int n = snprintf(long_line, 200, "ts\tscenario\tapi\toperation\tlatency_ms\tresult\tgeneration\terror_code\n1\t");
	memset(long_line + n, 'a', big);
	memcpy(long_line + n + big, "\tcli\tc\t1\tok\t0\t-\n", 16);
	put("operations.tsv", long_line, (size_t)n + big + 16);
	free(long_line);
	sp_rows_open(&r, tmpdir, SP_EV_OPERATIONS, NULL);
	ok(sp_ops_next(&r, &op) < 0, "over-long line rejected");
	like_str(r.msg, "longer than", "over-long line named");
	sp_rows_close(&r);

	const char *samples = "ts\twall\tphase\towned_processes\towned_threads\towned_rss_bytes\towned_cpu_seconds\t"
			      "owned_fds\towned_mounts\towned_sockets\towned_cgroups\tdisk_bytes\tglobal_processes\t"
			      "global_mounts\trunner_rss_bytes\trunner_fds\textra.boxes\textra.volumes\n"
			      "0.000\t2026-01-01T00:00:00Z\tstart\t1\t2\t3\t0.25\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\n";
	put("resource-samples.tsv", samples, strlen(samples));
	sp_ev_sample s;
	ok(sp_rows_open(&r, tmpdir, SP_EV_SAMPLES, NULL) == 0 && r.nextra == 2, "two extra.* counters found");
	ok(sp_samples_next(&r, &s) == 1 && s.phase == SP_PHASE_START && s.c[SP_C_OWNED_FDS] == 4 &&
		   s.cpu_seconds == 0.25 && s.extra[0] == 13 && s.extra[1] == 14 &&
		   !strcmp(r.extra_name[1], "extra.volumes"),
	   "sample counters typed");
	sp_rows_close(&r);
	ok(sp_rows_open(&r, tmpdir, SP_EV_FAULTS, NULL) < 0 && r.err == SP_EVE_PRESENT, "missing faults.tsv: present error");
	like_str(r.msg, "faults.tsv: missing", "missing file named");
}

static void manifest(void)
{
	sp_ev_manifest m;
	sp_error err;
	char h[65];
	memset(h, 'a', 64);
	h[64] = 0;
	char *good = NULL, *bad = NULL;
	if (asprintf(&good, "%s  a.txt\n%s  logs/b.txt\n", h, h) < 0)
		abort();
	ok(sp_ev_manifest_parse(&m, good, strlen(good), &err) == 0 && m.n == 2, "two entries");
	is_str(m.v[1].path, "logs/b.txt", "paths kept");
	ok(m.v[0].digest[0] == 0xaa, "digest decoded");
	sp_ev_manifest_free(&m);
	static const char *const badfmt[] = {"%s  b\n%s  a\n", "%s  a\n%s  a\n", "%s  /etc/passwd\n%s  z\n",
					     "%s  ../x\n%s  z\n", "%s *a\n%s  z\n", "%s  MANIFEST\n%s  z\n",
					     "%s  a/./b\n%s  z\n", "%s  a\n%s  z"};
	static const char *const why[] = {"out of order", "listed twice", "plain relative", "plain relative",
					  "not '<64", "must not be listed", "plain relative", "truncated"};
	for (size_t i = 0; i < sizeof badfmt / sizeof badfmt[0]; i++) {
		if (asprintf(&bad, badfmt[i], h, h) < 0)
			abort();
		ok(sp_ev_manifest_parse(&m, bad, strlen(bad), &err) < 0, "MANIFEST rejected: %s", why[i]);
		like_str(err.msg, why[i], "message says %s", why[i]);
		free(bad);
	}
	free(good);
	char upper[200];
	snprintf(upper, sizeof upper, "%.63sA  a\n", h);
	ok(sp_ev_manifest_parse(&m, upper, strlen(upper), &err) < 0, "uppercase hex rejected");
	is_int(err.exit_code, SP_EXIT_USAGE, "a bad MANIFEST is a usage error (exit 2)");
}

static void json_docs(void)
{
	sp_ev_inventory a, b;
	sp_error e;
	const char *i1 = "{\"schema\":\"sandprobe.inventory.v1\",\"resources\":[{\"type\":\"c\",\"id\":\"2\"},{\"type\":\"c\",\"id\":\"1\"}]}";
	const char *i2 = "{\"schema\":\"sandprobe.inventory.v1\",\"resources\":[{\"type\":\"c\",\"id\":\"1\"},{\"type\":\"c\",\"id\":\"2\"},{\"type\":\"c\",\"id\":\"1\"}]}";
	ok(sp_inventory_parse(&a, i1, strlen(i1), &e) == 0, "inventory parses");
	ok(sp_inventory_parse(&b, i2, strlen(i2), &e) == 0, "inventory with a duplicate parses");
	ok(sp_inventory_equal(&a, &b, &e), "inventories compare as sets");
	sp_inventory_free(&b);
	const char *i3 = "{\"schema\":\"sandprobe.inventory.v1\",\"resources\":[{\"type\":\"c\",\"id\":\"1\"}]}";
	sp_inventory_parse(&b, i3, strlen(i3), &e);
	ok(!sp_inventory_equal(&a, &b, &e), "a missing resource makes them differ");
	like_str(e.msg, "c 2 is in the start inventory but not in the final one", "difference named");
	is_int(e.exit_code, SP_EXIT_USAGE, "an inventory difference is filled as a usage error");
	sp_inventory_free(&a);
	sp_inventory_free(&b);
	const char *bad = "{\"schema\":\"sandprobe.inventory.v1\",\"resources\":[{\"type\":\"c\"}]}";
	ok(sp_inventory_parse(&a, bad, strlen(bad), &e) < 0, "resource without id rejected");
	like_str(e.msg, "resources[0]", "index named");
	is_int(e.exit_code, SP_EXIT_USAGE, "a bad inventory is a usage error (exit 2)");
	const char *dupkey = "{\"schema\":\"sandprobe.inventory.v1\",\"schema\":\"x\",\"resources\":[]}";
	ok(sp_inventory_parse(&a, dupkey, strlen(dupkey), &e) < 0, "duplicate JSON key rejected");

	sp_ev_summary s;
	const char *sum = "{\"schema\":\"sandprobe.summary.v1\",\"run_id\":\"r\",\"profile\":\"custom\","
			  "\"requested_duration_s\":60,\"measured_duration_s\":60.5,\"sample_count\":6,\"periodic_samples\":4,"
			  "\"span_s\":60,\"max_gap_s\":10,\"warmup_end_s\":5,\"operations\":{\"total\":3,\"ok\":2,\"fail\":1,"
			  "\"expected_fault\":0},\"unexpected_failures\":1,\"stop_condition\":\"duration\",\"cleanup\":\"ok\","
			  "\"evidence_path\":\"/x\"}";
	ok(sp_ev_summary_parse(&s, sum, strlen(sum), &e) == 0, "summary parses");
	ok(s.ops_fail == 1 && s.measured_duration_s == 60.5 && !strcmp(s.stop_condition, "duration"), "summary typed");
	sp_ev_summary_free(&s);
	char *badsum = strdup(sum);
	char *p = strstr(badsum, "\"sample_count\":6");
	memcpy(p + 15, "\"", 1);
	ok(sp_ev_summary_parse(&s, badsum, strlen(badsum), &e) < 0, "malformed summary rejected");
	free(badsum);
	char *badstop = strdup(sum);
	p = strstr(badstop, "duration\",\"cleanup");
	memcpy(p, "whatever", 8);
	ok(sp_ev_summary_parse(&s, badstop, strlen(badstop), &e) < 0, "unknown stop_condition rejected");
	like_str(e.msg, "stop_condition", "field named");
	is_int(e.exit_code, SP_EXIT_USAGE, "a bad summary is a usage error (exit 2)");
	free(badstop);

	const char *base = "{\"schema\":\"sandprobe.baseline.v1\",\"scenarios\":{\"A\":{\"count\":10,\"p50\":1,\"p95\":2.5,\"p99\":3}}}";
	put("base.json", base, strlen(base));
	char path[256];
	snprintf(path, sizeof path, "%s/base.json", tmpdir);
	sp_ev_baseline bl;
	ok(sp_baseline_load(&bl, path, &e) == 0 && bl.n == 1, "baseline loads");
	ok(bl.n == 1 && !strcmp(bl.v[0].scenario, "A") && bl.v[0].p95 == 2.5, "baseline p95 read");
	ok(bl.n == 1 && strcmp(bl.v[0].scenario, "B") != 0, "unknown scenario has no baseline");
	sp_baseline_free(&bl);
	const char *nob = "{\"schema\":\"sandprobe.baseline.v1\",\"scenarios\":{\"A\":{\"count\":10,\"p50\":1,\"p99\":3}}}";
	put("base.json", nob, strlen(nob));
	ok(sp_baseline_load(&bl, path, &e) < 0, "baseline without p95 rejected");
	like_str(e.msg, "scenarios.A.p95", "missing field named");
	like_str(e.msg, path, "the baseline message starts with its path");
	is_int(e.exit_code, SP_EXIT_USAGE, "a bad baseline is a usage error (exit 2)");
}

/* the gate catalogue: exact ids before families, families need a suffix */
static void gate_catalogue(void)
{
	const sp_ev_gate_info *g = sp_gate_info_find("cleanup.status");
	ok(g && !strcmp(g->id, "cleanup.status"), "an exact entry wins over its family (cleanup.status)");
	g = sp_gate_info_find("cleanup.owned_processes");
	ok(g && !strcmp(g->id, "cleanup.owned_processes"), "cleanup.owned_processes has its own entry");
	g = sp_gate_info_find("cleanup.my_extra_counter");
	ok(g && !strcmp(g->id, "cleanup.*"), "an extra counter falls in the cleanup.* family");
	g = sp_gate_info_find("latency.p95.RUN-01");
	ok(g && !strcmp(g->id, "latency.p95.*"), "a scenario's latency gate falls in latency.p95.*");
	ok(sp_gate_info_find("cleanup.") == NULL, "a family needs a non-empty suffix");
	ok(sp_gate_info_find("nosuch.gate") == NULL && sp_gate_info_find("leak") == NULL, "unknown ids are not found");
	g = sp_gate_info_find("leak.rss_slope");
	ok(g && strstr(g->techniques, "T1499"), "leak.rss_slope detects T1499");
	size_t dup = 0;
	for (size_t i = 0; i < sp_gate_catalog_count; i++)
		for (size_t j = i + 1; j < sp_gate_catalog_count; j++)
			dup += !strcmp(sp_gate_catalog[i].id, sp_gate_catalog[j].id);
	is_int(dup, 0, "no gate id is catalogued twice");
}

/* duplicate keys are found with a hash set: 115,000 keys (59 s when it was
 * quadratic) parse in linear time; the timing bound is loose on purpose */
static void kv_linear(void)
{
	size_t nkeys = 115000;
	char *buf = malloc(nkeys * 24 + 32);
	size_t len = 0;
	for (size_t i = 0; i < nkeys; i++)
		len += (size_t)snprintf(buf + len, 40, "key.%zu=v\n", i);
	sp_ev_kv *k;
	size_t n;
	sp_error err;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = sp_kv_parse_buf(buf, len, &k, &n, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	ok(rc == 0 && n == nkeys, "115,000 distinct keys parse");
	ok(s < 5.0, "115,000 keys in %.3f s (quadratic detection took 59 s)", s);
	sp_kv_free(k, n);
	len += (size_t)snprintf(buf + len, 40, "key.57=again\n");
	ok(sp_kv_parse_buf(buf, len, &k, &n, &err) < 0, "a duplicate after 115,000 keys is found");
	like_str(err.msg, "line 115001: key key.57 given twice (first on line 58)", "it names both lines");
	free(buf);

	sp_ev_strset set = {0};
	static const char *const words[] = {"a", "b", "RUN-01", "RUN-02", "", "a"};
	size_t dups = 0;
	for (size_t i = 0; i < 6; i++)
		dups += sp_strset_put(&set, words[i], strlen(words[i]), i) != SIZE_MAX;
	ok(dups == 1 && set.n == 5, "a string set keeps distinct strings (the empty one too)");
	ok(sp_strset_get(&set, "RUN-02", 6) == 3 && sp_strset_get(&set, "RUN-03", 6) == SIZE_MAX, "lookups by value");
	sp_strset_free(&set);
}

/* the shared secret shapes: the writer's output never trips the finder */
static void secrets(void)
{
	static const char *const lines[] = {
		"password=hunter2", "export PASSWD='s3cr3t!'", "api_key: abcdef123", "Authorization: Bearer abcdef0123456789",
		"proxy-authorization: Basic dXNlcjpwYXNz", "curl -H 'authorization: token ghp_0123456789abcdefghijABCDEFGHIJ0123'",
		"OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123", "key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx",
		"https://user:pass1234@example.invalid/repo", "AKIAIOSFODNN7EXAMPLE", "xoxb-0123456789-abcdefghij",
		"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"-----BEGIN PGP PRIVATE KEY BLOCK-----", "-----BEGIN OPENSSH PRIVATE KEY-----",
		"session_id=0123456789abcdef client_secret=xyz token=[REDACTED]"};
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		size_t so = 0, eo = 0;
		const char *name = NULL;
		ok(sp_secret_find(lines[i], 0, &so, &eo, &name) == 1, "secret shape found in '%s' (%s)", lines[i],
		   name ? name : "-");
		char *red = sp_secret_redact(lines[i], strlen(lines[i]), NULL);
		ok(sp_secret_find(red, 0, &so, &eo, &name) == 0 && strstr(red, "[REDACTED]"),
		   "the writer's redaction '%s' has no finding left", red);
		free(red);
	}
	static const char *const clean[] = {"token=[REDACTED]", "Authorization: Bearer [REDACTED]",
					    "https://u:[REDACTED]@example.invalid/r", "step 3: ok, 12 tokens", "the key is ok",
					    "sk-short", "AKIAshort"};
	for (size_t i = 0; i < sizeof clean / sizeof clean[0]; i++) {
		size_t so = 0, eo = 0;
		const char *name = NULL;
		ok(sp_secret_find(clean[i], 0, &so, &eo, &name) == 0, "no finding in '%s'", clean[i]);
	}
	const char *block = "a\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----\nb\n";
	char *red = sp_secret_redact(block, strlen(block), NULL);
	is_str(red, "a\n[REDACTED]\n[REDACTED]\n[REDACTED]\n[REDACTED]\nb\n", "a private key block is redacted line by line");
	unsigned line = 0;
	const char *name = NULL;
	size_t hits = 99;
	ok(sp_secret_scan(red, strlen(red), &line, &name, &hits) == 0 && hits == 0, "the redacted block has no finding");
	free(red);
	char *raw = sp_xstrdup(block);
	ok(sp_secret_scan(raw, strlen(raw), &line, &name, &hits) == 0 && hits == 1 && line == 2,
	   "the raw block is found on line 2");
	free(raw);
}

/* listing a bundle: what it holds is a usage error, a directory that cannot
 * be read an internal one carrying errno; the messages name the entry */
static void bundle_list(void)
{
	sp_error err;
	char **paths;
	size_t n;
	char dir[300], sub[320];
	snprintf(dir, sizeof dir, "%s/nosuch", tmpdir);
	ok(sp_bundle_list(dir, &paths, &n, &err) < 0 && paths == NULL && n == 0, "a missing bundle directory fails");
	char want[400];
	snprintf(want, sizeof want, "%s: %s", dir, strerror(ENOENT));
	is_str(err.msg, want, "the message is '<dir>: <strerror>'");
	ok(err.errnum == ENOENT && err.exit_code == SP_EXIT_INTERNAL, "an unreadable directory is internal with errno");
	snprintf(dir, sizeof dir, "%s/bl", tmpdir);
	snprintf(sub, sizeof sub, "%s/logs", dir);
	if (mkdir(dir, 0755) < 0 || mkdir(sub, 0755) < 0)
		abort();
	put("bl/a.txt", "a\n", 2);
	put("bl/logs/b.log", "b\n", 2);
	ok(sp_bundle_list(dir, &paths, &n, &err) == 0 && n == 2, "two files listed");
	ok(n == 2 && !strcmp(paths[0], "a.txt") && !strcmp(paths[1], "logs/b.log"), "relative paths, sorted");
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	snprintf(sub, sizeof sub, "%s/logs/fifo", dir);
	if (mkfifo(sub, 0600) < 0)
		abort();
	ok(sp_bundle_list(dir, &paths, &n, &err) < 0, "a fifo in the bundle fails the listing");
	is_str(err.msg, "logs/fifo: not a regular file or directory (special file)", "the fifo is named");
	is_int(err.exit_code, SP_EXIT_USAGE, "a fifo in a bundle is a usage error (exit 2)");
	sp_error merr;
	ok(sp_ev_manifest_build(dir, &merr) == NULL, "no MANIFEST is built for that bundle");
	is_str(merr.msg, err.msg, "sp_ev_manifest_build passes the listing's message on");
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		return 3;
	values();
	kv();
	meta();
	rows();
	manifest();
	bundle_list();
	json_docs();
	gate_catalogue();
	kv_linear();
	secrets();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		ok(0, "cleanup of %s", tmpdir);
	return done_testing();
}
