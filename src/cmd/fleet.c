/* sandprobe fleet: argument parsing and wiring only; plans, manifests and
 * the collection of reports live in src/fleet/. Kubernetes is the engine:
 * sandprobe renders one Job per cell (node x RuntimeClass), never schedules
 * anything itself, and merges what the Jobs reported into the live matrix. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "fleet/collect.h"
#include "fleet/fleet.h"
#include "live/live.h"
#include "live/report_ci.h"

static void usage(FILE *f)
{
	fputs("usage: sandprobe fleet render --plan PLAN [-o DIR]\n"
	      "       sandprobe fleet collect --plan PLAN [--format F] [-o FILE] INPUT...\n"
	      "\n"
	      "render: a fleet plan (YAML: RuntimeClasses x nodes, the doctor image, profile and\n"
	      "resources) as one Kubernetes Job per cell, each running the doctor with --format\n"
	      "json in a hardened pod of that RuntimeClass on that node. Kubernetes runs them;\n"
	      "sandprobe schedules nothing.\n"
	      "collect: the doctor reports of those Jobs (report files, directories of them, or\n"
	      "`kubectl logs [--prefix]` output; - is standard input) merged into the live matrix,\n"
	      "one row per node x RuntimeClass of the plan; a cell that never reported is named\n"
	      "and fails the run. See sandprobe-fleet(1).\n"
	      "\n"
	      "  --plan FILE            the fleet plan (YAML)\n"
	      "  -o, --output DIR|FILE  render: write each Job to DIR/JOB.yaml (DIR is created)\n"
	      "                         instead of one YAML stream on standard output;\n"
	      "                         collect: write the matrix to FILE (whole, or not at all)\n"
	      "  --format F             collect: text (default), json (sandprobe.live.v1), html,\n"
	      "                         junit or tap\n"
	      "\n"
	      "exit: 0 rendered / every cell reported and passed, 1 a cell failed or never\n"
	      "      reported, 2 usage error, bad plan or bad report (FILE:LINE named; nothing\n"
	      "      written), 3 internal error\n",
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

struct matrix_out {
	const sp_live_run *run;
	const char *format;
};

static int fill_matrix(FILE *f, void *ctx)
{
	const struct matrix_out *o = ctx;
	if (!strcmp(o->format, "json")) {
		if (sp_live_write_json(f, o->run) < 0)
			return -EIO;
	} else if (!strcmp(o->format, "html"))
		sp_live_write_html(f, o->run);
	else if (!strcmp(o->format, "junit"))
		sp_live_write_junit(f, o->run);
	else if (!strcmp(o->format, "tap"))
		sp_live_write_tap(f, o->run);
	else
		sp_live_write_text(f, o->run, false);
	return ferror(f) ? -EIO : 0;
}

static int collect(const sp_fleet_plan *p, const char *plan_path, char **inputs, size_t ninputs, const char *format,
		   const char *out, sp_error *err)
{
	sp_fleet_collect c;
	sp_fleet_collect_init(&c, p);
	int rc = 0;
	for (size_t i = 0; i < ninputs && rc == 0; i++)
		rc = sp_fleet_collect_path(&c, inputs[i], err);
	if (rc < 0) {
		sp_fleet_collect_free(&c);
		return -1;
	}
	sp_fleet_matrix m;
	sp_fleet_matrix_build(&c, plan_path, &m);
	struct matrix_out mo = {&m.run, format};
	if (out)
		rc = sp_write_output(out, fill_matrix, &mo, "", err);
	else if (fill_matrix(stdout, &mo) < 0 || fflush(stdout) != 0)
		rc = sp_fail_errno(err, EIO, "cannot write to standard output");
	for (size_t i = 0; i < m.run.n; i++)
		if (!c.cells[i].report)
			fprintf(stderr, "sandprobe: fleet collect: cell %s/%s never reported\n", m.run.lanes[i].variant->name,
				m.run.lanes[i].rt->name);
	bool failed = sp_live_failed(&m.run);
	sp_fleet_matrix_free(&m);
	sp_fleet_collect_free(&c);
	return rc < 0 ? -1 : failed ? 1
				    : 0;
}

int cmd_fleet(int argc, char **argv)
{
	enum {
		O_PLAN = 256,
		O_FORMAT,
	};
	static const struct option lo[] = {
		{"plan", required_argument, NULL, O_PLAN},
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, O_FORMAT},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	sp_error err = {0};
	const char *plan_path = NULL, *out = NULL, *format = NULL;
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return SP_EXIT_OK;
	}
	if (argc < 2 || argv[1][0] == '-') {
		sp_usage(&err, "fleet: missing the action (usage: sandprobe fleet render|collect --plan PLAN ...)");
		return sp_error_report(&err);
	}
	bool is_collect = !strcmp(argv[1], "collect");
	if (strcmp(argv[1], "render") && !is_collect) {
		sp_usage(&err, "fleet: unknown action '%.60s' (try 'sandprobe fleet --help')", argv[1]);
		return sp_error_report(&err);
	}
	const char *verb = is_collect ? "fleet collect" : "fleet render";
	argc--;
	argv++;
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":o:h", lo, NULL)) != -1) {
		switch (c) {
		case O_PLAN: plan_path = optarg; break;
		case 'o': out = optarg; break;
		case O_FORMAT: format = optarg; break;
		case 'h': usage(stdout); return SP_EXIT_OK;
		case ':':
			sp_usage(&err, "%s: %s needs a value", verb, argv[optind - 1]);
			return sp_error_report(&err);
		default:
			sp_usage(&err, "%s: unknown option '%s' (try 'sandprobe fleet --help')", verb, argv[optind - 1]);
			return sp_error_report(&err);
		}
	}
	if (!is_collect && optind < argc) {
		sp_usage(&err, "fleet render: unexpected argument '%.60s'", argv[optind]);
		return sp_error_report(&err);
	}
	if (!is_collect && format) {
		sp_usage(&err, "fleet render: --format is collect's (render writes YAML)");
		return sp_error_report(&err);
	}
	if (is_collect && optind >= argc) {
		sp_usage(&err, "fleet collect: no input (report files, directories or kubectl logs output; - for standard input)");
		return sp_error_report(&err);
	}
	if (format && strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "html") && strcmp(format, "junit") &&
	    strcmp(format, "tap")) {
		sp_usage(&err, "fleet collect: --format '%.40s': expected text, json, html, junit or tap", format);
		return sp_error_report(&err);
	}
	if (!plan_path) {
		sp_usage(&err, "%s: missing --plan FILE", verb);
		return sp_error_report(&err);
	}
	if (out && !*out) {
		sp_usage(&err, "%s: -o: empty %s name", verb, is_collect ? "file" : "directory");
		return sp_error_report(&err);
	}
	sp_fleet_plan plan;
	if (sp_fleet_plan_load(&plan, plan_path, &err) < 0)
		return sp_error_report(&err);
	int rc = is_collect ? collect(&plan, plan_path, argv + optind, (size_t)(argc - optind), format ? format : "text", out, &err)
			    : render(&plan, out, &err);
	sp_fleet_plan_free(&plan);
	if (rc < 0) {
		if (err.exit_code != SP_EXIT_USAGE)
			sp_error_prefix(&err, "%s", verb);
		return sp_error_report(&err);
	}
	return rc ? SP_EXIT_FAIL : SP_EXIT_OK;
}
