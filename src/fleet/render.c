/* One Kubernetes Job per fleet cell (node x RuntimeClass). The pod is the
 * hardened one of docs/k8s/doctor-job.yaml: no service account token, no
 * host namespaces, non-root (unless the plan says), read-only root file
 * system with a memory /tmp, no privilege escalation, every capability
 * dropped, RuntimeDefault seccomp, resources. The doctor writes its JSON
 * report to the pod's log; SP_FLEET_CELL in its environment and the Job's
 * labels name the cell, SP_FLEET_NODE_NAME (the downward API's spec.nodeName)
 * the node the kubelet ran it on: the doctor puts both in its report
 * (environment.fleet) for `fleet collect`. Every value was character-checked by the parser. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fleet/fleet.h"

void sp_fleet_job_name(const sp_fleet_plan *p, size_t node, size_t cls, char *buf, size_t size)
{
	snprintf(buf, size, "sp-%s-%s-%s", p->name, p->nodes[node].id, p->classes[cls]);
}

static void labels(FILE *f, const sp_fleet_plan *p, size_t node, size_t cls, const char *ind)
{
	fprintf(f,
		"%sapp.kubernetes.io/name: sandprobe-doctor\n"
		"%ssandprobe.dev/fleet: \"%s\"\n"
		"%ssandprobe.dev/node: \"%s\"\n"
		"%ssandprobe.dev/runtime-class: \"%s\"\n",
		ind, ind, p->name, ind, p->nodes[node].id, ind, p->classes[cls]);
}

int sp_fleet_write_job(FILE *f, const sp_fleet_plan *p, size_t node, size_t cls)
{
	const sp_fleet_node *nd = &p->nodes[node];
	char job[128];
	sp_fleet_job_name(p, node, cls, job, sizeof job);
	fprintf(f,
		"# sandprobe fleet %s: cell %s/%s (node %s, RuntimeClass %s)\n"
		"apiVersion: batch/v1\n"
		"kind: Job\n"
		"metadata:\n"
		"  name: %s\n"
		"  namespace: %s\n"
		"  labels:\n",
		p->name, nd->id, p->classes[cls], nd->id, p->classes[cls], job, p->namespace);
	labels(f, p, node, cls, "    ");
	fprintf(f,
		"spec:\n"
		"  backoffLimit: 0\n"
		"  ttlSecondsAfterFinished: %d\n"
		"  activeDeadlineSeconds: %d\n"
		"  template:\n"
		"    metadata:\n"
		"      labels:\n",
		p->ttl, p->active_deadline);
	labels(f, p, node, cls, "        ");
	fprintf(f,
		"    spec:\n"
		"      runtimeClassName: %s\n"
		"      restartPolicy: Never\n"
		"      automountServiceAccountToken: false\n"
		"      enableServiceLinks: false\n"
		"      hostNetwork: false\n"
		"      hostPID: false\n"
		"      hostIPC: false\n",
		p->classes[cls]);
	if (!p->host_users)
		fputs("      hostUsers: false\n", f);
	if (nd->node_name)
		fprintf(f, "      nodeName: %s\n", nd->node_name);
	else {
		fputs("      nodeSelector:\n", f);
		for (size_t i = 0; i < nd->nsel; i++)
			fprintf(f, "        \"%s\": \"%s\"\n", nd->sel_key[i], nd->sel_val[i]);
	}
	fputs("      securityContext:\n", f);
	if (p->run_as_non_root)
		fprintf(f,
			"        runAsNonRoot: true\n"
			"        runAsUser: %d\n"
			"        runAsGroup: %d\n",
			p->run_as_user, p->run_as_user);
	else
		fputs("        runAsNonRoot: false\n", f);
	fputs("        seccompProfile:\n"
	      "          type: RuntimeDefault\n",
	      f);
	if (p->apparmor)
		fputs("        appArmorProfile:\n"
		      "          type: RuntimeDefault\n",
		      f);
	fprintf(f,
		"      containers:\n"
		"        - name: doctor\n"
		"          image: \"%s\"\n"
		"          imagePullPolicy: IfNotPresent\n"
		"          args: [\"--profile\", \"%s\", \"--format\", \"json\"",
		p->image, p->profile);
	for (size_t i = 0; i < p->nset; i++)
		fprintf(f, ", \"--set\", \"%s\"", p->set[i]);
	fprintf(f,
		"]\n"
		"          env:\n"
		"            - name: SP_FLEET_CELL\n"
		"              value: \"%s/%s\"\n"
		"            - name: SP_FLEET_NODE_NAME\n"
		"              valueFrom:\n"
		"                fieldRef:\n"
		"                  fieldPath: spec.nodeName\n"
		"          securityContext:\n"
		"            allowPrivilegeEscalation: false\n"
		"            readOnlyRootFilesystem: true\n"
		"            privileged: false\n"
		"            capabilities:\n"
		"              drop: [\"ALL\"]\n"
		"          resources:\n"
		"            limits:\n"
		"              cpu: \"%s\"\n"
		"              memory: \"%s\"\n"
		"            requests:\n"
		"              cpu: \"%s\"\n"
		"              memory: \"%s\"\n"
		"          volumeMounts:\n"
		"            - name: tmp\n"
		"              mountPath: /tmp\n"
		"      volumes:\n"
		"        - name: tmp\n"
		"          emptyDir:\n"
		"            medium: Memory\n"
		"            sizeLimit: 16Mi\n",
		nd->id, p->classes[cls], p->lim_cpu, p->lim_mem, p->req_cpu, p->req_mem);
	return ferror(f) ? -EIO : 0;
}
