/* The lint rule catalogue, one X-macro line per rule:
 *   X(SYM, "id", KIND, SEVERITY, "title", "rationale", "technique ids")
 * The binary, --list-rules, the SARIF driver and the tests all read this list.
 * Rule ids are stable: never renumber or rename one, add new ones.
 * A rule costs this line and the function that reports it, in its kind's
 * file, joined to the kind's table where it is defined (checkreg.h). */
#define SP_LINT_RULES(X) \
	X(OCI_NAMESPACE_MISSING, "oci.namespace_missing", SP_LK_OCI, SP_SEV_ERROR, \
	  "a pid, network, mount, ipc or uts namespace is missing or joins the host's (on FreeBSD: the jail inherits " \
	  "the host's vnet, SysV IPC or mounts)", \
	  "without its own namespace the container sees and acts on the host's processes, network, mounts or IPC", \
	  "T1611") \
	X(OCI_USERNS_MISSING, "oci.userns_missing", SP_LK_OCI, SP_SEV_NOTE, "no user namespace", \
	  "root in the container is root on the host: any escape lands with full host privileges", "T1611,T1068") \
	X(OCI_CAPS_ALL, "oci.caps_all", SP_LK_OCI, SP_SEV_ERROR, "every capability is granted", \
	  "a container holding every capability is a privileged container: mount, modules, raw I/O, ptrace of anything", \
	  "T1611,T1068") \
	X(OCI_CAPS_DANGEROUS, "oci.caps_dangerous", SP_LK_OCI, SP_SEV_ERROR, \
	  "a capability that breaks isolation is granted", \
	  "CAP_SYS_ADMIN, CAP_SYS_MODULE, CAP_SYS_PTRACE, CAP_SYS_RAWIO, CAP_NET_ADMIN, CAP_DAC_READ_SEARCH, CAP_BPF and " \
	  "similar are each a documented path out of a container", \
	  "T1611,T1068") \
	X(OCI_CAPS_EXCESS, "oci.caps_beyond_default", SP_LK_OCI, SP_SEV_WARNING, \
	  "a capability beyond the minimal container set is granted", \
	  "every capability beyond the runtimes' default set widens the kernel surface a compromised workload can use", \
	  "T1548") \
	X(OCI_NO_NEW_PRIVS, "oci.no_new_privileges", SP_LK_OCI, SP_SEV_WARNING, "noNewPrivileges is not set", \
	  "setuid binaries and file capabilities inside the image can raise the privileges of the workload", \
	  "T1548.001,T1068") \
	X(OCI_SECCOMP_MISSING, "oci.seccomp_missing", SP_LK_OCI, SP_SEV_ERROR, "no seccomp filter", \
	  "without a filter every syscall, including the rarely used ones most kernel exploits need, is reachable", \
	  "T1611,T1068") \
	X(OCI_ROOT_WRITABLE, "oci.root_writable", SP_LK_OCI, SP_SEV_WARNING, "the root filesystem is writable", \
	  "a writable root lets a compromised workload replace its own binaries and persist between runs", "T1554") \
	X(OCI_MASKED_PATHS, "oci.masked_paths_missing", SP_LK_OCI, SP_SEV_WARNING, \
	  "standard masked paths are missing", \
	  "/proc/kcore, /proc/keys, /proc/timer_list, /sys/firmware and friends leak host kernel memory and state", \
	  "T1082,T1611") \
	X(OCI_READONLY_PATHS, "oci.readonly_paths_missing", SP_LK_OCI, SP_SEV_WARNING, \
	  "standard read-only paths are missing", \
	  "a writable /proc/sys, /proc/sysrq-trigger or /proc/irq lets the container change the host kernel", "T1611") \
	X(OCI_MOUNT_SOCKET, "oci.mount_runtime_socket", SP_LK_OCI, SP_SEV_ERROR, \
	  "a container runtime's control socket is mounted", \
	  "whoever can talk to the runtime socket can start a privileged container that mounts the host", \
	  "T1611,T1610,T1552.007") \
	X(OCI_MOUNT_HOST_ROOT, "oci.mount_host_root", SP_LK_OCI, SP_SEV_ERROR, "the host's / is bind-mounted", \
	  "the whole host filesystem, its credentials and binaries are inside the sandbox", "T1611") \
	X(OCI_MOUNT_PROC_SYS, "oci.mount_proc_sys_rw", SP_LK_OCI, SP_SEV_ERROR, "/proc or /sys is mounted read-write", \
	  "a read-write bind of the host's /proc or /sys exposes core_pattern, sysrq and other host-wide kernel knobs", \
	  "T1611") \
	X(OCI_HOST_DEVICES, "oci.host_devices", SP_LK_OCI, SP_SEV_ERROR, "host devices are exposed", \
	  "a host block or character device gives raw access to disks, memory or hardware", "T1611,T1006") \
	X(OCI_DEVICES_ALLOW_ALL, "oci.devices_cgroup_allow_all", SP_LK_OCI, SP_SEV_ERROR, \
	  "the device cgroup allows every device", \
	  "any device node the container can create (mknod) or reach is then usable", "T1611,T1006") \
	X(OCI_MEMORY_LIMIT, "oci.memory_limit", SP_LK_OCI, SP_SEV_WARNING, "no memory limit", \
	  "an unbounded workload can push the host into the OOM killer and take its neighbours down", "T1499") \
	X(OCI_PIDS_LIMIT, "oci.pids_limit", SP_LK_OCI, SP_SEV_WARNING, "no pids limit", \
	  "a fork bomb in the container exhausts the host's process table", "T1499") \
	X(OCI_SYSCTL, "oci.sysctl_risky", SP_LK_OCI, SP_SEV_ERROR, "a sysctl that is not namespaced is set", \
	  "a sysctl outside the ipc and network namespaces changes the host kernel for everyone", "T1611") \
	X(OCI_HOOKS, "oci.hooks_host_binary", SP_LK_OCI, SP_SEV_WARNING, "a hook runs a host binary", \
	  "hooks run with the runtime's privileges, resolved on the host; a writable or attacker-chosen hook is host " \
	  "code execution", \
	  "T1611,T1543") \
	X(SECCOMP_DEFAULT_ALLOW, "seccomp.default_allow", SP_LK_SECCOMP, SP_SEV_ERROR, \
	  "the default action allows the syscall", \
	  "a deny-list filter lets through every syscall nobody listed, including those later kernels add", \
	  "T1611,T1068") \
	X(SECCOMP_DANGEROUS, "seccomp.dangerous_syscall", SP_LK_SECCOMP, SP_SEV_ERROR, \
	  "a dangerous syscall is allowed without an argument filter", \
	  "mount, ptrace, bpf, keyctl, unshare, setns, module loading, userfaultfd, io_uring and friends are the usual " \
	  "first step of container escapes and kernel exploits", \
	  "T1611,T1068") \
	X(SECCOMP_DANGEROUS_CAP, "seccomp.dangerous_syscall_cap", SP_LK_SECCOMP, SP_SEV_NOTE, \
	  "a dangerous syscall is allowed when the container holds a capability", \
	  "the profile delegates the decision to the capability set: grant that capability and the syscall is open", \
	  "T1611") \
	X(SECCOMP_CLONE_NS, "seccomp.clone_namespaces", SP_LK_SECCOMP, SP_SEV_ERROR, \
	  "clone or clone3 may create new namespaces", \
	  "unprivileged user namespaces expose kernel code paths that most recent container escapes start from", \
	  "T1611,T1068") \
	X(SECCOMP_ARCH, "seccomp.arch_missing", SP_LK_SECCOMP, SP_SEV_WARNING, "x86_64 without the x86 and x32 ABIs", \
	  "32-bit (int 0x80) and x32 syscalls are then outside the profile and their fate rests on the runtime's " \
	  "bad-arch action", \
	  "T1562.001") \
	X(ALLOW_MODE, "allowlist.mode_invalid", SP_LK_ALLOWLIST, SP_SEV_ERROR, "an access mode other than ro or rw", \
	  "a proxy generator may read an unknown mode as full access", "AML.T0086,T1048") \
	X(ALLOW_WILDCARD, "allowlist.wildcard", SP_LK_ALLOWLIST, SP_SEV_ERROR, "a wildcard host", \
	  "a wildcard admits every subdomain, including names an attacker can register or control", "AML.T0086,T1567") \
	X(ALLOW_RAW_IP, "allowlist.raw_ip", SP_LK_ALLOWLIST, SP_SEV_ERROR, "a raw IP address", \
	  "addresses bypass name-based policy and reach metadata or internal services; octal, hex and integer forms " \
	  "evade naive filters", \
	  "T1090,T1552.005") \
	X(ALLOW_INVALID_NAME, "allowlist.invalid_name", SP_LK_ALLOWLIST, SP_SEV_ERROR, "not a valid DNS name", \
	  "a name the resolver and the proxy parse differently is a policy nobody can predict", "T1090") \
	X(ALLOW_RW_NOT_PROVIDER, "allowlist.rw_not_provider", SP_LK_ALLOWLIST, SP_SEV_ERROR, \
	  "read-write access for a host that is not a declared inference provider", \
	  "a host that accepts request bodies is an exfiltration channel; only the inference API needs one", \
	  "AML.T0086,AML.T0025,T1567") \
	X(ALLOW_FORBIDDEN, "allowlist.forbidden_present", SP_LK_ALLOWLIST, SP_SEV_ERROR, "a forbidden host is allowlisted", \
	  "the allowlist contradicts its own forbidden hosts", "AML.T0086,T1567") \
	X(COMPOSE_PRIVILEGED, "compose.privileged", SP_LK_COMPOSE, SP_SEV_ERROR, "a service runs privileged", \
	  "privileged means every capability, every device and no seccomp or AppArmor", "T1611,T1610") \
	X(COMPOSE_CAP_ADD, "compose.cap_add", SP_LK_COMPOSE, SP_SEV_WARNING, "a service adds capabilities", \
	  "each added capability widens what a compromised workload can do to the kernel", "T1548,T1611") \
	X(COMPOSE_HOST_NS, "compose.host_namespace", SP_LK_COMPOSE, SP_SEV_ERROR, \
	  "a service shares the host's network, pid, ipc, uts, user or cgroup namespace", \
	  "a shared host namespace removes that layer of isolation entirely", "T1611") \
	X(COMPOSE_HOST_PATH, "compose.host_path", SP_LK_COMPOSE, SP_SEV_WARNING, "an absolute host path is bind-mounted", \
	  "host files inside the sandbox can be read, and if writable, changed by the workload", "T1611,T1005") \
	X(COMPOSE_SOCKET, "compose.runtime_socket", SP_LK_COMPOSE, SP_SEV_ERROR, \
	  "a container runtime's control socket is mounted", \
	  "whoever can talk to the runtime socket can start a privileged container that mounts the host", \
	  "T1611,T1610,T1552.007") \
	X(COMPOSE_ROOT_WRITABLE, "compose.root_writable", SP_LK_COMPOSE, SP_SEV_WARNING, \
	  "a service's root filesystem is writable (read_only not set)", \
	  "a writable root lets a compromised workload replace its own binaries", "T1554") \
	X(COMPOSE_SECCOMP_UNCONFINED, "compose.seccomp_unconfined", SP_LK_COMPOSE, SP_SEV_ERROR, \
	  "seccomp is disabled (seccomp=unconfined)", "every syscall is reachable", "T1611,T1068") \
	X(COMPOSE_APPARMOR_UNCONFINED, "compose.apparmor_unconfined", SP_LK_COMPOSE, SP_SEV_ERROR, \
	  "AppArmor is disabled (apparmor=unconfined)", "the mandatory access control layer is gone", "T1611,T1562.001") \
	X(COMPOSE_PRIV_ESC, "compose.privilege_escalation", SP_LK_COMPOSE, SP_SEV_WARNING, \
	  "privilege escalation is allowed (no no-new-privileges:true)", \
	  "setuid binaries and file capabilities can raise the workload's privileges", "T1548.001") \
	X(COMPOSE_ROOT_USER, "compose.run_as_root", SP_LK_COMPOSE, SP_SEV_WARNING, "a service runs as root", \
	  "root in the container owns every file of the image and is one bug away from host root without a user " \
	  "namespace", \
	  "T1611,T1068") \
	X(COMPOSE_DEVICES, "compose.devices", SP_LK_COMPOSE, SP_SEV_ERROR, "host devices are passed through", \
	  "a host device gives raw access to hardware or disks", "T1611,T1006") \
	X(COMPOSE_RUNTIME, "compose.runtime_class", SP_LK_COMPOSE, SP_SEV_ERROR, \
	  "a service does not use the runtime the policy demands (--require-runtime-class)", \
	  "the stronger runtime (gVisor, Kata, a microVM) is the isolation boundary the owner relies on", "T1611") \
	X(KUBE_PRIVILEGED, "kube.privileged", SP_LK_KUBE, SP_SEV_ERROR, "a container runs privileged", \
	  "privileged means every capability, every device and no seccomp or AppArmor", "T1611,T1610") \
	X(KUBE_CAP_ADD, "kube.cap_add", SP_LK_KUBE, SP_SEV_WARNING, "a container adds capabilities", \
	  "each added capability widens what a compromised workload can do to the kernel", "T1548,T1611") \
	X(KUBE_HOST_NS, "kube.host_namespace", SP_LK_KUBE, SP_SEV_ERROR, \
	  "the pod shares the host's network, pid or ipc namespace (hostNetwork, hostPID, hostIPC)", \
	  "a shared host namespace removes that layer of isolation entirely", "T1611") \
	X(KUBE_HOST_PATH, "kube.host_path", SP_LK_KUBE, SP_SEV_ERROR, "a hostPath volume is mounted", \
	  "hostPath volumes are the most common route from a pod to the node", "T1611") \
	X(KUBE_SOCKET, "kube.runtime_socket", SP_LK_KUBE, SP_SEV_ERROR, \
	  "a container runtime's control socket is mounted", \
	  "whoever can talk to the runtime socket can start a privileged container that mounts the node", \
	  "T1611,T1610,T1552.007") \
	X(KUBE_ROOT_WRITABLE, "kube.root_writable", SP_LK_KUBE, SP_SEV_WARNING, \
	  "readOnlyRootFilesystem is not set", "a writable root lets a compromised workload replace its own binaries", \
	  "T1554") \
	X(KUBE_SECCOMP_UNCONFINED, "kube.seccomp_unconfined", SP_LK_KUBE, SP_SEV_ERROR, "seccomp is Unconfined", \
	  "every syscall is reachable", "T1611,T1068") \
	X(KUBE_APPARMOR_UNCONFINED, "kube.apparmor_unconfined", SP_LK_KUBE, SP_SEV_ERROR, "AppArmor is unconfined", \
	  "the mandatory access control layer is gone", "T1611,T1562.001") \
	X(KUBE_PRIV_ESC, "kube.privilege_escalation", SP_LK_KUBE, SP_SEV_WARNING, \
	  "allowPrivilegeEscalation is not false", \
	  "setuid binaries and file capabilities can raise the workload's privileges", "T1548.001") \
	X(KUBE_ROOT_USER, "kube.run_as_root", SP_LK_KUBE, SP_SEV_WARNING, "a container may run as root", \
	  "neither runAsNonRoot nor a non-zero runAsUser is set", "T1611,T1068") \
	X(KUBE_DEVICES, "kube.devices", SP_LK_KUBE, SP_SEV_ERROR, "a host device is mounted", \
	  "a host device gives raw access to hardware or disks", "T1611,T1006") \
	X(KUBE_RUNTIME_CLASS, "kube.runtime_class", SP_LK_KUBE, SP_SEV_ERROR, \
	  "the pod does not use the RuntimeClass the policy demands (--require-runtime-class)", \
	  "the stronger runtime (gVisor, Kata, a microVM) is the isolation boundary the owner relies on", "T1611") \
	X(SQUID_OPEN_PROXY, "squid.open_proxy", SP_LK_SQUID, SP_SEV_ERROR, \
	  "the proxy allows requests to hosts it does not list", \
	  "an egress proxy that forwards to any destination is no egress control", "AML.T0086,T1090,T1567") \
	X(REL_HOST_NOT_IN_PROXY, "relation.host_not_in_proxy", SP_LK_AUTO, SP_SEV_ERROR, \
	  "an allowlisted host is not allowed by the proxy config", \
	  "the allowlist and the proxy drifted apart: the policy the owner reviews is not the one enforced", "T1090") \
	X(REL_RO_NOT_ENFORCED, "relation.readonly_not_enforced", SP_LK_AUTO, SP_SEV_ERROR, \
	  "a read-only host accepts methods other than GET and HEAD at the proxy", \
	  "a read-only host that accepts POST, PUT or a CONNECT tunnel is an exfiltration channel", \
	  "AML.T0086,AML.T0025,T1567") \
	X(REL_FORBIDDEN_ALLOWED, "relation.forbidden_allowed", SP_LK_AUTO, SP_SEV_ERROR, \
	  "a forbidden host is allowed by the proxy config", "the proxy forwards to a host the policy forbids", \
	  "AML.T0086,T1567") \
	X(REL_PROXY_ADDRESS, "relation.proxy_address", SP_LK_AUTO, SP_SEV_ERROR, \
	  "the sandbox's proxy address is not one the proxy listens on", \
	  "traffic goes to another listener or nowhere; either the sandbox has no egress or an unreviewed path", \
	  "T1090") \
	X(REL_PROXY_UNSET, "relation.proxy_unset", SP_LK_AUTO, SP_SEV_WARNING, \
	  "a sandbox given with a proxy config sets no HTTPS_PROXY", \
	  "the proxy filters nothing the sandbox does not send it", "T1090") \
	X(INPUT_INVALID, "lint.input_invalid", SP_LK_AUTO, SP_SEV_ERROR, "a file, or a document in it, could not be linted", \
	  "a configuration the linter cannot read (syntax, wrong types, unknown kind, unreadable) is one nobody has " \
	  "checked: it is reported where it fails, the rest of the run goes on, and the exit status is 2", \
	  "") \
	X(KUBE_SYSCTL, "kube.sysctl_unsafe", SP_LK_KUBE, SP_SEV_WARNING, \
	  "the pod sets a sysctl outside the Pod Security Standards' safe set", \
	  "only the safe sysctls are isolated between pods; the others tune kernel state (memory, queues, routing) that " \
	  "other pods share or that the node must allow as unsafe", \
	  "T1611,T1499") \
	X(COMPOSE_SYSCTL, "compose.sysctl_unsafe", SP_LK_COMPOSE, SP_SEV_WARNING, \
	  "a service sets a sysctl outside the safe set", \
	  "only the safe sysctls are isolated between containers; the others tune kernel state the host and its other " \
	  "containers share", \
	  "T1611,T1499") \
	X(KUBE_PROC_UNMASKED, "kube.proc_unmasked", SP_LK_KUBE, SP_SEV_ERROR, "procMount is Unmasked", \
	  "an unmasked /proc exposes kcore, sysrq-trigger, keys and the other host kernel interfaces the runtime hides", \
	  "T1611,T1082") \
	X(COMPOSE_SYSTEMPATHS, "compose.systempaths_unconfined", SP_LK_COMPOSE, SP_SEV_ERROR, \
	  "masked and read-only /proc and /sys paths are disabled (systempaths=unconfined)", \
	  "the host kernel interfaces the engine hides (kcore, sysrq-trigger, /proc/sys) become reachable", \
	  "T1611,T1082") \
	X(KUBE_LIMITS, "kube.resource_limits", SP_LK_KUBE, SP_SEV_WARNING, "a container has no memory or CPU limit", \
	  "an unbounded container can exhaust the node's memory or CPU and take its neighbours down", "T1499,T1496") \
	X(COMPOSE_LIMITS, "compose.resource_limits", SP_LK_COMPOSE, SP_SEV_WARNING, \
	  "a service has no memory, CPU or pids limit", \
	  "an unbounded service can exhaust the host's memory, CPU or process table (a fork bomb)", "T1499,T1496") \
	X(KUBE_CAPS_DROP_ALL, "kube.caps_drop_all", SP_LK_KUBE, SP_SEV_WARNING, \
	  "a container does not drop ALL capabilities", \
	  "without drop: [ALL] it keeps the runtime's default set, NET_RAW (packet spoofing, ARP and DNS poisoning on " \
	  "the node's network) among them", \
	  "T1548,T1611") \
	X(COMPOSE_CAPS_DROP_ALL, "compose.caps_drop_all", SP_LK_COMPOSE, SP_SEV_WARNING, \
	  "a service does not drop ALL capabilities", \
	  "without cap_drop: [ALL] it keeps the engine's default set, NET_RAW among them", "T1548,T1611") \
	X(KUBE_SECCOMP_UNSET, "kube.seccomp_unset", SP_LK_KUBE, SP_SEV_WARNING, "no seccomp profile is set", \
	  "Kubernetes runs a container without a seccompProfile Unconfined unless the kubelet defaults otherwise: every " \
	  "syscall is reachable", \
	  "T1611,T1068") \
	X(KUBE_APPARMOR_UNSET, "kube.apparmor_unset", SP_LK_KUBE, SP_SEV_NOTE, "no AppArmor profile is set", \
	  "the runtime's default profile applies only on nodes that have AppArmor; naming one makes the intent explicit", \
	  "T1611,T1562.001") \
	X(KUBE_HOST_USERS, "kube.host_users", SP_LK_KUBE, SP_SEV_NOTE, "the pod does not set hostUsers: false", \
	  "without a user namespace uid 0 in the pod is uid 0 on the node: any escape lands with full node privileges", \
	  "T1611,T1068") \
	X(KUBE_GROUP_ROOT, "kube.run_as_group_root", SP_LK_KUBE, SP_SEV_WARNING, \
	  "a container runs with group 0 (runAsGroup, supplementalGroups or fsGroup)", \
	  "group root owns and can often write files that uid checks alone would protect", "T1548,T1068") \
	X(COMPOSE_GROUP_ROOT, "compose.run_as_group_root", SP_LK_COMPOSE, SP_SEV_WARNING, \
	  "a service runs with group 0 (user uid:0 or group_add)", \
	  "group root owns and can often write files that uid checks alone would protect", "T1548,T1068") \
	X(KUBE_SELINUX, "kube.selinux_unconfined", SP_LK_KUBE, SP_SEV_ERROR, \
	  "an unconfined SELinux type or user (spc_t, unconfined_t, unconfined_u)", \
	  "spc_t and unconfined_t are exempt from the SELinux policy that confines containers", "T1611,T1562.001") \
	X(COMPOSE_SELINUX, "compose.selinux_unconfined", SP_LK_COMPOSE, SP_SEV_ERROR, \
	  "SELinux labelling is disabled (label=disable) or unconfined (spc_t)", \
	  "the container runs outside the SELinux policy that confines containers", "T1611,T1562.001") \
	X(KUBE_HOST_PORT, "kube.host_port", SP_LK_KUBE, SP_SEV_WARNING, "a container binds a port on the node (hostPort)", \
	  "a hostPort listens on the node's addresses, every interface unless hostIP says otherwise: a way in and out of " \
	  "the sandbox that an egress proxy never sees", \
	  "T1048,T1572") \
	X(COMPOSE_PORTS, "compose.ports_all_interfaces", SP_LK_COMPOSE, SP_SEV_WARNING, \
	  "a port is published on every interface of the host", \
	  "a port published without a host address listens on 0.0.0.0: reachable from every network the host is on, a " \
	  "way in and out of the sandbox that an egress proxy never sees", \
	  "T1048,T1572") \
	X(KUBE_SA_TOKEN, "kube.sa_token_automount", SP_LK_KUBE, SP_SEV_WARNING, \
	  "the service account token is mounted (automountServiceAccountToken not false)", \
	  "a compromised workload can use the token against the API server with the service account's rights", \
	  "T1552.007,T1613") \
	X(KUBE_HOST_PROCESS, "kube.windows_host_process", SP_LK_KUBE, SP_SEV_ERROR, \
	  "a Windows HostProcess container", \
	  "a HostProcess container runs directly on the Windows node, with the host's network and file system", \
	  "T1611") \
	X(KUBE_VOLUME_TYPE, "kube.volume_type", SP_LK_KUBE, SP_SEV_WARNING, \
	  "a volume type outside the core set (flexVolume, iscsi, nfs, rbd ...)", \
	  "non-core volume types are mounted by the node with its privileges (flexVolume runs a driver binary as root on " \
	  "the node); the restricted Pod Security Standard allows only the core types", \
	  "T1611,T1006") \
	X(KUBE_ENV_SECRET, "kube.env_secret", SP_LK_KUBE, SP_SEV_WARNING, \
	  "a secret is written into an environment variable's value", \
	  "a literal secret sits in the manifest, and in the environment every child process, crash dump and " \
	  "/proc/PID/environ reader sees", \
	  "T1552,T1552.001") \
	X(KUBE_ENV_SECRET_REF, "kube.env_secret_ref", SP_LK_KUBE, SP_SEV_NOTE, \
	  "a Secret is exposed as environment variables", \
	  "environment variables are inherited by every child process and readable in /proc/PID/environ; a file mount " \
	  "with tight permissions leaks less", \
	  "T1552") \
	X(COMPOSE_ENV_SECRET, "compose.env_secret", SP_LK_COMPOSE, SP_SEV_WARNING, \
	  "a secret is written into an environment variable's value", \
	  "a literal secret sits in the compose file, and in the environment every child process and /proc/PID/environ " \
	  "reader sees; compose secrets mount it as a file", \
	  "T1552,T1552.001") \
	X(KUBE_RBAC_WILDCARD, "kube.rbac_wildcard", SP_LK_KUBE, SP_SEV_ERROR, "an RBAC rule uses a wildcard", \
	  "a wildcard verb, resource or API group grants everything, including what later versions add", "T1610,T1609") \
	X(KUBE_RBAC_POD_CREATE, "kube.rbac_pod_create", SP_LK_KUBE, SP_SEV_WARNING, "an RBAC rule can create pods", \
	  "whoever can create pods can create a privileged one that mounts the node", "T1610,T1611") \
	X(KUBE_RBAC_POD_EXEC, "kube.rbac_pod_exec", SP_LK_KUBE, SP_SEV_WARNING, \
	  "an RBAC rule can exec or attach into pods", "exec runs commands in other pods, with their secrets and rights", \
	  "T1609") \
	X(KUBE_RBAC_CLUSTER_ADMIN, "kube.rbac_cluster_admin", SP_LK_KUBE, SP_SEV_ERROR, "a binding grants cluster-admin", \
	  "cluster-admin is every right on every object of the cluster", "T1610,T1609,T1552.007") \
	X(KUBE_SCC_PRIVILEGED, "kube.scc_privileged", SP_LK_KUBE, SP_SEV_ERROR, \
	  "an OpenShift SecurityContextConstraints admits privileged or host-level pods", \
	  "every pod the SCC admits may run privileged, share the host's namespaces, mount host paths or add any " \
	  "capability", \
	  "T1611,T1610") \
	X(COMPOSE_CGROUP_PARENT, "compose.cgroup_parent", SP_LK_COMPOSE, SP_SEV_WARNING, \
	  "a service chooses its own parent cgroup (cgroup_parent)", \
	  "the service leaves the engine's cgroup tree and the limits and accounting set for it", "T1499")
