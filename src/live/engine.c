/* Container engines driven through their CLI (podman, docker): the lane's
 * rootfs is imported once per run as a local image (no registry), each lane
 * is `ENGINE run -i --name NAME ...` in the foreground, teardown is
 * `ENGINE rm -f NAME`, and the proof is that the engine no longer knows it
 * (docker.c adds what Docker leaves below it). The image is removed when the
 * run ends, and proven gone.
 *
 * From the doctor image instead (--image REF, or --doctor-image: built once
 * per engine and run from the doctor, FROM scratch, the doctor alone, as the
 * Containerfile builds it): there is no shell, so the lane runs
 * `--entrypoint /sandprobe-doctor IMAGE --live-lane NONCE ARGS`, and the
 * doctor itself marks the start, runs the checks as its child, prints their
 * exit status and holds the sandbox open (cmd/live_lane.c). Before the first
 * lane the image's doctor is asked for its catalogue, which must be the one of
 * --doctor that the lanes' expectations come from: a stale image is an error,
 * not a quiet pass of other checks. */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/version.h"
#include "live/engine.h"

static const char doctor_in_image[] = "/sandprobe-doctor";
static const char build_label_key[] = "org.sandprobe.live.run";

static bool image_mode(const sp_live_cfg *cfg)
{
	return cfg->image[0] || cfg->doctor_image;
}

/* the engine's id of an image ("sha256:" cut off), "" when it does not know it (what the engine said in
 * err->msg); -1 when it cannot be asked (err says why) */
static int image_id_of(const sp_live_engine *e, const char *ref, char *id, size_t idsz, sp_error *err)
{
	char *argv[] = {(char *)e->bin, "image", "inspect", "--format", "{{.Id}}", (char *)ref, NULL};
	_cleanup_free_ char *out = NULL;
	_cleanup_free_ char *eo = NULL;
	int rc = sp_run_cmd(argv, &out, &eo, 30000);
	id[0] = '\0';
	sp_error_clear(err);
	if (rc == 0) {
		const char *v = sp_trim(out);
		if (sp_startswith(v, "sha256:"))
			v += 7;
		snprintf(id, idsz, "%s", v);
		return 0;
	}
	char msg[400];
	sp_runtime_message(eo, msg, sizeof msg);
	sp_fail_errno(err, EIO, "%s", msg);
	if (eo && (strstr(eo, "No such image") || strstr(eo, "image not known") || strstr(eo, "No such object") ||
		   strstr(eo, "failed to find image")))
		return 0;
	return -1;
}

/* the run's own suffix for what it makes in an engine (the image, the check container) */
static const char *run_hex(sp_live_engine_state *st)
{
	if (!st->run_hex[0]) {
		unsigned char b[6];
		if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
			uint64_t t = sp_now_ns();
			memcpy(b, &t, sizeof b);
		}
		for (size_t i = 0; i < sizeof b; i++)
			snprintf(st->run_hex + 2 * i, 3, "%02x", b[i]);
	}
	return st->run_hex;
}

/* FROM scratch, the doctor alone: what the Containerfile builds, from --doctor, for this run */

static int build_doctor_image(const sp_live_lane *l, sp_outcome *o)
{
	sp_live_engine *e = l->rt->engine;
	sp_live_engine_state *st = e->st;
	const sp_live_cfg *cfg = l->cfg;
	snprintf(st->build_label, sizeof st->build_label, "sandprobe-live-%d-%s", (int)getpid(), run_hex(st));
	snprintf(st->build_ctx, sizeof st->build_ctx, "%s/sandprobe-image.XXXXXX", cfg->tmpbase[0] ? cfg->tmpbase : "/tmp");
	if (!mkdtemp(st->build_ctx)) {
		sp_why(o, "--doctor-image: mkdtemp %s: %s", st->build_ctx, strerror(errno));
		st->build_ctx[0] = '\0';
		return -1;
	}
	char tag[160], label[160];
	snprintf(tag, sizeof tag, "localhost/sandprobe-doctor-%d-%s:live", (int)getpid(), run_hex(st));
	snprintf(label, sizeof label, "%s=%s", build_label_key, st->build_label);
	/* from here on, whatever the build leaves (context, image, intermediates) is the run's to remove */
	snprintf(st->image, sizeof st->image, "%s", tag);
	st->image_ours = true;
	char p[700];
	sp_error err;
	sp_error_clear(&err);
	snprintf(p, sizeof p, "%s/sandprobe-doctor", st->build_ctx);
	if (sp_copy_file(cfg->doctor, p, 0755, &err) < 0) {
		sp_why(o, "--doctor-image: %s", err.msg);
		return -1;
	}
	/* the Containerfile's recipe, without its ARG (the version is this sandprobe's) */
	snprintf(p, sizeof p, "%s/Containerfile", st->build_ctx);
	FILE *f = fopen(p, "w");
	bool wrote = f && fprintf(f,
				  "# the doctor image, as the Containerfile builds it (sandprobe live --doctor-image)\n"
				  "FROM scratch\n"
				  "LABEL org.opencontainers.image.title=\"sandprobe-doctor\" \\\n"
				  "      org.opencontainers.image.description=\"static in-sandbox isolation checks (sandprobe doctor)\" \\\n"
				  "      org.opencontainers.image.version=\"%s\"\n"
				  "COPY sandprobe-doctor /sandprobe-doctor\n"
				  "ENTRYPOINT [\"/sandprobe-doctor\"]\n"
				  "CMD [\"--profile\", \"container\"]\n",
				  SP_VERSION) > 0;
	if (f && fclose(f) != 0)
		wrote = false;
	if (!wrote) {
		sp_why(o, "--doctor-image: cannot write %s: %s", p, strerror(errno));
		return -1;
	}
	sp_strv argv;
	sp_strv_split(&argv, NULL, ",");
	if (e->docker) {
		/* the daemon's own builder: needs neither BuildKit nor buildx on this host */
		sp_strv_push(&argv, "env");
		sp_strv_push(&argv, "DOCKER_BUILDKIT=0");
		sp_strv_push(&argv, e->bin);
		sp_strv_push(&argv, "build");
		sp_strv_push(&argv, "--force-rm");
	} else {
		sp_strv_push(&argv, e->bin);
		sp_strv_push(&argv, "build");
		sp_strv_push(&argv, "--layers=false");
		sp_strv_push(&argv, "--pull=never");
	}
	sp_strv_push(&argv, "-q");
	sp_strv_push(&argv, "--label");
	sp_strv_push(&argv, label);
	sp_strv_push(&argv, "-f");
	sp_strv_push(&argv, p);
	sp_strv_push(&argv, "-t");
	sp_strv_push(&argv, tag);
	sp_strv_push(&argv, st->build_ctx);
	_cleanup_free_ char *eo = NULL;
	int rc = sp_run_cmd(argv.v, NULL, &eo, 120000);
	sp_strv_free(&argv);
	/* the context is not needed once the engine holds the image */
	sp_rm_rf(st->build_ctx);
	char msg[400];
	if (rc != 0) {
		sp_runtime_message(eo, msg, sizeof msg);
		sp_why(o, "--doctor-image: %s build failed (exit %d): %s", e->bin, rc, msg[0] ? msg : "(no output)");
		return -1;
	}
	sp_error ie;
	if (image_id_of(e, tag, st->image_id, sizeof st->image_id, &ie) < 0 || !st->image_id[0]) {
		sp_why(o, "--doctor-image: %s built %s but does not know it: %s", e->bin, tag, ie.msg);
		return -1;
	}
	snprintf(st->image_note, sizeof st->image_note,
		 "from the doctor image %s (id %.12s), built for this run from %s (FROM scratch, the doctor alone)", tag,
		 st->image_id, cfg->doctor);
	return 0;
}

/* the report between the markers of a --live-lane run, or NULL */
static char *between_markers(const char *out, const char *nonce)
{
	if (!out)
		return NULL;
	char begin[96], end[96];
	snprintf(begin, sizeof begin, "@@%s-begin@@", nonce);
	snprintf(end, sizeof end, "@@%s:", nonce);
	const char *b = strstr(out, begin);
	const char *m = b ? strstr(b, end) : NULL;
	if (!m)
		return NULL;
	b += strlen(begin);
	return sp_xstrndup(b, (size_t)(m - b));
}

/* Run the image's doctor once as the lanes will (its entrypoint, --live-lane) and ask it for its catalogue,
 * which must be the one of --doctor (the lanes' expectations come from it). While it holds the container open,
 * the root directory a container of this image gets is measured from the host (/proc/PID/root). */
static int check_image_doctor(const sp_live_lane *l, sp_outcome *o)
{
	sp_live_engine *e = l->rt->engine;
	sp_live_engine_state *st = e->st;
	const sp_live_cfg *cfg = l->cfg;
	char nonce[48];
	snprintf(nonce, sizeof nonce, "sp-check-%s", run_hex(st));
	snprintf(st->check_name, sizeof st->check_name, "sandprobe-check-%d-%s", (int)getpid(), run_hex(st));
	sp_strv argv;
	sp_strv_split(&argv, NULL, ",");
	const char *const pre[] = {e->bin, "run", "-i", "--rm", "--name", st->check_name, NULL};
	for (const char *const *x = pre; *x; x++)
		sp_strv_push(&argv, *x);
	for (const char *const *x = e->extra; x && *x; x++)
		sp_strv_push(&argv, *x);
	const char *const hard[] = {"--network", "none", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
				    "--entrypoint", doctor_in_image, st->image, "--live-lane", nonce, "--list", "--format", "json",
				    "--profile", cfg->profile, NULL};
	for (const char *const *x = hard; *x; x++)
		sp_strv_push(&argv, *x);
	sp_child c;
	sp_child_init(&c);
	sp_spawn_opts so = {.pipe_in = true, .capture_out = true, .capture_err = true, .out_max = 8u << 20, .err_max = 1u << 20, .die_with_parent = true};
	sp_error err;
	sp_error_clear(&err);
	int rc = -1;
	st->root_mode = -1;
	if (sp_spawn(&c, argv.v, &so, &err) == 0) {
		uint64_t deadline = sp_now_ns() + (uint64_t)cfg->timeout_ms * 1000000ull;
		char end[64];
		snprintf(end, sizeof end, "@@%s:", nonce);
		if (sp_child_read_until(&c, end, deadline) == 1) {
			char *insp[] = {(char *)e->bin, "inspect", "--format", "{{.State.Pid}}", st->check_name, NULL};
			_cleanup_free_ char *out = NULL;
			unsigned long long pid = 0;
			struct stat sb;
			char p[64];
			if (sp_run_cmd(insp, &out, NULL, 20000) == 0 && sp_parse_u64(sp_trim(out), &pid) == 0 && pid > 0) {
				snprintf(p, sizeof p, "/proc/%llu/root/", pid);
				if (stat(p, &sb) == 0) {
					st->root_mode = (int)(sb.st_mode & 07777);
					st->root_uid = sb.st_uid;
				}
			}
		}
		sp_child_wait(&c, deadline);
		rc = sp_child_code(&c);
	} else {
		sp_why(o, "cannot run %s: %s", e->bin, err.msg);
		sp_strv_free(&argv);
		return -1;
	}
	sp_strv_free(&argv);
	_cleanup_free_ char *list = between_markers(c.out_buf.data, nonce);
	if (rc != 0 || !list) {
		char msg[400];
		sp_runtime_message(c.err_buf.data && *c.err_buf.data ? c.err_buf.data : c.out_buf.data, msg, sizeof msg);
		sp_why(o,
		       "the doctor in image %s does not run as the lanes' entrypoint (`%s run --entrypoint %s %s --live-lane "
		       "%s --list` exit %d: %s): give an image built from this sandprobe's doctor (its Containerfile), or "
		       "--doctor-image",
		       st->image, e->bin, doctor_in_image, st->image, nonce, rc, msg[0] ? msg : "(no output)");
		sp_child_free(&c);
		return -1;
	}
	sp_child_free(&c);
	json_t *mine = cfg->catalogue ? json_loads(cfg->catalogue, 0, NULL) : NULL;
	json_t *theirs = json_loads(list, 0, NULL);
	bool same = mine && theirs && json_equal(mine, theirs);
	size_t nm = json_array_size(json_object_get(mine, "checks")), nt = json_array_size(json_object_get(theirs, "checks"));
	json_decref(mine);
	json_decref(theirs);
	if (!same) {
		sp_why(o,
		       "the doctor in image %s is not the one of --doctor %s: its catalogue differs (%zu checks, --doctor has "
		       "%zu; the lanes' expectations come from --doctor): rebuild the image from this build, or give "
		       "--doctor-image",
		       st->image, cfg->doctor, nt, nm);
		return -1;
	}
	return 0;
}

static int image_setup(const sp_live_lane *l, sp_outcome *o)
{
	sp_live_engine *e = l->rt->engine;
	sp_live_engine_state *st = e->st;
	const sp_live_cfg *cfg = l->cfg;
	if (cfg->doctor_image) {
		if (build_doctor_image(l, o) < 0)
			return -1;
	} else {
		snprintf(st->image, sizeof st->image, "%s", cfg->image);
		char id[160];
		sp_error ie;
		int r = image_id_of(e, cfg->image, id, sizeof id, &ie);
		if (r < 0 || !id[0]) {
			sp_why(o,
			       "--image %s: %s (`%s image inspect %s`: %s); build it from the Containerfile (%s%s build -f "
			       "Containerfile -t %s .) or give --doctor-image",
			       cfg->image, r < 0 ? "the engine cannot be asked for it" : "not in the engine's local store", e->bin,
			       cfg->image, ie.msg[0] ? ie.msg : "no answer", e->docker ? "DOCKER_BUILDKIT=0 " : "", e->bin, cfg->image);
			st->image[0] = '\0';
			return -1;
		}
		snprintf(st->image_note, sizeof st->image_note, "from the doctor image %s (id %.12s, --image)", cfg->image, id);
	}
	if (check_image_doctor(l, o) < 0)
		return -1;
	size_t len = strlen(st->image_note);
	snprintf(st->image_note + len, sizeof st->image_note - len,
		 "; no shell: the doctor (%s) holds the sandbox open itself (--live-lane), its catalogue is --doctor's",
		 doctor_in_image);
	return 0;
}

/* the doctor image, set up once per engine and run (its outcome shared by every lane of the run) */
static int image_once(const sp_live_lane *l)
{
	sp_live_engine_state *st = ((sp_live_engine *)l->rt->engine)->st;
	if (!st->image_tried) {
		st->image_tried = true;
		st->image_rc = image_setup(l, &st->image_why);
	}
	return st->image_rc;
}

int sp_engine_plan(sp_live_lane *l, sp_outcome *o)
{
	if (!image_mode(l->cfg))
		return 0;
	sp_live_engine_state *st = ((sp_live_engine *)l->rt->engine)->st;
	/* a setup that failed is the lane's error (prepare), not a limitation */
	if (image_once(l) < 0 || !(l->variant->removes & SP_PROT_ROROOT) || (l->variant->removes & SP_PROT_CAPS))
		return 0;
	/* the writable-root control keeps every capability dropped: with no CAP_DAC_OVERRIDE only the owner's
	 * write bit on / lets the doctor's create at / through */
	if (st->root_mode < 0) {
		sp_why(o, "the root directory of a container from image %s could not be measured (/proc/PID/root "
			  "of the catalogue check's container): cannot tell whether the writable-root control can fail",
		       st->image);
		return -1;
	}
	if (st->root_uid != 0 || !(st->root_mode & 0200)) {
		sp_why(o,
		       "a container from image %s gets a root directory of mode %04o owned by uid %u (as %s's storage makes "
		       "an image's root; measured at /proc/PID/root of the catalogue check's container): with every capability "
		       "dropped (no CAP_DAC_OVERRIDE) a create at / is refused by permissions even on a read-write root, so the "
		       "doctor can only warn: the writable-root control cannot run from the image (the rootfs lanes run it "
		       "from --rootfs)",
		       st->image, (unsigned)st->root_mode, (unsigned)st->root_uid, ((sp_live_engine *)l->rt->engine)->bin);
		return -1;
	}
	return 0;
}

/* the doctor image, once per engine and run; then the lane runs the doctor as its entrypoint */
static int image_prepare(sp_live_lane *l, sp_error *err)
{
	sp_live_engine_state *st = ((sp_live_engine *)l->rt->engine)->st;
	if (image_once(l) < 0)
		return sp_fail_errno(err, 0, "%s", st->image_why.why);
	sp_strv_free(&l->inside);
	sp_strv_split(&l->inside, NULL, ",");
	sp_strv_push(&l->inside, "--live-lane");
	sp_strv_push(&l->inside, l->nonce);
	for (size_t i = 0; i < l->doctor_args.n; i++)
		sp_strv_push(&l->inside, l->doctor_args.v[i]);
	sp_lane_note(l, "%s", st->image_note);
	return 0;
}

void sp_engine_claims(sp_live_launch *l)
{
	*l = (sp_live_launch){.ns = SP_NS_ALL & ~(unsigned)SP_NS_USER, .ro_root = true, .drop_caps = true, .seccomp = true,
			 .nnp = true, .min_dev = true, .tmp = true, .own_cgroup = true, .masked = true, .root_is_host_root = true};
}

int sp_engine_prepare(sp_live_lane *l, sp_error *err)
{
	sp_live_engine *e = l->rt->engine;
	if (image_mode(l->cfg))
		return image_prepare(l, err);
	if (e->st->image[0])
		return 0;
	char tarp[600];
	snprintf(tarp, sizeof tarp, "%s/rootfs.tar", l->dir);
	char *tar[] = {"tar", "-C", l->rootfs, "--numeric-owner", "-cf", tarp, ".", NULL};
	_cleanup_free_ char *eo = NULL;
	if (sp_run_cmd(tar, NULL, &eo, 30000) != 0)
		return sp_fail_errno(err, EIO, "tar of the rootfs failed: %s", eo ? eo : "");
	char image[128];
	snprintf(image, sizeof image, "localhost/sandprobe-live-%d-%s:latest", (int)getpid(), l->nonce + 8);
	char *imp[] = {(char *)e->bin, "import", tarp, image, NULL};
	free(eo);
	eo = NULL;
	int rc = sp_run_cmd(imp, NULL, &eo, 120000);
	unlink(tarp);
	/* whatever the import left is the run's to remove */
	snprintf(e->st->image, sizeof e->st->image, "%s", image);
	e->st->image_ours = true;
	if (rc != 0) {
		char last[256];
		sp_last_line(eo, last, sizeof last);
		return sp_fail_errno(err, EIO, "%s import failed: %s", e->bin, last);
	}
	sp_error ie;
	image_id_of(e, image, e->st->image_id, sizeof e->st->image_id, &ie);
	return 0;
}

int sp_engine_launch(sp_live_lane *l, sp_error *err)
{
	const sp_live_engine *e = l->rt->engine;
	const sp_live_launch *a = &l->actual;
	sp_strv argv;
	sp_strv_split(&argv, NULL, ",");
	sp_strv_push(&argv, e->bin);
	sp_strv_push(&argv, "run");
	sp_strv_push(&argv, "-i");
	sp_strv_push(&argv, "--rm");
	sp_strv_push(&argv, "--name");
	sp_strv_push(&argv, l->name);
	for (const char *const *x = e->extra; x && *x; x++)
		sp_strv_push(&argv, *x);
	char cidfile[600];
	if (e->docker) {
		/* the engine's id of the container: the key to what it leaves below it (containerd task, shim, runsc) */
		snprintf(cidfile, sizeof cidfile, "%s/cid", l->dir);
		sp_strv_push(&argv, "--cidfile");
		sp_strv_push(&argv, cidfile);
	}
	if (e->runtime[0]) {
		sp_strv_push(&argv, "--runtime");
		sp_strv_push(&argv, e->runtime);
	}
	sp_strv_push(&argv, "--network");
	sp_strv_push(&argv, (a->ns & SP_NS_NET) ? "none" : "host");
	/* Docker has no `--pid private`: a pid namespace of its own is its default */
	if (!(a->ns & SP_NS_PID) || !e->docker) {
		sp_strv_push(&argv, "--pid");
		sp_strv_push(&argv, (a->ns & SP_NS_PID) ? "private" : "host");
	}
	sp_strv_push(&argv, "--cgroupns");
	sp_strv_push(&argv, (a->ns & SP_NS_CGROUP) ? "private" : "host");
	if (a->ro_root)
		sp_strv_push(&argv, "--read-only");
	if (a->tmp) {
		sp_strv_push(&argv, "--tmpfs");
		sp_strv_push(&argv, "/tmp:rw,nosuid,nodev,size=65536k");
	}
	if (a->privileged) {
		sp_strv_push(&argv, "--privileged");
	} else {
		if (a->drop_caps) {
			sp_strv_push(&argv, "--cap-drop");
			sp_strv_push(&argv, "ALL");
		} else {
			/* the host's own set (a capability it lacks makes the OCI runtime fail),
			 * and with Docker only those the engine knows (it refuses the others) */
			sp_strv caps;
			sp_strv_split(&caps, NULL, ",");
			sp_host_caps(&caps);
			if (e->docker && e->st->caps_asked && e->st->caps_rc == 0)
				for (size_t i = caps.n; i-- > 0;)
					if (!sp_strv_contains(&e->st->caps_known, caps.v[i])) {
						free(caps.v[i]);
						memmove(&caps.v[i], &caps.v[i + 1], (caps.n - i) * sizeof *caps.v);
						caps.n--;
					}
			for (size_t i = 0; i < caps.n; i++) {
				sp_strv_push(&argv, "--cap-add");
				sp_strv_push(&argv, caps.v[i]);
			}
			sp_strv_free(&caps);
		}
	}
	if (a->nnp) {
		sp_strv_push(&argv, "--security-opt");
		sp_strv_push(&argv, "no-new-privileges");
	}
	_cleanup_free_ char *mask = NULL;
	if (a->masked && !a->privileged && l->cfg->masked.n && e->has_mask) {
		/* the engine's defaults plus the profile's list */
		size_t len = 0;
		for (size_t i = 0; i < l->cfg->masked.n; i++)
			len += strlen(l->cfg->masked.v[i]) + 1;
		mask = sp_xmalloc(len + 8);
		char *w = mask + snprintf(mask, len + 8, "mask=");
		for (size_t i = 0; i < l->cfg->masked.n; i++)
			w += snprintf(w, len + 8 - (size_t)(w - mask), "%s%s", i ? ":" : "", l->cfg->masked.v[i]);
		sp_strv_push(&argv, "--security-opt");
		sp_strv_push(&argv, mask);
	}
	char sopt[700];
	if (a->seccomp) {
		char path[600];
		snprintf(path, sizeof path, "%s/seccomp.json", l->dir);
		json_t *j = sp_seccomp_oci(l->cfg);
		int r = json_dump_file(j, path, 0);
		json_decref(j);
		if (r < 0) {
			sp_strv_free(&argv);
			return sp_fail_errno(err, EIO, "cannot write %s", path);
		}
		snprintf(sopt, sizeof sopt, "seccomp=%s", path);
	} else {
		snprintf(sopt, sizeof sopt, "seccomp=unconfined");
	}
	sp_strv_push(&argv, "--security-opt");
	sp_strv_push(&argv, sopt);
	if (!a->min_dev && !a->privileged) {
		sp_strv_push(&argv, "-v");
		sp_strv_push(&argv, "/dev:/dev");
	}
	bool from_image = image_mode(l->cfg);
	if (from_image) {
		/* no shell in it: the doctor is the entrypoint, and l->inside its --live-lane arguments */
		sp_strv_push(&argv, "--entrypoint");
		sp_strv_push(&argv, doctor_in_image);
		sp_strv_push(&argv, e->st->image);
	} else if (!a->ro_root && e->has_rootfs) {
		/* an imported layer's root is mode 0555 (containers/storage), so without
		 * --read-only a write at / would still be refused by permissions: the
		 * writable-root control runs from the lane's own rootfs (mode 0755) */
		sp_strv_push(&argv, "--rootfs");
		sp_strv_push(&argv, l->rootfs);
	} else {
		sp_strv_push(&argv, e->st->image);
	}
	for (size_t i = 0; i < l->inside.n; i++)
		sp_strv_push(&argv, l->inside.v[i]);
	bool rootfs = !from_image && !a->ro_root && e->has_rootfs;
	snprintf(l->rtinfo, sizeof l->rtinfo, "%s run %s %s%s%s%s", e->bin,
		 rootfs ? "--rootfs" : from_image ? "doctor image" : "image", rootfs ? l->rootfs : e->st->image,
		 a->privileged ? " --privileged" : "", e->runtime[0] ? " --runtime " : "", e->runtime);
	int r = sp_lane_proc_spawn(l, argv.v, err);
	sp_strv_free(&argv);
	return r;
}

void sp_engine_teardown(sp_live_lane *l)
{
	const sp_live_engine *e = l->rt->engine;
	char *argv[] = {(char *)e->bin, "rm", "-f", l->name, NULL};
	sp_run_cmd(argv, NULL, NULL, 30000);
}

int sp_engine_leftovers(sp_live_lane *l, char *what, size_t whatsz)
{
	const sp_live_engine *e = l->rt->engine;
	char filter[128];
	snprintf(filter, sizeof filter, "name=^%s$", l->name);
	char *argv[] = {(char *)e->bin, "ps", "-a", "-q", "--filter", filter, NULL};
	_cleanup_free_ char *out = NULL;
	int rc = sp_run_cmd(argv, &out, NULL, 30000);
	if (rc != 0) {
		snprintf(what, whatsz, "%s ps failed (exit %d): cannot prove the container is gone", e->bin, rc);
		return 1;
	}
	if (sp_trim(out)[0]) {
		snprintf(what, whatsz, "container %s still listed (%s)", l->name, sp_trim(out));
		return 1;
	}
	snprintf(what, whatsz, "container %s gone", l->name);
	return 0;
}

/* what the engine still lists of the image this run made: by name, by id and (built) by the run's label */
static int image_left(const sp_live_engine *e, const sp_live_engine_state *st, char *what, size_t whatsz)
{
	char filter[200], lfilter[200];
	snprintf(filter, sizeof filter, "reference=%s", st->image);
	snprintf(lfilter, sizeof lfilter, "label=%s=%s", build_label_key, st->build_label);
	char *byname[] = {(char *)e->bin, "images", "-q", "--filter", filter, NULL};
	char *all[] = {(char *)e->bin, "images", "-a", "-q", "--no-trunc", NULL};
	char *bylabel[] = {(char *)e->bin, "images", "-a", "-q", "--filter", lfilter, NULL};
	char **const argvs[] = {byname, all, bylabel};
	size_t n = st->build_label[0] ? 3 : 2;
	int rc[3];
	char *out[3] = {0}, *eo[3] = {0};
	sp_run_cmds(argvs, n, rc, out, eo, 30000);
	int ret = 0;
	char msg[256];
	for (size_t i = 0; i < n && !ret; i++)
		if (rc[i] != 0) {
			sp_runtime_message(eo[i], msg, sizeof msg);
			snprintf(what, whatsz, "%s images fails (exit %d): cannot prove image %s gone: %s", e->bin, rc[i], st->image, msg);
			ret = 1;
		}
	if (!ret && sp_trim(out[0])[0]) {
		snprintf(what, whatsz, "the engine still lists image %s", st->image);
		ret = 1;
	} else if (!ret && st->image_id[0] && strstr(out[1], st->image_id)) {
		snprintf(what, whatsz, "the engine still lists image id %.12s (%s)", st->image_id, st->image);
		ret = 1;
	} else if (!ret && n == 3 && sp_trim(out[2])[0]) {
		snprintf(what, whatsz, "the engine still lists images of the run's build (label %s): %.200s", lfilter + 6,
			 sp_trim(out[2]));
		ret = 1;
	}
	for (size_t i = 0; i < n; i++) {
		free(out[i]);
		free(eo[i]);
	}
	return ret;
}

static int check_left(const sp_live_engine *e, const sp_live_engine_state *st, char *what, size_t whatsz)
{
	char filter[128];
	snprintf(filter, sizeof filter, "name=^%s$", st->check_name);
	char *argv[] = {(char *)e->bin, "ps", "-a", "-q", "--filter", filter, NULL};
	_cleanup_free_ char *out = NULL;
	int rc = sp_run_cmd(argv, &out, NULL, 30000);
	if (rc != 0) {
		snprintf(what, whatsz, "%s ps fails (exit %d): cannot prove container %s gone", e->bin, rc, st->check_name);
		return 1;
	}
	if (sp_trim(out)[0]) {
		snprintf(what, whatsz, "%s still lists container %s", e->bin, st->check_name);
		return 1;
	}
	return 0;
}

static void append(char *buf, size_t sz, const char *fmt, ...) SP_PRINTF(3, 4);
static void append(char *buf, size_t sz, const char *fmt, ...)
{
	size_t len = strnlen(buf, sz);
	if (len + 1 >= sz)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + len, sz - len, fmt, ap);
	va_end(ap);
}

/* remove what a build left under the run's label (untagged intermediates), by id */
static void remove_labelled(const sp_live_engine *e, const sp_live_engine_state *st)
{
	char lfilter[200];
	snprintf(lfilter, sizeof lfilter, "label=%s=%s", build_label_key, st->build_label);
	char *ls[] = {(char *)e->bin, "images", "-a", "-q", "--filter", lfilter, NULL};
	_cleanup_free_ char *out = NULL;
	if (sp_run_cmd(ls, &out, NULL, 30000) != 0)
		return;
	char *save = NULL;
	for (char *id = strtok_r(out, " \t\n", &save); id; id = strtok_r(NULL, " \t\n", &save)) {
		char *rm[] = {(char *)e->bin, "rmi", "-f", id, NULL};
		sp_run_cmd(rm, NULL, NULL, 60000);
	}
}

int sp_engine_finish(const sp_live_runtime *rt, const sp_live_cfg *cfg, char *what, size_t whatsz)
{
	(void)cfg;
	sp_live_engine *e = rt->engine;
	sp_live_engine_state *st = e->st;
	if (!st->image_ours && !st->check_name[0])
		return -1; /* the run made nothing in this engine (a user's --image is the user's) */
	int ret = 0;
	char w[512];
	what[0] = '\0';
	if (st->check_name[0]) {
		if (check_left(e, st, w, sizeof w)) {
			char *rm[] = {(char *)e->bin, "rm", "-f", st->check_name, NULL};
			sp_run_cmd(rm, NULL, NULL, 30000);
		}
		int r = check_left(e, st, w, sizeof w);
		if (r)
			append(what, whatsz, "%s", w);
		else
			append(what, whatsz, "the catalogue check's container %s gone", st->check_name);
		ret |= r;
		st->check_name[0] = '\0';
	}
	if (st->image_ours) {
		char *argv[] = {(char *)e->bin, "rmi", "-f", st->image, NULL};
		sp_run_cmd(argv, NULL, NULL, 60000);
		if (image_left(e, st, w, sizeof w)) {
			/* by id, and what a build left untagged under the run's label */
			if (st->image_id[0]) {
				char *byid[] = {(char *)e->bin, "rmi", "-f", st->image_id, NULL};
				sp_run_cmd(byid, NULL, NULL, 60000);
			}
			if (st->build_label[0])
				remove_labelled(e, st);
		}
		int r = image_left(e, st, w, sizeof w);
		if (r)
			append(what, whatsz, "%s%s", what[0] ? "; " : "", w);
		else
			append(what, whatsz, "%simage %s (id %.12s) %s by this run removed: %s lists no image of that name or id%s",
			       what[0] ? "; " : "", st->image, st->image_id[0] ? st->image_id : "?",
			       st->build_label[0] ? "built" : "imported", e->bin, st->build_label[0] ? " nor of the build's label" : "");
		ret |= r;
		if (st->build_ctx[0]) {
			struct stat sb;
			bool gone = lstat(st->build_ctx, &sb) < 0 && errno == ENOENT;
			if (!gone && sp_rm_rf(st->build_ctx) == 0)
				gone = lstat(st->build_ctx, &sb) < 0 && errno == ENOENT;
			append(what, whatsz, "; build context %s %s", st->build_ctx, gone ? "removed" : "NOT REMOVED");
			ret |= !gone;
		}
		st->image_ours = false;
	}
	st->image[0] = '\0';
	st->image_id[0] = '\0';
	st->build_label[0] = '\0';
	st->build_ctx[0] = '\0';
	return ret;
}
