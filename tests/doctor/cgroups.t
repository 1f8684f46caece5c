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

# the boxes above with no cgroupfs in view: nothing to read, nothing to try
hid=(setpriv --reuid=65534 --regid=65534 --clear-groups --
	bwrap --unshare-all --unshare-user --die-with-parent --new-session --cap-drop ALL
	--ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --tmpfs /sys/fs/cgroup --ro-bind "$CAT/doctor" $D
	$D --profile strict --format json -k "cgroup.devices or cgroup.readonly" --set expect.cgroup.devices=required)
run_json hidden in_cg "${hid[@]}"
is_status hidden cgroup.readonly skip
is_status hidden cgroup.devices skip
like "$(detail hidden cgroup.devices)" "no CAP_MKNOD" "cgroup.devices says why it cannot tell"

# cgroup.devices by action: root (CAP_MKNOD) with the devices list hidden
# by a tmpfs; ground truth: the same mknod c 1:0 and open by python3
devroot() { # CMD... in a mount namespace whose /sys/fs/cgroup is empty
	unshare -m sh -c 'mount -t tmpfs sp /sys/fs/cgroup && exec "$@"' sh "$@"
}
truth_open() { # errno name of an open of a fresh c 1:0 node under /tmp
	devroot python3 -c '
import os, errno, tempfile
d = tempfile.mkdtemp(); p = d + "/n"
try:
    os.mknod(p, 0o600 | 0o020000, os.makedev(1, 0))
except OSError as e:
    print("mknod", errno.errorcode[e.errno]); raise SystemExit
try:
    os.close(os.open(p, os.O_RDONLY | os.O_NONBLOCK)); print("open OK")
except OSError as e:
    print("open", errno.errorcode[e.errno])
finally:
    os.unlink(p); os.rmdir(d)'
}
DEVS=("$CAT/doctor" --profile strict --format json -k cgroup.devices --set expect.cgroup.devices=required)
# the test cgroup refuses mknod itself ('m' not granted)
is "$(in_cg sh -c "$(declare -f devroot truth_open); truth_open")" "mknod EPERM" "truth: the test cgroup refuses mknod c 1:0"
run_json act_mknod in_cg unshare -m sh -c 'mount -t tmpfs sp /sys/fs/cgroup && exec "$@"' sh "${DEVS[@]}"
is_status act_mknod cgroup.devices pass
like "$(detail act_mknod cgroup.devices)" "mknod c 1:0 .*EPERM" "judged by the refused mknod"
# mknod granted, open refused
echo 'c *:* m' >/sys/fs/cgroup/devices/$CG/devices.allow
is "$(in_cg sh -c "$(declare -f devroot truth_open); truth_open")" "open EPERM" "truth: the test cgroup refuses the open"
run_json act_open in_cg unshare -m sh -c 'mount -t tmpfs sp /sys/fs/cgroup && exec "$@"' sh "${DEVS[@]}"
is_status act_open cgroup.devices pass
like "$(detail act_open cgroup.devices)" "open: EPERM" "judged by the refused open"
# the host's devices cgroup ('a *:* rwm'): the open reaches the mem driver
is "$(truth_open)" "open ENXIO" "truth: outside the test cgroup the open reaches the driver"
run_json act_all devroot "${DEVS[@]}"
is_status act_all cgroup.devices fail
like "$(detail act_all cgroup.devices)" "ENXIO" "the driver's answer is named"
done_testing
