/* Unit tests of the release gate's value parsers and plan semantics:
 * UTC times (calendar checked against the C library's own gmtime), the
 * durations of valid_for, the promotion order's implied cells, lane
 * artifact overrides and the per-profile lifetimes. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gate/plan.h"
#include "tap.h"

static int parse(sp_gate_plan *p, const char *text, sp_error *err)
{
	memset(err, 0, sizeof *err);
	return sp_plan_parse(p, text, strlen(text), "t.yaml", NULL, err);
}

int main(void)
{
	time_t t;
	/* times: against gmtime_r on the same instants */
	ok(sp_gate_parse_time("2026-08-01T00:00:00Z", &t) == 0, "a UTC time parses");
	struct tm tm;
	gmtime_r(&t, &tm);
	is_int(tm.tm_year + 1900, 2026, "year");
	is_int(tm.tm_mon + 1, 8, "month");
	is_int(tm.tm_mday, 1, "day");
	ok(sp_gate_parse_time("2028-02-29T23:59:59Z", &t) == 0, "Feb 29 of a leap year");
	ok(sp_gate_parse_time("2026-02-29T00:00:00Z", &t) < 0, "Feb 29 of another year is refused");
	ok(sp_gate_parse_time("2026-02-30T00:00:00Z", &t) < 0, "Feb 30 is refused");
	ok(sp_gate_parse_time("2026-04-31T00:00:00Z", &t) < 0, "Apr 31 is refused");
	ok(sp_gate_parse_time("2026-08-01T00:00:00.250Z", &t) == 0, "a fraction of a second");
	ok(sp_gate_parse_time("2026-08-01T00:00:00", &t) < 0, "no Z: refused");
	ok(sp_gate_parse_time("2026-08-01T00:00:00+02:00", &t) < 0, "an offset: refused");
	ok(sp_gate_parse_time("2026-08-01T24:00:00Z", &t) < 0, "hour 24: refused");
	ok(sp_gate_parse_time("2026-08-01T00:00:60Z", &t) < 0, "second 60: refused");
	ok(sp_gate_parse_time("2026-08-01T00:00:00.Z", &t) < 0, "an empty fraction: refused");
	time_t a, b;
	sp_gate_parse_time("2026-08-01T00:00:00Z", &a);
	sp_gate_parse_time("2026-08-02T00:00:01Z", &b);
	is_int(b - a, 86401, "a day and a second apart");
	char buf[40];
	sp_gate_format_time(a, buf, sizeof buf);
	is_str(buf, "2026-08-01T00:00:00Z", "formatted back");

	/* durations */
	long long d = 0;
	ok(sp_gate_parse_duration("90s", &d) == 0 && d == 90, "90s");
	ok(sp_gate_parse_duration("45m", &d) == 0 && d == 2700, "45m");
	ok(sp_gate_parse_duration("36h", &d) == 0 && d == 129600, "36h");
	ok(sp_gate_parse_duration("7d", &d) == 0 && d == 604800, "7d");
	ok(sp_gate_parse_duration("2w", &d) == 0 && d == 1209600, "2w");
	ok(sp_gate_parse_duration("3650d", &d) == 0, "ten years");
	ok(sp_gate_parse_duration("3651d", &d) < 0, "more than ten years: refused");
	ok(sp_gate_parse_duration("0d", &d) < 0, "zero: refused");
	ok(sp_gate_parse_duration("7", &d) < 0, "no unit: refused");
	ok(sp_gate_parse_duration("7dd", &d) < 0, "two units: refused");
	ok(sp_gate_parse_duration("-7d", &d) < 0, "negative: refused");
	ok(sp_gate_parse_duration("999999999d", &d) < 0, "an overflowing count: refused");
	sp_gate_format_duration(604800, buf, sizeof buf);
	is_str(buf, "1w", "7 days print as 1w");
	sp_gate_format_duration(90, buf, sizeof buf);
	is_str(buf, "90s", "90 s print as 90s");

	/* a plan: lifetimes per profile, lane overrides, required masks */
	static const char plan[] =
		"version: 1\nname: p\n"
		"candidate: {id: c, artifacts: {runc: sha256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA, "
		"rootfs: sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb}}\n"
		"changes: [core]\n"
		"evidence: {valid_for: {R0: 1d, default: 2w}, retries: 2}\n"
		"lanes:\n"
		"  - {id: a, host_class: linux-x86_64, isolation: oci-sandbox}\n"
		"  - {id: b, host_class: linux-aarch64, isolation: gvisor, artifacts: {runc: sha256:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc, "
		"extra: sha256:dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd}}\n"
		"scenarios:\n"
		"  - {id: S1, owner: o, require: {core: {a: [R24], b: G2}, storage: {a: [E72]}}}\n"
		"  - {id: S2, owner: o, retries: 0, require: {core: {b: [R0, E72]}}}\n";
	sp_gate_plan p;
	sp_error err;
	if (!ok(parse(&p, plan, &err) == 0, "a plan parses (%s)", err.msg))
		return done_testing(); /* nothing below can be read */
	is_int(p.valid_for_s[0], 86400, "R0 lifetime");
	is_int(p.valid_for_s[1], 14 * 86400, "G2 lifetime from default");
	is_int(p.valid_for_s[3], 14 * 86400, "E72 lifetime from default");
	is_str(p.art[0].digest, "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "digests are lowercased");
	is_int(p.scen[0].required[0], 1u << SP_PROF_R24, "S1 on a: R24 only (storage is not a change of this candidate)");
	is_int(p.scen[0].required[1], 1u << SP_PROF_G2, "S1 on b: G2 (a single profile)");
	is_int(p.scen[1].required[1], (1u << SP_PROF_R0) | (1u << SP_PROF_E72), "S2 on b: R0 and E72");
	is_int(p.scen[0].retries, 2, "the plan's retries");
	is_int(p.scen[1].retries, 0, "a scenario's own retries");
	const sp_gate_plan_artifact *arts[8];
	size_t n = sp_plan_lane_artifacts(&p, 1, arts, 8);
	is_int(n, 3, "lane b must record 3 artifacts");
	is_str(arts[0]->name, "runc", "runc first");
	is_str(arts[0]->digest, "sha256:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc", "lane b's own runc");
	is_str(arts[1]->digest, "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "the candidate's rootfs");
	is_str(arts[2]->name, "extra", "the lane-only artifact");
	n = sp_plan_lane_artifacts(&p, 0, arts, 8);
	is_int(n, 2, "lane a: the candidate's 2 artifacts");
	ok(strlen(p.sha256) == 64, "the plan's own digest");
	sp_plan_free(&p);

	/* a profile with no lifetime that the promotion order needs */
	static const char noR0[] =
		"version: 1\nname: p\ncandidate: {id: c, artifacts: {x: sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa}}\n"
		"changes: [core]\nevidence: {valid_for: {G2: 1d}}\nlanes: [{id: a, host_class: linux-x86_64, isolation: oci-sandbox}]\n"
		"scenarios: [{id: S, owner: o, require: {core: {a: G2}}}]\n";
	ok(parse(&p, noR0, &err) < 0, "G2 required, no R0 lifetime: refused (R0 is implied)");
	like_str(err.msg, "t.yaml:5: 'evidence.valid_for' gives no lifetime for R0", "named with its line");
	is_int(err.exit_code, 2, "a usage error");
	return done_testing();
}
