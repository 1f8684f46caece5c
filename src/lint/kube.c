/* Kubernetes objects, one YAML or JSON document after another: workloads
 * (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController,
 * Job, CronJob, PodTemplate, OpenShift DeploymentConfig, and any object with
 * a pod template under spec.template), the items of a List (what `kubectl get
 * -o yaml` prints), RBAC roles and bindings, OpenShift SecurityContextConstraints
 * and ServiceAccounts. For a pod: host namespaces, volumes, sysctls, user
 * namespace, service account token, and each container's securityContext
 * (container settings override the pod's), resources, ports and env. */
#include <stdlib.h>
#include <string.h>

#include "lint/checkreg.h"
#include "lint/yamldoc.h"

static const sp_lint_yschema pod_schema[] = {
	{"", 'm'},
	{"/hostNetwork", 's'},
	{"/hostPID", 's'},
	{"/hostIPC", 's'},
	{"/hostUsers", 's'},
	{"/runtimeClassName", 's'},
	{"/serviceAccountName", 's'},
	{"/automountServiceAccountToken", 's'},
	{"/securityContext", 'm'},
	{"/securityContext/runAsUser", 's'},
	{"/securityContext/runAsGroup", 's'},
	{"/securityContext/fsGroup", 's'},
	{"/securityContext/runAsNonRoot", 's'},
	{"/securityContext/supplementalGroups", 'q'},
	{"/securityContext/supplementalGroups/*", 's'},
	{"/securityContext/sysctls", 'q'},
	{"/securityContext/sysctls/*", 'm'},
	{"/securityContext/sysctls/*/name", 's'},
	{"/securityContext/seccompProfile", 'm'},
	{"/securityContext/seccompProfile/type", 's'},
	{"/securityContext/appArmorProfile", 'm'},
	{"/securityContext/appArmorProfile/type", 's'},
	{"/securityContext/seLinuxOptions", 'm'},
	{"/securityContext/seLinuxOptions/*", 's'},
	{"/securityContext/windowsOptions", 'm'},
	{"/securityContext/windowsOptions/hostProcess", 's'},
	{"/volumes", 'q'},
	{"/volumes/*", 'm'},
	{"/volumes/*/hostPath", 'm'},
	{"/volumes/*/hostPath/path", 's'},
	{"/containers", 'q'},
	{"/containers/*", 'm'},
	{"/containers/*/name", 's'},
	{"/initContainers", 'q'},
	{"/initContainers/*", 'm'},
	{"/ephemeralContainers", 'q'},
	{"/ephemeralContainers/*", 'm'},
	{"/*/*/ports", 'q'},
	{"/*/*/ports/*", 'm'},
	{"/*/*/ports/*/hostPort", 's'},
	{"/*/*/env", 'q'},
	{"/*/*/env/*", 'm'},
	{"/*/*/env/*/name", 's'},
	{"/*/*/env/*/value", 's'},
	{"/*/*/envFrom", 'q'},
	{"/*/*/envFrom/*", 'm'},
	{"/*/*/resources", 'm'},
	{"/*/*/resources/limits", 'm'},
	{"/*/*/resources/limits/*", 's'},
	{"/*/*/securityContext", 'm'},
	{"/*/*/securityContext/privileged", 's'},
	{"/*/*/securityContext/allowPrivilegeEscalation", 's'},
	{"/*/*/securityContext/readOnlyRootFilesystem", 's'},
	{"/*/*/securityContext/procMount", 's'},
	{"/*/*/securityContext/runAsUser", 's'},
	{"/*/*/securityContext/runAsGroup", 's'},
	{"/*/*/securityContext/runAsNonRoot", 's'},
	{"/*/*/securityContext/capabilities", 'm'},
	{"/*/*/securityContext/capabilities/add", 'q'},
	{"/*/*/securityContext/capabilities/add/*", 's'},
	{"/*/*/securityContext/capabilities/drop", 'q'},
	{"/*/*/securityContext/capabilities/drop/*", 's'},
	{"/*/*/securityContext/seccompProfile", 'm'},
	{"/*/*/securityContext/seccompProfile/type", 's'},
	{"/*/*/securityContext/appArmorProfile", 'm'},
	{"/*/*/securityContext/appArmorProfile/type", 's'},
	{"/*/*/securityContext/seLinuxOptions", 'm'},
	{"/*/*/securityContext/seLinuxOptions/*", 's'},
	{"/*/*/securityContext/windowsOptions", 'm'},
	{"/*/*/securityContext/windowsOptions/hostProcess", 's'},
};

static const sp_lint_yschema doc_schema[] = {
	{"/kind", 's'},
	{"/metadata", 'm'},
	{"/metadata/name", 's'},
	{"/metadata/annotations", 'm'},
	{"/metadata/annotations/*", 's'},
	{"/items", 'q'},
	{"/spec", 'm'},
	{"/spec/template", 'm'},
	{"/spec/template/metadata", 'm'},
	{"/spec/template/metadata/annotations", 'm'},
	{"/spec/template/metadata/annotations/*", 's'},
	{"/spec/template/spec", 'm'},
	{"/spec/jobTemplate", 'm'},
	{"/spec/jobTemplate/spec", 'm'},
	{"/spec/jobTemplate/spec/template", 'm'},
	{"/spec/jobTemplate/spec/template/metadata", 'm'},
	{"/spec/jobTemplate/spec/template/metadata/annotations", 'm'},
	{"/spec/jobTemplate/spec/template/spec", 'm'},
	{"/template", 'm'},
	{"/template/metadata", 'm'},
	{"/template/spec", 'm'},
	{"/rules", 'q'},
	{"/rules/*", 'm'},
	{"/rules/*/apiGroups", 'q'},
	{"/rules/*/apiGroups/*", 's'},
	{"/rules/*/resources", 'q'},
	{"/rules/*/resources/*", 's'},
	{"/rules/*/verbs", 'q'},
	{"/rules/*/verbs/*", 's'},
	{"/roleRef", 'm'},
	{"/roleRef/name", 's'},
	{"/allowPrivilegedContainer", 's'},
	{"/allowedCapabilities", 'q'},
	{"/allowedCapabilities/*", 's'},
	{"/automountServiceAccountToken", 's'},
};

/* a pod the service account token finding waits for: a ServiceAccount later
 * in the file may switch the mount off for every pod that uses it */
struct sa_pending {
	size_t finding;
	char *sa;
};

struct sp_kube_file {
	size_t first_finding;
	bool dropped; /* some findings were withdrawn (message NULL) */
	sp_strv sa_off; /* ServiceAccounts with automountServiceAccountToken: false */
	struct sa_pending *pend;
	size_t npend;
};

struct sp_kube_file *sp_lint_kube_begin(sp_lint *l, size_t fi)
{
	(void)fi;
	struct sp_kube_file *st = sp_xcalloc(1, sizeof *st);
	st->first_finding = l->nf;
	return st;
}

void sp_lint_kube_end(sp_lint *l, size_t fi, struct sp_kube_file *st)
{
	(void)fi;
	bool drop_any = false;
	for (size_t i = 0; i < st->npend; i++) {
		if (sp_strv_contains(&st->sa_off, st->pend[i].sa)) {
			sp_lint_finding *x = &l->f[st->pend[i].finding];
			free(x->message);
			free(x->pointer);
			x->message = x->pointer = NULL;
			drop_any = true;
		}
		free(st->pend[i].sa);
	}
	if (drop_any || st->dropped) { /* compact this file's findings */
		size_t k = st->first_finding;
		for (size_t i = st->first_finding; i < l->nf; i++)
			if (l->f[i].message)
				l->f[k++] = l->f[i];
		l->nf = k;
	}
	free(st->pend);
	sp_strv_free(&st->sa_off);
	free(st);
}

/* the pod spec of a workload object and the pointer to it, or NULL */
static sp_ynode *pod_spec(sp_ydoc *d, sp_ynode *root, const char **ptr, sp_ynode **meta)
{
	const char *kind = sp_y_str(sp_y_get(d, root, "kind"));
	if (!kind)
		return NULL;
	sp_ynode *spec = sp_y_get(d, root, "spec");
	if (!strcmp(kind, "Pod")) {
		*ptr = "/spec";
		*meta = sp_y_get(d, root, "metadata");
		return spec;
	}
	if (!strcmp(kind, "PodTemplate")) {
		sp_ynode *t = sp_y_get(d, root, "template");
		*ptr = "/template/spec";
		*meta = sp_y_get(d, t, "metadata");
		return sp_y_get(d, t, "spec");
	}
	sp_ynode *jt = sp_y_get(d, sp_y_get(d, spec, "jobTemplate"), "spec");
	if (!strcmp(kind, "CronJob") || (jt && !sp_y_get(d, spec, "template"))) {
		sp_ynode *t = sp_y_get(d, jt, "template");
		*ptr = "/spec/jobTemplate/spec/template/spec";
		*meta = sp_y_get(d, t, "metadata");
		return sp_y_get(d, t, "spec");
	}
	/* Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController,
	 * Job, OpenShift's DeploymentConfig, and any other object (Argo Rollout,
	 * Knative Service ...) whose spec.template is a pod template */
	static const char *const templated[] = {"Deployment",		 "StatefulSet", "DaemonSet", "ReplicaSet",
						"ReplicationController", "Job",	       "DeploymentConfig"};
	bool known = false;
	for (size_t i = 0; i < SP_ARRAY_SIZE(templated); i++)
		known |= !strcmp(kind, templated[i]);
	sp_ynode *t = sp_y_get(d, spec, "template");
	sp_ynode *ps = sp_y_get(d, t, "spec");
	if (!known && !sp_y_is_seq(sp_y_get(d, ps, "containers")))
		return NULL;
	*ptr = "/spec/template/spec";
	*meta = sp_y_get(d, t, "metadata");
	return ps;
}

/* the value at a container's securityContext, else at the pod's; *from says which */
static sp_ynode *sc_get2(sp_ydoc *d, sp_ynode *csc, sp_ynode *psc, const char *key, bool *pod)
{
	sp_ynode *n = sp_y_get(d, csc, key);
	*pod = !n;
	return n ? n : sp_y_get(d, psc, key);
}

static bool is_unconfined(const char *s)
{
	return s && !strcasecmp(s, "unconfined");
}

static bool in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

/* does seq hold s (case-insensitive, an optional CAP_ prefix for capabilities)? */
static bool seq_has(sp_ydoc *d, sp_ynode *seq, const char *s)
{
	for (size_t i = 0; i < sp_y_len(seq); i++) {
		const char *v = sp_y_str(sp_y_at(d, seq, i));
		if (v && (!strcasecmp(v, s) || (!strncasecmp(v, "CAP_", 4) && !strcasecmp(v + 4, s))))
			return true;
	}
	return false;
}

/* an environment variable name that says it holds a secret */
bool sp_lint_secret_name(const char *name);
bool sp_lint_secret_name(const char *name)
{
	static const char *const words[] = {"PASSWORD", "PASSWD",     "SECRET",	  "TOKEN",     "API_KEY",
					    "APIKEY",	"PRIVATE_KEY", "ACCESS_KEY", "CREDENTIAL", "AUTH_KEY"};
	static const char *const not_values[] = {"_FILE", "_PATH", "_DIR", "_URL", "_URI", "_ENDPOINT", "_HOST", "_NAME"};
	size_t n = strlen(name);
	for (size_t i = 0; i < SP_ARRAY_SIZE(not_values); i++) {
		size_t k = strlen(not_values[i]);
		if (n >= k && !strcasecmp(name + n - k, not_values[i]))
			return false;
	}
	for (size_t i = 0; i < SP_ARRAY_SIZE(words); i++)
		if (strcasestr(name, words[i]))
			return true;
	return false;
}

/* an SELinux type or user that is exempt from the container policy */
static bool selinux_unconfined(const char *key, const char *v)
{
	if (!strcmp(key, "type"))
		return !strcmp(v, "spc_t") || !strcmp(v, "unconfined_t") || !strcmp(v, "kernel_t") ||
		       !strcmp(v, "initrc_t");
	if (!strcmp(key, "user"))
		return !strcmp(v, "unconfined_u");
	return false;
}

struct pod {
	sp_lint *l;
	size_t fi;
	sp_ydoc *d;
	sp_ynode *spec, *psc, *meta, *ann;
	const char *sptr;
	char *pscptr, *annptr;
	sp_ynode *kindnode;
	struct sp_kube_file *st;
};

/* A container of a pod: its securityContext (csc, at scp) and where a
 * finding about a setting it lacks goes (at, atp: the securityContext, or
 * the container when it has none). */
struct ctr {
	struct pod *p;
	sp_ynode *c, *csc, *at;
	const char *cptr, *scp, *atp, *name;
	bool ephemeral;
};

/* The rules of an object (RBAC, SCC), of a pod, and of each of its
 * containers: each check below joins its table where it is defined and a
 * table's checks run in the order they are written (checkreg.h). Every
 * object goes through the object checks (each looks at the kind it is
 * about); a pod's checks run before its containers'. */
typedef void kube_object_check(sp_lint *l, size_t fi, sp_ydoc *d, sp_ynode *root, const char *base,
			       const char *kind);
SP_LINT_CHECKS(kube_object_checks, kube_object_check);
typedef void kube_pod_check(struct pod *p);
SP_LINT_CHECKS(kube_pod_checks, kube_pod_check);
typedef void kube_container_check(const struct ctr *k);
SP_LINT_CHECKS(kube_container_checks, kube_container_check);

static void report_ann(struct pod *p, sp_lint_rule_id rule, sp_ynode *n, const char *key, const char *fmt,
		       const char *name)
{
	_cleanup_free_ char *ptr = sp_jptr_join(p->annptr, key);
	sp_y_report(p->l, p->fi, rule, n, ptr, fmt, name);
}

/* privileged, capabilities added, ALL not dropped */
static void ctr_privileges(const struct ctr *k)
{
	sp_lint *l = k->p->l;
	size_t fi = k->p->fi;
	sp_ydoc *d = k->p->d;
	sp_ynode *csc = k->csc;
	const char *scp = k->scp, *name = k->name;
	sp_ynode *n;
	if (sp_y_true(n = sp_y_get(d, csc, "privileged"))) {
		_cleanup_free_ char *ptr = sp_jptr_join(scp, "privileged");
		sp_y_report(l, fi, SP_LR_KUBE_PRIVILEGED, n, ptr, "container '%s' is privileged", name);
	}
	sp_ynode *caps = sp_y_get(d, csc, "capabilities");
	sp_ynode *add = sp_y_get(d, caps, "add");
	for (size_t i = 0; i < sp_y_len(add); i++) {
		sp_ynode *cap = sp_y_at(d, add, i);
		_cleanup_free_ char *ptr = sp_xasprintf("%s/capabilities/add/%zu", scp, i);
		sp_y_report(l, fi, SP_LR_KUBE_CAP_ADD, cap, ptr, "container '%s' adds %s", name, sp_y_str(cap) ?: "?");
	}
	sp_ynode *drop = sp_y_get(d, caps, "drop");
	if (!seq_has(d, drop, "ALL")) {
		_cleanup_free_ char *ptr = drop ? sp_xasprintf("%s/capabilities/drop", scp) : NULL;
		sp_y_report(l, fi, SP_LR_KUBE_CAPS_DROP_ALL, drop ? drop : k->at, drop ? ptr : k->atp,
			    "container '%s' does not drop ALL capabilities%s", name,
			    seq_has(d, drop, "NET_RAW") ? "" : ": NET_RAW is kept");
	}
}
SP_LINT_CHECK(kube_container_checks, ctr_privileges);

static void ctr_escalation(const struct ctr *k)
{
	sp_ynode *n = sp_y_get(k->p->d, k->csc, "allowPrivilegeEscalation");
	if (!sp_y_false(n)) {
		_cleanup_free_ char *ptr = sp_jptr_join(k->scp, "allowPrivilegeEscalation");
		sp_y_report(k->p->l, k->p->fi, SP_LR_KUBE_PRIV_ESC, n ? n : k->at, n ? ptr : k->atp, "container '%s' %s",
			    k->name,
			    n ? "sets allowPrivilegeEscalation: true" : "does not set allowPrivilegeEscalation: false");
	}
}
SP_LINT_CHECK(kube_container_checks, ctr_escalation);

static void ctr_root_fs(const struct ctr *k)
{
	sp_ynode *n = sp_y_get(k->p->d, k->csc, "readOnlyRootFilesystem");
	if (!sp_y_true(n)) {
		_cleanup_free_ char *ptr = sp_jptr_join(k->scp, "readOnlyRootFilesystem");
		sp_y_report(k->p->l, k->p->fi, SP_LR_KUBE_ROOT_WRITABLE, n ? n : k->at, n ? ptr : k->atp,
			    "container '%s' has a writable root filesystem", k->name);
	}
}
SP_LINT_CHECK(kube_container_checks, ctr_root_fs);

static void ctr_proc_mount(const struct ctr *k)
{
	sp_ynode *n = sp_y_get(k->p->d, k->csc, "procMount");
	if (sp_y_str(n) && !strcmp(sp_y_str(n), "Unmasked")) {
		_cleanup_free_ char *ptr = sp_jptr_join(k->scp, "procMount");
		sp_y_report(k->p->l, k->p->fi, SP_LR_KUBE_PROC_UNMASKED, n, ptr, "container '%s' has procMount: Unmasked",
			    k->name);
	}
}
SP_LINT_CHECK(kube_container_checks, ctr_proc_mount);

/* root as user (container over pod) or group */
static void ctr_user(const struct ctr *k)
{
	struct pod *p = k->p;
	sp_lint *l = p->l;
	size_t fi = p->fi;
	sp_ydoc *d = p->d;
	const char *name = k->name;
	bool frompod;
	sp_ynode *uid = sc_get2(d, k->csc, p->psc, "runAsUser", &frompod);
	const char *uidp = frompod ? p->pscptr : k->scp;
	sp_ynode *nonroot = sc_get2(d, k->csc, p->psc, "runAsNonRoot", &frompod);
	const char *uids = sp_y_str(uid);
	if (uids && !strcmp(uids, "0")) {
		_cleanup_free_ char *ptr = sp_jptr_join(uidp, "runAsUser");
		sp_y_report(l, fi, SP_LR_KUBE_ROOT_USER, uid, ptr, "container '%s' runs as uid 0", name);
	} else if (!uids && !sp_y_true(nonroot)) {
		sp_y_report(l, fi, SP_LR_KUBE_ROOT_USER, k->at, k->atp,
			    "container '%s' sets neither runAsNonRoot: true nor a non-zero runAsUser", name);
	}
	sp_ynode *gid = sp_y_get(d, k->csc, "runAsGroup");
	if (sp_y_str(gid) && !strcmp(sp_y_str(gid), "0")) {
		_cleanup_free_ char *ptr = sp_jptr_join(k->scp, "runAsGroup");
		sp_y_report(l, fi, SP_LR_KUBE_GROUP_ROOT, gid, ptr, "container '%s' runs with gid 0", name);
	}
}
SP_LINT_CHECK(kube_container_checks, ctr_user);

/* a security profile's type: the container's FIELD/type, else the pod's;
 * *at is the JSON pointer of the securityContext it came from */
static sp_ynode *profile_type(const struct ctr *k, const char *field, const char **at)
{
	struct pod *p = k->p;
	sp_ynode *t = sp_y_get(p->d, sp_y_get(p->d, k->csc, field), "type");
	*at = k->scp;
	if (!t) {
		t = sp_y_get(p->d, sp_y_get(p->d, p->psc, field), "type");
		*at = p->pscptr;
	}
	return t;
}

/* seccomp: the field (container over pod), then the annotations */
static void ctr_seccomp(const struct ctr *k)
{
	struct pod *p = k->p;
	sp_lint *l = p->l;
	size_t fi = p->fi;
	sp_ydoc *d = p->d;
	const char *name = k->name;
	const char *sctp;
	sp_ynode *sct = profile_type(k, "seccompProfile", &sctp);
	_cleanup_free_ char *skey = sp_xasprintf("container.seccomp.security.alpha.kubernetes.io/%s", name);
	sp_ynode *sann = sp_y_get(d, p->ann, skey);
	sp_ynode *pann = sp_y_get(d, p->ann, "seccomp.security.alpha.kubernetes.io/pod");
	if (sct) {
		if (is_unconfined(sp_y_str(sct))) {
			_cleanup_free_ char *ptr = sp_xasprintf("%s/seccompProfile/type", sctp);
			sp_y_report(l, fi, SP_LR_KUBE_SECCOMP_UNCONFINED, sct, ptr,
				    "container '%s' has seccompProfile Unconfined", name);
		}
	} else if (sann) {
		if (is_unconfined(sp_y_str(sann)))
			report_ann(p, SP_LR_KUBE_SECCOMP_UNCONFINED, sann, skey,
				   "container '%s' is annotated seccomp unconfined", name);
	} else if (!pann) {
		sp_y_report(l, fi, SP_LR_KUBE_SECCOMP_UNSET, k->at, k->atp,
			    "container '%s' has no seccompProfile (nor does the pod): it runs Unconfined", name);
	}
}
SP_LINT_CHECK(kube_container_checks, ctr_seccomp);

/* AppArmor likewise */
static void ctr_apparmor(const struct ctr *k)
{
	struct pod *p = k->p;
	sp_lint *l = p->l;
	size_t fi = p->fi;
	sp_ydoc *d = p->d;
	const char *name = k->name;
	const char *aatp;
	sp_ynode *aat = profile_type(k, "appArmorProfile", &aatp);
	_cleanup_free_ char *akey = sp_xasprintf("container.apparmor.security.beta.kubernetes.io/%s", name);
	sp_ynode *aann = sp_y_get(d, p->ann, akey);
	if (aat && is_unconfined(sp_y_str(aat))) {
		_cleanup_free_ char *ptr = sp_xasprintf("%s/appArmorProfile/type", aatp);
		sp_y_report(l, fi, SP_LR_KUBE_APPARMOR_UNCONFINED, aat, ptr, "container '%s' has appArmorProfile Unconfined",
			    name);
	} else if (!aat && aann && is_unconfined(sp_y_str(aann))) {
		report_ann(p, SP_LR_KUBE_APPARMOR_UNCONFINED, aann, akey, "container '%s' is annotated apparmor unconfined",
			   name);
	} else if (!aat && !aann) {
		sp_y_report(l, fi, SP_LR_KUBE_APPARMOR_UNSET, k->at, k->atp, "container '%s' names no AppArmor profile",
			    name);
	}
}
SP_LINT_CHECK(kube_container_checks, ctr_apparmor);

/* SELinux: each field of the container's options, else the pod's */
static void ctr_selinux(const struct ctr *k)
{
	struct pod *p = k->p;
	sp_ydoc *d = p->d;
	static const char *const sel_keys[] = {"type", "user"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(sel_keys); i++) {
		sp_ynode *cs = sp_y_get(d, sp_y_get(d, k->csc, "seLinuxOptions"), sel_keys[i]);
		bool pod = !cs;
		if (pod)
			cs = sp_y_get(d, sp_y_get(d, p->psc, "seLinuxOptions"), sel_keys[i]);
		if (sp_y_str(cs) && selinux_unconfined(sel_keys[i], sp_y_str(cs))) {
			_cleanup_free_ char *ptr =
				sp_xasprintf("%s/seLinuxOptions/%s", pod ? p->pscptr : k->scp, sel_keys[i]);
			sp_y_report(p->l, p->fi, SP_LR_KUBE_SELINUX, cs, ptr, "container '%s' runs as SELinux %s %s",
				    k->name, sel_keys[i], sp_y_str(cs));
		}
	}
}
SP_LINT_CHECK(kube_container_checks, ctr_selinux);

static void ctr_host_process(const struct ctr *k)
{
	sp_ydoc *d = k->p->d;
	sp_ynode *n = sp_y_get(d, sp_y_get(d, k->csc, "windowsOptions"), "hostProcess");
	if (sp_y_true(n)) {
		_cleanup_free_ char *ptr = sp_xasprintf("%s/windowsOptions/hostProcess", k->scp);
		sp_y_report(k->p->l, k->p->fi, SP_LR_KUBE_HOST_PROCESS, n, ptr, "container '%s' is a HostProcess container",
			    k->name);
	}
}
SP_LINT_CHECK(kube_container_checks, ctr_host_process);

/* resources (ephemeral containers have none to set) */
static void ctr_limits(const struct ctr *k)
{
	if (k->ephemeral)
		return;
	sp_ydoc *d = k->p->d;
	sp_ynode *c = k->c;
	const char *cptr = k->cptr;
	sp_ynode *res = sp_y_get(d, c, "resources"), *lim = sp_y_get(d, res, "limits");
	bool mem = sp_y_get(d, lim, "memory"), cpu = sp_y_get(d, lim, "cpu");
	const char *miss = !mem && !cpu ? "memory or CPU" : (!mem ? "memory" : (!cpu ? "CPU" : NULL));
	if (miss) {
		_cleanup_free_ char *ptr = sp_xasprintf("%s/%s", cptr, lim ? "resources/limits" : "resources");
		sp_ynode *at = lim ? lim : (res ? res : c);
		sp_y_report(k->p->l, k->p->fi, SP_LR_KUBE_LIMITS, at, lim || res ? ptr : cptr,
			    "container '%s' has no %s limit", k->name, miss);
	}
}
SP_LINT_CHECK(kube_container_checks, ctr_limits);

static void ctr_ports(const struct ctr *k)
{
	sp_ydoc *d = k->p->d;
	sp_ynode *ports = sp_y_get(d, k->c, "ports");
	for (size_t i = 0; i < sp_y_len(ports); i++) {
		sp_ynode *pt = sp_y_at(d, ports, i);
		sp_ynode *hp = sp_y_get(d, pt, "hostPort");
		const char *hs = sp_y_str(hp), *ip = sp_y_str(sp_y_get(d, pt, "hostIP"));
		if (!hs || !strcmp(hs, "0") || (ip && (sp_startswith(ip, "127.") || !strcmp(ip, "::1"))))
			continue;
		_cleanup_free_ char *ptr = sp_xasprintf("%s/ports/%zu/hostPort", k->cptr, i);
		sp_y_report(k->p->l, k->p->fi, SP_LR_KUBE_HOST_PORT, hp, ptr, "container '%s' binds port %s on the node (%s)",
			    k->name, hs, ip ? ip : "every interface");
	}
}
SP_LINT_CHECK(kube_container_checks, ctr_ports);

/* secrets written in env, or read into it */
static void ctr_env(const struct ctr *k)
{
	struct pod *p = k->p;
	sp_ydoc *d = p->d;
	sp_ynode *c = k->c;
	const char *cptr = k->cptr, *name = k->name;
	sp_ynode *env = sp_y_get(d, c, "env");
	for (size_t i = 0; i < sp_y_len(env); i++) {
		sp_ynode *e = sp_y_at(d, env, i);
		const char *en = sp_y_str(sp_y_get(d, e, "name"));
		sp_ynode *v = sp_y_get(d, e, "value");
		const char *vs = sp_y_str(v);
		_cleanup_free_ char *ep = sp_xasprintf("%s/env/%zu", cptr, i);
		if (en && vs && vs[0] && !strstr(vs, "$(") && sp_lint_secret_name(en)) {
			_cleanup_free_ char *vp = sp_jptr_join(ep, "value");
			sp_y_report(p->l, p->fi, SP_LR_KUBE_ENV_SECRET, v, vp, "container '%s' has %s written in its env",
				    name, en);
		}
		sp_ynode *ref = sp_y_get(d, sp_y_get(d, e, "valueFrom"), "secretKeyRef");
		if (ref) {
			_cleanup_free_ char *rp = sp_jptr_join(ep, "valueFrom");
			sp_y_report(p->l, p->fi, SP_LR_KUBE_ENV_SECRET_REF, ref, rp,
				    "container '%s' reads Secret %s into env %s", name,
				    sp_y_str(sp_y_get(d, ref, "name")) ?: "?", en ? en : "?");
		}
	}
	sp_ynode *from = sp_y_get(d, c, "envFrom");
	for (size_t i = 0; i < sp_y_len(from); i++) {
		sp_ynode *ref = sp_y_get(d, sp_y_at(d, from, i), "secretRef");
		if (!ref)
			continue;
		_cleanup_free_ char *rp = sp_xasprintf("%s/envFrom/%zu/secretRef", cptr, i);
		sp_y_report(p->l, p->fi, SP_LR_KUBE_ENV_SECRET_REF, ref, rp,
			    "container '%s' reads every key of Secret %s into its env", name,
			    sp_y_str(sp_y_get(d, ref, "name")) ?: "?");
	}
}
SP_LINT_CHECK(kube_container_checks, ctr_env);

static void check_container(struct pod *p, sp_ynode *c, const char *cptr, bool ephemeral)
{
	sp_ydoc *d = p->d;
	sp_ynode *csc = sp_y_get(d, c, "securityContext");
	_cleanup_free_ char *scp = sp_jptr_join(cptr, "securityContext");
	const struct ctr k = {
		.p = p,
		.c = c,
		.csc = csc,
		.at = csc ? csc : c,
		.cptr = cptr,
		.scp = scp,
		.atp = csc ? scp : cptr,
		.name = sp_y_str(sp_y_get(d, c, "name")) ?: "?",
		.ephemeral = ephemeral,
	};
	for (const struct kube_container_checks_entry *e = kube_container_checks; e; e = e->next)
		e->fn(&k);
}

static void pod_host_ns(struct pod *p)
{
	static const char *const hostns[] = {"hostNetwork", "hostPID", "hostIPC"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(hostns); i++) {
		sp_ynode *n = sp_y_get(p->d, p->spec, hostns[i]);
		if (sp_y_true(n)) {
			_cleanup_free_ char *ptr = sp_jptr_join(p->sptr, hostns[i]);
			sp_y_report(p->l, p->fi, SP_LR_KUBE_HOST_NS, n, ptr, "the pod sets %s: true", hostns[i]);
		}
	}
}
SP_LINT_CHECK(kube_pod_checks, pod_host_ns);

static void pod_host_users(struct pod *p)
{
	sp_ynode *hu = sp_y_get(p->d, p->spec, "hostUsers");
	if (!sp_y_false(hu)) {
		_cleanup_free_ char *ptr = sp_jptr_join(p->sptr, "hostUsers");
		sp_y_report(p->l, p->fi, SP_LR_KUBE_HOST_USERS, hu ? hu : p->spec, hu ? ptr : p->sptr,
			    "the pod %s: it runs in the node's user namespace", hu ? "sets hostUsers: true" : "does not set hostUsers: false");
	}
}
SP_LINT_CHECK(kube_pod_checks, pod_host_users);

/* the volume types the restricted Pod Security Standard allows; hostPath */
static void pod_volumes(struct pod *p)
{
	sp_lint *l = p->l;
	size_t fi = p->fi;
	sp_ydoc *d = p->d;
	static const char *const core_vol[] = {"configMap", "csi",	       "downwardAPI", "emptyDir",
					       "ephemeral", "persistentVolumeClaim", "projected",   "secret"};
	sp_ynode *vols = sp_y_get(d, p->spec, "volumes");
	for (size_t i = 0; i < sp_y_len(vols); i++) {
		sp_ynode *v = sp_y_at(d, vols, i);
		_cleanup_free_ char *vp = sp_xasprintf("%s/volumes/%zu", p->sptr, i);
		for (size_t k = 0; k < sp_y_npairs(v); k++) {
			sp_ynode *key, *val;
			sp_y_pair(d, v, k, &key, &val);
			const char *ks = sp_y_str(key);
			if (!ks || !strcmp(ks, "name") || !strcmp(ks, "hostPath") ||
			    in_list(ks, core_vol, SP_ARRAY_SIZE(core_vol)))
				continue;
			_cleanup_free_ char *ptr = sp_jptr_join(vp, ks);
			sp_y_report(l, fi, SP_LR_KUBE_VOLUME_TYPE, key, ptr, "volume '%s' is of type %s, not a core type",
				    sp_y_str(sp_y_get(d, v, "name")) ?: "?", ks);
		}
		sp_ynode *hp = sp_y_get(d, v, "hostPath");
		if (!hp)
			continue;
		sp_ynode *pn = sp_y_get(d, hp, "path");
		const char *path = sp_y_str(pn) ?: "?";
		_cleanup_free_ char *ptr = sp_jptr_join(vp, "hostPath");
		if (sp_lint_is_runtime_socket(path))
			sp_y_report(l, fi, SP_LR_KUBE_SOCKET, pn ? pn : hp, ptr, "hostPath volume %s is a runtime control socket",
				    path);
		else if (!strncmp(path, "/dev/", 5) || !strcmp(path, "/dev"))
			sp_y_report(l, fi, SP_LR_KUBE_DEVICES, pn ? pn : hp, ptr, "hostPath volume mounts the host device %s",
				    path);
		else
			sp_y_report(l, fi, SP_LR_KUBE_HOST_PATH, pn ? pn : hp, ptr, "hostPath volume mounts %s of the node",
				    path);
	}
}
SP_LINT_CHECK(kube_pod_checks, pod_volumes);

/* the RuntimeClass the policy demands */
static void pod_runtime_class(struct pod *p)
{
	const char *want = p->l->opts.require_runtime_class;
	if (want) {
		sp_ynode *rc = sp_y_get(p->d, p->spec, "runtimeClassName");
		_cleanup_free_ char *ptr = sp_jptr_join(p->sptr, "runtimeClassName");
		if (!sp_y_str(rc) || strcmp(sp_y_str(rc), want))
			sp_y_report(p->l, p->fi, SP_LR_KUBE_RUNTIME_CLASS, rc ? rc : p->kindnode, rc ? ptr : p->sptr,
				    "runtimeClassName is %s, the policy demands %s", sp_y_str(rc) ?: "unset", want);
	}
}
SP_LINT_CHECK(kube_pod_checks, pod_runtime_class);

/* the service account token: a ServiceAccount of the same file may say no */
static void pod_sa_token(struct pod *p)
{
	sp_lint *l = p->l;
	sp_ydoc *d = p->d;
	sp_ynode *spec = p->spec;
	struct sp_kube_file *st = p->st;
	sp_ynode *am = sp_y_get(d, spec, "automountServiceAccountToken");
	if (!sp_y_false(am)) {
		const char *sa = sp_y_str(sp_y_get(d, spec, "serviceAccountName"))
					 ?: sp_y_str(sp_y_get(d, spec, "serviceAccount")) ?: "default";
		_cleanup_free_ char *ptr = sp_jptr_join(p->sptr, "automountServiceAccountToken");
		if (!am) {
			st->pend = sp_xrealloc(st->pend, (st->npend + 1) * sizeof *st->pend);
			st->pend[st->npend++] = (struct sa_pending){.finding = l->nf, .sa = sp_xstrdup(sa)};
		}
		sp_y_report(l, p->fi, SP_LR_KUBE_SA_TOKEN, am ? am : spec, am ? ptr : p->sptr,
			    "the pod mounts the token of service account '%s'", sa);
	}
}
SP_LINT_CHECK(kube_pod_checks, pod_sa_token);

static void pod_sysctls(struct pod *p)
{
	sp_ydoc *d = p->d;
	sp_ynode *sys = sp_y_get(d, p->psc, "sysctls");
	static const char *const safe[] = {
		"kernel.shm_rmid_forced",   "net.ipv4.ip_local_port_range",   "net.ipv4.ip_unprivileged_port_start",
		"net.ipv4.tcp_syncookies",  "net.ipv4.ping_group_range",      "net.ipv4.ip_local_reserved_ports",
		"net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",    "net.ipv4.tcp_keepalive_intvl",
		"net.ipv4.tcp_keepalive_probes", "net.ipv4.tcp_rmem",	      "net.ipv4.tcp_wmem"};
	for (size_t i = 0; i < sp_y_len(sys); i++) {
		sp_ynode *sn = sp_y_get(d, sp_y_at(d, sys, i), "name");
		const char *s = sp_y_str(sn);
		if (!s || in_list(s, safe, SP_ARRAY_SIZE(safe)))
			continue;
		_cleanup_free_ char *ptr = sp_xasprintf("%s/sysctls/%zu/name", p->pscptr, i);
		sp_y_report(p->l, p->fi, SP_LR_KUBE_SYSCTL, sn, ptr, "the pod sets sysctl %s", s);
	}
}
SP_LINT_CHECK(kube_pod_checks, pod_sysctls);

/* group 0: supplemental, runAsGroup, fsGroup */
static void pod_groups(struct pod *p)
{
	sp_lint *l = p->l;
	size_t fi = p->fi;
	sp_ydoc *d = p->d;
	sp_ynode *psc = p->psc;
	sp_ynode *sg = sp_y_get(d, psc, "supplementalGroups");
	for (size_t i = 0; i < sp_y_len(sg); i++) {
		sp_ynode *g = sp_y_at(d, sg, i);
		if (sp_y_str(g) && !strcmp(sp_y_str(g), "0")) {
			_cleanup_free_ char *ptr = sp_xasprintf("%s/supplementalGroups/%zu", p->pscptr, i);
			sp_y_report(l, fi, SP_LR_KUBE_GROUP_ROOT, g, ptr, "the pod adds supplemental group 0");
		}
	}
	static const char *const gkeys[] = {"runAsGroup", "fsGroup"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(gkeys); i++) {
		sp_ynode *g = sp_y_get(d, psc, gkeys[i]);
		if (sp_y_str(g) && !strcmp(sp_y_str(g), "0")) {
			_cleanup_free_ char *ptr = sp_jptr_join(p->pscptr, gkeys[i]);
			sp_y_report(l, fi, SP_LR_KUBE_GROUP_ROOT, g, ptr, "the pod sets %s: 0", gkeys[i]);
		}
	}
}
SP_LINT_CHECK(kube_pod_checks, pod_groups);

static void pod_host_process(struct pod *p)
{
	sp_ynode *hpn = sp_y_get(p->d, sp_y_get(p->d, p->psc, "windowsOptions"), "hostProcess");
	if (sp_y_true(hpn)) {
		_cleanup_free_ char *ptr = sp_xasprintf("%s/windowsOptions/hostProcess", p->pscptr);
		sp_y_report(p->l, p->fi, SP_LR_KUBE_HOST_PROCESS, hpn, ptr, "the pod's containers are HostProcess containers");
	}
}
SP_LINT_CHECK(kube_pod_checks, pod_host_process);

static void pod_seccomp_annotation(struct pod *p)
{
	sp_ynode *podsec = sp_y_get(p->d, p->ann, "seccomp.security.alpha.kubernetes.io/pod");
	if (is_unconfined(sp_y_str(podsec)))
		report_ann(p, SP_LR_KUBE_SECCOMP_UNCONFINED, podsec, "seccomp.security.alpha.kubernetes.io/pod",
			   "the pod is annotated seccomp %s", "unconfined");
}
SP_LINT_CHECK(kube_pod_checks, pod_seccomp_annotation);

/* the pod's rules, then each container's */
static void check_pod(struct pod *p)
{
	for (const struct kube_pod_checks_entry *e = kube_pod_checks; e; e = e->next)
		e->fn(p);
	sp_ydoc *d = p->d;
	static const char *const lists[] = {"initContainers", "containers", "ephemeralContainers"};
	for (size_t li = 0; li < SP_ARRAY_SIZE(lists); li++) {
		sp_ynode *cs = sp_y_get(d, p->spec, lists[li]);
		_cleanup_free_ char *lp = sp_jptr_join(p->sptr, lists[li]);
		for (size_t i = 0; i < sp_y_len(cs); i++) {
			_cleanup_free_ char *cp = sp_jptr_index(lp, i);
			check_container(p, sp_y_at(d, cs, i), cp, li == 2);
		}
	}
}

/* RBAC roles: wildcards, pod creation, exec and attach */
static void check_rbac(sp_lint *l, size_t fi, sp_ydoc *d, sp_ynode *root, const char *base,
		       const char *kind)
{
	if (strcmp(kind, "Role") && strcmp(kind, "ClusterRole"))
		return;
	const char *rname = sp_y_str(sp_y_get(d, sp_y_get(d, root, "metadata"), "name")) ?: "?";
	sp_ynode *rules = sp_y_get(d, root, "rules");
	_cleanup_free_ char *rp = sp_jptr_join(base, "rules");
	for (size_t i = 0; i < sp_y_len(rules); i++) {
		sp_ynode *r = sp_y_at(d, rules, i);
		_cleanup_free_ char *ip = sp_jptr_index(rp, i);
		sp_ynode *groups = sp_y_get(d, r, "apiGroups"), *res = sp_y_get(d, r, "resources"),
			 *verbs = sp_y_get(d, r, "verbs");
		bool wild = false;
		static const char *const fields[] = {"apiGroups", "resources", "verbs"};
		for (size_t k = 0; k < SP_ARRAY_SIZE(fields); k++) {
			sp_ynode *a = sp_y_get(d, r, fields[k]);
			for (size_t j = 0; j < sp_y_len(a); j++) {
				sp_ynode *v = sp_y_at(d, a, j);
				if (sp_y_str(v) && !strcmp(sp_y_str(v), "*")) {
					_cleanup_free_ char *ptr = sp_xasprintf("%s/%s/%zu", ip, fields[k], j);
					sp_y_report(l, fi, SP_LR_KUBE_RBAC_WILDCARD, v, ptr, "%s '%s' grants '*' %s", kind,
						    rname, fields[k]);
					wild = true;
				}
			}
		}
		if (wild)
			continue;
		bool core = !groups || seq_has(d, groups, "");
		if (!core)
			continue;
		if (seq_has(d, res, "pods") && (seq_has(d, verbs, "create")))
			sp_y_report(l, fi, SP_LR_KUBE_RBAC_POD_CREATE, r, ip, "%s '%s' can create pods", kind, rname);
		if ((seq_has(d, res, "pods/exec") || seq_has(d, res, "pods/attach")) &&
		    (seq_has(d, verbs, "create") || seq_has(d, verbs, "get")))
			sp_y_report(l, fi, SP_LR_KUBE_RBAC_POD_EXEC, r, ip, "%s '%s' can exec or attach into pods", kind,
				    rname);
	}
}
SP_LINT_CHECK(kube_object_checks, check_rbac);

/* RBAC bindings: cluster-admin */
static void check_binding(sp_lint *l, size_t fi, sp_ydoc *d, sp_ynode *root, const char *base, const char *kind)
{
	if (strcmp(kind, "RoleBinding") && strcmp(kind, "ClusterRoleBinding"))
		return;
	sp_ynode *rn = sp_y_get(d, sp_y_get(d, root, "roleRef"), "name");
	if (sp_y_str(rn) && !strcmp(sp_y_str(rn), "cluster-admin")) {
		_cleanup_free_ char *ptr = sp_xasprintf("%s/roleRef/name", base);
		sp_y_report(l, fi, SP_LR_KUBE_RBAC_CLUSTER_ADMIN, rn, ptr, "%s '%s' binds cluster-admin", kind,
			    sp_y_str(sp_y_get(d, sp_y_get(d, root, "metadata"), "name")) ?: "?");
	}
}
SP_LINT_CHECK(kube_object_checks, check_binding);

/* OpenShift SecurityContextConstraints */
static void check_scc(sp_lint *l, size_t fi, sp_ydoc *d, sp_ynode *root, const char *base, const char *kind)
{
	if (strcmp(kind, "SecurityContextConstraints"))
		return;
	const char *name = sp_y_str(sp_y_get(d, sp_y_get(d, root, "metadata"), "name")) ?: "?";
	static const char *const flags[] = {"allowPrivilegedContainer", "allowHostDirVolumePlugin", "allowHostNetwork",
					    "allowHostPID", "allowHostIPC"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(flags); i++) {
		sp_ynode *n = sp_y_get(d, root, flags[i]);
		if (!sp_y_true(n))
			continue;
		_cleanup_free_ char *ptr = sp_jptr_join(base, flags[i]);
		sp_y_report(l, fi, SP_LR_KUBE_SCC_PRIVILEGED, n, ptr, "SecurityContextConstraints '%s' sets %s: true",
			    name, flags[i]);
	}
	sp_ynode *caps = sp_y_get(d, root, "allowedCapabilities");
	for (size_t i = 0; i < sp_y_len(caps); i++) {
		sp_ynode *c = sp_y_at(d, caps, i);
		if (!sp_y_str(c) || strcmp(sp_y_str(c), "*"))
			continue;
		_cleanup_free_ char *ptr = sp_xasprintf("%s/allowedCapabilities/%zu", base, i);
		sp_y_report(l, fi, SP_LR_KUBE_SCC_PRIVILEGED, c, ptr,
			    "SecurityContextConstraints '%s' allows every capability", name);
	}
}
SP_LINT_CHECK(kube_object_checks, check_scc);

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && !strcmp(s + a - b, suf);
}

static int check_object(sp_lint *l, size_t fi, struct sp_kube_file *st, sp_ydoc *d, sp_ynode *root,
			const char *base, int depth, sp_error *err)
{
	const sp_lint_file *f = &l->files[fi];
	if (sp_y_schema(f, d, root, base, doc_schema, SP_ARRAY_SIZE(doc_schema), err) < 0)
		return -1;
	sp_ynode *kindnode = sp_y_get(d, root, "kind");
	const char *kind = sp_y_str(kindnode);
	if (!kind)
		return 0;
	sp_ynode *items = sp_y_get(d, root, "items");
	if (ends_with(kind, "List") && items && depth < 4) {
		_cleanup_free_ char *ip = sp_jptr_join(base, "items");
		for (size_t i = 0; i < sp_y_len(items); i++) {
			sp_ynode *it = sp_y_at(d, items, i);
			if (!sp_y_is_map(it))
				continue;
			_cleanup_free_ char *p = sp_jptr_index(ip, i);
			if (check_object(l, fi, st, d, it, p, depth + 1, err) < 0)
				return -1;
		}
		return 0;
	}
	for (const struct kube_object_checks_entry *e = kube_object_checks; e; e = e->next)
		e->fn(l, fi, d, root, base, kind);
	/* the kinds above have no pod */
	if (!strcmp(kind, "Role") || !strcmp(kind, "ClusterRole") || !strcmp(kind, "RoleBinding") ||
	    !strcmp(kind, "ClusterRoleBinding") || !strcmp(kind, "SecurityContextConstraints"))
		return 0;
	if (!strcmp(kind, "ServiceAccount")) {
		const char *name = sp_y_str(sp_y_get(d, sp_y_get(d, root, "metadata"), "name"));
		if (name && sp_y_false(sp_y_get(d, root, "automountServiceAccountToken")))
			sp_strv_push(&st->sa_off, name);
		return 0;
	}
	const char *rel = NULL;
	sp_ynode *meta = NULL;
	sp_ynode *spec = pod_spec(d, root, &rel, &meta);
	if (!spec)
		return 0;
	_cleanup_free_ char *sptr = sp_xasprintf("%s%s", base, rel);
	if (sp_y_schema(f, d, spec, sptr, pod_schema, SP_ARRAY_SIZE(pod_schema), err) < 0)
		return -1;
	/* the metadata that goes with the pod spec */
	_cleanup_free_ char *metaptr =
		sp_xasprintf("%s%.*smetadata", base, (int)(strlen(rel) - strlen("spec")), rel);
	struct pod p = {
		.l = l,
		.fi = fi,
		.d = d,
		.spec = spec,
		.psc = sp_y_get(d, spec, "securityContext"),
		.meta = meta,
		.ann = sp_y_get(d, meta, "annotations"),
		.sptr = sptr,
		.pscptr = sp_jptr_join(sptr, "securityContext"),
		.annptr = sp_jptr_join(metaptr, "annotations"),
		.kindnode = kindnode,
		.st = st,
	};
	check_pod(&p);
	free(p.pscptr);
	free(p.annptr);
	return 0;
}

int sp_lint_kube_doc(sp_lint *l, size_t fi, struct sp_kube_file *st, sp_ydoc *d, sp_ynode *root,
		     sp_error *err)
{
	if (!sp_y_is_map(root))
		return sp_y_error(&l->files[fi], root, "", err, "expected a mapping (a Kubernetes object), got %s",
				  sp_y_str(root) ? "a scalar" : "a sequence");
	return check_object(l, fi, st, d, root, "", 0, err);
}

int sp_lint_kube_item(sp_lint *l, size_t fi, struct sp_kube_file *st, sp_ydoc *d, sp_ynode *item,
		      size_t index, sp_error *err)
{
	if (!sp_y_is_map(item))
		return 0;
	char base[48];
	snprintf(base, sizeof base, "/items/%zu", index);
	return check_object(l, fi, st, d, item, base, 1, err);
}

void sp_lint_kube_items_judged(sp_lint *l, size_t fi, struct sp_kube_file *st, sp_ydoc *d, sp_ynode *root,
			       size_t mark)
{
	(void)fi;
	const char *kind = sp_y_str(sp_y_get(d, root, "kind"));
	if (kind && ends_with(kind, "List"))
		return;
	for (size_t i = mark; i < l->nf; i++) {
		if (l->f[i].rule == SP_LR_INPUT_INVALID || !l->f[i].message)
			continue;
		free(l->f[i].message);
		free(l->f[i].pointer);
		l->f[i].message = l->f[i].pointer = NULL;
		st->dropped = true;
	}
}
