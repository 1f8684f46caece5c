/* The verdict on a sandprobe bundle: every hard gate of
 * docs/evidence-format.md, each with a stable id, the measured value, the
 * threshold and pass/fail. A gate whose input could not be read fails ("not
 * evaluated: ..."): nothing passes without evidence.
 *
 * The readers (ev_read.c, ev_read_ops.c) parse each file in one streaming
 * pass, hashed while parsed, so the MANIFEST check re-reads only what was not
 * parsed (logs/, unexpected files); then each G and J line of the gate
 * list SP_GATE_LIST (evidence.h) has its judge (gates_<family>.c) report its
 * gate, in the list's order. */
#include "evidence/ev_judge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/util.h"

static const struct judge_line {
	sp_ev_gate_ref g;
	void (*judge)(sp_ev_judge *s, sp_ev_gate_ref g);
} judges[] = {
#define SP_EV_JUDGE_G(name, id, techniques, what, fn) {{SP_G_##name, NULL}, fn},
#define SP_EV_JUDGE_J(name, sfx, fn) {{SP_G_##name, sfx}, fn},
	SP_GATE_LIST(SP_EV_JUDGE_G, SP_EV_JUDGE_J, SP_GATE_SKIP, SP_GATE_SKIP)
#undef SP_EV_JUDGE_G
#undef SP_EV_JUDGE_J
};

/* every file of the bundle, in the order the readers need one another */
static void read_all(sp_ev_judge *s)
{
	sp_ev_read_metadata(s);
	if (s->meta_ok) {
		s->nsc = s->meta.nscenarios;
		s->sc = sp_xcalloc(s->nsc ? s->nsc : 1, sizeof *s->sc);
		for (size_t i = 0; i < s->nsc; i++) {
			s->sc[i].id = s->meta.scenarios[i];
			s->sc[i].idlen = strlen(s->sc[i].id);
			s->sc[i].t1 = s->sc[i].t2 = INFINITY;
			sp_strset_put(&s->sc_set, s->sc[i].id, s->sc[i].idlen, i); /* unique: metadata checked */
		}
	}
	sp_ev_read_faults(s);
	sp_ev_read_caps(s);
	sp_ev_read_ops(s);
	if (!s->meta_ok)
		s->warmup_end = INFINITY;
	sp_ev_read_samples(s);
	sp_ev_read_latency_end(s);
	sp_ev_read_json(s);
	sp_ev_read_bundle(s);
}

static void judge_free(sp_ev_judge *s)
{
	sp_ev_hasher_free(s->hasher);
	for (int k = 0; k < KF_N; k++)
		sp_ev_sha256_free(&s->hash[k]);
	for (size_t i = 0; i < s->nsc; i++)
		sp_dvec_free(&s->sc[i].lat);
	free(s->sc);
	sp_strset_free(&s->sc_set);
	free(s->faults);
	free(s->win);
	free(s->heap);
	free(s->lat_entry);
	sp_meta_free(&s->meta);
	sp_inventory_free(&s->inv_start);
	sp_inventory_free(&s->inv_final);
	if (s->sm_ok)
		sp_ev_summary_free(&s->sm);
	for (size_t i = 0; i < s->npaths; i++)
		free(s->paths[i]);
	free(s->paths);
	free(s->mbuf);
	free(s->sig);
	free(s);
}

int sp_ev_verify(const char *dir, const sp_ev_verify_opts *o, sp_ev_verdict *v, sp_error *err)
{
	memset(v, 0, sizeof *v);
	if (o->profile && strcmp(o->profile, "custom") && !sp_profile_thresholds(o->profile, &(sp_ev_thresholds){0}))
		return sp_usage(err, "--profile %s: not one of R0, G2, R24, E72, custom", o->profile);

	/* through a symlink to the bundle too: every path below is resolved */
	_cleanup_free_ char *real = realpath(dir, NULL);
	if (!real)
		return sp_usage(err, "%s: %s", dir, strerror(errno));
	/* no verdict without digests: an internal error (exit 3), not a gate */
	if (sp_ev_sha256_ready(err) < 0)
		return -1;
	sp_ev_judge *s = sp_xcalloc(1, sizeof *s);
	s->dir = real;
	s->o = o;
	s->v = v;
	s->now = (double)time(NULL);
	s->started_at = NAN;
	s->hasher = sp_ev_hasher_new();
	v->bundle = sp_xstrdup(dir);
	sp_ev_sanitize(v->bundle);
	v->input = sp_xstrdup(SP_EVIDENCE_SCHEMA);

	read_all(s);
	v->profile = sp_xstrdup(o->profile ? o->profile : s->meta_ok ? s->meta.profile : "unknown");
	for (size_t i = 0; i < SP_ARRAY_SIZE(judges); i++)
		judges[i].judge(s, judges[i].g);
	judge_free(s);
	return 0;
}
