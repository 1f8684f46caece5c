#!/usr/bin/env bash
# Ground truth on the OCI runtimes run directly on a bundle: runc with its
# default spec and with a hardened one (no capabilities, NoNewPrivs,
# read-only root, tmpfs /tmp, a seccomp profile for all three ABIs), each
# live-matrix variant of the hardened one (host-pid, host-net,
# writable-root, kept-caps, host-dev, no-seccomp, privileged), crun on the
# same hardened bundle, and gVisor's runsc directly on it
# (runsc --network=none --ignore-cgroups run). Facts and expectations:
# tests/truth/lib.sh.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need runc

B=$TR/bundle
truth_rootfs "$B/rootfs"
(cd "$B" && runc spec) || skip_all "runc spec failed"
mv "$B/config.json" "$TR/spec.json"
DENY='["mount","umount2","unshare","setns","keyctl","add_key","request_key","bpf","perf_event_open","userfaultfd",
"io_uring_setup","kexec_load","init_module","finit_module","open_by_handle_at","personality","ptrace"]'
jq --argjson deny "$DENY" '
	.process.terminal = false | .process.capabilities = {} | .process.noNewPrivileges = true | .root.readonly = true |
	.mounts += [{"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev", "mode=1777"]}] |
	.linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW",
		"architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
		"syscalls": [{"names": $deny, "action": "SCMP_ACT_ERRNO", "errnoRet": 1},
			{"names": ["clone"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1,
			 "args": [{"index": 0, "value": 268435456, "valueTwo": 268435456, "op": "SCMP_CMP_MASKED_EQ"}]},
			{"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38}]}' "$TR/spec.json" >"$TR/hardened.json"
KEPT='["CAP_SYS_ADMIN","CAP_NET_RAW","CAP_KILL","CAP_MKNOD","CAP_SYS_RAWIO","CAP_SYS_PTRACE"]'
ALLCAPS=$(jq -nc '[range(0; 41)] | map("CAP_" + (["CHOWN","DAC_OVERRIDE","DAC_READ_SEARCH","FOWNER","FSETID","KILL","SETGID",
	"SETUID","SETPCAP","LINUX_IMMUTABLE","NET_BIND_SERVICE","NET_BROADCAST","NET_ADMIN","NET_RAW","IPC_LOCK","IPC_OWNER",
	"SYS_MODULE","SYS_RAWIO","SYS_CHROOT","SYS_PTRACE","SYS_PACCT","SYS_ADMIN","SYS_BOOT","SYS_NICE","SYS_RESOURCE",
	"SYS_TIME","SYS_TTY_CONFIG","MKNOD","LEASE","AUDIT_WRITE","AUDIT_CONTROL","SETFCAP","MAC_OVERRIDE","MAC_ADMIN",
	"SYSLOG","WAKE_ALARM","BLOCK_SUSPEND","AUDIT_READ","PERFMON","BPF","CHECKPOINT_RESTORE"][.]))')
# only what this host can grant (a session may lack some, e.g. cap_sys_resource)
bnd=$((0x$(awk '$1 == "CapBnd:" { print $2 }' /proc/self/status)))
ALLCAPS=$(echo "$ALLCAPS" | jq -c --argjson b "$bnd" 'to_entries | map(select((($b / pow(2; .key)) | floor) % 2 == 1) | .value)')
variant() { # NAME: the hardened config with one protection removed
	case $1 in
	spec) jq '.process.terminal = false' "$TR/spec.json" ;;
	strict) cat "$TR/hardened.json" ;;
	host-pid) jq '.linux.namespaces |= map(select(.type != "pid"))' "$TR/hardened.json" ;;
	host-net) jq '.linux.namespaces |= map(select(.type != "network"))' "$TR/hardened.json" ;;
	writable-root) jq '.root.readonly = false' "$TR/hardened.json" ;;
	kept-caps) jq --argjson c "$KEPT" '.process.capabilities = {"bounding": $c, "effective": $c, "permitted": $c}' "$TR/hardened.json" ;;
	host-dev) jq '.mounts += [{"destination": "/dev", "type": "bind", "source": "/dev", "options": ["rbind", "rw"]}] |
		.linux.resources.devices = [{"allow": true, "access": "rwm"}]' "$TR/hardened.json" ;;
	no-seccomp) jq 'del(.linux.seccomp)' "$TR/hardened.json" ;;
	privileged) jq --argjson c "$ALLCAPS" 'del(.linux.seccomp) | .process.noNewPrivileges = false |
		.process.capabilities = {"bounding": $c, "effective": $c, "permitted": $c} |
		.linux.maskedPaths = [] | .linux.readonlyPaths = [] | .linux.resources.devices = [{"allow": true, "access": "rwm"}]' "$TR/hardened.json" ;;
	esac
}
configure() { # VARIANT SCRIPT
	variant "$1" | jq --arg s "$2" '.process.args = ["/bin/sh", "-c", $s]' >"$B/config.json"
}
runc_v() { configure "$V" "$1" && runc --root "$TR/runc" run --bundle "$B" "sp-truth-$$-$V"; }
for V in ${TRUTH_VARIANTS:-spec strict host-pid host-net writable-root kept-caps host-dev no-seccomp privileged}; do
	cell "runc-$V" host runc_v && assert_cell "runc-$V"
done
expect_engine runc-strict "" runc

# crun refuses hybrid cgroups: a private mount namespace without the cgroup2 tree
if command -v crun >/dev/null 2>&1; then
	crun_v() {
		configure strict "$1" && unshare -m sh -c 'umount /sys/fs/cgroup/unified 2>/dev/null;
			exec crun --root "$0/crun" --cgroup-manager=disabled run --bundle "$1" "$2"' "$TR" "$B" "sp-truth-$$-crun"
	}
	cell crun-strict host crun_v && assert_cell crun-strict
	expect_engine crun-strict "" crun
	jq '.process.terminal = false' "$TR/spec.json" >/dev/null
	crun_spec() {
		configure spec "$1" && unshare -m sh -c 'umount /sys/fs/cgroup/unified 2>/dev/null;
			exec crun --root "$0/crun" --cgroup-manager=disabled run --bundle "$1" "$2"' "$TR" "$B" "sp-truth-$$-crunspec"
	}
	cell crun-spec host crun_spec && assert_cell crun-spec
else
	skip "crun not installed (Debian package crun)"
fi

# gVisor directly on the bundle: no host process to read, the sentry is the kernel
if command -v runsc >/dev/null 2>&1; then
	runsc_v() {
		configure strict "$1" && runsc --root "$TR/runsc" --network=none --ignore-cgroups run --bundle "$B" "sp-truth-$$-runsc"
	}
	cell_inside runsc-strict user-space runsc_v && echo "gvisor.network none" >>"$TR/runsc-strict.facts" && assert_cell runsc-strict
	expect_engine runsc-strict "" gvisor
else
	skip "runsc not installed (Debian package runsc)"
fi
done_testing
