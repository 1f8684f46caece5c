#!/usr/bin/env bash
# fs.mount_facts: declared mounts (type, ro/rw) in bwrap boxes this test
# builds (--ro-bind / / with a --tmpfs /mnt); ground truth:
# findmnt and a shell write inside the same kind of box. Then mount options
# on tmpfs mounts of the test's own, and read-only loop devices.
. "$(dirname "$0")/../lib/tap.sh"
need_root
need bwrap
need jq
need findmnt
[ -d /mnt ] || skip_na "no /mnt to mount a tmpfs on"
box() { bwrap --die-with-parent --unshare-pid --proc /proc --dev /dev "$@"; }
ro=(--ro-bind / / --tmpfs /mnt)
rtype=$(box "${ro[@]}" findmnt -no FSTYPE /)
[ -n "$rtype" ] || { echo "Bail out! findmnt saw no root type"; exit 1; }
like "$(box "${ro[@]}" findmnt -no OPTIONS /)" '^ro' "findmnt: / is ro in the ro box"
box "${ro[@]}" sh -c ': >/.sp-mf-probe' 2>/dev/null
isnt "$?" 0 "shell: writing / fails in the ro box"
is "$(box "${ro[@]}" findmnt -no FSTYPE /mnt)" tmpfs "findmnt: /mnt is tmpfs"
d() { box "$@" -- "$SP_DOCTOR" --format json -k fs.mount_facts "${DARGS[@]}"; }
st() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | .status'; }
obs() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | .observed'; }
DARGS=(--set "fs.mounts=/=$rtype:ro,/mnt=tmpfs:rw")
rep=$(d "${ro[@]}")
is "$(st fs.mount_facts "$rep")" pass "ro root and rw tmpfs /mnt as declared: pass"
like "$(obs fs.mount_facts "$rep")" "/: $rtype ro, write: EROFS" "the ro root refused the write with EROFS"
like "$(obs fs.mount_facts "$rep")" "/mnt: tmpfs rw, write: create\\+unlink worked" "the tmpfs took a create and unlink"
DARGS=(--set "fs.mounts=/=$rtype:ro:exec")
rep=$(d "${ro[@]}")
is "$(st fs.mount_facts "$rep")" pass "the ro root declared exec: pass"
like "$(obs fs.mount_facts "$rep")" 'noexec NOT set by action \(access\([^,]*, X_OK\): allowed' \
	"on the ro root, exec proven by access(X_OK) of an executable there"
DARGS=(--set "fs.mounts=/mnt=tmpfs:ro")
rep=$(d "${ro[@]}")
is "$(st fs.mount_facts "$rep")" fail "a writable tmpfs declared ro: fail"
like "$(obs fs.mount_facts "$rep")" '/mnt: tmpfs rw, write: create\+unlink worked' "the write that worked is named"
DARGS=(--set "fs.mounts=/mnt=ext4:rw")
rep=$(d "${ro[@]}")
is "$(st fs.mount_facts "$rep")" fail "tmpfs declared ext4: fail"
DARGS=(--set "fs.mounts=/nonexistent-mount=tmpfs:rw")
rep=$(d "${ro[@]}")
is "$(st fs.mount_facts "$rep")" fail "a path that is no mount point: fail"
like "$(obs fs.mount_facts "$rep")" 'not a mount point' "the missing mount is named"
DARGS=()
rep=$(d "${ro[@]}")
is "$(st fs.mount_facts "$rep")" skip "nothing declared: skip"
out=$("$SP_DOCTOR" -k fs.mount_facts --set 'fs.mounts=/w=tmpfs:rx' 2>&1); rc=$?
is "$rc" 2 "a bad mode is a usage error"
like "$out" 'fs\.mounts' "the error names the key"

# --- options beyond ro/rw: tmpfs mounts this test makes in its own mount
# namespace (unshare -m): good = noexec,nosuid,nodev,size=16m,mode=1777,
# weak = size=8m (exec, suid, dev allowed), nosu = nosuid alone (on good,
# noexec keeps the set-user-ID probe from running: nosuid by mountinfo). Ground truth: findmnt and the
# operations themselves (exec a copy of true, a set-user-ID copy of id, a
# mem null node opened), all without the doctor.
need unshare
need mknod
T=$(sp_tmpdir)
G=$T/good W=$T/weak N=$T/nosu R=$T/rox
mkdir -p "$G" "$W" "$N" "$R"
# R: a read-only noexec tmpfs holding a copy of true (made before the remount)
gt() {
	unshare -m --propagation private sh -c 'mount -t tmpfs -o noexec,nosuid,nodev,size=16m,mode=1777 sp-good "$1" &&
		mount -t tmpfs -o size=8m sp-weak "$2" && mount -t tmpfs -o nosuid,size=4m sp-nosu "$3" &&
		mount -t tmpfs -o noexec,size=4m sp-rox "$4" && cp /bin/true "$4/t" && mount -o remount,ro "$4" &&
		shift 4 && exec "$@"' sh "$G" "$W" "$N" "$R" "$@"
}
like "$(gt findmnt -no OPTIONS "$G")" 'nosuid,nodev,noexec.*size=16384k.*mode=1777|nosuid.*nodev.*noexec.*size=16384k' \
	"findmnt: the good tmpfs is nosuid,nodev,noexec,size=16m"
unlike "$(gt findmnt -no OPTIONS "$W")" 'noexec|nosuid|nodev' "findmnt: the weak tmpfs has none of them"
gt sh -c 'cp /bin/true "$1/t" && "$1/t"' sh "$G" 2>/dev/null
isnt "$?" 0 "shell: a copy of true does not run on the good tmpfs"
gt sh -c 'cp /bin/true "$1/t" && "$1/t"' sh "$W"
is "$?" 0 "shell: a copy of true runs on the weak tmpfs"
is "$(gt sh -c 'cp /usr/bin/id "$1/id" && chown 65534 "$1/id" && chmod 4755 "$1/id" && "$1/id" -u' sh "$W")" 65534 \
	"shell: a set-user-ID id on the weak tmpfs runs as its owner"
is "$(gt sh -c 'cp /usr/bin/id "$1/id" && chown 65534 "$1/id" && chmod 4755 "$1/id" && "$1/id" -u' sh "$N")" 0 \
	"shell: a set-user-ID id on the nosuid tmpfs runs as root"
gt sh -c 'mknod "$1/n" c 1 3 && head -c0 "$1/n"' sh "$G" 2>/dev/null
isnt "$?" 0 "shell: a null node on the good tmpfs does not open"
gt sh -c 'mknod "$1/n" c 1 3 && head -c0 "$1/n"' sh "$W"
is "$?" 0 "shell: a null node on the weak tmpfs opens"
gd() { gt "$SP_DOCTOR" --format json -k fs.mount_facts --set "fs.mounts=$1"; }
opts=noexec:nosuid:nodev:size=16m:mode=1777
rep=$(gd "$G=tmpfs:rw:$opts")
is "$(st fs.mount_facts "$rep")" pass "the good tmpfs has its declared options: pass"
o=$(obs fs.mount_facts "$rep")
like "$o" 'noexec set by action \(exec: EACCES' "noexec proven by an exec refused"
like "$o" 'nosuid set by mountinfo \(no action possible: the set-user-ID probe did not run \(EACCES\)' \
	"nosuid on a noexec mount: by mountinfo, and observed says so"
like "$o" 'nodev set by action \(open [^ ]* \(char 1:3, made\): EACCES' "nodev proven by a refused open"
like "$o" 'size=16m: statfs says 16777216 bytes' "size proven by statfs"
like "$o" 'mode=1777: stat says 1777' "mode proven by stat"
rep=$(gd "$W=tmpfs:rw:$opts")
is "$(st fs.mount_facts "$rep")" fail "the weak tmpfs declared with them: fail"
o=$(obs fs.mount_facts "$rep")
like "$o" 'noexec NOT set by action \(exec: ENOEXEC' "the exec the kernel allowed is named"
like "$o" 'nosuid NOT set by action \(a set-user-ID file of uid 65534 ran with euid byte 254' "the raised euid is named"
like "$o" 'nodev NOT set by action \(open [^ ]* \(char 1:3, made\): opened' "the device that opened is named"
like "$o" 'size=16m: statfs says 8388608 bytes' "the other size is named"
gt "$R/t" 2>/dev/null
isnt "$?" 0 "shell: the true on the read-only noexec tmpfs does not run"
rep=$(gd "$R=tmpfs:ro:noexec")
is "$(st fs.mount_facts "$rep")" pass "a read-only noexec tmpfs declared noexec: pass"
like "$(obs fs.mount_facts "$rep")" "noexec set by action \\(access\\($R/t, X_OK\\): EACCES" \
	"on a mount it cannot write, noexec proven by access(X_OK) of a file there"
rep=$(gd "$R=tmpfs:ro:exec")
is "$(st fs.mount_facts "$rep")" fail "the same declared exec: fail"
rep=$(gd "$N=tmpfs:rw:nosuid")
is "$(st fs.mount_facts "$rep")" pass "the nosuid tmpfs declared nosuid: pass"
like "$(obs fs.mount_facts "$rep")" 'nosuid set by action \(a set-user-ID file of uid 65534 ran with euid byte 0' \
	"nosuid proven by the probe's euid"
rep=$(gd "$W=tmpfs:rw:exec:suid:dev:size=8m")
is "$(st fs.mount_facts "$rep")" pass "the weak tmpfs declared exec, suid, dev, size=8m: pass"
rep=$(gd "$G=tmpfs:rw:exec")
is "$(st fs.mount_facts "$rep")" fail "the good tmpfs declared exec: fail"
rep=$(gd "$W=tmpfs:rw:huge")
is "$(st fs.mount_facts "$rep")" fail "an option mountinfo does not have: fail"
like "$(obs fs.mount_facts "$rep")" 'huge ABSENT by mountinfo' "the missing option is named, and how it was judged"
rep=$(gd "$G=tmpfs:rw:size=16m:mode=1777:inode64")
like "$(st fs.mount_facts "$rep")" 'pass|fail' "a mountinfo-only option is judged (inode64 where the kernel shows it)"
is "$(st fs.mount_facts "$rep")" "$(gt findmnt -no OPTIONS "$G" | grep -q inode64 && echo pass || echo fail)" \
	"the mountinfo-only verdict agrees with findmnt"

# --- block devices: loop devices over images in the test's tmp dir,
# detached at exit, seen inside bwrap boxes. Ground truth: sysfs, blockdev
# --getro and a zero-byte write from python on the host.
need losetup
need blockdev
truncate -s 1M "$T/ro.img" "$T/rw.img"
LR=$(losetup -f --show -r "$T/ro.img") || { echo "Bail out! losetup -r failed"; exit 1; }
at_exit "losetup -d '$LR'"
LW=$(losetup -f --show "$T/rw.img") || { echo "Bail out! losetup failed"; exit 1; }
at_exit "losetup -d '$LW'"
nr=${LR#/dev/} nw=${LW#/dev/}
is "$(cat "/sys/class/block/$nr/ro") $(blockdev --getro "$LR")" "1 1" "sysfs and BLKROGET: $nr is read-only"
is "$(cat "/sys/class/block/$nw/ro") $(blockdev --getro "$LW")" "0 0" "sysfs and BLKROGET: $nw is writable"
w0() { python3 -c 'import os,sys
fd=os.open(sys.argv[1], os.O_RDWR)
try: os.write(fd, b""); print("accepted")
except OSError as e: print(e.errno)' "$1"; }
is "$(w0 "$LR")" 1 "python: a zero-byte write to $nr is refused with EPERM"
is "$(w0 "$LW")" accepted "python: a zero-byte write to $nw is accepted"
bd() { box --ro-bind / / --dev /dev --dev-bind "$LR" "$LR" --dev-bind "$LW" "$LW" -- "$SP_DOCTOR" --format json -k fs.mount_facts \
	--set "fs.block_ro=$1"; }
rep=$(bd "$nr")
is "$(st fs.mount_facts "$rep")" pass "a read-only loop device declared read-only: pass"
like "$(obs fs.mount_facts "$rep")" "$nr: sysfs ro=1, BLKROGET 1, open\\(O_RDWR\\).*(EACCES|EROFS|EPERM) \\(by action\\)" \
	"the kernel's refusal is named"
rep=$(bd "$nw")
is "$(st fs.mount_facts "$rep")" fail "a writable loop device declared read-only: fail"
like "$(obs fs.mount_facts "$rep")" "$nw: sysfs ro=0, BLKROGET 0, open\\(O_RDWR\\) accepted, a write of 0 bytes: ACCEPTED" \
	"the accepted write is named"
rep=$(box --ro-bind / / --dev /dev -- "$SP_DOCTOR" --format json -k fs.mount_facts --set "fs.block_ro=$nr")
is "$(st fs.mount_facts "$rep")" pass "no node in the box: judged by sysfs"
like "$(obs fs.mount_facts "$rep")" "$nr: sysfs ro=1; by sysfs only: no block node" "observed says it was sysfs only"
# the host's /dev bound nodev (bwrap's --ro-bind): the node does not open, so
# its EACCES is no proof of read-only
rep=$(box --ro-bind / / -- "$SP_DOCTOR" --format json -k fs.mount_facts --set "fs.block_ro=$nr,$nw")
is "$(st fs.mount_facts "$rep")" fail "nodev /dev: the writable device still fails (sysfs ro=0)"
like "$(obs fs.mount_facts "$rep")" "$nw: sysfs ro=0; by sysfs only: /dev/$nw does not open for reading \(EACCES\)" \
	"a node that does not open is no action"
rep=$(bd sp-no-such-dev0)
is "$(st fs.mount_facts "$rep")" fail "a declared device that does not exist: fail"
cmp -s "$T/rw.img" <(head -c 1048576 /dev/zero)
is "$?" 0 "the writable image is still all zeros: nothing was written"
out=$("$SP_DOCTOR" -k fs.mount_facts --set 'fs.block_ro=../sda' 2>&1); rc=$?
is "$rc" 2 "a bad device name is a usage error"
done_testing
