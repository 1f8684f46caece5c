/* sandprobe import: argument parsing and wiring only; the mapping lives in
 * src/a3s/a3s_import.c. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "a3s/a3s.h"
#include "cmd/cmd.h"
#include "core/error.h"
#include "core/util.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: sandprobe import a3s DIR OUT [--kind host|cluster|auto]\n\n"
		   "Turn an A3S Box soak evidence bundle (host or RuntimeClass cluster) into a\n"
		   "sandprobe.evidence.v1 bundle in OUT (new or empty) that 'sandprobe report' can draw.\n"
		   "What A3S records is mapped; what it does not is marked absent ('-', listed in\n"
		   "metadata.txt 'absent='), never invented, so 'sandprobe verify OUT' names what is\n"
		   "missing. Judge the A3S bundle itself with 'sandprobe verify --format a3s DIR'.\n\n"
		   "  --kind host|cluster|auto  the A3S bundle's kind (default auto: runtime_class in its\n"
		   "                            metadata means cluster, selected_suites host)\n\n"
		   "Exit 0 written, 2 usage or unreadable input, 3 internal.\n");
}

int cmd_import(int argc, char **argv)
{
	sp_error err = {0};
	const char *pos[3] = {NULL, NULL, NULL}, *kind = "auto";
	int npos = 0;
	enum { O_KIND = 256 };
	static const struct option lo[] = {
		{"help", no_argument, NULL, 'h'},
		{"kind", required_argument, NULL, O_KIND},
		{NULL, 0, NULL, 0},
	};
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return SP_EXIT_OK;
		case O_KIND: kind = optarg; break;
		case ':':
			sp_usage(&err, "import: %s needs a value", argv[optind - 1]);
			return sp_error_report(&err);
		default:
			sp_usage(&err, "import: unknown option '%s' (try 'sandprobe import --help')", argv[optind - 1]);
			return sp_error_report(&err);
		}
	}
	for (int i = optind; i < argc; i++) {
		if (npos == 3) {
			sp_usage(&err, "import: too many arguments (usage: sandprobe import a3s DIR OUT)");
			return sp_error_report(&err);
		}
		pos[npos++] = argv[i];
	}
	if (npos < 3) {
		sp_usage(&err, "import: usage: sandprobe import a3s DIR OUT");
		return sp_error_report(&err);
	}
	if (strcmp(pos[0], "a3s")) {
		sp_usage(&err, "import: '%s': the only format is a3s", pos[0]);
		return sp_error_report(&err);
	}
	enum sp_a3s_kind k = SP_A3S_AUTO;
	if (!strcmp(kind, "host"))
		k = SP_A3S_HOST;
	else if (!strcmp(kind, "cluster"))
		k = SP_A3S_CLUSTER;
	else if (strcmp(kind, "auto")) {
		sp_usage(&err, "import: --kind %s: not host, cluster or auto", kind);
		return sp_error_report(&err);
	}
	if (sp_a3s_import(pos[1], pos[2], k, &err) < 0) {
		sp_error_prefix(&err, "import");
		return sp_error_report(&err);
	}
	printf("imported %s into %s (%s): sandprobe report %s draws it; sandprobe verify %s says what it lacks\n", pos[1],
	       pos[2], SP_EVIDENCE_SCHEMA, pos[2], pos[2]);
	return SP_EXIT_OK;
}
