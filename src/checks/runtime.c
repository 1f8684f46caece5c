/* The environment block's two findings about where the doctor runs:
 *
 * The kernel boundary: which kernel the sandbox's system calls reach. A
 * user-space kernel (gVisor) is concluded only from its release string
 * ("4.4.0" exactly, which gVisor answers to uname) together with one of its
 * procfs marks; a guest kernel only from a hypervisor signal (CPUID, DMI,
 * the kernel command line) together with proof that the doctor sits in
 * every initial namespace of that kernel (so the VM is the sandbox, not a
 * host for containers). Anything less is the host's kernel: checks are then
 * judged literally, which can never turn a FAIL into a PASS.
 *
 * The runtime guess: the engine (docker, podman, containerd, nspawn ...)
 * and the runtime (runc, crun, gVisor, Kata, Firecracker, QEMU ...) each
 * from several weighted signals; the highest score wins. Reported, never
 * used as a verdict.
 *
 * Everything here is a read (files, uname, CPUID): it runs in the doctor
 * process before the first check. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "checks/types.h"
#include "checks/probe.h"
#include "checks/runtime.h"
#include "core/runner.h"
#include "core/util.h"

/* ---- signals, shared by both findings ---- */

static void tag(char *buf, size_t size, const char *fmt, const char *a)
{
	size_t len = strlen(buf);
	if (len + 2 >= size)
		return;
	snprintf(buf + len, size - len, "%s", len ? "," : "");
	len = strlen(buf);
	snprintf(buf + len, size - len, fmt, a);
}

static bool exists(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0;
}

static bool file_has(const char *path, const char *needle)
{
	char buf[8192];
	ssize_t n = sp_read_file(path, buf, sizeof buf);
	return n > 0 && strstr(buf, needle) != NULL;
}

/* readlink /proc/PID/ns/TYPE into buf ("" when absent) */
static void ns_link(const char *pid, const char *type, char *buf, size_t size)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%s/ns/%s", pid, type);
	ssize_t n = readlink(p, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
}

struct initial_ns {
	const char *type;
	const char *link;  /* the initial namespace's link */
	unsigned since;    /* kernel from which that inode is fixed */
};

static const struct initial_ns initial[] = {
	{"pid", "pid:[4026531836]", 30800},	{"user", "user:[4026531837]", 30800},
	{"uts", "uts:[4026531838]", 30800},	{"ipc", "ipc:[4026531839]", 30800},
	{"cgroup", "cgroup:[4026531835]", 40600}, {"time", "time:[4026531834]", 50600},
	{"net", "net:[4026531833]", 61800},	{"mnt", "mnt:[4026531832]", 61800},
};

static bool ns_initial(const char *type)
{
	char l[64];
	ns_link("self", type, l, sizeof l);
	for (size_t i = 0; i < SP_ARRAY_SIZE(initial); i++)
		if (!strcmp(initial[i].type, type))
			return !strcmp(l, initial[i].link);
	return false;
}

/* ---- the kernel boundary ---- */

#if defined(__x86_64__)
static void cpuid(unsigned leaf, unsigned *a, unsigned *b, unsigned *c, unsigned *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "0"(leaf), "2"(0u));
}
#endif

/* a hypervisor's name from CPUID, "" when the CPU reports none */
static void cpu_hypervisor(char *out, size_t size)
{
	out[0] = '\0';
#if defined(__x86_64__)
	unsigned a, b, c, d;
	cpuid(1, &a, &b, &c, &d);
	if (!(c & (1u << 31)))
		return;
	cpuid(0x40000000u, &a, &b, &c, &d);
	char v[13];
	memcpy(v, &b, 4);
	memcpy(v + 4, &c, 4);
	memcpy(v + 8, &d, 4);
	v[12] = '\0';
	static const struct {
		const char *sig, *name;
	} known[] = {{"KVMKVMKVM", "KVM"},	   {"TCGTCGTCGTCG", "QEMU TCG"}, {"Microsoft Hv", "Hyper-V"},
		     {"VMwareVMware", "VMware"}, {"XenVMMXenVMM", "Xen"},	 {"ACRNACRNACRN", "ACRN"},
		     {"bhyve bhyve ", "bhyve"},	 {"VBoxVBoxVBox", "VirtualBox"}};
	for (size_t i = 0; i < SP_ARRAY_SIZE(known); i++)
		if (!strncmp(v, known[i].sig, strlen(known[i].sig))) {
			snprintf(out, size, "%s", known[i].name);
			return;
		}
	snprintf(out, size, "hypervisor");
#else
	(void)size;
#endif
}

static void detect_userspace(sp_boundary *b, const char *release, int *score)
{
	*score = 0;
	if (!strcmp(release, "4.4.0")) {
		(*score)++;
		tag(b->signals, sizeof b->signals, "%s", "uname:4.4.0");
	}
	char cmd[512];
	if (sp_read_file("/proc/cmdline", cmd, sizeof cmd) > 0 && strstr(cmd, "-gvisor")) {
		(*score)++;
		tag(b->signals, sizeof b->signals, "%s", "cmdline:vmlinuz-gvisor");
	}
	if (exists("/proc/sentry-meminfo")) {
		(*score)++;
		tag(b->signals, sizeof b->signals, "%s", "proc:sentry-meminfo");
	}
	char pid[64], mnt[64];
	ns_link("self", "pid", pid, sizeof pid);
	ns_link("self", "mnt", mnt, sizeof mnt);
	/* Linux has had a mnt link beside the pid link since 3.8 */
	if (pid[0] && !mnt[0]) {
		(*score)++;
		tag(b->signals, sizeof b->signals, "%s", "ns:pid-without-mnt");
	}
}

/* Is the doctor in every initial namespace of its kernel? Where the kernel
 * fixes no inode for a type (net and mnt before 6.18), pid 1 of the initial
 * PID namespace, the kernel's own init, must share it. o says what failed. */
static bool all_initial(sp_outcome *o)
{
	unsigned kv = sp_kernel_version();
	for (size_t i = 0; i < SP_ARRAY_SIZE(initial); i++) {
		char self[64], one[64];
		ns_link("self", initial[i].type, self, sizeof self);
		if (!self[0]) {
			if (!strcmp(initial[i].type, "time") || !strcmp(initial[i].type, "cgroup"))
				continue; /* older kernel without that namespace type */
			sp_why(o, "no /proc/self/ns/%s", initial[i].type);
			return false;
		}
		if (kv >= initial[i].since) {
			if (strcmp(self, initial[i].link)) {
				sp_why(o, "in a %s namespace of its own (%s)", initial[i].type, self);
				return false;
			}
			continue;
		}
		ns_link("1", initial[i].type, one, sizeof one);
		if (!one[0]) {
			sp_why(o, "/proc/1/ns/%s unreadable: cannot prove the initial %s namespace",
			       initial[i].type, initial[i].type);
			return false;
		}
		if (strcmp(self, one)) {
			sp_why(o, "%s namespace %s differs from pid 1's %s", initial[i].type, self, one);
			return false;
		}
	}
	return true;
}

/* Is the doctor the VM's only workload? Every user-space process visible
 * must be one of its ancestors (the init that started it) or its own
 * descendants; a general-purpose VM runs others (daemons, a shell, other
 * containers), and then its kernel is as shared as any host's. */
static bool sole_workload(sp_outcome *o)
{
	enum { MAXP = 4096 };
	static int pids[MAXP], ppids[MAXP];
	size_t n = 0;
	DIR *d = opendir("/proc");
	if (!d) {
		sp_why(o, "/proc unreadable");
		return false;
	}
	struct dirent *de;
	while ((de = readdir(d)) && n < MAXP) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		char p[64], st[512];
		snprintf(p, sizeof p, "/proc/%s/stat", de->d_name);
		ssize_t k = sp_read_file(p, st, sizeof st);
		char *rp = k > 0 ? strrchr(st, ')') : NULL;
		if (!rp)
			continue;
		/* after the command: state ppid pgrp session tty tpgid flags */
		char state;
		int ppid, pgrp, sess, tty, tpgid;
		unsigned flags;
		if (sscanf(rp + 1, " %c %d %d %d %d %d %u", &state, &ppid, &pgrp, &sess, &tty, &tpgid, &flags) != 7)
			continue;
		if (flags & 0x00200000u) /* PF_KTHREAD */
			continue;
		pids[n] = atoi(de->d_name);
		ppids[n++] = ppid;
	}
	closedir(d);
	if (n >= MAXP) {
		sp_why(o, "more than %d processes", MAXP);
		return false;
	}
	int self = getpid();
	for (size_t i = 0; i < n; i++) {
		/* an ancestor of ours? */
		bool ours = false;
		for (int q = self, hops = 0; q > 0 && hops < 64 && !ours; hops++) {
			if (q == pids[i])
				ours = true;
			int parent = 0;
			for (size_t j = 0; j < n; j++)
				if (pids[j] == q)
					parent = ppids[j];
			q = parent;
		}
		/* or a descendant of ours (a probe child)? */
		for (int q = pids[i], hops = 0; q > 0 && hops < 64 && !ours; hops++) {
			if (q == self)
				ours = true;
			int parent = 0;
			for (size_t j = 0; j < n; j++)
				if (pids[j] == q)
					parent = ppids[j];
			q = parent;
		}
		if (!ours) {
			char p[64], comm[32] = "?";
			snprintf(p, sizeof p, "/proc/%d/comm", pids[i]);
			if (sp_read_file(p, comm, sizeof comm) > 0)
				sp_trim(comm);
			sp_why(o, "another workload shares this kernel (pid %d %s)", pids[i], comm);
			return false;
		}
	}
	return true;
}

static void detect(sp_boundary *b)
{
	memset(b, 0, sizeof *b);
	b->kind = SP_KERNEL_HOST;
	snprintf(b->kernel, sizeof b->kernel, "host");
	struct utsname u;
	const char *release = uname(&u) == 0 ? u.release : "";

	int us;
	detect_userspace(b, release, &us);
	/* the release alone could be an old distribution kernel: one mark more */
	if (us >= 2 && (!strcmp(release, "4.4.0") || us >= 3)) {
		b->kind = SP_KERNEL_USERSPACE;
		snprintf(b->kernel, sizeof b->kernel, "gVisor");
		return;
	}
	if (us > 0)
		snprintf(b->doubt, sizeof b->doubt, "one gVisor mark only: not concluded");

	char hv[32];
	cpu_hypervisor(hv, sizeof hv);
	if (hv[0])
		tag(b->signals, sizeof b->signals, "cpuid:%s", hv);
	char vendor[128] = "";
	if (sp_read_file("/sys/class/dmi/id/sys_vendor", vendor, sizeof vendor) > 0 && sp_trim(vendor)[0])
		tag(b->signals, sizeof b->signals, "dmi:%s", sp_trim(vendor));
	char cmd[4096] = "";
	bool fc = sp_read_file("/proc/cmdline", cmd, sizeof cmd) > 0 &&
		  (strstr(cmd, "firecracker") || (strstr(cmd, "virtio_mmio.device=") && !exists("/sys/firmware/acpi")));
	if (fc)
		tag(b->signals, sizeof b->signals, "%s", "cmdline:firecracker");
	if (!hv[0] && !vendor[0] && !fc) {
		tag(b->signals, sizeof b->signals, "%s", "no-hypervisor-signal");
		return;
	}
	sp_outcome o = {0};
	if (!all_initial(&o)) {
		/* a container inside a VM: its kernel is the VM's, shared with the
		 * VM's other processes, so it is the host kernel for this sandbox */
		tag(b->signals, sizeof b->signals, "%s", "not-initial-namespaces");
		size_t dl = strlen(b->doubt);
		snprintf(b->doubt + dl, sizeof b->doubt - dl, "%sa hypervisor is present but the doctor is %.159s", dl ? "; " : "",
			 o.why);
		return;
	}
	tag(b->signals, sizeof b->signals, "%s", "initial-namespaces");
	if (!sole_workload(&o)) {
		tag(b->signals, sizeof b->signals, "%s", "other-workloads");
		size_t dl = strlen(b->doubt);
		snprintf(b->doubt + dl, sizeof b->doubt - dl, "%sa VM, but not the doctor's alone: %.159s", dl ? "; " : "", o.why);
		return;
	}
	tag(b->signals, sizeof b->signals, "%s", "sole-workload");
	b->kind = SP_KERNEL_GUEST;
	const char *vm = fc ? "Firecracker" : strstr(vendor, "QEMU") ? "QEMU" : hv[0] ? hv : vendor;
	snprintf(b->kernel, sizeof b->kernel, "guest kernel under %s", vm);
}

static sp_boundary boundary;
static bool boundary_done;

const sp_boundary *sp_boundary_get(void)
{
	if (!boundary_done) {
		detect(&boundary);
		boundary_done = true;
	}
	return &boundary;
}

/* kernel.separate_kernel's words: the separate kernels a policy can accept
 * (sp_kernel_kind_name of each kind but the host's) */
static const char *const separate_kinds[] = {"user-space", "guest", NULL};
const sp_policy_type sp_ptype_boundaries = {.name = "boundaries", .what = "user-space or guest (the kernel boundaries)",
					    .list = true, .choices = separate_kinds};

bool sp_boundary_accepted(const sp_ctx *ctx, unsigned flags)
{
	return sp_boundary_accepts(ctx, sp_boundary_get(), flags);
}

void sp_env_fill(const sp_ctx *ctx, sp_env *env)
{
	struct utsname u;
	memset(env, 0, sizeof *env);
	if (uname(&u) == 0) {
		snprintf(env->kernel, sizeof env->kernel, "%s", u.release);
		snprintf(env->arch, sizeof env->arch, "%s", u.machine);
	}
	env->uid = (unsigned)getuid();
	env->boundary = *sp_boundary_get();
	env->boundary_accepted = sp_boundary_accepted(ctx, SP_CHECK_KERNEL);
	sp_runtime_guess(env);
}

/* ---- the runtime guess ---- */

enum { RT_MAX = 24 };

struct guess {
	char *signals;
	size_t ssz;
	const char *names[RT_MAX];
	int score[RT_MAX];
	size_t n;
};

static void seen(struct guess *g, const char *name, int weight, const char *sig)
{
	tag(g->signals, g->ssz, "%s", sig);
	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->names[i], name)) {
			g->score[i] += weight;
			return;
		}
	if (g->n < RT_MAX) {
		g->names[g->n] = name;
		g->score[g->n++] = weight;
	}
}

/* what starts and manages sandboxes; everything else is a runtime (what
 * the sandbox's processes run on: an OCI runtime, a user-space kernel, a VMM) */
static bool is_engine(const char *name)
{
	static const char *const engines[] = {"docker", "podman", "containerd", "kubernetes", "nspawn", "firejail",
					      "bwrap",  "unshare", "lxc",	 "wsl2",       "host"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(engines); i++)
		if (!strcmp(engines[i], name))
			return true;
	return false;
}

static const char *best_of(const struct guess *g, bool engine, bool no_oci)
{
	const char *best = "";
	int top = 0;
	for (size_t i = 0; i < g->n; i++)
		if (is_engine(g->names[i]) == engine && g->score[i] > top &&
		    !(no_oci && (!strcmp(g->names[i], "runc") || !strcmp(g->names[i], "crun")))) {
			top = g->score[i];
			best = g->names[i];
		}
	return best;
}

/* the line of mountinfo for "/" (mount point "/"), "" when none */
static void root_mount_line(char *out, size_t size)
{
	out[0] = '\0';
	int e = 0;
	_cleanup_free_ char *mi = sp_read_file_alloc("/proc/self/mountinfo", 4u << 20, NULL, &e);
	if (!mi)
		return;
	char *save = NULL;
	for (char *l = strtok_r(mi, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *f = l;
		for (int i = 0; i < 4 && f; i++) {
			f = strchr(f, ' ');
			if (f)
				f++;
		}
		if (f && !strncmp(f, "/ ", 2))
			snprintf(out, size, "%s", l); /* the last one is on top */
	}
}

void sp_runtime_guess(sp_env *env)
{
	struct guess g = {.signals = env->runtime_signals, .ssz = sizeof env->runtime_signals};
	env->runtime_signals[0] = '\0';
	const sp_boundary *b = sp_boundary_get();
	char buf[4096];
	bool init_pid = ns_initial("pid");
	bool init_user = ns_initial("user");
	bool nnp = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;

	/* the kernel the sandbox talks to names the runtime for a separate one */
	if (b->kind == SP_KERNEL_USERSPACE)
		seen(&g, "gvisor", 90, "boundary:user-space(gVisor)");

	/* container managers leave marker files and environment */
	if (exists("/.dockerenv"))
		seen(&g, "docker", init_pid ? 5 : 45, "/.dockerenv");
	if (sp_read_file("/run/.containerenv", buf, sizeof buf) >= 0)
		seen(&g, "podman", strstr(buf, "podman") ? 80 : 60, "/run/.containerenv");
	if (file_has("/run/systemd/container", "systemd-nspawn"))
		seen(&g, "nspawn", 70, "/run/systemd/container");
	/* firejail leaves /run/firejail/mnt on the host after any run: in the
	 * initial PID namespace it says little (firejail's sandboxes have their
	 * own) */
	if (exists("/run/firejail/mnt") || exists("/run/firejail/sandbox-name"))
		seen(&g, "firejail", init_pid ? 3 : 55, init_pid ? "/run/firejail(initial-pidns)" : "/run/firejail");
	ssize_t n = sp_read_file("/proc/1/environ", buf, sizeof buf);
	for (ssize_t off = 0; n > 0 && off < n; off += (ssize_t)strlen(buf + off) + 1)
		if (sp_startswith(buf + off, "container=")) {
			const char *v = buf + off + 10;
			const char *rt = !strcmp(v, "podman") ? "podman" : !strcmp(v, "systemd-nspawn") ? "nspawn"
					 : !strcmp(v, "docker") ? "docker" : !strcmp(v, "lxc") ? "lxc" : "containerd";
			seen(&g, rt, strcmp(rt, "containerd") ? 70 : 20, "container=");
		}
	if (sp_read_file("/proc/self/cgroup", buf, sizeof buf) > 0) {
		if (strstr(buf, "libpod"))
			seen(&g, "podman", 40, "cgroup:libpod");
		else if (strstr(buf, "cri-containerd"))
			seen(&g, "containerd", 60, "cgroup:cri-containerd");
		else if (strstr(buf, "docker"))
			seen(&g, "docker", 40, "cgroup:docker");
		else if (strstr(buf, "machine.slice") || strstr(buf, "nspawn"))
			seen(&g, "nspawn", 30, "cgroup:machine.slice");
		if (strstr(buf, "kubepods"))
			seen(&g, "kubernetes", 40, "cgroup:kubepods");
		/* ctr's default cgroup path is /<namespace>/<id>, namespace "default" */
		if (strstr(buf, ":/default/"))
			seen(&g, "containerd", 30, "cgroup:/default/<id>(ctr)");
	}
	/* the sandbox's pid 1 */
	if (sp_read_file("/proc/1/comm", buf, sizeof buf) > 0) {
		char *c = sp_trim(buf);
		if (!strcmp(c, "bwrap"))
			seen(&g, "bwrap", 60, "pid1:bwrap");
		else if (!strcmp(c, "firejail"))
			seen(&g, "firejail", 45, "pid1:firejail");
		else if (!strcmp(c, "conmon"))
			seen(&g, "podman", 30, "pid1:conmon");
		else if (!strcmp(c, "catatonit"))
			seen(&g, "podman", 20, "pid1:catatonit");
		else if (!strcmp(c, "kata-agent"))
			seen(&g, "kata", 70, "pid1:kata-agent");
	}
	/* the root filesystem: overlay layers of a container store */
	char root[2048];
	root_mount_line(root, sizeof root);
	if (strstr(root, "/var/lib/docker/"))
		seen(&g, "docker", 40, "rootfs:docker-overlay");
	else if (strstr(root, "/containers/storage/"))
		seen(&g, "podman", 40, "rootfs:containers-storage");
	else if (strstr(root, "io.containerd.snapshotter") || strstr(root, "/run/containerd/io.containerd.runtime"))
		seen(&g, "containerd", 60, "rootfs:containerd-snapshot");
	char *opts = root;
	for (int i = 0; i < 5 && opts; i++) {
		opts = strchr(opts, ' ');
		if (opts)
			opts++;
	}
	if (opts) {
		char o[256];
		snprintf(o, sizeof o, "%.*s", (int)strcspn(opts, " "), opts);
		if (sp_opt_has(o, "nosuid") && !init_user && nnp)
			seen(&g, "bwrap", 20, "nnp+userns+nosuid-root");
	}
	/* OCI runtimes mask /proc paths with /dev/null or tmpfs binds; crun binds
	 * the host's /dev/null (devtmpfs) and adds /dev/core, runc binds the
	 * container's own /dev */
	int e = 0;
	_cleanup_free_ char *mi = init_pid ? NULL : sp_read_file_alloc("/proc/self/mountinfo", 4u << 20, NULL, &e);
	if (mi && (strstr(mi, " /proc/kcore ") || strstr(mi, " /proc/acpi ") || strstr(mi, " /proc/timer_list ")))
		seen(&g, "runc", 25, "masked-proc(oci)");
	/* containerd's default spec (ctr, CRI) adds a 64 MiB tmpfs on /run, which
	 * neither runc's spec nor Docker's mounts have */
	if (mi) {
		for (char *q = strstr(mi, " /run "); q; q = strstr(q + 1, " /run ")) {
			char *eol = strchr(q, '\n');
			char line[512];
			snprintf(line, sizeof line, "%.*s", eol ? (int)(eol - q) : (int)strlen(q), q);
			if (strstr(line, " - tmpfs ") && strstr(line, "size=65536k") && strstr(line, "mode=755")) {
				seen(&g, "containerd", 30, "run-tmpfs(containerd-spec)");
				break;
			}
		}
	}
	if (mi && strstr(mi, "/null /proc/keys ") && strstr(strstr(mi, "/null /proc/keys "), " - devtmpfs "))
		seen(&g, "crun", 20, "mask-from-devtmpfs(crun)");
	char core[64];
	ssize_t cl = readlink("/dev/core", core, sizeof core - 1);
	if (cl > 0 && !init_pid) {
		core[cl] = '\0';
		if (!strcmp(core, "/proc/kcore"))
			seen(&g, "crun", 35, "/dev/core(crun)");
	}
	if (!init_pid && !init_user && !nnp)
		seen(&g, "unshare", 18, "userns+pidns,no-nnp");
	if (sp_read_file("/proc/sys/kernel/osrelease", buf, sizeof buf) > 0 &&
	    (strstr(buf, "microsoft") || strstr(buf, "WSL")))
		seen(&g, "wsl2", 35, "kernel:microsoft");
	if (exists("/proc/sys/fs/binfmt_misc/WSLInterop"))
		seen(&g, "wsl2", 50, "WSLInterop");
	if (sp_read_file("/proc/cmdline", buf, sizeof buf) > 0 && (strstr(buf, "kata") || strstr(buf, "agent.log")))
		seen(&g, "kata", 70, "cmdline:kata");
	/* a VM is the sandbox's runtime only when the sandbox is the VM; a
	 * container in a VM reports the VM as a property of its host */
	if (b->kind == SP_KERNEL_GUEST) {
		if (strstr(b->kernel, "Firecracker"))
			seen(&g, "firecracker", 60, "boundary:guest(Firecracker)");
		else if (strstr(b->kernel, "QEMU"))
			seen(&g, "qemu", 60, "boundary:guest(QEMU)");
		else
			seen(&g, "vm", 40, "boundary:guest");
	} else if (strstr(b->signals, "cpuid:") || strstr(b->signals, "dmi:") || strstr(b->signals, "cmdline:firecracker")) {
		tag(g.signals, g.ssz, "%s", "host-is-a-vm");
	}
	if (init_pid && init_user && g.n == 0)
		seen(&g, "host", 10, "initial-namespaces");

	/* the namespace tools mask and mount like OCI runtimes (bwrap's /dev has
	 * a core link too): no OCI runtime runs beneath them */
	const char *eng = best_of(&g, true, false);
	bool ns_tool = !strcmp(eng, "bwrap") || !strcmp(eng, "firejail") || !strcmp(eng, "nspawn") || !strcmp(eng, "unshare");
	const char *rt = best_of(&g, false, ns_tool);
	/* crun's marks alone (a /dev/core link) are not an OCI runtime's: it
	 * needs the masked /proc paths beside them */
	if (!strcmp(rt, "crun") && !strstr(env->runtime_signals, "masked-proc(oci)"))
		rt = "";
	snprintf(env->engine, sizeof env->engine, "%s", eng);
	snprintf(env->runtime, sizeof env->runtime, "%s", rt);
	if (eng[0] && rt[0])
		snprintf(env->runtime_guess, sizeof env->runtime_guess, "%s+%s", eng, rt);
	else
		snprintf(env->runtime_guess, sizeof env->runtime_guess, "%s", eng[0] ? eng : rt[0] ? rt : "unknown");
}
