#!/usr/bin/env bash
# The container profile in a real OCI runtime (runc): a hardened config
# (runc's default spec plus no capabilities, read-only root, tmpfs /tmp,
# NoNewPrivs and a seccomp profile in the config) passes the whole isolation
# catalogue; the same config without its seccomp profile and with
# CAP_SYS_ADMIN and CAP_NET_RAW kept fails exactly those checks.
. "$(dirname "$0")/lib.sh"
need runc

B=$CAT/bundle
mkdir -p "$B/rootfs/tmp" "$B/rootfs/proc" "$B/rootfs/dev" "$B/rootfs/sys"
cp "$CAT/doctor" "$B/rootfs/sandprobe-doctor"
# the host's /usr read-only, for the dynamic (SP_SAN=1) doctor's libraries
mkdir -p "$B/rootfs/usr"
ln -s usr/lib "$B/rootfs/lib"
ln -s usr/lib64 "$B/rootfs/lib64"
(cd "$B" && runc spec)
SEL='namespaces or processes or privileges or seccomp or filesystem or kernel or devices or cgroups'
DENY='["mount","umount2","unshare","setns","keyctl","add_key","request_key","bpf","perf_event_open","userfaultfd",
"io_uring_setup","kexec_load","init_module","finit_module","open_by_handle_at","personality"]'
jq --arg sel "$SEL" --argjson deny "$DENY" '
	.process.terminal = false |
	.process.args = ["/sandprobe-doctor", "--profile", "container", "--format", "json", "-k", $sel] |
	.process.capabilities = {} | .process.noNewPrivileges = true | .root.readonly = true |
	.mounts += [{"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev", "mode=1777"]},
		{"destination": "/usr", "type": "bind", "source": "/usr", "options": ["rbind", "ro", "nosuid", "nodev"]}] |
	.process.env += ["ASAN_OPTIONS=detect_leaks=0"] |
	.linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW",
		"architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"],
		"syscalls": [{"names": $deny, "action": "SCMP_ACT_ERRNO", "errnoRet": 1},
			{"names": ["clone"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1,
			 "args": [{"index": 0, "value": 268435456, "valueTwo": 268435456, "op": "SCMP_CMP_MASKED_EQ"}]},
			{"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": 38}]}' \
	"$B/config.json" >"$CAT/cfg-hardened.json"
jq '.linux.seccomp = null | del(.linux.seccomp) |
	.process.capabilities = {"bounding": ["CAP_SYS_ADMIN", "CAP_NET_RAW"], "effective": ["CAP_SYS_ADMIN", "CAP_NET_RAW"],
		"permitted": ["CAP_SYS_ADMIN", "CAP_NET_RAW"]}' "$CAT/cfg-hardened.json" >"$CAT/cfg-weak.json"

run_runc() { # CONFIG
	cp "$CAT/cfg-$1.json" "$B/config.json"
	timeout 60 runc run --bundle "$B" "sandprobe-test-$$-$1"
}
run_json hardened run_runc hardened
is "$(jq -r .environment.runtime_guess "$CAT/hardened.json")" runc "runtime guess names runc"
is "$(jq '[.results[] | select(.status == "fail" or .status == "error")] | length' "$CAT/hardened.json")" 0 \
	"hardened runc container: no failure in the isolation catalogue ($(jq -c .summary "$CAT/hardened.json"))"
for id in seccomp.mode seccomp.mount seccomp.abi32 caps.effective caps.sys_admin caps.net_raw kernel.userns \
	fs.rootfs_readonly fs.masked_paths fs.readonly_paths dev.host_devices; do
	is_status hardened $id pass
done

run_json weak run_runc weak
for id in seccomp.mode seccomp.mount seccomp.abi32 caps.effective caps.bounding caps.sys_admin caps.net_raw kernel.userns; do
	is_status weak $id fail
done
is_status weak fs.masked_paths pass

# podman (with runc) and its default seccomp profile, hardened on the command line: capabilities,
# NoNewPrivs, read-only root and masks hold; its profile lets mount, unshare and setns reach
# the kernel (refused there only for lack of CAP_SYS_ADMIN), which the container profile reports
if command -v podman >/dev/null 2>&1; then
	mkdir -p "$CAT/prootfs/usr"
	cp "$CAT/doctor" "$CAT/prootfs/sandprobe-doctor"
	ln -s usr/lib "$CAT/prootfs/lib"
	ln -s usr/lib64 "$CAT/prootfs/lib64"
	run_json podman timeout 120 podman --runtime runc run --rm --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
		--cap-drop ALL --read-only --security-opt no-new-privileges -v /usr:/usr:ro -e ASAN_OPTIONS=detect_leaks=0 \
		--rootfs "$CAT/prootfs" /sandprobe-doctor --profile container --format json -k "$SEL"
	is "$(jq -r .environment.engine "$CAT/podman.json")" podman "runtime guess names the engine podman"
	is "$(jq -r .environment.runtime "$CAT/podman.json")" runc "... and its runtime runc"
	is "$(jq -r .environment.runtime_guess "$CAT/podman.json")" podman+runc "... together: podman+runc"
	for id in caps.effective caps.bounding priv.no_new_privs seccomp.mode fs.rootfs_readonly fs.masked_paths \
		fs.readonly_paths dev.host_devices seccomp.bpf seccomp.ptrace; do
		is_status podman $id pass
	done
	for id in seccomp.mount seccomp.unshare seccomp.setns kernel.userns; do is_status podman $id fail; done
else
	skip "podman not installed"
fi

# firejail leaves /run/firejail/mnt behind on the host: in the initial PID
# namespace that directory alone must not make the guess "firejail"; in a
# PID namespace of its own it still counts
fj() {
	unshare --mount --propagation private $1 sh -c 'mount -t tmpfs tmpfs /run && mkdir -p /run/firejail/mnt &&
		"$0" --profile host --format json -k ns.pid' "$CAT/doctor"
}
run_json fj_host fj ""
isnt "$(jq -r .environment.runtime_guess "$CAT/fj_host.json")" firejail "a leftover /run/firejail on the host is not firejail"
like "$(jq -r .environment.runtime_signals "$CAT/fj_host.json")" 'run/firejail\(initial-pidns\)' "the signal is reported, discounted"
run_json fj_box fj "--pid --fork --mount-proc"
is "$(jq -r .environment.runtime_guess "$CAT/fj_box.json")" firejail "the same marker in a PID namespace guesses firejail"
done_testing
