/* Gates on summary.json against the rows it summarizes, and whether the run
 * ended on its duration. */
#include "evidence/ev_judge.h"

#include <string.h>

#include "core/util.h"

/* summary.consistent when summary.json cannot be read: reported right after
 * types.summary (sp_judge_summary_consistent, when it can, after
 * run.completed) */
void sp_judge_summary_unread(sp_ev_judge *s, sp_ev_gate_ref g)
{
	if (!s->sm_ok)
		na(s->v, g, "summary.json is invalid");
}

void sp_judge_run_completed(sp_ev_judge *s, sp_ev_gate_ref g)
{
	sp_ev_verdict *v = s->v;
	const sp_ev_summary *sm = &s->sm;
	const struct samples_acc *a = &s->a;
	if (!s->sm_ok) {
		na(v, g, "summary.json is invalid");
		return;
	}
	bool spanned = s->meta_ok && s->samples_ok && !a->phase_bad && !a->mono_bad;
	double span = spanned ? a->final.ts - a->start.ts : 0;
	if (strcmp(sm->stop_condition, "duration"))
		gate(v, false, g, sm->stop_condition, "duration", "summary.json: the run stopped on %s", sm->stop_condition);
	else if (!spanned)
		na(v, g, !s->meta_ok ? "metadata.txt is invalid" : "samples have no single start and final in order");
	else if (!ge(span, s->meta.duration_s - 0.001)) {
		char have[48], want[48];
		num(have, sizeof have, span);
		num(want, sizeof want, s->meta.duration_s);
		gate(v, false, g, have, pre(want, ">="),
		     "summary.json says the run stopped on its duration, but the samples span %s s of the %s s it was to run", have,
		     want);
	} else
		gate(v, true, g, sm->stop_condition, "duration",
		     "the run stopped on its duration and the samples span it (%.10g s of %.10g s)", span, s->meta.duration_s);
}

void sp_judge_summary_consistent(sp_ev_judge *s, sp_ev_gate_ref g)
{
	sp_ev_verdict *v = s->v;
	const sp_ev_summary sm = s->sm;
	const struct samples_acc *a = &s->a;
	if (!s->sm_ok)
		return;
	if (!s->meta_ok || !s->ops_ok || !s->samples_ok) {
		na(v, g,
		   !s->meta_ok  ? "metadata.txt is invalid"
		   : !s->ops_ok ? "operations.tsv is invalid"
				: "resource-samples.tsv is invalid");
		return;
	}
	char f[64] = "", have[64] = "", want[64] = "";
#define CHK_STR(name, got, exp) \
	if (!f[0] && strcmp(got, exp)) { \
		snprintf(f, sizeof f, "%s", name); \
		snprintf(have, sizeof have, "%.60s", got); \
		snprintf(want, sizeof want, "%.60s", exp); \
	}
#define CHK_INT(name, got, exp) \
	if (!f[0] && (long long)(got) != (long long)(exp)) { \
		snprintf(f, sizeof f, "%s", name); \
		snprintf(have, sizeof have, "%lld", (long long)(got)); \
		snprintf(want, sizeof want, "%lld", (long long)(exp)); \
	}
#define CHK_DEC(name, got, exp) \
	if (!f[0] && !near(got, exp)) { \
		snprintf(f, sizeof f, "%s", name); \
		num(have, sizeof have, got); \
		num(want, sizeof want, exp); \
	}
	CHK_STR("run_id", sm.run_id, s->meta.run_id)
	CHK_STR("profile", sm.profile, s->meta.profile)
	CHK_DEC("requested_duration_s", sm.requested_duration_s, s->meta.duration_s)
	CHK_INT("sample_count", sm.sample_count, a->n)
	if (!a->phase_bad && !a->mono_bad) {
		CHK_DEC("measured_duration_s", sm.measured_duration_s, a->final.ts)
	}
	CHK_INT("periodic_samples", sm.periodic_samples, a->nperiodic)
	if (!a->phase_bad && !a->mono_bad) {
		CHK_DEC("span_s", sm.span_s, a->final.ts - a->start.ts)
		CHK_DEC("max_gap_s", sm.max_gap_s, a->max_gap)
	}
	if (isfinite(s->warmup_end)) {
		CHK_DEC("warmup_end_s", sm.warmup_end_s, s->warmup_end)
	} else if (!f[0] && sm.warmup_end_s < s->ops_max_ts) {
		snprintf(f, sizeof f, "warmup_end_s");
		num(have, sizeof have, sm.warmup_end_s);
		snprintf(want, sizeof want, "never (a scenario has fewer than 2 operations)");
	}
	CHK_INT("operations.total", sm.ops_total, s->ops_total)
	CHK_INT("operations.ok", sm.ops_ok, s->ops_ok_n)
	CHK_INT("operations.fail", sm.ops_fail, s->ops_fail)
	CHK_INT("operations.expected_fault", sm.ops_expected_fault, s->ops_ef)
	CHK_INT("unexpected_failures", sm.unexpected_failures, s->ops_fail)
#undef CHK_STR
#undef CHK_INT
#undef CHK_DEC
	if (f[0])
		gate(v, false, g, have, want, "summary.json %s is %s but the bundle gives %s", f, have,
		     want);
	else
		gate(v, true, g, "consistent", "consistent",
		     "summary.json agrees with metadata.txt, operations.tsv and resource-samples.tsv");
}
