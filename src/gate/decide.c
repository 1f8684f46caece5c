/* The decision: bundles -> verdicts -> claims -> cells (see gate.h and
 * docs/plan-format.md). Everything a bundle says about itself comes from
 * its metadata.txt, read with the evidence parsers; it counts only as far
 * as the verifier vouches for the bundle. The result does not depend on
 * the order the bundles are given in. */
#include "gate/gate.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/outcome.h"
#include "core/util.h"
#include "verify/verify.h"

static const char *const state_names[SP_CELL_NSTATES] = {
	"pass", "fail", "missing", "expired", "wrong-candidate", "superseded", "blocked", "wrong-lane"};
static const char *const state_labels[SP_CELL_NSTATES] = {
	"PASS", "FAIL", "MISSING", "EXPIRED", "WRONG-CANDIDATE", "SUPERSEDED", "BLOCKED", "WRONG-LANE"};
static const char *const disp_names[SP_CLAIM_NDISP] = {"used", "older", "retried", "failed", "untrusted",
						       "future", "expired", "wrong-candidate", "superseded", "wrong-lane"};

const char *sp_gate_result(const sp_gate_decision *d)
{
	if (d->from_archive && !d->reproduced)
		return "not-reproduced";
	return d->pass ? "pass" : "fail";
}

const char *sp_cell_state_name(sp_gate_cell_state s)
{
	return (unsigned)s < SP_CELL_NSTATES ? state_names[s] : "?";
}

const char *sp_cell_state_label(sp_gate_cell_state s)
{
	return (unsigned)s < SP_CELL_NSTATES ? state_labels[s] : "?";
}

const char *sp_claim_disp_name(sp_gate_claim_disp d)
{
	return (unsigned)d < SP_CLAIM_NDISP ? disp_names[d] : "?";
}

static void fmt(char *buf, size_t size, const char *f, ...) SP_PRINTF(3, 4);
static void fmt(char *buf, size_t size, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	vsnprintf(buf, size, f, ap);
	va_end(ap);
}

/* ---- collecting the bundle directories ---------------------------------- */
static bool is_bundle_dir(const char *dir)
{
	struct stat st;
	_cleanup_free_ char *m = sp_xasprintf("%s/metadata.txt", dir);
	_cleanup_free_ char *f = sp_xasprintf("%s/MANIFEST", dir);
	return lstat(m, &st) == 0 || lstat(f, &st) == 0;
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void push(char ***v, size_t *n, size_t *cap, char *s)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = sp_xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[(*n)++] = s;
}

int sp_gate_collect(char *const *args, size_t nargs, char ***dirs, size_t *ndirs, char ***skipped, size_t *nskipped,
		    sp_error *err)
{
	char **v = NULL, **sk = NULL;
	size_t n = 0, cap = 0, nsk = 0, capsk = 0;
	*dirs = NULL;
	*ndirs = 0;
	*skipped = NULL;
	*nskipped = 0;
	for (size_t i = 0; i < nargs; i++) {
		struct stat st;
		if (stat(args[i], &st) < 0) {
			sp_usage(err, "%s: %s", args[i], strerror(errno));
			goto fail;
		}
		if (!S_ISDIR(st.st_mode)) {
			sp_usage(err, "%s: not a bundle directory or a directory of bundles", args[i]);
			goto fail;
		}
		char *real = realpath(args[i], NULL);
		if (!real) {
			sp_usage(err, "%s: %s", args[i], strerror(errno));
			goto fail;
		}
		if (is_bundle_dir(real)) {
			push(&v, &n, &cap, real);
			continue;
		}
		DIR *d = opendir(real);
		if (!d) {
			sp_usage(err, "%s: %s", args[i], strerror(errno));
			free(real);
			goto fail;
		}
		size_t before = n, sbefore = nsk;
		struct dirent *de;
		/* every entry, hidden names too: a run kept in evidence/.rerun/ is
		 * evidence like any other; what is not a directory is named */
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			_cleanup_free_ char *p = sp_xasprintf("%s/%s", real, de->d_name);
			if (stat(p, &st) < 0) {
				int e = errno;
				struct stat lst;
				bool link = lstat(p, &lst) == 0 && S_ISLNK(lst.st_mode);
				sp_usage(err, "%s/%s: %s%s: it may hold a run, and an entry the gate cannot examine is never skipped",
					 args[i], de->d_name, link ? "symbolic link to nothing the gate can open: " : "",
					 strerror(e));
				closedir(d);
				free(real);
				goto fail;
			}
			if (!S_ISDIR(st.st_mode)) {
				push(&sk, &nsk, &capsk,
				     sp_xasprintf("%s/%s: not a directory (a bundle is a directory)", args[i], de->d_name));
				continue;
			}
			/* a link is followed to its target: what is decided on is
			 * what gets archived */
			char *rp = realpath(p, NULL);
			if (!rp) {
				sp_usage(err, "%s/%s: %s", args[i], de->d_name, strerror(errno));
				closedir(d);
				free(real);
				goto fail;
			}
			if (n < SP_GATE_MAX_BUNDLES + 1)
				push(&v, &n, &cap, rp);
			else
				free(rp);
		}
		closedir(d);
		free(real);
		if (n == before) {
			sp_usage(err, "%s: holds no bundle (no metadata.txt, no subdirectory)", args[i]);
			goto fail;
		}
		qsort(v + before, n - before, sizeof *v, cmpstr);
		if (nsk > sbefore)
			qsort(sk + sbefore, nsk - sbefore, sizeof *sk, cmpstr);
	}
	if (n > SP_GATE_MAX_BUNDLES) {
		sp_usage(err, "more than %d bundles", SP_GATE_MAX_BUNDLES);
		goto fail;
	}
	if (n == 0) {
		sp_usage(err, "no bundle given");
		goto fail;
	}
	*dirs = v;
	*ndirs = n;
	*skipped = sk;
	*nskipped = nsk;
	return 0;
fail:
	sp_gate_dirs_free(v, n);
	sp_gate_dirs_free(sk, nsk);
	return -1;
}

void sp_gate_dirs_free(char **dirs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
}

/* ---- one bundle ---------------------------------------------------------- */
static char *dup_or_null(const char *s)
{
	return s ? sp_xstrdup(s) : NULL;
}

static const char *kv(const sp_gate_bundle *b, const char *key)
{
	return b->kv ? sp_kv_get(b->kv, b->nkv, key) : NULL;
}

static void join_failed(sp_gate_bundle *b, const sp_ev_verdict *v)
{
	size_t len = 0;
	b->failed[0] = '\0';
	for (size_t i = 0; i < v->n; i++) {
		if (v->g[i].status == SP_GATE_PASS)
			continue;
		size_t need = strlen(v->g[i].id) + 2;
		if (len + need + 4 >= sizeof b->failed) {
			snprintf(b->failed + len, sizeof b->failed - len, ", ...");
			break;
		}
		len += (size_t)snprintf(b->failed + len, sizeof b->failed - len, "%s%s", len ? ", " : "", v->g[i].id);
	}
}

static void load_bundle(sp_gate_bundle *b, const char *dir, void *pubkey, bool keep)
{
	sp_error merr;
	const char *kind = NULL;
	b->path = sp_xstrdup(dir);
	b->dup_of = -1;

	/* what the bundle says about itself */
	sp_ev_meta m;
	if (sp_meta_load(&m, dir, NULL, &merr, &kind) == 0) {
		b->readable = true;
		b->run_id = dup_or_null(m.run_id);
		b->profile = dup_or_null(m.profile);
		b->scen = sp_xcalloc(m.nscenarios ? m.nscenarios : 1, sizeof *b->scen);
		for (size_t i = 0; i < m.nscenarios; i++)
			b->scen[b->nscen++] = sp_xstrdup(m.scenarios[i]);
		b->kv = m.kv;
		b->nkv = m.n;
		m.kv = NULL;
		m.n = 0;
		b->lane = dup_or_null(kv(b, "lane"));
		b->workload = dup_or_null(kv(b, "workload_sha256"));
		b->started_text = dup_or_null(kv(b, "started_at"));
		const char *dirty = kv(b, "dirty");
		b->dirty = !dirty || strcmp(dirty, "0"); /* only an explicit 0 is clean */
		if (!b->started_text || sp_gate_parse_time(b->started_text, &b->started) < 0) {
			b->readable = false;
			fmt(b->why, sizeof b->why, "metadata.txt: started_at '%.40s' is not a UTC time",
			    b->started_text ? b->started_text : "");
		}
		b->ended = b->started;
		sp_ev_summary s;
		_cleanup_free_ char *sp = sp_xasprintf("%s/summary.json", dir);
		sp_error se;
		if (sp_ev_summary_load(&s, sp, NULL, &se) == 0) {
			if (isfinite(s.measured_duration_s) && s.measured_duration_s > 0 && s.measured_duration_s < 1e9)
				b->ended = b->started + (time_t)ceil(s.measured_duration_s);
			sp_ev_summary_free(&s);
		}
	} else {
		fmt(b->why, sizeof b->why, "metadata.txt: %s", merr.msg);
	}
	sp_meta_free(&m);

	unsigned char d[32];
	_cleanup_free_ char *mp = sp_xasprintf("%s/MANIFEST", dir);
	struct stat st; /* a regular file only: never a fifo or a link */
	sp_outcome ho = {0};
	if (lstat(mp, &st) == 0 && S_ISREG(st.st_mode) && sp_ev_sha256_file(mp, d, NULL, &ho) == 0)
		sp_ev_hex(d, 32, b->manifest_sha256);

	/* the verifier's judgement */
	sp_ev_verify_opts vo = {.pubkey = pubkey};
	sp_ev_verdict *v = sp_xcalloc(1, sizeof *v);
	sp_error verr = {0};
	if (sp_verify(dir, &vo, v, &verr) < 0) {
		if (!b->why[0])
			fmt(b->why, sizeof b->why, "verifier: %s", verr.msg);
		free(v);
		return;
	}
	b->verified = true;
	b->ngates = v->n;
	b->nfail = v->nfail;
	b->pass = v->nfail == 0 && v->n > 0;
	join_failed(b, v);
	const sp_ev_gate *gm = sp_verdict_find(v, SP_GREF(INTEGRITY_MANIFEST));
	const sp_ev_gate *gs = sp_verdict_find(v, SP_GREF(INTEGRITY_SIGNATURE));
	b->trusted = gm && gm->status == SP_GATE_PASS && (!pubkey || (gs && gs->status == SP_GATE_PASS));
	if (!b->trusted && !b->why[0]) {
		const sp_ev_gate *g = gm && gm->status != SP_GATE_PASS ? gm : gs;
		fmt(b->why, sizeof b->why, "%s: %s", g ? g->id : sp_gate_catalog[SP_G_INTEGRITY_MANIFEST].id,
		    g ? g->message : "the verifier reported no integrity gate");
	}
	if (keep) {
		b->verdict = v;
	} else {
		sp_verdict_free(v);
		free(v);
	}
}

static void bundle_free(sp_gate_bundle *b)
{
	free(b->path);
	free(b->run_id);
	free(b->profile);
	free(b->lane);
	free(b->started_text);
	free(b->workload);
	for (size_t i = 0; i < b->nscen; i++)
		free(b->scen[i]);
	free(b->scen);
	sp_kv_free(b->kv, b->nkv);
	if (b->verdict) {
		sp_verdict_free(b->verdict);
		free(b->verdict);
	}
}

/* order of evidence: when it started, then when it ended, then a run that
 * does not pass after one that does (of two runs the gate cannot order in
 * time, a pass never counts as the retry of the failure), then the run id
 * as text; never the order of the command line */
static int cmp_bundle(const void *pa, const void *pb)
{
	const sp_gate_bundle *a = pa, *b = pb;
	if (a->readable != b->readable)
		return a->readable ? -1 : 1;
	if (a->readable) {
		if (a->started != b->started)
			return a->started < b->started ? -1 : 1;
		if (a->ended != b->ended)
			return a->ended < b->ended ? -1 : 1;
		bool ga = a->trusted && a->pass, gb = b->trusted && b->pass;
		if (ga != gb)
			return ga ? -1 : 1;
		int c = strcmp(a->run_id ? a->run_id : "", b->run_id ? b->run_id : "");
		if (c)
			return c;
	}
	int c = strcmp(a->manifest_sha256, b->manifest_sha256);
	return c ? c : strcmp(a->path, b->path);
}

static void make_key(sp_gate_bundle *b, size_t i)
{
	char id[49];
	const char *src = b->readable && b->run_id ? b->run_id : "unreadable";
	size_t n = 0;
	for (const char *c = src; *c && n < sizeof id - 1; c++)
		id[n++] = (char)(((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
				  *c == '-' || *c == '_' || *c == '.')
					 ? *c
					 : '_');
	id[n] = '\0';
	fmt(b->key, sizeof b->key, "b%04zu-%s", i + 1, id);
}

/* ---- problems, claims, cells ------------------------------------------- */
static void problem(sp_gate_decision *d, ssize_t bundle, const char *kind, const char *f, ...) SP_PRINTF(4, 5);
static void problem(sp_gate_decision *d, ssize_t bundle, const char *kind, const char *f, ...)
{
	d->prob = sp_xrealloc(d->prob, (d->nprob + 1) * sizeof *d->prob);
	sp_gate_problem *p = &d->prob[d->nprob++];
	memset(p, 0, sizeof *p);
	p->bundle = bundle;
	snprintf(p->kind, sizeof p->kind, "%s", kind);
	va_list ap;
	va_start(ap, f);
	vsnprintf(p->message, sizeof p->message, f, ap);
	va_end(ap);
}

static ssize_t scen_index(const sp_gate_plan *p, const char *id)
{
	for (size_t i = 0; i < p->nscen; i++)
		if (!strcmp(p->scen[i].id, id))
			return (ssize_t)i;
	return -1;
}

static ssize_t lane_index(const sp_gate_plan *p, const char *id)
{
	for (size_t i = 0; i < p->nlanes; i++)
		if (!strcmp(p->lanes[i].id, id))
			return (ssize_t)i;
	return -1;
}

/* the bundle's digest of an artifact: artifact.<name>, and for "rootfs"
 * the runner's own rootfs_digest when no artifact.rootfs is recorded */
static const char *bundle_artifact(const sp_gate_bundle *b, const char *name)
{
	char key[80];
	snprintf(key, sizeof key, "artifact.%s", name);
	const char *v = kv(b, key);
	if (!v && !strcmp(name, "rootfs"))
		v = kv(b, "rootfs_digest");
	return v;
}

/* wrong candidate? the reason in o when so */
static bool wrong_candidate(const sp_gate_plan *p, size_t lane, const sp_gate_bundle *b, sp_outcome *o)
{
	if (b->dirty) {
		sp_why(o, "run %s was built from a dirty worktree (dirty=%s): not the exact candidate", b->run_id,
		       kv(b, "dirty") ? kv(b, "dirty") : "absent");
		return true;
	}
	const sp_gate_plan_artifact *want[2 * SP_PLAN_MAX_ARTIFACTS];
	size_t n = sp_plan_lane_artifacts(p, lane, want, SP_ARRAY_SIZE(want));
	for (size_t i = 0; i < n; i++) {
		const char *have = bundle_artifact(b, want[i]->name);
		if (!have) {
			sp_why(o, "run %s records no digest of artifact %s (metadata artifact.%s)", b->run_id,
			       want[i]->name, want[i]->name);
			return true;
		}
		if (strcasecmp(have, want[i]->digest)) {
			sp_why(o, "run %s tested artifact %s %.80s, the candidate's is %s", b->run_id, want[i]->name,
			       have, want[i]->digest);
			return true;
		}
	}
	return false;
}

/* does the run's host and runtime belong to the lane? the reason in o when not */
static bool wrong_lane(const sp_gate_plan *p, size_t lane, const sp_gate_bundle *b, sp_outcome *o)
{
	const sp_gate_plan_lane *l = &p->lanes[lane];
	const char *arch = kv(b, "host_arch"), *rt = kv(b, "runtime");
	char a[40];
	if (!arch || !sp_gate_norm_arch(arch, a, sizeof a)) {
		sp_why(o, "run %s records no host_arch the gate can read (%.40s); lane %s is host class %s", b->run_id,
		       arch ? arch : "absent", l->id, l->host_class);
		return true;
	}
	if (strcmp(a, l->arch)) {
		sp_why(o, "run %s ran on %s, lane %s is host class %s (%s)", b->run_id, arch, l->id, l->host_class,
		       l->arch);
		return true;
	}
	if (!rt) {
		sp_why(o, "run %s records no runtime; lane %s is isolation %s", b->run_id, l->id, l->isolation);
		return true;
	}
	for (size_t i = 0; i < l->nruntimes; i++)
		if (!strcmp(rt, l->runtimes[i]))
			return false;
	sp_why(o, "run %s ran runtime %.40s, not one of lane %s's isolation %s (%s: %s%s)", b->run_id, rt, l->id,
	       l->isolation, l->boundary, l->runtimes[0], l->nruntimes > 1 ? ", ..." : "");
	return true;
}

static void add_claim(sp_gate_cell *c, size_t bundle, sp_gate_claim_disp disp, const char *reason)
{
	if (c->nclaims == c->capclaims) {
		c->capclaims = c->capclaims ? 2 * c->capclaims : 2;
		c->claims = sp_xrealloc(c->claims, c->capclaims * sizeof *c->claims);
	}
	sp_gate_claim *g = &c->claims[c->nclaims++];
	g->bundle = bundle;
	g->disp = disp;
	snprintf(g->reason, sizeof g->reason, "%s", reason);
}

static void classify(const sp_gate_decision *d, size_t lane, size_t scen, int prof, size_t bi, sp_gate_cell *c)
{
	const sp_gate_plan *p = d->plan;
	const sp_gate_bundle *b = &d->b[bi];
	char why[300], t1[32], t2[32], dur[24];
	if (!b->trusted) {
		fmt(why, sizeof why, "run %s cannot be trusted: %s", b->run_id, b->why);
		add_claim(c, bi, SP_CLAIM_UNTRUSTED, why);
		return;
	}
	if (b->ended > d->at + SP_GATE_CLOCK_SKEW_S) {
		sp_gate_format_time(b->ended, t1, sizeof t1);
		fmt(why, sizeof why, "run %s ended at %s, after the decision time %s", b->run_id, t1, d->at_text);
		add_claim(c, bi, SP_CLAIM_FUTURE, why);
		return;
	}
	sp_outcome o = {0};
	if (wrong_lane(p, lane, b, &o)) {
		add_claim(c, bi, SP_CLAIM_WRONG_LANE, o.why);
		return;
	}
	if (wrong_candidate(p, lane, b, &o)) {
		add_claim(c, bi, SP_CLAIM_WRONG, o.why);
		return;
	}
	if (!b->pass) {
		fmt(why, sizeof why, "run %s failed %zu gate(s): %s", b->run_id, b->nfail, b->failed);
		add_claim(c, bi, SP_CLAIM_FAILED, why);
		return;
	}
	const sp_gate_plan_scenario *s = &p->scen[scen];
	if (s->workload[0] && (!b->workload || strcasecmp(b->workload, s->workload))) {
		fmt(why, sizeof why, "run %s ran workload %.64s, the plan pins %s for %s", b->run_id,
		    b->workload ? b->workload : "(none recorded)", s->workload, s->id);
		add_claim(c, bi, SP_CLAIM_SUPERSEDED, why);
		return;
	}
	if (p->has_not_before && b->started < p->not_before) {
		fmt(why, sizeof why, "run %s started at %s, before the plan's evidence.not_before %s", b->run_id,
		    b->started_text, p->not_before_text);
		add_claim(c, bi, SP_CLAIM_SUPERSEDED, why);
		return;
	}
	long long life = p->valid_for_s[prof];
	if (life >= 0 && (long long)(d->at - b->ended) > life) {
		sp_gate_format_time(b->ended, t1, sizeof t1);
		sp_gate_format_time(b->ended + (time_t)life, t2, sizeof t2);
		sp_gate_format_duration(life, dur, sizeof dur);
		fmt(why, sizeof why, "run %s ended at %s; %s evidence is valid for %s: expired at %s", b->run_id, t1,
		    sp_prof_names[prof], dur, t2);
		add_claim(c, bi, SP_CLAIM_EXPIRED, why);
		return;
	}
	sp_gate_format_time(b->ended, t1, sizeof t1);
	fmt(why, sizeof why, "run %s passed all %zu gates, ended at %s", b->run_id, b->ngates, t1);
	add_claim(c, bi, SP_CLAIM_USED, why);
}

static bool counts_as_failure(sp_gate_claim_disp d)
{
	return d == SP_CLAIM_FAILED || d == SP_CLAIM_UNTRUSTED || d == SP_CLAIM_FUTURE;
}

/* the newest claim (claims are in evidence order) of a disposition */
static ssize_t newest(const sp_gate_cell *c, sp_gate_claim_disp disp)
{
	for (size_t i = c->nclaims; i-- > 0;)
		if (c->claims[i].disp == disp)
			return (ssize_t)i;
	return -1;
}

static void resolve(const sp_gate_decision *d, sp_gate_cell *c)
{
	const sp_gate_plan_scenario *s = &d->plan->scen[c->scen];
	size_t nfail = 0;
	ssize_t last_fail = -1, last_pass = -1;
	for (size_t i = 0; i < c->nclaims; i++) {
		if (counts_as_failure(c->claims[i].disp)) {
			nfail++;
			last_fail = (ssize_t)i;
		}
		if (c->claims[i].disp == SP_CLAIM_USED)
			last_pass = (ssize_t)i;
	}
	c->decisive = -1;
	if (nfail) {
		if (last_pass > last_fail && nfail <= (size_t)s->retries) {
			for (size_t i = 0; i < c->nclaims; i++) {
				sp_gate_claim *g = &c->claims[i];
				if (counts_as_failure(g->disp)) {
					g->disp = SP_CLAIM_RETRIED;
				} else if (g->disp == SP_CLAIM_USED && (ssize_t)i != last_pass) {
					g->disp = SP_CLAIM_OLDER;
				}
			}
			c->state = SP_CELL_PASS;
			c->decisive = (ssize_t)c->claims[last_pass].bundle;
			fmt(c->reason, sizeof c->reason, "%s, a retry after %zu failed run(s) (the plan allows %d)",
			    c->claims[last_pass].reason, nfail, s->retries);
			return;
		}
		c->state = SP_CELL_FAIL;
		c->decisive = (ssize_t)c->claims[last_fail].bundle;
		if (last_pass > last_fail)
			fmt(c->reason, sizeof c->reason,
			    "%zu failed run(s) of the candidate and the plan allows %d retr%s: a later pass does not erase them; last failure: %s",
			    nfail, s->retries, s->retries == 1 ? "y" : "ies", c->claims[last_fail].reason);
		else
			fmt(c->reason, sizeof c->reason, "%s", c->claims[last_fail].reason);
		/* passes before or after an uncovered failure are not evidence for the cell */
		for (size_t i = 0; i < c->nclaims; i++)
			if (c->claims[i].disp == SP_CLAIM_USED)
				c->claims[i].disp = SP_CLAIM_OLDER;
		return;
	}
	if (last_pass >= 0) {
		for (size_t i = 0; i < c->nclaims; i++)
			if (c->claims[i].disp == SP_CLAIM_USED && (ssize_t)i != last_pass)
				c->claims[i].disp = SP_CLAIM_OLDER;
		c->state = SP_CELL_PASS;
		c->decisive = (ssize_t)c->claims[last_pass].bundle;
		fmt(c->reason, sizeof c->reason, "%s", c->claims[last_pass].reason);
		return;
	}
	static const struct {
		sp_gate_claim_disp disp;
		sp_gate_cell_state state;
	} order[] = {{SP_CLAIM_EXPIRED, SP_CELL_EXPIRED}, {SP_CLAIM_SUPERSEDED, SP_CELL_SUPERSEDED}, {SP_CLAIM_WRONG, SP_CELL_WRONG}, {SP_CLAIM_WRONG_LANE, SP_CELL_WRONG_LANE}};
	for (size_t k = 0; k < SP_ARRAY_SIZE(order); k++) {
		ssize_t i = newest(c, order[k].disp);
		if (i >= 0) {
			c->state = order[k].state;
			c->decisive = (ssize_t)c->claims[i].bundle;
			if (c->nclaims > 1)
				fmt(c->reason, sizeof c->reason, "%s (%zu bundle(s) claim the cell, none passes for the candidate)",
				    c->claims[i].reason, c->nclaims);
			else
				fmt(c->reason, sizeof c->reason, "%s", c->claims[i].reason);
			return;
		}
	}
	c->state = SP_CELL_MISSING;
	fmt(c->reason, sizeof c->reason, "no bundle of scenario %s on lane %s at profile %s", s->id,
	    d->plan->lanes[c->lane].id, sp_prof_names[c->prof]);
}

void sp_gcell_id(const sp_gate_decision *d, const sp_gate_cell *c, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s/%s", d->plan->scen[c->scen].id, d->plan->lanes[c->lane].id, sp_prof_names[c->prof]);
}

static int hash_file_hex(const char *path, char out[65])
{
	unsigned char dg[32];
	sp_outcome o = {0};
	if (sp_ev_sha256_file(path, dg, NULL, &o) < 0)
		return -1;
	sp_ev_hex(dg, 32, out);
	return 0;
}

int sp_gate_decide(const sp_gate_plan *plan, char *const *dirs, size_t ndirs, const sp_gate_opts *o,
		   const char *pubkey_override, sp_gate_decision *d, sp_error *err)
{
	memset(d, 0, sizeof *d);
	d->plan = plan;
	d->at = o->at;
	sp_gate_format_time(d->at, d->at_text, sizeof d->at_text);

	void *pubkey = NULL;
	const char *kp = pubkey_override ? pubkey_override : plan->pubkey_path;
	if (kp) {
		sp_error kerr;
		if (sp_pubkey_load(&pubkey, kp, &kerr) < 0) {
			if (pubkey_override)
				return sp_usage(err, "%s", kerr.msg);
			return sp_usage(err, "%s:%d: signing.pubkey: %s", plan->path, plan->pubkey_line, kerr.msg);
		}
		d->signature_required = true;
		if (hash_file_hex(kp, d->pubkey_sha256) < 0)
			d->pubkey_sha256[0] = '\0';
	}

	d->b = sp_xcalloc(ndirs ? ndirs : 1, sizeof *d->b);
	d->nb = ndirs;
	for (size_t i = 0; i < ndirs; i++)
		load_bundle(&d->b[i], dirs[i], pubkey, o->keep_verdicts);
	sp_pubkey_free(pubkey);
	qsort(d->b, d->nb, sizeof *d->b, cmp_bundle);
	for (size_t i = 0; i < d->nb; i++)
		make_key(&d->b[i], i);

	/* decision-level problems: evidence that cannot be attributed or trusted */
	for (size_t i = 0; i < d->nb; i++) {
		sp_gate_bundle *b = &d->b[i];
		if (!b->readable) {
			problem(d, (ssize_t)i, "unreadable", "%s: %s", b->path, b->why[0] ? b->why : "not a bundle");
			continue;
		}
		if (!b->verified) {
			problem(d, (ssize_t)i, "unreadable", "%s: %s", b->path, b->why);
			b->trusted = false;
			continue;
		}
		if (!b->trusted)
			problem(d, (ssize_t)i, "untrusted", "%s (run %s): %s%s", b->path, b->run_id, b->why,
				d->signature_required ? " (the plan requires bundles signed with its key)" : "");
		for (size_t j = 0; j < i; j++) {
			const sp_gate_bundle *a = &d->b[j];
			if (!a->readable || strcmp(a->run_id, b->run_id))
				continue;
			if (a->manifest_sha256[0] && !strcmp(a->manifest_sha256, b->manifest_sha256) && a->trusted &&
			    b->trusted) {
				b->dup_of = (ssize_t)(a->dup_of >= 0 ? a->dup_of : (ssize_t)j);
				fmt(b->note, sizeof b->note, "the same bundle as %s", a->path);
			} else if (b->dup_of < 0) {
				problem(d, (ssize_t)i, "duplicate-run",
					"%s and %s both claim run %s with different contents", a->path, b->path, b->run_id);
			}
			break;
		}
		if (b->ended > d->at + SP_GATE_CLOCK_SKEW_S) {
			char t[32];
			sp_gate_format_time(b->ended, t, sizeof t);
			problem(d, (ssize_t)i, "future", "%s (run %s) ended at %s, after the decision time %s", b->path,
				b->run_id, t, d->at_text);
		}
	}

	/* cells: dense index over scenario x lane x profile */
	size_t ns = plan->nscen, nl = plan->nlanes, total = ns * nl * SP_PROF_COUNT;
	sp_gate_cell *grid = sp_xcalloc(total, sizeof *grid);
#define CELL(s, l, p) (&grid[((s)*nl + (l)) * SP_PROF_COUNT + (size_t)(p)])
	for (size_t s = 0; s < ns; s++)
		for (size_t l = 0; l < nl; l++) {
			unsigned req = plan->scen[s].required[l], closed = req;
			for (int p = SP_PROF_COUNT - 1; p > 0; p--)
				if (closed & (1u << p))
					closed |= (1u << p) - 1;
			for (int p = 0; p < SP_PROF_COUNT; p++) {
				sp_gate_cell *c = CELL(s, l, p);
				c->scen = s;
				c->lane = l;
				c->prof = p;
				c->required = closed & (1u << p);
				c->implied = c->required && !(req & (1u << p));
				c->decisive = -1;
			}
		}
	for (size_t i = 0; i < d->nb; i++) {
		sp_gate_bundle *b = &d->b[i];
		if (!b->readable || b->dup_of >= 0)
			continue;
		int p = b->profile ? sp_prof_index(b->profile) : -1;
		ssize_t l = b->lane ? lane_index(plan, b->lane) : -1;
		if (p < 0) {
			fmt(b->note, sizeof b->note, "profile %s is not a promotion profile (R0, G2, R24, E72)", b->profile);
			continue;
		}
		if (l < 0) {
			fmt(b->note, sizeof b->note, b->lane ? "lane %s is not a lane of the plan" : "metadata records no lane%s (sandprobe soak --lane)",
			    b->lane ? b->lane : "");
			continue;
		}
		for (size_t k = 0; k < b->nscen; k++) {
			ssize_t s = scen_index(plan, b->scen[k]);
			if (s < 0)
				continue;
			/* a scenario listed twice claims its cell once */
			sp_gate_cell *c = CELL((size_t)s, (size_t)l, p);
			if (c->nclaims && c->claims[c->nclaims - 1].bundle == i)
				continue;
			classify(d, (size_t)l, (size_t)s, p, i, c);
			b->nclaims++;
		}
		if (!b->nclaims)
			fmt(b->note, sizeof b->note, "none of its scenarios (%s...) is a scenario of the plan",
			    b->nscen ? b->scen[0] : "none");
	}
	for (size_t i = 0; i < total; i++)
		resolve(d, &grid[i]);
	/* the promotion order: a pass counts only when every earlier required
	 * profile of the same scenario and lane passes too */
	for (size_t s = 0; s < ns; s++)
		for (size_t l = 0; l < nl; l++)
			for (int p = 1; p < SP_PROF_COUNT; p++) {
				sp_gate_cell *c = CELL(s, l, p);
				if (c->state != SP_CELL_PASS)
					continue;
				const sp_gate_bundle *cb = &d->b[c->decisive];
				for (int q = 0; q < p; q++) {
					sp_gate_cell *e = CELL(s, l, q);
					if (!e->required)
						continue;
					char why[sizeof c->reason];
					if (e->state == SP_CELL_PASS || e->state == SP_CELL_BLOCKED) {
						/* in time too: the earlier profile's run ended
						 * before this one started */
						const sp_gate_bundle *eb = &d->b[e->decisive];
						if (!plan->order_in_time || eb->ended <= cb->started)
							continue;
						char t1[32];
						sp_gate_format_time(eb->ended, t1, sizeof t1);
						fmt(why, sizeof why,
						    "promotion order R0 -> G2 -> R24 -> E72 in time: %s run %s ended at %s, after %s run %s started at %s (%s)",
						    sp_prof_names[q], eb->run_id, t1, sp_prof_names[p], cb->run_id,
						    cb->started_text, c->reason);
					} else {
						fmt(why, sizeof why,
						    "promotion order R0 -> G2 -> R24 -> E72: %s is %s, and a later profile never waives it (%s)",
						    sp_prof_names[q], sp_cell_state_name(e->state), c->reason);
					}
					memcpy(c->reason, why, sizeof why);
					c->state = SP_CELL_BLOCKED;
					break;
				}
			}

	/* keep the cells that are required or claimed, in plan order */
	d->cells = sp_xcalloc(total ? total : 1, sizeof *d->cells);
	for (size_t i = 0; i < total; i++) {
		sp_gate_cell *c = &grid[i];
		if (!c->required && !c->nclaims) {
			free(c->claims);
			continue;
		}
		d->cells[d->ncells++] = *c;
		if (c->required) {
			d->nrequired++;
			d->count[c->state]++;
		}
	}
	free(grid);
#undef CELL
	d->pass = d->nprob == 0 && d->nrequired > 0 && d->count[SP_CELL_PASS] == d->nrequired;

	/* a decision dated before it was made: which passes would have expired by now */
	d->made_at = o->now;
	if (o->now > d->at + SP_GATE_CLOCK_SKEW_S)
		for (size_t i = 0; i < d->ncells; i++) {
			const sp_gate_cell *c = &d->cells[i];
			if (c->required && c->state == SP_CELL_PASS && c->decisive >= 0 &&
			    (long long)(o->now - d->b[c->decisive].ended) > plan->valid_for_s[c->prof])
				d->expired_by_now++;
		}
	d->skipped = sp_xcalloc(o->nskipped ? o->nskipped : 1, sizeof *d->skipped);
	for (size_t i = 0; i < o->nskipped; i++)
		d->skipped[d->nskipped++] = sp_xstrdup(o->skipped[i]);
	return 0;
}

void sp_decision_free(sp_gate_decision *d)
{
	for (size_t i = 0; i < d->nb; i++)
		bundle_free(&d->b[i]);
	free(d->b);
	for (size_t i = 0; i < d->ncells; i++)
		free(d->cells[i].claims);
	free(d->cells);
	free(d->prob);
	for (size_t i = 0; i < d->nskipped; i++)
		free(d->skipped[i]);
	free(d->skipped);
	for (size_t i = 0; i < d->ndiffs; i++)
		free(d->diffs[i]);
	free(d->diffs);
	free(d->celldiffs);
	memset(d, 0, sizeof *d);
}
