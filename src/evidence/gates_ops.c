/* Gates on operations.tsv and capability-results.tsv: the success rate,
 * expected faults tied to fault windows, the capability rows against the
 * operations, the operations' order inside the run. */
#include "evidence/ev_judge.h"

#include <string.h>

#include "core/op_classes.h"
#include "core/util.h"

static const char *ops_unjudged(const sp_ev_judge *s)
{
	if (!s->ops_ok)
		return "operations.tsv is invalid";
	return s->meta_ok ? NULL : "metadata.txt is invalid";
}

void sp_judge_ops_success(sp_ev_judge *s, sp_ev_gate_ref g)
{
	sp_ev_verdict *v = s->v;
	if (na_if(s, g, ops_unjudged(s)))
		return;
	char m[96], t[48];
	long long unexpected = s->ops_fail + s->ops_untied;
	long long denom = s->ops_ok_n + unexpected;
	double ratio = denom ? (double)s->ops_ok_n / (double)denom : 0;
	num(t, sizeof t, s->th.min_success_ratio);
	snprintf(m, sizeof m, "%.6f", ratio);
	if (denom == 0)
		gate(v, false, g, "0 operations", t, "no non-fault operations in operations.tsv");
	else if (ratio + EPS < s->th.min_success_ratio || (s->th.min_success_ratio >= 1 && unexpected > 0))
		gate(v, false, g, m, pre(t, ">="),
		     "%lld unexpected failure(s) in %lld non-fault operations (%lld fail, %lld expected_fault without a passing fault window of its own)",
		     unexpected, denom, s->ops_fail, s->ops_untied);
	else
		gate(v, true, g, m, pre(t, ">="), "%lld unexpected failure(s) in %lld non-fault operations", unexpected, denom);
}

void sp_judge_ops_expected_faults(sp_ev_judge *s, sp_ev_gate_ref g)
{
	sp_ev_verdict *v = s->v;
	if (na_if(s, g, ops_unjudged(s)))
		return;
	char m[96];
	snprintf(m, sizeof m, "%lld untied", s->ops_untied);
	if (s->ops_untied)
		gate(v, false, g, m, "0 untied",
		     "%lld expected_fault operation(s) without a passing fault window of their own (one window excuses one operation); first at operations.tsv line %llu (ts %.10g)",
		     s->ops_untied, s->first_untied_line, s->first_untied_ts);
	else
		gate(v, true, g, m, "0 untied", "each of %lld expected_fault operation(s) has a passing fault window of its own",
		     s->ops_ef);
}

static const char *caps_unjudged(const sp_ev_judge *s)
{
	return !s->meta_ok   ? "metadata.txt is invalid"
	       : !s->ops_ok  ? "operations.tsv is invalid"
	       : !s->caps_ok ? "capability-results.tsv is invalid"
			     : NULL;
}

void sp_judge_capability_coverage(sp_ev_judge *s, sp_ev_gate_ref g)
{
	sp_ev_verdict *v = s->v;
	if (na_if(s, g, caps_unjudged(s)))
		return;
	char m[48], t[48];
	snprintf(t, sizeof t, "%zu of %zu", s->nsc, s->nsc);
	size_t covered = 0;
	const char *problem = NULL, *who = NULL;
	for (size_t i = 0; i < s->nsc; i++) {
		if (s->sc[i].total && s->sc[i].has_cap)
			covered++;
		else if (!problem) {
			who = s->sc[i].id;
			problem = !s->sc[i].total ? "has no operations in operations.tsv" : "has no row in capability-results.tsv";
		}
	}
	snprintf(m, sizeof m, "%zu of %zu", covered, s->nsc);
	if (problem)
		gate(v, false, g, m, t, "declared scenario %s %s", who, problem);
	else if (s->ops_undeclared)
		gate(v, false, g, m, t, "%lld operation(s) of undeclared scenario(s); first: %s", s->ops_undeclared,
		     s->undeclared);
	else if (s->caps_extra[0])
		gate(v, false, g, m, t, "capability-results.tsv has undeclared scenario %s", s->caps_extra);
	else if (s->caps_dup)
		gate(v, false, g, m, t, "capability-results.tsv lists a scenario twice");
	else
		gate(v, true, g, m, t, "every declared scenario has operations and a capability row");
}

void sp_judge_capability_agree(sp_ev_judge *s, sp_ev_gate_ref g)
{
	sp_ev_verdict *v = s->v;
	if (na_if(s, g, caps_unjudged(s)))
		return;
	for (size_t i = 0; i < s->nsc; i++) {
		struct scen *sc = &s->sc[i];
		if (!sc->has_cap)
			continue;
		const char *field = NULL;
		long long want = 0, have = 0;
		if (sc->cap.attempted != sc->total)
			field = "attempted", have = sc->cap.attempted, want = sc->total;
		else if (sc->cap.succeeded != sc->ok)
			field = "succeeded", have = sc->cap.succeeded, want = sc->ok;
		else if (sc->cap.expected_faults != sc->ef)
			field = "expected_faults", have = sc->cap.expected_faults, want = sc->ef;
		else if (sc->cap.unexpected_failures != sc->fail)
			field = "unexpected_failures", have = sc->cap.unexpected_failures, want = sc->fail;
		else if (sc->cap.pass != (sc->fail == 0))
			field = "result", have = sc->cap.pass, want = sc->fail == 0;
		if (field) {
			char hv[32], wv[32];
			snprintf(hv, sizeof hv, "%s=%lld", field, have);
			snprintf(wv, sizeof wv, "%s=%lld", field, want);
			if (!strcmp(field, "result")) {
				snprintf(hv, sizeof hv, "result=%s", have ? "pass" : "fail");
				snprintf(wv, sizeof wv, "result=%s", want ? "pass" : "fail");
			}
			gate(v, false, g, hv, wv, "capability-results.tsv scenario %s: %s but operations.tsv gives %s", sc->id,
			     hv, wv);
			return;
		}
	}
	gate(v, true, g, "agree", "agree", "capability-results.tsv agrees with operations.tsv");
}

void sp_judge_operations_order(sp_ev_judge *s, sp_ev_gate_ref g)
{
	sp_ev_verdict *v = s->v;
	const struct samples_acc *a = &s->a;
	const char *why = sp_ev_run_unknown(s);
	char m[64], t[96];
	if (!s->ops_ok)
		na(v, g, "operations.tsv is invalid");
	else if (s->ops_order.bad)
		gate(v, false, g, "out of order", "by ts, inside the run", "%s", s->ops_order.msg);
	else if (why)
		na(v, g, why);
	else if (s->ops_total && (!ge(s->ops_min_ts, a->start.ts) || !le(s->ops_max_ts, a->final.ts))) {
		snprintf(m, sizeof m, "[%.10g, %.10g]", s->ops_min_ts, s->ops_max_ts);
		snprintf(t, sizeof t, "in [%.10g, %.10g]", a->start.ts, a->final.ts);
		gate(v, false, g, m, t,
		     "operations.tsv has operations at ts %.10g..%.10g, outside the run (start sample %.10g, final sample %.10g)",
		     s->ops_min_ts, s->ops_max_ts, a->start.ts, a->final.ts);
	} else
		gate(v, true, g, "in order", "by ts, inside the run",
		     "%lld operation rows in time order, between the start and the final sample", s->ops_total);
}

/* ops.composition: seed 002's workload composition. An R24 or E72 run (the
 * bundle's claim, or --profile) must combine the five classes at
 * 40/20/15/15/10: declared in class_mix, every class run (scenario_classes
 * maps the scenarios to classes), and, once there are enough cycles to tell,
 * each class's share of the cycles within 5 points of its weight. A cycle is
 * one generation of a scenario (the scheduler draws cycles by class weight),
 * counted by the operations reader. */
#define COMP_TOL_PCT 5.0
#define COMP_MIN_CYCLES 200

static bool long_profile(const char *p)
{
	return p && (!strcmp(p, "R24") || !strcmp(p, "E72"));
}

static const char *const cls[] = {SP_OP_CLASSES(SP_OP_CLASS_NAME)};

static int class_index(const char *name, size_t n)
{
	for (int c = 0; c < (int)SP_ARRAY_SIZE(cls); c++)
		if (strlen(cls[c]) == n && !memcmp(cls[c], name, n))
			return c;
	return -1;
}

void sp_judge_ops_composition(sp_ev_judge *s, sp_ev_gate_ref g)
{
	static const int want[SP_ARRAY_SIZE(cls)] = {40, 20, 15, 15, 10};
	enum { NCLS = SP_ARRAY_SIZE(cls) };
	const char *th = "40/20/15/15/10";
	if (!s->meta_ok) {
		na(s->v, g, "metadata.txt is invalid");
		return;
	}
	const char *claim = long_profile(s->o->profile) ? s->o->profile : s->meta.profile;
	if (!long_profile(claim)) {
		gate(s->v, true, g, "-", th, "not required for profile %s (R24 and E72 only)", claim);
		return;
	}
	if (na_if(s, g, ops_unjudged(s)))
		return;
	const char *mix = sp_kv_get(s->meta.kv, s->meta.n, "class_mix");
	if (!mix) {
		gate(s->v, false, g, "none", th, "%s: metadata.txt has no class_mix, so the composition is not shown", claim);
		return;
	}
	char expect[96];
	size_t el = 0;
	for (size_t c = 0; c < NCLS; c++)
		el += (size_t)snprintf(expect + el, sizeof expect - el, "%s%s:%d", c ? "," : "", cls[c], want[c]);
	if (strcmp(mix, expect)) {
		gate(s->v, false, g, mix, th, "%s: the workload declares class_mix %.200s, not seed 002's %s", claim, mix, expect);
		return;
	}
	const char *map = sp_kv_get(s->meta.kv, s->meta.n, "scenario_classes");
	if (!map || !*map) {
		gate(s->v, false, g, "none", th, "%s: metadata.txt has no scenario_classes: what each class ran cannot be told",
		     claim);
		return;
	}
	long long cycles[NCLS] = {0}, ops[NCLS] = {0}, total = 0;
	for (const char *p = map; *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *colon = memchr(p, ':', n);
		int c = colon ? class_index(colon + 1, n - (size_t)(colon + 1 - p)) : -1;
		struct scen *sc = colon ? sp_ev_find_scen(s, p, (size_t)(colon - p)) : NULL;
		if (c < 0 || !sc) {
			gate(s->v, false, g, "-", th, "%s: scenario_classes entry '%.*s' is not SCENARIO:CLASS of a declared scenario", claim,
			     (int)(n > 80 ? 80 : n), p);
			return;
		}
		ops[c] += sc->total;
		cycles[c] += sc->cycles;
		total += sc->cycles;
		p += n + (end ? 1 : 0);
	}
	double share[NCLS];
	char m[80];
	size_t ml = 0;
	for (size_t c = 0; c < NCLS; c++) {
		share[c] = total ? 100.0 * (double)cycles[c] / (double)total : 0.0;
		ml += (size_t)snprintf(m + ml, sizeof m - ml, "%s%.1f", c ? "/" : "", share[c]);
	}
	for (size_t c = 0; c < NCLS; c++)
		if (!ops[c]) {
			gate(s->v, false, g, m, th, "%s: no operation of class %s ran: the classes are not combined", claim, cls[c]);
			return;
		}
	for (size_t c = 0; total >= COMP_MIN_CYCLES && c < NCLS; c++)
		if (fabs(share[c] - want[c]) > COMP_TOL_PCT) {
			gate(s->v, false, g, m, th, "%s: class %s had %.1f%% of %lld cycles, declared %d%% (at most %.0f points off)", claim,
			     cls[c], share[c], total, want[c], COMP_TOL_PCT);
			return;
		}
	gate(s->v, true, g, m, th, "%s: the five classes combined, %lld cycles (%lld/%lld/%lld/%lld/%lld)%s", claim, total,
	     cycles[0], cycles[1], cycles[2], cycles[3], cycles[4],
	     total >= COMP_MIN_CYCLES ? ", each share within 5 points" : ": too few cycles to judge the shares");
}
