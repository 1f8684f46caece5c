/* sandprobe lint: argument parsing and wiring (src/lint/ does the work). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/common.h"
#include "core/annotate.h"
#include "core/cleanup.h"
#include "lint/lint.h"

static void usage(FILE *f)
{
	fputs("usage: sandprobe lint [--kind oci|allowlist|seccomp|compose|kube|squid|auto]\n"
	      "                      [--format text|json|sarif] [-o FILE] [-q]\n"
	      "                      [--fail-on error|warning|note] [--require-runtime-class NAME] FILE...\n"
	      "       sandprobe lint --list-rules [--format text|json|sarif]\n"
	      "\n"
	      "Validates sandbox configuration without running anything: OCI config.json,\n"
	      "seccomp profiles, egress allowlists, compose files, Kubernetes workloads and\n"
	      "squid configs. Files given together are also checked against each other\n"
	      "(allowlist vs squid ACLs, HTTPS_PROXY vs squid http_port).\n"
	      "\n"
	      "  --kind K          force the kind of every FILE (default auto: detected from content)\n"
	      "  --format F        text (default), json (sandprobe.lint.v1) or sarif (2.1.0)\n"
	      "  -o, --output FILE write the report to FILE instead of standard output\n"
	      "  --fail-on S       lowest severity that makes the exit status 1 (default warning)\n"
	      "  --require-runtime-class NAME\n"
	      "                    every pod (runtimeClassName) or compose service (runtime) must use NAME\n"
	      "  --list-rules      print the rule catalogue and exit\n"
	      "  -q, --quiet       no report on standard output (the exit status; -o FILE is still written)\n"
	      "  --annotate github also print each finding as a GitHub Actions workflow command\n"
	      "                    (::error file=F,line=N,col=N,title=RULE::...) on standard output\n"
	      "\n"
	      "exit: 0 no finding at or above --fail-on, 1 findings, 2 usage error (a file that is\n"
	      "      missing, empty, binary or a directory: one line, nothing written), or a file\n"
	      "      (or a document in it) that could not be parsed: reported as lint.input_invalid\n"
	      "      and every other file's findings are still reported; 3 internal error\n",
	      f);
}

struct lint_opts {
	const char *kind, *format, *output, *fail_on, *runtime_class;
	bool list, quiet, annotate;
};

static int parse_args(int argc, char **argv, struct lint_opts *o, sp_error *err)
{
	enum { O_KIND = 256, O_FORMAT, O_OUTPUT, O_FAIL_ON, O_RTC, O_LIST, O_HELP, O_ANNOTATE };
	static const struct option longopts[] = {
		{"kind", required_argument, NULL, O_KIND},
		{"format", required_argument, NULL, O_FORMAT},
		{"output", required_argument, NULL, O_OUTPUT},
		{"fail-on", required_argument, NULL, O_FAIL_ON},
		{"require-runtime-class", required_argument, NULL, O_RTC},
		{"list-rules", no_argument, NULL, O_LIST},
		{"quiet", no_argument, NULL, 'q'},
		{"annotate", required_argument, NULL, O_ANNOTATE},
		{"help", no_argument, NULL, O_HELP},
		{NULL, 0, NULL, 0},
	};
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":ho:q", longopts, NULL)) != -1) {
		switch (c) {
		case O_KIND: o->kind = optarg; break;
		case O_FORMAT: o->format = optarg; break;
		case 'o':
		case O_OUTPUT: o->output = optarg; break;
		case O_FAIL_ON: o->fail_on = optarg; break;
		case O_RTC:
			if (!optarg[0])
				return sp_usage(err, "lint: --require-runtime-class needs a name");
			o->runtime_class = optarg;
			break;
		case O_LIST: o->list = true; break;
		case 'q': o->quiet = true; break;
		case O_ANNOTATE:
			if (strcmp(optarg, "github"))
				return sp_usage(err, "lint: --annotate '%s': expected github", optarg);
			o->annotate = true;
			break;
		case 'h':
		case O_HELP: return 1;
		case ':': return sp_usage(err, "lint: option '%s' needs a value", argv[optind - 1]);
		default: return sp_usage(err, "lint: unknown option '%s' (see 'sandprobe lint --help')", argv[optind - 1]);
		}
	}
	return 0;
}

static int not_a_config(const char *path, sp_error *err)
{
	if (sp_input_check("lint", "", path, err) < 0)
		return -1;
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return 0; /* a pipe is read once, by the linter */
	if (st.st_size > SP_LINT_MAX_FILE)
		return sp_usage(err, "lint: %s: file too large (the limit is %u MiB)", path, SP_LINT_MAX_FILE >> 20);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return sp_usage(err, "lint: %s: %s", path, strerror(errno));
	char buf[65536];
	ssize_t n = read(fd, buf, sizeof buf);
	if (n < 0)
		return sp_usage(err, "lint: %s: %s", path, strerror(errno));
	const char *nul = memchr(buf, '\0', (size_t)n);
	if (nul)
		return sp_usage(err, "lint: %s: binary data (a NUL byte at offset %zu), not a config file", path,
				(size_t)(nul - buf));
	return 0;
}

int cmd_lint(int argc, char **argv)
{
	sp_error err;
	sp_error_clear(&err);
	struct lint_opts o = {.kind = "auto", .format = "text", .fail_on = "warning"};
	sp_lint l;
	sp_lint_init(&l, NULL);
	FILE *out = stdout;
	int rc = SP_EXIT_OK;

	int pr = parse_args(argc, argv, &o, &err);
	if (pr == 1) {
		usage(stdout);
		return SP_EXIT_OK;
	}
	if (pr < 0)
		goto fail;
	sp_lint_kind kind;
	sp_lint_format fmt;
	sp_lint_sev fail_on;
	if (sp_lint_kind_parse(o.kind, &kind) < 0) {
		sp_usage(&err, "lint: --kind '%s': expected oci, allowlist, seccomp, compose, kube, squid or auto", o.kind);
		goto fail;
	}
	if (sp_lint_format_parse(o.format, &fmt) < 0) {
		sp_usage(&err, "lint: --format '%s': expected text, json or sarif", o.format);
		goto fail;
	}
	if (sp_lint_sev_parse(o.fail_on, &fail_on) < 0) {
		sp_usage(&err, "lint: --fail-on '%s': expected error, warning or note", o.fail_on);
		goto fail;
	}
	if (o.list) {
		if (optind < argc) {
			sp_usage(&err, "lint: --list-rules takes no files");
			goto fail;
		}
	} else if (optind >= argc) {
		sp_usage(&err, "lint: no files given (see 'sandprobe lint --help')");
		goto fail;
	}
	/* a file that is no config at all (missing, a directory, empty, binary)
	 * is a usage error before anything is linted or written: one line */
	for (int i = optind; !o.list && i < argc; i++)
		if (not_a_config(argv[i], &err) < 0)
			goto fail;
	if (sp_output_check("lint", "--output", o.output, &err) < 0)
		goto fail;
	sp_lint_opts lo = {.require_runtime_class = o.runtime_class};
	sp_lint_init(&l, &lo);
	/* every file is read, parsed (and for compose and kube linted) before
	 * anything is written; a file that cannot be linted is reported on
	 * stderr and as a lint.input_invalid finding, and the others go on */
	bool input_error = false;
	for (int i = optind; i < argc; i++) {
		if (sp_lint_add_file(&l, argv[i], kind, &err) == 0)
			continue;
		if (err.exit_code == SP_EXIT_INTERNAL)
			goto fail;
		sp_error_report(&err);
		sp_error_clear(&err);
		input_error = true;
	}
	if (o.output) {
		out = fopen(o.output, "we");
		if (!out) {
			sp_usage(&err, "lint: --output %s: %s", o.output, strerror(errno));
			out = stdout;
			goto fail;
		}
	}
	if (o.quiet && !o.output)
		out = sp_null_stream();
	int wr;
	if (o.list) {
		wr = sp_lint_write_rules(out, fmt);
	} else {
		sp_lint_run(&l);
		wr = sp_lint_write(out, fmt, &l, fail_on);
		for (size_t i = 0; o.annotate && i < l.nf; i++) {
			const sp_lint_finding *x = &l.f[i];
			const sp_lint_rule *r = &sp_lint_rules[x->rule];
			char *title = sp_xasprintf("%s", r->id);
			sp_gh_annotation(stdout, r->sev == SP_SEV_ERROR ? "error" : r->sev == SP_SEV_WARNING ? "warning" : "notice",
					 l.files[x->file].path, x->line, x->column, title, x->message);
			free(title);
		}
		fflush(stdout);
		int worst = sp_lint_worst(&l);
		rc = worst >= 0 && worst >= (int)fail_on ? SP_EXIT_FAIL : SP_EXIT_OK;
		if (input_error)
			rc = SP_EXIT_USAGE;
	}
	if (wr < 0) {
		sp_fail_errno(&err, -wr, "lint: cannot write the report");
		goto fail;
	}
	goto done;
fail:
	rc = sp_error_report(&err);
done:
	if (out != stdout && fclose(out) != 0 && rc != SP_EXIT_USAGE) {
		fprintf(stderr, "sandprobe: lint: cannot write %s: %s\n", o.output, strerror(errno));
		rc = SP_EXIT_INTERNAL;
	}
	sp_lint_free(&l);
	return rc;
}
