#!/usr/bin/env bash
# sandprobe gate on bundles made by the independent fixture generator
# (tests/gate/mkgate.sh over tests/verify/mkbundle.sh): every cell state,
# the promotion order, expiry at its boundary, digest mismatch, a dirty
# build, a tampered bundle, signatures the plan requires, retries after a
# failure, duplicates, evidence from the future, order independence, and
# the four outputs (JSON checked against docs/schema/gate.schema.json).
# Expected states are worked out here from the bundles' own files (jq,
# sha256sum, date), not from the gate.
. "$(dirname "$0")/../lib/tap.sh"
need jq
need openssl
need python3
MK="$(dirname "$0")/mkgate.sh"
T=$(mktemp -d /tmp/sandprobe-test.XXXXXX) && at_exit "rm -rf '$T'"
G() { "$SP_BIN" gate "$@"; }
AT=2026-08-05T00:00:00Z
A=sha256:$(printf candidate | sha256sum | cut -c1-64)
B=sha256:$(printf other-build | sha256sum | cut -c1-64)
state() { jq -r --arg id "$1" '.cells[] | select(.id == $id) | .state'; }
reason() { jq -r --arg id "$1" '.cells[] | select(.id == $id) | .reason'; }
states() { jq -r '[.cells[] | select(.required) | "\(.id)=\(.state)"] | join(" ")'; }
run_of() { sed -n 's/^run_id=//p' "$1/metadata.txt"; }

# mkplan FILE PROFILES [EVIDENCE-LINES] [PUBKEY] [RUN-01 EXTRA KEYS] [RUN-01 REQUIRE]:
# every scenario requires PROFILES on lane-a for the change "core"
mkplan() {
	local sign="" req1="{core: {lane-a: $2}}"
	[ -n "${4:-}" ] && sign="signing: {pubkey: $4}"
	[ -n "${6:-}" ] && req1=$6
	cat >"$1" <<EOF
version: 1
name: rc-test
candidate:
  id: 1.0.0-rc1
  artifacts: {runc: $A}
changes: [core]
evidence:
  valid_for: {R0: 7d, default: 30d}
${3:-}
$sign
lanes:
  - {id: lane-a, host_class: linux-x86_64, isolation: oci-sandbox}
  - {id: lane-b, host_class: linux-arm64, isolation: kvm-microvm, artifacts: {runc: $B}}
scenarios:
  - {id: RUN-01, owner: core-runtime, require: $req1${5:+, $5}}
  - {id: RUN-02, owner: oci-maintainers, require: {core: {lane-a: $2}, storage: {lane-b: [G2]}}}
  - {id: RUN-03, owner: lifecycle, require: {core: {lane-a: $2}}}
EOF
}

"$MK" -p R0 -a runc=$A -t 2026-08-01T00:00:00Z "$T/r0"
"$MK" -p G2 -a runc=$A -t 2026-08-01T01:00:00Z "$T/g2"
"$MK" -p R24 -a runc=$A -t 2026-08-02T00:00:00Z "$T/r24"
"$MK" -p E72 -a runc=$A -t 2026-08-03T01:00:00Z "$T/e72"
for b in r0 g2 r24 e72; do
	"$SP_BIN" verify "$T/$b" >/dev/null || { TAP_NAME="fixture $b passes the verifier" ok false; }
done

# ---- every required cell passes ------------------------------------------------
mkplan "$T/p.yaml" "[R0, G2]"
out=$(G --plan "$T/p.yaml" --at $AT "$T/r0" "$T/g2"); rc=$?
is "$rc" 0 "R0 and G2 bundles of the candidate for every scenario: exit 0"
is "$(grep -c '^PASS: ' <<<"$out")" 6 "text: one PASS line per required cell (3 scenarios x 2 profiles)"
like "$(tail -1 <<<"$out")" '^RESULT: PASS -- 6 required cell\(s\): 6 passed, 0 failed, 0 missing' "text: RESULT line"
like "$out" 'PASS: RUN-02 lane-a G2 -- .* \[owner: oci-maintainers\]' "text: the owner is shown"
js=$(G --plan "$T/p.yaml" --at $AT "$T/r0" "$T/g2" --format json)
is "$(jq -r .result <<<"$js")" pass "json: result pass"
is "$(jq -r '[.cells[] | select(.profile == "R0") | .bundle.run_id] | unique | join(",")' <<<"$js")" "$(run_of "$T/r0")" \
	"json: every R0 cell is decided by the R0 bundle"
is "$(jq -r '[.cells[] | select(.profile == "G2") | .bundle.run_id] | unique | join(",")' <<<"$js")" "$(run_of "$T/g2")" \
	"json: every G2 cell is decided by the G2 bundle"
is "$(jq -r '.cells[] | select(.id == "RUN-02/lane-b/G2") | .required' <<<"$js" | head -1)" "" \
	"a kind of change the candidate does not have (storage) requires nothing"
schema_ok() { # JSON-FILE
	python3 - "$SP_ROOT/docs/schema/gate.schema.json" "$1" <<'EOF'
import json, sys, jsonschema
s = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(s)
jsonschema.validate(json.load(open(sys.argv[2])), s, cls=jsonschema.Draft202012Validator)
EOF
}
schema_check() { # NAME JSON
	printf '%s\n' "$2" >"$T/d.json"
	if python3 -c 'import jsonschema' 2>/dev/null; then
		TAP_NAME="json: $1: valid against docs/schema/gate.schema.json" ok schema_ok "$T/d.json"
	elif [ "${SP_MUST_WORK:-0}" = 1 ]; then
		TAP_NAME="python3-jsonschema installed (SP_MUST_WORK=1)" ok false
	else
		skip "python3-jsonschema missing"
	fi
}
schema_check "a passing decision" "$js"

# the same set in another order, and as a directory of bundles: the same decision
rev=$(G --plan "$T/p.yaml" --at $AT "$T/g2" "$T/r0" --format json)
is "$rev" "$js" "the decision does not depend on the order of the bundles"
mkdir "$T/set" && cp -r "$T/r0" "$T/g2" "$T/set/"
dirjs=$(G --plan "$T/p.yaml" --at $AT "$T/set" --format json)
is "$(jq -S 'del(.bundles[].path)' <<<"$dirjs")" "$(jq -S 'del(.bundles[].path)' <<<"$js")" \
	"a directory of bundles decides as the bundles listed one by one"
# the same bundle presented twice counts once
dup=$(G --plan "$T/p.yaml" --at $AT "$T/r0" "$T/set/r0" "$T/g2" --format json); rc=$?
is "$rc" 0 "a bundle given twice (a copy): still exit 0"
is "$(jq -r '[.bundles[] | select(.duplicate_of != null)] | length' <<<"$dup")" 1 "json: the copy is marked as a duplicate"

# ---- missing -----------------------------------------------------------------
js=$(G --plan "$T/p.yaml" --at $AT "$T/r0" --format json); rc=$?
is "$rc" 1 "no G2 bundle: exit 1"
is "$(states <<<"$js")" "RUN-01/lane-a/R0=pass RUN-01/lane-a/G2=missing RUN-02/lane-a/R0=pass RUN-02/lane-a/G2=missing RUN-03/lane-a/R0=pass RUN-03/lane-a/G2=missing" \
	"missing: every G2 cell, nothing else"
is "$(jq -r .summary.missing <<<"$js")" 3 "json: summary counts 3 missing"

# ---- promotion order ---------------------------------------------------------------
mkplan "$T/p24.yaml" "[R24]"
js=$(G --plan "$T/p24.yaml" --at $AT "$T/r0" "$T/r24" --format json); rc=$?
is "$rc" 1 "R24 required, G2 absent: exit 1"
is "$(state RUN-01/lane-a/G2 <<<"$js")" missing "the earlier profile G2 is required by the promotion order: missing"
is "$(jq -r '.cells[] | select(.id == "RUN-01/lane-a/G2") | .implied' <<<"$js")" true "json: G2 is marked implied"
is "$(jq -r '.cells[] | select(.id == "RUN-01/lane-a/R24") | .implied' <<<"$js")" false "json: R24 is required by the plan itself"
is "$(state RUN-01/lane-a/R24 <<<"$js")" blocked "a passing R24 bundle never waives the missing G2: blocked"
like "$(reason RUN-01/lane-a/R24 <<<"$js")" 'G2 is missing' "blocked: the reason names the earlier profile"
is "$(state RUN-01/lane-a/R0 <<<"$js")" pass "R0 passes"
out=$(G --plan "$T/p24.yaml" --at $AT "$T/r0" "$T/g2" "$T/r24"); rc=$?
is "$rc" 0 "R0, G2 and R24 all present: the R24 plan passes"
mkplan "$T/p72.yaml" "[E72]"
G --plan "$T/p72.yaml" --at 2026-08-07T00:00:00Z "$T/r0" "$T/g2" "$T/r24" "$T/e72" >/dev/null; is "$?" 0 "E72 plan: the whole order R0 -> G2 -> R24 -> E72 passes"
"$MK" -p R0 -a runc=$A -t 2026-08-01T00:30:00Z -f "$T/r0fail"
js=$(G --plan "$T/p.yaml" --at $AT "$T/r0fail" "$T/g2" --format json)
is "$(state RUN-01/lane-a/R0 <<<"$js")/$(state RUN-01/lane-a/G2 <<<"$js")" fail/blocked \
	"a failed R0 blocks the passing G2 of the same scenario and lane"

# ---- fail ----------------------------------------------------------------------
js=$(G --plan "$T/p.yaml" --at $AT "$T/r0fail" "$T/g2" --format json); rc=$?
is "$rc" 1 "a failing R0 bundle: exit 1"
like "$(reason RUN-02/lane-a/R0 <<<"$js")" 'failed 1 gate\(s\): leak.rss_slope' "fail: the reason names the failing gate"
is "$(jq -r '.bundles[] | select(.run_id == "'"$(run_of "$T/r0fail")"'") | .failed_gates | join(",")' <<<"$js")" leak.rss_slope \
	"json: the bundle's failing gates"

# ---- expiry, at its boundary ------------------------------------------------------
mkplan "$T/pr0.yaml" "[R0]"
start=$(date -u -d 2026-08-01T00:00:00Z +%s)
span=$(jq -r '.measured_duration_s | ceil' "$T/r0/summary.json")
edge=$(date -u -d "@$((start + span + 7 * 86400))" +%Y-%m-%dT%H:%M:%SZ)
beyond=$(date -u -d "@$((start + span + 7 * 86400 + 1))" +%Y-%m-%dT%H:%M:%SZ)
G --plan "$T/pr0.yaml" --at "$edge" "$T/r0" >/dev/null; is "$?" 0 "R0 evidence exactly 7 days old ($edge): still valid"
js=$(G --plan "$T/pr0.yaml" --at "$beyond" "$T/r0" --format json); rc=$?
is "$rc" 1 "one second beyond valid_for: exit 1"
is "$(state RUN-01/lane-a/R0 <<<"$js")" expired "one second beyond valid_for: expired"
like "$(reason RUN-01/lane-a/R0 <<<"$js")" "valid for 1w: expired at $edge" "expired: the reason says when"

# ---- wrong candidate: digest mismatch, missing digest, lane digest, dirty build -------
"$MK" -p R0 -a runc=$B "$T/r0b"
"$MK" -p R0 "$T/r0none"
"$MK" -p R0 -a runc=$A -d 1 "$T/r0dirty"
"$MK" -p R0 -a runc=$B -l lane-b -A aarch64 -r kata "$T/r0laneb"
js=$(G --plan "$T/pr0.yaml" --at $AT "$T/r0b" --format json); rc=$?
is "$rc $(state RUN-01/lane-a/R0 <<<"$js")" "1 wrong-candidate" "another build's digest: wrong-candidate, exit 1"
like "$(reason RUN-01/lane-a/R0 <<<"$js")" "tested artifact runc $B, the candidate's is $A" "wrong-candidate: both digests named"
js=$(G --plan "$T/pr0.yaml" --at $AT "$T/r0none" --format json)
is "$(state RUN-01/lane-a/R0 <<<"$js")" wrong-candidate "no artifact digest recorded: wrong-candidate"
like "$(reason RUN-01/lane-a/R0 <<<"$js")" "records no digest of artifact runc" "wrong-candidate: the missing digest named"
js=$(G --plan "$T/pr0.yaml" --at $AT "$T/r0dirty" --format json)
is "$(state RUN-01/lane-a/R0 <<<"$js")" wrong-candidate "a dirty build (dirty=1): wrong-candidate"
like "$(reason RUN-01/lane-a/R0 <<<"$js")" "dirty worktree" "dirty: the reason says so"
mkplan "$T/plb.yaml" "[R0]" "" "" "" "{core: {lane-a: [R0], lane-b: [R0]}}"
js=$(G --plan "$T/plb.yaml" --at $AT "$T/r0" "$T/r0laneb" --format json); rc=$?
is "$rc $(state RUN-01/lane-b/R0 <<<"$js")" "0 pass" "lane-b's own digest (the lane overrides the candidate's): pass"
js=$(G --plan "$T/plb.yaml" --at $AT "$T/r0" "$T/r0b" --format json)
is "$(state RUN-01/lane-b/R0 <<<"$js")" missing "a lane-a bundle never fills a lane-b cell"
# a wrong-candidate bundle beside the candidate's own passing one does not spoil it
G --plan "$T/pr0.yaml" --at $AT "$T/r0" "$T/r0b" "$T/r0dirty" >/dev/null; is "$?" 0 "the candidate's bundle decides beside other builds' bundles"

# ---- superseded: plan not_before, pinned workload ---------------------------------
mkplan "$T/pnb.yaml" "[R0]" "  not_before: 2026-08-05T00:00:00Z"
js=$(G --plan "$T/pnb.yaml" --at $AT "$T/r0" --format json); rc=$?
is "$rc $(state RUN-03/lane-a/R0 <<<"$js")" "1 superseded" "evidence older than evidence.not_before: superseded"
wl=$(sed -n 's/^workload_sha256=//p' "$T/r0/metadata.txt")
other=$(printf x | sha256sum | cut -c1-64)
mkplan "$T/pwl.yaml" "[R0]" "" "" "workload: sha256:$other"
js=$(G --plan "$T/pwl.yaml" --at $AT "$T/r0" --format json)
is "$(state RUN-01/lane-a/R0 <<<"$js")/$(state RUN-02/lane-a/R0 <<<"$js")" superseded/pass \
	"RUN-01 pins another workload digest: superseded (RUN-02 unpinned: pass)"
mkplan "$T/pwl2.yaml" "[R0]" "" "" "workload: sha256:$wl"
G --plan "$T/pwl2.yaml" --at $AT "$T/r0" >/dev/null; is "$?" 0 "the pinned workload digest the bundle ran: pass"

# ---- retries: a later pass does not erase an earlier failure unless the plan allows ----
"$MK" -p R0 -a runc=$A -t 2026-08-01T02:00:00Z -f "$T/f1"
"$MK" -p R0 -a runc=$A -t 2026-08-01T02:30:00Z -f "$T/f2"
"$MK" -p R0 -a runc=$A -t 2026-08-01T03:00:00Z "$T/p1"
js=$(G --plan "$T/pr0.yaml" --at $AT "$T/f1" "$T/p1" --format json); rc=$?
is "$rc $(state RUN-01/lane-a/R0 <<<"$js")" "1 fail" "failure then pass, no retries allowed: fail"
like "$(reason RUN-01/lane-a/R0 <<<"$js")" 'the plan allows 0 retries: a later pass does not erase them' "fail: the reason says why the pass does not count"
mkplan "$T/pre.yaml" "[R0]" "  retries: 1"
js=$(G --plan "$T/pre.yaml" --at $AT "$T/f1" "$T/p1" --format json); rc=$?
is "$rc $(state RUN-01/lane-a/R0 <<<"$js")" "0 pass" "failure then pass, one retry allowed: pass"
is "$(jq -r '.cells[] | select(.id == "RUN-01/lane-a/R0") | [.evidence[].disposition] | join(",")' <<<"$js")" "retried,used" \
	"json: the failure is retried, the later pass used"
like "$(reason RUN-01/lane-a/R0 <<<"$js")" 'a retry after 1 failed run' "pass: the retry is visible in the reason"
js=$(G --plan "$T/pre.yaml" --at $AT "$T/f1" "$T/f2" "$T/p1" --format json)
is "$(state RUN-01/lane-a/R0 <<<"$js")" fail "two failures, one retry allowed: fail"
js=$(G --plan "$T/pre.yaml" --at $AT "$T/r0" "$T/f1" --format json)
is "$(state RUN-01/lane-a/R0 <<<"$js")" fail "pass then a later failure (retries allowed): the newest run fails"
mkplan "$T/pre2.yaml" "[R0]" "" "" "retries: 2"
js=$(G --plan "$T/pre2.yaml" --at $AT "$T/f1" "$T/f2" "$T/p1" --format json)
is "$(state RUN-01/lane-a/R0 <<<"$js")/$(state RUN-02/lane-a/R0 <<<"$js")" pass/fail \
	"a scenario's own retries (2) apply to it alone"

# ---- a tampered bundle in the set ------------------------------------------------------
cp -r "$T/r0" "$T/r0t"
sed -i '2s/\t[0-9.]*\tok\t/\t1.000\tok\t/' "$T/r0t/operations.tsv"
out=$(G --plan "$T/pr0.yaml" --at $AT "$T/r0t"); rc=$?
is "$rc" 1 "a bundle edited after sealing: exit 1"
like "$out" "PROBLEM: untrusted: $T/r0t \(run [^)]*\): integrity.manifest" "text: a PROBLEM line names the tampered bundle"
like "$out" 'FAIL: RUN-01 lane-a R0 -- run .* cannot be trusted' "the cell it claims fails"
out=$(G --plan "$T/pr0.yaml" --at $AT "$T/r0" "$T/r0t"); rc=$?
is "$rc" 1 "a tampered copy beside the good bundle still fails the decision"
like "$out" 'PROBLEM: duplicate-run' "two bundles with one run id and different contents: a problem"
"$MK" -p R0 -a runc=$A -l lane-z "$T/r0tz"
sed -i 's/^lane=lane-z/lane=lane-a/' "$T/r0tz/metadata.txt"
G --plan "$T/pr0.yaml" --at $AT "$T/r0" "$T/r0tz" >/dev/null; is "$?" 1 "an edited bundle is never ignored, whatever cell it claims"

# ---- signatures the plan requires ---------------------------------------------------
"$SP_BIN" keygen --out "$T/k" >/dev/null
"$SP_BIN" keygen --out "$T/other" >/dev/null
"$MK" -p R0 -a runc=$A -k "$T/k.key" -t 2026-08-01T00:00:00Z "$T/s0"
"$MK" -p R0 -a runc=$A -k "$T/other.key" "$T/sother"
"$MK" -p R0 -a runc=$A -k "$T/k.key" -f -t 2026-08-01T00:00:00Z "$T/sfail"
mkplan "$T/psig.yaml" "[R0]" "" "k.pub"
G --plan "$T/psig.yaml" --at $AT "$T/s0" >/dev/null; is "$?" 0 "signed with the plan's key (path relative to the plan): pass"
out=$(G --plan "$T/psig.yaml" --at $AT "$T/r0"); rc=$?
is "$rc" 1 "an unsigned bundle when the plan names a key: exit 1"
like "$out" 'PROBLEM: untrusted: .*integrity.signature: a public key was given but MANIFEST.sig is missing' "unsigned: named"
out=$(G --plan "$T/psig.yaml" --at $AT "$T/sother"); rc=$?
is "$rc" 1 "signed with another key: exit 1"
# a failed run cannot be made passing by editing its bundle: the writer's key signs what it wrote
cp -r "$T/sfail" "$T/sforged"
cp "$T/s0/resource-samples.tsv" "$T/sforged/resource-samples.tsv"
"$SP_ROOT/tests/verify/mkbundle.sh" --reseal "$T/sforged"
"$SP_BIN" verify "$T/sforged" >/dev/null; is "$?" 0 "control: the edited, resealed failing bundle passes the verifier without a key"
G --plan "$T/pr0.yaml" --at $AT "$T/sforged" >/dev/null; is "$?" 0 "control: and a plan without a key cannot tell"
out=$(G --plan "$T/psig.yaml" --at $AT "$T/sforged"); rc=$?
is "$rc" 1 "with the plan's key, the edited failing run is refused"
like "$out" 'FAIL: RUN-01 lane-a R0 -- run .* cannot be trusted: integrity.signature' "the forged pass is a failure of the cell"
mkplan "$T/pnokey.yaml" "[R0]" "" "missing.pub"
err=$(G --plan "$T/pnokey.yaml" --at $AT "$T/s0" 2>&1 >/dev/null); rc=$?
is "$rc" 2 "a plan naming an unreadable key: exit 2"
like "$err" "^sandprobe: gate: $T/pnokey.yaml:[0-9]+: signing.pubkey: --pubkey $T/missing.pub" "the message names the plan line"

# ---- evidence from after the decision, unmatched bundles, cells not required -----------
"$MK" -p R0 -a runc=$A -t 2026-08-20T00:00:00Z "$T/late"
out=$(G --plan "$T/pr0.yaml" --at $AT "$T/r0" "$T/late"); rc=$?
is "$rc" 1 "a bundle that ended after the decision time: exit 1"
like "$out" 'PROBLEM: future: .* ended at 2026-08-20T00:00:40Z, after the decision time 2026-08-05T00:00:00Z' "future: named"
"$MK" -p custom -a runc=$A "$T/cust"
"$MK" -p R0 -a runc=$A -l lane-z "$T/lz"
"$MK" -p R0 -a runc=$A -l - "$T/nolane"
"$MK" -p R0 -a runc=$A -S STO-01,STO-02,NET-01 "$T/other-scen"
out=$(G --plan "$T/pr0.yaml" --at $AT "$T/r0" "$T/cust" "$T/lz" "$T/nolane" "$T/other-scen"); rc=$?
is "$rc" 0 "bundles that fill no cell change nothing"
like "$out" "NOTE: $T/cust fills no cell: profile custom is not a promotion profile" "custom profile: noted"
like "$out" "NOTE: $T/lz fills no cell: lane lane-z is not a lane of the plan" "unknown lane: noted"
like "$out" "NOTE: $T/nolane fills no cell: metadata records no lane" "no lane: noted"
like "$out" "NOTE: $T/other-scen fills no cell: none of its scenarios" "other scenarios: noted"
"$MK" -p R24 -a runc=$A -f -t 2026-08-02T00:00:00Z "$T/r24fail"
out=$(G --plan "$T/p.yaml" --at $AT "$T/r0" "$T/g2" "$T/r24fail"); rc=$?
is "$rc" 0 "a failing bundle at a profile the plan does not require: exit 0"
like "$out" 'INFO: RUN-01 lane-a R24 fail \(not required\)' "it is shown as INFO"

# every state, disposition and problem kind at once, against the schema
js=$(G --plan "$T/p24.yaml" --at $AT "$T/r0fail" "$T/g2" "$T/r24" "$T/r0b" "$T/r0t" "$T/late" "$T/cust" "$T/set/r0" "$T/f1" "$T/p1" --format json)
is "$(jq -r '[.problems[].kind] | unique | join(",")' <<<"$js")" "duplicate-run,future,untrusted" "json: the problems of a mixed set"
schema_check "a failing decision with problems" "$js"

# ---- JUnit -----------------------------------------------------------------------
G --plan "$T/p.yaml" --at $AT "$T/r0" --format junit >"$T/j.xml"; rc=$?
is "$rc" 1 "junit: exit code of the decision"
if command -v xmllint >/dev/null; then
	ok xmllint --noout "$T/j.xml"
	is "$(xmllint --xpath 'count(//testcase)' "$T/j.xml")" 7 "junit: one case per required cell, and one for the evidence set"
	is "$(xmllint --xpath 'count(//testcase/failure[@type="missing"])' "$T/j.xml")" 3 "junit: the 3 missing cells fail"
	is "$(xmllint --xpath 'string(//testsuite/@failures)' "$T/j.xml")" 3 "junit: failures attribute"
else
	skip "xmllint missing"
fi
G --plan "$T/pr0.yaml" --at $AT "$T/r0t" --format junit >"$T/j2.xml"
like "$(grep -A1 'name="evidence set"' "$T/j2.xml")" '<failure type="problem"' "junit: problems fail the evidence-set case"

# ---- HTML coverage matrix ---------------------------------------------------------------
mkdir "$T/html"
G --plan "$T/p.yaml" --at $AT "$T/r0fail" "$T/g2" --format html -o "$T/html/matrix.html"; rc=$?
is "$rc" 1 "html: exit code of the decision"
res=$(python3 "$SP_ROOT/tests/report/check_html.py" parse "$T/html/matrix.html")
is "$(jq -r '.ok' <<<"$res") $(jq -r '.scripts' <<<"$res")" "true 0" "html: well-formed, no script"
is "$(jq -r '[.external[] | select(test("^a href=reports/b[0-9]{4}-[A-Za-z0-9._-]+[.]html$") | not)] | length' <<<"$res")" 0 \
	"html: nothing external, the only links are to the bundles' reports beside the page"
links=$(grep -o 'href="reports/[^"]*"' "$T/html/matrix.html" | sed 's/^href="//; s/"$//' | sort -u)
missing=""
for l in $links; do [ -f "$T/html/$l" ] || missing="$missing $l"; done
is "$missing" "" "html: every report link resolves"
is "$(wc -l <<<"$links")" 2 "html: a report per bundle"
is "$(grep -o 'class="chip st-fail" href="reports/b0001-[^"]*"' "$T/html/matrix.html" | wc -l)" 3 \
	"html: the 3 failing R0 cells link to the failing bundle's report"
is "$(grep -o '<a class="chip st-blocked"' "$T/html/matrix.html" | wc -l)" 3 "html: the 3 G2 cells are shown blocked"
like "$(cat "$T/html/reports/$(jq -r '.bundles[0].key' <<<"$(G --plan "$T/p.yaml" --at $AT "$T/r0fail" "$T/g2" --format json)").html")" \
	'leak.rss_slope' "html: the linked report shows the failing gate"

# ---- usage ------------------------------------------------------------------------------
err=$(G --at $AT "$T/r0" 2>&1 >/dev/null); rc=$?
is "$rc" 2 "no --plan: exit 2"
like "$err" 'missing --plan' "no --plan: named"
G --plan "$T/p.yaml" >/dev/null 2>&1; is "$?" 2 "no bundle: exit 2"
G --plan "$T/p.yaml" --format xml "$T/r0" >/dev/null 2>&1; is "$?" 2 "--format xml: exit 2"
err=$(G --plan "$T/p.yaml" --at 2026-02-30T00:00:00Z "$T/r0" 2>&1 >/dev/null); rc=$?
is "$rc" 2 "--at on Feb 30: exit 2"
G --plan "$T/p.yaml" "$T/nonexistent" >/dev/null 2>&1; is "$?" 2 "a bundle path that does not exist: exit 2"
mkdir "$T/empty"
err=$(G --plan "$T/p.yaml" "$T/empty" 2>&1 >/dev/null); rc=$?
is "$rc" 2 "an empty directory: exit 2"
like "$err" 'holds no bundle' "an empty directory: named"
G --plan "$T/p.yaml" --sign-key "$T/k.key" "$T/r0" >/dev/null 2>&1; is "$?" 2 "--sign-key without --archive: exit 2"
G --plan "$T/p.yaml" --bogus "$T/r0" >/dev/null 2>&1; is "$?" 2 "unknown option: exit 2"
like "$(G --help)" 'usage: sandprobe gate --plan PLAN' "--help"
done_testing
