/* Gates on latency.tsv and the warm-up: latency.tsv repeats the ok
 * operations, its warm-up flags agree, p95 against a baseline, and the
 * warm-up bounded by the profile. */
#include "evidence/ev_judge.h"

#include <stdlib.h>
#include <string.h>

#include "core/util.h"

static const char *latency_unjudged(const sp_ev_judge *s)
{
	return !s->meta_ok  ? "metadata.txt is invalid"
	       : !s->ops_ok ? "operations.tsv is invalid (warm-up unknown)"
	       : !s->lat_ok ? "latency.tsv is invalid"
			    : NULL;
}

void sp_judge_latency_agree(sp_ev_judge *s, sp_ev_gate_ref g)
{
	const char *why = latency_unjudged(s);
	char m[48];
	snprintf(m, sizeof m, "%llu rows", s->lat_rows);
	if (why)
		na(s->v, g, why);
	else if (s->lat_agree.bad)
		gate(s->v, false, g, "differs", "the ok operations", "%s", s->lat_agree.msg);
	else
		gate(s->v, true, g, m, "the ok operations", "latency.tsv holds exactly the %llu ok operations of operations.tsv, in order",
		     s->lat_rows);
}

void sp_judge_latency_warmup(sp_ev_judge *s, sp_ev_gate_ref g)
{
	if (na_if(s, g, latency_unjudged(s)))
		return;
	char m[48];
	num(m, sizeof m, s->warmup_end);
	if (s->lat_warm_max > s->warmup_end)
		gate(s->v, false, g, "mismatch", "consistent", "latency.tsv line %llu: warmup=1 at ts %.10g but warm-up ends at %.10g",
		     s->lat_warm_max_line, s->lat_warm_max, s->warmup_end);
	else if (s->lat_cold_min < s->warmup_end)
		gate(s->v, false, g, "mismatch", "consistent", "latency.tsv line %llu: warmup=0 at ts %.10g but warm-up ends at %.10g",
		     s->lat_cold_min_line, s->lat_cold_min, s->warmup_end);
	else if (isinf(s->warmup_end))
		gate(s->v, true, g, m, "consistent",
		     "latency.tsv marks every operation warm-up, as it must: the warm-up never ended (not every scenario finished two operations)");
	else
		gate(s->v, true, g, m, "consistent", "latency.tsv warmup flags agree with the warm-up end (%s s)", m);
}

/* latency.p95: reported when it cannot be judged or without --baseline;
 * with one, each scenario's is latency.p95.<scenario> */
void sp_judge_latency_p95(sp_ev_judge *s, sp_ev_gate_ref g)
{
	const char *why = latency_unjudged(s);
	if (why)
		na(s->v, g, why);
	else if (!s->o->baseline)
		gate(s->v, true, g, "no baseline", "--baseline",
		     "no --baseline given: p95 regression not judged (quantiles of %zu scenario(s) computed)", s->v->lat.n);
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const sp_ev_baseline_entry *)a)->scenario, ((const sp_ev_baseline_entry *)b)->scenario);
}

void sp_judge_latency_p95_scenario(sp_ev_judge *s, sp_ev_gate_ref g)
{
	const sp_ev_baseline *base = s->o->baseline;
	sp_ev_verdict *v = s->v;
	if (latency_unjudged(s) || !base)
		return;
	/* the baseline sorted once: a lookup per scenario in log time */
	sp_ev_baseline_entry *sorted = sp_xcalloc(base->n ? base->n : 1, sizeof *sorted);
	memcpy(sorted, base->v, base->n * sizeof *sorted);
	qsort(sorted, base->n, sizeof *sorted, cmp_entry);
	for (size_t i = 0; i < s->nsc; i++) {
		struct scen *sc = &s->sc[i];
		char m[48], t[48];
		sp_ev_gate_ref id = {g.id, sc->id};
		sp_ev_baseline_entry key = {.scenario = (char *)sc->id};
		const sp_ev_baseline_entry *b = base->n ? bsearch(&key, sorted, base->n, sizeof *sorted, cmp_entry) : NULL;
		const sp_ev_baseline_entry *e = s->lat_entry[i] == SIZE_MAX ? NULL : &v->lat.v[s->lat_entry[i]];
		if (!b) {
			gate(v, false, id, "n/a", "baseline", "the baseline has no entry for scenario %s", sc->id);
			continue;
		}
		double thr = b->p95 + b->p95 * s->th.p95_regression_pct / 100.0;
		num(t, sizeof t, thr);
		if (!e) {
			gate(v, false, id, "no samples", t, "scenario %s has no post-warm-up latency rows", sc->id);
			continue;
		}
		num(m, sizeof m, e->p95);
		gate(v, le(e->p95, thr), id, m, pre(t, "<="),
		     "scenario %s: p95 %s ms against baseline p95 %.10g ms + %.10g%% (p50 %.10g, p99 %.10g, %llu samples)", sc->id,
		     m, b->p95, s->th.p95_regression_pct, e->p50, e->p99, e->count);
	}
	free(sorted);
}

/* the warm-up a profile allows: 15 minutes; a custom run scales it the way
 * soak does (900 s per base-profile duration, 7200 s when the base is R0
 * or not recorded); R0 has none */
static double warmup_allowed(const sp_ev_meta *m)
{
	if (!strcmp(m->profile, "R0"))
		return 0;
	if (strcmp(m->profile, "custom"))
		return 900;
	const char *base = sp_kv_get(m->kv, m->n, "base_profile");
	double pd = 7200;
	if (base && !strcmp(base, "R24"))
		pd = 86400;
	else if (base && !strcmp(base, "E72"))
		pd = 259200;
	return floor(900.0 * m->duration_s / pd);
}

void sp_judge_warmup_bounded(sp_ev_judge *s, sp_ev_gate_ref g)
{
	sp_ev_verdict *v = s->v;
	const struct samples_acc *a = &s->a;
	const char *why = sp_ev_run_unknown(s);
	bool run = !why;
	char m[64], t[96];
	if (!s->meta_ok || !s->ops_ok) {
		na(v, g, !s->meta_ok ? "metadata.txt is invalid" : "operations.tsv is invalid");
		return;
	}
	double allowed = warmup_allowed(&s->meta);
	num(m, sizeof m, s->meta.warmup_s);
	num(t, sizeof t, allowed);
	if (!le(s->meta.warmup_s, allowed)) {
		gate(v, false, g, m, pre(t, "<="),
		     "metadata.txt warmup_s %s is longer than the %s s profile %s allows (15 minutes, scaled for custom runs)", m,
		     t, s->meta.profile);
		return;
	}
	if (s->th.min_periodic_samples >= 2 && run) {
		double half = a->start.ts + (a->final.ts - a->start.ts) / 2;
		if (!le(s->warmup_end, half)) {
			num(m, sizeof m, s->warmup_end);
			num(t, sizeof t, half);
			gate(v, false, g, m, pre(t, "<="),
			     "the warm-up ends at %s s (two operations of every scenario), past the middle of the run (%s s): the regression gates would cover less than half of it",
			     m, t);
			return;
		}
	} else if (!run && s->th.min_periodic_samples >= 2) {
		na(v, g, why);
		return;
	}
	num(m, sizeof m, s->warmup_end);
	if (isinf(s->warmup_end))
		gate(v, true, g, m, "<= profile, first half",
		     "the warm-up never ended (not every scenario finished two operations; no latency gate needs it): warmup_s %.10g within the %.10g s allowed",
		     s->meta.warmup_s, allowed);
	else
		gate(v, true, g, m, "<= profile, first half", "warm-up ends at %s s: warmup_s %.10g within the %.10g s allowed%s", m,
		     s->meta.warmup_s, allowed, s->th.min_periodic_samples >= 2 ? ", and in the first half of the run" : "");
}
