/* sandprobe verify --self-test: builds synthetic bundles in a temp dir, one
 * per way of being wrong, and asserts that each is rejected by its specific
 * gate id, that each boundary passes and one unit beyond it fails, and that
 * a correct bundle passes. The generator (ev_selftest_bundle.c) is written
 * independently of the gates (its summary is computed from its own tables). */
#include "evidence/ev_selftest.h"

#include "core/fsutil.h"
#include "evidence/evidence.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

/* ---- cases ------------------------------------------------------------- */
typedef struct tcase {
	char name[120];
	sp_ev_gate_ref ref; /* the gate that must fail; SP_G_COUNT (PASSES): the bundle must pass */
	char expect[64]; /* its id; "" = the bundle must pass */
	void (*fn)(bundle *b, const struct tcase *c);
	const char *a, *bv; /* parameters for fn */
	int n;
} tcase;

static void c_none(bundle *b, const tcase *c)
{
	(void)b;
	(void)c;
}

static void c_signed(bundle *b, const tcase *c)
{
	(void)c;
	b->sign = b->demand_key = true;
}

static void c_sig(bundle *b, const tcase *c)
{
	b->demand_key = true;
	b->sign = c->n != 0;
	b->wrong_key = c->n == 2;
	b->tamper_sig = c->n == 3;
	if (c->n == 4)
		b->post = FO_APPEND, b->post_path = "MANIFEST";
	if (c->n == 5)
		b->post = FO_DELETE, b->post_path = "MANIFEST";
}

static void c_span(bundle *b, const tcase *c)
{
	st_tab_set(&b->samples, b->samples.nrow - 1, "ts", "%s", c->a);
}

static void c_meta(bundle *b, const tcase *c)
{
	st_meta_set(b, c->a, "%s", c->bv);
}

static void c_meta_del(bundle *b, const tcase *c)
{
	st_meta_del(b, c->a);
}

static void c_meta_dup(bundle *b, const tcase *c)
{
	(void)c;
	st_tab_row(&b->meta, "seed\t43");
}

static void c_meta_line(bundle *b, const tcase *c)
{
	(void)c;
	st_tab_row(&b->meta, "!this line has no equals sign\t"); /* '!': written without '=' */
}

static void c_gap(bundle *b, const tcase *c)
{
	st_tab_set(&b->samples, 3, "ts", "%s", c->a);
}

static void set_fail(bundle *b, int n)
{
	for (int i = 0; i < n; i++) {
		st_tab_set(&b->ops, (size_t)(1 + 7 * i), "result", "fail");
		st_tab_set(&b->ops, (size_t)(1 + 7 * i), "error_code", "EIO");
	}
}

static void c_fails(bundle *b, const tcase *c)
{
	if (c->a)
		st_meta_set(b, "threshold.min_success_ratio", "%s", c->a);
	set_fail(b, c->n);
}

static void c_ef_ts(bundle *b, const tcase *c)
{
	st_tab_set(&b->ops, NOPS + 1, "ts", "%s", c->a);
}

static void c_fault(bundle *b, const tcase *c)
{
	st_tab_set(&b->faults, 1, c->a, "%s", c->bv);
}

static void c_fault_declared(bundle *b, const tcase *c)
{
	if (c->n == 1)
		st_meta_set(b, "faults", "F01,F02");
	else
		st_tab_row(&b->faults, "F03\tsp-box-2\tkill\t400.000\t401.000\t1000\t1000\tpass");
}

/* several fault windows: nested passing ones tie an operation, a failing one
 * covering it does not */
static void c_multi_fault(bundle *b, const tcase *c)
{
	st_meta_set(b, "faults", "F01,F02,F03");
	st_tab_set(&b->faults, 1, "started", "100.000");
	st_tab_set(&b->faults, 1, "ended", c->n ? "200.000" : "400.000");
	st_tab_set(&b->faults, 1, "recovery_ms", c->n ? "100000" : "300000");
	st_tab_set(&b->faults, 1, "rto_ms", "300000");
	st_tab_row(&b->faults, "F02\tsp-box-2\tkill\t250.000\t260.000\t10000\t12000\tpass");
	st_tab_row(&b->faults, "F03\tsp-box-3\tkill\t300.000\t320.000\t20000\t20000\t%s", c->n ? "fail" : "pass");
	st_tab_set(&b->ops, NOPS + 1, "ts", "315.000");
	st_tab_set(&b->ops, NOPS + 2, "ts", "255.000");
}

static void c_rss(bundle *b, const tcase *c)
{
	/* +1 MiB per 60 s periodic sample is exactly 1440 MiB/day */
	for (size_t r = 2; r + 1 < b->samples.nrow; r++)
		st_tab_set(&b->samples, r, "owned_rss_bytes", "%lld", 104857600LL + (long long)(r - 2) * (1048576 + c->n));
}

/* an RSS climb beyond the slope: judged only when the thresholds ask for
 * periodic samples (n of them) */
static void c_rss_rehearsal(bundle *b, const tcase *c)
{
	st_meta_set(b, "threshold.min_periodic_samples", "%d", c->n);
	for (size_t r = 2; r + 1 < b->samples.nrow; r++)
		st_tab_set(&b->samples, r, "owned_rss_bytes", "%lld", 104857600LL + (long long)(r - 2) * 4 * 1048576);
}

static void c_fd_growth(bundle *b, const tcase *c)
{
	for (size_t r = 2; r + 1 < b->samples.nrow; r++)
		st_tab_set(&b->samples, r, "owned_fds", "%lld", 20LL + (long long)(r - 2));
	if (c->n)
		st_tab_set(&b->samples, b->samples.nrow - 2, "owned_fds", "%d", 20 + 8 + c->n);
}

static void c_counter(bundle *b, const tcase *c)
{
	size_t last = b->samples.nrow - 1;
	long long v = atoll(st_tab_get(&b->samples, last, c->a));
	st_tab_set(&b->samples, last, c->a, "%lld", v + c->n);
}

static void c_disk_peak(bundle *b, const tcase *c)
{
	st_tab_set(&b->samples, 5, "disk_bytes", "%lld", 5000000LL + c->n);
}

static void c_latency(bundle *b, const tcase *c)
{
	/* the post-warm-up ok operations of RUN-01 (latency.tsv follows) */
	b->use_baseline = true;
	for (size_t r = 1; r < b->ops.nrow; r++)
		if (!strcmp(st_tab_get(&b->ops, r, "scenario"), "RUN-01") && !strcmp(st_tab_get(&b->ops, r, "result"), "ok") &&
		    st_dval(st_tab_get(&b->ops, r, "ts")) >= 60)
			st_tab_set(&b->ops, r, "latency_ms", "%s", c->a);
}

static void c_baseline_one(bundle *b, const tcase *c)
{
	(void)c;
	b->use_baseline = b->baseline_one = true;
}

static void c_logs(bundle *b, const tcase *c)
{
	b->log_size = (size_t)(65536 + c->n);
}

static void c_logs_elided(bundle *b, const tcase *c)
{
	b->log_size = (size_t)(SP_EV_MAX_LOG + c->n);
	b->log_elision = true;
}

static void c_secret(bundle *b, const tcase *c)
{
	free(b->log);
	b->log = sp_xasprintf("step 1: ok\n%s\nstep 2: ok\n", c->a);
}

static void c_warmflag(bundle *b, const tcase *c)
{
	(void)c;
	st_lat_rebuild(b);
	b->lat_manual = true;
	st_tab_set(&b->lat, 1, "warmup", "0");
}

static void c_inventory(bundle *b, const tcase *c)
{
	free(b->inv_final);
	if (c->n == 1)
		b->inv_final = sp_xstrdup("{\"schema\":\"sandprobe.inventory.v1\",\"resources\":[{\"type\":\"container\",\"id\":\"sp-base\"},{\"type\":\"volume\",\"id\":\"sp-vol-1\"}]}\n");
	else if (c->n == 2)
		b->inv_final = sp_xstrdup("{\"schema\":\"sandprobe.inventory.v1\",\"resources\":[]}\n");
	else
		b->inv_final = sp_xstrdup("{\"schema\":\"sandprobe.inventory.v2\",\"resources\":[]}\n");
}

static const char *sum_key, *sum_val;
static double sum_delta;
static void sum_edit(json_t *s)
{
	json_t *target = s;
	const char *k = sum_key;
	if (sp_startswith(k, "operations.")) {
		target = json_object_get(s, "operations");
		k += strlen("operations.");
	}
	json_t *old = json_object_get(target, k);
	json_t *nv;
	if (json_is_integer(old))
		nv = json_integer(json_integer_value(old) + 1);
	else if (json_is_real(old))
		nv = json_real(json_real_value(old) + sum_delta);
	else
		nv = json_string(sum_val ? sum_val : "other");
	json_object_set_new(target, k, nv);
}

static void c_summary(bundle *b, const tcase *c)
{
	sum_key = c->a;
	sum_val = c->bv;
	sum_delta = c->n ? c->n / 1e6 : 0.0015; /* default: beyond the 1 ms tolerance */
	b->summary_edit = sum_edit;
}

static void sum_schema(json_t *s)
{
	json_object_set_new(s, "schema", json_string("sandprobe.summary.v2"));
}

static void sum_drop(json_t *s)
{
	json_object_del(s, "span_s");
}

static void c_summary_type(bundle *b, const tcase *c)
{
	b->summary_edit = c->n ? sum_drop : sum_schema;
}

static void c_samples_order(bundle *b, const tcase *c)
{
	switch (c->n) {
	case 0: /* non-monotonic */
		st_tab_set(&b->samples, 4, "ts", "100.000");
		st_tab_set(&b->samples, 3, "ts", "130.000");
		break;
	case 1: /* duplicate final */
		st_tab_dup_row(&b->samples, b->samples.nrow - 1);
		break;
	case 2: /* first sample not start */
		st_tab_set(&b->samples, 1, "phase", "periodic");
		break;
	case 3: /* second start */
		st_tab_set(&b->samples, 2, "phase", "start");
		break;
	case 4: /* no final */
		st_tab_set(&b->samples, b->samples.nrow - 1, "phase", "periodic");
		break;
	case 5: /* final not last */
		st_tab_set(&b->samples, b->samples.nrow - 2, "phase", "final");
		st_tab_set(&b->samples, b->samples.nrow - 1, "phase", "periodic");
		break;
	default: /* equal timestamps */
		st_tab_set(&b->samples, 3, "ts", "%s", st_tab_get(&b->samples, 2, "ts"));
		break;
	}
}

static tab *tab_of(bundle *b, const char *name)
{
	if (!strcmp(name, "operations"))
		return &b->ops;
	if (!strcmp(name, "latency"))
		return &b->lat;
	if (!strcmp(name, "samples"))
		return &b->samples;
	if (!strcmp(name, "capabilities"))
		return &b->caps;
	return &b->faults;
}

static void lat_fix(bundle *b, const tcase *c)
{
	if (!strcmp(c->a, "latency")) {
		st_lat_rebuild(b);
		b->lat_manual = true;
	}
}

static void c_del_col(bundle *b, const tcase *c)
{
	lat_fix(b, c);
	if (!strcmp(c->a, "capabilities"))
		st_recompute_caps(b), b->no_caps_recompute = true;
	st_tab_del_col(tab_of(b, c->a), c->bv);
}

static void c_dup_col(bundle *b, const tcase *c)
{
	lat_fix(b, c);
	if (!strcmp(c->a, "capabilities"))
		st_recompute_caps(b), b->no_caps_recompute = true;
	st_tab_dup_col(tab_of(b, c->a), c->bv);
}

/* a wrong value in column bv of file a; the value is the case's n-th */
static void c_bad_type(bundle *b, const tcase *c)
{
	lat_fix(b, c);
	if (!strcmp(c->a, "capabilities"))
		st_recompute_caps(b), b->no_caps_recompute = true;
	tab *t = tab_of(b, c->a);
	const char *col = c->bv;
	const char *bad = "x";
	if (!strcmp(col, "ts") || !strcmp(col, "latency_ms") || !strcmp(col, "started") || !strcmp(col, "ended") ||
	    !strcmp(col, "recovery_ms") || !strcmp(col, "rto_ms") || !strcmp(col, "owned_cpu_seconds"))
		bad = c->n == 1 ? "-1" : c->n == 2 ? "1e3" : c->n == 3 ? "nan" : "12.";
	else if (!strcmp(col, "scenario") || !strcmp(col, "api") || !strcmp(col, "operation") ||
		 !strcmp(col, "target") || !strcmp(col, "expected"))
		bad = "";
	else if (!strcmp(col, "wall"))
		bad = "2026-13-01T00:00:00Z";
	else if (!strcmp(col, "error_code"))
		bad = "has space";
	else if (!strcmp(col, "fault_id"))
		bad = "X01";
	else if (!strcmp(col, "result") || !strcmp(col, "phase") || !strcmp(col, "warmup"))
		bad = "maybe";
	else
		bad = c->n == 1 ? "-3" : c->n == 2 ? "1.5" : "x"; /* integer columns */
	st_tab_set(t, 1, col, "%s", bad);
}

static void c_present(bundle *b, const tcase *c)
{
	b->pre = (enum fop)c->n;
	b->pre_path = c->a;
}

static void c_post(bundle *b, const tcase *c)
{
	b->post = (enum fop)c->n;
	b->post_path = c->a;
}

static void man_unsorted(char **m)
{
	/* swap the first two lines */
	char *nl1 = strchr(*m, '\n');
	if (!nl1)
		return;
	char *nl2 = strchr(nl1 + 1, '\n');
	if (!nl2)
		return;
	size_t l1 = (size_t)(nl1 - *m) + 1, l2 = (size_t)(nl2 - nl1);
	char *n = sp_xmalloc(strlen(*m) + 1);
	memcpy(n, nl1 + 1, l2);
	memcpy(n + l2, *m, l1);
	memcpy(n + l1 + l2, nl2 + 1, strlen(nl2 + 1) + 1);
	free(*m);
	*m = n;
}

static void man_dotdot(char **m)
{
	char *n = sp_xasprintf("%s%064d  ../outside\n", *m, 0);
	free(*m);
	*m = n;
}

static void c_manifest(bundle *b, const tcase *c)
{
	b->manifest_edit = c->n ? man_dotdot : man_unsorted;
}

static void c_caps(bundle *b, const tcase *c)
{
	switch (c->n) {
	case 0: /* a declared scenario without operations */
		st_meta_set(b, "scenarios", "RUN-01,RUN-02,RUN-03");
		break;
	case 1: /* operations of an undeclared scenario */
		st_tab_set(&b->ops, 5, "scenario", "RUN-09");
		break;
	case 2: /* capability row missing */
		st_recompute_caps(b);
		b->no_caps_recompute = true;
		st_tab_del_row(&b->caps, 2);
		break;
	case 3: /* counts disagree */
		st_recompute_caps(b);
		b->no_caps_recompute = true;
		st_tab_set(&b->caps, 1, "succeeded", "%lld", atoll(st_tab_get(&b->caps, 1, "succeeded")) - 1);
		break;
	default: /* result disagrees */
		st_recompute_caps(b);
		b->no_caps_recompute = true;
		st_tab_set(&b->caps, 1, "result", "fail");
		break;
	}
}

static void c_profile_claim(bundle *b, const tcase *c)
{
	st_meta_set(b, "profile", "%s", c->a);
	if (c->n) { /* an R0 bundle that meets R0 */
		st_meta_set(b, "warmup_s", c->n == 2 ? "1" : "0");
		st_meta_set(b, "threshold.min_success_ratio", "1");
		st_meta_set(b, "threshold.rss_slope_mib_per_day", "50");
	}
}

static void c_profile_opt(bundle *b, const tcase *c)
{
	b->profile_opt = c->a;
}

static void c_text(bundle *b, const tcase *c)
{
	st_tab_set(tab_of(b, c->a), 2, c->bv, "%s", c->n ? "bad\rvalue" : "caf\xc3(");
}

static void c_symlink(bundle *b, const tcase *c)
{
	(void)c;
	b->post = FO_SYMLINK;
	b->post_path = "logs/link";
}

static void c_untied_failing_fault(bundle *b, const tcase *c)
{
	(void)c;
	st_tab_set(&b->faults, 1, "result", "fail");
}

/* ---- the cases of the lying-bundle classes ------------------------------ */
static void set_wall(bundle *b, size_t row, double epoch)
{
	char w[48];
	st_wall_at(w, sizeof w, epoch);
	st_tab_set(&b->samples, row, "wall", "%s", w);
}

/* sample 5's wall n ms away from started_at + ts */
static void c_wall_skew(bundle *b, const tcase *c)
{
	set_wall(b, 5, (double)st_base_epoch + st_dval(st_tab_get(&b->samples, 5, "ts")) + c->n / 1000.0);
}

/* n 0: walls run backwards; 1: a wall of Feb 30; 2: every time in 2100;
 * 3: started_at 1 ms after the first sample; 4: started_at in 2100 */
static void c_wall(bundle *b, const tcase *c)
{
	char w[48];
	switch (c->n) {
	case 0:
		for (size_t r = 1; r < b->samples.nrow; r++)
			set_wall(b, r, (double)st_base_epoch + 600 - st_dval(st_tab_get(&b->samples, r, "ts")));
		break;
	case 1:
		st_tab_set(&b->samples, 3, "wall", "2026-02-30T00:02:00Z");
		break;
	case 2:
		for (size_t r = 1; r < b->samples.nrow; r++)
			set_wall(b, r, 4102444800.0 + st_dval(st_tab_get(&b->samples, r, "ts")));
		st_wall_at(w, sizeof w, 4102444800.0);
		st_meta_set(b, "started_at", "%s", w);
		break;
	case 3:
		st_wall_at(w, sizeof w, (double)st_base_epoch + 0.001);
		st_meta_set(b, "started_at", "%s", w);
		break;
	default:
		st_meta_set(b, "started_at", "2100-01-01T00:00:00Z");
		break;
	}
}

/* operations: n 0 two rows with the same ts, 1 two rows swapped */
static void c_ops_order(bundle *b, const tcase *c)
{
	st_sort_ops(b);
	b->no_sort = true;
	if (c->n == 0) {
		st_tab_set(&b->ops, 11, "ts", "%s", st_tab_get(&b->ops, 10, "ts"));
	} else {
		char *t = sp_xstrdup(st_tab_get(&b->ops, 10, "ts"));
		st_tab_set(&b->ops, 10, "ts", "%s", st_tab_get(&b->ops, 11, "ts"));
		st_tab_set(&b->ops, 11, "ts", "%s", t);
		free(t);
	}
}

/* the last operation's ts */
static void c_op_last(bundle *b, const tcase *c)
{
	st_tab_set(&b->ops, NOPS, "ts", "%s", c->a);
}

/* fault F01 (row 1) over [a, bv] with a recovery n us longer than it */
static void c_fault_win(bundle *b, const tcase *c)
{
	double st = st_dval(c->a), en = st_dval(c->bv);
	st_tab_set(&b->faults, 1, "started", "%s", c->a);
	st_tab_set(&b->faults, 1, "ended", "%s", c->bv);
	st_tab_set(&b->faults, 1, "recovery_ms", "%.3f", (en - st) * 1000 + c->n / 1000.0);
	st_tab_set(&b->faults, 1, "rto_ms", "1000000");
}

/* the laundering: a 1 ms window with a 4 s recovery */
static void c_fault_short(bundle *b, const tcase *c)
{
	(void)c;
	st_tab_set(&b->faults, 1, "started", "305.000");
	st_tab_set(&b->faults, 1, "ended", "305.001");
	st_tab_set(&b->faults, 1, "recovery_ms", "4000");
}

/* one window excuses one operation: n 0 a third expected_fault in the two
 * windows; 1 a window as long as the run and four failures relabelled */
static void c_fault_launder(bundle *b, const tcase *c)
{
	if (c->n == 0) {
		st_tab_row(&b->ops, "307.000\tRUN-01\tcli\tcreate\t1.000\texpected_fault\t30\tECONNREFUSED");
		return;
	}
	st_tab_set(&b->faults, 1, "started", "0.500");
	st_tab_set(&b->faults, 1, "ended", "599.500");
	st_tab_set(&b->faults, 1, "recovery_ms", "599000");
	st_tab_set(&b->faults, 1, "rto_ms", "600000");
	for (int i = 0; i < 4; i++) {
		st_tab_set(&b->ops, (size_t)(20 + 9 * i), "result", "expected_fault");
		st_tab_set(&b->ops, (size_t)(20 + 9 * i), "error_code", "EIO");
	}
}

/* fault ids: n 0 F00 in faults.tsv, 1 F10 in faults.tsv, 2 F00 declared,
 * 3 F09 declared and injected */
static void c_fault_id(bundle *b, const tcase *c)
{
	switch (c->n) {
	case 0:
		st_tab_set(&b->faults, 2, "fault_id", "F00");
		break;
	case 1:
		st_tab_set(&b->faults, 2, "fault_id", "F10");
		break;
	case 2:
		st_meta_set(b, "faults", "F01,F00");
		break;
	default:
		st_meta_set(b, "faults", "F01,F09");
		st_tab_set(&b->faults, 2, "fault_id", "F09");
		break;
	}
}

/* latency.tsv edited apart from operations.tsv: n 0 a value, 1 a ts,
 * 2 a row added, 3 a row removed, 4 a row of a failed operation, 5 the
 * same value written with fewer decimals (passes) */
static void c_lat_edit(bundle *b, const tcase *c)
{
	st_lat_rebuild(b);
	b->lat_manual = true;
	size_t row = b->lat.nrow - 5; /* post-warm-up */
	switch (c->n) {
	case 0:
		st_tab_set(&b->lat, row, "latency_ms", "40.000");
		break;
	case 1:
		st_tab_set(&b->lat, row, "ts", "%.3f", st_dval(st_tab_get(&b->lat, row, "ts")) + 0.001);
		break;
	case 2:
		st_tab_dup_row(&b->lat, row);
		break;
	case 3:
		st_tab_del_row(&b->lat, row);
		break;
	case 4:
		set_fail(b, 1);
		break;
	default:
		st_tab_set(&b->lat, row, "latency_ms", "50.0");
		break;
	}
}

/* samples every 66 s + n us (the declared interval and maximum stay 60) */
static void c_interval_measured(bundle *b, const tcase *c)
{
	double step = 66 + c->n / 1e6;
	st_meta_set(b, "threshold.max_gap_s", "120");
	for (size_t r = 1; r < b->samples.nrow; r++) {
		double ts = step * (double)(r - 1);
		st_tab_set(&b->samples, r, "ts", "%.6f", ts);
		set_wall(b, r, (double)st_base_epoch + ts);
	}
	st_meta_set(b, "duration_s", "%.6f", step * (double)(b->samples.nrow - 2));
}

/* n 0: periodic sample 3 1 ms before its slot; 1: a burst of three */
static void c_cadence(bundle *b, const tcase *c)
{
	if (c->n == 0) {
		st_tab_set(&b->samples, 4, "ts", "179.999");
		return;
	}
	for (int k = 0; k < 3; k++) {
		st_tab_dup_row(&b->samples, 3);
		st_tab_set(&b->samples, 4, "ts", "%d.000", 123 - k);
		set_wall(b, 4, (double)st_base_epoch + 123 - k);
	}
}

/* a third scenario whose second operation is at 300 s + n ms */
static void c_warm_late(bundle *b, const tcase *c)
{
	st_meta_set(b, "scenarios", "RUN-01,RUN-02,RUN-03");
	st_tab_row(&b->ops, "10.000\tRUN-03\tcli\tcreate\t50.000\tok\t0\t-");
	st_tab_row(&b->ops, "%.3f\tRUN-03\tcli\tcreate\t50.000\tok\t1\t-", 300 + c->n / 1000.0);
}

/* a log written by the writer's own redactor passes */
static void c_secret_writer(bundle *b, const tcase *c)
{
	free(b->log);
	_cleanup_free_ char *raw = sp_xasprintf("step 1: ok\n%s\nstep 2: ok\n", c->a);
	b->log = sp_secret_redact(raw, strlen(raw), NULL);
}

static void c_dir_as(bundle *b, const tcase *c)
{
	b->dir_as = c->a;
}

static void c_via_symlink(bundle *b, const tcase *c)
{
	(void)c;
	b->via_symlink = true;
}

/* ---- the case table ---------------------------------------------------- */
static tcase *cases;
static size_t ncases;

/* a case whose bundle must pass */
#define PASSES ((sp_ev_gate_ref){SP_G_COUNT, NULL})
static void add(sp_ev_gate_ref expect, void (*fn)(bundle *, const tcase *), const char *a, const char *bv, int n,
		const char *fmt, ...) SP_PRINTF(6, 7);
static void add(sp_ev_gate_ref expect, void (*fn)(bundle *, const tcase *), const char *a, const char *bv, int n,
		const char *fmt, ...)
{
	cases = sp_xrealloc(cases, (ncases + 1) * sizeof *cases);
	tcase *c = &cases[ncases++];
	memset(c, 0, sizeof *c);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->name, sizeof c->name, fmt, ap);
	va_end(ap);
	c->ref = expect;
	if (expect.id != SP_G_COUNT)
		sp_gate_ref_id(expect, c->expect);
	c->fn = fn;
	c->a = a;
	c->bv = bv;
	c->n = n;
}

static const char *const known[] = {"metadata.txt",	  "operations.tsv",	  "latency.tsv",
				    "resource-samples.tsv", "capability-results.tsv", "faults.tsv",
				    "inventory-start.json", "inventory-final.json",   "summary.json"};
static const sp_ev_gate_ref truncate_gate[] = {SP_GREF_INIT(METADATA_KEYS), SP_GFAM_INIT(TYPES, "operations"), SP_GFAM_INIT(TYPES, "latency"), SP_GFAM_INIT(TYPES, "samples"), SP_GFAM_INIT(TYPES, "capabilities"), SP_GFAM_INIT(TYPES, "faults"), SP_GFAM_INIT(TYPES, "inventory"), SP_GFAM_INIT(TYPES, "inventory"), SP_GFAM_INIT(TYPES, "summary")};

static const struct {
	const char *stem;
	const char *cols[20];
} colsets[] = {
	{"operations", {"ts", "scenario", "api", "operation", "latency_ms", "result", "generation", "error_code"}},
	{"latency", {"ts", "scenario", "operation", "latency_ms", "warmup"}},
	{"samples",
	 {"ts", "wall", "phase", "owned_processes", "owned_threads", "owned_rss_bytes", "owned_cpu_seconds",
	  "owned_fds", "owned_mounts", "owned_sockets", "owned_cgroups", "disk_bytes", "global_processes",
	  "global_mounts", "runner_rss_bytes", "runner_fds"}},
	{"capabilities", {"scenario", "attempted", "succeeded", "expected_faults", "unexpected_failures", "result"}},
	{"faults", {"fault_id", "target", "expected", "started", "ended", "recovery_ms", "rto_ms", "result"}},
};

static const char *const meta_keys[] = {
	"schema", "run_id", "profile", "scenarios", "tool_version", "tool_commit", "dirty", "host_kernel",
	"host_arch", "host_cpus", "host_memory_bytes", "runtime", "runtime_version", "rootfs_digest", "started_at",
	"seed", "workload_sha256", "concurrency", "faults", "duration_s", "sample_interval_s", "warmup_s",
	"threshold.min_span_s", "threshold.max_interval_s", "threshold.min_periodic_samples", "threshold.max_gap_s",
	"threshold.min_success_ratio", "threshold.rss_slope_mib_per_day", "threshold.fd_growth_max",
	"threshold.p95_regression_pct", "threshold.disk_budget_bytes"};

/* correct bundles */
static void cases_correct(void)
{
	add(PASSES, c_none, NULL, NULL, 0, "a correct bundle passes");
	add(PASSES, c_signed, NULL, NULL, 0, "a correct signed bundle passes with --pubkey");
	add(PASSES, c_baseline_one, NULL, NULL, 0, "baseline covering RUN-01 only: RUN-02 rejected");
	cases[ncases - 1].ref = SP_GFAM(LATENCY_P95, "RUN-02");
	sp_gate_ref_id(cases[ncases - 1].ref, cases[ncases - 1].expect);
}

/* boundaries: at (passes) and one unit beyond (fails); the redaction of logs */
static void cases_boundaries(void)
{
	/* boundaries: at (passes) and one unit beyond (fails) */
	add(PASSES, c_span, "600.000", NULL, 0, "span at its minimum 600 s");
	add(SP_GREF(SAMPLES_SPAN), c_span, "599.999", NULL, 0, "span 1 ms below its minimum");
	add(PASSES, c_meta, "threshold.min_periodic_samples", "9", 0, "periodic samples at the minimum 9");
	add(SP_GREF(SAMPLES_COUNT), c_meta, "threshold.min_periodic_samples", "10", 0, "one periodic sample short");
	add(PASSES, c_gap, "120.000", NULL, 0, "largest gap at its maximum 60 s");
	add(SP_GREF(SAMPLES_GAP), c_gap, "120.001", NULL, 0, "a gap 1 ms above its maximum");
	add(PASSES, c_meta, "sample_interval_s", "60", 0, "sample interval at its maximum");
	add(SP_GREF(SAMPLES_INTERVAL), c_meta, "sample_interval_s", "60.001", 0, "sample interval 1 ms above its maximum");
	add(PASSES, c_fails, NULL, NULL, 2, "success ratio at 0.99 (2 failures in 200)");
	add(SP_GREF(OPS_SUCCESS), c_fails, NULL, NULL, 3, "success ratio below 0.99 (3 failures in 200)");
	add(PASSES, c_fails, "1", NULL, 0, "ratio 1: zero failures pass");
	add(SP_GREF(OPS_SUCCESS), c_fails, "1", NULL, 1, "ratio 1: one unexpected failure");
	add(PASSES, c_ef_ts, "310.000", NULL, 0, "expected_fault at the end of its fault window");
	add(SP_GREF(OPS_EXPECTED_FAULTS), c_ef_ts, "310.001", NULL, 0, "expected_fault 1 ms after its fault window");
	add(PASSES, c_ef_ts, "300.000", NULL, 0, "expected_fault at the start of its fault window");
	add(SP_GREF(OPS_EXPECTED_FAULTS), c_ef_ts, "299.999", NULL, 0, "expected_fault 1 ms before its fault window");
	add(SP_GREF(OPS_EXPECTED_FAULTS), c_untied_failing_fault, NULL, NULL, 0, "expected_fault tied to a failing fault record");
	add(PASSES, c_multi_fault, NULL, NULL, 0, "expected_faults inside overlapping passing fault windows");
	add(SP_GREF(OPS_EXPECTED_FAULTS), c_multi_fault, NULL, NULL, 1, "expected_fault only inside a failing fault's window");
	add(PASSES, c_fault, "rto_ms", "10000", 0, "fault recovery exactly at its RTO");
	add(SP_GREF(FAULTS_RECOVERED), c_fault, "rto_ms", "9999.999", 0, "fault recovery 1 us beyond its RTO");
	add(SP_GREF(FAULTS_RECOVERED), c_fault, "result", "fail", 0, "fault record with result fail");
	add(SP_GREF(FAULTS_DECLARED), c_fault_declared, NULL, NULL, 1, "a declared fault never injected");
	add(SP_GREF(FAULTS_DECLARED), c_fault_declared, NULL, NULL, 2, "an undeclared fault injected");
	add(PASSES, c_rss, NULL, NULL, 0, "RSS slope exactly at 1440 MiB/day");
	add(SP_GREF(LEAK_RSS_SLOPE), c_rss, NULL, NULL, 1024, "RSS slope 1 KiB per sample beyond");
	add(PASSES, c_rss_rehearsal, NULL, NULL, 0, "an RSS climb in a rehearsal (no periodic samples asked): not judged");
	add(SP_GREF(LEAK_RSS_SLOPE), c_rss_rehearsal, NULL, NULL, 1, "the same climb when one periodic sample is asked");
	add(PASSES, c_fd_growth, NULL, NULL, 0, "FD growth exactly at the allowance 8");
	add(SP_GREF(LEAK_FD_GROWTH), c_fd_growth, NULL, NULL, 1, "FD growth one descriptor beyond");
	add(PASSES, c_counter, "owned_fds", NULL, 8, "final FDs at the allowance (+8)");
	add(SP_GREF(LEAK_FD_FINAL), c_counter, "owned_fds", NULL, 9, "final FDs one beyond the allowance (+9)");
	add(PASSES, c_disk_peak, NULL, NULL, 1000000, "disk peak growth at the budget");
	add(SP_GREF(DISK_PEAK), c_disk_peak, NULL, NULL, 1000001, "disk peak growth one byte over the budget");
	add(PASSES, c_counter, "disk_bytes", NULL, 1000000, "disk growth after cleanup at the budget");
	add(SP_GREF(DISK_FINAL), c_counter, "disk_bytes", NULL, 1000001, "disk growth after cleanup one byte over");
	add(PASSES, c_latency, "130", NULL, 0, "p95 exactly 30%% above the baseline");
	add(SP_GFAM(LATENCY_P95, "RUN-01"), c_latency, "130.001", NULL, 0, "p95 1 us beyond 30%% above the baseline");
	add(PASSES, c_logs, NULL, NULL, 0, "a log file at the 64 KiB bound");
	add(SP_GREF(LOGS_BOUNDED), c_logs, NULL, NULL, 1, "a log file one byte over 64 KiB without an elision line");
	add(SP_GREF(LATENCY_WARMUP), c_warmflag, NULL, NULL, 0, "a warm-up latency row flagged warmup=0");
	add(PASSES, c_secret, "export AWS_ACCESS_KEY_ID=[REDACTED] token=[REDACTED] https://u:[REDACTED]@example.invalid/r", NULL, 0, "a redacted log passes");
	add(SP_GREF(LOGS_REDACTED), c_secret, "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", NULL, 0, "a log with an AWS key id");
	add(SP_GREF(LOGS_REDACTED), c_secret, "-----BEGIN OPENSSH PRIVATE KEY-----", NULL, 0, "a log with a private key block");
	add(SP_GREF(LOGS_REDACTED), c_secret, "git clone https://u:hunter2secret@example.invalid/r", NULL, 0, "a log with a URL password");
	add(SP_GREF(LOGS_REDACTED), c_secret, "auth ghp_0123456789abcdefghijABCDEFGHIJ0123", NULL, 0, "a log with a GitHub token");
	add(SP_GREF(LOGS_REDACTED), c_secret, "OPENAI_API_KEY sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123", NULL, 0, "a log with an sk-proj- key");
	add(SP_GREF(LOGS_REDACTED), c_secret, "curl -H 'Authorization: Bearer abcdef0123456789'", NULL, 0, "a log with an Authorization: Bearer header");
	add(SP_GREF(LOGS_REDACTED), c_secret, "db connect password=hunter2", NULL, 0, "a log with password=");
	add(SP_GREF(LOGS_REDACTED), c_secret, "-----BEGIN PGP PRIVATE KEY BLOCK-----", NULL, 0, "a log with a PGP private key block");
	add(PASSES, c_secret, "curl -H 'Authorization: Bearer [REDACTED]' password=[REDACTED] sk-[REDACTED]", NULL, 0,
	    "redacted Authorization, password= and sk- values pass");
	static const char *const writer_secrets[] = {
		"password=hunter2 token: abc123 api_key=\"xyz789\"", "Authorization: Bearer abcdef0123456789",
		"OPENAI_API_KEY sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123", "https://user:pass1234@example.invalid/r",
		"-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF0\n-----END PGP PRIVATE KEY BLOCK-----",
		"AKIAIOSFODNN7EXAMPLE ghp_0123456789abcdefghijABCDEFGHIJ0123 xoxb-0123456789-abcdef"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(writer_secrets); i++)
		add(PASSES, c_secret_writer, writer_secrets[i], NULL, 0, "the writer's redaction of secret line %zu passes", i + 1);
}

/* time plausibility and fault laundering */
static void cases_time(void)
{
	/* time plausibility */
	add(PASSES, c_wall_skew, NULL, NULL, 5000, "a wall clock 5 s ahead of started_at + ts");
	add(SP_GREF(SAMPLES_WALL), c_wall_skew, NULL, NULL, 5001, "a wall clock 5.001 s ahead of started_at + ts");
	add(PASSES, c_wall_skew, NULL, NULL, -5000, "a wall clock 5 s behind started_at + ts");
	add(SP_GREF(SAMPLES_WALL), c_wall_skew, NULL, NULL, -5001, "a wall clock 5.001 s behind started_at + ts");
	add(SP_GREF(SAMPLES_WALL), c_wall, NULL, NULL, 0, "wall clocks running backwards");
	add(SP_GFAM(TYPES, "samples"), c_wall, NULL, NULL, 1, "a wall clock on February 30");
	add(SP_GREF(SAMPLES_WALL), c_wall, NULL, NULL, 2, "every time in 2100 (in the future)");
	add(SP_GREF(SAMPLES_WALL), c_wall, NULL, NULL, 3, "started_at 1 ms after the first sample");
	add(SP_GREF(SAMPLES_WALL), c_wall, NULL, NULL, 4, "started_at in 2100");
	add(SP_GREF(METADATA_KEYS), c_meta, "started_at", "2026-02-30T00:00:00Z", 0, "metadata: started_at on February 30");
	add(SP_GREF(METADATA_KEYS), c_meta, "started_at", "2027-02-29T00:00:00Z", 0, "metadata: started_at on February 29 of a common year");
	add(PASSES, c_ops_order, NULL, NULL, 0, "two operations at the same ts");
	add(SP_GREF(OPERATIONS_ORDER), c_ops_order, NULL, NULL, 1, "two operation rows out of time order");
	add(PASSES, c_op_last, "600.000", NULL, 0, "the last operation at the final sample");
	add(SP_GREF(OPERATIONS_ORDER), c_op_last, "600.001", NULL, 0, "an operation 1 ms after the final sample");
	add(PASSES, c_fault_win, "300.000", "600.000", 0, "a fault window ending at the final sample");
	add(SP_GREF(FAULTS_WINDOW), c_fault_win, "300.000", "600.001", 0, "a fault window ending 1 ms after the final sample");

	/* fault laundering */
	add(PASSES, c_fault_win, "300.000", "310.000", 2000, "a recovery 2 ms longer than its window");
	add(SP_GREF(FAULTS_WINDOW), c_fault_win, "300.000", "310.000", 2001, "a recovery 2.001 ms longer than its window");
	add(PASSES, c_fault_win, "300.000", "310.000", -2000, "a recovery 2 ms shorter than its window");
	add(SP_GREF(FAULTS_WINDOW), c_fault_win, "300.000", "310.000", -2001, "a recovery 2.001 ms shorter than its window");
	add(SP_GREF(FAULTS_WINDOW), c_fault_short, NULL, NULL, 0, "a 1 ms fault window with a 4 s recovery");
	add(SP_GREF(OPS_EXPECTED_FAULTS), c_fault_launder, NULL, NULL, 0, "three expected_fault operations for two fault windows");
	add(SP_GREF(OPS_EXPECTED_FAULTS), c_fault_launder, NULL, NULL, 1, "one fault window as long as the run excusing four failures");
	add(SP_GFAM(TYPES, "faults"), c_fault_id, NULL, NULL, 0, "fault id F00 in faults.tsv");
	add(SP_GFAM(TYPES, "faults"), c_fault_id, NULL, NULL, 1, "fault id F10 in faults.tsv");
	add(SP_GREF(METADATA_KEYS), c_fault_id, NULL, NULL, 2, "fault id F00 declared");
	add(PASSES, c_fault_id, NULL, NULL, 3, "fault id F09 declared and injected");
}

/* the summary, the sampling, the warm-up and the latency against the rows; content */
static void cases_run(void)
{
	/* summary against the rows */
	add(PASSES, c_summary, "measured_duration_s", NULL, 1000, "summary: measured_duration_s 1 ms off the final sample");
	add(SP_GREF(SUMMARY_CONSISTENT), c_summary, "measured_duration_s", NULL, 1001, "summary: measured_duration_s 1.001 ms off");
	add(PASSES, c_meta, "duration_s", "600.001", 0, "stopped by duration: samples span the duration (1 ms rounding)");
	add(SP_GREF(RUN_COMPLETED), c_meta, "duration_s", "600.002", 0, "stopped by duration: samples 2 ms short of it");
	add(SP_GREF(RUN_COMPLETED), c_meta, "duration_s", "6000", 0, "a custom run whose samples span a tenth of its duration");

	/* measured sampling */
	add(PASSES, c_interval_measured, NULL, NULL, 0, "measured interval 66 s: the maximum 60 s + 10%%");
	add(SP_GREF(SAMPLES_INTERVAL), c_interval_measured, NULL, NULL, 1, "measured interval 66.000001 s over a 60 s maximum");
	add(PASSES, c_none, NULL, NULL, 0, "periodic sample 3 exactly at its slot (180 s)");
	add(SP_GREF(SAMPLES_CADENCE), c_cadence, NULL, NULL, 0, "periodic sample 3 1 ms before its slot");
	add(SP_GREF(SAMPLES_CADENCE), c_cadence, NULL, NULL, 1, "a burst of three samples padding the count");

	/* warm-up */
	add(PASSES, c_meta, "warmup_s", "75", 0, "warmup_s at the 75 s a 600 s custom run allows");
	add(SP_GREF(WARMUP_BOUNDED), c_meta, "warmup_s", "76", 0, "warmup_s 1 s beyond what a 600 s custom run allows");
	add(SP_GREF(WARMUP_BOUNDED), c_meta, "warmup_s", "500", 0, "a warm-up covering most of the run");
	add(PASSES, c_warm_late, NULL, NULL, 0, "two cycles of every scenario done at the middle of the run");
	add(SP_GREF(WARMUP_BOUNDED), c_warm_late, NULL, NULL, 1, "two cycles of every scenario done 1 ms after the middle");

	/* latency against operations */
	for (int k = 0; k < 5; k++) {
		static const char *const what[] = {"a latency value", "a latency ts", "a latency row added",
						   "a latency row removed", "a latency row of a failed operation"};
		add(SP_GREF(LATENCY_AGREE), c_lat_edit, NULL, NULL, k, "%s edited apart from operations.tsv", what[k]);
	}
	add(PASSES, c_lat_edit, NULL, NULL, 5, "the same latency written with fewer decimals");

	/* content */
	add(SP_GREF(INTEGRITY_MANIFEST), c_dir_as, "verify.out", NULL, 0, "a directory verify.out/ with an unlisted file");
	add(SP_GREF(INTEGRITY_MANIFEST), c_dir_as, "MANIFEST.sig", NULL, 0, "a directory MANIFEST.sig/ with an unlisted file");
	add(PASSES, c_logs_elided, NULL, NULL, 0, "a log of head, elision line and tail at 64 KiB + 128");
	add(SP_GREF(LOGS_BOUNDED), c_logs_elided, NULL, NULL, 1, "a log with an elision line one byte over");
	add(PASSES, c_via_symlink, NULL, NULL, 0, "verified through a symlink to the bundle");
}

/* leaks and profiles */
static void cases_leaks(void)
{
	/* leaks of each counter */
	static const char *const leak[] = {"owned_processes", "owned_mounts", "owned_sockets", "owned_cgroups",
					   "extra.boxes"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(leak); i++) {
		add(SP_GFAM(CLEANUP, leak[i]), c_counter, leak[i], NULL, 1, "leak: final %s one above start", leak[i]);
	}
	add(SP_GREF(CLEANUP_OWNED_PROCESSES), c_counter, "owned_processes", NULL, -1, "final owned_processes below start");
	add(SP_GREF(CLEANUP_INVENTORY), c_inventory, NULL, NULL, 1, "a resource left in the final inventory");
	add(SP_GREF(CLEANUP_INVENTORY), c_inventory, NULL, NULL, 2, "a resource gone from the final inventory");
	add(SP_GFAM(TYPES, "inventory"), c_inventory, NULL, NULL, 3, "inventory with an unknown schema");
	add(SP_GREF(CLEANUP_STATUS), c_summary, "cleanup", "failed", 0, "summary reports cleanup failed");
	add(SP_GREF(RUN_COMPLETED), c_summary, "stop_condition", "signal", 0, "run stopped by a signal");

	/* profiles */
	add(SP_GREF(PROFILE_CLAIM), c_profile_claim, "G2", NULL, 0, "claims G2 with looser thresholds");
	add(SP_GREF(PROFILE_CLAIM), c_profile_claim, "R0", NULL, 0, "claims R0 with a success ratio below 1");
	add(SP_GREF(WARMUP_BOUNDED), c_profile_claim, "R0", NULL, 2, "claims R0 (no warm-up) with warmup_s 1");
	add(PASSES, c_profile_claim, "R0", NULL, 1, "claims R0 and meets it");
	add(SP_GREF(SAMPLES_SPAN), c_profile_opt, "G2", NULL, 0, "--profile G2 on a 600 s custom bundle");
	add(PASSES, c_profile_opt, "custom", NULL, 0, "--profile custom uses the metadata thresholds");
}

/* integrity: the signature and the MANIFEST */
static void cases_integrity(void)
{
	/* integrity */
	add(SP_GREF(INTEGRITY_SIGNATURE), c_sig, NULL, NULL, 0, "unsigned bundle when a key is demanded");
	add(SP_GREF(INTEGRITY_SIGNATURE), c_sig, NULL, NULL, 2, "signed with another key");
	add(SP_GREF(INTEGRITY_SIGNATURE), c_sig, NULL, NULL, 3, "signature with one bit flipped");
	add(SP_GREF(INTEGRITY_SIGNATURE), c_sig, NULL, NULL, 4, "MANIFEST edited after signing");
	add(SP_GREF(INTEGRITY_MANIFEST), c_sig, NULL, NULL, 5, "MANIFEST removed");
	add(SP_GREF(INTEGRITY_MANIFEST), c_manifest, NULL, NULL, 0, "MANIFEST not sorted");
	add(SP_GREF(INTEGRITY_MANIFEST), c_manifest, NULL, NULL, 1, "MANIFEST lists ../outside");
	add(SP_GREF(INTEGRITY_MANIFEST), c_symlink, NULL, NULL, 0, "a symlink inside the bundle");
	add(SP_GREF(FILES_PRESENT), c_post, "operations.tsv", NULL, FO_FIFO, "operations.tsv replaced by a fifo (must not hang)");
	add(SP_GREF(INTEGRITY_MANIFEST), c_post, "MANIFEST", NULL, FO_FIFO, "MANIFEST replaced by a fifo (must not hang)");
	for (size_t i = 0; i < SP_ARRAY_SIZE(known); i++)
		add(SP_GREF(INTEGRITY_MANIFEST), c_post, known[i], NULL, FO_APPEND, "%s edited after the MANIFEST", known[i]);
	add(SP_GREF(INTEGRITY_MANIFEST), c_post, "logs/step-001.log", NULL, FO_APPEND, "a log edited after the MANIFEST");
	for (size_t i = 0; i < 6; i++)
		add(SP_GREF(INTEGRITY_MANIFEST), c_post, known[i], NULL, FO_TRUNCATE, "%s truncated after the MANIFEST", known[i]);
	add(SP_GREF(INTEGRITY_MANIFEST), c_post, "logs/added.log", NULL, FO_ADD, "a file added after the MANIFEST");
	add(SP_GREF(INTEGRITY_MANIFEST), c_post, "extra.txt", NULL, FO_ADD, "a top-level file added after the MANIFEST");
	add(SP_GREF(INTEGRITY_MANIFEST), c_post, "logs/step-001.log", NULL, FO_DELETE, "a log removed after the MANIFEST");
	add(SP_GREF(INTEGRITY_MANIFEST), c_post, "summary.json", NULL, FO_DELETE, "summary.json removed after the MANIFEST");
}

/* files, columns and types */
static void cases_files(void)
{
	/* each file missing, empty, truncated (MANIFEST rewritten, so the
	 * structural gate alone must catch it) */
	for (size_t i = 0; i < SP_ARRAY_SIZE(known); i++)
		add(SP_GREF(FILES_PRESENT), c_present, known[i], NULL, FO_DELETE, "%s missing", known[i]);
	add(SP_GREF(FILES_PRESENT), c_present, "logs", NULL, FO_MKDIR_RM, "logs/ missing");
	for (size_t i = 0; i < SP_ARRAY_SIZE(known); i++)
		add(SP_GREF(FILES_PRESENT), c_present, known[i], NULL, FO_EMPTY, "%s empty", known[i]);
	for (size_t i = 0; i < SP_ARRAY_SIZE(known); i++)
		add(truncate_gate[i], c_present, known[i], NULL, FO_TRUNCATE, "%s truncated mid-line", known[i]);

	/* each required column missing; duplicate columns */
	for (size_t s = 0; s < SP_ARRAY_SIZE(colsets); s++) {
		sp_ev_gate_ref g = SP_GFAM(COLUMNS, colsets[s].stem);
		for (size_t k = 0; colsets[s].cols[k]; k++)
			add(g, c_del_col, colsets[s].stem, colsets[s].cols[k], 0, "%s: column %s missing", colsets[s].stem,
			    colsets[s].cols[k]);
		add(g, c_dup_col, colsets[s].stem, colsets[s].cols[0], 0, "%s: column %s twice", colsets[s].stem,
		    colsets[s].cols[0]);
	}
	/* each type wrong */
	for (size_t s = 0; s < SP_ARRAY_SIZE(colsets); s++) {
		sp_ev_gate_ref g = SP_GFAM(TYPES, colsets[s].stem);
		for (size_t k = 0; colsets[s].cols[k]; k++)
			add(g, c_bad_type, colsets[s].stem, colsets[s].cols[k], 0, "%s: wrong type in column %s",
			    colsets[s].stem, colsets[s].cols[k]);
	}
	add(SP_GFAM(TYPES, "operations"), c_bad_type, "operations", "ts", 1, "operations: negative ts");
	add(SP_GFAM(TYPES, "operations"), c_bad_type, "operations", "ts", 2, "operations: ts with an exponent");
	add(SP_GFAM(TYPES, "operations"), c_bad_type, "operations", "latency_ms", 3, "operations: latency nan");
	add(SP_GFAM(TYPES, "operations"), c_bad_type, "operations", "latency_ms", 4, "operations: latency '12.'");
	add(SP_GFAM(TYPES, "operations"), c_bad_type, "operations", "generation", 2, "operations: fractional generation");
	add(SP_GFAM(TYPES, "samples"), c_bad_type, "samples", "owned_fds", 1, "samples: negative owned_fds");
	add(SP_GFAM(TYPES, "samples"), c_bad_type, "samples", "extra.boxes", 2, "samples: fractional extra.boxes");
	add(SP_GFAM(TYPES, "operations"), c_text, "operations", "api", 0, "operations: invalid UTF-8");
	add(SP_GFAM(TYPES, "operations"), c_text, "operations", "operation", 1, "operations: carriage return in a value");
}

/* metadata, sample order, capability coverage, summary consistency */
static void cases_metadata(void)
{
	/* metadata */
	for (size_t i = 0; i < SP_ARRAY_SIZE(meta_keys); i++)
		add(i == 0 ? SP_GREF(METADATA_SCHEMA) : SP_GREF(METADATA_KEYS), c_meta_del, meta_keys[i], NULL, 0,
		    "metadata: key %s missing", meta_keys[i]);
	add(SP_GREF(METADATA_SCHEMA), c_meta, "schema", "sandprobe.evidence.v2", 0, "metadata: unknown schema version");
	add(SP_GREF(METADATA_KEYS), c_meta_dup, NULL, NULL, 0, "metadata: a key given twice");
	add(SP_GREF(METADATA_KEYS), c_meta_line, NULL, NULL, 0, "metadata: a line without '='");
	add(SP_GREF(METADATA_KEYS), c_meta, "profile", "G3", 0, "metadata: unknown profile name");
	add(SP_GREF(METADATA_KEYS), c_meta, "threshold.min_success_ratio", "1.5", 0, "metadata: success ratio above 1");
	add(SP_GREF(METADATA_KEYS), c_meta, "threshold.fd_growth_max", "4.5", 0, "metadata: fractional fd allowance");
	add(SP_GREF(METADATA_KEYS), c_meta, "workload_sha256", "abc", 0, "metadata: short workload digest");
	add(SP_GREF(METADATA_KEYS), c_meta, "scenarios", "RUN-01,RUN-01", 0, "metadata: scenario listed twice");
	add(SP_GREF(METADATA_KEYS), c_meta, "faults", "F1", 0, "metadata: malformed fault id");
	add(SP_GREF(METADATA_KEYS), c_meta, "started_at", "yesterday", 0, "metadata: started_at not ISO 8601");
	add(SP_GREF(METADATA_ABSENT), c_meta, "absent", "owned_rss_bytes", 0, "metadata: a field marked absent (an imported bundle)");

	/* samples order and phases */
	add(SP_GREF(SAMPLES_MONOTONIC), c_samples_order, NULL, NULL, 0, "samples: timestamps go backwards");
	add(SP_GREF(SAMPLES_PHASES), c_samples_order, NULL, NULL, 1, "samples: duplicate final sample");
	add(SP_GREF(SAMPLES_PHASES), c_samples_order, NULL, NULL, 2, "samples: first sample not start");
	add(SP_GREF(SAMPLES_PHASES), c_samples_order, NULL, NULL, 3, "samples: a second start sample");
	add(SP_GREF(SAMPLES_PHASES), c_samples_order, NULL, NULL, 4, "samples: no final sample");
	add(SP_GREF(SAMPLES_PHASES), c_samples_order, NULL, NULL, 5, "samples: final sample not last");
	add(SP_GREF(SAMPLES_MONOTONIC), c_samples_order, NULL, NULL, 6, "samples: two samples at the same ts");

	/* capability coverage */
	add(SP_GREF(CAPABILITY_COVERAGE), c_caps, NULL, NULL, 0, "a declared scenario without operations");
	add(SP_GREF(CAPABILITY_COVERAGE), c_caps, NULL, NULL, 1, "operations of an undeclared scenario");
	add(SP_GREF(CAPABILITY_COVERAGE), c_caps, NULL, NULL, 2, "a capability row missing");
	add(SP_GREF(CAPABILITY_AGREE), c_caps, NULL, NULL, 3, "capability counts disagree with operations");
	add(SP_GREF(CAPABILITY_AGREE), c_caps, NULL, NULL, 4, "capability result disagrees with operations");

	/* summary consistency */
	static const char *const sum_fields[] = {"run_id", "profile", "requested_duration_s", "sample_count",
						 "periodic_samples", "span_s", "max_gap_s", "warmup_end_s",
						 "operations.total", "operations.ok", "operations.fail",
						 "operations.expected_fault", "unexpected_failures"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(sum_fields); i++)
		add(SP_GREF(SUMMARY_CONSISTENT), c_summary, sum_fields[i], i == 1 ? "G2" : NULL, 0, "summary: %s disagrees",
		    sum_fields[i]);
	add(PASSES, c_summary, "span_s", NULL, 1000, "summary: span_s 1 ms off (the rounding tolerance)");
	add(SP_GREF(SUMMARY_CONSISTENT), c_summary, "span_s", NULL, 1001, "summary: span_s 1.001 ms off");
	add(SP_GFAM(TYPES, "summary"), c_summary_type, NULL, NULL, 0, "summary: unknown schema version");
	add(SP_GFAM(TYPES, "summary"), c_summary_type, NULL, NULL, 1, "summary: span_s missing");
}

/* the cases, in their order (their TAP numbers) */
static void build_cases(void)
{
	cases_correct();
	cases_boundaries();
	cases_time();
	cases_run();
	cases_leaks();
	cases_integrity();
	cases_files();
	cases_metadata();
}

static int run_case(const tcase *c, const char *root, size_t idx, FILE *f, bool verbose)
{
	bundle b;
	st_bundle_default(&b);
	c->fn(&b, c);
	_cleanup_free_ char *dir = sp_xasprintf("%s/case-%03zu", root, idx);
	int ok = 0;
	char why[600] = "";
	if (st_write_bundle(&b, dir) < 0) {
		snprintf(why, sizeof why, "cannot write the bundle: %s", strerror(errno));
	} else {
		sp_ev_baseline base = {0};
		sp_ev_baseline_entry be[2] = {{.scenario = (char *)"RUN-01", .count = 100, .p50 = 90, .p95 = 100, .p99 = 110},
					   {.scenario = (char *)"RUN-02", .count = 100, .p50 = 90, .p95 = 100, .p99 = 110}};
		base.v = be;
		base.n = b.baseline_one ? 1 : 2;
		sp_ev_verify_opts o = {.profile = b.profile_opt, .baseline = b.use_baseline ? &base : NULL, .pubkey = b.demand_key ? st_key_a : NULL};
		sp_ev_verdict v;
		sp_error err = {0};
		_cleanup_free_ char *link = sp_xasprintf("%s.link", dir);
		const char *target = dir;
		if (b.via_symlink && symlink(dir, link) == 0)
			target = link;
		int vrc = sp_ev_verify(target, &o, &v, &err);
		if (b.via_symlink)
			unlink(link);
		if (vrc < 0) {
			snprintf(why, sizeof why, "internal error: %s", err.msg);
		} else {
			const char *uncatalogued = NULL;
			for (size_t i = 0; i < v.n && !uncatalogued; i++)
				if (!sp_gate_info_find(v.g[i].id))
					uncatalogued = v.g[i].id;
			if (uncatalogued) {
				ok = 0;
				snprintf(why, sizeof why, "gate %s is missing from the gate catalogue", uncatalogued);
			} else if (!c->expect[0]) {
				ok = v.nfail == 0;
				if (!ok)
					for (size_t i = 0; i < v.n; i++)
						if (v.g[i].status == SP_GATE_FAIL) {
							snprintf(why, sizeof why, "unexpected failure %s: %s", v.g[i].id,
								 v.g[i].message);
							break;
						}
			} else {
				const sp_ev_gate *g = sp_verdict_find(&v, c->ref);
				ok = g && g->status == SP_GATE_FAIL;
				if (!g)
					snprintf(why, sizeof why, "gate %s not reported", c->expect);
				else if (!ok)
					snprintf(why, sizeof why, "gate %s passed: %s", c->expect, g->message);
				else
					snprintf(why, sizeof why, "%s", g->message);
			}
			if (verbose && ok && why[0])
				fprintf(f, "#   %s\n", why);
			sp_verdict_free(&v);
		}
	}
	fprintf(f, "%s %zu - %s%s%s\n", ok ? "ok" : "not ok", idx + 1, c->name,
		c->expect[0] ? " -> " : " -> passes", c->expect);
	if (!ok)
		fprintf(f, "#   %s\n", why);
	st_bundle_free(&b);
	sp_rm_rf(dir);
	return ok;
}

int sp_verify_selftest(FILE *f, bool verbose)
{
	char root[] = "/tmp/sandprobe-selftest.XXXXXX";
	if (!mkdtemp(root)) {
		fprintf(f, "not ok 1 - cannot create a temp dir: %s\n1..1\n", strerror(errno));
		return -1;
	}
	st_key_a = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	st_key_b = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	if (!st_key_a || !st_key_b) {
		fprintf(f, "not ok 1 - cannot create Ed25519 keys\n1..1\n");
		rmdir(root);
		return -1;
	}
	st_base_epoch = (time(NULL) / 86400 - 1) * 86400;
	ncases = 0;
	build_cases();
	size_t good = 0;
	for (size_t i = 0; i < ncases; i++)
		good += (size_t)run_case(&cases[i], root, i, f, verbose);
	fprintf(f, "1..%zu\n# %zu cases: %zu behaved, %zu did not\n", ncases, ncases, good, ncases - good);
	free(cases);
	cases = NULL;
	EVP_PKEY_free(st_key_a);
	EVP_PKEY_free(st_key_b);
	st_key_a = st_key_b = NULL;
	sp_rm_rf(root);
	return good == ncases ? 0 : -1;
}
