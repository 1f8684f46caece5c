/* Unit tests for the live tier's pure parts: expectations derived from a
 * launch, variant removals and their covering checks, the cpio newc writer,
 * and the validation of the doctor's report as untrusted input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include "checks/registry.h"
#include "live/live.h"
#include "unit/tap.h"

static sp_live_cfg cfg;

static const char *find_set(const sp_strv *sets, const char *key)
{
	size_t n = strlen(key);
	for (size_t i = 0; i < sets->n; i++)
		if (!strncmp(sets->v[i], key, n) && sets->v[i][n] == '=')
			return sets->v[i] + n + 1;
	return NULL;
}

static void test_derive(void)
{
	sp_live_launch strict = {.ns = SP_NS_ALL, .ro_root = true, .drop_caps = true, .seccomp = true, .nnp = true, .tmp = true};
	sp_strv sets;
	sp_strv_split(&sets, NULL, ",");
	sp_live_derive_sets(&strict, &cfg, &sets);
	is_str(find_set(&sets, "ns.required"), "pid,net,mnt,uts,ipc,user,cgroup", "all namespaces claimed -> ns.required lists all");
	is_str(find_set(&sets, "caps.effective"), "", "cap-drop ALL -> empty effective set");
	is_str(find_set(&sets, "fs.rootfs_readonly"), "true", "read-only root -> fs.rootfs_readonly=true");
	is_str(find_set(&sets, "seccomp.required"), "true", "seccomp -> seccomp.required=true");
	is_str(find_set(&sets, "fs.writable"), "/tmp", "tmpfs /tmp -> fs.writable=/tmp");
	ok(find_set(&sets, "net.interfaces") == NULL, "a key no check reads is not passed (net.interfaces)");
	sp_strv_free(&sets);

	sp_live_launch loose = {.ns = SP_NS_MNT | SP_NS_USER};
	sp_strv_split(&sets, NULL, ",");
	sp_live_derive_sets(&loose, &cfg, &sets);
	is_str(find_set(&sets, "ns.required"), "mnt,user", "only the namespaces the launch makes");
	is_str(find_set(&sets, "caps.effective"), "ALL", "kept capabilities -> caps.effective=ALL");
	is_str(find_set(&sets, "proc.isolated"), "false", "no pid namespace -> proc.isolated=false");
	is_str(find_set(&sets, "priv.no_new_privs"), "false", "no nnp -> not demanded");
	ok(find_set(&sets, "dev.allow") == NULL, "no minimal /dev claimed -> no dev.allow (empty would mean none)");
	sp_strv_free(&sets);
}

static void test_variants(void)
{
	sp_live_launch l = {.ns = SP_NS_ALL, .ro_root = true, .drop_caps = true, .seccomp = true, .min_dev = true};
	sp_live_launch a = l;
	sp_launch_remove(&a, sp_variant_find("host-pid")->removes);
	is_int(a.ns, SP_NS_ALL & ~(unsigned)SP_NS_PID, "host-pid removes only the pid namespace");
	is_int(a.ro_root && a.drop_caps && a.seccomp, 1, "host-pid keeps the rest");
	a = l;
	sp_launch_remove(&a, sp_variant_find("privileged")->removes);
	ok(a.privileged && !a.drop_caps && !a.seccomp && !a.min_dev && a.ro_root && a.ns == SP_NS_ALL,
	   "privileged: capabilities, seccomp and /dev go, namespaces and ro root stay");
	a = l;
	a.nnp = true;
	sp_launch_remove(&a, sp_variant_find("no-nnp")->removes);
	ok(!a.nnp && a.seccomp && a.drop_caps && a.ro_root && a.min_dev && a.ns == SP_NS_ALL, "no-nnp removes only no_new_privs");
	const char *const *gn = sp_prot_checks(SP_PROT_NNP);
	ok(gn[0] && !strcmp(gn[0], "priv.no_new_privs") && gn[1] && !strcmp(gn[1], "host.nnp") && !gn[2],
	   "no_new_privs is covered by priv.no_new_privs and host.nnp");
	ok(!(sp_rt_bwrap.removable & SP_PROT_NNP) && !(sp_rt_firejail.removable & SP_PROT_NNP),
	   "bwrap and firejail (whose --seccomp sets it) offer no no-nnp control");
	ok(sp_variant_find("nope") == NULL, "unknown variant");
	const char *const *g = sp_prot_checks(SP_PROT_PIDNS);
	ok(g[0] && !strcmp(g[0], "ns.pid"), "host pid namespace is covered by ns.pid first");
	ok(sp_glob_match("host.ns.*", "host.ns.pid") && !sp_glob_match("ns.pid", "ns.pidx"), "globs");
	for (size_t i = 1; i < sp_variants_count; i++)
		ok(sp_variants[i].removes != 0 && sp_variants[i].property != NULL, "variant %s removes something",
		   sp_variants[i].name);
	for (size_t i = 0; i < sp_runtimes_count; i++)
		ok(sp_runtimes[i]->probe && sp_runtimes[i]->claims && sp_runtimes[i]->launch, "adapter %s is complete",
		   sp_runtimes[i]->name);
}

/* the catalog live names checks through (catalog/catalog.h) is the doctor's registry, id for id, and its
 * prefixes are exactly the prefixes of the ids; every glob of a protection's tables matches some check */
static void test_catalog(void)
{
	is_int(SP_CK_COUNT, sp_checks_count, "the catalog lists every registered check");
	size_t same = 0;
	for (size_t i = 0; i < sp_checks_count && i < SP_CK_COUNT; i++) {
		if (!strcmp(sp_checks[i]->id, sp_check_ids[i]))
			same++;
		else
			printf("# catalog %zu is '%s', the registry's is '%s'\n", i, sp_check_ids[i], sp_checks[i]->id);
	}
	is_int(same, sp_checks_count, "the catalog's id of each check is its descriptor's id, in registry order");
	size_t prefixed = 0;
	for (size_t i = 0; i < SP_CK_COUNT; i++)
		for (size_t p = 0; p < SP_CKP_COUNT; p++)
			if (sp_glob_match(sp_check_globs[p], sp_check_ids[i])) {
				prefixed++;
				break;
			}
	is_int(prefixed, SP_CK_COUNT, "every check id starts with a listed prefix");
	for (size_t p = 0; p < SP_CKP_COUNT; p++) {
		size_t n = 0;
		for (size_t i = 0; i < SP_CK_COUNT; i++)
			n += sp_glob_match(sp_check_globs[p], sp_check_ids[i]);
		ok(n > 0 && !strncmp(sp_check_globs[p], sp_check_prefixes[p], strlen(sp_check_prefixes[p])),
		   "prefix %s names %zu checks", sp_check_prefixes[p], n);
	}
	is_str(SP_CKID(kernel_bpf), "kernel.unprivileged_bpf", "a symbol names its check's id, not a spelling of it");
	is_str(SP_CKGLOB(proc), "proc.*", "a prefix's glob");
	is_str(SP_HOSTID(ns_pid), "host.ns.pid", "a host check's id");
	for (unsigned bit = 1; bit <= SP_PROT_LAST; bit <<= 1) {
		const char *const *tabs[2] = {sp_prot_checks(bit), sp_prot_may_fail(bit)};
		for (size_t t = 0; t < 2; t++)
			for (const char *const *g = tabs[t]; *g; g++) {
				bool hit = false;
				for (size_t i = 0; i < SP_CK_COUNT && !hit; i++)
					hit = sp_glob_match(*g, sp_check_ids[i]);
				if (sp_startswith(*g, "host."))
					hit = true; /* the host's own (live/list_host.h) */
				ok(hit, "%s: %s '%s' names a check", sp_prot_name(bit), t ? "may fail" : "covered by", *g);
			}
	}
	is_int(SP_PROT_ALL, 255, "eight protections, one bit each");
	ok(sp_runtimes[SP_RTID_qemu] == &sp_rt_qemu && sp_runtimes[SP_RTID_bwrap] == &sp_rt_bwrap, "runtime ids index the table");
}

static unsigned hex8(const char *p)
{
	char b[9];
	memcpy(b, p, 8);
	b[8] = '\0';
	return (unsigned)strtoul(b, NULL, 16);
}

static void test_cpio(void)
{
	char dir[] = "/tmp/sandprobe-unit.XXXXXX";
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	char path[128];
	snprintf(path, sizeof path, "%s/a.cpio", dir);
	sp_error err;
	sp_live_cpio *c = sp_cpio_open(path, &err);
	ok(c != NULL, "cpio open");
	if (!c)
		return;
	ok(sp_cpio_dir(c, "bin", 0755) == 0, "dir entry");
	ok(sp_cpio_file(c, "init", 0755, "hello", 5) == 0, "file entry");
	ok(sp_cpio_symlink(c, "bin/sh", "busybox") == 0, "symlink entry");
	ok(sp_cpio_node(c, "dev/console", 020600, 5, 1) == 0, "device node entry");
	ok(sp_cpio_close(c, &err) == 0, "trailer written");
	size_t len;
	int e;
	char *a = sp_read_file_alloc(path, 1 << 20, &len, &e);
	ok(a && len % 4 == 0, "archive is 4-byte aligned (%zu bytes)", a ? len : 0);
	/* walk the headers back */
	size_t off = 0, n = 0;
	const char *names[8];
	unsigned modes[8], sizes[8];
	while (a && off + 110 <= len && n < 8) {
		if (memcmp(a + off, "070701", 6)) {
			ok(0, "magic at %zu", off);
			break;
		}
		modes[n] = hex8(a + off + 14);
		sizes[n] = hex8(a + off + 54);
		unsigned nlen = hex8(a + off + 94);
		names[n] = a + off + 110;
		off += (110 + nlen + 3) & ~3u;
		off += (sizes[n] + 3) & ~3u;
		n++;
		if (!strcmp(names[n - 1], "TRAILER!!!"))
			break;
	}
	is_int(n, 5, "five entries read back");
	if (n == 5) {
		is_str(names[1], "init", "second entry is init");
		is_int(modes[1], 0100755, "init is a regular 0755 file");
		is_int(sizes[1], 5, "init holds 5 bytes");
		is_int(modes[2] & 0170000, 0120000, "bin/sh is a symlink");
		is_int(modes[3], 020600, "console is a char device");
		is_str(names[4], "TRAILER!!!", "archive ends with the trailer");
		is_int(off, len, "nothing after the trailer");
	}
	free(a);
	unlink(path);
	rmdir(dir);
}

static const char *ingest(const char *json, int rc, sp_live_lane *l)
{
	sp_lane_init(l, &sp_rt_bwrap, &sp_variants[0], &cfg);
	sp_doctor_ingest(l, json, strlen(json), rc);
	const sp_live_result *r = sp_lres_find(&l->results, "host.doctor.report");
	return r ? sp_status_name(r->status) : "(none)";
}

#define REPORT(results, summary, result)                                                                        \
	"{\"schema\":\"sandprobe.doctor.v1\",\"environment\":{\"kernel\":\"6.1.0\"},\"results\":[" results "],"   \
	"\"summary\":" summary ",\"result\":\"" result "\"}"
#define R(id, st) "{\"id\":\"" id "\",\"status\":\"" st "\",\"observed\":\"x\"}"
#define SUM(p, f) "{\"pass\":" #p ",\"fail\":" #f ",\"skip\":0,\"warn\":0,\"error\":0}"

static void test_ingest(void)
{
	sp_live_lane l;
	is_str(ingest(REPORT(R("ns.pid", "pass") "," R("caps.effective", "fail"), SUM(1, 1), "fail"), 1, &l), "pass",
	       "a consistent report is accepted");
	is_int(l.results.n, 3, "its two results are taken, plus host.doctor.report");
	is_str(l.doctor_kernel, "6.1.0", "the kernel it reports is kept");
	sp_lane_free(&l);
	is_str(ingest(REPORT(R("ns.pid", "pass") "," R("caps.effective", "fail"), SUM(1, 1), "fail"), 0, &l), "fail",
	       "exit status 0 with result fail is rejected");
	sp_lane_free(&l);
	is_str(ingest(REPORT(R("ns.pid", "pass") "," R("caps.effective", "pass"), SUM(5, 0), "pass"), 0, &l), "fail",
	       "summary counts that do not match are rejected");
	is_int(l.results.n, 1, "a rejected report contributes no result");
	sp_lane_free(&l);
	is_str(ingest(REPORT(R("ns.pid", "pass") "," R("caps.effective", "fail"), SUM(1, 1), "pass"), 0, &l), "fail",
	       "result pass with a failing check is rejected");
	sp_lane_free(&l);
	is_str(ingest(REPORT(R("ns.pid", "pass") "," R("ns.pid", "pass"), SUM(2, 0), "pass"), 0, &l), "fail",
	       "duplicate ids are rejected");
	sp_lane_free(&l);
	is_str(ingest(REPORT(R("ns.pid", "pass") "," R("caps.effective", "bogus"), SUM(2, 0), "pass"), 0, &l), "fail",
	       "an unknown status is rejected");
	sp_lane_free(&l);
	is_str(ingest(REPORT(R("ns.pid", "pass"), SUM(1, 0), "pass"), 0, &l), "fail",
	       "a check of the catalogue missing from the report is rejected");
	sp_lane_free(&l);
	is_str(ingest(REPORT(R("ns.pid", "pass") "," R("Caps Effective", "pass"), SUM(2, 0), "pass"), 0, &l), "fail",
	       "a malformed id is rejected");
	sp_lane_free(&l);
	is_str(ingest("{\"schema\":\"sandprobe.doctor.v2\"}", 0, &l), "fail", "another schema is rejected");
	sp_lane_free(&l);
	is_str(ingest("{\"schema\":\"sandprobe.doctor.v1\",\"a\":1,\"a\":2}", 0, &l), "fail", "duplicate keys are rejected");
	sp_lane_free(&l);
	is_str(ingest("all good", 0, &l), "fail", "text that is not JSON is rejected");
	sp_lane_free(&l);
	is_str(ingest("", 0, &l), "error", "no report at all is an error (nothing to judge)");
	sp_lane_free(&l);
	/* every check skipped: result skip, exit 1; a valid report that proves nothing */
#define SKIPSUM "{\"pass\":0,\"fail\":0,\"skip\":2,\"warn\":0,\"error\":0}"
	is_str(ingest(REPORT(R("ns.pid", "skip") "," R("caps.effective", "skip"), SKIPSUM, "skip"), 1, &l), "error",
	       "an all-skipped report is taken but the lane has no doctor verdict (error, not pass)");
	is_int(l.results.n, 3, "its two skipped results are kept, plus host.doctor.report");
	sp_lane_judge(&l);
	is_str(sp_status_name(l.status), "fail", "the lane whose doctor proved nothing does not pass");
	sp_lane_free(&l);
	is_str(ingest(REPORT(R("ns.pid", "skip") "," R("caps.effective", "skip"), SKIPSUM, "skip"), 0, &l), "fail",
	       "result skip with exit status 0 is rejected");
	sp_lane_free(&l);
	is_str(ingest(REPORT(R("ns.pid", "skip") "," R("caps.effective", "skip"), SKIPSUM, "pass"), 0, &l), "fail",
	       "result pass when every check skipped is rejected");
	sp_lane_free(&l);
	is_str(ingest(REPORT(R("ns.pid", "pass") "," R("caps.effective", "skip"),
			     "{\"pass\":1,\"fail\":0,\"skip\":1,\"warn\":0,\"error\":0}", "skip"),
		      1, &l),
	       "fail", "result skip beside a pass is rejected");
	sp_lane_free(&l);
#undef SKIPSUM
}

/* a negative control on a separate kernel: the doctor's checks its policy
 * judges against that kernel are not demanded to fail, the host's still are,
 * and only a boundary the lane's own runtime confirms counts */
static const char *boundary_report(const char *kind, const char *accepted)
{
	static char b[1024];
	snprintf(b, sizeof b,
		 "{\"schema\":\"sandprobe.doctor.v1\",\"environment\":{\"kernel\":\"4.4.0\",\"kernel_boundary\":"
		 "{\"kind\":\"%s\",\"accepted\":%s}},\"results\":[" R("seccomp.mode", "pass") "," R("ns.pid", "pass") "],"
		 "\"summary\":" SUM(2, 0) ",\"result\":\"pass\"}",
		 kind, accepted);
	return b;
}

static bool judged(const char *rt, bool user_kernel, const char *kind, const char *accepted, sp_status host_status,
		   sp_live_lane *l, sp_live_cfg *c)
{
	sp_lane_init(l, sp_runtime_find(rt), sp_variant_find("no-seccomp"), c);
	l->claim.user_kernel = user_kernel;
	const char *j = boundary_report(kind, accepted);
	sp_doctor_ingest(l, j, strlen(j), 0);
	sp_lres_add(&l->results, "host.seccomp", host_status, "", "", "host view");
	sp_lane_judge(l);
	return l->defect;
}

static void test_boundary(void)
{
	sp_live_cfg c;
	memset(&c, 0, sizeof c);
	sp_strv_split(&c.ids, "seccomp.mode,ns.pid", ",");
	sp_strv_split(&c.run_ids, "seccomp.mode,ns.pid", ",");
	sp_strv_split(&c.sat_user_space, "seccomp.mode,ns.pid", ",");
	sp_strv_split(&c.sat_guest, "ns.pid", ",");
	c.profile = "strict";
	sp_live_lane l;
	ok(!judged("runsc", true, "user-space", "true", SP_STATUS_FAIL, &l, &c), "gVisor, boundary accepted: not a defect");
	is_str(l.boundary, "user-space", "the doctor's kernel boundary is kept");
	ok(l.boundary_accepted, "and that its policy accepts it");
	ok(l.by_boundary.n == 1 && !strcmp(l.by_boundary.v[0], "seccomp.mode"), "seccomp.mode is judged by the boundary");
	ok(l.expected_fail.n == 1 && !strcmp(l.expected_fail.v[0], "host.seccomp"), "host.seccomp must still fail");
	is_str(sp_status_name(l.status), "fail", "the control fails");
	sp_lane_free(&l);
	ok(judged("runsc", true, "user-space", "true", SP_STATUS_PASS, &l, &c), "the host's check passing too is a defect");
	ok(l.missed.n == 1 && !strcmp(l.missed.v[0], "host.seccomp"), "host.seccomp did not fail");
	sp_lane_free(&l);
	ok(judged("runsc", true, "user-space", "false", SP_STATUS_FAIL, &l, &c), "a boundary the policy does not accept: seccomp.mode must fail");
	ok(l.missed.n == 1 && !strcmp(l.missed.v[0], "seccomp.mode"), "and it did not");
	sp_lane_free(&l);
	ok(judged("runc", false, "user-space", "true", SP_STATUS_FAIL, &l, &c), "a doctor that claims gVisor on a runc lane is not believed");
	is_int(l.by_boundary.n, 0, "nothing judged by a boundary the host does not confirm");
	sp_lane_free(&l);
	ok(judged("runsc", true, "guest", "true", SP_STATUS_FAIL, &l, &c), "a guest kernel on a gVisor lane is not believed either");
	sp_lane_free(&l);
	ok(judged("runsc", true, "martian", "true", SP_STATUS_FAIL, &l, &c), "an unknown kind is the host's kernel");
	is_str(l.boundary, "", "and is not kept");
	sp_lane_free(&l);
	sp_strv_free(&c.ids);
	sp_strv_free(&c.run_ids);
	sp_strv_free(&c.sat_user_space);
	sp_strv_free(&c.sat_guest);
}

/* the host-side /dev walk: recursive (net/tun is found), links not
 * followed, terminals allowed only of a devpts of the sandbox's own */
static void test_dev_walk(void)
{
	if (geteuid() != 0) {
		ok(1, "# SKIP dev walk needs root (mknod)");
		return;
	}
	char dir[] = "/tmp/sp-devwalk.XXXXXX";
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	char p[256];
#define MK(rel, mode, maj, min)                                             \
	do {                                                                  \
		snprintf(p, sizeof p, "%s/%s", dir, rel);                      \
		ok(mknod(p, (mode), makedev(maj, min)) == 0, "mknod %s", rel); \
	} while (0)
#define MD(rel)                                        \
	do {                                           \
		snprintf(p, sizeof p, "%s/%s", dir, rel); \
		mkdir(p, 0755);                        \
	} while (0)
	MK("null", S_IFCHR | 0666, 1, 3);
	MK("zero", S_IFCHR | 0666, 1, 5);
	MD("pts");
	MK("pts/ptmx", S_IFCHR | 0666, 5, 2);
	sp_live_dev_scan sc;
	sp_outcome o = {0};
	is_int(sp_dev_walk(dir, &sc, &o), 0, "walk a minimal /dev");
	is_int(sc.nodes, 3, "three nodes");
	is_int(sc.extra, 0, "none beyond the allowlist");
	MD("net");
	MK("net/tun", S_IFCHR | 0666, 10, 200);
	sp_dev_walk(dir, &sc, &o);
	is_int(sc.extra, 1, "a node in a subdirectory is found (net/tun)");
	like_str(sc.list, "net/tun (10:200)", "and named with its numbers");
	MK("pts/0", S_IFCHR | 0620, 136, 0);
	sp_dev_walk(dir, &sc, &o);
	ok(!sc.own_pts && sc.extra == 2, "a terminal under a pts that is not a devpts of its own counts");
	MD("disk");
	MK("disk/vda", S_IFBLK | 0660, 254, 0);
	snprintf(p, sizeof p, "%s/sda-link", dir);
	ok(symlink("/dev/vda", p) == 0, "a symlink to a host disk");
	sp_dev_walk(dir, &sc, &o);
	is_int(sc.blocks, 1, "the block node is found, the symlink is not followed");
	is_int(sc.nodes, 6, "six nodes in all");
	is_int(sp_dev_walk("/nonexistent-dev-dir", &sc, &o), -1, "an absent /dev is an error");
	is_int(o.errnum, ENOENT, "and says why (ENOENT)");
	sp_rm_rf(dir);
#undef MK
#undef MD
}

/* what a runtime said, and flags in a command line as the host reads it */
static void test_messages(void)
{
	char m[256];
	sp_runtime_message("docker: Error response from daemon: invalid CapAdd: unknown capability: \"CAP_X\"\n\n"
			   "Run 'docker run --help' for more information\n",
			   m, sizeof m);
	is_str(m, "docker: Error response from daemon: invalid CapAdd: unknown capability: \"CAP_X\"",
	       "the engine's error line, not its usage hint after it");
	sp_runtime_message("starting\nsomething odd happened\n\n", m, sizeof m);
	is_str(m, "something odd happened", "no error line: the last line");
	sp_runtime_message(NULL, m, sizeof m);
	is_str(m, "", "no output: empty");
	static const char cl[] = "runsc-sandbox\0--root=/run/r\0--log\0/x.log\0boot\0--bundle=/b/c1\0c1";
	char v[64];
	ok(sp_cmdline_arg(cl, sizeof cl, "--bundle", v, sizeof v) && !strcmp(v, "/b/c1"), "FLAG=VALUE");
	ok(sp_cmdline_arg(cl, sizeof cl, "--log", v, sizeof v) && !strcmp(v, "/x.log"), "FLAG VALUE");
	ok(!sp_cmdline_arg(cl, sizeof cl, "--bun", v, sizeof v), "a prefix of a flag is not the flag");
	ok(!sp_cmdline_arg(cl, sizeof cl, "c1", v, sizeof v), "a last word has no value");
}

/* the doctor as the sandbox's init (the doctor image: argv "--live-lane NONCE", no shell) forks its probes,
 * copies that carry its argv and comm until they end: the host must find the doctor itself, never "several",
 * also when a copy ends between being listed and its parent being read */
static void test_nonce_forks(const char *self)
{
	char nonce[48]; /* of this process: a test_live of another build may run at the same time */
	snprintf(nonce, sizeof nonce, "sp-t-forks-%d", (int)getpid());
	int ready[2];
	if (pipe(ready) < 0) {
		ok(0, "pipe: %s", strerror(errno));
		return;
	}
	pid_t holder = fork();
	if (holder == 0) {
		setpgid(0, 0);
		close(ready[0]);
		char fd[16];
		snprintf(fd, sizeof fd, "%d", ready[1]);
		setenv("SP_T_FORKER", fd, 1);
		execl(self, "sandprobe-doctor", "--live-lane", nonce, (char *)NULL);
		_exit(127);
	}
	close(ready[1]);
	char c;
	ok(read(ready[0], &c, 1) == 1, "the forking holder runs");
	close(ready[0]);
	int wrong = 0, runs = 3000;
	pid_t last = 0;
	for (int i = 0; i < runs; i++) {
		pid_t p = sp_find_nonce_pid(nonce);
		if (p != holder) {
			wrong++;
			last = p;
		}
	}
	is_int(wrong, 0, "%d scans while the holder forks short-lived copies of itself: each finds the holder (%d)%s%.0d", runs,
	       (int)holder, wrong ? ", last wrong answer " : "", wrong ? (int)last : 0);
	kill(-holder, SIGKILL); /* the holder and the copies it has at that moment */
	waitpid(holder, NULL, 0);
	pid_t left = -1;
	for (int i = 0; i < 400 && (left = sp_find_nonce_pid(nonce)) != 0; i++)
		usleep(5000);
	is_int(left, 0, "the holder and its copies gone: no process with the nonce");
}

/* the forking holder of test_nonce_forks: comm sandprobe-docto, forks copies that end at once (at most 8 alive,
 * as the doctor's probe children), until killed */
static int forker(const char *fd)
{
	prctl(PR_SET_NAME, "sandprobe-docto");
	int w = atoi(fd);
	unsigned alive = 0;
	for (unsigned n = 0;; n++) {
		pid_t k = fork();
		if (k == 0) {
			if (n % 3 == 0)
				usleep(50);
			_exit(0);
		}
		if (k > 0)
			alive++;
		if (n == 10 && write(w, "x", 1) != 1)
			_exit(1);
		while (alive && waitpid(-1, NULL, alive >= 8 ? 0 : WNOHANG) > 0)
			alive--;
	}
}

int main(void)
{
	if (getenv("SP_T_FORKER"))
		return forker(getenv("SP_T_FORKER"));
	sp_strv_split(&cfg.ids, "ns.pid,caps.effective,ns.time", ",");
	sp_strv_split(&cfg.run_ids, "ns.pid,caps.effective", ",");
	sp_strv_split(&cfg.keys, "ns.required,caps.effective,caps.bounding,proc.isolated,priv.no_new_privs,"
				 "seccomp.required,fs.rootfs_readonly,fs.writable", ",");
	cfg.profile = "strict";
	test_derive();
	test_variants();
	test_catalog();
	test_cpio();
	test_ingest();
	test_boundary();
	test_dev_walk();
	test_messages();
	test_nonce_forks("/proc/self/exe");
	sp_strv_free(&cfg.ids);
	sp_strv_free(&cfg.run_ids);
	sp_strv_free(&cfg.keys);
	return done_testing();
}
