/* sandprobe gate: argument parsing and wiring only; the decision lives in
 * src/gate/. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "evidence/evidence.h"
#include "gate/gate.h"
#include "gate/plan.h"

static void usage(FILE *f)
{
	fputs("usage: sandprobe gate --plan PLAN [options] BUNDLE|DIR...\n"
	      "       sandprobe gate --from-archive DIR [--pubkey FILE] [--format FMT] [-o FILE]\n"
	      "\n"
	      "May this release candidate be promoted? Verifies every bundle (the plan's key\n"
	      "required when it names one), matches each to its cell (scenario x lane x profile)\n"
	      "by its own metadata and decides every cell: pass, fail, missing, expired,\n"
	      "wrong-candidate, wrong-lane, superseded or blocked (promotion order R0 -> G2 -> R24\n"
	      "-> E72). A DIR without metadata.txt holds bundles (each subdirectory, hidden ones\n"
	      "too; other entries are listed as skipped). See\n"
	      "sandprobe-gate(1) and docs/plan-format.md.\n"
	      "\n"
	      "  --plan FILE            the release plan (YAML)\n"
	      "  --at TIME              decide at this UTC time (2026-08-05T12:00:00Z; default now;\n"
	      "                         never in the future)\n"
	      "  --format FMT           text (default), json (sandprobe.gate.v1), junit, html\n"
	      "  -q, --quiet            no decision on standard output (-o FILE is still written);\n"
	      "                         the exit status says it\n"
	      "  -o, --output FILE      write there instead of standard output; with html, each\n"
	      "                         bundle's report goes to reports/ beside FILE, linked from its cells\n"
	      "  --archive DIR          retain the plan, the bundles, the decision and the reports\n"
	      "                         in DIR (new) under a MANIFEST, proven to re-decide the same\n"
	      "  --sign-key FILE        sign the archive's MANIFEST (Ed25519 PEM, sandprobe keygen)\n"
	      "  --from-archive DIR     re-make an archived decision from the archive alone\n"
	      "  --pubkey FILE          with --from-archive: the archive's MANIFEST.sig must verify\n"
	      "\n"
	      "exit: 0 every required cell passes, 1 a cell does not (or the archive does not\n"
	      "      reproduce its decision: result not-reproduced), 2 usage error or bad plan\n"
	      "      (FILE:LINE named),\n"
	      "      3 internal error\n",
	      f);
}

enum fmt { F_TEXT, F_JSON, F_JUNIT, F_HTML };

static int write_out(const sp_gate_decision *d, enum fmt fm, FILE *f, const char *report_dir)
{
	switch (fm) {
	case F_TEXT: return sp_gate_write_text(f, d);
	case F_JSON: return sp_gate_write_json(f, d);
	case F_JUNIT: return sp_gate_write_junit(f, d);
	case F_HTML: break;
	}
	return sp_gate_write_html(f, d, report_dir);
}

struct out {
	const sp_gate_decision *d;
	enum fmt fm;
	const char *report_dir;
};

static int fill_out(FILE *f, void *ctx)
{
	const struct out *o = ctx;
	return write_out(o->d, o->fm, f, o->report_dir);
}

/* the output, written to a temporary file and renamed when complete */
static int emit(const sp_gate_decision *d, enum fmt fm, const char *out, bool quiet, sp_error *err)
{
	if (!out && quiet)
		return 0;
	if (!out) {
		int rc = write_out(d, fm, stdout, NULL);
		return rc < 0 ? sp_fail_errno(err, -rc, "cannot write to standard output") : 0;
	}
	const char *report_dir = NULL;
	if (fm == F_HTML) {
		_cleanup_free_ char *copy = sp_xstrdup(out);
		_cleanup_free_ char *rd = sp_xasprintf("%s/reports", dirname(copy));
		if (sp_gate_write_reports(d, rd, err) < 0)
			return -1;
		report_dir = "reports";
	}
	struct out o = {d, fm, report_dir};
	return sp_write_output(out, fill_out, &o, "", err);
}

int cmd_gate(int argc, char **argv)
{
	enum { O_PLAN = 256, O_AT, O_FORMAT, O_ARCHIVE, O_SIGN, O_FROM, O_PUBKEY };
	static const struct option lo[] = {
		{"plan", required_argument, NULL, O_PLAN},       {"at", required_argument, NULL, O_AT},
		{"format", required_argument, NULL, O_FORMAT},   {"output", required_argument, NULL, 'o'},
		{"archive", required_argument, NULL, O_ARCHIVE}, {"sign-key", required_argument, NULL, O_SIGN},
		{"from-archive", required_argument, NULL, O_FROM}, {"pubkey", required_argument, NULL, O_PUBKEY},
		{"quiet", no_argument, NULL, 'q'},               {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	sp_error err = {0};
	const char *plan_path = NULL, *at = NULL, *format = "text", *out = NULL, *archive = NULL, *sign = NULL,
		   *from = NULL, *pubkey = NULL;
	bool quiet = false;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":o:qh", lo, NULL)) != -1) {
		switch (c) {
		case O_PLAN: plan_path = optarg; break;
		case O_AT: at = optarg; break;
		case O_FORMAT: format = optarg; break;
		case 'o': out = optarg; break;
		case 'q': quiet = true; break;
		case O_ARCHIVE: archive = optarg; break;
		case O_SIGN: sign = optarg; break;
		case O_FROM: from = optarg; break;
		case O_PUBKEY: pubkey = optarg; break;
		case 'h': usage(stdout); return SP_EXIT_OK;
		case ':':
			sp_usage(&err, "gate: %s needs a value", argv[optind - 1]);
			return sp_error_report(&err);
		default:
			sp_usage(&err, "gate: unknown option '%s' (try 'sandprobe gate --help')", argv[optind - 1]);
			return sp_error_report(&err);
		}
	}
	enum fmt fm;
	if (!strcmp(format, "text"))
		fm = F_TEXT;
	else if (!strcmp(format, "json"))
		fm = F_JSON;
	else if (!strcmp(format, "junit"))
		fm = F_JUNIT;
	else if (!strcmp(format, "html"))
		fm = F_HTML;
	else {
		sp_usage(&err, "gate: --format %s: not text, json, junit or html", format);
		return sp_error_report(&err);
	}
	if (out && !*out) {
		sp_usage(&err, "gate: -o: empty file name");
		return sp_error_report(&err);
	}

	sp_gate_plan plan;
	sp_gate_decision d;
	bool same = true;
	char diff[600] = "";
	if (from) {
		if (plan_path || at || archive || sign || optind < argc) {
			sp_usage(&err, "gate: --from-archive takes no --plan, --at, --archive, --sign-key or bundles (the archive holds them)");
			return sp_error_report(&err);
		}
		void *pk = NULL;
		sp_error kerr;
		if (pubkey && sp_pubkey_load(&pk, pubkey, &kerr) < 0) {
			sp_usage(&err, "gate: %s", kerr.msg);
			return sp_error_report(&err);
		}
		int rc = sp_gate_from_archive(from, pk, fm == F_HTML && out, &plan, &d, &same, diff, sizeof diff, &err);
		sp_pubkey_free(pk);
		if (rc < 0) {
			sp_error_prefix(&err, "gate: --from-archive %s", from);
			return sp_error_report(&err);
		}
	} else {
		if (pubkey) {
			sp_usage(&err, "gate: --pubkey goes with --from-archive (bundles are checked with the plan's signing.pubkey)");
			return sp_error_report(&err);
		}
		if (!plan_path) {
			sp_usage(&err, "gate: missing --plan FILE (usage: sandprobe gate --plan PLAN BUNDLE|DIR...)");
			return sp_error_report(&err);
		}
		if (optind >= argc) {
			sp_usage(&err, "gate: no bundle or directory of bundles given");
			return sp_error_report(&err);
		}
		if (sign && !archive) {
			sp_usage(&err, "gate: --sign-key signs an archive: it needs --archive DIR");
			return sp_error_report(&err);
		}
		time_t now = time(NULL);
		sp_gate_opts o = {.at = now, .now = now, .keep_verdicts = fm == F_HTML && out};
		if (at && sp_gate_parse_time(at, &o.at) < 0) {
			sp_usage(&err, "gate: --at %s: not a UTC time like 2026-08-05T12:00:00Z", at);
			return sp_error_report(&err);
		}
		if (o.at > now + SP_GATE_CLOCK_SKEW_S) {
			char t[32];
			sp_gate_format_time(now, t, sizeof t);
			sp_usage(&err, "gate: --at %s: in the future (now is %s): evidence cannot be judged at a time that has not come", at,
				 t);
			return sp_error_report(&err);
		}
		void *sk = NULL;
		if (archive) {
			struct stat st;
			if (lstat(archive, &st) == 0) {
				sp_usage(&err, "gate: --archive %s: exists (an archive is never overwritten)", archive);
				return sp_error_report(&err);
			}
			o.keep_verdicts = true;
			sp_error kerr;
			if (sign && sp_privkey_load(&sk, sign, &kerr) < 0) {
				sp_usage(&err, "gate: %s", kerr.msg);
				return sp_error_report(&err);
			}
		}
		if (sp_plan_load(&plan, plan_path, &err) < 0) {
			sp_pubkey_free(sk);
			return sp_error_report(&err);
		}
		char **dirs, **skipped;
		size_t ndirs, nskipped;
		if (sp_gate_collect(argv + optind, (size_t)(argc - optind), &dirs, &ndirs, &skipped, &nskipped, &err) < 0) {
			sp_pubkey_free(sk);
			sp_plan_free(&plan);
			sp_error_prefix(&err, "gate");
			return sp_error_report(&err);
		}
		o.skipped = skipped;
		o.nskipped = nskipped;
		int rc = sp_gate_decide(&plan, dirs, ndirs, &o, NULL, &d, &err);
		sp_gate_dirs_free(dirs, ndirs);
		sp_gate_dirs_free(skipped, nskipped);
		if (rc == 0 && archive && sp_gate_archive(&d, archive, sk, &err) < 0) {
			sp_decision_free(&d);
			rc = -1;
		}
		sp_pubkey_free(sk);
		if (rc < 0) {
			sp_plan_free(&plan);
			sp_error_prefix(&err, "gate");
			return sp_error_report(&err);
		}
	}
	int rc = emit(&d, fm, out, quiet, &err);
	int code = d.pass && same ? SP_EXIT_OK : SP_EXIT_FAIL;
	if (rc == 0 && from) {
		if (same)
			fprintf(stderr, "sandprobe: gate: %s: the re-made decision equals the archived one (%s)\n", from,
				d.pass ? "pass" : "fail");
		else
			fprintf(stderr, "sandprobe: gate: %s: the re-made decision differs from the archived one: %s\n", from,
				diff);
	}
	sp_decision_free(&d);
	sp_plan_free(&plan);
	if (rc < 0) {
		sp_error_prefix(&err, "gate");
		return sp_error_report(&err);
	}
	return code;
}
