/* One lane, start to end: derive the doctor's expectations from the claimed
 * launch, prepare, launch, collect the doctor's report, check from the host
 * while the sandbox is held open, tear down and prove nothing is left. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live/live.h"

const sp_live_variant sp_variants[] = {
	{"strict", 0, NULL},
	{"host-pid", SP_PROT_PIDNS, "host pid namespace"},
	{"host-net", SP_PROT_NETNS, "host network"},
	{"writable-root", SP_PROT_ROROOT, "writable root"},
	{"kept-caps", SP_PROT_CAPS, "kept capabilities"},
	{"host-dev", SP_PROT_DEV, "host /dev"},
	{"no-seccomp", SP_PROT_SECCOMP, "no seccomp"},
	{"privileged", SP_PROT_UNPRIV | SP_PROT_CAPS | SP_PROT_SECCOMP | SP_PROT_DEV, "privileged"},
	{"no-nnp", SP_PROT_NNP, "no no_new_privs"},
};
const size_t sp_variants_count = SP_ARRAY_SIZE(sp_variants);

const sp_live_variant *sp_variant_find(const char *name)
{
	for (size_t i = 0; i < sp_variants_count; i++)
		if (!strcmp(sp_variants[i].name, name))
			return &sp_variants[i];
	return NULL;
}

/* which checks cover each protection (globs; only ids that exist count) */
static const char *const checks_pidns[] = {SP_CKID(ns_pid), SP_CKID(proc_host_visible), SP_HOSTID(ns_pid), NULL};
static const char *const checks_netns[] = {SP_CKID(ns_net), SP_CKID(net_interfaces), SP_HOSTID(ns_net), NULL};
static const char *const checks_roroot[] = {SP_CKID(fs_rootfs_readonly), SP_HOSTID(fs_rootfs_readonly), NULL};
static const char *const checks_caps[] = {SP_CKID(caps_effective), SP_CKID(caps_bounding), SP_HOSTID(caps), NULL};
static const char *const checks_dev[] = {SP_CKID(dev_host_devices), SP_HOSTID(dev), NULL};
static const char *const checks_seccomp[] = {SP_CKID(seccomp_mode), SP_HOSTID(seccomp), NULL};
static const char *const checks_nnp[] = {SP_CKID(priv_no_new_privs), SP_HOSTID(nnp), NULL};
static const char *const checks_unpriv[] = {NULL}; /* covered by the protections it implies */
static const char *const checks_none[] = {NULL};

/* checks that may also fail when the protection goes (not required to, not
 * collateral): finer probes of the same property that other check families
 * add, whose outcome depends on the host (e.g. egress with host networking) */
static const char *const may_pidns[] = {SP_CKGLOB(proc), SP_CKID(caps_kill), SP_CKID(fs_proc1_root), SP_HOSTID(cgroup), NULL};
static const char *const may_netns[] = {SP_CKGLOB(net), NULL};
static const char *const may_roroot[] = {SP_CKGLOB(fs), NULL};
static const char *const may_caps[] = {SP_CKGLOB(caps), SP_CKGLOB(priv), SP_CKGLOB(kernel), SP_CKID(dev_mknod), SP_CKGLOB(fs), NULL};
static const char *const may_dev[] = {SP_CKGLOB(dev), SP_CKGLOB(kernel), SP_CKID(fs_nodev), SP_CKID(fs_nosuid), NULL};
static const char *const may_seccomp[] = {SP_CKGLOB(seccomp), SP_CKGLOB(kernel), SP_CKGLOB(priv), NULL};
static const char *const may_nnp[] = {SP_CKGLOB(priv), NULL};
static const char *const may_unpriv[] = {SP_CKGLOB(fs), SP_CKGLOB(proc), SP_CKGLOB(kernel), SP_CKGLOB(dev), SP_CKGLOB(priv), SP_CKGLOB(cgroup), NULL};

/* by protection, in bit order */
static const struct {
	const char *const *checks, *const *may;
	const char *name;
} prots[SP_PROT_COUNT] = {
#define SP_PR(sym, table, name) [SP_PROT_IDX_##sym] = {checks_##table, may_##table, name},
#include "live/list_prots.h"
#undef SP_PR
};

static int prot_index(unsigned prot)
{
	for (int i = 0; i < SP_PROT_COUNT; i++)
		if (prot == 1u << i)
			return i;
	return -1;
}

const char *const *sp_prot_checks(unsigned prot)
{
	int i = prot_index(prot);
	return i < 0 ? checks_none : prots[i].checks;
}

const char *const *sp_prot_may_fail(unsigned prot)
{
	int i = prot_index(prot);
	return i < 0 ? checks_none : prots[i].may;
}

const char *sp_prot_name(unsigned prot)
{
	int i = prot_index(prot);
	return i < 0 ? "?" : prots[i].name;
}

void sp_launch_remove(sp_live_launch *l, unsigned removes)
{
	if (removes & SP_PROT_PIDNS)
		l->ns &= ~(unsigned)SP_NS_PID;
	if (removes & SP_PROT_NETNS)
		l->ns &= ~(unsigned)SP_NS_NET;
	if (removes & SP_PROT_ROROOT)
		l->ro_root = false;
	if (removes & SP_PROT_CAPS)
		l->drop_caps = false;
	if (removes & SP_PROT_DEV)
		l->min_dev = false;
	if (removes & SP_PROT_SECCOMP)
		l->seccomp = false;
	if (removes & SP_PROT_UNPRIV)
		l->privileged = true;
	if (removes & SP_PROT_NNP)
		l->nnp = false;
}

/* report, do not judge, the checks matching glob (when any exists) */
static void advise(const sp_live_cfg *cfg, sp_strv *sets, const char *glob)
{
	for (size_t i = 0; i < cfg->ids.n; i++)
		if (sp_glob_match(glob, cfg->ids.v[i])) {
			_cleanup_free_ char *a = sp_xasprintf("expect.%s=advisory", glob);
			if (!sp_strv_contains(sets, a))
				sp_strv_push(sets, a);
			return;
		}
}

static void set_if_known(const sp_live_cfg *cfg, sp_strv *sets, const char *key, const char *value)
{
	if (!sp_strv_contains(&cfg->keys, key))
		return;
	_cleanup_free_ char *a = sp_xasprintf("%s=%s", key, value);
	sp_strv_push(sets, a);
}

void sp_live_derive_sets(const sp_live_launch *c, const sp_live_cfg *cfg, sp_strv *sets)
{
	char ns[128] = "";
	for (unsigned i = 0; i < 7; i++)
		if (c->ns & (1u << i)) {
			size_t len = strlen(ns);
			snprintf(ns + len, sizeof ns - len, "%s%s", len ? "," : "", sp_ns_names[i]);
		}
	set_if_known(cfg, sets, "ns.required", ns);
	/* a VM's own kernel threads are the guest's, not the host's */
	set_if_known(cfg, sets, "proc.isolated", (c->ns & SP_NS_PID) ? "true" : "false");
	set_if_known(cfg, sets, "caps.effective", c->drop_caps ? "" : "ALL");
	set_if_known(cfg, sets, "caps.bounding", c->drop_caps ? "" : "ALL");
	set_if_known(cfg, sets, "priv.no_new_privs", c->nnp ? "true" : "false");
	set_if_known(cfg, sets, "seccomp.required", c->seccomp ? "true" : "false");
	set_if_known(cfg, sets, "fs.rootfs_readonly", c->ro_root ? "true" : "false");
	set_if_known(cfg, sets, "fs.writable", c->tmp ? "/tmp" : "");
	if (c->ns & SP_NS_NET)
		set_if_known(cfg, sets, "net.interfaces", "lo");
	if (c->min_dev)
		set_if_known(cfg, sets, "dev.allow", "null,zero,full,random,urandom,tty,ptmx");
	else
		advise(cfg, sets, SP_CKGLOB(dev)); /* an empty dev.allow would demand no device at all */
	/* a VM's root is root of its own kernel: the initial user namespace there is not the host's */
	set_if_known(cfg, sets, "ns.user_root_is_host_root", c->root_is_host_root || c->vm ? "true" : "false");
	set_if_known(cfg, sets, "priv.root_is_host_root", c->root_is_host_root || c->vm ? "true" : "false");
	if (c->vm) {
		/* the guest's kernel and devices are the sandbox's own: report them, do not judge them */
		advise(cfg, sets, SP_CKGLOB(kernel));
		advise(cfg, sets, SP_CKGLOB(dev));
	}
	/* a launch without a filter, masks or mounts of its own does not claim what they give */
	if (!c->seccomp) {
		set_if_known(cfg, sets, "seccomp.deny", "");
		set_if_known(cfg, sets, "kernel.userns_allowed", "true");
	}
	if (!c->masked) {
		set_if_known(cfg, sets, "fs.masked", "");
		set_if_known(cfg, sets, "fs.readonly", "");
		set_if_known(cfg, sets, "fs.knobs_readonly", "false");
	}
	if (c->chroot)
		set_if_known(cfg, sets, "fs.propagation", ""); /* no mount at /: nothing to propagate */
	if (!c->tmp) {
		set_if_known(cfg, sets, "fs.tmpfs", "");
		set_if_known(cfg, sets, "fs.nosuid", "");
		set_if_known(cfg, sets, "fs.nodev", "");
	}
}

int sp_live_check_static(const char *path, sp_error *err)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sp_usage(err, "%s: %s", path, strerror(errno));
	Elf64_Ehdr eh;
	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64)
		return sp_usage(err, "%s: not a 64-bit ELF executable", path);
	for (unsigned i = 0; i < eh.e_phnum && i < 256; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) != (ssize_t)sizeof ph)
			return sp_usage(err, "%s: truncated program headers", path);
		if (ph.p_type == PT_INTERP)
			return sp_usage(err, "%s: dynamically linked, but a sandbox rootfs has no libc (give a static build)",
					path);
	}
	return 0;
}

int sp_live_load_catalogue(sp_live_cfg *cfg, sp_error *err)
{
	/* the user's --set go along: the doctor itself refuses a key or value it does not know */
	size_t na = 7 + 2 * cfg->sets.n;
	_cleanup_free_ char **argv = sp_xcalloc(na, sizeof *argv);
	size_t a = 0;
	argv[a++] = cfg->doctor;
	argv[a++] = "--list";
	argv[a++] = "--format";
	argv[a++] = "json";
	argv[a++] = "--profile";
	argv[a++] = (char *)cfg->profile;
	for (size_t i = 0; i < cfg->sets.n; i++) {
		argv[a++] = "--set";
		argv[a++] = cfg->sets.v[i];
	}
	argv[a] = NULL;
	_cleanup_free_ char *out = NULL;
	_cleanup_free_ char *eout = NULL;
	int rc = sp_run_cmd(argv, &out, &eout, 10000);
	if (rc != 0) {
		char last[256];
		sp_last_line(eout, last, sizeof last);
		if (cfg->sets.n && rc == 2)
			return sp_usage(err, "live: the doctor refuses a --set: %s",
					sp_startswith(last, "sandprobe: ") ? last + strlen("sandprobe: ") : last);
		return sp_usage(err, "%s --list --format json: exit %d (%s)", cfg->doctor, rc, last);
	}
	free(cfg->catalogue);
	cfg->catalogue = sp_xstrdup(out);
	json_error_t je;
	json_t *root = json_loads(out, 0, &je);
	json_t *checks = root ? json_object_get(root, "checks") : NULL;
	if (!json_is_array(checks)) {
		json_decref(root);
		return sp_usage(err, "%s --list: no checks array (line %d: %s)", cfg->doctor, je.line, je.text);
	}
	size_t i;
	json_t *c;
	json_array_foreach(checks, i, c) {
		const char *id = json_string_value(json_object_get(c, "id"));
		if (!id)
			continue;
		sp_strv_push(&cfg->ids, id);
		/* a check the profile turns off is not run, so not in the report */
		const char *expect = json_string_value(json_object_get(c, "expect"));
		if (!expect || strcmp(expect, "off"))
			sp_strv_push(&cfg->run_ids, id);
		size_t ki;
		json_t *kind;
		json_array_foreach(json_object_get(c, "separate_kernel_satisfies"), ki, kind) {
			const char *kn = json_string_value(kind);
			if (kn && !strcmp(kn, "user-space"))
				sp_strv_push(&cfg->sat_user_space, id);
			else if (kn && !strcmp(kn, "guest"))
				sp_strv_push(&cfg->sat_guest, id);
		}
		json_t *pol = json_object_get(c, "policy");
		const char *k;
		json_t *v;
		if (json_is_object(pol))
			json_object_foreach(pol, k, v) {
				if (!sp_strv_contains(&cfg->keys, k))
					sp_strv_push(&cfg->keys, k);
				if (!strcmp(k, "seccomp.deny") && json_is_string(v) && cfg->seccomp_deny.n == 0) {
					sp_strv_free(&cfg->seccomp_deny);
					sp_strv_split(&cfg->seccomp_deny, json_string_value(v), ", \t\n");
				}
				if (!strcmp(k, "fs.masked") && json_is_string(v) && cfg->masked.n == 0) {
					sp_strv_free(&cfg->masked);
					sp_strv_split(&cfg->masked, json_string_value(v), ", \t\n");
				}
			}
	}
	json_decref(root);
	if (cfg->ids.n == 0)
		return sp_usage(err, "%s --list: empty catalogue", cfg->doctor);
	return 0;
}

void sp_lane_init(sp_live_lane *l, const sp_live_runtime *rt, const sp_live_variant *v, const sp_live_cfg *cfg)
{
	memset(l, 0, sizeof *l);
	l->rt = rt;
	l->variant = v;
	l->cfg = cfg;
	sp_child_init(&l->proc);
	l->seccomp_fd = -1;
	l->doctor_rc = -1;
	l->status = SP_STATUS_ERROR;
}

void sp_lane_free(sp_live_lane *l)
{
	sp_lres_free(&l->results);
	sp_strv_free(&l->inside);
	sp_strv_free(&l->doctor_args);
	sp_strv_free(&l->expected_fail);
	sp_strv_free(&l->missed);
	sp_strv_free(&l->collateral);
	sp_strv_free(&l->also_failed);
	sp_strv_free(&l->by_boundary);
	sp_child_free(&l->proc);
	if (l->seccomp_fd >= 0)
		close(l->seccomp_fd);
	free(l->prefilter);
	free(l->doctor_json);
	free(l->stderr_tail);
	free(l->command);
	if (l->rt && l->rt->lane_free)
		l->rt->lane_free(l);
}

static void lane_skip(sp_live_lane *l, const char *fmt, ...) SP_PRINTF(2, 3);
static void lane_skip(sp_live_lane *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l->reason, sizeof l->reason, fmt, ap);
	va_end(ap);
	l->status = SP_STATUS_SKIP;
}

bool sp_lane_by_boundary(const sp_live_lane *l, const char *id)
{
	if (!l->boundary_accepted)
		return false;
	if (!strcmp(l->boundary, "user-space") && l->claim.user_kernel)
		return sp_strv_contains(&l->cfg->sat_user_space, id);
	if (!strcmp(l->boundary, "guest") && l->claim.vm)
		return sp_strv_contains(&l->cfg->sat_guest, id);
	return false;
}

/* the ids (doctor catalogue, host checks this lane produced) that cover what the variant removed */
static void compute_expected(sp_live_lane *l)
{
	sp_strv_free(&l->expected_fail);
	sp_strv_split(&l->expected_fail, NULL, ",");
	sp_strv_free(&l->by_boundary);
	sp_strv_split(&l->by_boundary, NULL, ",");
	for (unsigned bit = 1; bit <= SP_PROT_LAST; bit <<= 1) {
		if (!(l->variant->removes & bit) || (l->kept & bit))
			continue;
		for (const char *const *g = sp_prot_checks(bit); *g; g++) {
			for (size_t i = 0; i < l->cfg->ids.n; i++) {
				const char *id = l->cfg->ids.v[i];
				if (!sp_glob_match(*g, id) || sp_strv_contains(&l->expected_fail, id) ||
				    sp_strv_contains(&l->by_boundary, id))
					continue;
				if (sp_lane_by_boundary(l, id))
					sp_strv_push(&l->by_boundary, id);
				else
					sp_strv_push(&l->expected_fail, id);
			}
			for (size_t i = 0; i < l->results.n; i++)
				if (l->results.v[i].host && sp_glob_match(*g, l->results.v[i].id) &&
				    !sp_strv_contains(&l->expected_fail, l->results.v[i].id))
					sp_strv_push(&l->expected_fail, l->results.v[i].id);
		}
	}
}

void sp_lane_judge(sp_live_lane *l)
{
	bool bad = false;
	size_t nfail = 0, nwarn = 0, nskip = 0;
	for (size_t i = 0; i < l->results.n; i++) {
		sp_status st = l->results.v[i].status;
		if (st == SP_STATUS_FAIL || st == SP_STATUS_ERROR) {
			bad = true;
			nfail++;
		}
		nwarn += st == SP_STATUS_WARN;
		nskip += st == SP_STATUS_SKIP;
	}
	l->status = bad ? SP_STATUS_FAIL : SP_STATUS_PASS;
	if (!l->variant->removes) {
		/* "all checks passed" only when nothing warned or skipped beside it */
		if (!l->reason[0] && !bad && (nwarn || nskip))
			snprintf(l->reason, sizeof l->reason, "no check failed (%zu warned, %zu skipped)", nwarn, nskip);
		else if (!l->reason[0])
			snprintf(l->reason, sizeof l->reason, "%s", bad ? "a check failed" : "all checks passed");
		return;
	}
	compute_expected(l);
	sp_strv_split(&l->missed, NULL, ",");
	sp_strv_split(&l->collateral, NULL, ",");
	sp_strv_split(&l->also_failed, NULL, ",");
	for (size_t i = 0; i < l->expected_fail.n; i++) {
		const sp_live_result *r = sp_lres_find(&l->results, l->expected_fail.v[i]);
		if (!r || r->status != SP_STATUS_FAIL)
			sp_strv_push(&l->missed, l->expected_fail.v[i]);
	}
	for (size_t i = 0; i < l->results.n; i++) {
		const char *id = l->results.v[i].id;
		if ((l->results.v[i].status != SP_STATUS_FAIL && l->results.v[i].status != SP_STATUS_ERROR) ||
		    sp_strv_contains(&l->expected_fail, id))
			continue;
		bool may = false;
		for (unsigned bit = 1; bit <= SP_PROT_LAST && !may; bit <<= 1)
			if (l->variant->removes & bit)
				for (const char *const *g = sp_prot_may_fail(bit); *g && !may; g++)
					may = sp_glob_match(*g, id) && l->results.v[i].status == SP_STATUS_FAIL;
		if (may)
			sp_strv_push(&l->also_failed, id);
		else
			sp_strv_push(&l->collateral, id);
	}
	l->defect = l->expected_fail.n == 0 || l->missed.n > 0;
	if (l->expected_fail.n == 0)
		snprintf(l->reason, sizeof l->reason, "negative control: no check in this doctor covers %s",
			 l->variant->property);
	else if (l->missed.n)
		snprintf(l->reason, sizeof l->reason, "TOOL DEFECT: negative control (%s) did not fail %zu of %zu covering checks",
			 l->variant->property, l->missed.n, l->expected_fail.n);
	else
		snprintf(l->reason, sizeof l->reason, "negative control (%s) failed as it must: %zu covering checks failed%s%s%s%s",
			 l->variant->property, l->expected_fail.n, l->collateral.n ? ", with collateral failures" : "",
			 l->by_boundary.n ? "; judged by the doctor against the " : "", l->by_boundary.n ? l->boundary : "",
			 l->by_boundary.n ? " kernel its policy accepts, not demanded to fail: see judged_by_boundary" : "");
}

static bool has_begin(const sp_live_lane *l)
{
	char begin[64];
	snprintf(begin, sizeof begin, "@@%s-begin@@", l->nonce);
	return l->proc.out_buf.data && strstr(l->proc.out_buf.data, begin);
}

static void random_hex(char *out, size_t bytes)
{
	unsigned char b[32];
	if (bytes > sizeof b)
		bytes = sizeof b;
	if (getrandom(b, bytes, 0) != (ssize_t)bytes) {
		uint64_t t = sp_now_ns() ^ (uint64_t)getpid();
		memcpy(b, &t, bytes < 8 ? bytes : 8);
	}
	for (size_t i = 0; i < bytes; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* the end of a phase of the lane, to the run's progress callback */
static void phase(const sp_live_lane *l, const char *what, uint64_t t0)
{
	if (l->cfg->on_phase)
		l->cfg->on_phase(l->cfg->phase_arg, l, what, (double)(sp_now_ns() - t0) / 1e6);
}

/* the begin marker proves that the sandbox started: a runtime that ends before it printed one failed to launch */
static const char inside_script[] = "echo \"@@$0-begin@@\"; \"$@\"; rc=$?; echo; echo \"@@$0:$rc@@\"; read _";

static void teardown_and_prove(sp_live_lane *l, bool launched)
{
	uint64_t t0 = sp_now_ns();
	char obs[1024] = "", what[512];
	bool ok = true, exited = false;
	if (launched) {
		uint64_t deadline = sp_now_ns() + 20000000000ull;
		int st = sp_child_wait(&l->proc, deadline);
		size_t len = strlen(obs);
		char how[96];
		sp_child_describe(&l->proc, how, sizeof how);
		if (st == -1) {
			ok = false;
			snprintf(obs + len, sizeof obs - len, "runtime process not reaped; ");
		} else {
			snprintf(obs + len, sizeof obs - len, "runtime %s; ", st == 0 ? how : "killed at the teardown deadline");
		}
		if (l->stderr_tail == NULL && l->proc.err_buf.data)
			l->stderr_tail = sp_xstrdup(l->proc.err_buf.data);
		exited = st == 0;
		phase(l, "td.reaped", t0);
	}
	/* a runtime that removes its container when it ends by itself needs its teardown only when the
	 * proof below finds something left (or the lane was cut short) */
	bool torn = false;
	if (l->rt->teardown && !(l->rt->teardown_if_left && exited && !l->launch_failed)) {
		l->rt->teardown(l);
		torn = true;
	}
	size_t len = strlen(obs);
	if (l->host_pid > 0) {
		/* the sandbox's shell must be gone (or at least no longer ours: pid reuse) */
		/* wait (cheaply) for the shell itself, then prove with a full scan that no process carries the nonce */
		char pp[64];
		snprintf(pp, sizeof pp, "/proc/%d/cmdline", (int)l->host_pid);
		for (int i = 0; i < 4000; i++) {
			char cl[4096];
			ssize_t n = sp_read_file(pp, cl, sizeof cl);
			if (n <= 0 || !memmem(cl, (size_t)n, l->nonce, strlen(l->nonce)))
				break;
			usleep(500);
		}
		bool gone = sp_find_nonce_pid(l->nonce) == 0;
		for (int i = 0; i < 200 && !gone; i++) {
			usleep(10000);
			gone = sp_find_nonce_pid(l->nonce) == 0;
		}
		snprintf(obs + len, sizeof obs - len, "sandbox process %d %s; ", (int)l->host_pid, gone ? "gone" : "STILL RUNNING");
		ok &= gone;
		len = strlen(obs);
	}
	if (l->rt->leftovers) {
		int lr = l->rt->leftovers(l, what, sizeof what);
		if (lr != 0 && !torn && l->rt->teardown) {
			snprintf(obs + len, sizeof obs - len, "%s left after the runtime ended (%s): torn down; ", l->rt->name, what);
			len = strlen(obs);
			l->rt->teardown(l);
			lr = l->rt->leftovers(l, what, sizeof what);
		}
		snprintf(obs + len, sizeof obs - len, "%s: %s%s; ", l->rt->name, lr == 0 ? "nothing left: " : "", what);
		ok &= lr == 0;
		len = strlen(obs);
	}
	phase(l, "td.scanned", t0);
	if (l->dir[0]) {
		int m = sp_mounts_below(l->dir);
		if (m > 0) {
			ok = false;
			snprintf(obs + len, sizeof obs - len, "%d mounts left under %s; ", m, l->dir);
		} else if (!l->cfg->keep) {
			phase(l, "td.mounts", t0);
			int rr = sp_rm_rf(l->dir);
			phase(l, "td.rm", t0);
			struct stat st;
			bool gone = lstat(l->dir, &st) < 0 && errno == ENOENT;
			snprintf(obs + len, sizeof obs - len, "temp dir %s %s", l->dir,
				 rr == 0 && gone ? "removed, verified gone" : "NOT REMOVED");
			ok &= rr == 0 && gone;
		} else {
			snprintf(obs + len, sizeof obs - len, "temp dir %s kept (--keep)", l->dir);
		}
	}
	sp_lres_add(&l->results, SP_HOSTID(teardown), ok ? SP_STATUS_PASS : SP_STATUS_FAIL, "no process, mount, runtime state or temp dir left",
		    obs, "%s", ok ? "nothing left behind" : "something was left behind");
}

static void find_host_pid(sp_live_lane *l)
{
	sp_error err;
	sp_error_clear(&err);
	if (l->rt->host_pid) {
		if (l->rt->host_pid(l, &err) < 0)
			sp_lres_add(&l->results, SP_HOSTID(pid), SP_STATUS_ERROR, "the sandbox's process found from the host", "", "%s", err.msg);
		return;
	}
	pid_t p = sp_find_nonce_pid(l->nonce);
	if (p > 0)
		l->host_pid = p;
	else
		sp_lres_add(&l->results, SP_HOSTID(pid), SP_STATUS_ERROR, "exactly one process with the lane's nonce", p ? "several" : "none",
			    "cannot find the sandbox's process from the host");
}

/* a runtime is probed once per run: its later lanes reuse the answer */
static int probe_cached(const sp_live_runtime *rt, const sp_live_cfg *cfg, sp_outcome *o)
{
	static struct {
		const sp_live_runtime *rt;
		const sp_live_cfg *cfg;
		int rc;
		char why[1024];
	} cache[64];
	static size_t n;
	for (size_t i = 0; i < n; i++)
		if (cache[i].rt == rt && cache[i].cfg == cfg) {
			sp_why(o, "%s", cache[i].why);
			return cache[i].rc;
		}
	o->why[0] = '\0';
	o->errnum = 0;
	int rc = rt->probe(cfg, o);
	if (n < SP_ARRAY_SIZE(cache)) {
		cache[n].rt = rt;
		cache[n].cfg = cfg;
		cache[n].rc = rc;
		snprintf(cache[n].why, sizeof cache[n].why, "%s", o->why);
		n++;
	}
	return rc;
}

/* the doctor's arguments (expectations derived from the claimed launch) and the command run inside */
static void lane_args(sp_live_lane *l)
{
	const sp_live_cfg *cfg = l->cfg;
	sp_strv sets;
	sp_strv_split(&sets, NULL, ",");
	sp_live_derive_sets(&l->claim, cfg, &sets);
	sp_strv_split(&l->doctor_args, NULL, ",");
	sp_strv_push(&l->doctor_args, "--format");
	sp_strv_push(&l->doctor_args, "json");
	sp_strv_push(&l->doctor_args, "--profile");
	sp_strv_push(&l->doctor_args, cfg->profile);
	for (size_t i = 0; i < sets.n; i++) {
		sp_strv_push(&l->doctor_args, "--set");
		sp_strv_push(&l->doctor_args, sets.v[i]);
	}
	/* the user's own --set come last: the doctor keeps the last value of a key */
	for (size_t i = 0; i < cfg->sets.n; i++) {
		sp_strv_push(&l->doctor_args, "--set");
		sp_strv_push(&l->doctor_args, cfg->sets.v[i]);
	}
	sp_strv_free(&sets);
	sp_strv_split(&l->inside, NULL, ",");
	sp_strv_push(&l->inside, "/bin/sh");
	sp_strv_push(&l->inside, "-c");
	sp_strv_push(&l->inside, inside_script);
	sp_strv_push(&l->inside, l->nonce);
	sp_strv_push(&l->inside, l->rt->doctor_at ? l->rt->doctor_at : "/sandprobe-doctor");
	for (size_t i = 0; i < l->doctor_args.n; i++)
		sp_strv_push(&l->inside, l->doctor_args.v[i]);
}

void sp_lane_run(sp_live_lane *l)
{
	uint64_t t0 = sp_now_ns();
	const sp_live_cfg *cfg = l->cfg;
	sp_outcome o = {0};
	sp_error err;
	sp_error_clear(&err);
	bool launched = false;

	if ((l->variant->removes & ~l->rt->removable) != 0) {
		lane_skip(l, "%s cannot launch the '%s' variant", l->rt->name, l->variant->name);
		goto out;
	}
	if (probe_cached(l->rt, cfg, &o) < 0) {
		lane_skip(l, "%s", o.why);
		goto out;
	}
	l->rt->claims(&l->claim);
	if (l->rt->plan && l->rt->plan(l, &o) < 0) {
		lane_skip(l, "launch limitation: %s", o.why);
		l->limited = true;
		goto out;
	}
	if (l->variant->removes && !(l->variant->removes & ~l->kept & ~(unsigned)SP_PROT_UNPRIV)) {
		lane_skip(l, "launch limitation: %s keeps every protection the '%s' variant removes: %s", l->rt->name,
			  l->variant->name, l->notes[0] ? l->notes : "(no reason given)");
		l->limited = true;
		goto out;
	}
	l->actual = l->claim;
	sp_launch_remove(&l->actual, l->variant->removes);

	random_hex(l->nonce + snprintf(l->nonce, sizeof l->nonce, "sp-live-"), 8);
	snprintf(l->name, sizeof l->name, "sandprobe-%s", l->nonce + 8);
	snprintf(l->dir, sizeof l->dir, "%s/sandprobe-live.XXXXXX", cfg->tmpbase[0] ? cfg->tmpbase : "/tmp");
	if (!mkdtemp(l->dir)) {
		sp_fail_errno(&err, errno, "mkdtemp");
		l->dir[0] = '\0';
		goto broken;
	}
	if (chmod(l->dir, 0755) < 0) {
		sp_fail_errno(&err, errno, "chmod %s", l->dir);
		goto broken;
	}

	lane_args(l);
	phase(l, "plan", t0);
	if (sp_rootfs_prepare(l, &err) < 0)
		goto broken;
	if (l->rt->prepare && l->rt->prepare(l, &err) < 0)
		goto broken;
	if (l->rt->launch(l, &err) < 0)
		goto broken;
	launched = true;
	phase(l, "launched", t0);

	char needle[64], begin_marker[64];
	snprintf(needle, sizeof needle, "@@%s:", l->nonce);
	snprintf(begin_marker, sizeof begin_marker, "@@%s-begin@@", l->nonce);
	unsigned tmo = l->claim.vm ? cfg->vm_timeout_ms : cfg->timeout_ms;
	uint64_t deadline = sp_now_ns() + (uint64_t)tmo * 1000000ull;
	if (l->rt->boot_watchdog_ms && l->rt->fallback) {
		/* a guest that prints nothing in time under one accelerator gets one more try under the fallback */
		unsigned wd = l->rt->boot_watchdog_ms(l);
		if (wd && sp_child_read_until(&l->proc, begin_marker, sp_now_ns() + (uint64_t)wd * 1000000ull) != 1) {
			sp_child_free(&l->proc);
			if (l->rt->fallback(l, &err) < 0)
				goto broken;
			deadline = sp_now_ns() + (uint64_t)tmo * 1000000ull;
		}
	}
	/* the sandbox's process, from the host and the engine, while the doctor runs inside */
	bool found_early = false;
	int rr = l->claim.vm ? 1 : sp_child_read_until(&l->proc, begin_marker, deadline);
	if (rr == 1 && !l->claim.vm) {
		phase(l, "started", t0);
		find_host_pid(l);
		found_early = true;
		phase(l, "found", t0);
	}
	if (rr == 1)
		rr = sp_child_read_until(&l->proc, needle, deadline);
	if (rr != 1 && !l->claim.vm && !has_begin(l)) {
		/* the sandbox never started: the runtime refused or failed; say what it said and what was tried */
		char msg[512];
		if (rr == 0)
			sp_child_wait(&l->proc, sp_now_ns() + 5 * SP_NS_PER_S);
		sp_runtime_message(l->proc.err_buf.data, msg, sizeof msg);
		if (!msg[0])
			sp_runtime_message(l->proc.out_buf.data, msg, sizeof msg);
		if (l->rt->launch_message) {
			sp_error lm;
			sp_error_clear(&lm);
			snprintf(lm.msg, sizeof lm.msg, "%s", msg);
			l->rt->launch_message(l, &lm);
			snprintf(msg, sizeof msg, "%s", lm.msg);
		}
		char how[96] = "still running";
		if (l->proc.reaped)
			sp_child_describe(&l->proc, how, sizeof how);
		l->launch_failed = true;
		sp_lres_add(&l->results, SP_HOSTID(launch), SP_STATUS_ERROR, "the sandbox starts (its shell prints the begin marker)",
			    msg[0] ? msg : "(no output)", "%s", rr == -ETIMEDOUT ? "no start before the lane timeout" : "the runtime ended before the sandbox started");
		snprintf(l->reason, sizeof l->reason, "launch failed (%s): %s; tried: %.400s", rr == -ETIMEDOUT ? "timeout" : how,
			 msg[0] ? msg : "(no output)", l->command ? l->command : "?");
		goto teardown;
	}
	if (rr != 1) {
		char last[512];
		sp_last_line(l->proc.err_buf.data, last, sizeof last);
		if (!last[0])
			sp_last_line(l->proc.out_buf.data, last, sizeof last);
		sp_lres_add(&l->results, SP_HOSTID(doctor_report), SP_STATUS_ERROR, "a doctor report followed by the exit marker", last,
			    "%s", rr == -ETIMEDOUT ? "no report before the lane timeout" : "the sandbox ended without a report");
		snprintf(l->reason, sizeof l->reason, "%s: %s", rr == -ETIMEDOUT ? "timeout" : "no report",
			 last[0] ? last : "(no output)");
		goto teardown;
	}
	if (l->proc.out_buf.overflow) {
		sp_lres_add(&l->results, SP_HOSTID(doctor_report), SP_STATUS_ERROR, "a report under 8 MiB", "more than 8 MiB", "oversized report rejected");
		goto teardown;
	}
	/* the marker may arrive in pieces (a serial console): wait for its closing "@@" */
	uint64_t mdl = sp_now_ns() + 5000000000ull;
	while (!strstr(strstr(l->proc.out_buf.data, needle) + strlen(needle), "@@") && sp_now_ns() < mdl)
		if (sp_child_read_until(&l->proc, NULL, sp_now_ns() + 50000000ull) == 0)
			break;
	char *m = strstr(l->proc.out_buf.data, needle);
	char *mend = strstr(m + strlen(needle), "@@");
	unsigned long long urc;
	char rcs[32] = "";
	if (mend && (size_t)(mend - m) - strlen(needle) < sizeof rcs)
		memcpy(rcs, m + strlen(needle), (size_t)(mend - m) - strlen(needle));
	if (!rcs[0] || sp_parse_u64(rcs, &urc) < 0 || urc > 255) {
		sp_lres_add(&l->results, SP_HOSTID(doctor_report), SP_STATUS_ERROR, "the exit marker with the doctor's exit status",
			    mend ? rcs : "(cut off)", "malformed exit marker");
		goto teardown;
	}
	int rc = (int)urc;
	/* the report: from its opening brace to the marker */
	char *from = strstr(l->proc.out_buf.data, begin_marker);
	from = from && from < m ? from + strlen(begin_marker) : l->proc.out_buf.data;
	char *start = strchr(from, '{');
	if (!start || start > m)
		start = from; /* no object: hand over the raw text, which the validator rejects */
	while (start < m && (*start == ' ' || *start == '\n' || *start == '\r' || *start == '\t'))
		start++;
	size_t jlen = (size_t)(m - start);
	l->doctor_json = sp_xstrndup(start, jlen);
	l->doctor_rc = rc;
	if (!found_early)
		find_host_pid(l);
	phase(l, "report", t0);
	sp_doctor_ingest(l, l->doctor_json, jlen, rc);
	sp_host_checks(l);
	phase(l, "checked", t0);
	goto teardown;

broken:
	sp_lres_add(&l->results, SP_HOSTID(launch), SP_STATUS_ERROR, "the sandbox launches", "", "%s", err.msg);
	snprintf(l->reason, sizeof l->reason, "%s", err.msg);
teardown:
	teardown_and_prove(l, launched);
	phase(l, "torn down", t0);
	{
		char reason[sizeof l->reason];
		snprintf(reason, sizeof reason, "%s", l->reason);
		sp_lane_judge(l);
		if (reason[0] && (!l->variant->removes || l->launch_failed))
			snprintf(l->reason, sizeof l->reason, "%s", reason);
		if (l->launch_failed) {
			/* nothing was judged: a skip naming the runtime's message (a failure under --strict) */
			l->status = SP_STATUS_SKIP;
			l->defect = false;
		}
	}
out:
	l->ms = (double)(sp_now_ns() - t0) / 1e6;
}
