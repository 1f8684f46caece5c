#!/usr/bin/env bash
# The qemu lane's shared workspace (--workspace DIR): DIR is exported over
# virtio-9p, the lane's init mounts it at /workspace, and the doctor's ws.*
# checks judge it: a 9p mount, writes, an 8 MiB file, subdirectories,
# delete and recreate (ws.io), and nothing outside DIR reachable through it
# (ws.confined: the marker the lane puts beside DIR). Ground truth from the
# host: the files the guest left (ws.proof) are in DIR with the content the
# guest wrote, the test's own file beside DIR is untouched, the lane's
# marker is gone. Negative control: --workspace-export-parent exports DIR's
# parent, and ws.confined must fail naming the marker. The two lanes boot at
# the same time (one TCG guest each) to keep the file's time to one boot.
. "$(dirname "$0")/../lib/tap.sh"
need_root
need qemu-system-x86_64 "qemu not installed (package qemu-system-x86)"
need jq
need python3
ls /boot/vmlinuz-* >/dev/null 2>&1 || skip_all "no kernel in /boot (apt-get install linux-image-amd64)"
need_lane_doctor
tmp=$(sp_tmpdir)

# usage errors change nothing
"$SP_BIN" live --runtime qemu --doctor "$DOCTOR" --workspace-export-parent >/dev/null 2>"$tmp/e1"
is "$?" 2 "--workspace-export-parent without --workspace: usage error"
"$SP_BIN" live --runtime qemu --doctor "$DOCTOR" --workspace "$tmp/none" >/dev/null 2>"$tmp/e2"
is "$?" 2 "--workspace that does not exist: usage error"
like "$(cat "$tmp/e2")" "--workspace $tmp/none: No such file" "the error names the directory"

mkdir -p "$tmp/a/ws" "$tmp/b/ws"
for d in a b; do
	head -c 64 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$tmp/$d/host-secret"
	cp "$tmp/$d/host-secret" "$tmp/$d.secret.orig"
	touch -d '2001-01-01' "$tmp/$d/host-secret"
done
echo "left by the host" >"$tmp/a/ws/from-host"

"$SP_BIN" live --runtime qemu --accel tcg --doctor "$DOCTOR" --workspace "$tmp/a/ws" \
	--set ws.proof=/workspace/proof --format json -o "$tmp/pass.json" 2>"$tmp/pass.err" &
p1=$!
"$SP_BIN" live --runtime qemu --accel tcg --doctor "$DOCTOR" --workspace "$tmp/b/ws" --workspace-export-parent \
	--format json -o "$tmp/neg.json" 2>"$tmp/neg.err" &
p2=$!
wait "$p1"
rc1=$?
wait "$p2"
rc2=$?

st() { jq -r --arg id "$2" '.lanes[0].results[] | select(.id == $id) | .status' "$1"; }
ob() { jq -r --arg id "$2" '.lanes[0].results[] | select(.id == $id) | .observed' "$1"; }

# --- the workspace as it should be
is "$rc1" 0 "strict qemu lane with a workspace passes (exit 0)" ||
	{ sed "s/^/# /" "$tmp/pass.err" | tail -3; jq -r '.lanes[0] | "# " + .reason, (.results[] | select(.status != "pass" and .status != "skip") | "# " + .id + " " + .status + " " + (.observed | tostring)[0:300])' "$tmp/pass.json"; }
is "$(st "$tmp/pass.json" ws.mount)" pass "ws.mount: pass"
like "$(ob "$tmp/pass.json" ws.mount)" "^/workspace: 9p from 'sandprobe-ws'.*trans=virtio" "the guest sees a virtio 9p mount"
is "$(st "$tmp/pass.json" ws.io)" pass "ws.io: pass"
is "$(st "$tmp/pass.json" ws.confined)" pass "ws.confined: pass"
like "$(ob "$tmp/pass.json" ws.confined)" "walked all [0-9]+ entries of /workspace" "the whole mount was walked"
like "$(jq -r '.lanes[0].launch' "$tmp/pass.json")" "9p workspace $tmp/a/ws\$" "the lane says what it exported"
like "$(jq -r '.lanes[0].command' "$tmp/pass.json")" "-fsdev local,id=ws,path=$tmp/a/ws,security_model=mapped-xattr" \
	"qemu exported the workspace itself, mapped-xattr"
# ground truth: what the guest wrote is in the host's directory
p=$tmp/a/ws/proof
is "$(cat "$p/small" 2>&1)" "sandprobe ws.io small" "host: the small file has the guest's content"
is "$(cat "$p/sub/a/b/file" 2>&1)" "sandprobe ws.io nested" "host: the nested subdirectory file is there"
is "$(cat "$p/recreated" 2>&1)" "sandprobe ws.io second, after delete" "host: the recreated file has the second content"
TAP_NAME="host: the deleted file is gone" ok test ! -e "$p/deleted"
is "$(python3 - "$p/large" <<'EOF'
import struct, sys
data = open(sys.argv[1], 'rb').read()
want = b''.join(struct.pack('<Q', k) + bytes([k & 0xff]) * 4088 for k in range(2048))
print('equal' if data == want else 'differs: %d bytes' % len(data))
EOF
)" equal "host: the 8 MiB file is byte for byte what the guest wrote"
is "$(cat "$tmp/a/ws/from-host")" "left by the host" "host: the host's own file in the workspace is unchanged"
# beside the workspace: untouched, and the lane's marker gone
TAP_NAME="host: the file beside the workspace is unchanged" ok cmp -s "$tmp/a/host-secret" "$tmp/a.secret.orig"
is "$(stat -c %Y "$tmp/a/host-secret")" "$(date -d 2001-01-01 +%s)" "host: ... and not even touched (mtime)"
is "$(find "$tmp/a" "$tmp/b" -maxdepth 1 -name '.sandprobe-outside-*' | wc -l)" 0 "the lanes' markers are removed"
like "$(ob "$tmp/pass.json" host.teardown)" "workspace marker .* removed" "teardown proves the marker gone"

# --- negative control: the parent exported
is "$rc2" 1 "the lane that exports the parent fails (exit 1)" ||
	{ sed "s/^/# /" "$tmp/neg.err" | tail -3; jq -r '.lanes[0] | "# " + .reason' "$tmp/neg.json"; }
is "$(st "$tmp/neg.json" ws.confined)" fail "ws.confined: fail when the parent is exported" ||
	jq -r '.lanes[0] | "# " + .reason, (.results[] | select(.status != "pass" and .status != "skip") | "# " + .id + " " + .status + " " + (.observed | tostring)[0:300])' "$tmp/neg.json"
like "$(ob "$tmp/neg.json" ws.confined)" "^/workspace/\\.sandprobe-outside-[0-9a-f]+ is in the workspace" \
	"it names the marker it reached"
is "$(st "$tmp/neg.json" ws.mount)" pass "ws.mount still passes (it is a 9p mount)"
like "$(jq -r '.lanes[0].command' "$tmp/neg.json")" "-fsdev local,id=ws,path=$tmp/b,security_model" "host: qemu was given the parent"
is "$(find "$tmp/b" -name '.sandprobe-*' | wc -l)" 0 "host: ws.io left nothing in the exported parent"
TAP_NAME="host: the parent's own file is unchanged" ok cmp -s "$tmp/b/host-secret" "$tmp/b.secret.orig"

is "$(for j in "$tmp"/*.json; do jq -r '.lanes[] | select(.dir) | .dir' "$j"; done | while read -r d; do [ -e "$d" ] && echo "$d"; done)" "" \
	"no lane temp dir left"
done_testing
