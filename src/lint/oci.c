/* OCI runtime config.json (runtime-spec): namespaces, capabilities,
 * noNewPrivileges, seccomp, root, masked/read-only paths, mounts, devices,
 * resource limits, sysctls, hooks. The defaults compared against are those
 * that `runc spec` and podman write themselves. */
#include <jansson.h>
#include <string.h>

#include "core/caps.h"
#include "lint/checkreg.h"
#include "lint/lint.h"

static const sp_lint_jschema oci_schema[] = {
	{"", 'o'},
	{"/process", 'o'},
	{"/process/noNewPrivileges", 'b'},
	{"/process/env", 'a'},
	{"/process/env/*", 's'},
	{"/process/capabilities", 'o'},
	{"/process/capabilities/bounding", 'a'},
	{"/process/capabilities/effective", 'a'},
	{"/process/capabilities/permitted", 'a'},
	{"/process/capabilities/inheritable", 'a'},
	{"/process/capabilities/ambient", 'a'},
	{"/process/capabilities/*/*", 's'},
	{"/root", 'o'},
	{"/root/readonly", 'b'},
	{"/mounts", 'a'},
	{"/mounts/*", 'o'},
	{"/mounts/*/source", 's'},
	{"/mounts/*/destination", 's'},
	{"/mounts/*/type", 's'},
	{"/mounts/*/options", 'a'},
	{"/mounts/*/options/*", 's'},
	{"/hooks", 'o'},
	{"/hooks/*", 'a'},
	{"/hooks/*/*", 'o'},
	{"/hooks/*/*/path", 's'},
	{"/linux", 'o'},
	{"/linux/namespaces", 'a'},
	{"/linux/namespaces/*", 'o'},
	{"/linux/namespaces/*/type", 's'},
	{"/linux/namespaces/*/path", 's'},
	{"/linux/maskedPaths", 'a'},
	{"/linux/maskedPaths/*", 's'},
	{"/linux/readonlyPaths", 'a'},
	{"/linux/readonlyPaths/*", 's'},
	{"/linux/devices", 'a'},
	{"/linux/devices/*", 'o'},
	{"/linux/devices/*/path", 's'},
	{"/linux/devices/*/type", 's'},
	{"/linux/resources", 'o'},
	{"/linux/resources/memory", 'o'},
	{"/linux/resources/memory/limit", 'i'},
	{"/linux/resources/pids", 'o'},
	{"/linux/resources/pids/limit", 'i'},
	{"/linux/resources/devices", 'a'},
	{"/linux/resources/devices/*", 'o'},
	{"/linux/resources/devices/*/allow", 'b'},
	{"/linux/resources/devices/*/type", 's'},
	{"/linux/resources/devices/*/access", 's'},
	{"/linux/sysctl", 'o'},
	{"/linux/sysctl/*", 's'},
	{"/linux/seccomp", 'o'},
	{"/freebsd", 'o'},
	{"/freebsd/jail", 'o'},
	{"/freebsd/jail/*", '*'},
	{"/freebsd/devices", 'a'},
	{"/freebsd/devices/*", 'o'},
	{"/freebsd/devices/*/path", 's'},
	{"/zos", 'o'},
	{"/zos/namespaces", 'a'},
	{"/zos/namespaces/*", 'o'},
	{"/zos/namespaces/*/type", 's'},
	{"/zos/devices", 'a'},
	{"/zos/devices/*", 'o'},
	{"/zos/devices/*/path", 's'},
};

int sp_lint_oci_validate(sp_lint_file *f, sp_error *err)
{
	if (sp_lint_json_schema(f, f->json, "", oci_schema, SP_ARRAY_SIZE(oci_schema), err) < 0)
		return -1;
	json_t *sc = json_object_get(json_object_get(f->json, "linux"), "seccomp");
	if (sc && sp_lint_seccomp_validate_at(f, sc, "/linux/seccomp", err) < 0)
		return -1;
	/* proxy settings, for the relation rules */
	json_t *env = json_object_get(json_object_get(f->json, "process"), "env");
	size_t i;
	json_t *v;
	json_array_foreach(env, i, v) {
		const char *s = json_string_value(v);
		const char *eq = strchr(s, '=');
		if (!eq)
			continue;
		_cleanup_free_ char *name = sp_xstrndup(s, (size_t)(eq - s));
		if (!strcasecmp(name, "https_proxy") || !strcasecmp(name, "http_proxy") || !strcasecmp(name, "all_proxy")) {
			_cleanup_free_ char *p = sp_xasprintf("/process/env/%zu", i);
			sp_lint_add_proxyref(f, name, eq + 1, p, 0, 0);
		}
	}
	return 0;
}

bool sp_lint_is_runtime_socket(const char *path)
{
	static const char *const socks[] = {
		"docker.sock", "containerd.sock", "podman.sock", "crio.sock", "cri-dockerd.sock",
		"dockershim.sock", "frakti.sock", "rktlet.sock", "kubelet.sock", "buildkitd.sock",
	};
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < SP_ARRAY_SIZE(socks); i++)
		if (!strcmp(base, socks[i]))
			return true;
	/* the directories that hold them, mounted whole (/run holds them all) */
	static const char *const dirs[] = {"/run",	   "/var/run",	    "/run/containerd", "/var/run/containerd",
					   "/run/docker",  "/var/run/docker", "/run/podman",	   "/run/crio",
					   "/var/run/crio", "/var/lib/kubelet", "/run/buildkit"};
	size_t pl = strlen(path);
	while (pl > 1 && path[pl - 1] == '/')
		pl--;
	for (size_t i = 0; i < SP_ARRAY_SIZE(dirs); i++)
		if (strlen(dirs[i]) == pl && !strncmp(path, dirs[i], pl))
			return true;
	return false;
}

static bool str_in_array(json_t *a, const char *s)
{
	size_t i;
	json_t *v;
	json_array_foreach(a, i, v)
		if (!strcmp(json_string_value(v), s))
			return true;
	return false;
}

static bool path_under(const char *p, const char *dir)
{
	size_t dl = strlen(dir);
	return !strncmp(p, dir, dl) && (p[dl] == '\0' || p[dl] == '/');
}

/* /dev entries every runtime creates itself */
static bool dev_benign(const char *p)
{
	static const char *const ok[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
					 "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/console"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(ok); i++)
		if (!strcmp(p, ok[i]))
			return true;
	return false;
}

/* A config's parts, for its rules. The Linux rules are for Linux configs (a
 * linux object, or no platform object at all, as older writers leave it);
 * FreeBSD, z/OS, Windows, Solaris and VM configs get the rules that hold for
 * them. */
struct oci {
	json_t *root, *process, *linux_, *fbsd, *zos, *win;
	bool is_linux;
};

/* A config's rules: each check below joins this table where it is defined
 * and they run in the order they are written (checkreg.h). */
typedef void oci_check(sp_lint *l, size_t fi, const struct oci *o);
SP_LINT_CHECKS(oci_checks, oci_check);

static void check_namespaces(sp_lint *l, size_t fi, const struct oci *o)
{
	json_t *linux_ = o->linux_;
	if (!o->is_linux)
		return;
	static const char *const needed[] = {"pid", "network", "mount", "ipc", "uts"};
	json_t *ns = json_object_get(linux_, "namespaces");
	for (size_t k = 0; k < SP_ARRAY_SIZE(needed); k++) {
		bool have = false, host = false;
		const char *path = NULL;
		size_t at = 0, i;
		json_t *v;
		json_array_foreach(ns, i, v) {
			const char *t = json_string_value(json_object_get(v, "type"));
			if (t && !strcmp(t, needed[k])) {
				have = true;
				at = i;
				path = json_string_value(json_object_get(v, "path"));
				/* joining pid 1's (or our own) namespace is joining the host's */
				if (path && (sp_startswith(path, "/proc/1/ns/") || sp_startswith(path, "/proc/self/ns/")))
					host = true;
			}
		}
		if (!have) {
			sp_lint_report(l, fi, SP_LR_OCI_NAMESPACE_MISSING, ns ? "/linux/namespaces" : "/linux", 0, 0,
				       "no %s namespace: the container shares the host's", needed[k]);
		} else if (host) {
			_cleanup_free_ char *p = sp_xasprintf("/linux/namespaces/%zu/path", at);
			sp_lint_report(l, fi, SP_LR_OCI_NAMESPACE_MISSING, p, 0, 0,
				       "the %s namespace joins %s, the host's", needed[k], path);
		}
	}
	bool user = false;
	size_t i;
	json_t *v;
	json_array_foreach(ns, i, v) {
		const char *t = json_string_value(json_object_get(v, "type"));
		if (t && !strcmp(t, "user"))
			user = true;
	}
	if (!user)
		sp_lint_report(l, fi, SP_LR_OCI_USERNS_MISSING, ns ? "/linux/namespaces" : "/linux", 0, 0,
			       "no user namespace: uid 0 in the container is uid 0 on the host");
}
SP_LINT_CHECK(oci_checks, check_namespaces);

/* the capabilities Docker, podman and runc grant by default */
static bool cap_default(int cap)
{
	static const char *const def[] = {"CAP_AUDIT_WRITE", "CAP_CHOWN",	  "CAP_DAC_OVERRIDE", "CAP_FOWNER",
					  "CAP_FSETID",	     "CAP_KILL",	  "CAP_MKNOD",	      "CAP_NET_BIND_SERVICE",
					  "CAP_NET_RAW",     "CAP_SETFCAP",	  "CAP_SETGID",	      "CAP_SETPCAP",
					  "CAP_SETUID",	     "CAP_SYS_CHROOT"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(def); i++)
		if (sp_cap_from_name(def[i]) == cap)
			return true;
	return false;
}

static bool cap_dangerous(int cap)
{
	static const char *const bad[] = {
		"CAP_SYS_ADMIN",      "CAP_SYS_MODULE",	 "CAP_SYS_PTRACE", "CAP_SYS_RAWIO",    "CAP_SYS_BOOT",
		"CAP_SYS_TIME",	      "CAP_NET_ADMIN",	 "CAP_DAC_READ_SEARCH", "CAP_BPF",     "CAP_PERFMON",
		"CAP_SYSLOG",	      "CAP_MAC_ADMIN",	 "CAP_MAC_OVERRIDE", "CAP_LINUX_IMMUTABLE", "CAP_SYS_RESOURCE",
		"CAP_CHECKPOINT_RESTORE", "CAP_AUDIT_CONTROL",
	};
	for (size_t i = 0; i < SP_ARRAY_SIZE(bad); i++)
		if (sp_cap_from_name(bad[i]) == cap)
			return true;
	return false;
}

static void check_caps(sp_lint *l, size_t fi, const struct oci *o)
{
	json_t *process = o->process;
	if (!o->is_linux)
		return;
	static const char *const sets[] = {"bounding", "effective", "permitted", "inheritable", "ambient"};
	json_t *caps = json_object_get(process, "capabilities");
	for (size_t s = 0; s < SP_ARRAY_SIZE(sets); s++) {
		json_t *a = json_object_get(caps, sets[s]);
		if (!a)
			continue;
		uint64_t mask = 0;
		size_t i;
		json_t *v;
		json_array_foreach(a, i, v) {
			int c = sp_cap_from_name(json_string_value(v));
			if (c >= 0 && c < 64)
				mask |= 1ull << c;
		}
		/* every capability up to CAP_AUDIT_READ (37) is "all of them" on any kernel since 3.16 */
		if ((mask & ((1ull << 38) - 1)) == ((1ull << 38) - 1)) {
			_cleanup_free_ char *p = sp_xasprintf("/process/capabilities/%s", sets[s]);
			sp_lint_report(l, fi, SP_LR_OCI_CAPS_ALL, p, 0, 0, "the %s set holds every capability (%zu)",
				       sets[s], json_array_size(a));
			continue;
		}
		json_array_foreach(a, i, v) {
			const char *name = json_string_value(v);
			int c = sp_cap_from_name(name);
			char p[80];
			snprintf(p, sizeof p, "/process/capabilities/%s/%zu", sets[s], i);
			if (c < 0)
				sp_lint_report(l, fi, SP_LR_OCI_CAPS_EXCESS, p, 0, 0,
					       "unknown capability %s in the %s set", name, sets[s]);
			else if (cap_dangerous(c))
				sp_lint_report(l, fi, SP_LR_OCI_CAPS_DANGEROUS, p, 0, 0, "%s in the %s set", name,
					       sets[s]);
			else if (!cap_default(c))
				sp_lint_report(l, fi, SP_LR_OCI_CAPS_EXCESS, p, 0, 0,
					       "%s in the %s set is beyond the default container set", name, sets[s]);
		}
	}
}
SP_LINT_CHECK(oci_checks, check_caps);

static void check_no_new_privs(sp_lint *l, size_t fi, const struct oci *o)
{
	json_t *process = o->process;
	if (!o->is_linux)
		return;
	if (!json_is_true(json_object_get(process, "noNewPrivileges")))
		sp_lint_report(l, fi, SP_LR_OCI_NO_NEW_PRIVS,
			       json_object_get(process, "noNewPrivileges") ? "/process/noNewPrivileges" : "/process",
			       0, 0, "process.noNewPrivileges is %s",
			       json_object_get(process, "noNewPrivileges") ? "false" : "unset");
}
SP_LINT_CHECK(oci_checks, check_no_new_privs);

/* no filter, or the seccomp rules on the one given (seccomp.c) */
static void check_seccomp(sp_lint *l, size_t fi, const struct oci *o)
{
	json_t *linux_ = o->linux_;
	if (!o->is_linux)
		return;
	json_t *sc = json_object_get(linux_, "seccomp");
	if (!sc)
		sp_lint_report(l, fi, SP_LR_OCI_SECCOMP_MISSING, linux_ ? "/linux" : "", 0, 0,
			       "no linux.seccomp: every syscall is allowed");
	else
		sp_lint_seccomp_check_obj(l, fi, sc, "/linux/seccomp");
}
SP_LINT_CHECK(oci_checks, check_seccomp);

/* FreeBSD (runtime-spec config-freebsd.md): a jail inherits the host's vnet,
 * addresses or SysV IPC only when told to; enforceStatfs 0 shows the host's
 * mounts; devices are exposed by name under /dev. */
static void check_freebsd(sp_lint *l, size_t fi, const struct oci *o)
{
	json_t *fb = o->fbsd;
	if (!fb)
		return;
	json_t *jail = json_object_get(fb, "jail");
	static const struct {
		const char *key, *what;
	} inherit[] = {
		{"vnet", "network stack (vnet)"},
		{"ip4", "IPv4 addresses"},
		{"ip6", "IPv6 addresses"},
		{"sysvmsg", "SysV message queues"},
		{"sysvsem", "SysV semaphores"},
		{"sysvshm", "SysV shared memory"},
	};
	for (size_t i = 0; i < SP_ARRAY_SIZE(inherit); i++) {
		const char *v = json_string_value(json_object_get(jail, inherit[i].key));
		if (!v || strcmp(v, "inherit"))
			continue;
		_cleanup_free_ char *p = sp_jptr_join("/freebsd/jail", inherit[i].key);
		sp_lint_report(l, fi, SP_LR_OCI_NAMESPACE_MISSING, p, 0, 0, "the jail inherits the host's %s",
			       inherit[i].what);
	}
	json_t *es = json_object_get(jail, "enforceStatfs");
	if (json_is_integer(es) && json_integer_value(es) == 0)
		sp_lint_report(l, fi, SP_LR_OCI_NAMESPACE_MISSING, "/freebsd/jail/enforceStatfs", 0, 0,
			       "enforceStatfs 0: the jail sees every mount of the host");
	size_t i;
	json_t *d;
	json_array_foreach(json_object_get(fb, "devices"), i, d) {
		const char *path = json_string_value(json_object_get(d, "path"));
		static const char *const ok[] = {"null", "zero", "random", "urandom", "stdin", "stdout", "stderr", "fd"};
		bool benign = false;
		for (size_t k = 0; path && k < SP_ARRAY_SIZE(ok); k++)
			benign |= !strcmp(path, ok[k]);
		if (benign)
			continue;
		_cleanup_free_ char *p = sp_xasprintf("/freebsd/devices/%zu", i);
		sp_lint_report(l, fi, SP_LR_OCI_HOST_DEVICES, p, 0, 0, "device /dev/%s is exposed to the jail",
			       path ? path : "?");
	}
}
SP_LINT_CHECK(oci_checks, check_freebsd);

/* z/OS (config-zos.md): pid, mount, ipc and uts namespaces, devices */
static void check_zos(sp_lint *l, size_t fi, const struct oci *o)
{
	json_t *zos = o->zos;
	if (!zos)
		return;
	static const char *const needed[] = {"pid", "mount", "ipc", "uts"};
	json_t *ns = json_object_get(zos, "namespaces");
	for (size_t k = 0; k < SP_ARRAY_SIZE(needed); k++) {
		bool have = false;
		size_t i;
		json_t *v;
		json_array_foreach(ns, i, v) {
			const char *t = json_string_value(json_object_get(v, "type"));
			have |= t && !strcmp(t, needed[k]);
		}
		if (!have)
			sp_lint_report(l, fi, SP_LR_OCI_NAMESPACE_MISSING, ns ? "/zos/namespaces" : "/zos", 0, 0,
				       "no %s namespace: the container shares the host's", needed[k]);
	}
	size_t i;
	json_t *d;
	json_array_foreach(json_object_get(zos, "devices"), i, d) {
		const char *path = json_string_value(json_object_get(d, "path"));
		if (path && dev_benign(path))
			continue;
		_cleanup_free_ char *p = sp_xasprintf("/zos/devices/%zu", i);
		sp_lint_report(l, fi, SP_LR_OCI_HOST_DEVICES, p, 0, 0, "device %s is created in the container",
			       path ? path : "(no path)");
	}
}
SP_LINT_CHECK(oci_checks, check_zos);

static void check_root_writable(sp_lint *l, size_t fi, const struct oci *o)
{
	json_t *r = json_object_get(o->root, "root");
	if (!o->win && !json_is_true(json_object_get(r, "readonly"))) /* Windows: readonly must be omitted or false */
		sp_lint_report(l, fi, SP_LR_OCI_ROOT_WRITABLE, json_object_get(r, "readonly") ? "/root/readonly" : "/root",
			       0, 0, "root.readonly is not true");
}
SP_LINT_CHECK(oci_checks, check_root_writable);

static void check_paths(sp_lint *l, size_t fi, const struct oci *o)
{
	json_t *linux_ = o->linux_;
	if (!o->is_linux)
		return;
	static const char *const masked[] = {"/proc/acpi",	    "/proc/kcore",	 "/proc/keys",
					     "/proc/latency_stats", "/proc/timer_list",	 "/proc/timer_stats",
					     "/proc/sched_debug",   "/proc/scsi",	 "/sys/firmware"};
	static const char *const ro[] = {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"};
	json_t *m = json_object_get(linux_, "maskedPaths"), *r = json_object_get(linux_, "readonlyPaths");
	char missing[1024];
	size_t n = 0;
	missing[0] = '\0';
	for (size_t k = 0; k < SP_ARRAY_SIZE(masked); k++)
		if (!str_in_array(m, masked[k])) {
			size_t ml = strlen(missing);
			snprintf(missing + ml, sizeof missing - ml, "%s%s", n++ ? ", " : "", masked[k]);
		}
	if (n)
		sp_lint_report(l, fi, SP_LR_OCI_MASKED_PATHS, m ? "/linux/maskedPaths" : "/linux", 0, 0,
			       "maskedPaths lacks %s", missing);
	n = 0;
	missing[0] = '\0';
	for (size_t k = 0; k < SP_ARRAY_SIZE(ro); k++)
		/* masking a path is stronger than making it read-only */
		if (!str_in_array(r, ro[k]) && !str_in_array(m, ro[k])) {
			size_t ml = strlen(missing);
			snprintf(missing + ml, sizeof missing - ml, "%s%s", n++ ? ", " : "", ro[k]);
		}
	if (n)
		sp_lint_report(l, fi, SP_LR_OCI_READONLY_PATHS, r ? "/linux/readonlyPaths" : "/linux", 0, 0,
			       "readonlyPaths lacks %s", missing);
}
SP_LINT_CHECK(oci_checks, check_paths);

static void check_mounts(sp_lint *l, size_t fi, const struct oci *o)
{
	json_t *root = o->root;
	json_t *mounts = json_object_get(root, "mounts");
	size_t i;
	json_t *m;
	json_array_foreach(mounts, i, m) {
		const char *src = json_string_value(json_object_get(m, "source"));
		const char *dst = json_string_value(json_object_get(m, "destination"));
		const char *type = json_string_value(json_object_get(m, "type"));
		json_t *opts = json_object_get(m, "options");
		bool bind = (type && !strcmp(type, "bind")) || str_in_array(opts, "bind") || str_in_array(opts, "rbind");
		bool ro = str_in_array(opts, "ro");
		char p[48];
		snprintf(p, sizeof p, "/mounts/%zu", i);
		if (!dst)
			dst = "?";
		if (bind && src) {
			if (sp_lint_is_runtime_socket(src))
				sp_lint_report(l, fi, SP_LR_OCI_MOUNT_SOCKET, p, 0, 0,
					       "%s (a runtime control socket) is mounted at %s", src, dst);
			else if (!strcmp(src, "/") || !strcmp(src, "//"))
				sp_lint_report(l, fi, SP_LR_OCI_MOUNT_HOST_ROOT, p, 0, 0,
					       "the host's / is bind-mounted at %s%s", dst, ro ? " (read-only)" : "");
			else if ((path_under(src, "/proc") || path_under(src, "/sys")) && !ro)
				sp_lint_report(l, fi, SP_LR_OCI_MOUNT_PROC_SYS, p, 0, 0,
					       "the host's %s is bind-mounted read-write at %s", src, dst);
			else if (path_under(src, "/dev") && !dev_benign(src) && strcmp(src, "/dev/shm") &&
				 !path_under(src, "/dev/pts") && !path_under(src, "/dev/mqueue"))
				sp_lint_report(l, fi, SP_LR_OCI_HOST_DEVICES, p, 0, 0,
					       "the host's %s is bind-mounted at %s", src, dst);
		} else if (type && !strcmp(type, "sysfs") && !ro) {
			sp_lint_report(l, fi, SP_LR_OCI_MOUNT_PROC_SYS, p, 0, 0, "sysfs is mounted read-write at %s", dst);
		}
	}
}
SP_LINT_CHECK(oci_checks, check_mounts);

static void check_devices(sp_lint *l, size_t fi, const struct oci *o)
{
	json_t *linux_ = o->linux_;
	if (!o->is_linux)
		return;
	size_t i;
	json_t *d;
	json_array_foreach(json_object_get(linux_, "devices"), i, d) {
		const char *path = json_string_value(json_object_get(d, "path"));
		if (path && dev_benign(path))
			continue;
		_cleanup_free_ char *p = sp_xasprintf("/linux/devices/%zu", i);
		sp_lint_report(l, fi, SP_LR_OCI_HOST_DEVICES, p, 0, 0, "device %s is created in the container",
			       path ? path : "(no path)");
	}
	json_array_foreach(json_object_get(json_object_get(linux_, "resources"), "devices"), i, d) {
		if (!json_is_true(json_object_get(d, "allow")))
			continue;
		const char *type = json_string_value(json_object_get(d, "type"));
		json_t *major = json_object_get(d, "major");
		bool any_type = !type || !strcmp(type, "a");
		bool any_major = !major || json_is_null(major) || (json_is_integer(major) && json_integer_value(major) < 0);
		if (any_type && any_major) {
			_cleanup_free_ char *p = sp_xasprintf("/linux/resources/devices/%zu", i);
			sp_lint_report(l, fi, SP_LR_OCI_DEVICES_ALLOW_ALL, p, 0, 0,
				       "a device cgroup rule allows every device (access %s)",
				       json_string_value(json_object_get(d, "access")) ?: "rwm");
		}
	}
}
SP_LINT_CHECK(oci_checks, check_devices);

static void check_limits(sp_lint *l, size_t fi, const struct oci *o)
{
	json_t *linux_ = o->linux_;
	if (!o->is_linux)
		return;
	json_t *res = json_object_get(linux_, "resources");
	json_t *mem = json_object_get(res, "memory"), *pids = json_object_get(res, "pids");
	json_t *ml = json_object_get(mem, "limit"), *pl = json_object_get(pids, "limit");
	if (!ml || json_integer_value(ml) <= 0)
		sp_lint_report(l, fi, SP_LR_OCI_MEMORY_LIMIT,
			       ml ? "/linux/resources/memory/limit" : mem ? "/linux/resources/memory" : "/linux/resources",
			       0, 0, "%s", ml ? "the memory limit is unlimited" : "no memory limit (linux.resources.memory.limit)");
	if (!pl || json_integer_value(pl) <= 0)
		sp_lint_report(l, fi, SP_LR_OCI_PIDS_LIMIT,
			       pl ? "/linux/resources/pids/limit" : pids ? "/linux/resources/pids" : "/linux/resources", 0,
			       0, "%s", pl ? "the pids limit is unlimited" : "no pids limit (linux.resources.pids.limit)");
}
SP_LINT_CHECK(oci_checks, check_limits);

static bool has_namespace(json_t *linux_, const char *type)
{
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(linux_, "namespaces"), i, v) {
		const char *t = json_string_value(json_object_get(v, "type"));
		const char *path = json_string_value(json_object_get(v, "path"));
		if (t && !strcmp(t, type) && !(path && sp_startswith(path, "/proc/1/ns/")))
			return true;
	}
	return false;
}

static void check_sysctl(sp_lint *l, size_t fi, const struct oci *o)
{
	json_t *linux_ = o->linux_;
	if (!o->is_linux)
		return;
	bool ipc = has_namespace(linux_, "ipc"), net = has_namespace(linux_, "network"), uts = has_namespace(linux_, "uts");
	const char *k;
	json_t *v;
	json_object_foreach(json_object_get(linux_, "sysctl"), k, v) {
		bool safe = false;
		if (ipc && (sp_startswith(k, "kernel.shm") || sp_startswith(k, "kernel.msg") ||
			    !strcmp(k, "kernel.sem") || sp_startswith(k, "fs.mqueue.")))
			safe = true;
		if (net && sp_startswith(k, "net."))
			safe = true;
		if (uts && (!strcmp(k, "kernel.hostname") || !strcmp(k, "kernel.domainname")))
			safe = true;
		if (safe)
			continue;
		_cleanup_free_ char *p = sp_jptr_join("/linux/sysctl", k);
		sp_lint_report(l, fi, SP_LR_OCI_SYSCTL, p, 0, 0, "sysctl %s = %s is not isolated by the container's namespaces",
			       k, json_string_value(v));
	}
}
SP_LINT_CHECK(oci_checks, check_sysctl);

static void check_hooks(sp_lint *l, size_t fi, const struct oci *o)
{
	json_t *root = o->root;
	const char *stage;
	json_t *list;
	json_object_foreach(json_object_get(root, "hooks"), stage, list) {
		size_t i;
		json_t *h;
		json_array_foreach(list, i, h) {
			const char *path = json_string_value(json_object_get(h, "path"));
			_cleanup_free_ char *base = sp_jptr_join("/hooks", stage);
			_cleanup_free_ char *p = sp_xasprintf("%s/%zu", base, i);
			sp_lint_report(l, fi, SP_LR_OCI_HOOKS, p, 0, 0, "%s hook runs %s with the runtime's privileges",
				       stage, path ? path : "(no path)");
		}
	}
}
SP_LINT_CHECK(oci_checks, check_hooks);

void sp_lint_oci_check(sp_lint *l, size_t fi)
{
	json_t *root = l->files[fi].json;
	struct oci o = {
		.root = root,
		.process = json_object_get(root, "process"),
		.linux_ = json_object_get(root, "linux"),
		.fbsd = json_object_get(root, "freebsd"),
		.zos = json_object_get(root, "zos"),
		.win = json_object_get(root, "windows"),
	};
	o.is_linux = o.linux_ || !(o.fbsd || o.zos || o.win || json_object_get(root, "solaris") || json_object_get(root, "vm"));
	for (const struct oci_checks_entry *c = oci_checks; c; c = c->next)
		c->fn(l, fi, &o);
}
