#!/usr/bin/env bash
# fs.mount_facts: declared mounts (type, ro/rw) in bwrap boxes this test
# builds (--ro-bind / / with a --tmpfs /mnt); ground truth:
# findmnt and a shell write inside the same kind of box.
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
done_testing
