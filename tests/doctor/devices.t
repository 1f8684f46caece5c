#!/usr/bin/env bash
# Devices. Passing sandbox: the strict box (bwrap --dev: null, zero, full,
# random, urandom, tty, ptmx; no capabilities; new session). Failing
# sandboxes: real root with the host's /dev bind-mounted in (host devices and
# block devices open), a /dev without the allowlisted nodes, root with a
# scratch mount that allows devices (mknod works and the node opens), and a
# process that shares its controlling terminal (TIOCSTI injection possible).
. "$(dirname "$0")/lib.sh"
need script

run_json strict strict_box -- -k devices
for id in dev.host_devices dev.allowlist dev.mknod dev.block_devices dev.tiocsti; do is_status strict $id pass; done

run_json hostdev root_box --dev-bind /dev /dev -- -k 'dev.host_devices or dev.block_devices'
is_status hostdev dev.host_devices fail
if ls /dev | grep -qE '^(vd|sd|nvme|loop[0-9])'; then
	is_status hostdev dev.block_devices fail
else
	skip "this host has no block device node"
fi

run_json nodev strict_box --tmpfs /dev -- -k dev.allowlist
is_status nodev dev.allowlist fail

mkdir -p "$CAT/m"
run_json mknod unshare --mount --propagation private sh -c 'mount -t tmpfs -o dev tmpfs "$1/m" &&
	"$1/doctor" --profile strict --format json -k dev.mknod --set "fs.writable=$1/m"' sh "$CAT"
is_status mknod dev.mknod fail
# nowhere writable among the places the probe tries: mknod is never tried, so no pass
# (ground truth: touch in each of them is refused in the same box)
ro_box() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- bwrap --unshare-all --unshare-user --die-with-parent \
		--cap-drop ALL --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$CAT/doctor" $D \
		--remount-ro /tmp --remount-ro /dev "$@"
}
is "$(ro_box sh -c 'n=0; for d in /tmp /dev/shm /var/tmp /run; do touch $d/.sp 2>/dev/null && n=$((n + 1)); done; echo $n')" 0 \
	"truth: no writable place in the read-only box"
run_json rombox ro_box $D --profile strict --format json -k dev.mknod
is_status rombox dev.mknod skip

# a controlling terminal shared with the caller (script gives the doctor a pty)
script -qec "'$CAT/doctor' --profile strict --format json -k dev.tiocsti --output '$CAT/tty.json'" /dev/null >/dev/null
if [ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)" = 1 ]; then
	is_status tty dev.tiocsti fail
else
	is_status tty dev.tiocsti pass
fi

# a /dev the sandbox cannot list (mode 000; ground truth: ls refused) is no pass
like "$(setpriv --reuid=65534 --regid=65534 --clear-groups -- bwrap --unshare-all --die-with-parent --ro-bind / / \
	--proc /proc --tmpfs /dev --chmod 0000 /dev ls /dev 2>&1)" "Permission denied" "ground truth: /dev cannot be listed"
run_json devlocked setpriv --reuid=65534 --regid=65534 --clear-groups -- bwrap --unshare-all --die-with-parent \
	--ro-bind / / --proc /proc --tmpfs /dev --chmod 0000 /dev --tmpfs /tmp --ro-bind "$CAT/doctor" $D \
	$D --profile strict --format json -k dev.host_devices
is_status devlocked dev.host_devices error
done_testing
