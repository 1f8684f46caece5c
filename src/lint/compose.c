/* Compose files (docker compose / podman-compose): each service's
 * privileges, namespaces, volumes, ports, security options, user, devices,
 * limits, sysctls, environment, runtime and the proxy it is told to use.
 * A service that `extends` another of the same file gets the other's
 * settings where it sets none (and both lists of volumes, capabilities,
 * devices, ports and security options). Values are read as compose would
 * with no variable set: `${VAR:-default}` and `${VAR-default}` are their
 * default; `~` is the home directory of the host. */
#include <string.h>

#include "lint/checkreg.h"
#include "lint/yamldoc.h"

static const sp_lint_yschema compose_schema[] = {
	{"", 'm'},
	{"/services", 'm'},
	{"/services/*", 'm'},
	{"/services/*/privileged", 's'},
	{"/services/*/read_only", 's'},
	{"/services/*/user", 's'},
	{"/services/*/network_mode", 's'},
	{"/services/*/pid", 's'},
	{"/services/*/ipc", 's'},
	{"/services/*/uts", 's'},
	{"/services/*/userns_mode", 's'},
	{"/services/*/cgroup", 's'},
	{"/services/*/cgroup_parent", 's'},
	{"/services/*/runtime", 's'},
	{"/services/*/extends", '*'},
	{"/services/*/cap_add", 'q'},
	{"/services/*/cap_add/*", 's'},
	{"/services/*/cap_drop", 'q'},
	{"/services/*/cap_drop/*", 's'},
	{"/services/*/group_add", 'q'},
	{"/services/*/group_add/*", 's'},
	{"/services/*/security_opt", 'q'},
	{"/services/*/security_opt/*", 's'},
	{"/services/*/volumes", 'q'},
	{"/services/*/volumes/*/type", 's'},
	{"/services/*/volumes/*/source", 's'},
	{"/services/*/volumes/*/target", 's'},
	{"/services/*/ports", 'q'},
	{"/services/*/ports/*/host_ip", 's'},
	{"/services/*/devices", 'q'},
	{"/services/*/sysctls", 'c'},
	{"/services/*/sysctls/*", 's'},
	{"/services/*/environment", 'c'},
	{"/services/*/environment/*", 's'},
	{"/services/*/deploy", 'm'},
	{"/services/*/deploy/resources", 'm'},
	{"/services/*/deploy/resources/limits", 'm'},
	{"/services/*/deploy/resources/limits/*", 's'},
	{"/volumes", 'm'},
	{"/volumes/*", 'm'},
	{"/volumes/*/driver_opts", 'm'},
	{"/volumes/*/driver_opts/*", 's'},
};

static bool is_proxy_var(const char *name)
{
	return !strcasecmp(name, "https_proxy") || !strcasecmp(name, "http_proxy") || !strcasecmp(name, "all_proxy");
}

/* A service and the services it extends (same file), nearest first. */
#define MAX_EXTENDS 8
struct svc {
	sp_ydoc *d;
	sp_ynode *root;
	const char *name;
	sp_ynode *key;
	size_t n;
	sp_ynode *node[MAX_EXTENDS];
	char *ptr[MAX_EXTENDS];
};

static void svc_init(struct svc *s, sp_ydoc *d, sp_ynode *root, sp_ynode *key, sp_ynode *node)
{
	memset(s, 0, sizeof *s);
	s->d = d;
	s->root = root;
	s->key = key;
	s->name = sp_y_str(key) ?: "?";
	sp_ynode *services = sp_y_get(d, root, "services");
	const char *name = s->name;
	while (node && s->n < MAX_EXTENDS) {
		bool seen = false;
		for (size_t i = 0; i < s->n; i++)
			seen |= s->node[i] == node;
		if (seen)
			break;
		s->node[s->n] = node;
		s->ptr[s->n++] = sp_jptr_join("/services", name);
		sp_ynode *ext = sp_y_get(d, node, "extends");
		const char *base = sp_y_str(ext) ?: sp_y_str(sp_y_get(d, ext, "service"));
		if (!base || sp_y_get(d, ext, "file")) /* another file's service is not read */
			break;
		name = base;
		node = sp_y_get(d, services, base);
	}
}

static void svc_free(struct svc *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->ptr[i]);
}

/* the first of the chain that sets key; *at is its index */
static sp_ynode *svc_get(const struct svc *s, const char *key, size_t *at)
{
	for (size_t i = 0; i < s->n; i++) {
		sp_ynode *v = sp_y_get(s->d, s->node[i], key);
		if (v) {
			if (at)
				*at = i;
			return v;
		}
	}
	return NULL;
}

static char *svc_ptr(const struct svc *s, size_t at, const char *key)
{
	return sp_jptr_join(s->ptr[at], key);
}

/* A service's rules: each check below joins this table where it is defined
 * and they run in the order they are written (checkreg.h). */
typedef void compose_check(sp_lint *l, size_t fi, const struct svc *s);
SP_LINT_CHECKS(compose_checks, compose_check);

/* Interpolate as compose does with no variable set: ${V:-d} and ${V-d} give
 * d, $$ is $, anything else that refers to a variable makes the value
 * unknown (NULL). */
static char *interpolate(const char *s)
{
	size_t n = strlen(s), k = 0;
	char *out = sp_xmalloc(n + 1);
	for (size_t i = 0; i < n;) {
		if (s[i] != '$') {
			out[k++] = s[i++];
			continue;
		}
		if (s[i + 1] == '$') {
			out[k++] = '$';
			i += 2;
			continue;
		}
		if (s[i + 1] != '{') {
			free(out);
			return NULL;
		}
		const char *close = strchr(s + i, '}');
		const char *dash = strstr(s + i, ":-");
		const char *dash1 = strchr(s + i, '-');
		if (!close) {
			free(out);
			return NULL;
		}
		const char *def = NULL;
		if (dash && dash < close)
			def = dash + 2;
		else if (dash1 && dash1 < close)
			def = dash1 + 1;
		if (!def || memchr(def, '$', (size_t)(close - def))) {
			free(out);
			return NULL;
		}
		memcpy(out + k, def, (size_t)(close - def));
		k += (size_t)(close - def);
		i = (size_t)(close - s) + 1;
	}
	out[k] = '\0';
	return out;
}

static bool root_user(const char *u)
{
	size_t n = strcspn(u, ":");
	return (n == 1 && u[0] == '0') || (n == 4 && !strncmp(u, "root", 4));
}

static bool root_group(const char *g)
{
	return !strcmp(g, "0") || !strcmp(g, "root");
}

/* the host path a named volume binds (driver_opts: {o: bind, device: PATH}), or NULL */
static const char *named_volume_bind(sp_ydoc *d, sp_ynode *root, const char *name)
{
	sp_ynode *opts = sp_y_get(d, sp_y_get(d, sp_y_get(d, root, "volumes"), name), "driver_opts");
	const char *o = sp_y_str(sp_y_get(d, opts, "o"));
	const char *dev = sp_y_str(sp_y_get(d, opts, "device"));
	if (!o || !dev)
		return NULL;
	sp_strv parts = {0};
	sp_strv_split(&parts, o, ",");
	bool bind = sp_strv_contains(&parts, "bind") || sp_strv_contains(&parts, "rbind");
	sp_strv_free(&parts);
	return bind ? dev : NULL;
}

static void check_volume(sp_lint *l, size_t fi, const struct svc *s, sp_ynode *v, const char *ptr)
{
	sp_ydoc *d = s->d;
	_cleanup_free_ char *raw = NULL, *target = NULL;
	if (sp_y_str(v)) {
		const char *str = sp_y_str(v);
		/* SRC:DST[:MODE]; a variable's default may hold a ':' of its own */
		_cleanup_free_ char *full = interpolate(str);
		const char *colon = NULL;
		if (full) {
			colon = strchr(full, ':');
			if (!colon)
				return; /* an anonymous volume */
			raw = sp_xstrndup(full, (size_t)(colon - full));
			const char *t = colon + 1;
			target = sp_xstrndup(t, strcspn(t, ":"));
		} else {
			/* unknown source: judge by where it is mounted */
			const char *c = strstr(str, "}:");
			c = c ? c + 2 : strrchr(str, ':') ? strrchr(str, ':') + 1
							  : NULL;
			_cleanup_free_ char *t = c ? sp_xstrndup(c, strcspn(c, ":")) : NULL;
			if (t && t[0] == '/' && sp_lint_is_runtime_socket(t)) {
				sp_y_report(l, fi, SP_LR_COMPOSE_SOCKET, v, ptr,
					    "service '%s' mounts a path set by a variable at %s, a runtime control socket",
					    s->name, t);
			}
			return;
		}
	} else if (sp_y_is_map(v)) {
		const char *type = sp_y_str(sp_y_get(d, v, "type"));
		const char *src = sp_y_str(sp_y_get(d, v, "source"));
		if (!type || !src || (strcmp(type, "bind") && strcmp(type, "volume")))
			return;
		raw = interpolate(src);
		if (!raw)
			return;
		if (!strcmp(type, "volume")) {
			const char *dev = named_volume_bind(d, s->root, raw);
			if (!dev)
				return;
			free(raw);
			raw = sp_xstrdup(dev);
		}
	} else {
		return;
	}
	const char *src = raw;
	const char *via = "";
	_cleanup_free_ char *vianame = NULL;
	if (src[0] != '/' && src[0] != '~' && src[0] != '.') {
		const char *dev = named_volume_bind(d, s->root, src);
		if (!dev)
			return; /* a named volume */
		vianame = sp_xasprintf(" (through volume '%s')", src);
		via = vianame;
		src = dev;
	}
	if (src[0] == '.')
		return; /* a path in the project */
	bool home = src[0] == '~';
	if (sp_lint_is_runtime_socket(src))
		sp_y_report(l, fi, SP_LR_COMPOSE_SOCKET, v, ptr, "service '%s' mounts %s%s, a runtime control socket",
			    s->name, src, via);
	else if (!strncmp(src, "/dev/", 5))
		sp_y_report(l, fi, SP_LR_COMPOSE_DEVICES, v, ptr, "service '%s' bind-mounts the host device %s%s", s->name,
			    src, via);
	else
		sp_y_report(l, fi, SP_LR_COMPOSE_HOST_PATH, v, ptr, "service '%s' bind-mounts the host path %s%s%s%s",
			    s->name, src, via, !strcmp(src, "/") ? " (the whole host)" : "",
			    home ? " (in the home directory of the user who runs compose)" : "");
	(void)target;
}

/* is a published port bound to every interface? (short and long syntax) */
static bool port_all_interfaces(sp_ydoc *d, sp_ynode *p, char *what, size_t wsz)
{
	const char *s = sp_y_str(p);
	if (s) {
		_cleanup_free_ char *v = interpolate(s);
		if (!v)
			return false;
		snprintf(what, wsz, "%s", v);
		const char *ip = NULL;
		size_t iplen = 0;
		if (v[0] == '[') {
			const char *e = strchr(v, ']');
			if (!e)
				return false;
			ip = v + 1;
			iplen = (size_t)(e - ip);
		} else {
			int colons = 0;
			for (const char *c = v; *c; c++)
				colons += *c == ':';
			if (colons >= 2) {
				ip = v;
				iplen = strcspn(v, ":");
			}
		}
		if (!ip)
			return true; /* "80" or "8080:80": 0.0.0.0 */
		return (iplen == 7 && !strncmp(ip, "0.0.0.0", 7)) || (iplen == 2 && !strncmp(ip, "::", 2)) || iplen == 0;
	}
	if (!sp_y_is_map(p))
		return false;
	const char *pub = sp_y_str(sp_y_get(d, p, "published"));
	const char *tgt = sp_y_str(sp_y_get(d, p, "target"));
	const char *mode = sp_y_str(sp_y_get(d, p, "mode"));
	const char *ip = sp_y_str(sp_y_get(d, p, "host_ip"));
	snprintf(what, wsz, "%s:%s", pub ? pub : "(random)", tgt ? tgt : "?");
	if (mode && !strcmp(mode, "ingress") && !pub)
		return true;
	return !ip || !strcmp(ip, "0.0.0.0") || !strcmp(ip, "::");
}

static bool sysctl_safe(const char *k)
{
	static const char *const safe[] = {
		"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_unprivileged_port_start",
		"net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports",
		"net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
		"net.ipv4.tcp_keepalive_probes", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(safe); i++)
		if (!strcmp(k, safe[i]))
			return true;
	return false;
}

bool sp_lint_secret_name(const char *name);

static void check_env_secret(sp_lint *l, size_t fi, const struct svc *s, sp_ynode *node, const char *ptr,
			     const char *name, const char *value)
{
	if (!value || !value[0] || value[0] == '$' || !sp_lint_secret_name(name))
		return;
	sp_y_report(l, fi, SP_LR_COMPOSE_ENV_SECRET, node, ptr, "service '%s' has %s written in its environment",
		    s->name, name);
}

/* every item of a list key along the extends chain */
#define FOR_ITEMS(s, key, at, item, idx) \
	for (size_t at = 0; at < (s)->n; at++) \
		for (sp_ynode *list_##item = sp_y_get((s)->d, (s)->node[at], key), *item = NULL; list_##item; \
		     list_##item = NULL) \
			for (size_t idx = 0; idx < sp_y_len(list_##item) && \
					     ((item = sp_y_at((s)->d, list_##item, idx)) != NULL || 1); \
			     idx++)

/* privileges and capabilities */
static void check_caps(sp_lint *l, size_t fi, const struct svc *s)
{
	sp_ynode *key = s->key;
	const char *sp = s->ptr[0];
	const char *name = s->name;
	size_t at = 0;
	sp_ynode *n;
	if (sp_y_true(n = svc_get(s, "privileged", &at))) {
		_cleanup_free_ char *p = svc_ptr(s, at, "privileged");
		sp_y_report(l, fi, SP_LR_COMPOSE_PRIVILEGED, n, p, "service '%s' is privileged", name);
	}
	bool drop_all = false;
	FOR_ITEMS(s, "cap_add", a, c, i)
	{
		_cleanup_free_ char *lp = svc_ptr(s, a, "cap_add");
		_cleanup_free_ char *p = sp_jptr_index(lp, i);
		sp_y_report(l, fi, SP_LR_COMPOSE_CAP_ADD, c, p, "service '%s' adds %s", name, sp_y_str(c) ?: "?");
	}
	FOR_ITEMS(s, "cap_drop", a, c, i)
	{
		(void)a;
		const char *cs = sp_y_str(c);
		drop_all |= cs && (!strcasecmp(cs, "ALL") || !strcasecmp(cs, "CAP_ALL"));
	}
	if (!drop_all) {
		sp_ynode *cd = svc_get(s, "cap_drop", &at);
		_cleanup_free_ char *p = cd ? svc_ptr(s, at, "cap_drop") : NULL;
		sp_y_report(l, fi, SP_LR_COMPOSE_CAPS_DROP_ALL, cd ? cd : key, cd ? p : sp,
			    "service '%s' does not drop ALL capabilities", name);
	}
}
SP_LINT_CHECK(compose_checks, check_caps);

/* the host's namespaces, cgroups, files, devices and interfaces */
static void check_host(sp_lint *l, size_t fi, const struct svc *s)
{
	sp_ydoc *d = s->d;
	sp_ynode *key = s->key;
	const char *sp = s->ptr[0];
	const char *name = s->name;
	size_t at = 0;
	sp_ynode *n;
	static const char *const nsk[] = {"network_mode", "pid", "ipc", "uts", "userns_mode", "cgroup"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(nsk); i++) {
		n = svc_get(s, nsk[i], &at);
		if (sp_y_str(n) && !strcmp(sp_y_str(n), "host")) {
			_cleanup_free_ char *p = svc_ptr(s, at, nsk[i]);
			sp_y_report(l, fi, SP_LR_COMPOSE_HOST_NS, n, p, "service '%s' has %s: host", name, nsk[i]);
		}
	}
	if ((n = svc_get(s, "cgroup_parent", &at))) {
		_cleanup_free_ char *p = svc_ptr(s, at, "cgroup_parent");
		sp_y_report(l, fi, SP_LR_COMPOSE_CGROUP_PARENT, n, p, "service '%s' sets cgroup_parent %s", name,
			    sp_y_str(n) ?: "?");
	}
	FOR_ITEMS(s, "volumes", a, v, i)
	{
		_cleanup_free_ char *lp = svc_ptr(s, a, "volumes");
		_cleanup_free_ char *p = sp_jptr_index(lp, i);
		check_volume(l, fi, s, v, p);
	}
	FOR_ITEMS(s, "devices", a, dv, i)
	{
		_cleanup_free_ char *lp = svc_ptr(s, a, "devices");
		_cleanup_free_ char *p = sp_jptr_index(lp, i);
		sp_y_report(l, fi, SP_LR_COMPOSE_DEVICES, dv, p, "service '%s' passes through device %s", name,
			    sp_y_str(dv) ?: "(mapping)");
	}
	FOR_ITEMS(s, "ports", a, pt, i)
	{
		char what[160];
		if (!port_all_interfaces(d, pt, what, sizeof what))
			continue;
		_cleanup_free_ char *lp = svc_ptr(s, a, "ports");
		_cleanup_free_ char *p = sp_jptr_index(lp, i);
		sp_y_report(l, fi, SP_LR_COMPOSE_PORTS, pt, p, "service '%s' publishes %s on every interface", name, what);
	}
	if (!sp_y_true(n = svc_get(s, "read_only", &at))) {
		_cleanup_free_ char *p = n ? svc_ptr(s, at, "read_only") : NULL;
		sp_y_report(l, fi, SP_LR_COMPOSE_ROOT_WRITABLE, n ? n : key, n ? p : sp,
			    "service '%s' has a writable root filesystem (read_only: true not set)", name);
	}
}
SP_LINT_CHECK(compose_checks, check_host);

/* security_opt: confinement turned off, no-new-privileges missing */
static void check_security_opt(sp_lint *l, size_t fi, const struct svc *s)
{
	sp_ynode *key = s->key;
	const char *sp = s->ptr[0];
	sp_ynode *n;
	const char *name = s->name;
	size_t at = 0;
	bool nnp = false;
	FOR_ITEMS(s, "security_opt", a, o, i)
	{
		const char *str = sp_y_str(o);
		if (!str)
			continue;
		_cleanup_free_ char *lp = svc_ptr(s, a, "security_opt");
		_cleanup_free_ char *p = sp_jptr_index(lp, i);
		/* docker takes key=value and the older key:value */
		char opt[256];
		snprintf(opt, sizeof opt, "%s", str);
		char *sep = opt + strcspn(opt, "=:");
		const char *val = *sep ? sep + 1 : "";
		*sep = '\0';
		if (!strcmp(opt, "seccomp") && !strcmp(val, "unconfined"))
			sp_y_report(l, fi, SP_LR_COMPOSE_SECCOMP_UNCONFINED, o, p, "service '%s' has %s", name, str);
		else if (!strcmp(opt, "apparmor") && !strcmp(val, "unconfined"))
			sp_y_report(l, fi, SP_LR_COMPOSE_APPARMOR_UNCONFINED, o, p, "service '%s' has %s", name, str);
		else if (!strcmp(opt, "systempaths") && !strcmp(val, "unconfined"))
			sp_y_report(l, fi, SP_LR_COMPOSE_SYSTEMPATHS, o, p, "service '%s' has %s", name, str);
		else if (!strcmp(opt, "label") && (!strcmp(val, "disable") || strstr(val, "spc_t") ||
						   strstr(val, "unconfined_t")))
			sp_y_report(l, fi, SP_LR_COMPOSE_SELINUX, o, p, "service '%s' has %s", name, str);
		else if (!strcmp(opt, "no-new-privileges") && (!*val || !strcmp(val, "true")))
			nnp = true;
	}
	if (!nnp) {
		n = svc_get(s, "security_opt", &at);
		_cleanup_free_ char *p = n ? svc_ptr(s, at, "security_opt") : NULL;
		sp_y_report(l, fi, SP_LR_COMPOSE_PRIV_ESC, n ? n : key, n ? p : sp,
			    "service '%s' does not set security_opt no-new-privileges:true", name);
	}
}
SP_LINT_CHECK(compose_checks, check_security_opt);

/* root as user or group */
static void check_user(sp_lint *l, size_t fi, const struct svc *s)
{
	sp_ynode *key = s->key;
	const char *sp = s->ptr[0];
	const char *name = s->name;
	size_t at = 0;
	sp_ynode *n = svc_get(s, "user", &at);
	_cleanup_free_ char *p_user = svc_ptr(s, at, "user");
	if (!n) {
		sp_y_report(l, fi, SP_LR_COMPOSE_ROOT_USER, key, sp,
			    "service '%s' sets no user: it runs as the image's user, root unless the image says otherwise",
			    name);
	} else if (sp_y_str(n)) {
		if (root_user(sp_y_str(n)))
			sp_y_report(l, fi, SP_LR_COMPOSE_ROOT_USER, n, p_user, "service '%s' runs as user %s", name,
				    sp_y_str(n));
		const char *colon = strchr(sp_y_str(n), ':');
		if (colon && root_group(colon + 1))
			sp_y_report(l, fi, SP_LR_COMPOSE_GROUP_ROOT, n, p_user, "service '%s' runs as user %s (group 0)",
				    name, sp_y_str(n));
	}
	FOR_ITEMS(s, "group_add", a, g, i)
	{
		if (!sp_y_str(g) || !root_group(sp_y_str(g)))
			continue;
		_cleanup_free_ char *lp = svc_ptr(s, a, "group_add");
		_cleanup_free_ char *p = sp_jptr_index(lp, i);
		sp_y_report(l, fi, SP_LR_COMPOSE_GROUP_ROOT, g, p, "service '%s' adds group %s", name, sp_y_str(g));
	}
}
SP_LINT_CHECK(compose_checks, check_user);

/* limits: the service keys or deploy.resources.limits */
static void check_limits(sp_lint *l, size_t fi, const struct svc *s)
{
	const char *name = s->name;
	sp_ynode *key = s->key;
	const char *sp = s->ptr[0];
	sp_ydoc *d = s->d;
	sp_ynode *lim = NULL;
	size_t lat = 0;
	for (size_t i = 0; i < s->n && !lim; i++)
		if ((lim = sp_y_get(d, sp_y_get(d, sp_y_get(d, s->node[i], "deploy"), "resources"), "limits")))
			lat = i;
	(void)lat;
	bool mem = svc_get(s, "mem_limit", NULL) || sp_y_get(d, lim, "memory");
	bool cpu = svc_get(s, "cpus", NULL) || svc_get(s, "cpu_quota", NULL) || sp_y_get(d, lim, "cpus");
	bool pids = svc_get(s, "pids_limit", NULL) || sp_y_get(d, lim, "pids");
	if (!mem || !cpu || !pids) {
		const char *parts[3] = {0};
		size_t np = 0;
		if (!mem)
			parts[np++] = "memory";
		if (!cpu)
			parts[np++] = "CPU";
		if (!pids)
			parts[np++] = "pids";
		char miss[64];
		if (np == 1)
			snprintf(miss, sizeof miss, "%s", parts[0]);
		else if (np == 2)
			snprintf(miss, sizeof miss, "%s or %s", parts[0], parts[1]);
		else
			snprintf(miss, sizeof miss, "%s, %s or %s", parts[0], parts[1], parts[2]);
		sp_y_report(l, fi, SP_LR_COMPOSE_LIMITS, key, sp, "service '%s' has no %s limit", name, miss);
	}
}
SP_LINT_CHECK(compose_checks, check_limits);

/* sysctls: a mapping or KEY=VALUE items */
static void check_sysctls(sp_lint *l, size_t fi, const struct svc *s)
{
	sp_ydoc *d = s->d;
	const char *name = s->name;
	size_t at = 0;
	sp_ynode *sys = svc_get(s, "sysctls", &at);
	_cleanup_free_ char *sysp = svc_ptr(s, at, "sysctls");
	for (size_t i = 0; i < sp_y_npairs(sys); i++) {
		sp_ynode *k, *v;
		sp_y_pair(d, sys, i, &k, &v);
		const char *ks = sp_y_str(k);
		if (ks && !sysctl_safe(ks)) {
			_cleanup_free_ char *p = sp_jptr_join(sysp, ks);
			sp_y_report(l, fi, SP_LR_COMPOSE_SYSCTL, k, p, "service '%s' sets sysctl %s", name, ks);
		}
	}
	for (size_t i = 0; i < sp_y_len(sys); i++) {
		sp_ynode *it = sp_y_at(d, sys, i);
		const char *str = sp_y_str(it);
		if (!str)
			continue;
		_cleanup_free_ char *ks = sp_xstrndup(str, strcspn(str, "="));
		if (!sysctl_safe(ks)) {
			_cleanup_free_ char *p = sp_jptr_index(sysp, i);
			sp_y_report(l, fi, SP_LR_COMPOSE_SYSCTL, it, p, "service '%s' sets sysctl %s", name, ks);
		}
	}
}
SP_LINT_CHECK(compose_checks, check_sysctls);

/* environment secrets (the nearest definition of each) */
static void check_env(sp_lint *l, size_t fi, const struct svc *s)
{
	sp_ydoc *d = s->d;
	for (size_t ai = 0; ai < s->n; ai++) {
		sp_ynode *env = sp_y_get(d, s->node[ai], "environment");
		_cleanup_free_ char *ep = svc_ptr(s, ai, "environment");
		for (size_t e = 0; e < sp_y_npairs(env); e++) {
			sp_ynode *ek, *ev;
			sp_y_pair(d, env, e, &ek, &ev);
			const char *en = sp_y_str(ek);
			if (!en)
				continue;
			_cleanup_free_ char *p = sp_jptr_join(ep, en);
			check_env_secret(l, fi, s, ev ? ev : ek, p, en, sp_y_str(ev));
		}
		for (size_t e = 0; e < sp_y_len(env); e++) {
			sp_ynode *ev = sp_y_at(d, env, e);
			const char *str = sp_y_str(ev), *eq = str ? strchr(str, '=') : NULL;
			if (!eq)
				continue;
			_cleanup_free_ char *en = sp_xstrndup(str, (size_t)(eq - str));
			_cleanup_free_ char *p = sp_jptr_index(ep, e);
			check_env_secret(l, fi, s, ev, p, en, eq + 1);
		}
		if (env)
			break;
	}
}
SP_LINT_CHECK(compose_checks, check_env);

/* the runtime the policy demands */
static void check_runtime(sp_lint *l, size_t fi, const struct svc *s)
{
	const char *name = s->name;
	sp_ynode *key = s->key;
	const char *sp = s->ptr[0];
	const char *want = l->opts.require_runtime_class;
	if (want) {
		size_t at = 0;
		sp_ynode *n = svc_get(s, "runtime", &at);
		_cleanup_free_ char *p = svc_ptr(s, at, "runtime");
		if (!sp_y_str(n) || strcmp(sp_y_str(n), want))
			sp_y_report(l, fi, SP_LR_COMPOSE_RUNTIME, n ? n : key, n ? p : sp,
				    "service '%s' uses runtime %s, the policy demands %s", name,
				    sp_y_str(n) ? sp_y_str(n) : "(default)", want);
	}
}
SP_LINT_CHECK(compose_checks, check_runtime);

/* the proxy settings a service is given (for the relation rules) */
static void collect_proxies(sp_lint_file *f, const struct svc *s)
{
	sp_ydoc *d = s->d;
	size_t at = 0;
	sp_ynode *env = svc_get(s, "environment", &at);
	_cleanup_free_ char *ep = svc_ptr(s, at, "environment");
	for (size_t e = 0; e < sp_y_npairs(env); e++) {
		sp_ynode *ek, *ev;
		sp_y_pair(d, env, e, &ek, &ev);
		const char *en = sp_y_str(ek);
		if (en && is_proxy_var(en) && sp_y_str(ev)) {
			_cleanup_free_ char *p = sp_jptr_join(ep, en);
			sp_lint_add_proxyref(f, en, sp_y_str(ev), p, sp_y_line(ev), sp_y_col(ev));
		}
	}
	for (size_t e = 0; e < sp_y_len(env); e++) {
		sp_ynode *ev = sp_y_at(d, env, e);
		const char *str = sp_y_str(ev), *eq = str ? strchr(str, '=') : NULL;
		if (!eq)
			continue;
		_cleanup_free_ char *en = sp_xstrndup(str, (size_t)(eq - str));
		if (is_proxy_var(en)) {
			_cleanup_free_ char *p = sp_jptr_index(ep, e);
			sp_lint_add_proxyref(f, en, eq + 1, p, sp_y_line(ev), sp_y_col(ev));
		}
	}
}

int sp_lint_compose_doc(sp_lint *l, size_t fi, sp_ydoc *d, sp_ynode *root, sp_error *err)
{
	if (sp_y_schema(&l->files[fi], d, root, "", compose_schema, SP_ARRAY_SIZE(compose_schema), err) < 0)
		return -1;
	sp_ynode *services = sp_y_get(d, root, "services");
	for (size_t i = 0; i < sp_y_npairs(services); i++) {
		sp_ynode *k, *v;
		sp_y_pair(d, services, i, &k, &v);
		if (!k)
			continue;
		struct svc s;
		svc_init(&s, d, root, k, v);
		if (s.n) {
			collect_proxies(&l->files[fi], &s);
			for (const struct compose_checks_entry *c = compose_checks; c; c = c->next)
				c->fn(l, fi, &s);
		}
		svc_free(&s);
	}
	return 0;
}
