/* sandprobe live: argument parsing and wiring (src/live/ does the work).
 * Every input problem is found before any sandbox is launched (exit 2). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/common.h"
#include "core/cleanup.h"
#include "core/util.h"
#include "live/live.h"
#include "live/report_ci.h"

/* "  --runtime NAME      " and the runtimes of live/list_runtimes.h, comma-separated, wrapped at 93 columns */
static void usage_runtimes(FILE *f)
{
	size_t col = (size_t)fprintf(f, "  --runtime NAME      ");
	for (size_t i = 0; i < sp_runtimes_count; i++) {
		size_t w = strlen(sp_runtimes[i]->name) + (i + 1 < sp_runtimes_count);
		if (i && col + 1 + w > 93)
			col = (size_t)fprintf(f, "\n%22s", "") - 1;
		else if (i)
			col += (size_t)fprintf(f, " ");
		col += (size_t)fprintf(f, "%s%s", sp_runtimes[i]->name, i + 1 < sp_runtimes_count ? "," : "");
	}
	fputc('\n', f);
}

static void usage(FILE *f)
{
	fputs("usage: sandprobe live --runtime NAME [--variant NAME] [options]\n"
	      "       sandprobe live --matrix [--runtimes LIST] [--variants LIST] [options]\n"
	      "       sandprobe live --list-runtimes\n"
	      "\n"
	      "Launches a sandbox with a real runtime, runs the static doctor inside it, checks the\n"
	      "same properties from the host (host.* checks) and judges both. Negative controls\n"
	      "remove one protection and must fail; one that does not is reported as a tool defect.\n"
	      "\n",
	      f);
	usage_runtimes(f);
	fputs("  --variant NAME      strict (default), host-pid, host-net, writable-root, kept-caps,\n"
	      "                      host-dev, no-seccomp, privileged, no-nnp\n"
	      "  --matrix            every available runtime and every variant it can launch\n"
	      "  --list-runtimes     list the runtimes and whether each can run here, run nothing\n"
	      "  --runtimes LIST     comma-separated runtimes for --matrix (default: all)\n"
	      "  --variants LIST     comma-separated variants for --matrix (default: all)\n"
	      "  --format F          text (default), json (sandprobe.live.v1), html (matrix page),\n"
	      "                      junit, tap (a lane per suite; negative controls judged as above)\n"
	      "  -o, --output FILE   write the report to FILE\n"
	      "  --doctor PATH       static sandprobe-doctor (default: next to this binary)\n"
	      "  --busybox PATH      static busybox for the sandbox's shell (default: /bin/busybox)\n"
	      "  --kernel PATH       qemu: kernel image (default: newest /boot/vmlinuz-*)\n"
	      "  --accel A           qemu: auto (default: KVM when it really works), kvm, tcg\n"
	      "  --workspace DIR     qemu: share DIR with the guest over 9p at /workspace; the doctor's\n"
	      "                      ws.* checks judge it (a marker the lane puts beside DIR must stay out)\n"
	      "  --workspace-export-parent  qemu, negative control: export DIR's parent instead (too much)\n"
	      "  --containerd-address SOCK  containerd lanes: its socket (default: $CONTAINERD_ADDRESS,\n"
	      "                      else /run/containerd/containerd.sock, else one the run starts itself)\n"
	      "  --image REF         docker, docker-runsc and podman lanes run from the doctor image REF\n"
	      "                      (built from the Containerfile; in the engine's local store, never\n"
	      "                      pulled) instead of a busybox rootfs: no shell in it, the doctor holds\n"
	      "                      the sandbox open itself; its doctor must be --doctor's (same catalogue)\n"
	      "  --doctor-image      the same from an image each engine builds for the run from --doctor\n"
	      "                      (FROM scratch, the doctor alone; no registry), removed at its end\n"
	      "  --profile NAME      the doctor's base profile (default strict; launch-derived --set on top)\n"
	      "  --set KEY=VALUE     a policy setting for the doctor in every lane, after the launch-derived\n"
	      "                      ones (repeatable; e.g. kernel.separate_kernel= judges gVisor and VM\n"
	      "                      lanes as if their kernel were the host's)\n"
	      "  --timeout-ms N      per-lane timeout for containers (default 30000; qemu: 10x)\n"
	      "  --strict            a skipped lane (runtime missing or unusable) is a failure\n"
	      "  --keep              keep each lane's temp dir (debugging)\n"
	      "  -v                  print expected/observed for passing checks too\n"
	      "  -q, --quiet         no report on standard output (-o FILE is still written), no progress\n"
	      "  --runtime NAME --exec-under-filter -- COMMAND...\n"
	      "                      run COMMAND under the seccomp filter the runtime's launch loads on\n"
	      "                      itself (systemd-nspawn), to replay a lane's command line\n"
	      "\n"
	      "--matrix prints one progress line per lane on standard error when the report\n"
	      "goes to a file (-o) or standard error is a terminal.\n"
	      "\n"
	      "exit: 0 every strict lane passed and every negative control failed, 1 otherwise,\n"
	      "      2 usage error, 3 internal error\n",
	      f);
}

struct live_opts {
	const char *runtime, *variant, *runtimes, *variants, *format, *output, *doctor, *busybox, *kernel, *accel, *profile,
		*containerd, *image, *workspace;
	bool ws_parent, matrix, strict, keep, verbose, list, quiet, doctor_image, exec_under_filter;
	char **exec_argv; /* --exec-under-filter: the command after the options */
	unsigned timeout_ms;
	sp_strv *sets; /* --set KEY=VALUE, in order */
};

/* an image reference as engines spell one: no option, no blank, nothing a shell would expand */
static bool image_ref_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= sizeof ((sp_live_cfg *)0)->image || s[0] == '-' || s[0] == ':' || s[0] == '@')
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || strchr("._/:@-", *s)))
			return false;
	return true;
}

static int parse_args(int argc, char **argv, struct live_opts *o, sp_error *err)
{
	enum { O_RUNTIME = 256,
	       O_VARIANT,
	       O_MATRIX,
	       O_RUNTIMES,
	       O_VARIANTS,
	       O_FORMAT,
	       O_OUTPUT,
	       O_DOCTOR,
	       O_BUSYBOX,
	       O_KERNEL,
	       O_ACCEL,
	       O_PROFILE,
	       O_TIMEOUT,
	       O_STRICT,
	       O_KEEP,
	       O_LIST,
	       O_HELP,
	       O_CONTAINERD,
	       O_SET,
	       O_IMAGE,
	       O_DOCTOR_IMAGE,
	       O_EXEC_FILTER,
	       O_WORKSPACE,
	       O_WS_PARENT };
	static const struct option longopts[] = {
		{"runtime", required_argument, NULL, O_RUNTIME},
		{"variant", required_argument, NULL, O_VARIANT},
		{"matrix", no_argument, NULL, O_MATRIX},
		{"runtimes", required_argument, NULL, O_RUNTIMES},
		{"variants", required_argument, NULL, O_VARIANTS},
		{"format", required_argument, NULL, O_FORMAT},
		{"output", required_argument, NULL, O_OUTPUT},
		{"doctor", required_argument, NULL, O_DOCTOR},
		{"busybox", required_argument, NULL, O_BUSYBOX},
		{"kernel", required_argument, NULL, O_KERNEL},
		{"accel", required_argument, NULL, O_ACCEL},
		{"workspace", required_argument, NULL, O_WORKSPACE},
		{"workspace-export-parent", no_argument, NULL, O_WS_PARENT},
		{"profile", required_argument, NULL, O_PROFILE},
		{"timeout-ms", required_argument, NULL, O_TIMEOUT},
		{"strict", no_argument, NULL, O_STRICT},
		{"keep", no_argument, NULL, O_KEEP},
		{"list-runtimes", no_argument, NULL, O_LIST},
		{"help", no_argument, NULL, O_HELP},
		{"verbose", no_argument, NULL, 'v'},
		{"containerd-address", required_argument, NULL, O_CONTAINERD},
		{"set", required_argument, NULL, O_SET},
		{"image", required_argument, NULL, O_IMAGE},
		{"doctor-image", no_argument, NULL, O_DOCTOR_IMAGE},
		{"quiet", no_argument, NULL, 'q'},
		{"exec-under-filter", no_argument, NULL, O_EXEC_FILTER},
		{NULL, 0, NULL, 0},
	};
	optind = 1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":vqho:", longopts, NULL)) != -1) {
		switch (c) {
		case O_RUNTIME: o->runtime = optarg; break;
		case O_VARIANT: o->variant = optarg; break;
		case O_MATRIX: o->matrix = true; break;
		case O_RUNTIMES: o->runtimes = optarg; break;
		case O_VARIANTS: o->variants = optarg; break;
		case O_FORMAT: o->format = optarg; break;
		case O_OUTPUT:
		case 'o': o->output = optarg; break;
		case O_DOCTOR: o->doctor = optarg; break;
		case O_BUSYBOX: o->busybox = optarg; break;
		case O_KERNEL: o->kernel = optarg; break;
		case O_ACCEL: o->accel = optarg; break;
		case O_WORKSPACE: o->workspace = optarg; break;
		case O_WS_PARENT: o->ws_parent = true; break;
		case O_CONTAINERD:
			if (!*optarg || strlen(optarg) >= sizeof ((sp_live_cfg *)0)->containerd)
				return sp_usage(err, "live: --containerd-address '%s': expected a socket path", optarg);
			o->containerd = optarg;
			break;
		case O_IMAGE:
			if (!image_ref_ok(optarg))
				return sp_usage(err, "live: --image '%s': expected a local image reference (NAME[:TAG], NAME@DIGEST or an id)",
						optarg);
			o->image = optarg;
			break;
		case O_DOCTOR_IMAGE: o->doctor_image = true; break;
		case O_PROFILE: o->profile = optarg; break;
		case O_SET: {
			const char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg || strlen(optarg) > 4096)
				return sp_usage(err, "live: --set '%.80s': expected KEY=VALUE (VALUE may be empty)", optarg);
			sp_strv_push(o->sets, optarg);
			break;
		}
		case O_TIMEOUT: {
			unsigned long long v;
			if (sp_parse_u64(optarg, &v) < 0 || v < 100 || v > 3600000)
				return sp_usage(err, "live: --timeout-ms '%s': expected milliseconds between 100 and 3600000", optarg);
			o->timeout_ms = (unsigned)v;
			break;
		}
		case O_EXEC_FILTER: o->exec_under_filter = true; break;
		case O_STRICT: o->strict = true; break;
		case O_KEEP: o->keep = true; break;
		case O_LIST: o->list = true; break;
		case 'v': o->verbose = true; break;
		case 'q': o->quiet = true; break;
		case 'h':
		case O_HELP: return 1;
		case ':': return sp_usage(err, "live: option '%s' needs a value", argv[optind - 1]);
		default: return sp_usage(err, "live: unknown option '%s' (see 'sandprobe live --help')", argv[optind - 1]);
		}
	}
	if (o->exec_under_filter) {
		if (!o->runtime || o->matrix)
			return sp_usage(err, "live: --exec-under-filter goes with --runtime NAME");
		if (optind >= argc)
			return sp_usage(err, "live: --exec-under-filter: give the command after the options (-- COMMAND ARG...)");
		o->exec_argv = argv + optind;
		return 0;
	}
	if (optind < argc)
		return sp_usage(err, "live: unexpected argument '%s'", argv[optind]);
	if (o->list)
		return 0;
	if (o->matrix && o->runtime)
		return sp_usage(err, "live: --runtime and --matrix exclude each other (use --matrix --runtimes LIST)");
	if (!o->matrix && !o->runtime)
		return sp_usage(err, "live: give --runtime NAME or --matrix");
	if (!o->matrix && (o->runtimes || o->variants))
		return sp_usage(err, "live: --runtimes and --variants go with --matrix");
	if (o->matrix && o->variant)
		return sp_usage(err, "live: --variant goes with --runtime (use --matrix --variants LIST)");
	if (strcmp(o->format, "text") && strcmp(o->format, "json") && strcmp(o->format, "html") &&
	    strcmp(o->format, "junit") && strcmp(o->format, "tap"))
		return sp_usage(err, "live: --format '%s': expected text, json, html, junit or tap", o->format);
	if (strcmp(o->accel, "auto") && strcmp(o->accel, "kvm") && strcmp(o->accel, "tcg"))
		return sp_usage(err, "live: --accel '%s': expected auto, kvm or tcg", o->accel);
	if (!strcmp(o->profile, "") || strchr(o->profile, '/'))
		return sp_usage(err, "live: --profile '%s': expected a shipped profile name", o->profile);
	if (o->image && o->doctor_image)
		return sp_usage(err, "live: --image and --doctor-image exclude each other");
	return 0;
}

static int default_doctor(char *out, size_t n)
{
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len <= 0)
		return -1;
	self[len] = '\0';
	snprintf(out, n, "%s/sandprobe-doctor", dirname(self));
	return 0;
}

static int check_file(const char *what, const char *path, sp_error *err)
{
	if (access(path, R_OK) != 0)
		return sp_usage(err, "live: %s %s: %s", what, path, strerror(errno));
	return 0;
}

/* lane dirs: $SP_LIVE_TMPDIR, else /dev/shm when it is a tmpfs that allows
 * exec (a rootfs is created and removed per lane: memory is much faster
 * than a journalled disk), else /tmp */
static void pick_tmpbase(char *out, size_t n)
{
	const char *env = getenv("SP_LIVE_TMPDIR");
	struct statfs sf;
	struct statvfs sv;
	if (env && *env)
		snprintf(out, n, "%s", env);
	else if (statfs("/dev/shm", &sf) == 0 && sf.f_type == TMPFS_MAGIC && statvfs("/dev/shm", &sv) == 0 &&
		 !(sv.f_flag & ST_NOEXEC) && access("/dev/shm", W_OK) == 0)
		snprintf(out, n, "/dev/shm");
	else
		snprintf(out, n, "/tmp");
}

/* --output FILE, opened (not truncated) before any lane runs: an unwritable
 * path is a usage error found up front; the report truncates it later */
static int open_output(const char *path, FILE **out, sp_error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0)
		return sp_usage(err, "live: --output %s: %s", path, strerror(errno));
	*out = fdopen(fd, "w");
	if (!*out) {
		int e = errno;
		close(fd);
		return sp_fail_errno(err, e, "live: --output %s", path);
	}
	return 0;
}

/* A runtime's name, or a short name that is the last part of exactly one
 * runtime's (nspawn: systemd-nspawn), replaced by the full name; otherwise a
 * usage error that suggests the names containing the word. */
static int canonical_runtime(char **name, sp_error *err)
{
	if (sp_runtime_find(*name))
		return 0;
	const char *only = NULL;
	size_t nsuffix = 0, len = strlen(*name);
	char near[256] = "";
	for (size_t i = 0; i < sp_runtimes_count; i++) {
		const char *full = sp_runtimes[i]->name;
		size_t fl = strlen(full);
		if (len && fl > len + 1 && full[fl - len - 1] == '-' && !strcmp(full + fl - len, *name)) {
			only = full;
			nsuffix++;
		}
		if (len && (strstr(full, *name) || strstr(*name, full))) {
			size_t n = strlen(near);
			snprintf(near + n, sizeof near - n, "%s%s", n ? ", " : "", full);
		}
	}
	if (nsuffix == 1) {
		free(*name);
		*name = sp_xstrdup(only);
		return 0;
	}
	if (*near)
		return sp_usage(err, "live: unknown runtime '%s' (did you mean %s? see --list-runtimes)", *name, near);
	return sp_usage(err, "live: unknown runtime '%s' (see --list-runtimes)", *name);
}

/* the runtime and variant names, before anything else is looked at (the
 * plan checks them again, with the lanes) */
static int check_names(const struct live_opts *o, sp_error *err)
{
	sp_strv rts, vs;
	sp_strv_split(&rts, o->matrix ? o->runtimes : o->runtime, ",");
	sp_strv_split(&vs, o->matrix ? o->variants : o->variant, ",");
	int rc = 0;
	for (size_t i = 0; i < rts.n && rc == 0; i++)
		rc = canonical_runtime(&rts.v[i], err);
	for (size_t i = 0; i < vs.n && rc == 0; i++)
		if (!sp_variant_find(vs.v[i]))
			rc = sp_usage(err, "live: unknown variant '%s'", vs.v[i]);
	sp_strv_free(&rts);
	sp_strv_free(&vs);
	return rc;
}

/* --kernel: a regular, non-empty file that is a Linux kernel image qemu can
 * boot (an x86 bzImage: "HdrS" at 0x202; or an ELF vmlinux), checked before
 * any lane starts: a lane must not be skipped for a kernel that cannot be */
static int check_kernel(const char *path, sp_error *err)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return sp_usage(err, "live: --kernel %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return sp_usage(err, "live: --kernel %s: not a regular file", path);
	if (st.st_size == 0)
		return sp_usage(err, "live: --kernel %s: is empty", path);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return sp_usage(err, "live: --kernel %s: %s", path, strerror(errno));
	unsigned char h[0x206] = {0};
	ssize_t n = pread(fd, h, sizeof h, 0);
	if (n < 0)
		return sp_usage(err, "live: --kernel %s: %s", path, strerror(errno));
	/* an ELF executable (vmlinux): the magic, a class, and e_type ET_EXEC */
	bool elf = n >= 64 && !memcmp(h, "\177ELF", 4) && (h[4] == 1 || h[4] == 2) &&
		   (h[5] == 2 ? h[16] == 0 && h[17] == 2 : h[16] == 2 && h[17] == 0);
	bool bz = n >= (ssize_t)sizeof h && !memcmp(h + 0x202, "HdrS", 4);
	if (!elf && !bz)
		return sp_usage(err, "live: --kernel %s: not a Linux kernel image (no bzImage header, not an ELF executable)", path);
	return 0;
}

/* the lanes to run, validated before any of them starts */
static int plan(const struct live_opts *o, sp_live_run *run, const sp_live_cfg *cfg, sp_error *err)
{
	sp_strv rts, vs;
	sp_strv_split(&rts, o->matrix ? o->runtimes : o->runtime, ",");
	sp_strv_split(&vs, o->matrix ? o->variants : (o->variant ? o->variant : "strict"), ",");
	if (o->matrix && !o->runtimes)
		for (size_t i = 0; i < sp_runtimes_count; i++)
			sp_strv_push(&rts, sp_runtimes[i]->name);
	if (o->matrix && !o->variants)
		for (size_t i = 0; i < sp_variants_count; i++)
			sp_strv_push(&vs, sp_variants[i].name);
	int rc = 0;
	for (size_t i = 0; i < rts.n && rc == 0; i++)
		rc = canonical_runtime(&rts.v[i], err);
	for (size_t i = 0; i < vs.n && rc == 0; i++)
		if (!sp_variant_find(vs.v[i]))
			rc = sp_usage(err, "live: unknown variant '%s'", vs.v[i]);
	if (rc == 0 && (rts.n == 0 || vs.n == 0))
		rc = sp_usage(err, "live: empty runtime or variant list");
	if (rc == 0 && (o->image || o->doctor_image)) {
		bool engine = false;
		for (size_t i = 0; i < rts.n; i++)
			engine |= sp_runtime_find(rts.v[i])->engine != NULL;
		if (!engine)
			rc = sp_usage(err, "live: %s goes with the docker, docker-runsc and podman lanes (none is selected)",
				      o->image ? "--image" : "--doctor-image");
	}
	if (rc == 0) {
		run->lanes = sp_xcalloc(rts.n * vs.n, sizeof *run->lanes);
		for (size_t i = 0; i < rts.n; i++) {
			const sp_live_runtime *rt = sp_runtime_find(rts.v[i]);
			for (size_t k = 0; k < vs.n; k++) {
				const sp_live_variant *v = sp_variant_find(vs.v[k]);
				/* the matrix holds only the variants a runtime can launch */
				if (o->matrix && (v->removes & ~rt->removable))
					continue;
				if (!o->matrix && (v->removes & ~rt->removable)) {
					rc = sp_usage(err, "live: %s cannot launch the '%s' variant", rt->name, v->name);
					break;
				}
				sp_lane_init(&run->lanes[run->n++], rt, v, cfg);
			}
		}
	}
	sp_strv_free(&rts);
	sp_strv_free(&vs);
	return rc;
}

/* what a matrix progress line says of a lane: a negative control that failed
 * as it must is what the user wants to see, not a bare "fail" */
static const char *lane_progress(const sp_live_lane *l)
{
	if (!l->variant->removes || (l->status != SP_STATUS_FAIL && l->status != SP_STATUS_PASS))
		return sp_status_name(l->status);
	if (l->defect)
		return "TOOL DEFECT: the negative control did not fail as it must";
	return "expected failure: ok (negative control)";
}

/* SP_LIVE_TIMING=1: each lane's phase times on stderr (for tuning the lane) */
static void print_phase(void *arg, const sp_live_lane *l, const char *what, double ms)
{
	(void)arg;
	fprintf(stderr, "sandprobe: live: %s/%s %-10s %7.2f ms\n", l->rt->name, l->variant->name, what, ms);
}

/* --exec-under-filter: the command run as the runtime's launch runs the
 * runtime (the filter it loads before exec, stdin /dev/null, one process
 * group), its output copied to ours; its exit status is ours (128+N for a
 * signal). For replaying a lane's command line with a probe (tests/live). */
static int exec_under_filter(const struct live_opts *o, const sp_live_cfg *cfg, sp_error *err)
{
	char *rtname = sp_xstrdup(o->runtime);
	int rc = canonical_runtime(&rtname, err);
	const sp_live_runtime *rt = rc == 0 ? sp_runtime_find(rtname) : NULL;
	free(rtname);
	if (rc < 0)
		return -1;
	if (!rt || !rt->prefilter)
		return sp_usage(err, "live: --exec-under-filter: runtime '%s' loads no filter of its own before it execs",
				o->runtime);
	void *prog = rt->prefilter(cfg, err);
	if (!prog)
		return -1;
	sp_child c;
	sp_spawn_opts so = {.capture_out = true, .err_to_out = true, .die_with_parent = true, .seccomp_prog = prog};
	rc = sp_spawn(&c, o->exec_argv, &so, err);
	free(prog);
	if (rc < 0)
		return -1;
	sp_child_wait(&c, sp_now_ns() + (uint64_t)cfg->timeout_ms * SP_NS_PER_MS);
	if (c.out_buf.data)
		fwrite(c.out_buf.data, 1, c.out_buf.len, stdout);
	rc = c.timed_out ? -1 : sp_child_code(&c);
	char how[128];
	sp_child_describe(&c, how, sizeof how);
	sp_child_free(&c);
	if (rc < 0)
		sp_fail_errno(err, ETIMEDOUT, "live: --exec-under-filter: %s: %s", o->exec_argv[0], how);
	return rc;
}

int cmd_live(int argc, char **argv)
{
	sp_error err;
	sp_error_clear(&err);
	struct live_opts o = {.format = "text", .accel = "auto", .profile = "strict", .timeout_ms = 30000};
	sp_live_cfg cfg;
	memset(&cfg, 0, sizeof cfg);
	sp_strv_split(&cfg.ids, NULL, ",");
	sp_strv_split(&cfg.keys, NULL, ",");
	sp_strv_split(&cfg.run_ids, NULL, ",");
	sp_strv_split(&cfg.seccomp_deny, NULL, ",");
	sp_strv_split(&cfg.masked, NULL, ",");
	sp_strv_split(&cfg.sat_user_space, NULL, ",");
	sp_strv_split(&cfg.sat_guest, NULL, ",");
	sp_strv_split(&cfg.sets, NULL, ",");
	o.sets = &cfg.sets;
	sp_live_run run;
	memset(&run, 0, sizeof run);
	FILE *out = stdout;
	int rc = SP_EXIT_OK;

	int pr = parse_args(argc, argv, &o, &err);
	if (pr == 1) {
		usage(stdout);
		goto done;
	}
	if (pr < 0)
		goto fail;
	if (o.list) {
		for (size_t i = 0; i < sp_runtimes_count; i++) {
			sp_outcome po = {0};
			sp_live_cfg probe_cfg = {.accel = "auto"};
			snprintf(probe_cfg.busybox, sizeof probe_cfg.busybox, "/bin/busybox");
			int a = sp_runtimes[i]->probe(&probe_cfg, &po);
			printf("%-15s %-9s %s%s%s\n", sp_runtimes[i]->name, a == 0 ? "available" : "skip", sp_runtimes[i]->summary,
			       a == 0 ? "" : " -- ", a == 0 ? "" : po.why);
		}
		goto done;
	}
	if (check_names(&o, &err) < 0)
		goto fail;
	if (o.doctor)
		snprintf(cfg.doctor, sizeof cfg.doctor, "%s", o.doctor);
	else if (default_doctor(cfg.doctor, sizeof cfg.doctor) < 0) {
		sp_usage(&err, "live: cannot locate sandprobe-doctor next to this binary: give --doctor PATH");
		goto fail;
	}
	snprintf(cfg.busybox, sizeof cfg.busybox, "%s", o.busybox ? o.busybox : "/bin/busybox");
	if (o.kernel) {
		if (check_kernel(o.kernel, &err) < 0)
			goto fail;
		snprintf(cfg.kernel, sizeof cfg.kernel, "%s", o.kernel);
	}
	if (o.ws_parent && !o.workspace) {
		sp_usage(&err, "live: --workspace-export-parent needs --workspace DIR");
		goto fail;
	}
	if (o.workspace) {
		char real[PATH_MAX];
		struct stat wst;
		if (!realpath(o.workspace, real) || stat(real, &wst) < 0) {
			sp_usage(&err, "live: --workspace %s: %s", o.workspace, strerror(errno));
			goto fail;
		}
		if (!S_ISDIR(wst.st_mode) || !strcmp(real, "/")) {
			sp_usage(&err, "live: --workspace %s: %s", o.workspace, S_ISDIR(wst.st_mode) ? "not / itself" : "not a directory");
			goto fail;
		}
		snprintf(cfg.workspace, sizeof cfg.workspace, "%s", real);
		cfg.ws_parent = o.ws_parent;
	}
	if (check_file("doctor", cfg.doctor, &err) < 0 || sp_live_check_static(cfg.doctor, &err) < 0 ||
	    check_file("busybox", cfg.busybox, &err) < 0 || sp_live_check_static(cfg.busybox, &err) < 0)
		goto fail;
	pick_tmpbase(cfg.tmpbase, sizeof cfg.tmpbase);
	if (o.containerd)
		snprintf(cfg.containerd, sizeof cfg.containerd, "%s", o.containerd);
	if (o.image)
		snprintf(cfg.image, sizeof cfg.image, "%s", o.image);
	cfg.doctor_image = o.doctor_image;
	cfg.profile = o.profile;
	cfg.timeout_ms = o.timeout_ms;
	cfg.vm_timeout_ms = o.timeout_ms * 10;
	cfg.accel = o.accel;
	cfg.strict = o.strict;
	cfg.keep = o.keep;
	if (getenv("SP_LIVE_TIMING"))
		cfg.on_phase = print_phase;
	if (sp_live_load_catalogue(&cfg, &err) < 0)
		goto fail;
	if (o.exec_under_filter) {
		rc = exec_under_filter(&o, &cfg, &err);
		if (rc < 0)
			goto fail;
		goto done;
	}
	run.matrix = o.matrix;
	run.strict = o.strict;
	if (plan(&o, &run, &cfg, &err) < 0)
		goto fail;
	if (o.output && open_output(o.output, &out, &err) < 0)
		goto fail;
	if (o.quiet && !o.output)
		out = sp_null_stream();

	bool vm = false;
	for (size_t i = 0; i < run.n; i++)
		vm |= run.lanes[i].rt == &sp_rt_qemu;
	sp_platform_detect(&run.platform, vm || o.matrix);
	for (size_t i = 0; i < run.n; i++) {
		sp_lane_run(&run.lanes[i]);
		if (o.matrix && !o.quiet && (o.output || isatty(2)))
			sp_progress(stderr, i + 1, run.n, "lane %s/%s: %s (%.0f ms)", run.lanes[i].rt->name,
				    run.lanes[i].variant->name, lane_progress(&run.lanes[i]), run.lanes[i].ms);
	}
	/* what the run shares between lanes (images, namespaces): removed, and proven gone */
	run.teardown = sp_xcalloc(sp_runtimes_count, sizeof *run.teardown);
	for (size_t i = 0; i < sp_runtimes_count; i++) {
		sp_live_run_teardown *t = &run.teardown[run.nteardown];
		int fr = sp_runtimes[i]->finish ? sp_runtimes[i]->finish(sp_runtimes[i], &cfg, t->what, sizeof t->what) : -1;
		if (fr < 0)
			continue;
		t->rt = sp_runtimes[i];
		t->ok = fr == 0;
		run.nteardown++;
	}
	sp_live_judge(&run);
	if (o.output && ftruncate(fileno(out), 0) < 0) {
		sp_fail_errno(&err, errno, "live: --output %s", o.output);
		goto fail;
	}
	if (!strcmp(o.format, "json")) {
		if (sp_live_write_json(out, &run) < 0) {
			sp_fail_errno(&err, EIO, "live: cannot write the report");
			goto fail;
		}
	} else if (!strcmp(o.format, "html")) {
		sp_live_write_html(out, &run);
	} else if (!strcmp(o.format, "junit")) {
		sp_live_write_junit(out, &run);
	} else if (!strcmp(o.format, "tap")) {
		sp_live_write_tap(out, &run);
	} else {
		sp_live_write_text(out, &run, o.verbose);
	}
	if (fflush(out) != 0) {
		sp_fail_errno(&err, errno, "live: cannot write the report");
		goto fail;
	}
	rc = sp_live_failed(&run) ? SP_EXIT_FAIL : SP_EXIT_OK;
	goto done;
fail:
	rc = sp_error_report(&err);
done:
	if (out && out != stdout && fclose(out) != 0 && rc == SP_EXIT_OK) {
		fprintf(stderr, "sandprobe: live: cannot write %s: %s\n", o.output, strerror(errno));
		rc = SP_EXIT_INTERNAL;
	}
	for (size_t i = 0; i < run.n; i++)
		sp_lane_free(&run.lanes[i]);
	free(run.lanes);
	free(run.teardown);
	free(cfg.catalogue);
	sp_strv_free(&run.defects);
	sp_strv_free(&cfg.ids);
	sp_strv_free(&cfg.keys);
	sp_strv_free(&cfg.run_ids);
	sp_strv_free(&cfg.seccomp_deny);
	sp_strv_free(&cfg.masked);
	sp_strv_free(&cfg.sat_user_space);
	sp_strv_free(&cfg.sat_guest);
	sp_strv_free(&cfg.sets);
	return rc;
}
