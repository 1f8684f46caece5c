/* F09: upgrade and rollback of the runtime binary under live resources.
 *
 * The workload calls its runtime through a link the run owns (`link`, a
 * symbolic link inside the state dir) that points at version N (`from`).
 * After the fault's step the runner:
 *   lists    the live resources with the workload's `tasks` command (through
 *            the link, so under N); none listed, or a list that fails:
 *            nothing is injected
 *   upgrades the link to N+1 (`to`), atomically (a new link renamed over
 *            it), and proves it points there
 *   lists    again, under N+1: with `next: keep` (the default) the list must
 *            be the one made under N; with `next: fail-closed` N+1 may also
 *            refuse (the command fails), but never list something else (a
 *            resource lost or changed without an error is the failure this
 *            fault looks for)
 *   runs     the recover steps, under N+1 (the workload's own checks that
 *            the resources are usable, or refused)
 *   rolls back the link to N, proves it, and lists once more: the list must
 *            be the one made before the upgrade (rollback restores).
 * A link that cannot be put back fails the record and stops the run (the
 * fault cannot be undone). A run killed during the fault leaves the link
 * in the state dir, which goes with it; the workload's cleanup should call
 * `from` directly. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "soak/run.h"

/* point link at dest, atomically; 0 when it then reads back dest */
static int relink(const char *link, const char *dest)
{
	char *tmp = sp_xasprintf("%s.sp-tmp", link);
	unlink(tmp);
	int rc = symlink(dest, tmp) == 0 && rename(tmp, link) == 0 ? 0 : -1;
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	char got[PATH_MAX];
	ssize_t n = readlink(link, got, sizeof got - 1);
	if (rc == 0 && (n < 0 || (got[n] = '\0', strcmp(got, dest))))
		rc = -1;
	return rc;
}

static bool points_at(const char *link, const char *dest)
{
	char got[PATH_MAX];
	ssize_t n = readlink(link, got, sizeof got - 1);
	if (n < 0)
		return false;
	got[n] = '\0';
	return !strcmp(got, dest);
}

static bool same_list(const sp_strv *a, const sp_strv *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i], b->v[i]))
			return false;
	return true;
}

/* what a list compared with the one made under N says */
static void describe(char *d, size_t dsz, const char *what, int rc, const sp_strv *l, const sp_strv *before)
{
	size_t dl = strlen(d);
	if (rc < 0)
		snprintf(d + dl, dsz - dl, " %s:refused", what);
	else if (same_list(l, before))
		snprintf(d + dl, dsz - dl, " %s:%zu-same", what, l->n);
	else {
		size_t lost = 0;
		for (size_t i = 0; i < before->n; i++)
			lost += !sp_strv_contains(l, before->v[i]);
		snprintf(d + dl, dsz - dl, " %s:before=%zu,now=%zu,lost=%zu,differ", what, before->n, l->n, lost);
	}
}

void sp_soak_upgrade_fault(struct run *r, struct scen_state *st, unsigned long long gen)
{
	const sp_soak_wfault *f = &st->sc->fault;
	char idbuf[96], genbuf[32], target[256];
	sp_soak_vars v;
	sp_soak_vars_for(r, st, gen, &v, idbuf, sizeof idbuf, genbuf, sizeof genbuf);
	if (f->after_ms > 0)
		sp_soak_sleep_unless_aborted(&r->sch, f->after_ms);
	if (atomic_load(&r->sch.abort_ops))
		return;
	char *link = sp_expand(f->link, &v), *from = sp_expand(f->from, &v), *to = sp_expand(f->to, &v);
	const char *why = NULL;
	struct stat sb;
	if (!link || !sp_soak_path_in_state(r, link))
		why = "target-not-owned"; /* only the run's own link is moved */
	else if (!from || !to || stat(from, &sb) < 0 || !S_ISREG(sb.st_mode) || access(from, X_OK) < 0)
		why = "version-n-missing";
	else if (stat(to, &sb) < 0 || !S_ISREG(sb.st_mode) || access(to, X_OK) < 0)
		why = "version-next-missing";
	else if (!points_at(link, from))
		why = "link-not-at-n";
	sp_strv before = {0}, next = {0}, back = {0};
	if (!why) {
		if (sp_soak_command_lines(r, &f->tasks, &v, &before) < 0)
			why = "tasks-unreadable";
		else if (!before.n)
			why = "no-tasks"; /* nothing live to upgrade under: not injected */
	}
	snprintf(target, sizeof target, "link:%s N:%s N+1:%s tasks:%zu", link ? link : "?", from ? from : "?", to ? to : "?",
		 before.n);
	if (!why && relink(link, to) < 0)
		why = "upgrade-failed";
	uint64_t t = sp_now_ns();
	sp_soak_record_op(r, st, f->id, why ? OP_FAIL : OP_FAULT, t, sp_now_ns(), gen, why ? why : "upgraded");
	if (why && !strcmp(why, "target-not-owned")) {
		sp_soak_note(&r->notes, "fault %s: the link %s is not inside the run's state dir; stopping", f->id, link ? link : "?");
		sp_soak_set_stop(&r->sch, 2, "invariant");
	}
	char desc[256] = "";
	bool ok = false;
	if (!why) {
		/* under N+1: kept, or refused when the workload allows it; never lost */
		int nrc = sp_soak_command_lines(r, &f->tasks, &v, &next);
		describe(desc, sizeof desc, "next", nrc, &next, &before);
		bool next_ok = nrc == 0 ? same_list(&next, &before) : f->next_fail_closed;
		if (!next_ok)
			sp_soak_note(&r->notes, "fault %s: under %s the resources made under %s are %s", f->id, to, from,
				     nrc < 0 ? "refused (next: keep)" : "not the same (lost or changed)");
		ok = !atomic_load(&r->sch.abort_ops) && sp_soak_run_steps(r, st, &st->sc->recover, gen);
		ok = ok && next_ok;
		/* rollback */
		size_t dl = strlen(desc);
		if (relink(link, from) < 0) {
			ok = false;
			snprintf(desc + dl, sizeof desc - dl, " rollback-failed");
			sp_soak_note(&r->notes, "fault %s: the link %s cannot be put back to %s: the upgrade cannot be undone; stopping", f->id,
				     link, from);
			sp_soak_set_stop(&r->sch, 1, "error");
		} else {
			int brc = sp_soak_command_lines(r, &f->tasks, &v, &back);
			describe(desc, sizeof desc, "rollback", brc, &back, &before);
			if (brc < 0 || !same_list(&back, &before)) {
				ok = false;
				sp_soak_note(&r->notes, "fault %s: after the rollback to %s the resources are not the ones made before the upgrade",
					     f->id, from);
			}
		}
	} else if (!atomic_load(&r->sch.abort_ops)) {
		sp_soak_run_steps(r, st, &st->sc->recover, gen);
	}
	uint64_t end = sp_now_ns();
	long long rec_ms = (long long)((end - t) / 1000000ull);
	char *tt = sp_xasprintf("%s%s", target, desc);
	sp_soak_record_fault(&r->rec, f, tt, sp_soak_ns_to_ts(r, t), sp_soak_ns_to_ts(r, end), rec_ms, !why && ok && rec_ms <= f->rto_ms);
	free(tt);
	sp_strv_free(&before);
	sp_strv_free(&next);
	sp_strv_free(&back);
	free(link);
	free(from);
	free(to);
}
