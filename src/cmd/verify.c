/* sandprobe verify: argument parsing and wiring only; the gates live in
 * src/evidence/. */
#include <dirent.h>
#include <sys/stat.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "core/util.h"
#include "cmd/common.h"
#include "evidence/ev_ci.h"
#include "a3s/a3s.h"
#include "evidence/evidence.h"
#include "verify/verify.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: sandprobe verify DIR [--profile NAME] [--baseline FILE] [--pubkey FILE]\n"
		   "                        [--format text|json|junit|tap] [-o FILE]\n"
		   "       sandprobe verify --format a3s DIR [--kind host|cluster|auto] [--allow-dry-run]\n"
		   "                        [--min-duration-secs N] [--min-samples N] [--min-sample-span-secs N]\n"
		   "                        [--max-sample-gap-secs N] [--profile G2|R24|E72]\n"
		   "       sandprobe verify --emit-baseline FILE DIR [--pubkey FILE]\n"
		   "       sandprobe verify --self-test [--verbose]\n\n"
		   "Judge an evidence bundle (docs/evidence-format.md) against every hard gate of\n"
		   "its contract, or an A3S Box host or cluster bundle by A3S's own rules and ours.\n"
		   "Exit 0 when every gate passes, 1 when any fails, 2 usage, 3 internal.\n"
		   "  --profile NAME        also judge against R0, G2, R24 or E72 (the stricter threshold wins)\n"
		   "  --baseline FILE       calibrated latency baseline (from --emit-baseline): p95 gate per scenario\n"
		   "  --pubkey FILE         Ed25519 PEM public key: MANIFEST.sig must be a valid signature\n"
		   "  --format F            text (default), json (schema sandprobe.verify.v1), junit, tap;\n"
		   "                        a3s: the bundle is an A3S one, text output (--input a3s --format F\n"
		   "                        for the other formats)\n"
		   "  --input auto|sandprobe|a3s  the bundle's kind (default auto: by its metadata.txt)\n"
		   "  -o, --output FILE     write the verdict to FILE instead of standard output\n"
		   "  -q, --quiet           no verdict on standard output (the exit status; -o FILE is still written)\n"
		   "  --kind, --allow-dry-run, --min-duration-secs, --min-samples, --min-sample-span-secs,\n"
		   "  --max-sample-gap-secs  A3S bundles: as verify-soak-evidence.sh takes them\n"
		   "  --emit-baseline FILE  write the bundle's post-warm-up p50/p95/p99 per scenario (only if it passes)\n"
		   "  --self-test           check the verifier against synthetic bundles, one per way of being wrong\n"
		   "  -v, --verbose         --self-test: print every case\n");
}

/* the bundle operand: an existing, non-empty directory (a partial bundle is
 * judged by the gates; no bundle at all is a usage error) */
static int bundle_dir_check(const char *dir, sp_error *err)
{
	struct stat st;
	if (stat(dir, &st) < 0)
		return sp_usage(err, "verify: %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return sp_usage(err, "verify: %s: not a directory (a bundle is the directory soak --out wrote)", dir);
	DIR *d = opendir(dir);
	if (!d)
		return sp_usage(err, "verify: %s: %s", dir, strerror(errno));
	bool any = false;
	for (struct dirent *e; !any && (e = readdir(d));)
		any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	if (!any)
		return sp_usage(err, "verify: %s: an empty directory, no bundle in it", dir);
	return 0;
}

/* the four A3S number gates: O_MIN_DUR + k is a3s_flag[k] */
static const char *const a3s_flag[4] = {"--min-duration-secs", "--min-samples", "--min-sample-span-secs",
					"--max-sample-gap-secs"};

struct vargs {
	const char *dir, *profile, *baseline, *pubkey, *format, *emit, *output, *input, *kind, *a3s_num[4];
	bool selftest, verbose, quiet, allow_dry;
};

/* the command line into a: 0, 1 after --help, -1 with err */
static int parse_args(int argc, char **argv, struct vargs *a, sp_error *err)
{
	enum {
		O_MIN_DUR = 256,
		O_MIN_SAMPLES,
		O_MIN_SPAN,
		O_MAX_GAP,
		O_SELFTEST,
		O_ALLOW_DRY,
		O_PROFILE,
		O_BASELINE,
		O_PUBKEY,
		O_FORMAT,
		O_EMIT,
		O_INPUT,
		O_KIND,
	};
	static const struct option lo[] = {
		{"help", no_argument, NULL, 'h'},
		{"quiet", no_argument, NULL, 'q'},
		{"verbose", no_argument, NULL, 'v'},
		{"output", required_argument, NULL, 'o'},
		{"self-test", no_argument, NULL, O_SELFTEST},
		{"allow-dry-run", no_argument, NULL, O_ALLOW_DRY},
		{"min-duration-secs", required_argument, NULL, O_MIN_DUR},
		{"min-samples", required_argument, NULL, O_MIN_SAMPLES},
		{"min-sample-span-secs", required_argument, NULL, O_MIN_SPAN},
		{"max-sample-gap-secs", required_argument, NULL, O_MAX_GAP},
		{"profile", required_argument, NULL, O_PROFILE},
		{"baseline", required_argument, NULL, O_BASELINE},
		{"pubkey", required_argument, NULL, O_PUBKEY},
		{"format", required_argument, NULL, O_FORMAT},
		{"emit-baseline", required_argument, NULL, O_EMIT},
		{"input", required_argument, NULL, O_INPUT},
		{"kind", required_argument, NULL, O_KIND},
		{NULL, 0, NULL, 0},
	};
	*a = (struct vargs){.format = "text", .input = "auto"};
	optind = 1;
	opterr = 0;
	int c, li = -1;
	while ((c = getopt_long(argc, argv, ":hqvo:", lo, &li)) != -1) {
		const char *name = li >= 0 ? lo[li].name : NULL;
		li = -1;
		if (optarg && !*optarg)
			return sp_usage(err, "verify: --%s: empty value", name ? name : "output");
		switch (c) {
		case 'h': usage(stdout); return 1;
		case 'q': a->quiet = true; break;
		case 'v': a->verbose = true; break;
		case 'o': a->output = optarg; break;
		case O_SELFTEST: a->selftest = true; break;
		case O_ALLOW_DRY: a->allow_dry = true; break;
		case O_MIN_DUR:
		case O_MIN_SAMPLES:
		case O_MIN_SPAN:
		case O_MAX_GAP: a->a3s_num[c - O_MIN_DUR] = optarg; break;
		case O_PROFILE: a->profile = optarg; break;
		case O_BASELINE: a->baseline = optarg; break;
		case O_PUBKEY: a->pubkey = optarg; break;
		case O_FORMAT: a->format = optarg; break;
		case O_EMIT: a->emit = optarg; break;
		case O_INPUT: a->input = optarg; break;
		case O_KIND: a->kind = optarg; break;
		case ':': return sp_usage(err, "verify: %s needs a value", argv[optind - 1]);
		default:
			return sp_usage(err, "verify: unknown option '%s' (try 'sandprobe verify --help')", argv[optind - 1]);
		}
	}
	for (int i = optind; i < argc; i++) {
		if (a->dir)
			return sp_usage(err, "verify: more than one bundle directory ('%s' and '%s')", a->dir, argv[i]);
		a->dir = argv[i];
	}
	return 0;
}

int cmd_verify(int argc, char **argv)
{
	sp_error err = {0};
	struct vargs a;
	int pr = parse_args(argc, argv, &a, &err);
	if (pr < 0)
		return sp_error_report(&err);
	if (pr > 0)
		return SP_EXIT_OK;
	const char *dir = a.dir, *profile = a.profile, *baseline = a.baseline, *pubkey = a.pubkey, *format = a.format,
		   *emit = a.emit, *output = a.output, *input = a.input, *kind = a.kind, *const *a3s_num = a.a3s_num;
	bool selftest = a.selftest, verbose = a.verbose, quiet = a.quiet, allow_dry = a.allow_dry;
	if (strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "junit") && strcmp(format, "tap") &&
	    strcmp(format, "a3s")) {
		sp_usage(&err, "verify: --format %s: not text, json, junit, tap or a3s", format);
		return sp_error_report(&err);
	}
	if (strcmp(input, "auto") && strcmp(input, "sandprobe") && strcmp(input, "a3s")) {
		sp_usage(&err, "verify: --input %s: not auto, sandprobe or a3s", input);
		return sp_error_report(&err);
	}
	if (!strcmp(format, "a3s")) {
		if (!strcmp(input, "sandprobe")) {
			sp_usage(&err, "verify: --format a3s and --input sandprobe exclude each other");
			return sp_error_report(&err);
		}
		input = "a3s";
		format = "text";
	}
	sp_ev_a3s_opts ao = {0};
	bool a3s_opts = allow_dry || kind;
	if (kind && strcmp(kind, "auto")) {
		if (!strcmp(kind, "host"))
			ao.kind = SP_A3S_HOST;
		else if (!strcmp(kind, "cluster"))
			ao.kind = SP_A3S_CLUSTER;
		else {
			sp_usage(&err, "verify: --kind %s: not host, cluster or auto", kind);
			return sp_error_report(&err);
		}
	}
	ao.allow_dry_run = allow_dry;
	long long *nums[4] = {&ao.min_duration_s, &ao.min_samples, &ao.min_span_s, &ao.max_gap_s};
	for (int k = 0; k < 4; k++) {
		if (!a3s_num[k])
			continue;
		a3s_opts = true;
		if (sp_ev_parse_int(a3s_num[k], strlen(a3s_num[k]), nums[k]) < 0) {
			sp_usage(&err, "verify: %s %s: not a non-negative integer", a3s_flag[k], a3s_num[k]);
			return sp_error_report(&err);
		}
	}
	if (selftest) {
		if (dir || profile || baseline || pubkey || emit || a3s_opts) {
			sp_usage(&err, "verify: --self-test takes no bundle or other options");
			return sp_error_report(&err);
		}
		return sp_verify_selftest(stdout, verbose) == 0 ? SP_EXIT_OK : SP_EXIT_FAIL;
	}
	if (!dir) {
		sp_usage(&err, "verify: missing bundle directory (usage: sandprobe verify DIR [options])");
		return sp_error_report(&err);
	}
	if (bundle_dir_check(dir, &err) < 0)
		return sp_error_report(&err);
	if (emit && baseline) {
		sp_usage(&err, "verify: --emit-baseline and --baseline exclude each other");
		return sp_error_report(&err);
	}

	enum sp_input in = !strcmp(input, "a3s") ? SP_INPUT_A3S : !strcmp(input, "sandprobe") ? SP_INPUT_SANDPROBE
											  : sp_input_detect(dir);
	if (in == SP_INPUT_A3S && (baseline || pubkey || emit)) {
		sp_usage(&err, "verify: %s is an A3S bundle: --baseline, --pubkey and --emit-baseline are for sandprobe bundles", dir);
		return sp_error_report(&err);
	}
	if (in != SP_INPUT_A3S && a3s_opts) {
		sp_usage(&err, "verify: %s is not an A3S bundle: --kind, --allow-dry-run and the --min-*/--max-* gates are for A3S bundles (--format a3s)",
			 dir);
		return sp_error_report(&err);
	}
	sp_ev_verify_opts o = {.profile = profile, .input = in, .a3s = &ao};
	sp_ev_baseline base = {0};
	sp_error lerr;
	if (baseline) {
		if (sp_baseline_load(&base, baseline, &lerr) < 0) {
			sp_usage(&err, "verify: --baseline %s", lerr.msg);
			return sp_error_report(&err);
		}
		o.baseline = &base;
	}
	if (pubkey && sp_pubkey_load(&o.pubkey, pubkey, &lerr) < 0) {
		sp_baseline_free(&base);
		sp_usage(&err, "verify: %s", lerr.msg);
		return sp_error_report(&err);
	}
	FILE *out = stdout;
	if (sp_output_check("verify", "--emit-baseline", emit, &err) < 0) {
		sp_baseline_free(&base);
		sp_pubkey_free(o.pubkey);
		return sp_error_report(&err);
	}
	if (sp_output_open("verify", output, &out, &err) < 0) {
		sp_baseline_free(&base);
		sp_pubkey_free(o.pubkey);
		return sp_error_report(&err);
	}
	if (quiet && !output)
		out = sp_null_stream();
	sp_ev_verdict v;
	int rc = sp_verify(dir, &o, &v, &err);
	sp_baseline_free(&base);
	sp_pubkey_free(o.pubkey);
	if (rc < 0) {
		if (out != stdout)
			fclose(out);
		sp_error_prefix(&err, "verify");
		return sp_error_report(&err);
	}
	/* a passing bundle without post-warm-up latencies (R0: one cycle, no
	 * warm-up to end) cannot calibrate a baseline: say so instead of a PASS
	 * report followed by nothing written */
	if (emit && !v.nfail && v.lat.n == 0) {
		if (out != stdout)
			fclose(out);
		sp_verdict_free(&v);
		sp_usage(&err, "verify: --emit-baseline %s: %s has no post-warm-up latencies to calibrate from (an R0 run "
			       "has none; use a G2 run or a soak --duration run): nothing written",
			 emit, dir);
		return sp_error_report(&err);
	}
	if (sp_output_truncate("verify", output, out, &err) < 0) {
		fclose(out);
		sp_verdict_free(&v);
		return sp_error_report(&err);
	}
	if (!strcmp(format, "json"))
		sp_verdict_print_json(&v, out);
	else if (!strcmp(format, "junit"))
		sp_verdict_print_junit(&v, out);
	else if (!strcmp(format, "tap"))
		sp_verdict_print_tap(&v, out);
	else
		sp_verdict_print_text(&v, out);
	if (sp_output_close("verify", output, out, &err) < 0) {
		sp_verdict_free(&v);
		return sp_error_report(&err);
	}
	int exit_code = v.nfail ? SP_EXIT_FAIL : SP_EXIT_OK;
	if (emit) {
		if (v.nfail) {
			fprintf(stderr, "sandprobe: verify: %s fails %zu gate(s): no baseline written to %s\n", dir, v.nfail,
				emit);
		} else if (sp_baseline_write(&v, emit, &err) < 0) {
			sp_verdict_free(&v);
			sp_error_prefix(&err, "verify: --emit-baseline");
			return sp_error_report(&err);
		}
	}
	sp_verdict_free(&v);
	return exit_code;
}
