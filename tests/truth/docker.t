#!/usr/bin/env bash
# Ground truth on Docker (a private dockerd, tests/lib/engines.sh): runc with
# Docker's defaults and hardened (--cap-drop ALL --read-only --security-opt
# no-new-privileges --network none --tmpfs /tmp), gVisor (runsc) the same two
# ways, and runc with a seccomp profile that refuses unshare only (clone and
# clone3 still create user namespaces: the false PASS of a one-way probe).
# Every property of tests/truth/lib.sh is derived from the host's view of
# the container's process (gVisor: from the helper inside and the launch)
# and compared with the doctor's verdict under strict and container.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need dockerd "dockerd not installed (Debian package docker.io)"
need runsc "runsc not installed (Debian package runsc)"

truth_rootfs "$TR/rootfs"
sp_dockerd_start || skip_all "the private dockerd did not start"
sp_docker_import "$TR/rootfs" "sp-truth-$$:1" || skip_all "docker import failed"
IMG=sp-truth-$$:1
HARD="--cap-drop ALL --read-only --security-opt no-new-privileges --network none --tmpfs /tmp"
cat >"$TR/unshare-only.json" <<'JSON'
{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["unshare"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}]}
JSON
d_runc_default() { docker run --rm "$IMG" /bin/sh -c "$1"; }
d_runc_hard() { docker run --rm $HARD "$IMG" /bin/sh -c "$1"; }
d_runsc_default() { docker run --rm --runtime runsc "$IMG" /bin/sh -c "$1"; }
d_runsc_hard() { docker run --rm --runtime runsc $HARD "$IMG" /bin/sh -c "$1"; }
d_unshare_only() { docker run --rm --cap-drop ALL --security-opt seccomp="$TR/unshare-only.json" "$IMG" /bin/sh -c "$1"; }

cell docker-runc-default host d_runc_default && assert_cell docker-runc-default
expect_engine docker-runc-default docker runc
cell docker-runc-hardened host d_runc_hard && assert_cell docker-runc-hardened
cell docker-unshare-only host d_unshare_only && assert_cell docker-unshare-only
# the reproduction: unshare is refused, clone creates a user namespace anyway
is "$(fact docker-unshare-only userns.unshare) $(fact docker-unshare-only userns.clone)" "EPERM created" \
	"truth: unshare refused, clone(CLONE_NEWUSER) creates one"
is "$(dstatus docker-unshare-only strict kernel.userns)" fail "kernel.userns fails: it probes clone and clone3 too"
# the reproduction: Docker keeps CAP_KILL; with no process of another uid the probe makes one
is "$(fact docker-runc-default kill-other)" signalled "truth: a process of another uid can be signalled"
like "$(devidence docker-runc-default strict caps.kill)" 'usable' "caps.kill: usable, not 'nothing to act on'"

# the engine registers runsc with --network=none (tests/lib/engines.sh): gVisor's netstack
cell_inside docker-runsc-default user-space d_runsc_default && echo "gvisor.network none" >>"$TR/docker-runsc-default.facts" &&
	assert_cell docker-runsc-default
expect_engine docker-runsc-default docker gvisor
cell_inside docker-runsc-hardened user-space d_runsc_hard && echo "gvisor.network none" >>"$TR/docker-runsc-hardened.facts" &&
	assert_cell docker-runsc-hardened
assert_boundary_verdicts docker-runsc-hardened user-space
assert_boundary_verdicts docker-runsc-default user-space
# the gVisor reproductions, each against what the helper saw in the same sandbox
n=docker-runsc-hardened
isnt "$(fact $n uname)" "$(uname -r)" "truth: uname in gVisor is not the host's ($(fact $n uname))"
is "$(fact $n fibmap)" ENOTTY "truth: gVisor implements no FIBMAP (ENOTTY)"
like "$(devidence $n strict caps.sys_rawio)" 'not exercisable \(ENOTTY\)' "caps.sys_rawio does not take ENOTTY for a working capability"
like "$(fact $n int80.getpid)" '^pid=[0-9]+ ret=-' "truth: int 0x80 getpid does not return the pid in gVisor"
like "$(devidence $n strict seccomp.abi32)" 'does not dispatch the ABI with its own numbers' "seccomp.abi32 proves the ABI first"
like "$(fact $n syslog)" 'gVisor' "truth: gVisor's syslog is its canned boot text"
like "$(devidence $n strict kernel.dmesg)" "canned boot lines" "kernel.dmesg names the log as gVisor's own"
# judged literally (no separate kernel accepted), what gVisor does not provide fails
docker run --rm --runtime runsc $HARD "$IMG" /doctor --profile strict --set kernel.separate_kernel= --format json \
	>"$TR/literal.json" 2>/dev/null
lit() { jq -r --arg id "$1" '.results[] | select(.id == $id) | .status' "$TR/literal.json"; }
is "$(lit seccomp.mode)" fail "literally, gVisor has no seccomp filter in the sandbox"
# the probe's ioctl is one gVisor does not implement: the operation was never
# tried, so CAP_SYS_RAWIO's absence from CapEff alone decides nothing (a skip)
is "$(lit caps.sys_rawio)" skip "literally still: an unimplemented ioctl proves nothing either way (skip)"
like "$(jq -r '.results[] | select(.id == "caps.sys_rawio") | "\(.detail) \(.observed)"' "$TR/literal.json")" 'CapEff' \
	"and says its only ground was CapEff"
is "$(lit seccomp.abi32)" pass "literally still: an ABI dispatched as native is no bypass"
is "$(lit kernel.dmesg)" fail "literally, the sentry's log is readable"
is "$(jq -r .environment.kernel_boundary.accepted "$TR/literal.json")" false "the report says the boundary is not accepted"
done_testing
