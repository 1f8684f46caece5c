/* The verifier's readers: each of the bundle's files parsed once (and
 * hashed while parsed, for the MANIFEST check), what the judges need kept in
 * sp_ev_judge. A reader reports no gate; operations.tsv and latency.tsv are
 * read in ev_read_ops.c. */
#include "evidence/ev_judge.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/util.h"

const char *const sp_ev_known_name[KF_N] = {
	"metadata.txt",
	"operations.tsv",
	"latency.tsv",
	"resource-samples.tsv",
	"capability-results.tsv",
	"faults.tsv",
	"inventory-start.json",
	"inventory-final.json",
	"summary.json",
};

void sp_ev_first_bad_set(struct first_bad *b, unsigned long long line, const char *fmt, ...)
{
	if (b->bad)
		return;
	b->bad = true;
	b->line = line;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->msg, sizeof b->msg, fmt, ap);
	va_end(ap);
}


struct scen *sp_ev_find_scen(sp_ev_judge *s, const char *id, size_t n)
{
	if (s->nsc <= 16) {
		for (size_t i = 0; i < s->nsc; i++)
			if (s->sc[i].idlen == n && !memcmp(s->sc[i].id, id, n))
				return &s->sc[i];
		return NULL;
	}
	size_t i = sp_strset_get(&s->sc_set, id, n);
	return i == SIZE_MAX ? NULL : &s->sc[i];
}

/* the outcome its columns.<stem> and types.<stem> gates judge */
void sp_ev_record_tsv(sp_ev_judge *s, enum sp_ev_file f, const sp_ev_rows *r, bool opened, bool read_ok,
		      unsigned long long rows)
{
	struct tsv_outcome *t = &s->tsv[f];
	t->opened = opened;
	t->read_ok = read_ok;
	t->err = r->err;
	t->rows = rows;
	snprintf(t->msg, sizeof t->msg, "%s", r->msg);
}

/* ---- metadata and profile ---------------------------------------------- */
void sp_ev_read_metadata(sp_ev_judge *s)
{
	const sp_ev_verify_opts *o = s->o;
	s->meta_kind = "keys";
	if (sp_meta_load(&s->meta, s->dir, &s->hash[KF_METADATA], &s->meta_err, &s->meta_kind) < 0)
		return;
	s->meta_ok = true;
	const char *sa = sp_kv_get(s->meta.kv, s->meta.n, "started_at");
	if (!sa || sp_ev_parse_iso8601(sa, strlen(sa), &s->started_at) < 0)
		s->started_at = NAN;

	/* thresholds: the metadata's, made stricter by the claimed profile and
	 * by --profile; a named profile whose thresholds the metadata loosens
	 * is a claim the bundle does not meet (profile.claim) */
	s->th = s->meta.th;
	sp_ev_thresholds pt;
	const char *claim = s->meta.profile;
	if (sp_profile_thresholds(claim, &pt)) {
		const sp_ev_thresholds *m = &s->meta.th;
		s->claim_named = true;
#define LOOSER_MIN(f) \
	if (!s->loose && m->f < pt.f) { \
		s->loose = "threshold." #f; \
		num(s->loose_have, sizeof s->loose_have, (double)m->f); \
		num(s->loose_want, sizeof s->loose_want, (double)pt.f); \
	}
#define LOOSER_MAX(f) \
	if (!s->loose && m->f > pt.f) { \
		s->loose = "threshold." #f; \
		num(s->loose_have, sizeof s->loose_have, (double)m->f); \
		num(s->loose_want, sizeof s->loose_want, (double)pt.f); \
	}
		LOOSER_MIN(min_span_s)
		LOOSER_MAX(max_interval_s)
		LOOSER_MIN(min_periodic_samples)
		LOOSER_MAX(max_gap_s)
		LOOSER_MIN(min_success_ratio)
		LOOSER_MAX(rss_slope_mib_per_day)
		LOOSER_MAX(p95_regression_pct)
#undef LOOSER_MIN
#undef LOOSER_MAX
		sp_thresholds_stricter(&s->th, &pt, &s->th);
	}
	if (o->profile && sp_profile_thresholds(o->profile, &pt))
		sp_thresholds_stricter(&s->th, &pt, &s->th);
}

/* ---- faults.tsv -------------------------------------------------------- */
void sp_ev_read_faults(sp_ev_judge *s)
{
	sp_ev_rows r;
	sp_ev_fault f;
	unsigned long long rows = 0;
	bool opened = sp_rows_open_hashed(&r, s->dir, SP_EV_FAULTS, &s->hash[KF_FAULTS], s->hasher) == 0;
	bool ok = opened;
	if (opened) {
		int rc;
		while ((rc = sp_faults_next(&r, &f)) > 0) {
			if (++rows > MAX_SMALL_ROWS) {
				snprintf(r.msg, sizeof r.msg, "faults.tsv: more than %d rows", MAX_SMALL_ROWS);
				rc = -1;
				break;
			}
			if (s->nfaults == s->cap_faults) {
				s->cap_faults = s->cap_faults ? 2 * s->cap_faults : 16;
				s->faults = sp_xrealloc(s->faults, s->cap_faults * sizeof *s->faults);
			}
			struct fault_row *fr = &s->faults[s->nfaults++];
			memcpy(fr->id, f.fault_id, 4);
			fr->started = f.started;
			fr->ended = f.ended;
			fr->recovery_ms = f.recovery_ms;
			fr->rto_ms = f.rto_ms;
			fr->pass = f.pass;
			fr->line = r.line;
			if (f.ended < f.started) {
				snprintf(r.msg, sizeof r.msg, "faults.tsv line %llu: column ended: %.10g is before started %.10g",
					 r.line, f.ended, f.started);
				rc = -1;
				break;
			}
		}
		ok = rc == 0;
	}
	sp_ev_record_tsv(s, SP_EV_FAULTS, &r, opened, ok, rows);
	if (opened)
		sp_rows_close(&r);
	s->faults_ok = ok;
}

/* ---- capability-results.tsv -------------------------------------------- */
void sp_ev_read_caps(sp_ev_judge *s)
{
	sp_ev_rows r;
	sp_ev_cap c;
	unsigned long long rows = 0;
	bool opened = sp_rows_open_hashed(&r, s->dir, SP_EV_CAPABILITIES, &s->hash[KF_CAPABILITIES], s->hasher) == 0;
	bool ok = opened;
	if (opened) {
		int rc;
		while ((rc = sp_caps_next(&r, &c)) > 0) {
			if (++rows > MAX_SMALL_ROWS) {
				snprintf(r.msg, sizeof r.msg, "capability-results.tsv: more than %d rows", MAX_SMALL_ROWS);
				rc = -1;
				break;
			}
			struct scen *sc = sp_ev_find_scen(s, c.scenario, strlen(c.scenario));
			if (!sc) {
				if (!s->caps_extra[0])
					snprintf(s->caps_extra, sizeof s->caps_extra, "%s", c.scenario);
				continue;
			}
			if (sc->has_cap)
				s->caps_dup = true;
			sc->has_cap = true;
			sc->cap = c;
			sc->cap.scenario = sc->id;
		}
		ok = rc == 0;
	}
	sp_ev_record_tsv(s, SP_EV_CAPABILITIES, &r, opened, ok, rows);
	if (opened)
		sp_rows_close(&r);
	s->caps_ok = ok;
}


/* ---- resource-samples.tsv ---------------------------------------------- */
void sp_ev_read_samples(sp_ev_judge *s)
{
	struct samples_acc *a = &s->a;
	sp_ev_rows r;
	sp_ev_sample x;
	memset(a, 0, sizeof *a);
	bool opened = sp_rows_open_hashed(&r, s->dir, SP_EV_SAMPLES, &s->hash[KF_SAMPLES], s->hasher) == 0;
	bool ok = opened;
	bool schedule = s->meta_ok && strcmp(s->meta.profile, "R0") && s->meta.sample_interval_s > 0;
	double iv = s->meta_ok ? s->meta.sample_interval_s : 0;
	a->interval_limit = s->th.max_interval_s * INTERVAL_SLACK;
	if (opened) {
		a->nextra = r.nextra;
		for (size_t i = 0; i < r.nextra; i++)
			snprintf(a->extra_names[i], sizeof a->extra_names[i], "%s", r.extra_name[i]);
		int rc;
		while ((rc = sp_samples_next(&r, &x)) > 0) {
			a->n++;
			if (a->any) {
				double gap = x.ts - a->prev_ts;
				if (x.ts <= a->prev_ts && !a->mono_bad) {
					a->mono_bad = true;
					snprintf(a->mono_msg, sizeof a->mono_msg,
						 "resource-samples.tsv line %llu: ts %.10g is not after the previous %.10g",
						 r.line, x.ts, a->prev_ts);
				}
				if (gap > a->max_gap)
					a->max_gap = gap;
				if (x.phase != SP_PHASE_FINAL) {
					a->gaps++;
					if (gap > a->interval_limit + EPS * fmax(1, a->interval_limit))
						a->gaps_long++;
				}
				/* wall clock: never back, in step with ts */
				if (x.wall_epoch < a->prev_wall)
					sp_ev_first_bad_set(&a->wall, r.line, "resource-samples.tsv line %llu: wall %s goes back in time",
							    r.line, x.wall);
				double skew = (x.wall_epoch - a->wall0) - (x.ts - a->ts0);
				if (fabs(skew) > WALL_SKEW_S + 1e-9)
					sp_ev_first_bad_set(&a->wall, r.line,
							    "resource-samples.tsv line %llu: wall %s is %.10g s %s ts %.10g (start sample: wall %s, ts %.10g)",
							    r.line, x.wall, fabs(skew), skew > 0 ? "ahead of" : "behind", x.ts, a->wall0s,
							    a->ts0);
			} else {
				a->first_ts = x.ts;
				a->wall0 = x.wall_epoch;
				a->ts0 = x.ts;
				snprintf(a->wall0s, sizeof a->wall0s, "%s", x.wall);
				if (isfinite(s->started_at) && x.wall_epoch < s->started_at)
					sp_ev_first_bad_set(&a->wall, r.line,
							    "resource-samples.tsv line %llu: the first sample's wall %s is before metadata started_at",
							    r.line, x.wall);
			}
			if (x.wall_epoch > s->now + WALL_SKEW_S)
				sp_ev_first_bad_set(&a->wall, r.line, "resource-samples.tsv line %llu: wall %s is in the future", r.line,
						    x.wall);
			a->prev_wall = x.wall_epoch;
			if (!a->phase_bad) {
				const char *p = NULL;
				if (!a->any && x.phase != SP_PHASE_START)
					p = "the first sample is not phase start";
				else if (a->any && x.phase == SP_PHASE_START)
					p = "a second start sample";
				else if (a->last_was_final)
					p = x.phase == SP_PHASE_FINAL ? "a second final sample" : "a sample after the final one";
				if (p) {
					a->phase_bad = true;
					snprintf(a->phase_msg, sizeof a->phase_msg, "resource-samples.tsv line %llu: %s",
						 r.line, p);
				}
			}
			a->any = true;
			a->prev_ts = x.ts;
			a->last_was_final = x.phase == SP_PHASE_FINAL;
			if (x.phase == SP_PHASE_START) {
				if (!a->nstart++)
					a->start = x;
			} else if (x.phase == SP_PHASE_FINAL) {
				a->nfinal++;
				a->final = x;
			} else {
				a->nperiodic++;
				if (schedule && a->nstart == 1 &&
				    !ge(x.ts, a->start.ts + (double)a->nperiodic * iv))
					sp_ev_first_bad_set(&a->cadence, r.line,
							    "resource-samples.tsv line %llu: periodic sample %lld at ts %.10g, before its slot %.10g (start %.10g + %lld x %.10g s)",
							    r.line, a->nperiodic, x.ts, a->start.ts + (double)a->nperiodic * iv,
							    a->start.ts, a->nperiodic, iv);
				if (x.ts >= s->warmup_end) {
					sp_linreg_add(&a->rss, x.ts, (double)x.c[SP_C_OWNED_RSS_BYTES]);
					sp_linreg_add(&a->fds, x.ts, (double)x.c[SP_C_OWNED_FDS]);
				}
			}
			if (a->n == 1 || x.c[SP_C_DISK_BYTES] > a->disk_peak)
				a->disk_peak = x.c[SP_C_DISK_BYTES];
		}
		ok = rc == 0;
		if (ok && !a->phase_bad && (a->nfinal != 1 || !a->last_was_final)) {
			a->phase_bad = true;
			snprintf(a->phase_msg, sizeof a->phase_msg, "resource-samples.tsv: %s",
				 a->n == 0 ? "no samples" : "the last sample is not phase final");
		}
	}
	sp_ev_record_tsv(s, SP_EV_SAMPLES, &r, opened, ok, (unsigned long long)a->n);
	if (opened)
		sp_rows_close(&r);
	s->samples_ok = ok;
	s->nsamples = a->n;
	s->nperiodic = a->nperiodic;
}

/* ---- inventories, summary ---------------------------------------------- */
void sp_ev_read_json(sp_ev_judge *s)
{
	sp_error ma, mb;
	_cleanup_free_ char *pa = sp_xasprintf("%s/inventory-start.json", s->dir);
	_cleanup_free_ char *pb = sp_xasprintf("%s/inventory-final.json", s->dir);
	int ra = sp_inventory_load(&s->inv_start, pa, &s->hash[KF_INV_START], &ma);
	int rb = sp_inventory_load(&s->inv_final, pb, &s->hash[KF_INV_FINAL], &mb);
	s->inv_ok = ra == 0 && rb == 0;
	if (!s->inv_ok)
		snprintf(s->inv_msg, sizeof s->inv_msg, "%s: %s", ra < 0 ? "inventory-start.json" : "inventory-final.json",
			 ra < 0 ? ma.msg : mb.msg);
	_cleanup_free_ char *p = sp_xasprintf("%s/summary.json", s->dir);
	s->sm_ok = sp_ev_summary_load(&s->sm, p, &s->hash[KF_SUMMARY], &s->sm_err) == 0;
}

/* ---- logs/, MANIFEST, MANIFEST.sig --------------------------------------- */
static bool has_elision(const char *buf, size_t len)
{
	static const char head[] = "[... ", tail[] = " bytes elided ...]";
	for (const char *l = buf; l && l < buf + len;) {
		const char *nl = memchr(l, '\n', (size_t)(buf + len - l));
		size_t ll = nl ? (size_t)(nl - l) : (size_t)(buf + len - l);
		size_t np = sizeof head - 1, nq = sizeof tail - 1;
		if (ll > np + nq && !memcmp(l, head, np) && !memcmp(l + ll - nq, tail, nq)) {
			size_t d = ll - np - nq;
			bool digits = d > 0 && d <= 20;
			for (size_t i = 0; digits && i < d; i++)
				digits = l[np + i] >= '0' && l[np + i] <= '9';
			if (digits && l[np] != '0')
				return true;
		}
		l = nl ? nl + 1 : NULL;
	}
	return false;
}

/* every log read once: the first over its bound, the secrets in them */
static void scan_logs(sp_ev_judge *s)
{
	s->log_scan = sp_secret_ready();
	for (size_t i = 0; i < s->npaths; i++) {
		const char *path = s->paths[i];
		if (!sp_startswith(path, "logs/"))
			continue;
		s->nlogs++;
		_cleanup_free_ char *p = sp_xasprintf("%s/%s", s->dir, path);
		size_t len = 0;
		int e = 0;
		_cleanup_free_ char *buf = sp_ev_read_all(p, SP_EV_MAX_LOG, &len, &e);
		if (!buf) {
			if (e == EFBIG && !s->log_big[0]) {
				struct stat st;
				s->log_bigsz = lstat(p, &st) == 0 ? (long long)st.st_size : SP_EV_MAX_LOG + 1;
				snprintf(s->log_big, sizeof s->log_big, "%s is %lld bytes: logs are bounded to 64 KiB (head and tail)",
					 path, s->log_bigsz);
			}
			continue; /* unreadable: integrity.manifest judges it */
		}
		if (len > LOG_BOUND && !s->log_big[0] && !has_elision(buf, len)) {
			s->log_bigsz = (long long)len;
			snprintf(s->log_big, sizeof s->log_big,
				 "%s is %zu bytes, over 64 KiB without the writer's '[... N bytes elided ...]' line", path, len);
		}
		unsigned line = 0;
		const char *name = NULL;
		size_t h = 0;
		if (s->log_scan && sp_secret_scan(buf, len, &line, &name, &h) == 0 && h) {
			if (!s->log_hits)
				snprintf(s->log_where, sizeof s->log_where, "%s line %u holds %s", path, line, name);
			s->log_hits += h;
		}
	}
}

void sp_ev_read_bundle(sp_ev_judge *s)
{
	s->listed = sp_bundle_list(s->dir, &s->paths, &s->npaths, &s->list_err) == 0;
	if (s->listed)
		scan_logs(s);
	_cleanup_free_ char *mp = sp_xasprintf("%s/MANIFEST", s->dir);
	s->mbuf = sp_ev_read_all(mp, 64 * 1024 * 1024, &s->mlen, &s->merrno);
	_cleanup_free_ char *sp = sp_xasprintf("%s/MANIFEST.sig", s->dir);
	s->sig = sp_ev_read_all(sp, 4096, &s->slen, &s->serrno);
}
