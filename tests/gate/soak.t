#!/usr/bin/env bash
# The gate on bundles of real soak runs (a small sh workload, R0): soak
# --lane and --artifact record the identity (the digest checked here with
# sha256sum), the gate fills the cells from it, a real failing run fails
# its cells, a run of another build is the wrong candidate, a custom-length
# run fills no cell, and the build's own dirty flag decides admission.
. "$(dirname "$0")/../lib/tap.sh"
need jq
T=$(mktemp -d /tmp/sandprobe-test.XXXXXX) && at_exit "rm -rf '$T'"
G() { "$SP_BIN" gate "$@"; }
meta() { sed -n "s/^$2=//p" "$1/metadata.txt"; }
state() { jq -r --arg id "$1" '.cells[] | select(.id == $id) | .state'; }
reason() { jq -r --arg id "$1" '.cells[] | select(.id == $id) | .reason'; }
head -c 4096 /dev/urandom >"$T/tool.bin"
head -c 4096 /dev/urandom >"$T/other.bin"
ln -s tool.bin "$T/tool.link"
TOOL=sha256:$(sha256sum "$T/tool.bin" | cut -c1-64)
"$SP_BIN" keygen --out "$T/k" >/dev/null

workload() { # FILE RUN-02-COMMAND
	cat >"$1" <<EOF
version: 1
name: gate-sh
runtime: {name: sh, version: [sh, -c, "echo sh 1"]}
state_root: $T
prefix: spgate
concurrency: 1
scenarios:
  - {id: RUN-01, class: lifecycle, steps: [{op: a, argv: ["true"]}]}
  - {id: RUN-02, class: lifecycle, steps: [{op: b, argv: ["$2"]}]}
EOF
}
workload "$T/ok.yaml" true
workload "$T/bad.yaml" false
soak() { "$SP_BIN" soak --quiet --sign-key "$T/k.key" "$@" >/dev/null 2>&1; }
soak --workload "$T/bad.yaml" --profile R0 --out "$T/bad" --lane lane-a --artifact tool="$T/tool.bin"
is "$?" 1 "a real R0 run with a failing step: the verifier fails it"
sleep 1 # started_at has whole seconds: the failure is the earlier run
soak --workload "$T/ok.yaml" --profile R0 --out "$T/good" --lane lane-a --artifact tool="$T/tool.link"
is "$?" 0 "a real R0 run with --lane and --artifact: the verifier passes it"
soak --workload "$T/ok.yaml" --profile R0 --out "$T/otherbuild" --lane lane-a --artifact tool="$T/other.bin"
soak --workload "$T/ok.yaml" --profile G2 --duration 2 --sample-interval 1 --out "$T/short" --lane lane-a --artifact tool="$T/tool.bin"
is "$(meta "$T/good" lane)" lane-a "metadata: lane="
is "$(meta "$T/good" artifact.tool)" "$TOOL" "metadata: artifact.tool is the file's SHA-256 (through the link)"
is "$(meta "$T/short" profile)" custom "a shortened run records profile custom"

# soak --lane/--artifact: a literal digest recorded (lowercased); bad values refused before anything starts
D=$(printf image | sha256sum | cut -c1-64)
soak --workload "$T/ok.yaml" --profile R0 --out "$T/lit" --lane lane-a --artifact "image=sha256:${D^^}"
is "$(meta "$T/lit" artifact.image)" "sha256:$D" "--artifact NAME=sha256:HEX: recorded as given, lowercased"
usage_err() { # NAME ARGS...: exit 2, one line, no bundle directory
	local name=$1 err rc
	shift
	err=$("$SP_BIN" soak --workload "$T/ok.yaml" --profile R0 --out "$T/never" "$@" 2>&1 >/dev/null); rc=$?
	is "$rc/$(wc -l <<<"$err" | tr -d ' ')" 2/1 "$name: exit 2, one line"
	like "$err" "^sandprobe: soak: --(lane|artifact)" "$name: the flag named"
	ok test ! -e "$T/never"
}
usage_err "a lane with a space" --lane "lane a"
usage_err "an artifact file that does not exist" --artifact "tool=$T/nonexistent"
usage_err "an artifact that is a directory" --artifact "tool=$T"
usage_err "an artifact given twice" --artifact "tool=$T/tool.bin" --artifact "tool=$T/other.bin"
usage_err "an uppercase artifact name" --artifact "Tool=$T/tool.bin"
usage_err "a short digest" --artifact "tool=sha256:abc"
usage_err "no name" --artifact "=$T/tool.bin"

cat >"$T/plan.yaml" <<EOF
version: 1
name: rc-soak
candidate: {id: gate-sh-1, artifacts: {tool: $TOOL}}
changes: [core]
evidence: {valid_for: 1d}
signing: {pubkey: k.pub}
lanes:
  - {id: lane-a, host_class: linux-$(uname -m), isolation: shell-process, runtimes: [sh]}
scenarios:
  - {id: RUN-01, owner: core, require: {core: {lane-a: R0}}}
  - {id: RUN-02, owner: core, require: {core: {lane-a: R0}}}
EOF

# the run as this build wrote it: admitted when the build is clean, refused when dirty
dirty=$(meta "$T/good" dirty)
js=$(G --plan "$T/plan.yaml" "$T/good" --format json); rc=$?
if [ "$dirty" = 0 ]; then
	is "$rc $(state RUN-01/lane-a/R0 <<<"$js")" "0 pass" "the real run of a clean build: pass"
else
	is "$rc $(state RUN-01/lane-a/R0 <<<"$js")" "1 wrong-candidate" "the real run of a dirty build (dirty=1): wrong-candidate"
	like "$(reason RUN-01/lane-a/R0 <<<"$js")" 'dirty worktree' "dirty: said so"
fi
# the same run as the other kind of build wrote it (re-signed with the writer's key)
flip() { # SRC DEST DIRTY
	cp -r "$1" "$2"
	sed -i "s/^dirty=.*/dirty=$3/" "$2/metadata.txt"
	"$SP_ROOT/tests/verify/mkbundle.sh" --reseal -k "$T/k.key" "$2"
}
flip "$T/good" "$T/good-flip" $((1 - dirty))
js=$(G --plan "$T/plan.yaml" "$T/good-flip" --format json)
if [ "$dirty" = 0 ]; then
	is "$(state RUN-01/lane-a/R0 <<<"$js")" wrong-candidate "the same run from a dirty build: wrong-candidate"
else
	is "$(state RUN-01/lane-a/R0 <<<"$js")" pass "the same run from a clean build: pass"
fi
for b in bad otherbuild short; do flip "$T/$b" "$T/$b-clean" 0; done
[ "$dirty" = 0 ] && good=$T/good || good=$T/good-flip

out=$(G --plan "$T/plan.yaml" "$good" "$T/short-clean"); rc=$?
is "$rc" 0 "clean real R0 bundle: every required cell passes"
like "$out" "NOTE: $T/short-clean fills no cell: profile custom" "the custom-length run fills no cell"
js=$(G --plan "$T/plan.yaml" "$T/bad-clean" --format json); rc=$?
is "$rc $(state RUN-02/lane-a/R0 <<<"$js") $(state RUN-01/lane-a/R0 <<<"$js")" "1 fail fail" \
	"a real failing run fails every cell it declares (the verdict is the bundle's)"
like "$(reason RUN-02/lane-a/R0 <<<"$js")" 'ops.success' "fail: the gate the run failed"
js=$(G --plan "$T/plan.yaml" "$T/otherbuild-clean" --format json); rc=$?
is "$rc $(state RUN-01/lane-a/R0 <<<"$js")" "1 wrong-candidate" "a real run of another build: wrong-candidate"
# the failing run came first: a later pass does not erase it without retries
js=$(G --plan "$T/plan.yaml" "$T/bad-clean" "$good" --format json)
first=$(meta "$T/bad" started_at) second=$(meta "$good" started_at)
if [[ "$first" < "$second" ]]; then
	is "$(state RUN-02/lane-a/R0 <<<"$js")" fail "real runs: a failure, then a pass, no retries: fail"
	sed 's/valid_for: 1d}/valid_for: 1d, retries: 1}/' "$T/plan.yaml" >"$T/plan-retry.yaml"
	js=$(G --plan "$T/plan-retry.yaml" "$T/bad-clean" "$good" --format json)
	is "$(state RUN-02/lane-a/R0 <<<"$js")" pass "real runs: a failure, then a pass, one retry allowed: pass"
else
	skip "the two runs started in the same second"
	skip "the two runs started in the same second"
fi
done_testing
