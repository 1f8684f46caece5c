#!/usr/bin/env bash
# Output contract of `sandprobe lint`: text lines, JSON (sandprobe.lint.v1),
# SARIF 2.1.0 shape (checked with jq), positions (line:column of the JSON
# pointer or YAML node), --fail-on exit codes, --output, --list-rules.
. "$(dirname "$0")/../lib/tap.sh"
need jq
FIX=$(cd "$(dirname "$0")/fixtures" && pwd)
TR=$FIX/trigger
T=$(sp_tmpdir)

# --- text
out=$("$SP_BIN" lint "$TR/oci.root_writable.json")
rc=$?
is "$rc" 1 "a warning fails under the default --fail-on warning"
# the line and column of the member "readonly" in the file itself
want_line=$(grep -n '"readonly"' "$TR/oci.root_writable.json" | cut -d: -f1)
want_col=$(grep '"readonly"' "$TR/oci.root_writable.json" | awk '{ print index($0, "\"readonly\"") }')
like "$out" "^$TR/oci.root_writable.json:$want_line:$want_col: warning: oci.root_writable: .*\[/root/readonly\]" \
	"text: file:line:column: severity: rule: message [pointer], at the member's own position"
like "$out" "RESULT: FAIL -- 0 errors, 1 warnings, 0 notes in 1 file" "text: a RESULT line with the counts"

# a YAML finding is placed on its node
out=$("$SP_BIN" lint "$TR/compose.run_as_root.yaml")
want_line=$(grep -n 'user: root' "$TR/compose.run_as_root.yaml" | cut -d: -f1)
like "$out" "compose.run_as_root.yaml:$want_line:11: warning: compose.run_as_root: .*\[/services/agent/user\]" \
	"YAML: the finding is at the value node (line:column from libyaml)"

# a key with '/' and '~' is escaped in the pointer (RFC 6901) and still located
printf '{"domains": {\n  "ok.example.com": "ro",\n  "a/b~c": "ro"}}\n' >"$T/esc.json"
j=$("$SP_BIN" lint --format json "$T/esc.json")
is "$(jq -r '.findings[0].pointer' <<<"$j")" "/domains/a~1b~0c" "pointer escapes / and ~"
is "$(jq -r '"\(.findings[0].line):\(.findings[0].column)"' <<<"$j")" "3:3" "an escaped key is located"

# a missing member is reported at its nearest existing ancestor
j=$("$SP_BIN" lint --format json "$TR/oci.no_new_privileges.json")
f=$(jq -c '.findings[] | select(.rule == "oci.no_new_privileges")' <<<"$j")
is "$(jq -r .pointer <<<"$f")" "/process" "unset noNewPrivileges points at /process"
is "$(jq -r .line <<<"$f")" "$(grep -n '"process"' "$TR/oci.no_new_privileges.json" | head -1 | cut -d: -f1)" \
	"and at the line of \"process\""

# --- JSON schema sandprobe.lint.v1
"$SP_BIN" lint --format json "$TR/relation.proxy_address"/* >"$T/r.json"
is "$?" 1 "json: exit 1 on an error finding"
is "$(jq -r .schema "$T/r.json")" sandprobe.lint.v1 "json: schema"
is "$(jq -r '[.files[] | .path and .kind] | all' "$T/r.json")" true "json: files have path and kind"
is "$(jq -r '[.findings[] | has("rule","severity","message","file","pointer","line","column")] | all' "$T/r.json")" true \
	"json: every finding has rule, severity, message, file, pointer, line, column"
is "$(jq -r '[.findings[].severity | IN("error","warning","note")] | all' "$T/r.json")" true "json: severities"
is "$(jq -r '.findings[] | select(.rule == "relation.proxy_address") | .pointer' "$T/r.json")" "/process/env/1" \
	"json: the relation finding points at the HTTPS_PROXY entry"
is "$(jq -r .result "$T/r.json")" fail "json: result fail"

# --- SARIF 2.1.0 shape
"$SP_BIN" lint --format sarif "$TR/oci.caps_dangerous.json" "$TR/compose.privileged.yaml" >"$T/s.sarif"
is "$?" 1 "sarif: exit 1"
is "$(jq -r .version "$T/s.sarif")" 2.1.0 "sarif: version 2.1.0"
like "$(jq -r '."$schema"' "$T/s.sarif")" 'sarif-2\.1\.0' "sarif: \$schema"
is "$(jq -r '.runs | length' "$T/s.sarif")" 1 "sarif: one run"
is "$(jq -r '.runs[0].tool.driver.name' "$T/s.sarif")" sandprobe "sarif: driver name"
is "$(jq -r '[.runs[0].tool.driver.rules[].id] | (length == (unique | length))' "$T/s.sarif")" true "sarif: rule ids unique"
is "$(jq -r '[.runs[0].tool.driver.rules[] | .shortDescription.text and .fullDescription.text and
	(.defaultConfiguration.level | IN("error","warning","note"))] | all' "$T/s.sarif")" true \
	"sarif: rules carry descriptions and a default level"
is "$(jq -r '.runs[0] as $r | [$r.results[] | $r.tool.driver.rules[.ruleIndex].id == .ruleId] | all' "$T/s.sarif")" true \
	"sarif: each result's ruleIndex points at its ruleId"
is "$(jq -r '[.runs[0].results[] | (.level | IN("error","warning","note")) and (.message.text | length > 0)
	and (.locations[0].physicalLocation.artifactLocation.uri | length > 0)
	and (.locations[0].physicalLocation.region.startLine >= 1)] | all' "$T/s.sarif")" true \
	"sarif: results have level, message, uri and a region"
is "$(jq -r '[.runs[0].results[].locations[0].physicalLocation.artifactLocation.uri | startswith("file:///")] | all' "$T/s.sarif")" true \
	"sarif: absolute paths are file:// URIs"
(cd "$FIX" && "$SP_BIN" lint --format sarif trigger/oci.caps_dangerous.json) >"$T/rel.sarif"
is "$(jq -r '.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri' "$T/rel.sarif")" "trigger/oci.caps_dangerous.json" \
	"sarif: relative paths stay relative references"
is "$(jq -r '[.runs[0].results[].ruleId] | sort | unique | join(" ")' "$T/s.sarif")" \
	"compose.privileged oci.caps_dangerous" "sarif: the expected results"

# --- --fail-on
"$SP_BIN" lint --fail-on error "$TR/oci.root_writable.json" >/dev/null
is "$?" 0 "--fail-on error: a warning does not fail"
"$SP_BIN" lint --fail-on error "$TR/oci.caps_dangerous.json" >/dev/null
is "$?" 1 "--fail-on error: an error fails"
"$SP_BIN" lint "$TR/oci.userns_missing.json" >/dev/null
is "$?" 0 "default --fail-on warning: a note does not fail"
"$SP_BIN" lint --fail-on note "$TR/oci.userns_missing.json" >/dev/null
is "$?" 1 "--fail-on note: a note fails"
"$SP_BIN" lint --fail-on fatal "$TR/oci.userns_missing.json" 2>"$T/err" >/dev/null
is "$?" 2 "--fail-on with a bad value is a usage error"

# --- --output, --kind
"$SP_BIN" lint --format json --output "$T/o.json" "$FIX/good/oci.json"
is "$?" 0 "--output: exit 0 for a clean file"
is "$(jq -r .result "$T/o.json")" pass "--output: the report is in the file"
cp "$FIX/good/seccomp.json" "$T/profile.txt"
"$SP_BIN" lint --kind seccomp --format json "$T/profile.txt" >"$T/k.json"
is "$(jq -r '.files[0].kind' "$T/k.json")" seccomp "--kind forces the kind"
"$SP_BIN" lint --kind oci "$FIX/good/compose.yaml" 2>"$T/err" >/dev/null
is "$?" 2 "--kind oci on a YAML file: exit 2"
like "$(cat "$T/err")" "compose.yaml:1:[0-9]+: invalid JSON" "and the error names file:line:column"

# --- --list-rules
txt=$("$SP_BIN" lint --list-rules)
is "$?" 0 "--list-rules exits 0"
like "$txt" "^oci.mount_runtime_socket +error +oci " "text catalogue: id, severity, kind"
like "$txt" "techniques: T1611,T1610,T1552.007" "text catalogue: ATT&CK technique ids"
like "$txt" "AML\.T0086" "text catalogue: ATLAS technique ids where relevant"
"$SP_BIN" lint --list-rules --format json >"$T/rules.json"
is "$(jq -r .schema "$T/rules.json")" sandprobe.lint.rules.v1 "json catalogue schema"
is "$(jq -r '[.rules[] | (.rationale | length > 10) and (.title | length > 5) and (.techniques | type == "array")] | all' "$T/rules.json")" true \
	"every rule has a title, a rationale and a technique list"
is "$(jq -r '[.rules[] | select(.techniques | length == 0) | .id] | join(" ")' "$T/rules.json")" "lint.input_invalid" \
	"every rule names a technique (but lint.input_invalid, which is about the input itself)"
is "$(jq -r '[.rules[].id] | (length == (unique | length))' "$T/rules.json")" true "rule ids are unique"

# the man page documents every rule
man=$(dirname "$0")/../../docs/man/sandprobe-lint.1
missing=""
for id in $(jq -r '.rules[].id' "$T/rules.json"); do grep -qx "\.B $id" "$man" || missing="$missing $id"; done
is "$missing" "" "docs/man/sandprobe-lint.1 lists every rule"

# --- usage errors
"$SP_BIN" lint 2>"$T/err"
is "$?" 2 "no files: exit 2"
"$SP_BIN" lint --bogus x 2>"$T/err"
is "$?" 2 "unknown option: exit 2"
"$SP_BIN" lint --format xml "$FIX/good/oci.json" 2>"$T/err"
is "$?" 2 "unknown format: exit 2"
"$SP_BIN" lint --kind nginx "$FIX/good/oci.json" 2>"$T/err"
is "$?" 2 "unknown kind: exit 2"
done_testing
