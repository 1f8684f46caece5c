/* sandprobe fleet: argument parsing and wiring only; plans and manifests
 * live in src/fleet/. Kubernetes is the engine: sandprobe renders one Job
 * per cell (node x RuntimeClass) and never schedules anything itself. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "fleet/fleet.h"

static void usage(FILE *f)
{
	fputs("usage: sandprobe fleet render --plan PLAN [-o DIR]\n"
	      "\n"
	      "Render a fleet plan (YAML: RuntimeClasses x nodes, the doctor image, profile and\n"
	      "resources) as one Kubernetes Job per cell, each running the doctor with --format\n"
	      "json in a hardened pod of that RuntimeClass on that node. Kubernetes runs them;\n"
	      "sandprobe schedules nothing. See sandprobe-fleet(1).\n"
	      "\n"
	      "  --plan FILE            the fleet plan (YAML)\n"
	      "  -o, --output DIR       write each Job to DIR/JOB.yaml (DIR is created) instead of\n"
	      "                         one YAML stream on standard output\n"
	      "\n"
	      "exit: 0 rendered, 2 usage error or bad plan (FILE:LINE and the field named;\n"
	      "      nothing written), 3 internal error\n",
	      f);
}

struct one {
	const sp_fleet_plan *p;
	size_t node, cls;
};

static int fill_one(FILE *f, void *ctx)
{
	const struct one *o = ctx;
	return sp_fleet_write_job(f, o->p, o->node, o->cls);
}

static int render(const sp_fleet_plan *p, const char *dir, sp_error *err)
{
	if (!dir) {
		for (size_t n = 0; n < p->nnodes; n++)
			for (size_t c = 0; c < p->nclasses; c++) {
				if (n || c)
					fputs("---\n", stdout);
				if (sp_fleet_write_job(stdout, p, n, c) < 0)
					return sp_fail_errno(err, EIO, "cannot write to standard output");
			}
		if (fflush(stdout) != 0)
			return sp_fail_errno(err, errno, "cannot write to standard output");
		return 0;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return sp_usage(err, "%s: cannot create the directory: %s", dir, strerror(errno));
	struct stat st;
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return sp_usage(err, "%s: not a directory", dir);
	for (size_t n = 0; n < p->nnodes; n++)
		for (size_t c = 0; c < p->nclasses; c++) {
			char job[128];
			sp_fleet_job_name(p, n, c, job, sizeof job);
			_cleanup_free_ char *path = sp_xasprintf("%s/%s.yaml", dir, job);
			struct one o = {p, n, c};
			if (sp_write_output(path, fill_one, &o, "", err) < 0)
				return -1;
		}
	return 0;
}

int cmd_fleet(int argc, char **argv)
{
	enum { O_PLAN = 256 };
	static const struct option lo[] = {
		{"plan", required_argument, NULL, O_PLAN},
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	sp_error err = {0};
	const char *plan_path = NULL, *out = NULL;
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return SP_EXIT_OK;
	}
	if (argc < 2 || argv[1][0] == '-') {
		sp_usage(&err, "fleet: missing the action (usage: sandprobe fleet render --plan PLAN [-o DIR])");
		return sp_error_report(&err);
	}
	if (strcmp(argv[1], "render")) {
		sp_usage(&err, "fleet: unknown action '%.60s' (try 'sandprobe fleet --help')", argv[1]);
		return sp_error_report(&err);
	}
	argc--;
	argv++;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":o:h", lo, NULL)) != -1) {
		switch (c) {
		case O_PLAN: plan_path = optarg; break;
		case 'o': out = optarg; break;
		case 'h': usage(stdout); return SP_EXIT_OK;
		case ':':
			sp_usage(&err, "fleet render: %s needs a value", argv[optind - 1]);
			return sp_error_report(&err);
		default:
			sp_usage(&err, "fleet render: unknown option '%s' (try 'sandprobe fleet --help')", argv[optind - 1]);
			return sp_error_report(&err);
		}
	}
	if (optind < argc) {
		sp_usage(&err, "fleet render: unexpected argument '%.60s'", argv[optind]);
		return sp_error_report(&err);
	}
	if (!plan_path) {
		sp_usage(&err, "fleet render: missing --plan FILE");
		return sp_error_report(&err);
	}
	if (out && !*out) {
		sp_usage(&err, "fleet render: -o: empty directory name");
		return sp_error_report(&err);
	}
	sp_fleet_plan plan;
	if (sp_fleet_plan_load(&plan, plan_path, &err) < 0)
		return sp_error_report(&err);
	int rc = render(&plan, out, &err);
	sp_fleet_plan_free(&plan);
	if (rc < 0) {
		sp_error_prefix(&err, "fleet render");
		return sp_error_report(&err);
	}
	return SP_EXIT_OK;
}
