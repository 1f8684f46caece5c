/* A guess of the runtime the doctor runs under, from several independent
 * signals. Reported in the environment block, never used as a verdict. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/runner.h"
#include "core/util.h"

struct guess {
	char *signals;
	size_t ssz;
	const char *best;
	int score;
};

static void signal_seen(struct guess *g, const char *runtime, int weight, const char *what)
{
	size_t n = strlen(g->signals);
	snprintf(g->signals + n, g->ssz - n, "%s%s", n ? "; " : "", what);
	if (weight > g->score) {
		g->score = weight;
		g->best = runtime;
	}
}

static bool exists(const char *p)
{
	struct stat st;
	return lstat(p, &st) == 0;
}

void sp_runtime_guess(char *out, size_t osz, char *signals, size_t ssz)
{
	struct guess g = {.signals = signals, .ssz = ssz, .best = "unknown", .score = 0};
	signals[0] = '\0';
	char buf[4096];

	if (exists("/.dockerenv"))
		signal_seen(&g, "docker", 50, "/.dockerenv");
	if (sp_read_file("/run/.containerenv", buf, sizeof buf) >= 0)
		signal_seen(&g, "podman", 60, "/run/.containerenv");
	if (exists("/run/firejail") || exists("/run/firejail/mnt"))
		signal_seen(&g, "firejail", 55, "/run/firejail");
	ssize_t n = sp_read_file("/proc/1/environ", buf, sizeof buf);
	for (ssize_t off = 0; n > 0 && off < n; off += (ssize_t)strlen(buf + off) + 1) {
		if (sp_startswith(buf + off, "container=")) {
			const char *v = buf + off + 10;
			const char *rt = !strcmp(v, "podman") ? "podman"
					 : !strcmp(v, "systemd-nspawn") ? "systemd-nspawn"
					 : !strcmp(v, "docker") ? "docker"
					 : !strcmp(v, "oci") ? "oci"
					 : v;
			signal_seen(&g, rt, 70, "container= in pid 1 environment");
		}
	}
	if (sp_read_file("/proc/self/cgroup", buf, sizeof buf) > 0) {
		if (strstr(buf, "libpod"))
			signal_seen(&g, "podman", 40, "libpod cgroup");
		else if (strstr(buf, "docker"))
			signal_seen(&g, "docker", 40, "docker cgroup");
		else if (strstr(buf, "kubepods"))
			signal_seen(&g, "kubernetes", 40, "kubepods cgroup");
		else if (strstr(buf, "machine.slice") || strstr(buf, "systemd-nspawn"))
			signal_seen(&g, "systemd-nspawn", 30, "machine.slice cgroup");
	}
	if (sp_read_file("/proc/1/comm", buf, sizeof buf) > 0) {
		char *c = sp_trim(buf);
		if (!strcmp(c, "bwrap"))
			signal_seen(&g, "bwrap", 45, "pid 1 is bwrap");
		else if (!strcmp(c, "firejail"))
			signal_seen(&g, "firejail", 45, "pid 1 is firejail");
		else if (!strcmp(c, "sandprobe-init") || !strcmp(c, "init") || !strcmp(c, "systemd"))
			signal_seen(&g, strcmp(c, "sandprobe-init") ? "host" : "qemu", 5, "pid 1 is an init");
	}
	if (sp_read_file("/proc/sys/kernel/osrelease", buf, sizeof buf) > 0) {
		if (strstr(buf, "microsoft") || strstr(buf, "WSL"))
			signal_seen(&g, "wsl2", 35, "Microsoft kernel");
		if (!strncmp(buf, "4.4.0", 5) && exists("/proc/self/ns") && !exists("/sys/kernel"))
			signal_seen(&g, "gvisor", 60, "gVisor-style 4.4.0 kernel");
	}
	if (sp_read_file("/sys/class/dmi/id/sys_vendor", buf, sizeof buf) > 0 ||
	    sp_read_file("/sys/class/dmi/id/product_name", buf, sizeof buf) > 0) {
		if (strstr(buf, "QEMU"))
			signal_seen(&g, "qemu-vm", 20, "QEMU DMI vendor");
		else if (strstr(buf, "Firecracker"))
			signal_seen(&g, "firecracker-vm", 20, "Firecracker DMI");
	}
	if (g.score == 0) {
		char link[64];
		ssize_t l = readlink("/proc/self/ns/pid", link, sizeof link - 1);
		if (l > 0) {
			link[l] = '\0';
			if (!strcmp(link, "pid:[4026531836]"))
				signal_seen(&g, "host", 10, "initial pid namespace");
			else
				signal_seen(&g, "unknown-container", 10, "non-initial pid namespace");
		}
	}
	snprintf(out, osz, "%s", g.best);
}
