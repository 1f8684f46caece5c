/* Gates on what a run leaves or grows: resident memory and descriptors over
 * the post-warm-up samples, disk use, owned resources back to their start
 * (samples, inventories, the runner's own cleanup status). */
#include "evidence/ev_judge.h"

#include <string.h>

#include "core/util.h"

/* Regressions over post-warm-up periodic samples; a rehearsal whose
 * thresholds ask for no periodic samples (R0) has no window to judge a
 * per-day rate on: a slope over its few seconds is noise (cleanup and
 * fd_final still judge what it left behind). */
void sp_judge_leak_rss_slope(sp_ev_judge *s, sp_ev_gate_ref g)
{
	const struct samples_acc *a = &s->a;
	const sp_ev_thresholds *th = &s->th;
	if (samples_na(s, g, true))
		return;
	char m[64], t[64];
	bool need = th->min_periodic_samples >= 2;
	num(t, sizeof t, th->rss_slope_mib_per_day);
	if (!need && th->min_periodic_samples == 0) {
		gate(s->v, true, g, "not judged", t,
		     "the thresholds ask for no periodic samples (a rehearsal): no RSS slope judged over %llu post-warm-up sample(s)",
		     a->rss.n);
	} else if (a->rss.n < 2) {
		gate(s->v, !need, g, "n/a", t, "%llu post-warm-up periodic sample(s): the RSS slope %s", a->rss.n,
		     need ? "cannot be measured although the profile requires periodic samples" : "is not measurable");
	} else {
		double slope = sp_linreg_slope(&a->rss) * 86400.0 / 1048576.0;
		num(m, sizeof m, slope);
		gate(s->v, le(slope, th->rss_slope_mib_per_day), g, m, pre(t, "<="),
		     "owned RSS slope %s MiB/day over %llu post-warm-up periodic samples (maximum %s)", m, a->rss.n, t);
	}
}

void sp_judge_leak_fd_growth(sp_ev_judge *s, sp_ev_gate_ref g)
{
	const struct samples_acc *a = &s->a;
	const sp_ev_thresholds *th = &s->th;
	if (samples_na(s, g, true))
		return;
	char m[64], t[64];
	bool need = th->min_periodic_samples >= 2;
	snprintf(t, sizeof t, "%lld", th->fd_growth_max);
	if (!need && th->min_periodic_samples == 0) {
		gate(s->v, true, g, "not judged", t,
		     "the thresholds ask for no periodic samples (a rehearsal): no FD trend judged (leak.fd_final still is)");
	} else if (a->fds.n < 2) {
		gate(s->v, !need, g, "n/a", t, "%llu post-warm-up periodic sample(s): FD growth %s", a->fds.n,
		     need ? "cannot be measured although the profile requires periodic samples" : "is not measurable");
	} else {
		double growth = sp_linreg_slope(&a->fds) * (a->fds.xmax - a->fds.xmin);
		num(m, sizeof m, growth);
		gate(s->v, le(growth, (double)th->fd_growth_max), g, m, pre(t, "<="),
		     "owned FDs grow by %s over the post-warm-up window (least squares; allowance %s)", m, t);
	}
}

void sp_judge_leak_fd_final(sp_ev_judge *s, sp_ev_gate_ref g)
{
	const struct samples_acc *a = &s->a;
	if (samples_na(s, g, true))
		return;
	char m[64], t[64];
	snprintf(t, sizeof t, "%lld", s->th.fd_growth_max);
	long long fdd = a->final.c[SP_C_OWNED_FDS] - a->start.c[SP_C_OWNED_FDS];
	snprintf(m, sizeof m, "%lld", fdd);
	gate(s->v, fdd <= s->th.fd_growth_max, g, m, pre(t, "<="), "final owned FDs %lld, start %lld: growth %lld (allowance %s)",
	     a->final.c[SP_C_OWNED_FDS], a->start.c[SP_C_OWNED_FDS], fdd, t);
}

/* disk.peak, disk.final: the state root's growth over its start sample, at
 * its peak or at the final sample (said as "peaked at", "after cleanup"),
 * within the budget */
static void disk_growth(sp_ev_judge *s, sp_ev_gate_ref g, bool peak, const char *when)
{
	const struct samples_acc *a = &s->a;
	if (samples_na(s, g, true))
		return;
	char m[64], t[64];
	long long grew = (peak ? a->disk_peak : a->final.c[SP_C_DISK_BYTES]) - a->start.c[SP_C_DISK_BYTES];
	snprintf(t, sizeof t, "%lld", s->th.disk_budget_bytes);
	snprintf(m, sizeof m, "%lld", grew);
	gate(s->v, grew <= s->th.disk_budget_bytes, g, m, pre(t, "<="), "state-root disk growth %s %lld bytes (budget %lld)", when,
	     grew, s->th.disk_budget_bytes);
}

void sp_judge_disk_peak(sp_ev_judge *s, sp_ev_gate_ref g)
{
	disk_growth(s, g, true, "peaked at");
}

void sp_judge_disk_final(sp_ev_judge *s, sp_ev_gate_ref g)
{
	disk_growth(s, g, false, "after cleanup");
}

/* cleanup.owned_*: an owned count of the samples back to its start value */
void sp_judge_cleanup_owned(sp_ev_judge *s, sp_ev_gate_ref g)
{
	const struct samples_acc *a = &s->a;
	if (samples_na(s, g, true))
		return;
	enum sp_ev_counter c = g.id == SP_G_CLEANUP_OWNED_PROCESSES ? SP_C_OWNED_PROCESSES
			       : g.id == SP_G_CLEANUP_OWNED_MOUNTS  ? SP_C_OWNED_MOUNTS
			       : g.id == SP_G_CLEANUP_OWNED_SOCKETS ? SP_C_OWNED_SOCKETS
								    : SP_C_OWNED_CGROUPS;
	char m[64], t[64];
	long long st = a->start.c[c], fi = a->final.c[c];
	snprintf(m, sizeof m, "%lld", fi);
	snprintf(t, sizeof t, "%lld", st);
	gate(s->v, fi == st, g, m, pre(t, "="), "final %s %lld, start %lld", sp_ev_counter_name(c), fi, st);
}

/* cleanup.<counter>: every other counter of the samples (none reported when
 * the samples cannot be judged) */
void sp_judge_cleanup_extra(sp_ev_judge *s, sp_ev_gate_ref g)
{
	const struct samples_acc *a = &s->a;
	if (sp_ev_samples_unjudged(s, true))
		return;
	for (size_t i = 0; i < a->nextra; i++) {
		char m[64], t[64];
		long long st = a->start.extra[i], fi = a->final.extra[i];
		snprintf(m, sizeof m, "%lld", fi);
		snprintf(t, sizeof t, "%lld", st);
		gate(s->v, fi == st, (sp_ev_gate_ref){g.id, a->extra_names[i]}, m, pre(t, "="), "final %s %lld, start %lld",
		     a->extra_names[i], fi, st);
	}
}

void sp_judge_cleanup_inventory(sp_ev_judge *s, sp_ev_gate_ref g)
{
	if (!s->inv_ok) {
		na(s->v, g, s->inv_msg);
		return;
	}
	char m[48], t[48];
	snprintf(m, sizeof m, "%zu resources", s->inv_final.n);
	snprintf(t, sizeof t, "%zu resources", s->inv_start.n);
	sp_error ierr;
	if (sp_inventory_equal(&s->inv_start, &s->inv_final, &ierr))
		gate(s->v, true, g, m, t, "inventory-final equals inventory-start (%zu resources)", s->inv_start.n);
	else
		gate(s->v, false, g, m, t, "%s", ierr.msg);
}

void sp_judge_cleanup_status(sp_ev_judge *s, sp_ev_gate_ref g)
{
	if (!s->sm_ok)
		na(s->v, g, "summary.json is invalid");
	else
		gate(s->v, !strcmp(s->sm.cleanup, "ok"), g, s->sm.cleanup, "ok", "summary.json: cleanup %s", s->sm.cleanup);
}
