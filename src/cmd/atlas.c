/* sandprobe atlas: the threat-model crosswalk (MITRE ATLAS / ATT&CK) over
 * the checks compiled into this binary. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/common.h"
#include "core/error.h"
#include "core/util.h"
#include "report/atlas.h"

static void usage(FILE *f)
{
	fputs("usage: sandprobe atlas [--format text|json|md] [-o FILE] [-q]\n"
	      "\n"
	      "Prints the threat-model crosswalk: for each MITRE ATLAS " SP_ATLAS_RELEASE " and ATT&CK\n"
	      SP_ATTACK_RELEASE " technique relevant to sandboxes, and each layer (runtime escape,\n"
	      "egress filter, credentials, persistence, resource consumption): whether it is\n"
	      "reachable from inside, what stops it, which checks detect it, which prove the stop\n"
	      "by action, and why nothing covers it when nothing does.\n"
	      "\n"
	      "  --format F          text (default), json (sandprobe.atlas.v1), md (docs/threat-model-crosswalk.md)\n"
	      "  -o, --output FILE   write the crosswalk to FILE instead of standard output\n"
	      "  -q, --quiet         write nothing to standard output (-o FILE is still written)\n"
	      "\n"
	      "exit: 0 written, 2 usage error, 3 internal error (output not writable)\n",
	      f);
}

int cmd_atlas(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	sp_error err = {0};
	sp_atlas_format fmt = SP_ATLAS_TEXT;
	const char *output = NULL;
	bool quiet = false;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":ho:q", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (sp_atlas_format_parse(optarg, &fmt) < 0) {
				sp_usage(&err, "--format: unknown format '%s' (text, json, md)", optarg);
				return sp_error_report(&err);
			}
			break;
		case 'o': output = optarg; break;
		case 'q': quiet = true; break;
		case 'h': usage(stdout); return SP_EXIT_OK;
		case ':':
			sp_usage(&err, "%s: missing argument", argv[optind - 1]);
			return sp_error_report(&err);
		default:
			sp_usage(&err, "unknown option '%s' (try 'sandprobe atlas --help')", argv[optind - 1]);
			return sp_error_report(&err);
		}
	}
	if (optind < argc) {
		sp_usage(&err, "unexpected argument '%s'", argv[optind]);
		return sp_error_report(&err);
	}
	FILE *out = stdout;
	if (sp_output_open("atlas", output, &out, &err) < 0)
		return sp_error_report(&err);
	if (quiet && !output)
		out = sp_null_stream();
	if (sp_output_truncate("atlas", output, out, &err) < 0) {
		fclose(out);
		return sp_error_report(&err);
	}
	sp_atlas_items items = {0};
	sp_atlas_collect(&items);
	int rc = sp_atlas_write(out, fmt, &items);
	sp_atlas_items_free(&items);
	if (rc < 0) {
		if (out != stdout)
			fclose(out);
		sp_fail_errno(&err, -rc, "cannot write the crosswalk");
		return sp_error_report(&err);
	}
	if (sp_output_close("atlas", output, out, &err) < 0)
		return sp_error_report(&err);
	return SP_EXIT_OK;
}
