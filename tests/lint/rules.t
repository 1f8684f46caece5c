#!/usr/bin/env bash
# Every lint rule has a fixture that raises it (fixtures/trigger/<rule>.*,
# the clean file of its kind with one change) and a clean file that does not
# (fixtures/good/*, which as a set raises nothing, not even a note).
. "$(dirname "$0")/../lib/tap.sh"
need jq
FIX=$(cd "$(dirname "$0")/fixtures" && pwd)
T=$(sp_tmpdir)

rules=$("$SP_BIN" lint --list-rules --format json | jq -r '.rules[].id')
n=$(printf '%s\n' "$rules" | wc -l)
TAP_NAME="the catalogue lists at least 85 rules ($n)" ok test "$n" -ge 85

# the clean set, given together so that the relation rules run too
"$SP_BIN" lint --format json --fail-on note --require-runtime-class runsc "$FIX"/good/* >"$T/good.json"
is "$?" 0 "the clean fixtures pass with --fail-on note"
is "$(jq '.findings | length' "$T/good.json")" 0 "the clean fixtures raise no finding"
is "$(jq '.files | length' "$T/good.json")" 6 "all six clean files were read"
is "$(jq -r '[.files[].kind] | sort | join(",")' "$T/good.json")" "allowlist,compose,kube,oci,seccomp,squid" \
	"each clean file was detected as its kind"

trigger_of() { # rule -> the files to lint (a file, or every file of a directory)
	local base=$FIX/trigger/$1
	if [ -d "$base" ]; then ls "$base"/*; else ls "$base".json "$base".yaml "$base".conf 2>/dev/null; fi
}

for r in $rules; do
	files=$(trigger_of "$r")
	if [ -z "$files" ]; then
		_tap_result 1 "$r: has a trigger fixture"
		continue
	fi
	args=()
	[ -f "$FIX/trigger/$r.args" ] && read -ra args <"$FIX/trigger/$r.args"
	want_rc=1
	[ -f "$FIX/trigger/$r.rc" ] && read -r want_rc <"$FIX/trigger/$r.rc"
	# shellcheck disable=SC2086
	"$SP_BIN" lint --format json --fail-on note "${args[@]}" $files >"$T/out.json" 2>"$T/err"
	rc=$?
	got=$(jq -r --arg r "$r" '[.findings[] | select(.rule == $r)] | length' "$T/out.json")
	if [ "$got" -ge 1 ] && [ "$rc" = "$want_rc" ]; then
		_tap_result 0 "$r: raised by its trigger (exit $want_rc)"
	else
		_tap_result 1 "$r: raised by its trigger (exit $want_rc)" "exit $rc; findings: $(jq -c '[.findings[].rule]' "$T/out.json")"
	fi
	# the finding is located: a line (and a pointer for JSON kinds)
	is "$(jq -r --arg r "$r" '[.findings[] | select(.rule == $r) | .line != null] | all' "$T/out.json")" true \
		"$r: every finding has a line"
	is "$(jq -r --arg r "$r" '[.findings[] | select(.rule == $r)] | length' "$T/good.json")" 0 \
		"$r: the clean file of its kind does not raise it"
done

# every pointer of a YAML finding names a node that is in the file (in one of
# its documents, read by yq): no mis-escaped or invented paths
need yq
bad=""
for f in "$FIX"/trigger/*.yaml "$FIX"/good/*.yaml "$FIX"/shapes/*.yaml; do
	"$SP_BIN" lint --format json --fail-on note "$f" 2>/dev/null |
		jq -r '.findings[] | select(.pointer != null) | .pointer' | sort -u >"$T/ptrs"
	[ -s "$T/ptrs" ] || continue
	yq -c . "$f" >"$T/docs.json" 2>/dev/null || continue
	missing=$(jq -rn --rawfile ps "$T/ptrs" '[inputs] as $docs | $ps | split("\n")[] | select(length > 0) |
		. as $p | ($p | split("/")[1:] | map(gsub("~1"; "/") | gsub("~0"; "~") | if test("^[0-9]+$") then tonumber else . end)) as $path |
		select([$docs[] | select(. != null) | try getpath($path) catch null | . != null] | any | not) | $p' "$T/docs.json")
	[ -n "$missing" ] && bad="$bad $(basename "$f"):$missing"
done
is "$bad" "" "every YAML finding's pointer names a node of its file"

# no stale fixture: every trigger names a rule that exists
for f in "$FIX"/trigger/*; do
	b=$(basename "$f"); b=${b%.json}; b=${b%.yaml}; b=${b%.conf}; b=${b%.args}; b=${b%.rc}
	printf '%s\n' "$rules" | grep -qxF "$b" || stale="$stale $b"
done
is "${stale:-}" "" "every trigger fixture names an existing rule"
done_testing
