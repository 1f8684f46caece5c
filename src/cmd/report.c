/* sandprobe report: render an evidence bundle as one self-contained HTML
 * page. The verifier runs as a separate process for the gate table; when it
 * is unavailable the page says so and everything else still renders. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/common.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "report/bundle.h"
#include "report/html.h"
#include "report/verifier.h"

static void usage(FILE *f)
{
	fputs("usage: sandprobe report DIR [-o FILE.html] [--verify-timeout S] [-q]\n"
	      "\n"
	      "Renders the evidence bundle DIR as one self-contained HTML page (inline CSS,\n"
	      "charts as embedded SVG images, no scripts, no external resources): the verifier's gate table, resources\n"
	      "over time with warm-up and fault windows, latency percentiles and operation\n"
	      "rate per time window, capability and fault results, and the run's metadata.\n"
	      "\n"
	      "  -o, --output FILE      write the page to FILE (default: standard output)\n"
	      "  --verify-timeout S     seconds the verifier may take (default 600)\n"
	      "  -q, --quiet            no page on standard output (only reads the bundle, unless -o)\n"
	      "\n"
	      "exit: 0 page written, 2 usage error or malformed bundle (file:line named),\n"
	      "      3 internal error (output not writable)\n",
	      f);
}

struct page {
	const rp_bundle *b;
	const rp_verdict *v;
};

static int fill_page(FILE *f, void *ctx)
{
	const struct page *p = ctx;
	return rp_render_html(f, p->b, p->v);
}

static int write_page(const char *out, const rp_bundle *b, const rp_verdict *v, sp_error *err)
{
	if (!out) {
		int rc = rp_render_html(stdout, b, v);
		return rc < 0 ? sp_fail_errno(err, -rc, "cannot write the report to standard output") : 0;
	}
	/* a temporary file next to the target, renamed over it when complete */
	struct page p = {b, v};
	return sp_write_output(out, fill_page, &p, " the report", err);
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"verify-timeout", required_argument, NULL, 't'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	sp_error err = {0};
	const char *out = NULL;
	unsigned timeout_s = 600;
	bool quiet = false;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'q': quiet = true; break;
		case 't': {
			unsigned long long v;
			if (sp_parse_u64(optarg, &v) < 0 || v == 0 || v > 86400) {
				sp_usage(&err, "--verify-timeout: '%s' is not a number of seconds in 1..86400", optarg);
				return sp_error_report(&err);
			}
			timeout_s = (unsigned)v;
			break;
		}
		case 'h': usage(stdout); return SP_EXIT_OK;
		case ':':
			sp_usage(&err, "%s: missing argument", argv[optind - 1]);
			return sp_error_report(&err);
		default:
			sp_usage(&err, "unknown option '%s' (try 'sandprobe report --help')", argv[optind - 1]);
			return sp_error_report(&err);
		}
	}
	if (optind != argc - 1) {
		sp_usage(&err, optind >= argc ? "missing bundle directory (sandprobe report DIR [-o FILE.html])"
					      : "unexpected argument '%s'",
			 optind < argc ? argv[optind + 1] : "");
		return sp_error_report(&err);
	}
	const char *dir = argv[optind];
	struct stat st;
	if (stat(dir, &st) < 0) {
		sp_usage(&err, "report: bundle %s: %s", dir, strerror(errno));
		return sp_error_report(&err);
	}
	if (!S_ISDIR(st.st_mode)) {
		sp_usage(&err, "report: bundle %s: not a directory (a bundle is the directory soak --out wrote)", dir);
		return sp_error_report(&err);
	}
	if (sp_output_check("report", "--output", out, &err) < 0)
		return sp_error_report(&err);
	rp_bundle b;
	if (rp_bundle_load(&b, dir, &err) < 0)
		return sp_error_report(&err);
	if (quiet && !out) { /* the bundle was read and is valid: that is all that was asked */
		rp_bundle_free(&b);
		return SP_EXIT_OK;
	}
	rp_verdict v;
	rp_verify_run(dir, timeout_s, &v);
	int rc = write_page(out, &b, &v, &err);
	rp_verdict_free(&v);
	rp_bundle_free(&b);
	return rc < 0 ? sp_error_report(&err) : SP_EXIT_OK;
}
