/* A guess of the runtime the doctor runs under, from several independent
 * signals, each with a weight; the runtime with the highest summed score
 * wins. Reported in the environment block (runtime_guess, runtime_signals),
 * never used as a verdict. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/probe.h"
#include "core/runner.h"
#include "core/util.h"

enum { RT_MAX = 16 };

struct guess {
	char *signals;
	size_t ssz;
	const char *names[RT_MAX];
	int score[RT_MAX];
	size_t n;
};

static void seen(struct guess *g, const char *runtime, int weight, const char *tag)
{
	size_t len = strlen(g->signals);
	snprintf(g->signals + len, g->ssz - len, "%s%s", len ? "," : "", tag);
	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->names[i], runtime)) {
			g->score[i] += weight;
			return;
		}
	if (g->n < RT_MAX) {
		g->names[g->n] = runtime;
		g->score[g->n++] = weight;
	}
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

static bool prctl_nnp(void)
{
	return prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
}

static bool ns_is(const char *type, const char *initial)
{
	char l[64];
	char p[32];
	snprintf(p, sizeof p, "/proc/self/ns/%s", type);
	ssize_t n = readlink(p, l, sizeof l - 1);
	if (n <= 0)
		return false;
	l[n] = '\0';
	return !strcmp(l, initial);
}

void sp_runtime_guess(char *out, size_t osz, char *signals, size_t ssz)
{
	struct guess g = {.signals = signals, .ssz = ssz};
	signals[0] = '\0';
	char buf[4096];
	bool init_pid = ns_is("pid", "pid:[4026531836]");
	bool init_user = ns_is("user", "user:[4026531837]");

	/* container managers leave marker files and environment */
	if (exists("/.dockerenv"))
		seen(&g, "docker", init_pid ? 5 : 15, "/.dockerenv");
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
					 : !strcmp(v, "docker") ? "docker" : !strcmp(v, "lxc") ? "lxc" : "oci";
			seen(&g, rt, 70, "container=");
		}
	if (sp_read_file("/proc/self/cgroup", buf, sizeof buf) > 0) {
		if (strstr(buf, "libpod"))
			seen(&g, "podman", 40, "cgroup:libpod");
		else if (strstr(buf, "docker"))
			seen(&g, "docker", 40, "cgroup:docker");
		else if (strstr(buf, "kubepods"))
			seen(&g, "kubernetes", 40, "cgroup:kubepods");
		else if (strstr(buf, "machine.slice") || strstr(buf, "nspawn"))
			seen(&g, "nspawn", 30, "cgroup:machine.slice");
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
	char mi[16384];
	ssize_t mn = sp_read_file("/proc/self/mountinfo", mi, sizeof mi);
	if (mn > 0) {
		char *root = strstr(mi, " / / ");
		char *eol = root ? strchr(root, '\n') : NULL;
		if (eol)
			*eol = '\0';
		if (root && strstr(root, "/var/lib/docker/"))
			seen(&g, "docker", 40, "rootfs:docker-overlay");
		else if (root && strstr(root, "/containers/storage/"))
			seen(&g, "podman", 40, "rootfs:containers-storage");
		if (root && strstr(root, " / / ") && sp_opt_has(strchr(root + 5, ' ') ? root + 5 : "", "nosuid") &&
		    !init_user && prctl_nnp())
			seen(&g, "bwrap", 20, "nnp+userns+nosuid-root");
		if (eol)
			*eol = '\n';
	}
	/* OCI runtimes (runc, crun) mask /proc paths with /dev/null or tmpfs binds */
	if (!init_pid && sp_read_file("/proc/self/mountinfo", buf, sizeof buf) > 0 &&
	    (strstr(buf, " /proc/kcore ") || strstr(buf, " /proc/acpi ") || strstr(buf, " /proc/timer_list ")))
		seen(&g, "runc", 25, "masked-proc(oci:runc/crun)");
	if (!init_pid && !init_user && !prctl_nnp())
		seen(&g, "unshare", 18, "userns+pidns,no-nnp");
	/* kernel and machine: gVisor, WSL2, microVMs */
	if (sp_read_file("/proc/sys/kernel/osrelease", buf, sizeof buf) > 0) {
		if (strstr(buf, "microsoft") || strstr(buf, "WSL"))
			seen(&g, "wsl2", 35, "kernel:microsoft");
		if (!strncmp(buf, "4.4.0", 5) && !exists("/sys/kernel"))
			seen(&g, "gvisor", 60, "kernel:4.4.0-gvisor");
	}
	if (file_has("/proc/version", "gVisor"))
		seen(&g, "gvisor", 80, "proc-version:gVisor");
	if (exists("/proc/sys/fs/binfmt_misc/WSLInterop"))
		seen(&g, "wsl2", 50, "WSLInterop");
	if (sp_read_file("/proc/cmdline", buf, sizeof buf) > 0) {
		if (strstr(buf, "kata") || strstr(buf, "agent.log"))
			seen(&g, "kata", 50, "cmdline:kata");
		else if (strstr(buf, "firecracker") || (strstr(buf, "virtio_mmio.device=") && !exists("/sys/firmware/acpi")))
			seen(&g, "firecracker-vm", init_pid ? 30 : 8, "cmdline:firecracker");
	}
	if (file_has("/sys/class/dmi/id/sys_vendor", "QEMU") || file_has("/sys/class/dmi/id/product_name", "QEMU"))
		seen(&g, "qemu-vm", init_pid ? 30 : 8, "dmi:QEMU");
	if (file_has("/proc/cpuinfo", " hypervisor") && init_pid && !g.n)
		seen(&g, "vm", 10, "cpu:hypervisor");
	if (init_pid && init_user && g.n == 0)
		seen(&g, "host", 10, "initial-namespaces");

	const char *best = "unknown";
	int top = 0;
	for (size_t i = 0; i < g.n; i++)
		if (g.score[i] > top) {
			top = g.score[i];
			best = g.names[i];
		}
	snprintf(out, osz, "%s", best);
}
