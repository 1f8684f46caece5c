#!/usr/bin/env bash
# sandprobe fleet render: a plan of 2 RuntimeClasses x 2 nodes becomes 4 Jobs
# whose fields (read back with a YAML parser, not with our own) are the
# cells' and the hardened pod's, and which `sandprobe lint` passes with no
# finding at all; a plan that asks for a root pod renders Jobs lint flags.
# Bad plans: one line "sandprobe: FILE:LINE: ..." naming the field, exit 2,
# nothing written.
. "$(dirname "$0")/../lib/tap.sh"
need python3
python3 -c 'import yaml' 2>/dev/null || skip_all "python3-yaml not installed"
T=$(sp_tmpdir)
cat >"$T/plan.yaml" <<'EOF2'
name: nightly
namespace: sandprobe
image: registry.example/sandprobe-doctor:0.1.0
profile: container
set: ["fs.writable=/tmp"]
ttl_seconds_after_finished: 900
resources:
  limits: {cpu: 250m, memory: 64Mi}
runtime_classes: [runc, gvisor]
nodes:
  - id: worker-1
    node_name: worker-1.example
  - id: pool-b
    node_selector:
      sandprobe.dev/pool: b
EOF2

"$SP_BIN" fleet render --plan "$T/plan.yaml" -o "$T/out"
is "$?" 0 "render exits 0"
is "$(cd "$T/out" && ls | tr '\n' ' ')" \
	"sp-nightly-pool-b-gvisor.yaml sp-nightly-pool-b-runc.yaml sp-nightly-worker-1-gvisor.yaml sp-nightly-worker-1-runc.yaml " \
	"one Job file per node x RuntimeClass"

# every field, read back by PyYAML
check=$(python3 - "$T/out" <<'PY'
import glob, os, sys, yaml
bad = []
cells = set()
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.yaml"))):
    docs = list(yaml.safe_load_all(open(f)))
    if len(docs) != 1:
        bad.append(f"{f}: {len(docs)} documents"); continue
    j = docs[0]
    node, rc = j["metadata"]["labels"]["sandprobe.dev/node"], j["metadata"]["labels"]["sandprobe.dev/runtime-class"]
    cells.add(f"{node}/{rc}")
    s = j["spec"]; ps = s["template"]["spec"]; c = ps["containers"][0]
    want = {
        "kind": (j["kind"], "Job"), "name": (j["metadata"]["name"], f"sp-nightly-{node}-{rc}"),
        "namespace": (j["metadata"]["namespace"], "sandprobe"),
        "pod labels": (s["template"]["metadata"]["labels"], j["metadata"]["labels"]),
        "ttl": (s["ttlSecondsAfterFinished"], 900), "backoff": (s["backoffLimit"], 0),
        "runtimeClassName": (ps["runtimeClassName"], rc),
        "automount": (ps["automountServiceAccountToken"], False),
        "restart": (ps["restartPolicy"], "Never"),
        "runAsNonRoot": (ps["securityContext"]["runAsNonRoot"], True),
        "runAsUser": (ps["securityContext"]["runAsUser"], 65534),
        "ape": (c["securityContext"]["allowPrivilegeEscalation"], False),
        "rorfs": (c["securityContext"]["readOnlyRootFilesystem"], True),
        "caps": (c["securityContext"]["capabilities"]["drop"], ["ALL"]),
        "limits": (c["resources"]["limits"], {"cpu": "250m", "memory": "64Mi"}),
        "requests": (c["resources"]["requests"], {"cpu": "100m", "memory": "32Mi"}),
        "args": (c["args"], ["--profile", "container", "--format", "json", "--set", "fs.writable=/tmp"]),
        "env": (c["env"], [{"name": "SP_FLEET_CELL", "value": f"{node}/{rc}"},
                           {"name": "SP_FLEET_NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}]),
        "image": (c["image"], "registry.example/sandprobe-doctor:0.1.0"),
    }
    if node == "worker-1":
        want["nodeName"] = (ps.get("nodeName"), "worker-1.example")
        want["no selector"] = ("nodeSelector" in ps, False)
    else:
        want["nodeSelector"] = (ps.get("nodeSelector"), {"sandprobe.dev/pool": "b"})
        want["no nodeName"] = ("nodeName" in ps, False)
    for k, (got, exp) in want.items():
        if got != exp:
            bad.append(f"{os.path.basename(f)}: {k}: {got!r} != {exp!r}")
print(" ".join(sorted(cells)))
print("\n".join(bad) or "ok")
PY
)
is "$(head -1 <<<"$check")" "pool-b/gvisor pool-b/runc worker-1/gvisor worker-1/runc" "the Jobs' labels name the 4 cells"
is "$(tail -n +2 <<<"$check")" ok "every Job's fields are the cell's and the hardened pod's"

out=$("$SP_BIN" lint "$T"/out/*.yaml 2>&1)
is "$?" 0 "sandprobe lint passes the rendered Jobs"
like "$out" 'RESULT: PASS -- 0 errors, 0 warnings, 0 notes in 4 files' "lint finds nothing at all in them"

# standard output: the same Jobs as one stream
"$SP_BIN" fleet render --plan "$T/plan.yaml" >"$T/stream.yaml"
is "$?" 0 "render to standard output exits 0"
is "$(python3 -c 'import sys, yaml; print(" ".join(d["metadata"]["name"] for d in yaml.safe_load_all(open(sys.argv[1]))))' "$T/stream.yaml")" \
	"sp-nightly-worker-1-runc sp-nightly-worker-1-gvisor sp-nightly-pool-b-runc sp-nightly-pool-b-gvisor" \
	"the stream holds the 4 Jobs, node by node"
is "$(cat "$T"/out/sp-nightly-worker-1-runc.yaml "$T"/out/sp-nightly-worker-1-gvisor.yaml "$T"/out/sp-nightly-pool-b-runc.yaml "$T"/out/sp-nightly-pool-b-gvisor.yaml | sha256sum)" \
	"$(grep -vx -- --- "$T/stream.yaml" | sha256sum)" "the stream is the files' content"

# a plan that asks for a root pod: rendered as asked, and lint flags it
sed 's/^set:.*/run_as_non_root: false/' "$T/plan.yaml" >"$T/root.yaml"
"$SP_BIN" fleet render --plan "$T/root.yaml" -o "$T/rootout"
is "$?" 0 "a root plan renders"
is "$(python3 -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); print(d["spec"]["template"]["spec"]["securityContext"])' "$T/rootout/sp-nightly-pool-b-runc.yaml")" \
	"{'runAsNonRoot': False, 'seccompProfile': {'type': 'RuntimeDefault'}, 'appArmorProfile': {'type': 'RuntimeDefault'}}" \
	"the root plan's pod sets runAsNonRoot: false and no user"
out=$("$SP_BIN" lint "$T/rootout/sp-nightly-pool-b-runc.yaml" 2>&1)
is "$?" 1 "lint fails the root pod's Job"
like "$out" 'kube.run_as_root' "lint names kube.run_as_root"

# bad plans
n=0
bad() { # LINE MESSAGE-REGEX NAME (plan on stdin; never at the end of a pipe: TAP counts in this shell)
	n=$((n + 1))
	local f=$T/bad$n.yaml out rc
	cat >"$f"
	out=$("$SP_BIN" fleet render --plan "$f" -o "$T/badout$n" 2>"$T/err")
	rc=$?
	is "$rc" 2 "$3: exit 2"
	like "$(cat "$T/err")" "^sandprobe: $f:$1: $2" "$3: file, line and field"
	is "$(wc -l <"$T/err" | tr -d ' ')/${#out}" "1/0" "$3: one line on stderr, nothing on stdout"
	ok test ! -e "$T/badout$n"
}
head_() { printf 'name: n\nnamespace: ns\nimage: img:1\n'; }
bad 8 "unknown key 'nodename' in a nodes item" "an unknown key" < <(head_; printf 'runtime_classes: [runc]\nnodes:\n  - id: a\n    node_name: a\n    nodename: b\n')
bad 4 "'runtime_classes item' must be a DNS label" "a RuntimeClass that is not a DNS label" < <(head_; printf 'runtime_classes: [runc, Gvisor]\nnodes: [{id: a, node_name: a}]\n')
bad 6 "node a: give exactly one of 'node_name' and 'node_selector'" "both node_name and node_selector" < <(head_; printf 'runtime_classes: [runc]\nnodes:\n  - id: a\n    node_name: a\n    node_selector: {k: v}\n')
bad 7 "node 'a' is listed twice \\(first at line 6\\)" "a node listed twice" < <(head_; printf 'runtime_classes: [runc]\nnodes:\n  - {id: a, node_name: a}\n  - {id: a, node_name: b}\n')
bad 7 "cells a/b-c and a-b/c would both be Job sp-n-a-b-c" "two cells with one Job name" < <(head_; printf 'runtime_classes: [b-c, c]\nnodes:\n  - {id: a, node_name: a}\n  - {id: a-b, node_name: b}\n')
bad 5 "'resources.limits.memory' must be a Kubernetes quantity" "a bad quantity" < <(head_; printf 'resources:\n  limits: {memory: lots}\nruntime_classes: [runc]\nnodes: [{id: a, node_name: a}]\n')
bad 4 "'run_as_non_root' must be true or false" "a quoted boolean" < <(head_; printf 'run_as_non_root: "yes"\nruntime_classes: [runc]\nnodes: [{id: a, node_name: a}]\n')
bad 1 "the plan has no 'image'" "no image" < <(printf 'name: n\nnamespace: ns\nruntime_classes: [runc]\nnodes: [{id: a, node_name: a}]\n')
bad 4 "'set' items are CHECK.FIELD=VALUE" "a set item without a value" < <(head_; printf 'set: ["fs.writable"]\nruntime_classes: [runc]\nnodes: [{id: a, node_name: a}]\n')
bad 7 "'node_selector key' may not contain spaces, quotes" "a bad label key" < <(head_; printf 'runtime_classes: [runc]\nnodes:\n  - id: a\n    node_selector: {"bad key!": v}\n')
bad 1 "'name' is longer than 20 characters" "a name too long for Job names" < <(printf 'name: a-very-long-fleet-name\nnamespace: ns\nimage: i\nruntime_classes: [runc]\nnodes: [{id: a, node_name: a}]\n')
# an existing output directory is not touched by a bad plan
mkdir "$T/keep" && echo old >"$T/keep/sp-n-a-runc.yaml"
{ head_; printf 'runtime_classes: [runc]\nnodes: [{id: a, node_name: a}]\nextra: 1\n'; } >"$T/late.yaml"
"$SP_BIN" fleet render --plan "$T/late.yaml" -o "$T/keep" 2>"$T/err"
is "$?" 2 "a plan bad at its last line: exit 2"
like "$(cat "$T/err")" "late.yaml:6: unknown key 'extra' in the plan" "it names the last line"
is "$(ls "$T/keep" | tr '\n' ' ')/$(cat "$T/keep/sp-n-a-runc.yaml")" "sp-n-a-runc.yaml /old" "nothing written into the existing directory"
"$SP_BIN" fleet render --plan "$T/nonexistent.yaml" 2>"$T/err"
is "$?" 2 "a missing plan: exit 2"
"$SP_BIN" fleet render 2>"$T/err"
is "$?" 2 "no --plan: exit 2"
"$SP_BIN" fleet frobnicate 2>"$T/err"
is "$?" 2 "an unknown action: exit 2"
done_testing
