#!/usr/bin/env bash
# SARIF 2.1.0 from `sandprobe lint --format sarif`, validated by Microsoft's
# SARIF multitool (npm package @microsoft/sarif-multitool-linux, installed by
# this test with npm into a cache directory): no schema error and no warning
# of its rules, on a report that holds every rule's result and an input error,
# and on the --list-rules catalogue. Then what code-scanning uploads read:
# informationUri, rule names, security-severity, the invocation's outcome.
. "$(dirname "$0")/../lib/tap.sh"
need jq
FIX=$(cd "$(dirname "$0")/fixtures" && pwd)
T=$(sp_tmpdir)

# --- the report: every trigger fixture, and a file that cannot be linted
mapfile -t files < <(ls "$FIX"/trigger/*.json "$FIX"/trigger/*.yaml "$FIX"/trigger/*.conf \
	"$FIX"/trigger/relation.proxy_address/oci.json "$FIX"/trigger/relation.proxy_unset/compose.yaml)
"$SP_BIN" lint --format sarif --fail-on note --require-runtime-class runsc "${files[@]}" >"$T/all.sarif" 2>/dev/null
is "$?" 2 "every trigger (one of them malformed): exit 2"
"$SP_BIN" lint --format sarif "$FIX"/good/* >"$T/good.sarif"
is "$?" 0 "the clean fixtures: exit 0"
"$SP_BIN" lint --list-rules --format sarif >"$T/rules.sarif"
is "$?" 0 "--list-rules --format sarif: exit 0"

d='.runs[0].tool.driver'
is "$(jq -r "$d.informationUri | test(\"^https://\")" "$T/all.sarif")" true "the driver has an informationUri"
is "$(jq -r "[$d.rules[] | .name | test(\"^[A-Z][A-Za-z0-9]+$\")] | all" "$T/all.sarif")" true \
	"every rule has a PascalCase friendly name"
is "$(jq -r "[$d.rules[].name] | (length == (unique | length))" "$T/all.sarif")" true "rule names are unique"
is "$(jq -r "[$d.rules[] | .helpUri | test(\"^https://\")] | all" "$T/all.sarif")" true "every rule has a helpUri"
is "$(jq -r "[$d.rules[] | .properties[\"security-severity\"] | tonumber | . > 0 and . <= 10] | all" "$T/all.sarif")" true \
	"every rule has a security-severity between 0 and 10"
# the score follows the severity: errors rank above warnings above notes
is "$(jq -r "[$d.rules[] | {l: .defaultConfiguration.level, s: (.properties[\"security-severity\"] | tonumber)}]
	| (map(select(.l == \"error\").s) | min) > (map(select(.l == \"warning\").s) | max) and
	  (map(select(.l == \"warning\").s) | min) > (map(select(.l == \"note\").s) | max)" "$T/all.sarif")" true \
	"security-severity ranks errors over warnings over notes"
is "$(jq -r "$d.rules | length" "$T/all.sarif")" "$("$SP_BIN" lint --list-rules --format json | jq '.rules | length')" \
	"the driver lists the whole catalogue"
is "$(jq -r '[.runs[0].results[].ruleId] | unique | length' "$T/all.sarif")" "$(jq -r "$d.rules | length" "$T/all.sarif")" \
	"the report holds a result of every rule"
is "$(jq -r '.runs[0].invocations[0].executionSuccessful' "$T/all.sarif")" false \
	"an input error makes the invocation unsuccessful"
is "$(jq -r '.runs[0].invocations[0].toolExecutionNotifications[0].descriptor.id' "$T/all.sarif")" lint.input_invalid \
	"and is a tool execution notification"
is "$(jq -r '.runs[0].invocations[0].executionSuccessful' "$T/good.sarif")" true "a clean run is successful"

# --- Microsoft's validator
if ! command -v npm >/dev/null; then
	[ "${SP_MUST_WORK:-0}" = 1 ] && _tap_result 1 "npm is required under SP_MUST_WORK=1"
	skip "npm not installed: the SARIF multitool cannot be installed"
	done_testing
	exit 0
fi
CACHE=${SP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sandprobe}/sarif-multitool
MT=$CACHE/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
if [ ! -x "$MT" ]; then
	mkdir -p "$CACHE"
	npm install --no-audit --no-fund --silent --prefix "$CACHE" @microsoft/sarif-multitool-linux >"$T/npm.log" 2>&1
	[ -f "$MT" ] && chmod u+x "$MT"
fi
if [ ! -x "$MT" ]; then
	[ "${SP_MUST_WORK:-0}" = 1 ] && _tap_result 1 "the SARIF multitool installs under SP_MUST_WORK=1" "$(tail -3 "$T/npm.log")"
	skip "the SARIF multitool could not be installed ($(tail -1 "$T/npm.log"))"
	done_testing
	exit 0
fi
export DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 DOTNET_CLI_TELEMETRY_OPTOUT=1
validate() { # FILE -> the multitool's error and warning results, one per line
	"$MT" validate "$1" -o "$1.log" --log ForceOverwrite --level "Error;Warning" >"$1.out" 2>&1
	local rc=$?
	[ -s "$1.log" ] || { echo "no validation log (exit $rc): $(tail -3 "$1.out")"; return; }
	jq -r '.runs[0].results[]? | "\(.ruleId): \(.message.text // (.message.arguments // [] | join(" ")))"' "$1.log"
	[ "$rc" = 0 ] || echo "exit $rc"
}
for f in all good rules; do
	is "$(validate "$T/$f.sarif")" "" "$f.sarif: the SARIF multitool finds no error and no warning"
done
# the validator is not a rubber stamp: a log without the version is an error
jq 'del(.version)' "$T/good.sarif" >"$T/broken.sarif"
like "$(validate "$T/broken.sarif")" "SARIF1|required|version|exit" "a log without 'version' is refused by the multitool"
done_testing
