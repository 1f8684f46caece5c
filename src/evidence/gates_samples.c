/* Gates on resource-samples.tsv itself: its timestamps, phases, span, count,
 * gaps, interval, schedule and wall clocks (the leak, disk and cleanup gates
 * judged over the samples: gates_leaks.c). */
#include "evidence/ev_judge.h"

#include <string.h>

#include "core/util.h"

const char *sp_ev_samples_unjudged(const sp_ev_judge *s, bool ordered)
{
	if (!s->samples_ok)
		return "resource-samples.tsv is invalid";
	if (!s->meta_ok)
		return "metadata.txt is invalid";
	if (!s->ops_ok)
		return "operations.tsv is invalid (warm-up unknown)";
	if (ordered && (s->a.phase_bad || s->a.mono_bad))
		return "samples have no single start and final in order";
	return NULL;
}

void sp_judge_samples_monotonic(sp_ev_judge *s, sp_ev_gate_ref g)
{
	const struct samples_acc *a = &s->a;
	const char *why = sp_ev_samples_unjudged(s, false);
	if (why)
		na(s->v, g, why);
	else if (a->mono_bad)
		gate(s->v, false, g, "not increasing", "strictly increasing", "%s", a->mono_msg);
	else
		gate(s->v, true, g, "increasing", "strictly increasing", "%lld sample timestamps strictly increasing", a->n);
}

void sp_judge_samples_phases(sp_ev_judge *s, sp_ev_gate_ref g)
{
	const struct samples_acc *a = &s->a;
	const char *why = sp_ev_samples_unjudged(s, false);
	char m[64];
	snprintf(m, sizeof m, "%lld start, %lld final", a->nstart, a->nfinal);
	if (why)
		na(s->v, g, why);
	else if (a->phase_bad)
		gate(s->v, false, g, m, "1 start first, 1 final last", "%s", a->phase_msg);
	else
		gate(s->v, true, g, m, "1 start first, 1 final last", "one start sample first, one final sample last");
}

void sp_judge_samples_span(sp_ev_judge *s, sp_ev_gate_ref g)
{
	const struct samples_acc *a = &s->a;
	if (samples_na(s, g, true))
		return;
	char m[64], t[64];
	double span = a->final.ts - a->start.ts;
	num(m, sizeof m, span);
	num(t, sizeof t, s->th.min_span_s);
	gate(s->v, ge(span, s->th.min_span_s), g, m, pre(t, ">="), "sample span %s s against a minimum of %s s", m, t);
}

void sp_judge_samples_count(sp_ev_judge *s, sp_ev_gate_ref g)
{
	const struct samples_acc *a = &s->a;
	if (samples_na(s, g, true))
		return;
	char m[64], t[64];
	snprintf(m, sizeof m, "%lld", a->nperiodic);
	snprintf(t, sizeof t, "%lld", s->th.min_periodic_samples);
	gate(s->v, a->nperiodic >= s->th.min_periodic_samples, g, m, pre(t, ">="),
	     "%lld periodic samples (plus start and final) against a minimum of %lld", a->nperiodic,
	     s->th.min_periodic_samples);
}

void sp_judge_samples_gap(sp_ev_judge *s, sp_ev_gate_ref g)
{
	const struct samples_acc *a = &s->a;
	if (samples_na(s, g, true))
		return;
	char m[64], t[64];
	num(m, sizeof m, a->max_gap);
	num(t, sizeof t, s->th.max_gap_s);
	gate(s->v, le(a->max_gap, s->th.max_gap_s), g, m, pre(t, "<="),
	     "largest gap between consecutive samples %s s (maximum %s s)", m, t);
}

/* declared interval within the maximum, and the measured one: the median
 * interval above the maximum (+10% for sampling latency) means more than
 * half of them are */
void sp_judge_samples_interval(sp_ev_judge *s, sp_ev_gate_ref g)
{
	const struct samples_acc *a = &s->a;
	const sp_ev_thresholds *th = &s->th;
	if (samples_na(s, g, true))
		return;
	char m[64], t[64], lim[32];
	num(t, sizeof t, th->max_interval_s);
	num(lim, sizeof lim, a->interval_limit);
	if (!(le(s->meta.sample_interval_s, th->max_interval_s) && s->meta.sample_interval_s > 0)) {
		num(m, sizeof m, s->meta.sample_interval_s);
		gate(s->v, false, g, m, pre(t, "<="), "declared sample interval %s s (maximum %s s)", m, t);
	} else if (a->gaps_long * 2 > a->gaps) {
		snprintf(m, sizeof m, "%lld of %lld > %s", a->gaps_long, a->gaps, lim);
		gate(s->v, false, g, m, pre(t, "<="),
		     "the measured median sample interval is above %s s: %lld of %lld intervals are longer (declared %.10g s, maximum %s s)",
		     lim, a->gaps_long, a->gaps, s->meta.sample_interval_s, t);
	} else {
		snprintf(m, sizeof m, "%lld of %lld > %s", a->gaps_long, a->gaps, lim);
		gate(s->v, true, g, m, pre(t, "<="),
		     "declared sample interval %.10g s, measured median within %s s (%lld of %lld intervals longer)",
		     s->meta.sample_interval_s, lim, a->gaps_long, a->gaps);
	}
}

void sp_judge_samples_cadence(sp_ev_judge *s, sp_ev_gate_ref g)
{
	const struct samples_acc *a = &s->a;
	const char *why = sp_ev_samples_unjudged(s, true);
	if (why)
		na(s->v, g, why);
	else if (a->cadence.bad)
		gate(s->v, false, g, "early sample", "on the schedule", "%s", a->cadence.msg);
	else
		gate(s->v, true, g, "on the schedule", "on the schedule",
		     strcmp(s->meta.profile, "R0") ? "every periodic sample at or after its slot (start + j x interval): no burst pads the count"
						   : "R0 samples at every phase: no schedule to check");
}

/* wall clocks: real dates in step with ts, once samples and metadata are read */
void sp_judge_samples_wall(sp_ev_judge *s, sp_ev_gate_ref g)
{
	if (!s->samples_ok || !s->meta_ok)
		na(s->v, g, !s->meta_ok ? "metadata.txt is invalid" : "resource-samples.tsv is invalid");
	else if (isfinite(s->started_at) && s->started_at > s->now + WALL_SKEW_S)
		gate(s->v, false, g, "in the future", "<= now", "metadata.txt started_at %s is in the future",
		     sp_kv_get(s->meta.kv, s->meta.n, "started_at"));
	else if (s->a.wall.bad)
		gate(s->v, false, g, "implausible", "in step with ts", "%s", s->a.wall.msg);
	else
		gate(s->v, true, g, "in step", "in step with ts",
		     "sample wall clocks never go back, stay within %.0f s of started_at + ts and are not in the future",
		     WALL_SKEW_S);
}

const char *sp_ev_run_unknown(const sp_ev_judge *s)
{
	if (!s->samples_ok)
		return "resource-samples.tsv is invalid";
	if (s->a.phase_bad || s->a.mono_bad)
		return "samples have no single start and final in order";
	return NULL;
}
