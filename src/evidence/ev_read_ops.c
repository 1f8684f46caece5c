/* The verifier's reader of operations.tsv, and of latency.tsv in step with
 * it: operations.tsv is parsed on this thread; its ok operations go in
 * batches to a thread that reads latency.tsv (and computes the per-scenario
 * quantiles), so that the two files are parsed on two cores. */
#include "evidence/ev_judge.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* ---- operations.tsv (and latency.tsv in step) -------------------------- */
/* the passing fault windows sorted by start. Operations come in time order;
 * each expected_fault operation takes, of the windows open at its ts, the
 * one that closes first (greedy, which pairs as many operations with
 * windows as any assignment can): one window excuses one operation. */
static int cmp_win(const void *a, const void *b)
{
	double x = ((const struct window *)a)->started, y = ((const struct window *)b)->started;
	return x < y ? -1 : x > y;
}

static void build_windows(sp_ev_judge *s)
{
	s->win = sp_xcalloc(s->nfaults ? s->nfaults : 1, sizeof *s->win);
	s->heap = sp_xcalloc(s->nfaults ? s->nfaults : 1, sizeof *s->heap);
	s->nwin = s->next_win = s->nheap = 0;
	for (size_t i = 0; i < s->nfaults; i++)
		if (s->faults[i].pass) {
			s->win[s->nwin].started = s->faults[i].started;
			s->win[s->nwin].ended = s->faults[i].ended;
			s->nwin++;
		}
	qsort(s->win, s->nwin, sizeof *s->win, cmp_win);
}

static void heap_push(sp_ev_judge *s, double x)
{
	size_t i = s->nheap++;
	while (i && s->heap[(i - 1) / 2] > x) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = x;
}

static void heap_pop(sp_ev_judge *s)
{
	double x = s->heap[--s->nheap];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && s->heap[c + 1] < s->heap[c])
			c++;
		if (s->heap[c] >= x)
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap)
		s->heap[i] = x;
}

/* an unused passing window open at ts: taken (true), or none (false) */
static bool take_window(sp_ev_judge *s, double ts)
{
	while (s->next_win < s->nwin && s->win[s->next_win].started <= ts)
		heap_push(s, s->win[s->next_win++].ended);
	while (s->nheap && s->heap[0] < ts)
		heap_pop(s); /* closed before ts: no later operation can use it */
	if (!s->nheap)
		return false;
	heap_pop(s);
	return true;
}

static bool same(const char *a, size_t an, const char *b, size_t bn)
{
	return an == bn && !memcmp(a, b, an);
}

/* one field of the line equal to f, then delim */
static bool seg(const char **p, const char *end, const char *f, size_t n, char delim)
{
	if ((size_t)(end - *p) < n + 1 || (*p)[n] != delim)
		return false;
	for (size_t i = 0; i < n; i++) /* short fields: no call */
		if ((*p)[i] != f[i])
			return false;
	*p += n + 1;
	return true;
}

/* an ok operation as latency.tsv must repeat it */
struct lat_rec {
	double ts, latency;
	unsigned long long line; /* in operations.tsv */
	struct scen *sc;         /* NULL: an undeclared scenario */
	const char *f[4];        /* ts, scenario, operation, latency_ms as written */
	size_t n[4];
};

static void lat_row_ok(sp_ev_judge *s, const sp_ev_rows *l, const struct lat_rec *op, bool warm)
{
	if (warm && op->ts >= s->lat_warm_max) {
		s->lat_warm_max = op->ts;
		s->lat_warm_max_line = l->line;
	} else if (!warm && op->ts < s->lat_cold_min) {
		s->lat_cold_min = op->ts;
		s->lat_cold_min_line = l->line;
	}
	if (!warm && op->sc)
		sp_dvec_push(&op->sc->lat, op->latency);
}

/* the latency.tsv row for this ok operation: same ts, scenario, operation
 * and latency (byte for byte, or as the same decimal) */
static void lat_step(sp_ev_judge *s, sp_ev_rows *l, const struct lat_rec *op)
{
	if (!s->lat_opened || !s->lat_ok || s->lat_agree.bad)
		return;
	/* fastest: the row, already read, is this operation's (writer's order) */
	char wch;
	if (l->ncols == 5 && l->col[0] == 0 && l->col[1] == 1 && l->col[2] == 2 && l->col[3] == 3 && l->col[4] == 4 &&
	    sp_rows_try_line(l, op->f, op->n, 4, "01", &wch)) {
		s->lat_rows++;
		lat_row_ok(s, l, op, wch == '1');
		return;
	}
	const char *ln;
	size_t ll;
	int rc = sp_rows_peek_line(l, &ln, &ll);
	if (rc < 0) {
		s->lat_ok = false;
		return;
	}
	if (rc == 0) {
		sp_ev_first_bad_set(&s->lat_agree, l->line,
				    "latency.tsv ends after %llu rows but operations.tsv line %llu is another ok operation",
				    s->lat_rows, op->line);
		return;
	}
	s->lat_rows++;
#define OF(c) op->f[c], op->n[c]
	/* the common case, the writer's column order: the line is the
	 * operation's fields byte for byte and a 0/1 (no split needed: those
	 * bytes were checked in operations.tsv) */
	if (l->ncols == 5 && l->col[0] == 0 && l->col[1] == 1 && l->col[2] == 2 && l->col[3] == 3 && l->col[4] == 4) {
		const char *p = ln, *end = ln + ll;
		if (seg(&p, end, OF(0), '\t') && seg(&p, end, OF(1), '\t') && seg(&p, end, OF(2), '\t') &&
		    seg(&p, end, OF(3), '\t') && end - p == 1 && (*p == '0' || *p == '1')) {
			lat_row_ok(s, l, op, *p == '1');
			return;
		}
	}
	if (sp_rows_split_line(l, ln, ll) < 0) {
		s->lat_ok = false;
		return;
	}
#define LF(c) l->f[l->col[c]], l->flen[l->col[c]]
	/* warmup first: a typed column of latency.tsv alone */
	const char *w = l->f[l->col[4]];
	if (l->flen[l->col[4]] != 1 || (w[0] != '0' && w[0] != '1')) {
		snprintf(l->msg, sizeof l->msg, "latency.tsv line %llu: column warmup: '%.40s' is not 0 or 1", l->line, w);
		s->lat_ok = false;
		return;
	}
	if (!l->flen[l->col[1]] || !l->flen[l->col[2]]) {
		snprintf(l->msg, sizeof l->msg, "latency.tsv line %llu: column %s: '' is not a non-empty value", l->line,
			 l->flen[l->col[1]] ? "operation" : "scenario");
		s->lat_ok = false;
		return;
	}
	const char *what = NULL;
	int k = 0;
	if (!same(LF(0), OF(0))) {
		double x;
		if (sp_ev_parse_dec(LF(0), &x) < 0) {
			snprintf(l->msg, sizeof l->msg, "latency.tsv line %llu: column ts: '%.40s' is not a non-negative decimal",
				 l->line, l->f[l->col[0]]);
			s->lat_ok = false;
			return;
		}
		if (x != op->ts)
			what = "ts", k = 0;
	}
	if (!what && !same(LF(1), OF(1)))
		what = "scenario", k = 1;
	if (!what && !same(LF(2), OF(2)))
		what = "operation", k = 2;
	if (!what && !same(LF(3), OF(3))) {
		double x;
		if (sp_ev_parse_dec(LF(3), &x) < 0) {
			snprintf(l->msg, sizeof l->msg,
				 "latency.tsv line %llu: column latency_ms: '%.40s' is not a non-negative decimal", l->line,
				 l->f[l->col[3]]);
			s->lat_ok = false;
			return;
		}
		if (x != op->latency)
			what = "latency_ms", k = 3;
	}
	if (what) {
		sp_ev_first_bad_set(&s->lat_agree, l->line,
				    "latency.tsv line %llu: %s '%.40s' but the ok operation at operations.tsv line %llu has '%.*s'",
				    l->line, what, l->f[l->col[k]], op->line, (int)(op->n[k] > 40 ? 40 : op->n[k]), op->f[k]);
		return;
	}
#undef LF
#undef OF
	lat_row_ok(s, l, op, w[0] == '1');
}

/* ---- the latency thread ---------------------------------------------------
 * operations.tsv is parsed here; the ok operations go in batches to a
 * thread that reads latency.tsv in step (and computes the quantiles), so
 * that the two files are parsed on two cores. */
#define LQ_RECS 2048
#define LQ_ARENA (SP_EV_MAX_LINE + LQ_RECS * 48)
#define LQ_NB 3
struct lat_batch {
	struct lat_rec rec[LQ_RECS];
	size_t nrec, used;
	char arena[LQ_ARENA];
};

struct latq {
	sp_ev_judge *s;
	sp_ev_rows l;
	pthread_t thr;
	bool threaded, done, ops_ok;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct lat_batch *b[LQ_NB];
	int full[LQ_NB];
	int prod, cons;
};

static void lat_quantiles(sp_ev_judge *s)
{
	for (size_t i = 0; i < s->nsc; i++)
		if (s->sc[i].lat.n)
			sp_quantiles3(s->sc[i].lat.v, s->sc[i].lat.n, &s->sc[i].q50, &s->sc[i].q95, &s->sc[i].q99);
}

/* after the last ok operation: nothing may follow it in latency.tsv */
static void lat_finish(sp_ev_judge *s, sp_ev_rows *l, bool ops_ok)
{
	if (ops_ok && s->lat_ok && !s->lat_agree.bad) {
		int rc = sp_rows_next_raw(l);
		if (rc < 0)
			s->lat_ok = false;
		else if (rc > 0)
			sp_ev_first_bad_set(&s->lat_agree, l->line,
					    "latency.tsv line %llu: a row after the last ok operation of operations.tsv", l->line);
	}
	lat_quantiles(s);
}

static void *lat_main(void *arg)
{
	struct latq *q = arg;
	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (!q->full[q->cons] && !q->done)
			pthread_cond_wait(&q->cv, &q->mu);
		if (!q->full[q->cons])
			break; /* done, nothing left */
		struct lat_batch *bt = q->b[q->cons];
		pthread_mutex_unlock(&q->mu);
		for (size_t i = 0; i < bt->nrec; i++)
			lat_step(q->s, &q->l, &bt->rec[i]);
		pthread_mutex_lock(&q->mu);
		q->full[q->cons] = 0;
		q->cons = (q->cons + 1) % LQ_NB;
		pthread_cond_broadcast(&q->cv);
	}
	bool ops_ok = q->ops_ok;
	pthread_mutex_unlock(&q->mu);
	lat_finish(q->s, &q->l, ops_ok); /* and the quantiles, on this core */
	return NULL;
}

static void lq_publish(struct latq *q)
{
	struct lat_batch *bt = q->b[q->prod];
	if (!q->threaded) {
		for (size_t i = 0; i < bt->nrec; i++)
			lat_step(q->s, &q->l, &bt->rec[i]);
		bt->nrec = bt->used = 0;
		return;
	}
	pthread_mutex_lock(&q->mu);
	q->full[q->prod] = 1;
	q->prod = (q->prod + 1) % LQ_NB;
	pthread_cond_broadcast(&q->cv);
	while (q->full[q->prod])
		pthread_cond_wait(&q->cv, &q->mu);
	pthread_mutex_unlock(&q->mu);
	q->b[q->prod]->nrec = q->b[q->prod]->used = 0;
}

static void lq_push(struct latq *q, const sp_ev_rows *o, const sp_ev_op *op, struct scen *sc)
{
	static const int cols[4] = {0, 1, 3, 4}; /* ts, scenario, operation, latency_ms */
	size_t need = 0;
	for (int k = 0; k < 4; k++)
		need += o->flen[o->col[cols[k]]];
	struct lat_batch *bt = q->b[q->prod];
	if (bt->nrec == LQ_RECS || bt->used + need > LQ_ARENA)
		lq_publish(q), bt = q->b[q->prod];
	struct lat_rec *r = &bt->rec[bt->nrec++];
	r->ts = op->ts;
	r->latency = op->latency_ms;
	r->line = o->line;
	r->sc = sc;
	if (o->col[0] == 0 && o->col[1] == 1 && o->col[3] == 3 && o->col[4] == 4) {
		/* the writer's order: ts..latency_ms are one span of the line */
		const char *from = o->f[0], *to = o->f[4] + o->flen[4];
		size_t n = (size_t)(to - from);
		if (bt->used + n > LQ_ARENA) /* need counted the fields only */
			bt->nrec--, lq_publish(q), bt = q->b[q->prod], r = &bt->rec[bt->nrec++], *r = (struct lat_rec){.ts = op->ts, .latency = op->latency_ms, .line = o->line, .sc = sc};
		char *base = bt->arena + bt->used;
		memcpy(base, from, n);
		for (int k = 0; k < 4; k++) {
			r->f[k] = base + (o->f[cols[k]] - from);
			r->n[k] = o->flen[cols[k]];
		}
		bt->used += n;
		return;
	}
	for (int k = 0; k < 4; k++) {
		size_t n = o->flen[o->col[cols[k]]];
		memcpy(bt->arena + bt->used, o->f[o->col[cols[k]]], n);
		r->f[k] = bt->arena + bt->used;
		r->n[k] = n;
		bt->used += n;
	}
}

static void lq_start(sp_ev_judge *s)
{
	struct latq *q = sp_xcalloc(1, sizeof *q);
	q->s = s;
	s->lq = q;
	/* hashed by the latency thread itself: the hashing thread keeps
	 * operations.tsv, the three threads then share two cores evenly */
	s->lat_opened = sp_rows_open_hashed(&q->l, s->dir, SP_EV_LATENCY, &s->hash[KF_LATENCY], NULL) == 0;
	s->lat_ok = s->lat_opened;
	s->lat_warm_max = -INFINITY;
	s->lat_cold_min = INFINITY;
	for (int i = 0; i < LQ_NB; i++)
		q->b[i] = sp_xmalloc(sizeof *q->b[i]), q->b[i]->nrec = q->b[i]->used = 0;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	q->threaded = s->lat_opened && pthread_create(&q->thr, NULL, lat_main, q) == 0;
}

/* the end of operations.tsv: the last batch, then wait for the thread */
static void lq_finish(sp_ev_judge *s, bool ops_ok)
{
	struct latq *q = s->lq;
	if (!q)
		return;
	if (q->threaded) {
		pthread_mutex_lock(&q->mu);
		if (q->b[q->prod]->nrec)
			q->full[q->prod] = 1;
		q->done = true;
		q->ops_ok = ops_ok;
		pthread_cond_broadcast(&q->cv);
		pthread_mutex_unlock(&q->mu);
		pthread_join(q->thr, NULL);
	} else {
		lq_publish(q);
		lat_finish(s, &q->l, ops_ok);
	}
	if (s->lat_opened) {
		sp_ev_record_tsv(s, SP_EV_LATENCY, &q->l, true, s->lat_ok, s->lat_rows);
		sp_rows_close(&q->l);
	} else {
		sp_ev_record_tsv(s, SP_EV_LATENCY, &q->l, false, false, 0);
	}
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	for (int i = 0; i < LQ_NB; i++)
		free(q->b[i]);
	free(q);
	s->lq = NULL;
}

/* a generation not among the scenario's last 16 is a new cycle */
static void count_cycle(struct scen *sc, long long gen)
{
	unsigned n = sc->nrecent < SP_ARRAY_SIZE(sc->recent) ? sc->nrecent : (unsigned)SP_ARRAY_SIZE(sc->recent);
	for (unsigned i = 0; i < n; i++)
		if (sc->recent[i] == gen)
			return;
	sc->cycles++;
	sc->recent[sc->nrecent++ % SP_ARRAY_SIZE(sc->recent)] = gen;
}

void sp_ev_read_ops(sp_ev_judge *s)
{
	build_windows(s);
	sp_ev_rows r;
	sp_ev_op op;
	unsigned long long rows = 0;
	bool opened = sp_rows_open_hashed(&r, s->dir, SP_EV_OPERATIONS, &s->hash[KF_OPERATIONS], s->hasher) == 0;
	if (opened)
		sp_rows_set_view(&r); /* no copy per line: every use below has the lengths */
	lq_start(s);
	s->ops_min_ts = INFINITY;
	s->ops_prev_ts = -INFINITY;
	bool ok = opened;
	if (opened) {
		int rc;
		while ((rc = sp_ops_next(&r, &op)) > 0) {
			rows++;
			s->ops_total++;
			if (op.ts < s->ops_prev_ts)
				sp_ev_first_bad_set(&s->ops_order, r.line, "operations.tsv line %llu: ts %.10g is before the previous row's %.10g",
						    r.line, op.ts, s->ops_prev_ts);
			s->ops_prev_ts = op.ts;
			if (op.ts > s->ops_max_ts)
				s->ops_max_ts = op.ts;
			if (op.ts < s->ops_min_ts)
				s->ops_min_ts = op.ts;
			struct scen *sc = sp_ev_find_scen(s, op.scenario, r.flen[r.col[1]]);
			if (!sc) {
				if (!s->ops_undeclared++)
					snprintf(s->undeclared, sizeof s->undeclared, "%.*s",
						 (int)(r.flen[r.col[1]] > 64 ? 64 : r.flen[r.col[1]]), op.scenario);
			} else {
				sc->total++;
				count_cycle(sc, op.generation);
				if (op.ts < sc->t1) {
					sc->t2 = sc->t1;
					sc->t1 = op.ts;
				} else if (op.ts < sc->t2) {
					sc->t2 = op.ts;
				}
			}
			switch (op.result) {
			case SP_RES_OK:
				s->ops_ok_n++;
				if (sc)
					sc->ok++;
				if (s->lat_opened)
					lq_push(s->lq, &r, &op, sc);
				break;
			case SP_RES_FAIL:
				s->ops_fail++;
				if (sc)
					sc->fail++;
				break;
			default:
				s->ops_ef++;
				if (sc)
					sc->ef++;
				if (!s->faults_ok || !take_window(s, op.ts)) {
					if (!s->ops_untied++) {
						s->first_untied_line = r.line;
						s->first_untied_ts = op.ts;
					}
					if (sc)
						sc->ef_untied++;
				}
				break;
			}
		}
		ok = rc == 0;
	}
	sp_ev_record_tsv(s, SP_EV_OPERATIONS, &r, opened, ok, rows);
	if (opened)
		sp_rows_close(&r);
	s->ops_ok = ok;
	/* the latency thread finishes while samples are read (lq_finish) */
	/* warm-up ends after warmup_s and two finished operations of every
	 * declared scenario */
	s->warmup_end = s->meta.warmup_s;
	for (size_t i = 0; i < s->nsc; i++)
		s->warmup_end = fmax(s->warmup_end, s->sc[i].t2);
}

/* the end of latency.tsv, once operations.tsv and the samples are read; the
 * per-scenario quantiles kept for --emit-baseline (and latency.p95.*) */
void sp_ev_read_latency_end(sp_ev_judge *s)
{
	lq_finish(s, s->ops_ok);
	if (!s->lat_ok || !s->ops_ok || !s->meta_ok)
		return;
	sp_ev_verdict *v = s->v;
	v->lat.run_id = sp_xstrdup(s->meta.run_id);
	v->lat.v = sp_xcalloc(s->nsc ? s->nsc : 1, sizeof *v->lat.v);
	s->lat_entry = sp_xcalloc(s->nsc ? s->nsc : 1, sizeof *s->lat_entry);
	for (size_t i = 0; i < s->nsc; i++) {
		struct scen *sc = &s->sc[i];
		s->lat_entry[i] = SIZE_MAX;
		if (!sc->lat.n)
			continue;
		s->lat_entry[i] = v->lat.n;
		sp_ev_baseline_entry *e = &v->lat.v[v->lat.n++];
		e->scenario = sp_xstrdup(sc->id);
		e->count = sc->lat.n;
		e->p50 = sc->q50;
		e->p95 = sc->q95;
		e->p99 = sc->q99;
	}
}
