#!/usr/bin/env bash
# sandprobe fleet collect over real reports: this machine as a fleet node.
# A containerd of the test's own (tests/lib/engines.sh: own config, root,
# state, socket) runs the static doctor from an image the test builds and
# imports (`ctr images import`), once per runtime handler, as a kubelet would
# for two RuntimeClasses: runc (io.containerd.runc.v2) and runsc (the same
# shim with gVisor as its runc binary, --network=none --ignore-cgroups:
# Debian ships no containerd-shim-runsc-v1). Each task gets the environment
# the rendered Job gives the doctor (SP_FLEET_CELL, SP_FLEET_NODE_NAME =
# spec.nodeName). The plan has both classes on this node and on a second
# node that never reports.
# Asserted: one row per plan cell, none lost or invented; each row's
# verdicts are its report's (check by check); the rows are placed by what the
# reports say, not by their file names; gVisor's row shows gVisor's kernel,
# with `uname -r` run in the same image under each handler as ground truth;
# the missing cells are named and fail the run; the same from `kubectl logs
# --prefix`-shaped output with pods interleaved and kubectl's own lines; the
# JSON against docs/schema/live.schema.json, the JUnit against junit.xsd.
# Malformed input (a report cut short, another schema, a second report for a
# cell, a cell the plan lacks): exit 2, one line naming the file (and line),
# no output file.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/engines.sh"
need jq
need containerd "containerd not installed (Debian package containerd)"
need ctr
need runc
need containerd-shim-runc-v2
need runsc "runsc (gVisor) not installed"
need_root
need_lane_doctor
[ -x /bin/busybox ] || skip_all "/bin/busybox (busybox-static) missing"
T=$(sp_tmpdir)

# ---- the image: the static doctor and busybox (for the ground truth's uname)
mkdir -p "$T/root/bin" "$T/root/tmp" "$T/root/etc" "$T/img"
cp "$DOCTOR" "$T/root/sandprobe-doctor"
cp /bin/busybox "$T/root/bin/busybox"
ln -s busybox "$T/root/bin/sh"
ln -s busybox "$T/root/bin/uname"
tar -C "$T/root" -cf "$T/img/layer.tar" .
diff_id=$(sha256sum "$T/img/layer.tar" | cut -d' ' -f1)
IMG=sandprobe.test/fleet-doctor:$$
printf '{"architecture":"amd64","os":"linux","config":{"Env":["PATH=/bin"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}\n' \
	"$diff_id" >"$T/img/config.json"
printf '[{"Config":"config.json","RepoTags":["%s"],"Layers":["layer.tar"]}]\n' "$IMG" >"$T/img/manifest.json"
tar -C "$T/img" -cf "$T/image.tar" manifest.json config.json layer.tar

sp_containerd_start || skip_all "the private containerd did not start"
NS=sp-fleet-$$
C() { timeout 60 ctr --address "$CONTAINERD_ADDRESS" -n "$NS" "$@" </dev/null; }
C images import "$T/image.tar" >"$T/import.out" 2>&1
is "$?" 0 "ctr images import of the test's image"
sp_runsc_wrapper "$T/runsc-wrap"
# the two handlers, as RuntimeClass runc and runsc name them
handler() { # CLASS: ctr run options
	case $1 in
	runc) echo "--runtime io.containerd.runc.v2" ;;
	runsc) echo "--runtime io.containerd.runc.v2 --runc-binary $T/runsc-wrap" ;;
	esac
}
NODE=$(uname -n)
pids=
HOST_KERNEL=$(uname -r)
for cls in runc runsc; do
	# shellcheck disable=SC2046
	C run --rm $(handler $cls) "$IMG" "sp-fleet-$$-u-$cls" /bin/uname -r >"$T/uname.$cls" 2>&1 &
	pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids # (not a bare wait: the containerd is a child of this shell too)
pids=
for cls in runc runsc; do
	# the report files' names say nothing of their cells (collect must read the cell from the report)
	name=$([ $cls = runc ] && echo b || echo a)
	# shellcheck disable=SC2046
	C run --rm $(handler $cls) --env SP_FLEET_CELL="this/$cls" --env SP_FLEET_NODE_NAME="$NODE" "$IMG" "sp-fleet-$$-d-$cls" \
		/sandprobe-doctor --profile container --format json >"$T/$name.json" 2>"$T/$cls.err" &
	pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids
is "$(cat "$T/uname.runc")" "$HOST_KERNEL" "ground truth: uname -r under runc is the host's kernel"
GV_KERNEL=$(cat "$T/uname.runsc")
like "$GV_KERNEL" '^[0-9]+\.[0-9]+' "ground truth: uname -r under runsc answers ($GV_KERNEL)"
isnt "$GV_KERNEL" "$HOST_KERNEL" "ground truth: gVisor's kernel is not the host's"
for f in a b; do
	is "$(jq -r .schema "$T/$f.json" 2>/dev/null)" sandprobe.doctor.v1 "the doctor's report $f.json is a doctor report" ||
		sed 's/^/# /' "$T/runc.err" "$T/runsc.err" | head -20
done
mkdir "$T/reports"
cp "$T/a.json" "$T/b.json" "$T/reports/"

cat >"$T/plan.yaml" <<EOF
name: t
namespace: sandprobe
image: $IMG
runtime_classes: [runc, runsc]
nodes:
  - id: this
    node_name: $NODE
  - id: other
    node_name: other.example
EOF

# ---- the reports as files
"$SP_BIN" fleet collect --plan "$T/plan.yaml" --format json -o "$T/m.json" "$T/reports" 2>"$T/err"
is "$?" 1 "collect exits 1: two cells never reported"
is "$(jq -r '.lanes[] | "\(.fleet.node)/\(.runtime)=\(.variant)/\(.fleet.runtime_class)"' "$T/m.json" | paste -sd' ')" \
	"this/runc=this/runc this/runsc=this/runsc other/runc=other/runc other/runsc=other/runsc" \
	"one row per plan cell, in plan order: none lost, none invented"
is "$(jq -r '.lanes[] | "\(.fleet.cell):\(.fleet.reported):\(.status)"' "$T/m.json" | paste -sd' ')" \
	"this/runc:true:$(jq -r .result "$T/b.json") this/runsc:true:$(jq -r .result "$T/a.json") other/runc:false:error other/runsc:false:error" \
	"the two reported cells carry their report's result, the two others never reported"
is "$(grep -c 'never reported' "$T/err")" 2 "the missing cells are named on standard error"
like "$(cat "$T/err")" 'cell other/runc never reported' "... other/runc"
like "$(jq -r '.lanes[2].reason' "$T/m.json")" '^never reported: no report of cell other/runc \(Job sp-t-other-runc\)' \
	"a missing cell's row says it never reported, naming its Job"
is "$(jq -r .result "$T/m.json")" fail "the matrix fails: a missing cell is not a pass"
for pair in "this/runc b" "this/runsc a"; do
	set -- $pair
	want=$(jq -c '[.results[] | [.id, .status, .observed]]' "$T/$2.json")
	got=$(jq -c --arg c "$1" '[.lanes[] | select(.fleet.cell == $c) | .results[] | [.id, .status, .observed]]' "$T/m.json")
	TAP_NAME="$1: every check's verdict is its report's ($(jq '.results | length' "$T/$2.json") checks)" ok test "$got" = "$want"
	want=$(jq -r 'if .result == "pass" then "PASS" else "FAIL" end' "$T/$2.json")
	is "$(jq -r --arg c "$1" '.lanes[] | select(.fleet.cell == $c) | .verdict' "$T/m.json")" "$want" "$1: the row's verdict is its report's"
	is "$(jq -r --arg c "$1" '.lanes[] | select(.fleet.cell == $c) | .fleet.report' "$T/m.json")" "$T/reports/$2.json:1" \
		"$1: the row names its report"
done
is "$(jq -r '.lanes[] | select(.fleet.cell == "this/runsc") | .fleet.kernel' "$T/m.json")" "$GV_KERNEL" \
	"gVisor's row shows gVisor's kernel (uname -r under runsc)"
is "$(jq -r '.lanes[] | select(.fleet.cell == "this/runc") | .fleet.kernel' "$T/m.json")" "$HOST_KERNEL" \
	"runc's row shows the host's kernel"
is "$(jq -r '.lanes[] | select(.fleet.cell == "this/runsc") | .kernel_boundary.kind' "$T/m.json")" "user-space" \
	"gVisor's row: the doctor's kernel boundary is user-space"
is "$(jq -r '[.lanes[] | select(.fleet.reported) | .fleet.node_name] | unique | join(",")' "$T/m.json")" "$NODE" \
	"the reported rows name the node that ran them"
if python3 -c 'import jsonschema' 2>/dev/null; then
	TAP_NAME="the matrix is a sandprobe.live.v1 document (live.schema.json)" ok python3 -c '
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' "$SP_ROOT/docs/schema/live.schema.json" "$T/m.json"
else
	skip "python3-jsonschema not installed"
fi

# ---- the same as kubectl logs --prefix output: pods interleaved, kubectl's own lines between
{
	echo 'Found 4 pods, using pod/sp-t-this-runc-7xk2p'
	paste -d '\n' <(sed 's|^|[pod/sp-t-this-runc-7xk2p/doctor] |' "$T/b.json") \
		<(sed 's|^|[pod/sp-t-this-runsc-q9v4d/doctor] |' "$T/a.json") | grep -v '^$'
	echo 'error: container "doctor" in pod "sp-t-other-runc-aaaaa" is waiting to start: ContainerCreating'
} >"$T/pods.log"
"$SP_BIN" fleet collect --plan "$T/plan.yaml" --format json -o "$T/m2.json" - <"$T/pods.log" 2>/dev/null
is "$?" 1 "kubectl logs --prefix output on standard input: exit 1"
is "$(jq -c '[.lanes[] | [.fleet.cell, .status, [.results[] | [.id, .status]]]]' "$T/m2.json")" \
	"$(jq -c '[.lanes[] | [.fleet.cell, .status, [.results[] | [.id, .status]]]]' "$T/m.json")" \
	"the same rows and verdicts as from the files"
is "$(jq -r '[.lanes[] | .fleet.pod // "-"] | join(" ")' "$T/m2.json")" "sp-t-this-runc-7xk2p sp-t-this-runsc-q9v4d - -" \
	"each row names its pod"
# a pod of one cell's Job carrying another cell's report
sed 's|sp-t-this-runsc-q9v4d|sp-t-this-runc-zzzzz|' "$T/pods.log" >"$T/swapped.log"
out=$("$SP_BIN" fleet collect --plan "$T/plan.yaml" -o "$T/m3.json" "$T/swapped.log" 2>&1)
is "$?" 2 "a report in another cell's pod: exit 2"
like "$out" "^sandprobe: $T/swapped.log:3: cell this/runsc: pod sp-t-this-runc-zzzzz is not a pod of its Job sp-t-this-runsc$" \
	"... one line naming the file, line, cell and pod"
ok test ! -e "$T/m3.json"

# ---- JUnit and HTML from the same reports
"$SP_BIN" fleet collect --plan "$T/plan.yaml" --format junit -o "$T/m.xml" "$T/reports" 2>/dev/null
is "$?" 1 "junit: exit 1"
if command -v xmllint >/dev/null 2>&1; then
	TAP_NAME="the JUnit is valid against junit.xsd" ok xmllint --noout --schema "$SP_ROOT/docs/schema/junit.xsd" "$T/m.xml"
else
	skip "xmllint not installed"
fi
is "$(grep -o '<testsuite name="[^"]*"' "$T/m.xml" | paste -sd' ')" \
	'<testsuite name="fleet.runc.this" <testsuite name="fleet.runsc.this" <testsuite name="fleet.runc.other" <testsuite name="fleet.runsc.other"' \
	"one JUnit suite per cell"
like "$(tr '\n' ' ' <"$T/m.xml")" 'testsuite name="fleet.runc.other"[^>]*errors="1".*never reported' "a missing cell is a JUnit error naming it"
"$SP_BIN" fleet collect --plan "$T/plan.yaml" --format html -o "$T/m.html" "$T/reports" 2>/dev/null
is "$(grep -c 'never reported: no report of cell' "$T/m.html")" 2 "html: the two missing cells say so"

# ---- malformed input: exit 2, one line naming the file, nothing written
bad() { # NAME WANT-REGEX FILE...
	local name=$1 want=$2 out rc
	shift 2
	out=$("$SP_BIN" fleet collect --plan "$T/plan.yaml" --format json -o "$T/bad.out" "$@" 2>&1)
	rc=$?
	is "$rc" 2 "$name: exit 2"
	like "$out" "$want" "$name: one line naming the file"
	is "$(printf '%s\n' "$out" | wc -l)" 1 "$name: one line"
	ok test ! -e "$T/bad.out"
}
mkdir "$T/cut"
cp "$T/b.json" "$T/cut/b.json"
head -c "$(($(stat -c %s "$T/a.json") / 2))" "$T/a.json" >"$T/cut/a.json"
bad "a report cut short" "^sandprobe: $T/cut/a.json:1: the report starting here never ends" "$T/cut"
jq '.schema = "sandprobe.live.v1"' "$T/a.json" >"$T/other-schema.json"
bad "another schema" "^sandprobe: $T/other-schema.json:1: not a doctor report \(schema 'sandprobe.live.v1'" "$T/reports/b.json" "$T/other-schema.json"
cp "$T/b.json" "$T/again.json"
bad "a second report for a cell" "^sandprobe: $T/again.json:1: a second report for cell this/runc \(the first: $T/reports/b.json:1\)$" \
	"$T/reports" "$T/again.json"
jq '.environment.fleet.cell = "this/kata"' "$T/a.json" >"$T/kata.json"
bad "a cell the plan lacks" "^sandprobe: $T/kata.json:1: cell 'this/kata' is not in plan t \(no such RuntimeClass\)$" "$T/kata.json"
jq '.environment.fleet.node_name = "elsewhere"' "$T/a.json" >"$T/elsewhere.json"
bad "a report from another node" "^sandprobe: $T/elsewhere.json:1: cell this/runsc: the report ran on node 'elsewhere', the plan pins node '$NODE'$" \
	"$T/elsewhere.json"
sed '2s/,$//' "$T/a.json" >"$T/syntax.json"
bad "not valid JSON" "^sandprobe: $T/syntax.json:3: the report starting at line 1 is not valid JSON" "$T/syntax.json"
done_testing
