/* Kubernetes workloads (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet,
 * ReplicationController, Job, CronJob), one or more YAML documents: the pod
 * spec's host namespaces, hostPath volumes, RuntimeClass, and each
 * container's securityContext (container settings override the pod's). */
#include <stdlib.h>
#include <string.h>

#include "lint/yamldoc.h"

static const sp_yschema pod_schema[] = {
	{"", 'm'},
	{"/hostNetwork", 's'},
	{"/hostPID", 's'},
	{"/hostIPC", 's'},
	{"/runtimeClassName", 's'},
	{"/securityContext", 'm'},
	{"/securityContext/runAsUser", 's'},
	{"/securityContext/runAsNonRoot", 's'},
	{"/securityContext/seccompProfile", 'm'},
	{"/securityContext/seccompProfile/type", 's'},
	{"/securityContext/appArmorProfile", 'm'},
	{"/securityContext/appArmorProfile/type", 's'},
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
	{"/*/*/securityContext", 'm'},
	{"/*/*/securityContext/privileged", 's'},
	{"/*/*/securityContext/allowPrivilegeEscalation", 's'},
	{"/*/*/securityContext/readOnlyRootFilesystem", 's'},
	{"/*/*/securityContext/runAsUser", 's'},
	{"/*/*/securityContext/runAsNonRoot", 's'},
	{"/*/*/securityContext/capabilities", 'm'},
	{"/*/*/securityContext/capabilities/add", 'q'},
	{"/*/*/securityContext/capabilities/add/*", 's'},
	{"/*/*/securityContext/seccompProfile", 'm'},
	{"/*/*/securityContext/seccompProfile/type", 's'},
	{"/*/*/securityContext/appArmorProfile", 'm'},
	{"/*/*/securityContext/appArmorProfile/type", 's'},
};

static const sp_yschema doc_schema[] = {
	{"/kind", 's'},
	{"/metadata", 'm'},
	{"/metadata/annotations", 'm'},
	{"/metadata/annotations/*", 's'},
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
};

/* the pod spec of a workload document and the pointer to it, or NULL */
static yaml_node_t *pod_spec(yaml_document_t *d, yaml_node_t *root, const char **ptr, yaml_node_t **meta)
{
	const char *kind = sp_y_str(sp_y_get(d, root, "kind"));
	if (!kind)
		return NULL;
	yaml_node_t *spec = sp_y_get(d, root, "spec");
	if (!strcmp(kind, "Pod")) {
		*ptr = "/spec";
		*meta = sp_y_get(d, root, "metadata");
		return spec;
	}
	static const char *const templated[] = {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet",
						"ReplicationController", "Job", "PodTemplate"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(templated); i++)
		if (!strcmp(kind, templated[i])) {
			yaml_node_t *t = !strcmp(kind, "PodTemplate") ? sp_y_get(d, root, "template")
								       : sp_y_get(d, spec, "template");
			*ptr = !strcmp(kind, "PodTemplate") ? "/template/spec" : "/spec/template/spec";
			*meta = sp_y_get(d, t, "metadata");
			return sp_y_get(d, t, "spec");
		}
	if (!strcmp(kind, "CronJob")) {
		yaml_node_t *t = sp_y_get(d, sp_y_get(d, sp_y_get(d, spec, "jobTemplate"), "spec"), "template");
		*ptr = "/spec/jobTemplate/spec/template/spec";
		*meta = sp_y_get(d, t, "metadata");
		return sp_y_get(d, t, "spec");
	}
	return NULL;
}

int sp_lint_kube_validate(sp_lint_file *f, sp_error *err)
{
	for (size_t di = 0; di < f->yaml->n; di++) {
		yaml_document_t *d = &f->yaml->docs[di];
		yaml_node_t *root = yaml_document_get_root_node(d);
		if (!sp_y_is_map(root))
			return sp_y_error(f, root, "", err, "expected a mapping (a Kubernetes object), got %s",
					  sp_y_str(root) ? "a scalar" : "a sequence");
		if (sp_y_schema(f, d, root, "", doc_schema, SP_ARRAY_SIZE(doc_schema), err) < 0)
			return -1;
		const char *ptr = NULL;
		yaml_node_t *meta = NULL;
		yaml_node_t *spec = pod_spec(d, root, &ptr, &meta);
		if (spec && sp_y_schema(f, d, spec, ptr, pod_schema, SP_ARRAY_SIZE(pod_schema), err) < 0)
			return -1;
	}
	return 0;
}

/* the value at a container's securityContext, else at the pod's */
static yaml_node_t *sc_get(yaml_document_t *d, yaml_node_t *csc, yaml_node_t *psc, const char *key)
{
	yaml_node_t *n = sp_y_get(d, csc, key);
	return n ? n : sp_y_get(d, psc, key);
}

static bool is_unconfined(const char *s)
{
	return s && (!strcasecmp(s, "unconfined") || !strcmp(s, "Unconfined"));
}

static void check_container(sp_lint *l, size_t fi, yaml_document_t *d, yaml_node_t *c, const char *cptr,
			    yaml_node_t *psc, const char *pscptr, yaml_node_t *meta, const char *metaptr)
{
	const char *name = sp_y_str(sp_y_get(d, c, "name")) ?: "?";
	yaml_node_t *csc = sp_y_get(d, c, "securityContext");
	_cleanup_free_ char *scp = sp_jptr_join(cptr, "securityContext");
	yaml_node_t *at = csc ? csc : c;
	const char *atp = csc ? scp : cptr;
	yaml_node_t *n;
	bool priv = sp_y_true(n = sp_y_get(d, csc, "privileged"));
	if (priv) {
		_cleanup_free_ char *p = sp_jptr_join(scp, "privileged");
		sp_y_report(l, fi, SP_LR_KUBE_PRIVILEGED, n, p, "container '%s' is privileged", name);
	}
	yaml_node_t *add = sp_y_get(d, sp_y_get(d, csc, "capabilities"), "add");
	for (size_t i = 0; i < sp_y_len(add); i++) {
		yaml_node_t *cap = sp_y_at(d, add, i);
		_cleanup_free_ char *p = sp_xasprintf("%s/capabilities/add/%zu", scp, i);
		sp_y_report(l, fi, SP_LR_KUBE_CAP_ADD, cap, p, "container '%s' adds %s", name, sp_y_str(cap) ?: "?");
	}
	n = sp_y_get(d, csc, "allowPrivilegeEscalation");
	if (!sp_y_false(n)) {
		_cleanup_free_ char *p = sp_jptr_join(scp, "allowPrivilegeEscalation");
		sp_y_report(l, fi, SP_LR_KUBE_PRIV_ESC, n ? n : at, n ? p : atp,
			    "container '%s' %s", name,
			    n ? "sets allowPrivilegeEscalation: true" : "does not set allowPrivilegeEscalation: false");
	}
	n = sp_y_get(d, csc, "readOnlyRootFilesystem");
	if (!sp_y_true(n)) {
		_cleanup_free_ char *p = sp_jptr_join(scp, "readOnlyRootFilesystem");
		sp_y_report(l, fi, SP_LR_KUBE_ROOT_WRITABLE, n ? n : at, n ? p : atp,
			    "container '%s' has a writable root filesystem", name);
	}
	yaml_node_t *uid = sp_y_get(d, csc, "runAsUser");
	const char *uidp = scp;
	if (!uid) {
		uid = sp_y_get(d, psc, "runAsUser");
		uidp = pscptr;
	}
	yaml_node_t *nonroot = sc_get(d, csc, psc, "runAsNonRoot");
	const char *uids = sp_y_str(uid);
	if (uids && !strcmp(uids, "0")) {
		_cleanup_free_ char *p = sp_jptr_join(uidp, "runAsUser");
		sp_y_report(l, fi, SP_LR_KUBE_ROOT_USER, uid, p, "container '%s' runs as uid 0", name);
	} else if (!uids && !sp_y_true(nonroot)) {
		sp_y_report(l, fi, SP_LR_KUBE_ROOT_USER, at, atp,
			    "container '%s' sets neither runAsNonRoot: true nor a non-zero runAsUser", name);
	}
	yaml_node_t *sct = sp_y_get(d, sp_y_get(d, csc, "seccompProfile"), "type");
	const char *sctp = scp;
	if (!sct) {
		sct = sp_y_get(d, sp_y_get(d, psc, "seccompProfile"), "type");
		sctp = pscptr;
	}
	if (is_unconfined(sp_y_str(sct))) {
		_cleanup_free_ char *p = sp_xasprintf("%s/seccompProfile/type", sctp);
		sp_y_report(l, fi, SP_LR_KUBE_SECCOMP_UNCONFINED, sct, p, "container '%s' has seccompProfile Unconfined",
			    name);
	}
	yaml_node_t *aat = sp_y_get(d, sp_y_get(d, csc, "appArmorProfile"), "type");
	const char *aatp = scp;
	if (!aat) {
		aat = sp_y_get(d, sp_y_get(d, psc, "appArmorProfile"), "type");
		aatp = pscptr;
	}
	if (is_unconfined(sp_y_str(aat))) {
		_cleanup_free_ char *p = sp_xasprintf("%s/appArmorProfile/type", aatp);
		sp_y_report(l, fi, SP_LR_KUBE_APPARMOR_UNCONFINED, aat, p, "container '%s' has appArmorProfile Unconfined",
			    name);
	}
	/* the annotation form, still honoured by many clusters */
	yaml_node_t *ann = sp_y_get(d, meta, "annotations");
	_cleanup_free_ char *akey = sp_xasprintf("container.apparmor.security.beta.kubernetes.io/%s", name);
	n = sp_y_get(d, ann, akey);
	if (is_unconfined(sp_y_str(n))) {
		_cleanup_free_ char *ap = sp_jptr_join(metaptr, "annotations");
		_cleanup_free_ char *p = sp_jptr_join(ap, akey);
		sp_y_report(l, fi, SP_LR_KUBE_APPARMOR_UNCONFINED, n, p, "container '%s' is annotated apparmor unconfined",
			    name);
	}
}

static void check_pod(sp_lint *l, size_t fi, yaml_document_t *d, yaml_node_t *spec, const char *sptr,
		      yaml_node_t *meta, const char *metaptr, yaml_node_t *kindnode)
{
	static const char *const hostns[] = {"hostNetwork", "hostPID", "hostIPC"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(hostns); i++) {
		yaml_node_t *n = sp_y_get(d, spec, hostns[i]);
		if (sp_y_true(n)) {
			_cleanup_free_ char *p = sp_jptr_join(sptr, hostns[i]);
			sp_y_report(l, fi, SP_LR_KUBE_HOST_NS, n, p, "the pod sets %s: true", hostns[i]);
		}
	}
	yaml_node_t *vols = sp_y_get(d, spec, "volumes");
	for (size_t i = 0; i < sp_y_len(vols); i++) {
		yaml_node_t *v = sp_y_at(d, vols, i);
		yaml_node_t *hp = sp_y_get(d, v, "hostPath");
		if (!hp)
			continue;
		yaml_node_t *pn = sp_y_get(d, hp, "path");
		const char *path = sp_y_str(pn) ?: "?";
		_cleanup_free_ char *p = sp_xasprintf("%s/volumes/%zu/hostPath", sptr, i);
		if (sp_lint_is_runtime_socket(path))
			sp_y_report(l, fi, SP_LR_KUBE_SOCKET, pn ? pn : hp, p, "hostPath volume %s is a runtime control socket",
				    path);
		else if (!strncmp(path, "/dev/", 5) || !strcmp(path, "/dev"))
			sp_y_report(l, fi, SP_LR_KUBE_DEVICES, pn ? pn : hp, p, "hostPath volume mounts the host device %s",
				    path);
		else
			sp_y_report(l, fi, SP_LR_KUBE_HOST_PATH, pn ? pn : hp, p, "hostPath volume mounts %s of the node",
				    path);
	}
	const char *want = l->opts.require_runtime_class;
	if (want) {
		yaml_node_t *rc = sp_y_get(d, spec, "runtimeClassName");
		_cleanup_free_ char *p = sp_jptr_join(sptr, "runtimeClassName");
		if (!sp_y_str(rc) || strcmp(sp_y_str(rc), want))
			sp_y_report(l, fi, SP_LR_KUBE_RUNTIME_CLASS, rc ? rc : kindnode, rc ? p : sptr,
				    "runtimeClassName is %s, the policy demands %s", sp_y_str(rc) ?: "unset", want);
	}
	yaml_node_t *psc = sp_y_get(d, spec, "securityContext");
	_cleanup_free_ char *pscptr = sp_jptr_join(sptr, "securityContext");
	yaml_node_t *ann = sp_y_get(d, meta, "annotations");
	yaml_node_t *podsec = sp_y_get(d, ann, "seccomp.security.alpha.kubernetes.io/pod");
	if (is_unconfined(sp_y_str(podsec))) {
		_cleanup_free_ char *ap = sp_jptr_join(metaptr, "annotations");
		_cleanup_free_ char *p = sp_jptr_join(ap, "seccomp.security.alpha.kubernetes.io/pod");
		sp_y_report(l, fi, SP_LR_KUBE_SECCOMP_UNCONFINED, podsec, p, "the pod is annotated seccomp unconfined");
	}
	static const char *const lists[] = {"initContainers", "containers", "ephemeralContainers"};
	for (size_t li = 0; li < SP_ARRAY_SIZE(lists); li++) {
		yaml_node_t *cs = sp_y_get(d, spec, lists[li]);
		_cleanup_free_ char *lp = sp_jptr_join(sptr, lists[li]);
		for (size_t i = 0; i < sp_y_len(cs); i++) {
			_cleanup_free_ char *cp = sp_jptr_index(lp, i);
			check_container(l, fi, d, sp_y_at(d, cs, i), cp, psc, pscptr, meta, metaptr);
		}
	}
}

void sp_lint_kube_check(sp_lint *l, size_t fi)
{
	struct sp_yaml *y = l->files[fi].yaml;
	for (size_t di = 0; di < y->n; di++) {
		yaml_document_t *d = &y->docs[di];
		yaml_node_t *root = yaml_document_get_root_node(d);
		const char *ptr = NULL;
		yaml_node_t *meta = NULL;
		yaml_node_t *spec = pod_spec(d, root, &ptr, &meta);
		if (!spec)
			continue;
		/* the metadata that goes with the pod spec */
		char metaptr[64];
		snprintf(metaptr, sizeof metaptr, "%.*smetadata", (int)(strlen(ptr) - strlen("spec")), ptr);
		check_pod(l, fi, d, spec, ptr, meta, metaptr, sp_y_get(d, root, "kind"));
	}
}
