#!/usr/bin/env bash
# sandprobe atlas: the committed docs/threat-model-crosswalk.md is exactly what
# `sandprobe atlas --format md` generates (regenerate after a merge with
# build/sandprobe atlas --format md > docs/threat-model-crosswalk.md); the
# json form lists every layer and row, and a row nothing covers says why.
. "$(dirname "$0")/../lib/tap.sh"
need jq
tmp=$(sp_tmpdir)

"$SP_BIN" atlas --format md >"$tmp/crosswalk.md"
is "$?" 0 "atlas --format md exits 0"
if cmp -s "$SP_ROOT/docs/threat-model-crosswalk.md" "$tmp/crosswalk.md"; then
	ok true # docs/threat-model-crosswalk.md is up to date
else
	ok false # docs/threat-model-crosswalk.md differs from the generated crosswalk
	diff -u "$SP_ROOT/docs/threat-model-crosswalk.md" "$tmp/crosswalk.md" | head -20 | sed 's/^/# /'
	echo "# regenerate: build/sandprobe atlas --format md > docs/threat-model-crosswalk.md"
fi
like "$(head -5 "$tmp/crosswalk.md")" 'build/sandprobe atlas --format md > docs/threat-model-crosswalk.md' \
	"the file says at the top how to regenerate it"

"$SP_BIN" atlas --format json >"$tmp/a.json"
is "$?" 0 "atlas --format json exits 0"
is "$(jq -r .schema "$tmp/a.json")" "sandprobe.atlas.v1" "json schema"
is "$(jq -r '.atlas_release' "$tmp/a.json")" "5.6.0" "ATLAS release recorded"
is "$(jq -r '[.crosswalk[].layer] | unique | sort | join(",")' "$tmp/a.json")" \
	"credentials,egress,escape,persistence,resources" "all five layers present"
is "$(jq '[.crosswalk[] | select(.covered == false and ((.uncovered_reason // "") | length) == 0)] | length' "$tmp/a.json")" 0 \
	"every uncovered row states its reason"
is "$(jq '[.crosswalk[] | select(.covered == true and (.detected_by | length) == 0)] | length' "$tmp/a.json")" 0 \
	"a covered row names what covers it"
is "$(jq '[.crosswalk[] | select((.stop_proven_by | map(.method) | unique) - ["action"] | length > 0)] | length' "$tmp/a.json")" 0 \
	"stop_proven_by lists only action checks"
is "$(jq -r '.techniques[] | select(.id == "AML.T0086") | .name + "|" + .maturity + "|" + (.tactics | join(","))' "$tmp/a.json")" \
	"Exfiltration via AI Agent Tool Invocation|realized|Exfiltration" "AML.T0086 as the ATLAS data says"
is "$(jq -r '.techniques[] | select(.id == "T1552.007") | .name' "$tmp/a.json")" \
	"Unsecured Credentials: Container API" "sub-technique shown with its parent's name"
is "$(jq '.unknown_technique_ids | length' "$tmp/a.json")" 0 "no check uses a technique id missing from the table"

# coverage comes from the doctor registry at run time: every check that lists
# a technique in the table shows up in detected_by of that technique's rows
mapfile -t pairs < <("$SP_BIN" doctor --list --format json 2>/dev/null |
	jq -r '(.checks // .results // [])[] | select((.techniques // []) | length > 0) | .id as $id | .techniques[] | "\($id) \(.)"')
if [ "${#pairs[@]}" -gt 0 ]; then
	miss=0
	for p in "${pairs[@]}"; do
		set -- $p
		n=$(jq --arg c "$1" --arg t "$2" '[.crosswalk[] | select(.technique == $t) | .detected_by[] | select(.id == $c)] | length' "$tmp/a.json")
		rows=$(jq --arg t "$2" '[.crosswalk[] | select(.technique == $t)] | length' "$tmp/a.json")
		if [ "$rows" -gt 0 ] && [ "$n" -lt "$rows" ]; then miss=$((miss + 1)); echo "# $1 ($2) not in detected_by"; fi
	done
	is "$miss" 0 "every (check, technique) of the registry appears in the crosswalk (${#pairs[@]} pairs)"
else
	skip "doctor --list --format json gave no technique lists"
fi
like "$(jq -r '.crosswalk[] | select(.technique == "AML.T0086") | [.detected_by[].id] | join(",")' "$tmp/a.json")" 'ns\.net' \
	"ns.net (tagged AML.T0086) detects agent-tool exfiltration"

"$SP_BIN" atlas >"$tmp/a.txt"
is "$?" 0 "text format exits 0"
like "$(cat "$tmp/a.txt")" '^sandprobe threat-model crosswalk: MITRE ATLAS 5\.6\.0' "text header names the releases"
like "$(grep -c '^== ' "$tmp/a.txt")" '^5$' "text has five layer sections"
like "$(grep -A6 '^AML.T0024 ' "$tmp/a.txt")" 'NOT COVERED: an allowed inference host is a legitimate channel' \
	"an uncovered technique is listed with its reason, not left out"
"$SP_BIN" atlas --format yaml 2>"$tmp/err"
is "$?" 2 "unknown format: exit 2"
like "$(cat "$tmp/err")" "unknown format 'yaml'" "and says which"
"$SP_BIN" atlas extra 2>/dev/null
is "$?" 2 "stray argument: exit 2"
done_testing
