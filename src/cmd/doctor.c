/* sandprobe doctor: argument parsing and wiring. Everything that can be
 * wrong with the input is found before any check runs (exit 2). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/dbundle.h"
#include "cmd/common.h"
#include "core/annotate.h"
#include "core/output.h"
#include "core/runner.h"
#include "core/select.h"
#include "core/util.h"
#include "checks/manifest.h"
#include "checks/registry.h"
#include "checks/runtime.h"

static void usage(FILE *f)
{
	fputs("usage: sandprobe doctor [--profile NAME | --policy FILE] [--set KEY=VALUE]...\n"
	      "                        [-k EXPR] [-x] [-v] [--strict] [--list]\n"
	      "                        [--format text|json|tap|junit] [-o FILE]\n"
	      "                        [--manifest FILE] [--timeout-ms N] [--bundle DIR]\n"
	      "                        [--fail-on fail|warn] [-q] [-j N]\n"
	      "\n"
	      "Runs the isolation and environment checks inside this sandbox and judges each\n"
	      "against a policy. Every check passes, fails, warns, skips or errors on its own.\n"
	      "\n"
	      "  --profile NAME    shipped policy: strict (AI-agent sandbox), container, host\n"
	      "  --policy FILE     policy file (INI; '[policy] base = strict' inherits a profile)\n"
	      "  --set KEY=VALUE   override one policy key, dotted form (net.egress.deny=...)\n"
	      "  -k EXPR           select checks: words joined by and/or/not/(); a word is\n"
	      "                    id:ID or cat:CATEGORY (exact; * ? [] glob: id:ns.*), a glob\n"
	      "                    (ns.* = whole id or category), or else a substring of id or\n"
	      "                    category ('ns' also selects seccomp.unshare, kernel.userns)\n"
	      "  -x                stop after the first failure\n"
	      "  -v                print evidence (expected/observed) for passing checks too\n"
	      "  --strict          a skipped check counts as a failure (release gates)\n"
	      "  --list            print the catalogue and each check's expectation, run nothing\n"
	      "  --format F        text (default), json (sandprobe.doctor.v1), tap, junit\n"
	      "  -o, --output FILE write the report to FILE instead of standard output\n"
	      "  --manifest FILE   JSON list of env vars and files the host injected (checked exactly)\n"
	      "  --timeout-ms N    timeout of each check and each batch, milliseconds (default 5000)\n"
	      "  -j N              run up to N checks at once (default: the online CPUs; 1: one\n"
	      "                    after the other, in catalogue order; -x and --bundle imply 1)\n"
	      "  --bundle DIR      also write an evidence tar into DIR: the report in every format,\n"
	      "                    each failing check's evidence (a timeout's load and busiest\n"
	      "                    processes), mountinfo, cmdline, kernel log; MANIFEST of SHA-256s\n"
	      "  --fail-on S       fail (default): FAIL and ERROR make the exit status 1; warn: WARN too\n"
	      "  -q, --quiet       no report on standard output (-o FILE is still written)\n"
	      "  --annotate github also print each FAIL/ERROR/WARN as a GitHub Actions workflow command\n"
	      "                    (::error title=...::...) on standard output\n"
	      "\n"
	      "Without --profile or --policy: the policy file $SANDPROBE_POLICY, else\n"
	      "/etc/sandprobe/policy.ini when it exists, else the strict profile.\n"
	      "Text output is coloured on a terminal unless $NO_COLOR is set.\n"
	      "\n"
	      "exit: 0 all passed, 1 a check failed or errored, 2 usage error, 3 internal error\n",
	      f);
}

static bool known_word(const char *w)
{
	for (size_t i = 0; i < sp_checks_count; i++)
		if (sp_kword_match(w, sp_checks[i]->id, sp_checks[i]->category))
			return true;
	return false;
}

struct doctor_opts {
	const char *profile, *policy_file, *kexpr, *format, *output, *manifest, *bundle;
	sp_strv sets;
	bool stop, verbose, strict, list, timeout_forced, quiet, fail_on_warn, annotate;
	unsigned timeout_ms;
	unsigned jobs;
};

static int parse_args(int argc, char **argv, struct doctor_opts *o, sp_error *err)
{
	enum { O_PROFILE = 256, O_POLICY, O_SET, O_STRICT, O_LIST, O_FORMAT, O_OUTPUT, O_MANIFEST, O_TIMEOUT, O_HELP,
	       O_BUNDLE, O_FAIL_ON, O_ANNOTATE };
	static const struct option longopts[] = {
		{"profile", required_argument, NULL, O_PROFILE}, {"policy", required_argument, NULL, O_POLICY},
		{"set", required_argument, NULL, O_SET},	 {"strict", no_argument, NULL, O_STRICT},
		{"list", no_argument, NULL, O_LIST},		 {"format", required_argument, NULL, O_FORMAT},
		{"output", required_argument, NULL, O_OUTPUT},	 {"manifest", required_argument, NULL, O_MANIFEST},
		{"timeout-ms", required_argument, NULL, O_TIMEOUT}, {"help", no_argument, NULL, O_HELP},
		{"verbose", no_argument, NULL, 'v'},		 {"exitfirst", no_argument, NULL, 'x'},
		{"bundle", required_argument, NULL, O_BUNDLE},
		{"quiet", no_argument, NULL, 'q'},		 {"fail-on", required_argument, NULL, O_FAIL_ON},
		{"annotate", required_argument, NULL, O_ANNOTATE},
		{NULL, 0, NULL, 0},
	};
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":k:o:j:xvqh", longopts, NULL)) != -1) {
		switch (c) {
		case O_PROFILE: o->profile = optarg; break;
		case O_POLICY: o->policy_file = optarg; break;
		case O_SET: sp_strv_push(&o->sets, optarg); break;
		case O_STRICT: o->strict = true; break;
		case O_LIST: o->list = true; break;
		case O_FORMAT: o->format = optarg; break;
		case O_OUTPUT: o->output = optarg; break;
		case O_MANIFEST: o->manifest = optarg; break;
		case O_BUNDLE: o->bundle = optarg; break;
		case O_TIMEOUT: {
			unsigned long long v;
			if (sp_parse_u64(optarg, &v) < 0 || v == 0 || v > 600000)
				return sp_usage(err, "--timeout-ms '%s': expected milliseconds between 1 and 600000", optarg);
			o->timeout_ms = (unsigned)v;
			o->timeout_forced = true;
			break;
		}
		case 'k': o->kexpr = optarg; break;
		case 'o': o->output = optarg; break;
		case 'q': o->quiet = true; break;
		case O_ANNOTATE:
			if (strcmp(optarg, "github"))
				return sp_usage(err, "doctor: --annotate '%s': expected github", optarg);
			o->annotate = true;
			break;
		case O_FAIL_ON:
			if (!strcmp(optarg, "warn"))
				o->fail_on_warn = true;
			else if (strcmp(optarg, "fail"))
				return sp_usage(err, "doctor: --fail-on '%s': expected fail or warn", optarg);
			break;
		case 'x': o->stop = true; break;
		case 'j': {
			char *end = NULL;
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (errno || !end || *end || optarg[0] < '1' || optarg[0] > '9' || v > 64)
				return sp_usage(err, "doctor: -j '%s': expected a number of checks between 1 and 64", optarg);
			o->jobs = (unsigned)v;
			break;
		}
		case 'v': o->verbose = true; break;
		case 'h':
		case O_HELP: return 1;
		case ':': return sp_usage(err, "doctor: option '%s' needs a value", argv[optind - 1]);
		default: return sp_usage(err, "doctor: unknown option '%s' (see 'sandprobe doctor --help')", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return sp_usage(err, "doctor: unexpected argument '%s'", argv[optind]);
	if (o->profile && o->policy_file)
		return sp_usage(err, "doctor: --profile and --policy exclude each other (use '[policy] base = NAME')");
	return 0;
}

int cmd_doctor(int argc, char **argv)
{
	sp_error err;
	sp_error_clear(&err);
	struct doctor_opts o = {.timeout_ms = 5000, .format = "text"};
	sp_strv_split(&o.sets, NULL, ",");
	int rc = SP_EXIT_OK;
	sp_policy policy;
	sp_policy_init(&policy, &sp_doctor_registry);
	sp_kexpr *k = NULL;
	FILE *out = stdout;
	const sp_check **sel = NULL;
	void *manifest = NULL;
	sp_dbundle *bundle = NULL;

	int pr = parse_args(argc, argv, &o, &err);
	if (pr == 1) {
		usage(stdout);
		goto done;
	}
	if (pr < 0)
		goto fail;
	sp_format fmt;
	if (sp_format_parse(o.format, &fmt) < 0) {
		sp_usage(&err, "doctor: --format '%s': expected text, json, tap or junit", o.format);
		goto fail;
	}
	const char *found = NULL;
	if (!o.policy_file && !o.profile)
		o.policy_file = sp_policy_discover(&found);
	if (o.policy_file ? sp_policy_load_file(&policy, o.policy_file, &err) < 0
			  : sp_policy_load_profile(&policy, o.profile ? o.profile : "strict", &err) < 0) {
		if (found)
			sp_error_prefix(&err, "doctor: policy from %s", found);
		goto fail;
	}
	for (size_t i = 0; i < o.sets.n; i++)
		if (sp_policy_set(&policy, o.sets.v[i], &err) < 0)
			goto fail;
	if (o.kexpr && sp_kexpr_parse(o.kexpr, known_word, &k, &err) < 0)
		goto fail;
	if (o.manifest && sp_input_check("doctor", "--manifest", o.manifest, &err) < 0)
		goto fail;
	if (o.manifest && sp_manifest_load(o.manifest, &manifest, &err) < 0)
		goto fail;
	if (o.bundle && !o.list && sp_dbundle_open(&bundle, o.bundle, &err) < 0)
		goto fail;
	sel = sp_xcalloc(sp_checks_count + 1, sizeof *sel);
	size_t nsel = 0, nmatched = 0;
	for (size_t i = 0; i < sp_checks_count; i++) {
		const sp_check *c = sp_checks[i];
		if (k && !sp_kexpr_match(k, c->id, c->category))
			continue;
		nmatched++;
		if (!o.list && sp_policy_expect(&policy, c->id) == SP_EXPECT_OFF)
			continue;
		sel[nsel++] = c;
	}
	/* nothing selected is no verdict: a run of zero checks must not PASS */
	if (nsel == 0) {
		const char *pname = policy.name ? policy.name : "custom";
		if (k && nmatched == 0)
			sp_usage(&err, "doctor: -k '%s' selects no check", o.kexpr);
		else if (k)
			sp_usage(&err, "doctor: -k '%s' selects no check that policy '%s' runs (%zu matched, all 'off' there)",
				 o.kexpr, pname, nmatched);
		else
			sp_usage(&err, "doctor: policy '%s' runs no check (every check is 'off')", pname);
		goto fail;
	}
	if (o.quiet && !o.output) {
		out = sp_null_stream(); /* no /dev/null needed: the sandbox may have no /dev */
	} else if (o.output) {
		/* open without truncating first: an unwritable path fails before any check runs */
		int fd = open(o.output, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
		if (fd < 0) {
			sp_usage(&err, "doctor: --output %s: %s", o.output, strerror(errno));
			goto fail;
		}
		out = fdopen(fd, "w");
		if (!out) {
			close(fd);
			sp_fail_errno(&err, errno, "doctor: --output %s", o.output);
			goto fail;
		}
	}

	sp_ctx ctx = {.policy = &policy,
		      .profile = policy.name ? policy.name : "custom",
		      .manifest_path = o.manifest,
		      .manifest = manifest,
		      .verbose = o.verbose,
		      .timeout_ms = o.timeout_ms};
	if (o.output && ftruncate(fileno(out), 0) < 0) {
		sp_fail_errno(&err, errno, "doctor: --output %s", o.output);
		goto fail;
	}
	if (o.list) {
		if (sp_write_list(out, fmt, &ctx, sel, nsel) < 0 || fflush(out) != 0) {
			sp_fail_errno(&err, errno, "doctor: cannot write the list");
			goto fail;
		}
		goto done;
	}
	sp_doctor_run_opts ro = {.strict = o.strict, .stop_on_fail = o.stop, .timeout_forced = o.timeout_forced};
	ro.jobs = o.jobs ? o.jobs : sp_run_default_jobs();
	sp_report rep;
	sp_env env;
	sp_env_fill(&ctx, &env); /* the kernel boundary and the runtime guess */
	if (bundle)
		sp_set_timeout_hook(sp_dbundle_on_timeout, bundle);
	sp_run(&ctx, &env, sel, nsel, &ro, &rep);
	sp_set_timeout_hook(NULL, NULL);
	if (o.fail_on_warn && rep.sum.warn)
		rep.failed = true;
	sp_output_set_color(fmt == SP_FMT_TEXT && out == stdout && sp_color_auto(stdout));
	int w = sp_write_report(out, fmt, &ctx, &rep, o.verbose, o.strict);
	if (o.annotate) {
		sp_gh_annotate_report(stdout, &rep);
		fflush(stdout);
	}
	/* all selected checks skipped: a verdict, and not a pass */
	rc = rep.failed || sp_report_nothing_proven(&rep) ? SP_EXIT_FAIL : SP_EXIT_OK;
	if (bundle) {
		char tar[4096];
		if (sp_dbundle_write(bundle, &ctx, &rep, o.strict, tar, sizeof tar, &err) < 0) {
			sp_report_free(&rep);
			goto fail;
		}
		fprintf(stderr, "evidence bundle %s\n", tar);
	}
	sp_report_free(&rep);
	if (w < 0) {
		sp_fail_errno(&err, -w, "doctor: cannot write the report");
		goto fail;
	}
	goto done;
fail:
	rc = sp_error_report(&err);
done:
	if (out && out != stdout && fclose(out) != 0 && rc == SP_EXIT_OK && o.output) {
		fprintf(stderr, "sandprobe: doctor: cannot write %s: %s\n", o.output, strerror(errno));
		rc = SP_EXIT_INTERNAL;
	}
	free(sel);
	sp_manifest_free(manifest);
	sp_dbundle_free(bundle);
	sp_kexpr_free(k);
	sp_policy_free(&policy);
	sp_strv_free(&o.sets);
	return rc;
}
