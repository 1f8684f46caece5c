/* The plan of a soak run: the profile table, every threshold fixed from the
 * options and the workload before anything is created, and the run's
 * identity (run id, prefix, state directory, environment of its steps). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "soak/run.h"
#include "evidence/evidence.h"

extern char **environ;

static const struct sp_profile profiles[] = {
	{"R0", 0, 0, 0, 5, 0, 0, "1"},
	{"G2", 7200, 300, 24, 60, 600, 900, "1"},
	{"R24", 86400, 300, 288, 60, 600, 900, "0.995"},
	{"E72", 259200, 300, 864, 60, 600, 900, "0.995"},
};

const struct sp_profile *sp_soak_find_profile(const char *name)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(profiles); i++)
		if (!strcmp(profiles[i].name, name))
			return &profiles[i];
	return NULL;
}

/* Validate options against the workload and fix every threshold. */
int sp_soak_plan(struct run *r, sp_error *err)
{
	const sp_soak_opts *o = r->o;
	r->base = sp_soak_find_profile(o->profile);
	if (!r->base)
		return sp_usage(err, "--profile %s: must be R0, G2, R24 or E72", o->profile);
	snprintf(r->profile, sizeof r->profile, "%s", r->base->name);
	r->r0 = !strcmp(r->base->name, "R0");
	r->duration_s = r->base->duration_s;
	r->interval_s = o->sample_interval_s > 0 ? o->sample_interval_s : r->base->default_interval_s;
	bool custom = false;
	if (o->duration_s >= 0) {
		if (o->duration_s < 1)
			return sp_usage(err, "--duration must be at least 1 second");
		if (r->r0 || o->duration_s < r->base->duration_s) {
			custom = true;
			r->r0 = false;
		} else if (o->duration_s > r->base->duration_s) {
			r->duration_s = o->duration_s; /* longer than the profile still meets it */
		}
		if (custom)
			r->duration_s = o->duration_s;
	}
	if (o->sample_interval_s >= 0 && o->sample_interval_s < 1)
		return sp_usage(err, "--sample-interval must be at least 1 second");
	if (!custom && !r->r0 && r->interval_s > r->base->max_interval_s)
		return sp_usage(err, "--sample-interval %lld: profile %s needs a sample at least every %lld s", r->interval_s,
				r->base->name, r->base->max_interval_s);
	r->min_success = r->base->min_success;
	if (custom) {
		snprintf(r->profile, sizeof r->profile, "custom");
		if (r->interval_s > r->duration_s)
			return sp_usage(err, "--sample-interval %lld is longer than --duration %lld", r->interval_s, r->duration_s);
		/* the named profiles' relations, scaled to the shorter run */
		r->min_span_s = r->duration_s;
		r->max_interval_s = 2 * r->interval_s;
		r->max_gap_s = 4 * r->interval_s;
		r->min_periodic = r->duration_s / r->max_interval_s;
		long long pd = r->base->duration_s ? r->base->duration_s : 7200;
		r->warmup_s = 900 * r->duration_s / pd;
		/* the same absolute growth allowed over the shorter run */
		r->rss_slope = r->w.rss_slope_mib_per_day * (double)pd / (double)r->duration_s;
	} else if (r->r0) {
		r->duration_s = 0;
		r->min_span_s = 0;
		r->min_periodic = 0;
		r->max_interval_s = 2 * r->interval_s;
		r->max_gap_s = 4 * r->interval_s;
		r->warmup_s = 0;
	} else {
		r->min_span_s = r->base->duration_s;
		r->max_interval_s = r->base->max_interval_s;
		r->max_gap_s = r->base->max_gap_s;
		r->min_periodic = r->base->min_periodic;
		r->warmup_s = r->base->warmup_s;
	}
	if (!custom)
		r->rss_slope = r->w.rss_slope_mib_per_day;
	r->concurrency = o->concurrency > 0 ? o->concurrency : r->w.concurrency;
	if (r->concurrency < 1 || r->concurrency > 256)
		return sp_usage(err, "--concurrency must be 1 to 256");
	if (!sp_soak_dir_exists(r->w.state_root))
		return sp_usage(err, "%s: state_root %s is not an existing directory", r->w.path, r->w.state_root);
	if (o->sign_key) {
		void *k;
		if (sp_privkey_load(&k, o->sign_key, err) < 0)
			return -1;
		r->key = k;
	}
	if (o->metrics_file && sp_soak_check_metrics_path(o->metrics_file, err) < 0)
		return -1;
	struct stat st;
	if (stat(o->out, &st) == 0 && (!S_ISDIR(st.st_mode) || sp_count_dir(o->out) != 0))
		return sp_usage(err, "--out %s: exists and is not an empty directory", o->out);
	if (stat(o->out, &st) < 0) {
		char *dup = sp_xstrdup(o->out);
		char *slash = strrchr(dup, '/');
		while (slash && slash > dup && slash[1] == '\0') { /* "dir/" */
			*slash = '\0';
			slash = strrchr(dup, '/');
		}
		const char *parent = slash ? (slash == dup ? "/" : (*slash = '\0', dup)) : ".";
		bool okp = sp_soak_dir_exists(parent);
		free(dup);
		if (!okp)
			return sp_usage(err, "--out %s: its parent directory does not exist", o->out);
	}
	if (r->w.rate > 0) /* >= SP_RATE_MIN (the parser refused less): at most 1e13 ns */
		r->rate_interval_ns = (uint64_t)llround(1e9 / r->w.rate);
	return 0;
}

static void build_env(struct run *r)
{
	size_t n = 0;
	while (environ[n])
		n++;
	r->envp = sp_xcalloc(n + 3, sizeof(char *));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!sp_startswith(environ[i], SP_SOAK_ENV "=") && !sp_startswith(environ[i], "SANDPROBE_SOAK_STATE="))
			r->envp[k++] = sp_xstrdup(environ[i]);
	r->envp[k++] = sp_xasprintf("%s=%s", SP_SOAK_ENV, r->prefix);
	r->envp[k++] = sp_xasprintf("SANDPROBE_SOAK_STATE=%s", r->state_dir);
	r->envp[k] = NULL;
}

static unsigned long long splitmix(unsigned long long x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

/* run id, prefix, seed, state directory, placeholders, scenario ids and the
 * steps' environment; nothing is created */
int sp_soak_identity(struct run *r, sp_error *err)
{
	unsigned char rnd[8];
	if (getrandom(rnd, sizeof rnd, 0) != sizeof rnd)
		return sp_fail_errno(err, errno, "getrandom");
	snprintf(r->short_id, sizeof r->short_id, "%02x%02x%02x%02x", rnd[0], rnd[1], rnd[2], rnd[3]);
	char t[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(t, sizeof t, "%Y%m%dT%H%M%SZ", &tm);
	snprintf(r->run_id, sizeof r->run_id, "%s-%s", t, r->short_id);
	snprintf(r->prefix, sizeof r->prefix, "%s-%s", r->w.prefix, r->short_id);
	r->seed = r->o->seed_set ? r->o->seed
				 : ((unsigned long long)rnd[4] << 24 | (unsigned long long)rnd[5] << 16 |
				    (unsigned long long)rnd[6] << 8 | rnd[7]);
	r->sch.rng = splitmix(r->seed) | 1;
	r->state_dir = sp_xasprintf("%s%s%s", r->w.state_root, sp_endswith(r->w.state_root, "/") ? "" : "/", r->prefix);
	r->exe = realpath("/proc/self/exe", NULL);
	if (!r->exe)
		r->exe = sp_xstrdup("/proc/self/exe");
	r->gvars = (sp_soak_vars){.state = r->state_dir, .prefix = r->prefix, .run = r->run_id, .exe = r->exe};
	if (r->w.rootfs) {
		r->rootfs = sp_expand(r->w.rootfs, &r->gvars);
		r->gvars.rootfs = r->rootfs;
	}
	r->ss = sp_xcalloc(r->w.nscen, sizeof *r->ss);
	for (size_t i = 0; i < r->w.nscen; i++) {
		r->ss[i].sc = &r->w.scen[i];
		char lid[64];
		size_t k = 0;
		for (const char *c = r->w.scen[i].id; *c && k + 1 < sizeof lid; c++)
			if (*c != '-' && *c != '_' && *c != '.')
				lid[k++] = (char)((*c >= 'A' && *c <= 'Z') ? *c - 'A' + 'a' : *c);
		lid[k] = '\0';
		snprintf(r->ss[i].sid, sizeof r->ss[i].sid, "%s-%s", r->prefix, lid);
	}
	r->smp.counter_last = sp_xcalloc(r->w.ncounters + 1, sizeof *r->smp.counter_last);
	r->smp.counter_noted = sp_xcalloc(r->w.ncounters + 1, sizeof *r->smp.counter_noted);
	build_env(r);
	return 0;
}
