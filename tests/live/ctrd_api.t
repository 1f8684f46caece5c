#!/usr/bin/env bash
# containerd's own API (gRPC on its socket), as the containerd and docker
# lanes ask it for their teardown proof, judged against ctr on this test's own
# containerd: the containers, tasks and snapshots of a namespace listed by the
# API are those ctr lists (a created container, a running task, a prepared
# snapshot; then none once removed); a namespace containerd refuses and a
# socket nobody serves are errors naming why, never an empty list. A lane's
# proof says it asked the API, and a snapshot left in the lane's namespace
# (by a ctr that prepares one beside its run) FAILS it, naming the snapshot
# ctr itself lists.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/engines.sh"
need_root
for t in jq ctr containerd runc; do need "$t"; done
T=$SP_BUILD/tests/unit/test_ctrd
[ -x "$T" ] || skip_all "$T not built (make tests)"
need_lane_doctor
tmp=$(sp_tmpdir)
export SP_LIVE_TMPDIR=$tmp/lanes
mkdir -p "$SP_LIVE_TMPDIR" "$tmp/bin"
sp_containerd_start >"$tmp/ctd.err" 2>&1 || skip_all "containerd did not start: $(tail -1 "$tmp/ctd.err")"
A=$CONTAINERD_ADDRESS NS=sp-api-$$
sp_busybox_rootfs "$tmp/rootfs"
api() { SP_T_CTRD="$A $1" "$T" | sort; }
byctr() { # the same lines from ctr
	{ ctr -n "$1" containers ls -q | sed 's/^/container /'
	  ctr -n "$1" tasks ls -q | sed 's/^/task /'
	  ctr -n "$1" snapshots ls | awk 'NR > 1 { print "snapshot " $1 }'; } | sort
}
is "$(api "$NS")" "" "an empty namespace: the API lists nothing"
ctr -n "$NS" run -d --cgroup "" --rootfs "$tmp/rootfs" run1 /bin/sleep 30 >/dev/null 2>&1
ctr -n "$NS" snapshots prepare snap1 >/dev/null 2>&1
ctr -n "$NS" snapshots prepare snap2 >/dev/null 2>&1
want=$(byctr "$NS")
like "$want" 'container run1' "ground truth: ctr lists the container"
like "$want" 'task run1' "ground truth: ctr lists its task"
like "$want" 'snapshot snap2' "ground truth: ctr lists the snapshots"
# the API lists a task by its container and its process id (both run1): one line each way
is "$(api "$NS" | uniq)" "$want" "the API lists what ctr lists: container, task, snapshots"
h=$(SP_T_CTRD_HOLDS="$A $NS snap2" "$T")
is "$(sed -n 1p <<<"$h")" 1 "holds: a snapshot carrying the id is something left"
is "$(sed -n 2p <<<"$h")" "containerd still lists snapshot snap2 in namespace $NS" "holds: it names it"
is "$(sed -n 3p <<<"$h")" "containerd's API" "holds: asked on the API"
ctr -n "$NS" tasks kill -s KILL run1 >/dev/null 2>&1
for i in $(seq 1 50); do ctr -n "$NS" tasks delete run1 >/dev/null 2>&1 && break; sleep 0.1; done
ctr -n "$NS" containers rm run1 >/dev/null 2>&1
ctr -n "$NS" snapshots rm snap1 snap2 >/dev/null 2>&1
is "$(byctr "$NS")" "" "ground truth: ctr lists nothing once removed"
is "$(api "$NS")" "" "and neither does the API"
is "$(SP_T_CTRD_HOLDS="$A $NS run1" "$T" | head -1)" 0 "holds: nothing carrying the id"
like "$(SP_T_CTRD="$A /bad" "$T")" '^error container .*gRPC status 3: namespace validation' "a namespace containerd refuses: its gRPC error, not an empty list"
like "$(SP_T_CTRD="$tmp/nosock $NS" "$T")" "^error container cannot connect to containerd at $tmp/nosock" "no socket: an error naming it"
h=$(SP_T_CTRD_HOLDS="$tmp/nosock $NS x" "$T")
is "$(sed -n 1p <<<"$h")" -1 "holds with no containerd: cannot tell"
like "$(sed -n 3p <<<"$h")" "^ctr \\(containerd's API: cannot connect" "holds: it tried ctr after the API, and says why"
like "$(sed -n 2p <<<"$h")" '^ctr containers ls fails' "holds: ctr's failure is the answer"
ctr namespaces remove "$NS" >/dev/null 2>&1

# --- lanes ------------------------------------------------------------------------
"$SP_BIN" live --runtime containerd-runc --doctor "$DOCTOR" --format json -o "$tmp/plain.json" 2>"$tmp/plain.err"
res() { jq -r --arg i "$2" '.lanes[0].results[] | select(.id == $i) | .status + " " + .observed' "$tmp/$1.json"; }
is "$(jq -r '.lanes[0].status' "$tmp/plain.json")" pass "a containerd-runc lane passes"
like "$(res plain host.teardown)" "lists no container, task or snapshot of $(jq -r '.lanes[0].name' "$tmp/plain.json") \\(containerd's API\\)" \
	"its teardown proof asked containerd's API"
real=$(command -v ctr)
cat >"$tmp/bin/ctr" <<EOF2
#!/bin/bash
# ctr in front of the real one: a run also prepares a snapshot named after its container, left behind
a=("\$@") ns= addr=
for ((i = 0; i < \${#a[@]}; i++)); do
	case \${a[i]} in --namespace) ns=\${a[i+1]} ;; --address) addr=\${a[i+1]} ;; run) sub=run ;; esac
done
if [ "\${sub:-}" = run ]; then
	"$real" --address "\$addr" --namespace "\$ns" snapshots prepare "\${a[-1]}-ghost" >/dev/null 2>&1
	echo "\$ns \${a[-1]}-ghost" >"$tmp/ghost"
fi
exec "$real" "\$@"
EOF2
chmod +x "$tmp/bin/ctr"
PATH="$tmp/bin:$PATH" "$SP_BIN" live --runtime containerd-runc --doctor "$DOCTOR" --format json -o "$tmp/ghost.json" 2>"$tmp/ghost.err"
read -r gns gname <"$tmp/ghost"
like "$(ctr -n "$gns" snapshots ls)" "$gname" "ground truth: ctr lists the snapshot left in the lane's namespace"
like "$(res ghost host.teardown)" "^fail .*containerd still lists snapshot $gname in namespace $gns" "a snapshot left: the teardown proof FAILS, naming it"
is "$(jq -r '.lanes[0].status' "$tmp/ghost.json")" fail "and the lane fails"
ctr -n "$gns" snapshots rm "$gname" >/dev/null 2>&1
ctr namespaces remove "$gns" >/dev/null 2>&1
is "$(ctr namespaces ls -q | grep -c '^sandprobe-')" 0 "no lane namespace is left in this containerd"
done_testing
