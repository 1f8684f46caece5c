/* Unit tests for the soak building blocks: workload parser (values,
 * defaults, file:line errors), placeholder expansion, redaction, bounded
 * capture, the sampler's ownership proof and the manifest. */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit/tap.h"
#include "soak/bundle.h"
#include "soak/proc.h"
#include "soak/sampler.h"
#include "soak/workload.h"
#include "core/util.h"

static const char *good =
	"version: 1\n"
	"name: unit\n"
	"runtime: {name: runc, version: [runc, --version]}\n"
	"state_root: /tmp\n"
	"prefix: spunit\n"
	"rootfs: \"{state}/rootfs\"\n"
	"concurrency: 3\n"
	"rate: 2.5\n"
	"mix: {lifecycle: 50, service: 0, storage: 25, network: 15, fault: 10}\n"
	"thresholds: {fd_growth_max: 4, disk_budget_bytes: 1000}\n"
	"setup:\n"
	"  - [sh, -c, \"mkdir -p {rootfs}\"]\n"
	"inventory: [sh, -c, \"echo '{\\\"schema\\\":1}' ${HOME} {prefix}\"]\n"
	"counters:\n"
	"  - {name: boxes, dir: \"{state}/runc\"}\n"
	"scenarios:\n"
	"  - id: RUN-01\n"
	"    class: lifecycle\n"
	"    parallel: true\n"
	"    steps:\n"
	"      - {op: create, argv: [runc, create, \"{id}\"], timeout_ms: 500}\n"
	"      - {op: neg, argv: [\"false\"], expect: fail, invariant: true}\n"
	"  - id: RUN-02\n"
	"    class: fault\n"
	"    steps:\n"
	"      - {op: start, argv: [runc, start, \"{sid}\"]}\n"
	"    recover: [[runc, delete, \"{id}\"]]\n"
	"    fault: {id: F02, step: start, pidfile: \"{state}/{id}.pid\", after_ms: 5, rto_ms: 99, expected: back}\n";

static int parse(const char *text, sp_soak_workload *w, sp_error *err)
{
	memset(err, 0, sizeof *err);
	return sp_workload_parse(w, text, strlen(text), "w.yaml", err);
}

static void test_good(void)
{
	sp_soak_workload w;
	sp_error err;
	int r = parse(good, &w, &err);
	is_int(r, 0, "good workload parses");
	if (r < 0) {
		printf("# %s\n", err.msg);
		return;
	}
	is_str(w.name, "unit", "name");
	is_str(w.runtime, "runc", "runtime name");
	is_int(w.version_argv.n, 2, "version argv");
	is_int(w.concurrency, 3, "concurrency");
	ok(w.rate > 2.49 && w.rate < 2.51, "rate");
	is_int(w.mix[SP_CLASS_STORAGE], 25, "mix storage");
	is_int(w.fd_growth_max, 4, "threshold fd_growth_max");
	is_int(w.disk_budget_bytes, 1000, "threshold disk budget");
	ok(w.p95_regression_pct == 30 && w.rss_slope_mib_per_day == 50, "threshold defaults");
	is_int(w.setup.n, 1, "setup steps");
	is_str(w.setup.v[0].op, "setup-1", "bare argv steps are named by section");
	is_int(w.nscen, 2, "two scenarios");
	is_str(w.scen[0].id, "RUN-01", "scenario id");
	is_int(w.scen[0].cls, SP_CLASS_LIFECYCLE, "class");
	ok(w.scen[0].parallel, "parallel");
	is_str(w.scen[0].api, "runc", "api defaults to the runtime");
	is_int(w.scen[0].steps.v[0].timeout_ms, 500, "step timeout");
	is_int(w.scen[0].steps.v[1].timeout_ms, 30000, "default timeout");
	ok(w.scen[0].steps.v[1].expect_fail && w.scen[0].steps.v[1].invariant, "expect fail, invariant");
	ok(w.scen[1].fault.present, "fault present");
	is_str(w.scen[1].fault.id, "F02", "fault id");
	is_int(w.scen[1].fault.signal, SIGKILL, "F02 default signal");
	is_int(w.scen[1].fault.rto_ms, 99, "rto");
	is_str(w.scen[1].fault.expected, "back", "expected outcome");
	is_int(w.ncounters, 1, "counter");
	is_str(w.counters[0].dir, "{state}/runc", "counter dir kept unexpanded");
	sp_workload_free(&w);
}

static void bad(const char *label, const char *from, const char *to, const char *want)
{
	const char *at = strstr(good, from);
	if (!at) {
		ok(0, "%s: pattern '%s' not in the good workload", label, from);
		return;
	}
	char *text = sp_xasprintf("%.*s%s%s", (int)(at - good), good, to, at + strlen(from));
	sp_soak_workload w;
	sp_error err;
	int r = parse(text, &w, &err);
	ok(r < 0 && err.exit_code == SP_EXIT_USAGE, "%s: usage error", label);
	like_str(err.msg, want, "%s: message", label);
	if (r == 0)
		sp_workload_free(&w);
	free(text);
}

/* F05 (fault proxy mode file, blob stores) and F09 (runtime link, N, N+1) */
static void test_f05_f09(void)
{
	const char *from = "id: F02, step: start, pidfile: \"{state}/{id}.pid\", after_ms: 5, rto_ms: 99,";
	const char *at = strstr(good, from);
	ok(at != NULL, "F05: the good workload has its F02");
	if (!at)
		return;
	char *text = sp_xasprintf("%.*sid: F05, step: start, pidfile: \"{state}/p.pid\", portfile: \"{state}/p.port\", "
				  "modefile: \"{state}/p.mode\", mode: \"slow:100\", window_ms: 1500, blobs: [\"{state}/c\", /abs], rto_ms: 9000,%s",
				  (int)(at - good), good, at + strlen(from));
	sp_soak_workload w;
	sp_error err;
	int r = parse(text, &w, &err);
	is_int(r, 0, "F05 parses");
	if (r == 0) {
		const sp_soak_wfault *f = &w.scen[1].fault;
		is_str(f->id, "F05", "F05 id");
		is_str(f->modefile, "{state}/p.mode", "F05 modefile kept unexpanded");
		is_str(f->mode, "slow:100", "F05 mode");
		is_int(f->window_ms, 1500, "F05 window");
		is_int(f->blobs.n, 2, "F05 blob stores");
		sp_workload_free(&w);
	}
	free(text);
	text = sp_xasprintf("%.*sid: F09, step: start, tasks: [sh, \"{state}/list.sh\"], link: \"{state}/bin/rt\", from: /usr/sbin/runc, "
			    "to: \"{state}/rt-next\", next: fail-closed, rto_ms: 9000,%s",
			    (int)(at - good), good, at + strlen(from));
	r = parse(text, &w, &err);
	is_int(r, 0, "F09 parses");
	if (r == 0) {
		const sp_soak_wfault *f = &w.scen[1].fault;
		is_str(f->id, "F09", "F09 id");
		is_str(f->link, "{state}/bin/rt", "F09 link kept unexpanded");
		is_str(f->from, "/usr/sbin/runc", "F09 from");
		is_str(f->to, "{state}/rt-next", "F09 to");
		ok(f->next_fail_closed, "F09 next: fail-closed");
		ok(f->pidfile == NULL, "F09 has no pid file");
		sp_workload_free(&w);
	}
	free(text);
}

/* F06 (pid file, port file) and F04 (pid file, task list command): SIGTERM by default */
static void test_f06(void)
{
	const char *from = "id: F02, step: start,";
	const char *at = strstr(good, from);
	ok(at != NULL, "F06: the good workload has its F02");
	if (!at)
		return;
	char *text = sp_xasprintf("%.*sid: F06, portfile: \"{state}/{sid}.port\", step: start,%s", (int)(at - good), good,
				  at + strlen(from));
	sp_soak_workload w;
	sp_error err;
	int r = parse(text, &w, &err);
	is_int(r, 0, "F06 parses");
	if (r == 0) {
		is_str(w.scen[1].fault.id, "F06", "F06 id");
		is_str(w.scen[1].fault.portfile, "{state}/{sid}.port", "F06 portfile kept unexpanded");
		is_str(w.scen[1].fault.pidfile, "{state}/{id}.pid", "F06 pidfile");
		is_int(w.scen[1].fault.signal, SIGTERM, "F06 default signal TERM");
		sp_workload_free(&w);
	}
	free(text);
	/* F04: the task list command, kept unexpanded */
	text = sp_xasprintf("%.*sid: F04, tasks: [sh, \"{state}/tasks.sh\", \"{sid}\"], step: start,%s", (int)(at - good), good,
			    at + strlen(from));
	r = parse(text, &w, &err);
	is_int(r, 0, "F04 parses");
	if (r == 0) {
		is_str(w.scen[1].fault.id, "F04", "F04 id");
		is_int(w.scen[1].fault.tasks.n, 3, "F04 tasks argv");
		is_str(w.scen[1].fault.tasks.v[1], "{state}/tasks.sh", "F04 tasks kept unexpanded");
		is_int(w.scen[1].fault.signal, SIGTERM, "F04 default signal TERM");
		sp_workload_free(&w);
	}
	free(text);
}

static void test_bad(void)
{
	bad("unknown key", "rate: 2.5", "rat: 2.5", "w.yaml:8: unknown key 'rat' in the workload");
	bad("bad rate", "rate: 2.5", "rate: fast", "w.yaml:8: 'rate' must be a number");
	bad("negative rate", "rate: 2.5", "rate: -1", "w.yaml:8: 'rate' must be a number");
	bad("bool", "parallel: true", "parallel: yes", "w.yaml:19: 'parallel' must be true or false");
	bad("expect", "expect: fail", "expect: maybe", "w.yaml:22: 'expect' must be ok or fail");
	bad("duplicate op", "op: neg", "op: create", "duplicate op 'create'");
	bad("duplicate scenario", "id: RUN-02", "id: run-01", "duplicate scenario id 'run-01'");
	bad("empty argv", "[runc, start, \"{sid}\"]", "[]", "w.yaml:26: 'argv' must list at least the program");
	bad("argv item map", "[runc, start, \"{sid}\"]", "[runc, {a: b}]", "w.yaml:26: every item of 'argv' must be a string");
	bad("counter both", "dir: \"{state}/runc\"", "dir: x, argv: [ls]", "needs exactly one of 'dir' or 'argv'");
	bad("fault outside class", "class: fault", "class: storage", "'fault' is only allowed in a scenario of class fault");
	bad("pidfile on F01", "id: F02", "id: F01", "'pidfile' is for F02 to F06 only");
	bad("F06 without portfile", "id: F02", "id: F06", "F06 needs 'portfile'");
	bad("F04 without tasks", "id: F02", "id: F04", "F04 needs 'tasks'");
	bad("tasks not a list", "id: F02, step: start", "id: F04, tasks: ls, step: start", "'tasks' must be");
	bad("tasks placeholder", "id: F02, step: start", "id: F04, tasks: [ls, \"{nope}\"], step: start", "unknown placeholder '{nope}'");
	bad("tasks on F02", "after_ms: 5", "tasks: [ls]", "'tasks' is for F04 and F09 only");
	bad("portfile on F02", "after_ms: 5", "portfile: \"{state}/p.port\"", "'portfile' is for F05 and F06 only");
	bad("F05 without modefile", "id: F02", "id: F05, portfile: p", "F05 needs 'modefile'");
	bad("F05 without mode", "id: F02", "id: F05, portfile: p, modefile: \"{state}/m\"", "F05 needs 'mode'");
	bad("F05 mode pass", "id: F02", "id: F05, portfile: p, modefile: \"{state}/m\", mode: pass", "'mode' must be disconnect");
	bad("F05 bad mode", "id: F02", "id: F05, portfile: p, modefile: \"{state}/m\", mode: \"truncate:x\"", "needs a number in range");
	bad("F05 relative modefile", "id: F02", "id: F05, portfile: p, modefile: m, mode: stall", "'modefile' must be an absolute path");
	bad("F05 window over rto", "id: F02", "id: F05, portfile: p, modefile: /m, mode: stall, window_ms: 20000", "must be shorter than its rto_ms");
	bad("modefile on F02", "after_ms: 5", "modefile: /m", "'modefile' is for F05 only");
	bad("F09 without link", "id: F02, step: start, pidfile: \"{state}/{id}.pid\",", "id: F09, tasks: [ls], step: start,", "F09 needs 'link'");
	bad("F09 with pidfile", "id: F02", "id: F09, tasks: [ls], link: /l, from: /a, to: /b", "'pidfile' is for F02 to F06 only");
	bad("F09 bad next", "id: F02, step: start, pidfile: \"{state}/{id}.pid\",", "id: F09, tasks: [ls], link: /l, from: /a, to: /b, next: maybe, step: start,", "'next' must be keep or fail-closed");
	bad("link on F02", "after_ms: 5", "link: /l", "'link' is for F09 only");
	bad("portfile placeholder", "id: F02, step: start", "id: F06, portfile: \"{nope}\", step: start", "unknown placeholder '{nope}'");
	bad("signal", "after_ms: 5", "signal: STOP", "'signal' must be KILL, TERM, INT, HUP or QUIT");
	bad("version", "version: 1", "version: 2", "w.yaml:1: unsupported workload version '2'");
	bad("not a map", "version: 1\n", "- 1\n", "");
	bad("tab indent", "name: unit", "name:\tunit\n\t- x", "w.yaml:");
	bad("placeholder", "mkdir -p {rootfs}", "mkdir -p {root}", "w.yaml:12: unknown placeholder '{root}'");
	bad("rootfs undeclared", "rootfs: \"{state}/rootfs\"\n", "", "w.yaml:11: placeholder '{rootfs}' needs a top-level 'rootfs' key");
	bad("anchor", "name: unit", "name: &x unit", "anchors are not allowed");
	bad("scenario missing steps", "    steps:\n      - {op: start", "    stepz:\n      - {op: start", "unknown key 'stepz' in a scenario");
	bad("concurrency range", "concurrency: 3", "concurrency: 300", "'concurrency' must be an integer from 1 to 256");
	bad("timeout zero", "timeout_ms: 500", "timeout_ms: 0", "'timeout_ms' must be an integer from 1 to 3600000");
	/* a tiny rate once overflowed 1e9/rate into "unbounded" */
	bad("tiny rate", "rate: 2.5", "rate: 0.0000000001", "w.yaml:8: 'rate' must be 0 (unbounded) or from 0.0001 to 100000");
	bad("newline in a duplicate key", "name: unit", "name: unit\n\"a\\nb\": 1\n\"a\\nb\": 2", "w.yaml:4: duplicate key 'a?b'");
	{
		/* every message is one line, whatever the file's strings hold */
		const char *at = strstr(good, "class: lifecycle");
		char *text = sp_xasprintf("%.*sclass: \"life\\ncycle\"%s", (int)(at - good), good, at + strlen("class: lifecycle"));
		sp_soak_workload w;
		sp_error err;
		ok(parse(text, &w, &err) < 0 && !strchr(err.msg, '\n'), "a value with a newline: the error stays on one line (%s)", err.msg);
		free(text);
	}
}

/* Rejecting a workload is linear in its size: one mapping of many keys
 * (the duplicate-key check was a scan per key, 36 s for 1 MB). */
/* this process's CPU time: what other processes do to the machine does not count */
static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double reject_ms(size_t nkeys)
{
	size_t cap = nkeys * 24 + 64, len = 0;
	char *text = sp_xmalloc(cap);
	len += (size_t)snprintf(text + len, cap - len, "version: 1\nthresholds:\n");
	for (size_t i = 0; i < nkeys; i++)
		len += (size_t)snprintf(text + len, cap - len, "  key%08zu: %zu\n", i, i);
	sp_soak_workload w;
	sp_error err = {0};
	double ms = 1e9;
	int r = 0;
	for (int rep = 0; rep < 3; rep++) { /* the best of three, in CPU time: the machine is shared */
		uint64_t t = cpu_ns();
		r = sp_workload_parse(&w, text, len, "big.yaml", &err);
		double m = (double)(cpu_ns() - t) / 1e6;
		if (m < ms)
			ms = m;
	}
	ok(r < 0 && err.exit_code == SP_EXIT_USAGE, "%zu keys (%zu bytes): rejected as usage error (%s)", nkeys, len, err.msg);
	free(text);
	return ms;
}

static void test_linear_reject(void)
{
	/* 8x the keys: linear takes about 8x, a quadratic check 64x */
	double small = reject_ms(12000), large = reject_ms(96000);
	ok(large < 24 * (small > 1 ? small : 1), "8x the keys take %.1f ms against %.1f ms: linear, not quadratic", large, small);
	ok(large < 5000, "a workload of 96000 keys (2 MB) is rejected in %.0f ms", large);
}

static void test_expand(void)
{
	sp_soak_vars v = {.id = "p-run01-3", .sid = "p-run01", .gen = "3", .state = "/s", .prefix = "p"};
	char *s = sp_expand("{state}/{id}.pid", &v);
	is_str(s, "/s/p-run01-3.pid", "expand placeholders");
	free(s);
	s = sp_expand("${HOME} {print $1} {{.Names}} {} {\"a\":1} gen={gen}", &v);
	is_str(s, "${HOME} {print $1} {{.Names}} {} {\"a\":1} gen=3", "shell, awk, Go and JSON braces stay literal");
	free(s);
	s = sp_expand("{rootfs}", &v);
	ok(s == NULL, "an unavailable placeholder does not expand");
	free(s);
}

static void test_redact(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"password=hunter22 ok", "password=[REDACTED] ok"},
		{"API_KEY: abcdef123456", "API_KEY: [REDACTED]"},
		{"\"token\": \"tok123456789\"", "\"token\": \"[REDACTED]\""},
		{"Authorization: Bearer abc.def.ghi123", "Authorization: Bearer [REDACTED]"},
		{"https://user:s3cr3t@host/x", "https://user:[REDACTED]@host/x"},
		{"key AKIAABCDEFGHIJKLMNOP end", "key [REDACTED] end"},
		{"ghp_0123456789abcdefghijABCDEFGHIJ", "[REDACTED]"},
		{"nothing secret here: 42 tokens", "nothing secret here: 42 tokens"},
		{"-----BEGIN PRIVATE KEY-----\nMIIEv\n-----END PRIVATE KEY-----\nafter", "[REDACTED]\n[REDACTED]\n[REDACTED]\nafter"},
		/* the BEGIN line was elided: the body before END is redacted back to the elision line */
		{"head\n[... 99 bytes elided ...]\nMIIEvQIBADAN\nBgkqhkiG9w0\n-----END PRIVATE KEY-----\ntail",
		 "head\n[... 99 bytes elided ...]\n[REDACTED]\n[REDACTED]\n[REDACTED]\ntail"},
	};
	for (size_t i = 0; i < SP_ARRAY_SIZE(cases); i++) {
		char *r = sp_redact(cases[i].in, strlen(cases[i].in), NULL);
		is_str(r, cases[i].out, "redact case %zu", i);
		free(r);
	}
	/* NUL bytes inside a line (once a heap overflow): kept as spaces, and
	 * the rest of the line is still redacted */
	static const char nul[] = "a\0b token=tok123456789 \0\0 password=hunter22\nnext";
	size_t olen = 0;
	char *r = sp_redact(nul, sizeof nul - 1, &olen);
	is_str(r, "a b token=[REDACTED]    password=[REDACTED]\nnext", "NUL bytes: the whole line kept and redacted");
	is_int(olen, strlen(r), "NUL bytes: no NUL in the output");
	free(r);
	char *zeros = calloc(1, 100000);
	r = sp_redact(zeros, 100000, &olen);
	ok(olen == 100000 && r[0] == ' ' && r[99999] == ' ', "100000 NUL bytes: 100000 spaces");
	free(r);
	free(zeros);
}

static void test_capture(void)
{
	sp_soak_capture *c = calloc(1, sizeof *c);
	char buf[1000];
	memset(buf, 'x', sizeof buf);
	buf[sizeof buf - 1] = '\n';
	for (int i = 0; i < 200; i++) {
		buf[0] = (char)('A' + i % 26);
		sp_capture_add(c, buf, sizeof buf);
	}
	size_t len;
	char *t = sp_capture_text(c, &len);
	ok(len <= 65536, "capture: head + tail + elision line <= 64 KiB (%zu)", len);
	like_str(t, "bytes elided ...]", "capture: elision line");
	ok(t[0] == 'A', "capture: head kept");
	ok(t[len - 1] == '\n' && t[len - 2] == 'x' && c->total == 200000, "capture: tail kept, total counted");
	free(t);
	memset(c, 0, sizeof *c);
	sp_capture_add(c, "short\n", 6);
	t = sp_capture_text(c, &len);
	is_str(t, "short\n", "capture: small output verbatim");
	free(t);

	/* a secret straddling the elision point: the kept tail starts at a line
	 * boundary, so a line whose key was elided is dropped, never kept as a
	 * bare value; the head ends at a line boundary too */
	memset(c, 0, sizeof *c);
	const size_t total = 3 * SP_CAP_HALF;
	char *big = sp_xmalloc(total + 1);
	memset(big, 'y', total);
	for (size_t i = 99; i < total; i += 100)
		big[i] = '\n';
	/* a line "api_key: S3CRETVALUE" across the start of the kept tail */
	const char *line = "api_key: S3CRETVALUE-0123456789";
	size_t cut = total - SP_CAP_HALF; /* first byte of the kept tail */
	size_t at = cut - 12;             /* the key before the cut, the value after it */
	memcpy(big + at, line, strlen(line));
	big[at - 1] = '\n';
	big[at + strlen(line)] = '\n';
	/* and a line across the end of the head */
	memcpy(big + SP_CAP_HALF - 9, "password: hunter22", 18);
	big[SP_CAP_HALF - 10] = '\n';
	sp_capture_add(c, big, total);
	t = sp_capture_text(c, &len);
	ok(!strstr(t, "S3CRET") && !strstr(t, "VALUE-0123"), "elision: no part of a value whose key was cut off survives");
	ok(!strstr(t, "passw") && !strstr(t, "hunter"), "elision: the partial last line of the head is dropped");
	char *el = strstr(t, "bytes elided ...]\n");
	ok(el && el[-1] != '\n', "elision line present");
	ok(el && (el + 18 == t + len || el[18] == 'y'), "the kept tail starts with a whole line");
	size_t hl = (size_t)(strstr(t, "[... ") - t);
	ok(hl > 0 && t[hl - 1] == '\n', "the kept head ends with a whole line");
	unsigned long long shown = 0;
	sscanf(strstr(t, "[... ") + 5, "%llu", &shown);
	is_int((long long)(hl + shown + (size_t)(t + len - (el + 18))), (long long)total, "kept + elided bytes add up to the total");
	char *red = sp_redact(t, len, NULL);
	ok(!strstr(red, "S3CRET"), "elided and redacted: the secret is gone");
	free(red);
	free(t);
	free(big);
	free(c);
}

static void test_proc_and_ownership(void)
{
	char dir[] = "/tmp/sp-unit-XXXXXX";
	ok(mkdtemp(dir) != NULL, "temp dir");
	char *marker = sp_xasprintf("%s=spunit-own1", SP_SOAK_ENV);
	char *envp[] = {marker, (char *)"PATH=/usr/bin:/bin", NULL};
	/* a detached grandchild carrying the marker: owned through its environment */
	char *argv[] = {(char *)"sh", (char *)"-c", (char *)"setsid sleep 30 </dev/null >/dev/null 2>&1 & echo $!", NULL};
	sp_soak_capture *cap = calloc(1, sizeof *cap);
	sp_soak_proc_result res;
	sp_error err = {0};
	sp_soak_run_opts o = {.timeout_ms = 5000, .interrupt_ms = -1, .envp = envp};
	is_int(sp_proc_run(argv, &o, cap, &res, &err), 0, "proc_run");
	ok(sp_proc_ok(&res), "child exited 0");
	char *t = sp_capture_text(cap, NULL);
	pid_t gc = (pid_t)atoi(t);
	free(t);
	sp_soak_sampler *s = sp_sampler_new(getpid(), "spunit-own1", dir);
	/* The grandchild may still be inside execve (setsid, then sleep) when
	 * the first scan sees it; such a verdict is not kept, so a later scan
	 * (a few ms on) must judge it owned. A verdict cached as foreign would
	 * only be revisited after SP_RECHECK scans, well past this bound. */
	int own = 0, scans = 0;
	for (; scans < 8; scans++) {
		own = sp_sampler_owner(s, gc);
		if (own & SP_OWN_ENV)
			break;
		usleep(20000);
	}
	ok(own & SP_OWN_ENV, "detached grandchild owned by its environment marker (%d, after %d scans)", own, scans + 1);
	ok(sp_sampler_owner(s, 1) == 0, "pid 1 is not owned");
	sp_soak_sample smp = {0};
	sp_sampler_take(s, &smp);
	ok(smp.owned_processes >= 1 && smp.global_processes > smp.owned_processes, "sample counts owned and global processes");
	for (int i = 0; i < 3; i++)
		sp_sampler_take(s, &smp);
	ok(smp.owned_processes >= 1 && smp.runner_rss_bytes > 0 && smp.runner_fds > 0,
	   "repeated samples (cached handles) still see owned processes and the runner (%lld, %lld)", smp.owned_processes,
	   smp.runner_rss_bytes);
	kill(gc, SIGKILL);
	sp_sampler_free(s);
	/* a timeout kills the process group */
	char *slow[] = {(char *)"sleep", (char *)"10", NULL};
	o.timeout_ms = 100;
	sp_proc_run(slow, &o, NULL, &res, &err);
	ok(res.timed_out && WIFSIGNALED(res.status), "timeout kills the child");
	char code[64];
	sp_proc_describe(&res, code, sizeof code);
	is_str(code, "timeout", "timeout described");
	/* a planned interruption */
	o.timeout_ms = 5000;
	o.interrupt_ms = 50;
	o.interrupt_sig = SIGKILL;
	sp_proc_run(slow, &o, NULL, &res, &err);
	ok(res.interrupted && !res.interrupt_missed, "planned interruption lands");
	char *nope[] = {(char *)"/nonexistent/prog", NULL};
	o.interrupt_ms = -1;
	sp_proc_run(nope, &o, NULL, &res, &err);
	ok(res.spawn_errno == ENOENT, "spawn failure reported");
	free(cap);
	free(marker);
	rmdir(dir);
}

/* a child of the test process holding a socket pair: owned by descent, its
 * fds and sockets counted; after it exits, nothing owned remains */
static void test_sockets(void)
{
	int sv[2];
	ok(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	pid_t c = fork();
	if (c == 0) {
		pause();
		_exit(0);
	}
	close(sv[0]);
	close(sv[1]);
	sp_soak_sampler *s = sp_sampler_new(getpid(), "spunit-nomatch", "/nonexistent-state");
	sp_soak_sample smp = {0};
	sp_sampler_take(s, &smp);
	sp_sampler_take(s, &smp);
	ok(smp.owned_processes == 1, "the forked child is owned by descent (%lld)", smp.owned_processes);
	ok(smp.owned_sockets == 2, "its two sockets are counted (%lld)", smp.owned_sockets);
	ok(smp.owned_fds >= 5, "its fds are counted (%lld)", smp.owned_fds);
	ok(sp_sampler_owner(s, c) & SP_OWN_TREE, "owner: by descent");
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	sp_sampler_take(s, &smp);
	ok(smp.owned_processes == 0 && smp.owned_sockets == 0 && smp.owned_fds == 0, "after it exits: nothing owned");
	sp_sampler_free(s);
}

/* Children sharing the runner's address space (every spawn between vfork
 * and exec) showed up with the runner's whole RSS, a leak slope out of
 * nothing. A child made with clone(CLONE_VM) stands for that moment: its own
 * /proc RSS is the parent's, and owned RSS must not count it; nor the copies
 * of our descriptors it holds until exec (under load they made an fd growth
 * out of nothing). A forked child that dirties memory of its own must still
 * count, and so must the descriptors it holds (a leak in a child is never
 * hidden). */
__attribute__((no_sanitize("address", "undefined"))) static int vm_child(void *arg)
{
	(void)arg;
	for (;;)
		syscall(SYS_pause);
	return 0;
}

static long long stat_rss(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
	if (sp_read_file(path, buf, sizeof buf) <= 0)
		return -1;
	long long size = 0, res = 0;
	if (sscanf(buf, "%lld %lld", &size, &res) != 2)
		return -1;
	return res * sysconf(_SC_PAGESIZE);
}

static long long fd_count(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	return sp_count_dir(path);
}

static void test_shared_mm(void)
{
	const size_t big = 48u << 20, mine = 32u << 20;
	enum { NFD = 40 };
	int fds[NFD];
	for (int i = 0; i < NFD; i++)
		fds[i] = fcntl(0, F_DUPFD_CLOEXEC, 3);
	char *mem = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ok(mem != MAP_FAILED, "48 MiB mapped");
	memset(mem, 1, big);
	size_t stsz = 256 * 1024;
	char *stack = mmap(NULL, stsz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	pid_t vm = clone(vm_child, stack + stsz, CLONE_VM | SIGCHLD, NULL);
	ok(vm > 0, "a child sharing our address space (clone CLONE_VM)");
	/* ground truth, without the sampler: its RSS is ours */
	long long vrss = stat_rss(vm);
	ok(vrss >= (long long)big, "its own /proc RSS includes our 48 MiB (%lld bytes)", vrss);
	sp_soak_sampler *s = sp_sampler_new(getpid(), "spunit-nomatch", "/nonexistent-state");
	sp_soak_sample smp = {0};
	sp_sampler_take(s, &smp);
	sp_sampler_take(s, &smp);
	ok(smp.owned_processes == 1, "the sharing child is an owned process (%lld)", smp.owned_processes);
	ok(smp.owned_rss_bytes < (long long)(8u << 20),
	   "owned RSS does not count our memory again through it (%lld bytes)", smp.owned_rss_bytes);
	ok(smp.runner_rss_bytes >= (long long)big, "the runner's RSS has it once (%lld bytes)", smp.runner_rss_bytes);
	long long vfd = fd_count(vm);
	ok(vfd >= NFD, "ground truth: it holds copies of our %d extra descriptors (%lld)", NFD, vfd);
	ok(smp.owned_fds < 8, "owned FDs do not count them (%lld)", smp.owned_fds);
	/* a forked child with memory of its own is counted */
	int go[2];
	ok(pipe(go) == 0, "pipe");
	pid_t fk = fork();
	if (fk == 0) {
		char *m = mmap(NULL, mine, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED)
			memset(m, 2, mine);
		char c = 1;
		if (write(go[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(go[1]);
	char c = 0;
	ok(read(go[0], &c, 1) == 1 && c == 1, "the forked child dirtied 32 MiB of its own");
	close(go[0]);
	long long frss = stat_rss(fk);
	sp_sampler_take(s, &smp);
	ok(smp.owned_processes == 2, "both children owned (%lld)", smp.owned_processes);
	ok(smp.owned_rss_bytes >= (long long)mine && smp.owned_rss_bytes >= frss - (1 << 20),
	   "a forked child's own memory is counted (%lld bytes owned, its RSS %lld)", smp.owned_rss_bytes, frss);
	ok(smp.owned_rss_bytes < frss + (long long)(8u << 20), "and the sharing child still is not (%lld bytes)",
	   smp.owned_rss_bytes);
	long long ffd = fd_count(fk);
	ok(ffd >= NFD && smp.owned_fds >= ffd && smp.owned_fds < ffd + 8,
	   "the forked child's descriptors are counted (%lld owned, it holds %lld)", smp.owned_fds, ffd);
	kill(fk, SIGKILL);
	waitpid(fk, NULL, 0);
	kill(vm, SIGKILL);
	waitpid(vm, NULL, 0);
	sp_sampler_free(s);
	munmap(stack, stsz);
	munmap(mem, big);
	for (int i = 0; i < NFD; i++)
		close(fds[i]);
}

static void test_manifest(void)
{
	char dir[] = "/tmp/sp-unit-XXXXXX";
	ok(mkdtemp(dir) != NULL, "temp dir");
	char *out = sp_xasprintf("%s/b", dir);
	sp_soak_bundle b;
	sp_error err = {0};
	is_int(sp_bundle_create(&b, out, &err), 0, "bundle created");
	sp_bundle_write(&b, "z.txt", "z\n", 2, &err);
	sp_bundle_write(&b, "a.txt", "a\n", 2, &err);
	sp_bundle_log(&b, "s.op.log", "## header password=abc123", "line token=xyz789\n", 18);
	sp_bundle_flush_logs(&b, &err);
	sp_bundle_write(&b, "verify.out", "v\n", 2, &err);
	is_int(sp_bundle_manifest(&b, NULL, &err), 0, "manifest written");
	char *mp = sp_xasprintf("%s/MANIFEST", out);
	char buf[4096];
	sp_read_file(mp, buf, sizeof buf);
	like_str(buf, "87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7  a.txt\n", "manifest: sha256 of a.txt");
	ok(strstr(buf, "a.txt") < strstr(buf, "logs/s.op.log") && strstr(buf, "logs/s.op.log") < strstr(buf, "z.txt"),
	   "manifest: sorted by path");
	ok(!strstr(buf, "verify.out") && !strstr(buf, "MANIFEST"), "manifest: excludes verify.out and itself");
	char *lp = sp_xasprintf("%s/logs/s.op.log", out);
	sp_read_file(lp, buf, sizeof buf);
	ok(!strstr(buf, "abc123") && !strstr(buf, "xyz789"), "log: secrets redacted");
	sp_error e2 = {0};
	sp_soak_bundle b2;
	ok(sp_bundle_create(&b2, out, &e2) < 0 && e2.exit_code == SP_EXIT_USAGE, "non-empty bundle dir refused");
	sp_bundle_close(&b);
	char *cmd = sp_xasprintf("rm -rf %s", dir);
	if (system(cmd) != 0)
		ok(0, "cleanup");
	free(cmd);
	free(lp);
	free(mp);
	free(out);
}

int main(void)
{
	test_good();
	test_bad();
	test_f06();
	test_f05_f09();
	test_linear_reject();
	test_expand();
	test_redact();
	test_capture();
	test_proc_and_ownership();
	test_sockets();
	test_shared_mm();
	test_manifest();
	return done_testing();
}
