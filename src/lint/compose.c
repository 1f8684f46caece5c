/* Compose files (docker compose / podman-compose): each service's
 * privileges, namespaces, volumes, security options, user, devices, runtime
 * and the proxy it is told to use. */
#include <string.h>

#include "lint/yamldoc.h"

static const sp_yschema compose_schema[] = {
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
	{"/services/*/runtime", 's'},
	{"/services/*/cap_add", 'q'},
	{"/services/*/cap_add/*", 's'},
	{"/services/*/security_opt", 'q'},
	{"/services/*/security_opt/*", 's'},
	{"/services/*/volumes", 'q'},
	{"/services/*/volumes/*/type", 's'},
	{"/services/*/volumes/*/source", 's'},
	{"/services/*/volumes/*/target", 's'},
	{"/services/*/devices", 'q'},
	{"/services/*/environment", 'c'},
	{"/services/*/environment/*", 's'},
};

static bool is_proxy_var(const char *name)
{
	return !strcasecmp(name, "https_proxy") || !strcasecmp(name, "http_proxy") || !strcasecmp(name, "all_proxy");
}

int sp_lint_compose_validate(sp_lint_file *f, sp_error *err)
{
	for (size_t di = 0; di < f->yaml->n; di++) {
		yaml_document_t *d = &f->yaml->docs[di];
		yaml_node_t *root = yaml_document_get_root_node(d);
		if (sp_y_schema(f, d, root, "", compose_schema, SP_ARRAY_SIZE(compose_schema), err) < 0)
			return -1;
		yaml_node_t *services = sp_y_get(d, root, "services");
		for (size_t i = 0; i < sp_y_npairs(services); i++) {
			yaml_node_t *k, *svc;
			sp_y_pair(d, services, i, &k, &svc);
			const char *name = sp_y_str(k) ? sp_y_str(k) : "?";
			yaml_node_t *env = sp_y_get(d, svc, "environment");
			_cleanup_free_ char *sp = sp_jptr_join("/services", name);
			_cleanup_free_ char *ep = sp_jptr_join(sp, "environment");
			if (sp_y_is_map(env)) {
				for (size_t e = 0; e < sp_y_npairs(env); e++) {
					yaml_node_t *ek, *ev;
					sp_y_pair(d, env, e, &ek, &ev);
					const char *en = sp_y_str(ek);
					if (en && is_proxy_var(en) && sp_y_str(ev)) {
						_cleanup_free_ char *p = sp_jptr_join(ep, en);
						sp_lint_add_proxyref(f, en, sp_y_str(ev), p, sp_y_line(ev), sp_y_col(ev));
					}
				}
			} else {
				for (size_t e = 0; e < sp_y_len(env); e++) {
					yaml_node_t *ev = sp_y_at(d, env, e);
					const char *s = sp_y_str(ev), *eq = s ? strchr(s, '=') : NULL;
					if (!eq)
						continue;
					_cleanup_free_ char *en = sp_xstrndup(s, (size_t)(eq - s));
					if (is_proxy_var(en)) {
						_cleanup_free_ char *p = sp_jptr_index(ep, e);
						sp_lint_add_proxyref(f, en, eq + 1, p, sp_y_line(ev), sp_y_col(ev));
					}
				}
			}
		}
	}
	return 0;
}

static bool root_user(const char *u)
{
	size_t n = strcspn(u, ":");
	return (n == 1 && u[0] == '0') || (n == 4 && !strncmp(u, "root", 4));
}

static void check_volume(sp_lint *l, size_t fi, yaml_document_t *d, yaml_node_t *v, const char *ptr, const char *svc)
{
	_cleanup_free_ char *src = NULL;
	const char *target = "?";
	if (sp_y_str(v)) {
		const char *s = sp_y_str(v);
		const char *colon = strchr(s, ':');
		if (!colon)
			return; /* an anonymous volume */
		src = sp_xstrndup(s, (size_t)(colon - s));
		target = colon + 1;
	} else if (sp_y_is_map(v)) {
		const char *type = sp_y_str(sp_y_get(d, v, "type"));
		const char *s = sp_y_str(sp_y_get(d, v, "source"));
		if (!type || strcmp(type, "bind") || !s)
			return;
		src = sp_xstrdup(s);
		target = sp_y_str(sp_y_get(d, v, "target")) ?: "?";
	} else {
		return;
	}
	if (src[0] != '/')
		return; /* a named volume or a path in the project */
	if (sp_lint_is_runtime_socket(src))
		sp_y_report(l, fi, SP_LR_COMPOSE_SOCKET, v, ptr, "service '%s' mounts %s, a runtime control socket", svc,
			    src);
	else if (!strncmp(src, "/dev/", 5))
		sp_y_report(l, fi, SP_LR_COMPOSE_DEVICES, v, ptr, "service '%s' bind-mounts the host device %s", svc, src);
	else
		sp_y_report(l, fi, SP_LR_COMPOSE_HOST_PATH, v, ptr, "service '%s' bind-mounts the host path %s%s", svc, src,
			    !strcmp(src, "/") ? " (the whole host)" : "");
	(void)target;
}

static void check_service(sp_lint *l, size_t fi, yaml_document_t *d, yaml_node_t *key, yaml_node_t *svc)
{
	const char *name = sp_y_str(key) ? sp_y_str(key) : "?";
	_cleanup_free_ char *sp = sp_jptr_join("/services", name);
#define PTR(field) _cleanup_free_ char *p_##field = sp_jptr_join(sp, #field)
	PTR(privileged);
	PTR(cap_add);
	PTR(read_only);
	PTR(security_opt);
	PTR(user);
	PTR(devices);
	PTR(volumes);
	PTR(runtime);
#undef PTR
	yaml_node_t *n;
	if (sp_y_true(n = sp_y_get(d, svc, "privileged")))
		sp_y_report(l, fi, SP_LR_COMPOSE_PRIVILEGED, n, p_privileged, "service '%s' is privileged", name);
	n = sp_y_get(d, svc, "cap_add");
	for (size_t i = 0; i < sp_y_len(n); i++) {
		yaml_node_t *c = sp_y_at(d, n, i);
		_cleanup_free_ char *p = sp_jptr_index(p_cap_add, i);
		sp_y_report(l, fi, SP_LR_COMPOSE_CAP_ADD, c, p, "service '%s' adds %s", name, sp_y_str(c) ?: "?");
	}
	static const char *const nsk[] = {"network_mode", "pid", "ipc", "uts", "userns_mode"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(nsk); i++) {
		n = sp_y_get(d, svc, nsk[i]);
		if (sp_y_str(n) && !strcmp(sp_y_str(n), "host")) {
			_cleanup_free_ char *p = sp_jptr_join(sp, nsk[i]);
			sp_y_report(l, fi, SP_LR_COMPOSE_HOST_NS, n, p, "service '%s' has %s: host", name, nsk[i]);
		}
	}
	n = sp_y_get(d, svc, "volumes");
	for (size_t i = 0; i < sp_y_len(n); i++) {
		_cleanup_free_ char *p = sp_jptr_index(p_volumes, i);
		check_volume(l, fi, d, sp_y_at(d, n, i), p, name);
	}
	n = sp_y_get(d, svc, "devices");
	for (size_t i = 0; i < sp_y_len(n); i++) {
		yaml_node_t *dv = sp_y_at(d, n, i);
		_cleanup_free_ char *p = sp_jptr_index(p_devices, i);
		sp_y_report(l, fi, SP_LR_COMPOSE_DEVICES, dv, p, "service '%s' passes through device %s", name,
			    sp_y_str(dv) ?: "(mapping)");
	}
	if (!sp_y_true(n = sp_y_get(d, svc, "read_only")))
		sp_y_report(l, fi, SP_LR_COMPOSE_ROOT_WRITABLE, n ? n : key, n ? p_read_only : sp,
			    "service '%s' has a writable root filesystem (read_only: true not set)", name);
	bool nnp = false;
	n = sp_y_get(d, svc, "security_opt");
	for (size_t i = 0; i < sp_y_len(n); i++) {
		yaml_node_t *o = sp_y_at(d, n, i);
		const char *s = sp_y_str(o);
		if (!s)
			continue;
		_cleanup_free_ char *p = sp_jptr_index(p_security_opt, i);
		if (!strcmp(s, "seccomp=unconfined") || !strcmp(s, "seccomp:unconfined"))
			sp_y_report(l, fi, SP_LR_COMPOSE_SECCOMP_UNCONFINED, o, p, "service '%s' has %s", name, s);
		else if (!strcmp(s, "apparmor=unconfined") || !strcmp(s, "apparmor:unconfined"))
			sp_y_report(l, fi, SP_LR_COMPOSE_APPARMOR_UNCONFINED, o, p, "service '%s' has %s", name, s);
		else if (!strcmp(s, "no-new-privileges") || !strcmp(s, "no-new-privileges:true") ||
			 !strcmp(s, "no-new-privileges=true"))
			nnp = true;
	}
	if (!nnp)
		sp_y_report(l, fi, SP_LR_COMPOSE_PRIV_ESC, n ? n : key, n ? p_security_opt : sp,
			    "service '%s' does not set security_opt no-new-privileges:true", name);
	n = sp_y_get(d, svc, "user");
	if (!n)
		sp_y_report(l, fi, SP_LR_COMPOSE_ROOT_USER, key, sp,
			    "service '%s' sets no user: it runs as the image's user, root unless the image says otherwise",
			    name);
	else if (sp_y_str(n) && root_user(sp_y_str(n)))
		sp_y_report(l, fi, SP_LR_COMPOSE_ROOT_USER, n, p_user, "service '%s' runs as user %s", name, sp_y_str(n));
	const char *want = l->opts.require_runtime_class;
	if (want) {
		n = sp_y_get(d, svc, "runtime");
		if (!sp_y_str(n) || strcmp(sp_y_str(n), want))
			sp_y_report(l, fi, SP_LR_COMPOSE_RUNTIME, n ? n : key, n ? p_runtime : sp,
				    "service '%s' uses runtime %s, the policy demands %s", name,
				    sp_y_str(n) ? sp_y_str(n) : "(default)", want);
	}
}

void sp_lint_compose_check(sp_lint *l, size_t fi)
{
	struct sp_yaml *y = l->files[fi].yaml;
	for (size_t di = 0; di < y->n; di++) {
		yaml_document_t *d = &y->docs[di];
		yaml_node_t *services = sp_y_get(d, yaml_document_get_root_node(d), "services");
		for (size_t i = 0; i < sp_y_npairs(services); i++) {
			yaml_node_t *k, *v;
			sp_y_pair(d, services, i, &k, &v);
			check_service(l, fi, d, k, v);
		}
	}
}
