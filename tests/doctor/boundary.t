#!/usr/bin/env bash
# The kernel boundary and the runtime guess: the report's fields, the policy
# key that accepts a separate kernel (and its bad values), and signals that a
# sandbox's own files could fake: one gVisor mark in a file is not gVisor,
# a hypervisor under a container is not the sandbox's kernel.
. "$(dirname "$0")/lib.sh"
D=$CAT/doctor

"$D" --set kernel.separate_kernel=vm -k ns.pid >/dev/null 2>"$CAT/bad.err"
is "$?" 2 "an unknown boundary in kernel.separate_kernel is a usage error"
like "$(cat "$CAT/bad.err")" "^sandprobe: --set kernel.separate_kernel=vm: kernel.separate_kernel: 'vm': expected user-space or guest\$" \
	"... one line naming the argument, the key and the value"

run_json plain nofilter_box -- -k 'ns.pid or fs.rootfs_readonly'
J=$CAT/plain.json
is "$(jq -r '.environment | [has("engine"), has("runtime"), (.kernel_boundary | has("kind") and has("kernel") and has("signals") and has("doubt") and has("accepted"))] | all' "$J")" true \
	"the environment block has engine, runtime and the kernel boundary with its evidence"
is "$(jq -r .environment.kernel_boundary.kind "$J")" host "a bwrap sandbox talks to the host's kernel"
is "$(jq -r .environment.kernel_boundary.accepted "$J")" false "a host kernel is never 'accepted' as separate"
is "$(jq -r '.results[] | select(.id == "ns.pid") | .kernel' "$J")" host "a host-kernel check names the kernel its proof is about"
like "$(jq -r '.results[] | select(.id == "ns.pid") | .observed' "$J")" "judged against the host's kernel" "... in observed too"
is "$(jq -r '.results[] | select(.id == "fs.rootfs_readonly") | has("kernel")' "$J")" false "a check about the sandbox's own files names no kernel"
"$D" --list --format json >"$CAT/list.json"
is "$(jq -c '.checks[] | select(.id == "ns.net") | .separate_kernel_satisfies' "$CAT/list.json")" '["guest"]' \
	"ns.net: only a guest kernel satisfies it (gVisor's --network=host uses the host's stack)"
is "$(jq -c '.checks[] | select(.id == "caps.dac_override") | .separate_kernel_satisfies' "$CAT/list.json")" '[]' \
	"a file-facing capability is never satisfied by a separate kernel"

# a sandbox's files could name gVisor: one mark (a bound /proc/cmdline) is not gVisor
echo "BOOT_IMAGE=/vmlinuz-4.4.0-gvisor quiet" >"$CAT/cmdline-gvisor"
run_json fake nofilter_box --ro-bind "$CAT/cmdline-gvisor" /proc/cmdline -- -k ns.pid
is "$(jq -r .environment.kernel_boundary.kind "$CAT/fake.json")" host "a faked gVisor command line alone does not make a user-space kernel"
like "$(jq -r .environment.kernel_boundary.doubt "$CAT/fake.json")" 'one gVisor mark only' "... and the report says why"
isnt "$(jq -r .environment.runtime "$CAT/fake.json")" gvisor "... nor the runtime gVisor"
# a Kata guest's command line names its agent
echo "console=hvc0 agent.log=debug systemd.unit=kata-containers.target" >"$CAT/cmdline-kata"
run_json kata nofilter_box --ro-bind "$CAT/cmdline-kata" /proc/cmdline -- -k ns.pid
is "$(jq -r .environment.runtime "$CAT/kata.json")" kata "Kata's command line names the runtime kata ($(jq -r .environment.runtime_signals "$CAT/kata.json"))"
is "$(jq -r .environment.engine "$CAT/kata.json")" bwrap "... and the engine stays the sandbox's own (bwrap)"
# under a hypervisor, a sandbox in namespaces of its own shares the VM's kernel
if grep -qw hypervisor /proc/cpuinfo; then
	like "$(jq -r .environment.kernel_boundary.doubt "$J")" 'hypervisor is present but the doctor is in a .* namespace of its own' \
		"a sandbox inside a VM is judged against the VM's kernel as its host"
else
	skip "no hypervisor here"
fi
done_testing
