/* sandprobe soak: argument parsing and wiring only (src/soak/runner.c). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "core/util.h"
#include "gate/identity.h"
#include "soak/faultproxy.h"
#include "soak/proc.h"
#include "soak/runner.h"
#include "soak/sampler.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sandprobe soak --workload FILE --profile R0|G2|R24|E72 -o|--out DIR\n"
		"                      [--duration S] [--sample-interval S] [--concurrency N] [--seed N]\n"
		"                      [--sign-key FILE] [--metrics-file PATH] [-q|--quiet]\n"
		"                      [--lane ID] [--artifact NAME=FILE|NAME=sha256:HEX]...\n"
		"       sandprobe soak --reconcile STATE_ROOT\n"
		"       sandprobe soak --sample-once --prefix PREFIX --state DIR [--repeat N]\n"
		"       sandprobe soak fault-proxy --help   (F05's fault-injecting loopback TCP proxy)\n\n"
		"Runs the workload's scenarios against a real runtime for the profile's duration\n"
		"(R0: one cycle of every scenario; G2 7200 s; R24 86400 s; E72 259200 s) with an\n"
		"independent resource sampler, writes the evidence bundle to DIR and runs\n"
		"'sandprobe verify DIR', whose exit code it returns. --duration or a shorter run\n"
		"records profile 'custom' with thresholds scaled and fixed in metadata.txt.\n"
		"SIGINT/SIGTERM: stop launching, drain, clean up, final sample (a second signal\n"
		"also interrupts in-flight operations). If the runner or its supervisor dies\n"
		"(even of SIGKILL), the other kills everything of the run and runs its cleanup;\n"
		"what is left (state dir, journal) makes the next run on that state root refuse\n"
		"until --reconcile STATE_ROOT has removed it and proven it gone.\n"
		"\n"
		"  --workload FILE       the workload (YAML, docs/workload-format.md); an error is FILE:LINE, exit 2\n"
		"  --profile NAME        R0 (one cycle of every scenario), G2, R24 or E72\n"
		"  -o, --out DIR         the bundle directory: created, or an existing empty directory\n"
		"  --duration S          shorten (profile custom) or lengthen the run, in seconds\n"
		"  --sample-interval S   seconds between periodic samples (default 60, 5 for R0; at most 300 for G2+)\n"
		"  --concurrency N       worker threads (default: the workload's)\n"
		"  --seed N              seed of the scenario picks (recorded; random when not given)\n"
		"  --sign-key FILE       Ed25519 private key (sandprobe keygen): writes MANIFEST.sig\n"
		"  --metrics-file PATH   the latest sample in Prometheus text format, after every sample\n"
		"  -q, --quiet           no progress on standard error\n"
		"  --reconcile STATE_ROOT  remove exactly what a dead run's journal and ownership proofs name\n"
		"                        under STATE_ROOT, report it and prove it gone (nothing else runs)\n"
		"  --lane ID             record the release gate's lane of the run (metadata.txt lane=)\n"
		"  --artifact NAME=FILE|NAME=sha256:HEX  record an artifact digest (artifact.NAME=; a FILE is hashed;\n"
		"                        see docs/plan-format.md and sandprobe-gate(1)); may be repeated\n"
		"  --sample-once         one resource sample of processes carrying PREFIX and of DIR, printed\n"
		"  --prefix PREFIX       (--sample-once) the process marker to count\n"
		"  --state DIR           (--sample-once) the state directory to measure\n"
		"  --repeat N            (--sample-once) take N samples\n"
		"\n"
		"exit: the verifier's (0 every gate passed, 1 a gate failed), 2 usage error, 3 internal error\n"
		"See sandprobe-soak(1) and docs/workload-format.md.\n");
}

/* progress: one status line redrawn on a terminal, plain lines otherwise */
struct progress {
	bool quiet, tty, line_open;
};

static void sink(void *ctx, const sp_soak_event *ev)
{
	struct progress *p = ctx;
	if (p->quiet)
		return;
	const sp_soak_status *st = ev->st;
	char dur[32];
	switch (ev->kind) {
	case SP_SOAK_EV_START:
		fprintf(stderr, "soak: %s\n", ev->text);
		break;
	case SP_SOAK_EV_STATUS:
		if (st->r0)
			snprintf(dur, sizeof dur, "R0");
		else
			snprintf(dur, sizeof dur, "%llds", st->duration_s);
		if (p->tty) {
			fprintf(stderr, "\r\033[Ksoak %.1fs/%s  ops %lld  fail %lld  faults %lld  samples %lld  owned: procs %lld rss %.1fMiB fds %lld mounts %lld",
				st->elapsed_s, dur, st->ops, st->fail, st->faults, st->samples, st->owned_procs, st->owned_rss_mib,
				st->owned_fds, st->owned_mounts);
			p->line_open = true;
		} else if (st->after_sample) {
			fprintf(stderr, "soak: t=%.1fs/%s ops=%lld fail=%lld faults=%lld samples=%lld owned_procs=%lld owned_rss_mib=%.1f owned_fds=%lld owned_mounts=%lld\n",
				st->elapsed_s, dur, st->ops, st->fail, st->faults, st->samples, st->owned_procs, st->owned_rss_mib,
				st->owned_fds, st->owned_mounts);
		}
		break;
	case SP_SOAK_EV_NOTE:
	case SP_SOAK_EV_DONE:
		fprintf(stderr, "%ssoak: %s\n", p->line_open ? "\n" : "", ev->text);
		p->line_open = false;
		break;
	case SP_SOAK_EV_VERIFY:
		if (p->line_open)
			fputc('\n', stderr);
		p->line_open = false;
		fputs(ev->text, stdout);
		fflush(stdout);
		break;
	}
	fflush(stderr);
}

static int parse_num(const char *opt, const char *v, long long lo, long long hi, long long *out)
{
	unsigned long long x;
	if (sp_parse_u64(v, &x) < 0 || x < (unsigned long long)lo || x > (unsigned long long)hi) {
		fprintf(stderr, "sandprobe: soak: %s must be an integer from %lld to %lld (got '%s')\n", opt, lo, hi, v);
		return -1;
	}
	*out = (long long)x;
	return 0;
}

static double process_cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* one sample of PREFIX/DIR, repeated: wall and CPU time of each, medians */
static int sample_once(const char *prefix, const char *state, long long repeat)
{
	sp_proc_raise_nofile();
	sp_soak_sampler *s = sp_sampler_new(getpid(), prefix, state);
	sp_soak_sample smp = {0};
	double *ms = sp_xcalloc((size_t)repeat, sizeof(double)), *cpu = sp_xcalloc((size_t)repeat, sizeof(double));
	double first = 0;
	for (long long i = 0; i < repeat; i++) {
		uint64_t t = sp_now_ns();
		double c = process_cpu_ms();
		sp_sampler_take(s, &smp);
		cpu[i] = process_cpu_ms() - c;
		ms[i] = (double)(sp_now_ns() - t) / 1e6;
		if (i == 0)
			first = ms[0];
	}
	qsort(ms, (size_t)repeat, sizeof(double), cmp_double);
	qsort(cpu, (size_t)repeat, sizeof(double), cmp_double);
	printf("owned_processes\towned_threads\towned_rss_bytes\towned_cpu_seconds\towned_fds\towned_mounts\towned_sockets\t"
	       "owned_cgroups\tdisk_bytes\tglobal_processes\tglobal_mounts\trunner_rss_bytes\trunner_fds\t"
	       "sample_ms_median\tsample_ms_first\tsample_ms_min\tsample_cpu_ms_median\n");
	printf("%lld\t%lld\t%lld\t%.3f\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%.3f\t%.3f\t%.3f\t%.3f\n",
	       smp.owned_processes, smp.owned_threads, smp.owned_rss_bytes, smp.owned_cpu_seconds, smp.owned_fds,
	       smp.owned_mounts, smp.owned_sockets, smp.owned_cgroups, smp.disk_bytes, smp.global_processes,
	       smp.global_mounts, smp.runner_rss_bytes, smp.runner_fds, ms[repeat / 2], first, ms[0], cpu[repeat / 2]);
	free(ms);
	free(cpu);
	sp_sampler_free(s);
	return SP_EXIT_OK;
}

int cmd_soak(int argc, char **argv)
{
	enum { O_WORKLOAD = 256, O_PROFILE, O_OUT, O_DURATION, O_INTERVAL, O_CONC, O_SEED, O_KEY, O_METRICS, O_QUIET,
	       O_SAMPLE_ONCE, O_PREFIX, O_STATE, O_REPEAT, O_LANE, O_ARTIFACT, O_RECONCILE };
	static const struct option lo[] = {
		{"workload", required_argument, NULL, O_WORKLOAD}, {"profile", required_argument, NULL, O_PROFILE},
		{"out", required_argument, NULL, O_OUT},           {"duration", required_argument, NULL, O_DURATION},
		{"sample-interval", required_argument, NULL, O_INTERVAL},
		{"concurrency", required_argument, NULL, O_CONC},  {"seed", required_argument, NULL, O_SEED},
		{"sign-key", required_argument, NULL, O_KEY},      {"metrics-file", required_argument, NULL, O_METRICS},
		{"quiet", no_argument, NULL, O_QUIET},             {"sample-once", no_argument, NULL, O_SAMPLE_ONCE},
		{"prefix", required_argument, NULL, O_PREFIX},     {"state", required_argument, NULL, O_STATE},
		{"repeat", required_argument, NULL, O_REPEAT},     {"help", no_argument, NULL, 'h'},
		{"lane", required_argument, NULL, O_LANE},         {"artifact", required_argument, NULL, O_ARTIFACT},
		{"reconcile", required_argument, NULL, O_RECONCILE},
		{NULL, 0, NULL, 0},
	};
	sp_soak_opts o = {.duration_s = -1, .sample_interval_s = -1};
	bool once = false, quiet = false;
	const char *reconcile = NULL;
	const char *prefix = NULL, *state = NULL;
	long long v, repeat = 1;
	const char *lane = NULL;
	_cleanup_free_ char **artifacts = NULL;
	size_t nartifacts = 0;
	int c;
	if (argc >= 2 && !strcmp(argv[1], "fault-proxy"))
		return sp_soak_fault_proxy_main(argc - 1, argv + 1); /* F05's proxy, run by a workload */
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "ho:q", lo, NULL)) != -1) {
		switch (c) {
		case O_WORKLOAD: o.workload = optarg; break;
		case O_PROFILE: o.profile = optarg; break;
		case 'o':
		case O_OUT: o.out = optarg; break;
		case O_DURATION:
			if (parse_num("--duration", optarg, 1, 10LL * 365 * 86400, &o.duration_s) < 0)
				return SP_EXIT_USAGE;
			break;
		case O_INTERVAL:
			if (parse_num("--sample-interval", optarg, 1, 86400, &o.sample_interval_s) < 0)
				return SP_EXIT_USAGE;
			break;
		case O_CONC:
			if (parse_num("--concurrency", optarg, 1, 256, &v) < 0)
				return SP_EXIT_USAGE;
			o.concurrency = (int)v;
			break;
		case O_SEED:
			if (parse_num("--seed", optarg, 0, 0x7fffffffffffffffLL, &v) < 0)
				return SP_EXIT_USAGE;
			o.seed = (unsigned long long)v;
			o.seed_set = true;
			break;
		case O_KEY: o.sign_key = optarg; break;
		case O_METRICS: o.metrics_file = optarg; break;
		case 'q':
		case O_QUIET: quiet = true; break;
		case O_RECONCILE: reconcile = optarg; break;
		case O_SAMPLE_ONCE: once = true; break;
		case O_PREFIX: prefix = optarg; break;
		case O_STATE: state = optarg; break;
		case O_REPEAT:
			if (parse_num("--repeat", optarg, 1, 100000, &repeat) < 0)
				return SP_EXIT_USAGE;
			break;
		case O_LANE: lane = optarg; break;
		case O_ARTIFACT:
			artifacts = sp_xrealloc(artifacts, (nartifacts + 1) * sizeof *artifacts);
			artifacts[nartifacts++] = optarg;
			break;
		case 'h': usage(stdout); return SP_EXIT_OK;
		case '?':
		default:
			if (optopt)
				fprintf(stderr, "sandprobe: soak: option '--%s' needs a value or is unknown (try --help)\n",
					argv[optind - 1] + (argv[optind - 1][0] == '-' && argv[optind - 1][1] == '-' ? 2 : 0));
			else
				fprintf(stderr, "sandprobe: soak: unknown option '%s' (try --help)\n", argv[optind - 1]);
			return SP_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sandprobe: soak: unexpected argument '%s'\n", argv[optind]);
		return SP_EXIT_USAGE;
	}
	if (once) {
		if (!prefix || !state) {
			fprintf(stderr, "sandprobe: soak: --sample-once needs --prefix and --state\n");
			return SP_EXIT_USAGE;
		}
		return sample_once(prefix, state, repeat);
	}
	if (reconcile) {
		if (o.workload || o.profile || o.out) {
			fprintf(stderr, "sandprobe: soak: --reconcile takes only the state root (try --help)\n");
			return SP_EXIT_USAGE;
		}
		sp_strv report = {0};
		sp_error err = {0};
		int rc = sp_soak_reconcile(reconcile, &report, &err);
		for (size_t i = 0; i < report.n; i++)
			if (!quiet || rc > 0)
				printf("%s\n", report.v[i]);
		sp_strv_free(&report);
		if (rc < 0)
			return sp_error_report(&err);
		return rc == 0 ? SP_EXIT_OK : SP_EXIT_FAIL;
	}
	if (!o.workload || !o.profile || !o.out) {
		fprintf(stderr, "sandprobe: soak: --workload, --profile and --out are required (try --help)\n");
		return SP_EXIT_USAGE;
	}
	sp_error err = {0};
	/* the gate's identity, checked (and files hashed) before anything starts */
	sp_gate_identity id;
	if (sp_identity_build(&id, lane, artifacts, nartifacts, &err) < 0) {
		sp_error_prefix(&err, "soak");
		return sp_error_report(&err);
	}
	_cleanup_free_ sp_soak_meta *meta = sp_xcalloc(id.n ? id.n : 1, sizeof *meta);
	for (size_t i = 0; i < id.n; i++)
		meta[i] = (sp_soak_meta){.key = id.key[i], .value = id.value[i]};
	o.extra_meta = meta;
	o.nextra_meta = id.n;
	struct progress p = {.quiet = quiet, .tty = isatty(2) && !quiet};
	o.sink = sink;
	o.sink_ctx = &p;
	int rc = sp_soak_run(&o, &err);
	sp_identity_free(&id);
	if (rc < 0) {
		if (p.line_open)
			fputc('\n', stderr);
		return sp_error_report(&err); /* its exit code: 2 bad input, 3 internal */
	}
	return rc;
}
