/* Namespaces: is the sandbox in a namespace other than the kernel's initial
 * one? Each /proc/self/ns link is compared with the initial namespace's
 * inode, which the kernel fixes for pid, user, uts, ipc, cgroup and time
 * (and, since 6.18, for net and mnt). On older kernels net and mnt are
 * compared with host init's links when /proc shows host init; otherwise the
 * inside view cannot prove it and `sandprobe live` compares from the host. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "checks/types.h"
#include "checks/probe.h"
#include "checks/runtime.h"
#include "core/util.h"
#include "catalog/catalog.h"

struct ns_type {
	const char *name;
	unsigned long init_ino;
	unsigned min_kernel; /* kernel from which init_ino is fixed */
};

static const struct ns_type ns_types[] = {
	{"pid", 0xEFFFFFFCul, 30800},  {"net", 0xEFFFFFF9ul, 61800},    {"mnt", 0xEFFFFFF8ul, 61800},
	{"uts", 0xEFFFFFFEul, 30800},  {"ipc", 0xEFFFFFFFul, 30800},    {"user", 0xEFFFFFFDul, 30800},
	{"cgroup", 0xEFFFFFFBul, 40600}, {"time", 0xEFFFFFFAul, 50600},
};

static const struct ns_type *ns_type_find(const char *name)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(ns_types); i++)
		if (!strcmp(ns_types[i].name, name))
			return &ns_types[i];
	return NULL;
}

static const char *ns_type_name(size_t i)
{
	return ns_types[i].name;
}

/* ns.required's entries: the namespace types the checks know */
static int ns_parse(const char *name, sp_outcome *o)
{
	if (ns_type_find(name))
		return 0;
	return sp_not_one_of(name, "a namespace type", ns_type_name, SP_ARRAY_SIZE(ns_types), o);
}

const sp_policy_type sp_ptype_namespaces = {.name = "namespaces", .what = "namespace types: pid, net, mnt, uts, ipc, user, cgroup, time",
					    .list = true, .parse = ns_parse};

/* readlink /proc/PID/ns/TYPE -> "net:[4026531833]" and its inode; 0, or -1
 * with o (o->why the error's text; EINVAL for a link of another form) */
static int ns_link(const char *pid, const char *type, char *buf, size_t size, unsigned long *ino, sp_outcome *o)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%s/ns/%s", pid, type);
	ssize_t n = readlink(path, buf, size - 1);
	if (n < 0)
		return sp_why_errno(o, errno, "%s", strerror(errno));
	buf[n] = '\0';
	const char *lb = strchr(buf, '[');
	if (!lb || !*buf)
		return sp_why_errno(o, EINVAL, "%s", strerror(EINVAL));
	char *end;
	*ino = strtoul(lb + 1, &end, 10);
	if (*end != ']' || *ino == 0)
		return sp_why_errno(o, EINVAL, "%s", strerror(EINVAL));
	return 0;
}

static void describe_user_map(sp_result *r)
{
	char map[512];
	ssize_t n = sp_read_file("/proc/self/uid_map", map, sizeof map);
	if (n < 0) {
		sp_observed_add(r, "uid_map unreadable: %s", strerror((int)-n));
		return;
	}
	for (char *p = map; *p; p++)
		if (*p == '\n')
			*p = (p[1] ? '|' : '\0');
	/* "0 0 4294967295" is the identity map of the initial user namespace */
	char a[32], b[32], c[32];
	bool identity = sscanf(map, " %31s %31s %31s", a, b, c) == 3 && !strcmp(a, "0") && !strcmp(b, "0") &&
			!strcmp(c, "4294967295") && !strchr(map, '|');
	char *squeezed = map;
	for (char *w = map, *rd = map; ; rd++) {
		if (*rd == ' ' && (w == squeezed || w[-1] == ' '))
			continue;
		*w++ = *rd;
		if (!*rd)
			break;
	}
	sp_observed_add(r, "uid_map \"%s\" (%s)", sp_trim(squeezed), identity ? "identity map" : "translated map");
}


/* Under gVisor the net link names gVisor's own object whatever the stack is.
 * Which stack serves the sandbox's sockets is asked of the stack itself:
 * gVisor's netstack has a loopback device of its own (MTU 65536 - 14: 65522,
 * a Linux loopback has 65536), so an ioctl on "lo" answers 65522; with
 * --network=host (hostinet) every socket call goes to the host kernel, in the
 * network namespace the Sentry runs in, and the interfaces are that
 * namespace's. 1: gVisor's own netstack; 0: hostinet in a namespace that has
 * interfaces beyond loopback (the host's network, or one the inside cannot
 * tell from it); -1: undetermined (said in observed). */
static int gvisor_net_stack(sp_result *r)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		sp_observed_add(r, "socket(AF_INET): %s", sp_errname(errno));
		return -1;
	}
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
	int mr = ioctl(s, SIOCGIFMTU, &ifr);
	int me = errno;
	close(s);
	if (mr == 0)
		sp_observed_add(r, "SIOCGIFMTU lo: %d", ifr.ifr_mtu);
	else
		sp_observed_add(r, "SIOCGIFMTU lo: %s", sp_errname(me));
	if (mr == 0 && ifr.ifr_mtu == 65522) {
		sp_observed_add(r, "gVisor's netstack answers for lo: the sandbox's sockets are gVisor's own stack");
		return 1;
	}
	struct if_nameindex *ifs = if_nameindex();
	if (!ifs) {
		sp_observed_add(r, "interfaces unreadable (if_nameindex): %s", sp_errname(errno));
		return -1;
	}
	char beyond[256] = "";
	size_t at = 0, n = 0;
	for (struct if_nameindex *i = ifs; i->if_index; i++) {
		if (!strcmp(i->if_name, "lo"))
			continue;
		n++;
		if (at < sizeof beyond)
			at += (size_t)snprintf(beyond + at, sizeof beyond - at, "%s%s", at ? "," : "", i->if_name);
	}
	if_freenameindex(ifs);
	if (!n) {
		sp_observed_add(r, "not gVisor's netstack loopback; no interface beyond loopback");
		return -1;
	}
	sp_observed_add(r, "not gVisor's netstack loopback: the host kernel's stack (hostinet), with interfaces %s", beyond);
	return 0;
}

/* IPC under a user-space kernel (gVisor): System V IPC and POSIX message
 * queues are the sentry's own objects, but POSIX shared memory is files in
 * /dev/shm, and an engine sharing the host's IPC (docker --ipc host) binds
 * the host's /dev/shm in, served by the gofer (9p, or any non-tmpfs). Own
 * IPC is proven only when /dev/shm is the sentry's own memory (tmpfs), or
 * no mount of its own at all (a directory of the sentry's /dev or of the
 * image). */
static void run_ipc_userspace(bool must, sp_result *r)
{
	const char *kernel = sp_boundary_get()->kernel;
	sp_mount m;
	int rc = sp_mountinfo_find("/dev/shm", &m);
	if (rc < 0) {
		sp_observed(r, "mountinfo unreadable: %s", strerror(-rc));
		sp_errorr(r, "cannot tell whose /dev/shm this is: %s", strerror(-rc));
		return;
	}
	bool own_mount = !strcmp(m.mountpoint, "/dev/shm");
	bool sentry = !strcmp(m.fstype, "tmpfs") || !strcmp(m.fstype, "devtmpfs");
	char sysv[4096];
	ssize_t n = sp_read_file("/proc/sysvipc/shm", sysv, sizeof sysv);
	size_t segs = 0;
	for (ssize_t i = 0; i < n; i++)
		segs += sysv[i] == '\n';
	sp_observed(r, "a user-space kernel (%s): System V IPC and message queues are its own; /dev/shm is %s (%s %s); "
		       "%zd System V shm segment(s) listed",
		    kernel, own_mount ? "a mount of its own" : "no mount of its own, in", m.fstype, m.source,
		    n > 0 ? (ssize_t)segs - 1 : (ssize_t)0);
	if (own_mount && !sentry) {
		if (must)
			sp_failr(r, "/dev/shm is a %s mount from outside %s: the host's POSIX shared memory is shared",
				 m.fstype, kernel);
		else
			sp_pass(r, "the host's /dev/shm is shared, not required by policy");
	} else {
		sp_pass(r, "IPC objects are %s's own (/dev/shm %s)", kernel,
			own_mount ? "is its own memory" : "is no host mount");
	}
}

static void run_ns(const char *type, const sp_ctx *ctx, sp_result *r)
{
	const struct ns_type *t = ns_type_find(type);
	sp_strv required;
	sp_policy_list(ctx->policy, "ns.required", &required);
	bool must = sp_strv_contains(&required, type);
	sp_strv_free(&required);
	sp_expected(r, "%s", must ? "a namespace other than the initial one" : "any (not required by policy)");
	if (!strcmp(type, "ipc") && sp_boundary_get()->kind == SP_KERNEL_USERSPACE) {
		run_ipc_userspace(must, r);
		return;
	}

	char self[128];
	unsigned long ino;
	sp_outcome o = {0};
	int e = ns_link("self", type, self, sizeof self, &ino, &o);
	if (e < 0 && o.errnum == ENOENT) {
		sp_observed(r, "/proc/self/ns/%s absent", type);
		if (must)
			sp_failr(r, "kernel has no %s namespaces, so the sandbox cannot have its own", type);
		else
			sp_skip(r, "kernel has no %s namespaces", type);
		return;
	}
	if (e < 0) {
		sp_observed(r, "/proc/self/ns/%s unreadable: %s", type, o.why);
		sp_errorr(r, "cannot read the %s namespace link: %s", type, o.why);
		return;
	}
	sp_observed(r, "%s", self);
	if (!strcmp(type, "user"))
		describe_user_map(r);

	int verdict; /* 1 separate, 0 initial, -1 unknown */
	const char *how;
	unsigned kv = sp_kernel_version();
	if (kv >= t->min_kernel) {
		verdict = ino != t->init_ino;
		how = "initial-namespace inode";
	} else {
		/* fall back on host init's link, visible only without pid isolation */
		char init[128];
		unsigned long init_ino, pidns;
		char pidlink[128];
		if (ns_link("self", "pid", pidlink, sizeof pidlink, &pidns, &o) == 0 && pidns == 0xEFFFFFFCul &&
		    ns_link("1", type, init, sizeof init, &init_ino, &o) == 0) {
			verdict = ino != init_ino;
			how = "host init's link";
			sp_observed_add(r, "host init %s", init);
		} else {
			verdict = -1;
			how = "no inside signal on this kernel";
		}
	}
	sp_observed_add(r, "initial %s namespace is %s:[%lu] (%s)", type, type, t->init_ino, how);

	if (sp_boundary_get()->kind == SP_KERNEL_USERSPACE) {
		/* gVisor numbers its own namespaces: no inode says anything */
		verdict = -1;
		sp_observed_add(r, "a user-space kernel (%s) numbers its own namespaces", sp_boundary_get()->kernel);
	}
	int stack = -1;
	if (verdict < 0 && sp_boundary_get()->kind == SP_KERNEL_USERSPACE && !strcmp(type, "net"))
		stack = gvisor_net_stack(r);
	if (stack == 1) {
		sp_pass(r, "own network stack: gVisor's netstack serves the sandbox's sockets");
	} else if (stack == 0 && must) {
		sp_failr(r, "the sandbox's sockets are the host kernel's (gVisor with --network=host), in a network namespace "
			    "with the host's interfaces, not one of its own");
	} else if (stack == 0) {
		sp_pass(r, "on the host kernel's network stack (hostinet), not required by policy");
	} else if (verdict < 0 && sp_boundary_get()->kind == SP_KERNEL_USERSPACE && !strcmp(type, "net")) {
		if (must)
			sp_warn(r, "the net link names gVisor's stack; whether that is its own netstack or the host's "
				   "(--network=host) cannot be seen from inside; use sandprobe live");
		else
			sp_pass(r, "not required by policy (undetermined from inside)");
	} else if (verdict < 0 && sp_boundary_get()->kind == SP_KERNEL_USERSPACE) {
		if (must)
			sp_warn(r, "gVisor's %s link proves nothing about the host's namespaces (they are not in its kernel)", type);
		else
			sp_pass(r, "not required by policy (undetermined from inside)");
	} else if (verdict < 0) {
		if (must)
			sp_warn(r, "cannot prove a separate %s namespace from inside on kernel < 6.18; use sandprobe live",
				type);
		else
			sp_pass(r, "not required by policy (undetermined from inside)");
	} else if (verdict == 1) {
		sp_pass(r, "own %s namespace (%s)", type, self);
	} else if (must) {
		sp_failr(r, "shares the initial %s namespace (%s)", type, self);
	} else {
		sp_pass(r, "shares the initial %s namespace, not required by policy", type);
	}
}

#define NS_CHECK(sym, type_, kflags_, title_, why_, tech_) \
	static void run_##sym(const sp_ctx *ctx, sp_result *r) { run_ns(type_, ctx, r); } \
	const sp_check sp_check_##sym = { \
		.id = SP_CKID(sym), \
		.category = "namespaces", \
		.title = title_, \
		.rationale = why_, \
		.techniques = tech_, \
		.policy_keys = "ns.required:namespaces", \
		.method = "read", \
		.run = run_##sym, \
		.flags = SP_CHECK_INPROCESS | (kflags_), \
	}

/* a separate kernel holds none of the host's objects of each type; the
 * exceptions are gVisor's network stack, which --network=host replaces with
 * the host's (its net link cannot tell), and gVisor's /dev/shm, which
 * --ipc host replaces with the host's: ns.ipc proves it under gVisor itself
 * (run_ipc_userspace) and takes no user-space waiver */
NS_CHECK(ns_pid, "pid", SP_CHECK_KERNEL, "own PID namespace",
	 "a shared PID namespace lets the sandbox see and signal host processes", "T1611,T1057");
NS_CHECK(ns_net, "net", SP_CHECK_KERNEL_GUEST, "own network namespace",
	 "a shared network namespace gives the sandbox the host's interfaces and routes", "T1611,AML.T0086");
NS_CHECK(ns_mnt, "mnt", SP_CHECK_KERNEL, "own mount namespace",
	 "a shared mount namespace exposes and lets the sandbox change the host's mounts", "T1611");
NS_CHECK(ns_uts, "uts", SP_CHECK_KERNEL, "own UTS namespace", "a shared UTS namespace lets the sandbox rename the host", "T1611");
NS_CHECK(ns_ipc, "ipc", SP_CHECK_KERNEL_GUEST, "own IPC namespace",
	 "a shared IPC namespace exposes host System V IPC and POSIX message queues", "T1611");
NS_CHECK(ns_user, "user", SP_CHECK_KERNEL, "own user namespace",
	 "without a user namespace, root in the sandbox is root on the host", "T1611,T1068");
NS_CHECK(ns_cgroup, "cgroup", SP_CHECK_KERNEL, "own cgroup namespace",
	 "a shared cgroup namespace reveals the host's cgroup tree and eases release_agent escapes", "T1611");
NS_CHECK(ns_time, "time", SP_CHECK_KERNEL, "own time namespace",
	 "a time namespace keeps the sandbox's monotonic and boot clocks apart from the host", "");

/* ---- user namespace mapping: is root inside root outside? (category
 * privileges: it is about what uid 0 is worth, not about the namespace) ---- */

static void run_user_map(const sp_ctx *ctx, sp_result *r)
{
	bool may = sp_policy_bool(ctx->policy, "priv.root_is_host_root", false);
	sp_expected(r, "%s", may ? "any (policy allows the sandbox's root to be the host's root)"
				 : "uid 0 inside is not uid 0 of the initial user namespace");
	char map[1024];
	ssize_t n = sp_read_file("/proc/self/uid_map", map, sizeof map);
	if (n < 0) {
		sp_errorr(r, "cannot read /proc/self/uid_map: %s", strerror((int)-n));
		return;
	}
	if (n == 0) {
		sp_observed(r, "uid_map empty");
		sp_errorr(r, "empty uid_map: cannot judge");
		return;
	}
	char link[64] = "";
	ssize_t l = readlink("/proc/self/ns/user", link, sizeof link - 1);
	if (l > 0)
		link[l] = '\0';
	bool initial = !strcmp(link, "user:[4026531837]");
	/* inside-0 maps to which outside id (of the parent namespace)? */
	long root_out = -1;
	char *save = NULL;
	size_t lines = 0;
	for (char *ln = strtok_r(map, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
		unsigned long in, out, cnt;
		if (sscanf(ln, "%lu %lu %lu", &in, &out, &cnt) != 3)
			continue;
		lines++;
		if (in == 0 && cnt > 0)
			root_out = (long)out;
	}
	sp_observed(r, "%s; %zu map line(s); uid 0 inside -> %s%ld", link, lines, root_out < 0 ? "unmapped" : "", root_out);
	bool host_root = initial || root_out == 0;
	/* nested namespaces: a 0->0 map in a child of a non-initial namespace is
	 * still not host root, but we cannot see the parent's map from here */
	if (!host_root)
		sp_pass(r, "root inside is %s outside", root_out < 0 ? "unmapped" : "an unprivileged uid");
	else if (may)
		sp_pass(r, "root inside is host root, allowed by policy");
	else
		sp_failr(r, "root inside is root of %s", initial ? "the initial user namespace" : "the parent namespace (0 -> 0)");
}

const sp_check sp_check_priv_root_mapped = {
	.id = SP_CKID(priv_root_mapped),
	.category = "privileges",
	.title = "sandbox root is not host root",
	.rationale = "with an identity uid map, a process that escapes is root on the host",
	.techniques = "T1611,T1068",
	.policy_keys = "priv.root_is_host_root:bool",
	.method = "read",
	.run = run_user_map,
	.flags = SP_CHECK_INPROCESS | SP_CHECK_KERNEL,
};
