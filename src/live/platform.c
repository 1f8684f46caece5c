/* Platform detection for the live report: kernel, cgroup layout, whether
 * KVM really works, and what kind of host this is (plain Linux, WSL2, a
 * macOS-hosted Linux VM: Colima/Lima, OrbStack, Docker Desktop), with what
 * each means for the lanes. */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "live/live.h"

static void cgroup_mode(char *out, size_t n)
{
	struct statfs a, b;
	if (statfs("/sys/fs/cgroup", &a) < 0)
		snprintf(out, n, "none");
	else if (a.f_type == CGROUP2_SUPER_MAGIC)
		snprintf(out, n, "v2");
	else if (statfs("/sys/fs/cgroup/unified", &b) == 0 && b.f_type == CGROUP2_SUPER_MAGIC)
		snprintf(out, n, "hybrid");
	else
		snprintf(out, n, "v1");
}

/* does KVM's supported CPUID carry the baseline a distribution kernel needs? */
static int kvm_cpuid_ok(int kvm, sp_outcome *o)
{
	size_t nent = 256;
	struct kvm_cpuid2 *c = sp_xcalloc(1, sizeof *c + nent * sizeof(struct kvm_cpuid_entry2));
	c->nent = (unsigned)nent;
	if (ioctl(kvm, KVM_GET_SUPPORTED_CPUID, c) < 0) {
		sp_why(o, "KVM_GET_SUPPORTED_CPUID: %s", strerror(errno));
		free(c);
		return -1;
	}
	bool sse3 = false, lm = false;
	for (unsigned i = 0; i < c->nent; i++) {
		if (c->entries[i].function == 1)
			sse3 = c->entries[i].ecx & 1u;
		if (c->entries[i].function == 0x80000001u)
			lm = c->entries[i].edx & (1u << 29);
	}
	free(c);
	if (!sse3 || !lm) {
		sp_why(o, "/dev/kvm works but its CPUID lacks %s%s%s, which standard x86-64 kernels need",
		       sse3 ? "" : "SSE3 (pni)", !sse3 && !lm ? " and " : "", lm ? "" : "long mode");
		return -1;
	}
	return 0;
}

/* create a VM, run one hlt instruction */
static int kvm_hlt(int kvm, sp_outcome *o)
{
	int vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0) {
		sp_why(o, "KVM_CREATE_VM: %s", strerror(errno));
		return -1;
	}
	int rc = -1, vcpu = -1;
	void *mem = mmap(NULL, 0x1000, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct kvm_run *run = MAP_FAILED;
	long runsz = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (mem == MAP_FAILED || runsz <= 0) {
		sp_why(o, "KVM: cannot map guest memory");
		goto out;
	}
	((unsigned char *)mem)[0] = 0xf4; /* hlt */
	struct kvm_userspace_memory_region reg = {.slot = 0, .guest_phys_addr = 0x1000, .memory_size = 0x1000,
						  .userspace_addr = (unsigned long)mem};
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &reg) < 0 || (vcpu = ioctl(vm, KVM_CREATE_VCPU, 0)) < 0) {
		sp_why(o, "KVM: cannot create a vCPU: %s", strerror(errno));
		goto out;
	}
	run = mmap(NULL, (size_t)runsz, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
	struct kvm_sregs sregs;
	struct kvm_regs regs = {.rip = 0, .rflags = 2};
	if (run == MAP_FAILED || ioctl(vcpu, KVM_GET_SREGS, &sregs) < 0) {
		sp_why(o, "KVM: cannot read vCPU state");
		goto out;
	}
	sregs.cs.base = 0x1000;
	sregs.cs.selector = 0x100;
	if (ioctl(vcpu, KVM_SET_SREGS, &sregs) < 0 || ioctl(vcpu, KVM_SET_REGS, &regs) < 0 ||
	    ioctl(vcpu, KVM_RUN, 0) < 0) {
		sp_why(o, "KVM_RUN: %s", strerror(errno));
		goto out;
	}
	if (run->exit_reason != KVM_EXIT_HLT) {
		sp_why(o, "KVM: a one-instruction guest exited with reason %u, not HLT", run->exit_reason);
		goto out;
	}
	rc = 0;
out:
	if (run != MAP_FAILED)
		munmap(run, (size_t)runsz);
	if (vcpu >= 0)
		close(vcpu);
	if (mem != MAP_FAILED)
		munmap(mem, 0x1000);
	close(vm);
	return rc;
}

bool sp_kvm_usable(sp_outcome *o)
{
	static int cached = -2;
	static char reason[256];
	if (cached == -2 && getenv("SP_LIVE_ASSUME_KVM")) {
		/* tests: pretend the probe passed, to exercise the boot watchdog and the fallback */
		snprintf(reason, sizeof reason, "assumed usable (SP_LIVE_ASSUME_KVM)");
		cached = access("/dev/kvm", R_OK | W_OK) == 0 ? 0 : -1;
	}
	if (cached == -2) {
		int kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
		if (kvm < 0) {
			snprintf(reason, sizeof reason, "/dev/kvm: %s", strerror(errno));
			cached = -1;
		} else {
			int v = ioctl(kvm, KVM_GET_API_VERSION, 0);
			sp_outcome ko = {0};
			if (v != KVM_API_VERSION) {
				snprintf(reason, sizeof reason, "KVM API version %d, want %d", v, KVM_API_VERSION);
				cached = -1;
			} else if (kvm_hlt(kvm, &ko) < 0 || kvm_cpuid_ok(kvm, &ko) < 0) {
				snprintf(reason, sizeof reason, "%s", ko.why);
				cached = -1;
			} else {
				snprintf(reason, sizeof reason, "KVM runs guests and offers the x86-64 baseline");
				cached = 0;
			}
			close(kvm);
		}
	}
	sp_why(o, "%s", reason);
	return cached == 0;
}

static bool file_has(const char *path, const char *needle)
{
	char buf[4096];
	if (sp_read_file(path, buf, sizeof buf) <= 0)
		return false;
	for (char *p = buf; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return strstr(buf, needle) != NULL;
}

static void note(sp_live_platform *p, const char *s)
{
	size_t len = strlen(p->notes);
	snprintf(p->notes + len, sizeof p->notes - len, "%s%s", len ? "; " : "", s);
}

void sp_platform_detect(sp_live_platform *p, bool probe_kvm)
{
	memset(p, 0, sizeof *p);
	struct utsname u;
	uname(&u);
	snprintf(p->kernel, sizeof p->kernel, "%s", u.release);
	snprintf(p->arch, sizeof p->arch, "%s", u.machine);
	cgroup_mode(p->cgroup, sizeof p->cgroup);
	struct stat st;
	p->kvm_present = stat("/dev/kvm", &st) == 0;
	p->kvm_probed = probe_kvm || !p->kvm_present;
	if (!p->kvm_present)
		snprintf(p->kvm_reason, sizeof p->kvm_reason, "no /dev/kvm");
	else if (probe_kvm) {
		sp_outcome ko = {0};
		p->kvm_usable = sp_kvm_usable(&ko);
		snprintf(p->kvm_reason, sizeof p->kvm_reason, "%s", ko.why);
	} else
		snprintf(p->kvm_reason, sizeof p->kvm_reason, "not probed (no qemu lane in this run)");

	/* what the host itself runs on */
	char hostname[256] = "";
	gethostname(hostname, sizeof hostname - 1);
	if (file_has("/proc/sys/kernel/osrelease", "microsoft") || file_has("/proc/sys/kernel/osrelease", "wsl"))
		snprintf(p->host_kind, sizeof p->host_kind, "wsl2");
	else if (file_has("/proc/version", "linuxkit"))
		snprintf(p->host_kind, sizeof p->host_kind, "docker-desktop");
	else if (file_has("/proc/version", "orbstack") || access("/opt/orbstack-guest", F_OK) == 0)
		snprintf(p->host_kind, sizeof p->host_kind, "orbstack");
	else if (sp_startswith(hostname, "colima"))
		snprintf(p->host_kind, sizeof p->host_kind, "colima");
	else if (sp_startswith(hostname, "lima-") || access("/mnt/lima-cidata", F_OK) == 0)
		snprintf(p->host_kind, sizeof p->host_kind, "lima");
	else
		snprintf(p->host_kind, sizeof p->host_kind, "linux");

	if (file_has("/proc/cmdline", "firecracker"))
		snprintf(p->virt, sizeof p->virt, "firecracker");
	else if (file_has("/sys/class/dmi/id/sys_vendor", "qemu"))
		snprintf(p->virt, sizeof p->virt, "qemu");
	else if (file_has("/sys/class/dmi/id/sys_vendor", "microsoft"))
		snprintf(p->virt, sizeof p->virt, "hyper-v");
	else if (file_has("/sys/class/dmi/id/sys_vendor", "amazon"))
		snprintf(p->virt, sizeof p->virt, "amazon");
	else if (file_has("/proc/cpuinfo", " hypervisor"))
		snprintf(p->virt, sizeof p->virt, "unknown hypervisor");
	else
		snprintf(p->virt, sizeof p->virt, "none");

	if (!strcmp(p->cgroup, "hybrid"))
		note(p, "hybrid cgroup host: crun, which refuses that layout, runs in a private mount namespace without the "
			"cgroup2 tree (--cgroup-manager=disabled, no cgroup of its own claimed); runc and podman --runtime runc run "
			"natively");
	else if (!strcmp(p->cgroup, "v1"))
		note(p, "cgroup v1: runtimes that need v2 (crun without v1 support) skip");
	else if (!strcmp(p->cgroup, "v2"))
		note(p, "cgroup v2: every OCI runtime can run");
	if (p->kvm_usable)
		note(p, "qemu lanes use KVM");
	else if (p->kvm_probed)
		note(p, "qemu lanes use software emulation (TCG): slower boots, same checks");
	if (!strcmp(p->host_kind, "wsl2"))
		note(p, "WSL2: one shared Microsoft kernel for all distributions; KVM only with nested virtualization; docker lanes need an engine inside this distribution or Docker Desktop integration");
	else if (!strcmp(p->host_kind, "docker-desktop") || !strcmp(p->host_kind, "orbstack") ||
		 !strcmp(p->host_kind, "colima") || !strcmp(p->host_kind, "lima"))
		note(p, "macOS-hosted Linux VM: the sandbox boundary under test is inside this VM, not on the Mac; no nested KVM on most Macs, so qemu lanes use TCG");
	sp_strv ctl;
	sp_host_control_paths(&ctl);
	if (ctl.n) {
		char list[300] = "";
		size_t at = 0;
		for (size_t i = 0; i < ctl.n && at < sizeof list; i++)
			at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? " " : "", ctl.v[i]);
		char msg[400];
		snprintf(msg, sizeof msg, "host control paths present (%s): lanes over the host's own filesystem (firejail) hide them",
			 list);
		note(p, msg);
	}
	sp_strv_free(&ctl);
	if (strcmp(p->virt, "none"))
		note(p, "this host is itself a virtual machine: host-side checks see the VM, not the physical machine");
}
