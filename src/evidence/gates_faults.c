/* Gates on faults.tsv: every fault recovered inside its RTO, declared by the
 * workload, and its window inside the run as long as its recovery. */
#include "evidence/ev_judge.h"

#include "core/util.h"

void sp_judge_faults_recovered(sp_ev_judge *s, sp_ev_gate_ref g)
{
	sp_ev_verdict *v = s->v;
	if (!s->faults_ok) {
		na(v, g, "faults.tsv is invalid");
		return;
	}
	size_t bad = 0, first = 0;
	double worst = 0;
	for (size_t i = 0; i < s->nfaults; i++) {
		struct fault_row *f = &s->faults[i];
		bool okf = f->pass && le(f->recovery_ms, f->rto_ms);
		if (f->rto_ms > 0 && f->recovery_ms / f->rto_ms > worst)
			worst = f->recovery_ms / f->rto_ms;
		if (!okf && !bad++)
			first = i;
	}
	char m[48], t[48];
	snprintf(m, sizeof m, "%zu of %zu", s->nfaults - bad, s->nfaults);
	snprintf(t, sizeof t, "%zu of %zu", s->nfaults, s->nfaults);
	if (bad) {
		struct fault_row *f = &s->faults[first];
		gate(v, false, g, m, t,
		     "%zu fault(s) not recovered inside their RTO; first: %s (faults.tsv row %zu) result %s, recovery %.10g ms, rto %.10g ms",
		     bad, f->id, first + 1, f->pass ? "pass" : "fail", f->recovery_ms, f->rto_ms);
	} else {
		gate(v, true, g, m, t, "every fault recovered inside its RTO (worst %.0f%% of RTO)", worst * 100);
	}
}

void sp_judge_faults_declared(sp_ev_judge *s, sp_ev_gate_ref g)
{
	sp_ev_verdict *v = s->v;
	if (!s->faults_ok) {
		na(v, g, "faults.tsv is invalid");
		return;
	}
	if (!s->meta_ok) {
		na(v, g, "metadata.txt is invalid");
		return;
	}
	/* at most nine declared ids (F01..F09): a bitmask each way */
	unsigned declared = 0, injected = 0;
	for (size_t i = 0; i < s->meta.nfaults; i++)
		declared |= 1u << (s->meta.faults[i][2] - '0');
	for (size_t k = 0; k < s->nfaults; k++) {
		unsigned bit = 1u << (s->faults[k].id[2] - '0');
		injected |= bit;
		if (!(declared & bit)) {
			gate(v, false, g, s->faults[k].id, "only declared faults",
			     "faults.tsv row %zu: fault %s is not declared in metadata.txt (faults=%s)", k + 1,
			     s->faults[k].id, s->meta.nfaults ? "..." : "none");
			return;
		}
	}
	for (size_t i = 0; i < s->meta.nfaults; i++)
		if (!(injected & (1u << (s->meta.faults[i][2] - '0')))) {
			gate(v, false, g, s->meta.faults[i], "every declared fault injected",
			     "fault %s is declared in metadata.txt but has no row in faults.tsv", s->meta.faults[i]);
			return;
		}
	char m[48];
	snprintf(m, sizeof m, "%zu declared", s->meta.nfaults);
	gate(v, true, g, m, "every declared fault injected", "faults.tsv matches the %zu fault(s) declared in metadata.txt",
	     s->meta.nfaults);
}

/* faults.window: every fault inside the run and its window the length of
 * its recovery (the writer records injection, recovery end and their
 * difference; each printed to the millisecond) */
void sp_judge_faults_window(sp_ev_judge *s, sp_ev_gate_ref g)
{
	sp_ev_verdict *v = s->v;
	if (!s->faults_ok) {
		na(v, g, "faults.tsv is invalid");
		return;
	}
	if (sp_ev_run_unknown(s)) {
		na(v, g, "resource-samples.tsv has no start and final sample in order");
		return;
	}
	double start_ts = s->a.start.ts, final_ts = s->a.final.ts;
	char t[64];
	snprintf(t, sizeof t, "in [%.10g, %.10g], |recovery - window| <= %.0f ms", start_ts, final_ts, FAULT_TOL_MS);
	for (size_t i = 0; i < s->nfaults; i++) {
		const struct fault_row *f = &s->faults[i];
		double win_ms = (f->ended - f->started) * 1000.0;
		char m[64];
		if (!ge(f->started, start_ts) || !le(f->ended, final_ts)) {
			snprintf(m, sizeof m, "[%.10g, %.10g]", f->started, f->ended);
			gate(v, false, g, m, t,
			     "faults.tsv line %llu: fault %s window [%.10g, %.10g] is outside the run (start sample %.10g, final sample %.10g)",
			     f->line, f->id, f->started, f->ended, start_ts, final_ts);
			return;
		}
		if (fabs(f->recovery_ms - win_ms) > FAULT_TOL_MS + 1e-6) {
			snprintf(m, sizeof m, "%.10g ms window", win_ms);
			gate(v, false, g, m, t,
			     "faults.tsv line %llu: fault %s window is %.10g ms (started %.10g, ended %.10g) but recovery_ms is %.10g",
			     f->line, f->id, win_ms, f->started, f->ended, f->recovery_ms);
			return;
		}
	}
	char m[48];
	snprintf(m, sizeof m, "%zu consistent", s->nfaults);
	gate(v, true, g, m, t, "%zu fault window(s) inside the run, each as long as its recovery", s->nfaults);
}
