#!/usr/bin/env bash
# CI integration, run here as far as a runner can be imitated: the GitHub
# composite action's steps (action.yml) and the GitLab template's jobs run
# as scripts (tests/ci/run_steps.py), their reports validated (JUnit against
# docs/schema/junit.xsd, SARIF 2.1.0, the step summary and outputs), and the
# workflow-command annotations decoded as the runner decodes them and
# compared with the doctor's and lint's JSON reports.
. "$SP_ROOT/tests/lib/tap.sh"
PY=/usr/bin/python3
"$PY" -c 'import yaml' 2>/dev/null || skip_all "python3-yaml not installed"
need jq
need xmllint "libxml2-utils not installed"
RS="$PY $SP_ROOT/tests/ci/run_steps.py"
XSD=$SP_ROOT/docs/schema/junit.xsd
T=$(sp_tmpdir)
at_exit "rm -rf '$T'"
step() { jq -r --arg n "$2" "select(.name == \$n) | .$3" "$1"; }
decode='
import json, sys
def unesc(s, prop):
    s = s.replace("%0D", "\r").replace("%0A", "\n")
    if prop:
        s = s.replace("%3A", ":").replace("%2C", ",")
    return s.replace("%25", "%")
out = []
for line in sys.stdin:
    line = line.rstrip("\n")
    if not line.startswith("::"):
        continue
    head, msg = line[2:].split("::", 1)
    level, _, props = head.partition(" ")
    p = {}
    for kv in filter(None, props.split(",")):
        k, v = kv.split("=", 1)
        p[k] = unesc(v, True)
    out.append({"level": level, "props": p, "message": unesc(msg, False)})
print(json.dumps(out))'

# --- action.yml: the file itself ---
TAP_NAME="action.yml and the GitLab template parse as YAML" ok "$PY" -c 'import sys, yaml; [yaml.safe_load(open(f)) for f in sys.argv[1:]]' \
	"$SP_ROOT/action.yml" "$SP_ROOT/ci/gitlab/sandprobe.gitlab-ci.yml"

# --- a passing run: host profile, a clean config ---
mkdir -p "$T/pass"
$RS github "$SP_ROOT/action.yml" "$T/pass" sandprobe="$SP_BIN" profile=host \
	lint-files="$SP_ROOT/tests/lint/fixtures/good/oci.json" >"$T/pass.jsonl"
is "$(jq -r 'select(.error) | .error' "$T/pass.jsonl")" "" "action.yml is consistent (inputs declared, outputs read real steps, bash shells)"
is "$(step "$T/pass.jsonl" 'sandprobe verdict' rc)" 0 "passing run: the verdict step succeeds"
for s in 'sandprobe build' 'sandprobe doctor' 'sandprobe lint'; do
	is "$(step "$T/pass.jsonl" "$s" rc)" 0 "$s exits 0 (its status is recorded for the verdict)"
done
is "$(step "$T/pass.jsonl" 'upload SARIF' 'missing | length')" 0 "upload-sarif is given a SARIF file that exists"
is "$(step "$T/pass.jsonl" 'keep the reports (JUnit, JSON, SARIF, text)' 'missing | length')" 0 "upload-artifact is given the report directory"
TAP_NAME="the doctor's JUnit validates against junit.xsd" ok xmllint --noout --schema "$XSD" "$T/pass/sandprobe-results/doctor.xml"
is "$(jq -r .version "$T/pass/sandprobe-results/lint.sarif")" 2.1.0 "lint.sarif is SARIF 2.1.0"
is "$(jq -r .schema "$T/pass/sandprobe-results/doctor.json")" sandprobe.doctor.v1 "doctor.json is the doctor report"
n=$($PY -c "$decode" <<<"$(step "$T/pass.jsonl" 'sandprobe doctor' stdout)" | jq length)
is "$n" "$(xmllint --xpath "count(//testcase/system-out[starts-with(., 'WARN:')])" "$T/pass/sandprobe-results/doctor.xml")" \
	"one warning annotation per WARN of the same run's JUnit report"

# --- a failing run: strict profile, a bad config; under GitHub's summary and output files ---
mkdir -p "$T/fail"
bad="$T/fail/odd,name:x.json"
cp "$SP_ROOT/tests/lint/fixtures/trigger/oci.caps_dangerous.json" "$bad"
GITHUB_STEP_SUMMARY=$T/summary.md GITHUB_OUTPUT=$T/output \
	$RS github "$SP_ROOT/action.yml" "$T/fail" sandprobe="$SP_BIN" profile=strict doctor-args="-k 'ns or caps'" \
	lint-files="'$bad' $SP_ROOT/tests/lint/fixtures/trigger/oci.caps_all.json" >"$T/fail.jsonl"
R=$T/fail/sandprobe-results
is "$(step "$T/fail.jsonl" 'sandprobe doctor' rc)" 0 "a failing doctor does not stop the job before the uploads"
is "$(step "$T/fail.jsonl" 'sandprobe verdict' rc)" 1 "the verdict step fails the job"
is "$(cat "$T/output")" "result=fail
report-dir=sandprobe-results" "step outputs: result=fail and the report directory"
like "$(cat "$T/summary.md")" '\| doctor \| 1 \| FAIL -- RESULT: FAIL' "the step summary has the doctor's verdict"
like "$(cat "$T/summary.md")" '\| lint \| 1 \| FAIL' "and lint's"
TAP_NAME="a failing JUnit report validates" ok xmllint --noout --schema "$XSD" "$R/doctor.xml"
is "$(xmllint --xpath 'count(//testcase/failure)' "$R/doctor.xml")" "$(jq .summary.fail "$R/doctor.json")" "JUnit failures = the report's FAILs"

$PY -c "$decode" <<<"$(step "$T/fail.jsonl" 'sandprobe doctor' stdout)" >"$T/dann.json"
# the annotations come from the run that wrote doctor.xml: compare with it
want=$("$PY" -c '
import json, sys, xml.etree.ElementTree as ET
out = []
for tc in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    for tag, label in (("failure", "FAIL"), ("error", "ERROR")):
        e = tc.find(tag)
        if e is not None:
            out.append({"t": tc.get("name") + " (" + label + ")", "m": e.get("message") + "\n" + (e.text or "")})
print(json.dumps(out, separators=(",", ":")))' "$R/doctor.xml")
got=$(jq -c '[.[] | select(.level == "error") | {t: .props.title, m: .message}]' "$T/dann.json")
like "$(jq length <<<"$want")" '^[1-9]' "ground truth: the strict doctor fails here"
is "$got" "$want" "doctor annotations decode to exactly the JUnit report's failures (title, detail, expected, observed)"
is "$(jq length <<<"$want")" "$(jq '.summary.fail + .summary.error' "$R/doctor.json")" "as many as the JSON report's FAIL and ERROR"
$PY -c "$decode" <<<"$(step "$T/fail.jsonl" 'sandprobe lint' stdout)" >"$T/lann.json"
want=$(jq -c '[.findings[] | {level: (if .severity == "note" then "notice" else .severity end), file, line, col: .column, title: .rule, message}] | sort' "$R/lint.json")
got=$(jq -c '[.[] | {level, file: .props.file, line: (.props.line | tonumber), col: (.props.col | tonumber), title: .props.title, message}] | sort' "$T/lann.json")
like "$(jq length <<<"$want")" '^[1-9]' "ground truth: the trigger configs have findings"
is "$got" "$want" "lint annotations decode to exactly the JSON findings (file with ',' and ':' escaped, line, col, rule)"
like "$(step "$T/fail.jsonl" 'sandprobe lint' stdout)" 'file=[^,]*odd%2Cname%3Ax\.json,line=' "a ',' and ':' in a path are %2C and %3A in the property"
unlike "$(step "$T/fail.jsonl" 'sandprobe doctor' stdout | grep '^::')" $'\r' "no raw CR in a workflow command"
is "$(jq 'map(select(.message | test("\n"))) | length > 0' "$T/dann.json")" true "multi-line messages travel as %0A"

# annotations are behind the flag
mkdir -p "$T/noann"
$RS github "$SP_ROOT/action.yml" "$T/noann" sandprobe="$SP_BIN" profile=strict doctor-args="-k ns" annotate=none >"$T/noann.jsonl"
is "$(step "$T/noann.jsonl" 'sandprobe doctor' stdout | grep -c '^::')" 0 "annotate: none prints no workflow command"

# --- the GitLab template ---
G=$SP_ROOT/ci/gitlab/sandprobe.gitlab-ci.yml
mkdir -p "$T/gl"
$RS gitlab "$G" "$T/gl" sandprobe-doctor SANDPROBE_SRC="$SP_ROOT" SANDPROBE="$SP_BIN" SANDPROBE_PROFILE=host >"$T/gl-doc.json"
is "$(jq -r .rc "$T/gl-doc.json")" 0 "GitLab sandprobe-doctor job passes with the host profile"
is "$(jq -r .junit "$T/gl-doc.json")" sandprobe-results/doctor.xml "its JUnit report path (artifacts:reports:junit) after variable expansion"
TAP_NAME="and that file exists and validates" ok xmllint --noout --schema "$XSD" "$T/gl/$(jq -r .junit "$T/gl-doc.json")"
is "$(jq -r .when "$T/gl-doc.json")" always "artifacts kept when the job fails (extends merged)"
$RS gitlab "$G" "$T/gl" sandprobe-lint SANDPROBE_SRC="$SP_ROOT" SANDPROBE="$SP_BIN" \
	SANDPROBE_LINT_FILES="$SP_ROOT/tests/lint/fixtures/trigger/oci.caps_all.json" >"$T/gl-lint.json"
is "$(jq -r .rc "$T/gl-lint.json")" 1 "GitLab sandprobe-lint job fails on a bad config"
is "$(jq -r .version "$T/gl/sandprobe-results/lint.sarif")" 2.1.0 "and leaves lint.sarif as an artifact"
is "$(jq -r '.rules[0].if' "$T/gl-lint.json")" '$SANDPROBE_LINT_FILES != ""' "the lint job only runs when there are files"
$RS gitlab "$G" "$T/gl" sandprobe-doctor SANDPROBE_SRC="$T/nowhere" >"$T/gl-bad.json"
is "$(jq -r .rc "$T/gl-bad.json")" 2 "a wrong SANDPROBE_SRC: exit 2 with a message"
done_testing
