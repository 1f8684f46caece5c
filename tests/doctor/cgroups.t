#!/usr/bin/env bash
# Cgroups and resources. Passing sandbox: a strict-like box (nobody, every
# namespace, read-only sysfs) started inside a test cgroup with memory, pids
# and cpu limits, and with low rlimits. Failing sandboxes: the same box
# outside the test cgroup (no limits), root in the test cgroup with a
# writable cgroupfs (can raise its own limits), the host's devices cgroup
# ('a *:* rwm'), high rlimits. Limits are proven by reading, never by
# allocating or forking up to them. The unlimited box inherits the host's RLIMIT_NPROC
# (above the 4096 the policy allows).
. "$(dirname "$0")/lib.sh"

for c in memory pids cpu devices; do
	[ -d "/sys/fs/cgroup/$c" ] || skip_all "needs the cgroup v1 $c hierarchy (this host's hybrid layout)"
done
CG=sandprobe-test-$$
for c in memory pids cpu devices; do
	mkdir "/sys/fs/cgroup/$c/$CG"
	at_exit "rmdir /sys/fs/cgroup/$c/$CG"
done
echo $((512 * 1024 * 1024)) >/sys/fs/cgroup/memory/$CG/memory.limit_in_bytes
echo 100 >/sys/fs/cgroup/pids/$CG/pids.max
echo 50000 >/sys/fs/cgroup/cpu/$CG/cpu.cfs_quota_us
echo a >/sys/fs/cgroup/devices/$CG/devices.deny
echo 'c 1:3 rwm' >/sys/fs/cgroup/devices/$CG/devices.allow

in_cg() { # CMD...: run in the test cgroup
	sh -c 'for c in memory pids cpu devices; do echo $$ >"/sys/fs/cgroup/$c/$0/cgroup.procs"; done; exec "$@"' "$CG" "$@"
}
BOX=(setpriv --reuid=65534 --regid=65534 --clear-groups --
	bwrap --unshare-all --unshare-user --die-with-parent --new-session --cap-drop ALL
	--ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$CAT/doctor" $D
	$D --profile strict --format json -k cgroups)
LIMITS=(--set cgroup.memory_max_mib=1024 --set cgroup.pids_max=200 --set cgroup.cpu_max_millicores=1000
	--set res.nofile_max=1024 --set res.nproc_max=4096 --set expect.cgroup.devices=required)

run_json limited in_cg prlimit --nofile=512:512 --nproc=2048:2048 -- "${BOX[@]}" "${LIMITS[@]}"
for id in cgroup.version cgroup.memory cgroup.pids cgroup.cpu cgroup.readonly cgroup.devices res.nofile res.nproc; do
	is_status limited $id pass
done
like "$(detail limited cgroup.pids)" "100 tasks" "pids.max read from the sandbox's own cgroup"

run_json unlimited prlimit --nofile=4096:4096 -- "${BOX[@]}" "${LIMITS[@]}" \
	--set cgroup.versions=v2
for id in cgroup.version cgroup.memory cgroup.pids cgroup.cpu cgroup.devices res.nofile res.nproc; do
	is_status unlimited $id fail
done

# root in the test cgroup with the cgroupfs writable: it could raise its own limits
run_json writable in_cg "$CAT/doctor" --profile strict --format json -k cgroup.readonly
is_status writable cgroup.readonly fail
done_testing
