#!/usr/bin/env bash
# Every JSON output against its JSON Schema in docs/schema/, with Debian's
# python3-jsonschema (Draft 2020-12): real outputs of doctor (report and
# catalogue), lint, live (a lane and a matrix with negative controls), soak
# (summary.json, inventory-*.json), verify (passing and failing verdicts,
# baseline) and atlas. Each schema must also reject a broken document, so a
# schema that accepts anything fails here.
. "$SP_ROOT/tests/lib/tap.sh"
# live needs a static doctor: under SP_SAN=1 the normal build's
LDOC=$SP_DOCTOR
[ "${SP_SAN:-0}" = 1 ] && LDOC=$SP_ROOT/build/sandprobe-doctor
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "Debian python3 missing"
"$PY" -c 'import jsonschema' 2>/dev/null || skip_all "python3-jsonschema not installed"
need jq
V="$PY $SP_ROOT/tests/formats/validate_json.py"
SD=$SP_ROOT/docs/schema
T=$(sp_tmpdir)
at_exit "rm -rf '$T'"

valid() { # SCHEMA DOC NAME
	local out
	out=$($V "$SD/$1.schema.json" "$2" 2>&1)
	_tap_result $? "$3" "$out"
}
rejects() { # SCHEMA JQ-EDIT DOC NAME: the edited document must be invalid
	local out
	jq "$2" "$3" >"$T/broken.json"
	out=$($V "$SD/$1.schema.json" "$T/broken.json" 2>&1)
	if [ $? -eq 1 ] && printf '%s' "$out" | grep -q '^invalid'; then _tap_result 0 "$4"; else _tap_result 1 "$4" "$out"; fi
}

for s in "$SD"/*.schema.json; do
	TAP_NAME="$(basename "$s") is a valid Draft 2020-12 JSON Schema" \
		ok "$PY" -c 'import json,sys,jsonschema; s=json.load(open(sys.argv[1])); jsonschema.validators.validator_for(s).check_schema(s); assert s["$schema"].endswith("2020-12/schema")' "$s"
done

# --- doctor ---
"$SP_DOCTOR" --profile host --format json >"$T/doctor-host.json"
valid doctor "$T/doctor-host.json" "doctor --profile host --format json"
"$SP_DOCTOR" --profile strict --strict --format json >"$T/doctor-strict.json"
is "$(jq -r .result "$T/doctor-strict.json")" fail "strict profile on this host fails (we are not in a sandbox)"
valid doctor "$T/doctor-strict.json" "a failing doctor report validates"
"$SP_DOCTOR" -x -k ns --format json >"$T/doctor-x.json"
valid doctor "$T/doctor-x.json" "a report stopped early (-x) validates"
"$SP_DOCTOR" --list --format json >"$T/list.json"
valid checks "$T/list.json" "doctor --list --format json (sandprobe.checks.v1)"
rejects doctor '.results[0].status = "maybe"' "$T/doctor-host.json" "doctor schema rejects an unknown status"
rejects doctor 'del(.summary)' "$T/doctor-host.json" "doctor schema rejects a report without summary"
rejects doctor '.results[0].techniques = ["T99"]' "$T/doctor-host.json" "doctor schema rejects a malformed technique id"
rejects checks '.checks[0].method = "guess"' "$T/list.json" "checks schema rejects an unknown method"
# extension is allowed where other engineers extend the output
valid doctor <(jq '.environment.container = {"engine": "x"} | .results[0].extra = 1' "$T/doctor-host.json") \
	"doctor schema accepts new environment and result keys"

# --- lint ---
"$SP_BIN" lint "$SP_ROOT"/tests/lint/fixtures/good/* --format json >"$T/lint-good.json"
valid lint "$T/lint-good.json" "lint of the good fixtures"
trig=()
for f in "$SP_ROOT"/tests/lint/fixtures/trigger/*; do
	case "$f" in *.args) continue ;; esac
	[ -f "$f" ] && trig+=("$f")
done
"$SP_BIN" lint "${trig[@]}" --format json >"$T/lint-bad.json"
like "$(jq '.findings | length' "$T/lint-bad.json")" '^[1-9][0-9]+$' "the trigger fixtures give findings"
valid lint "$T/lint-bad.json" "lint with findings of every severity validates"
rejects lint '.findings[0].severity = "fatal"' "$T/lint-bad.json" "lint schema rejects an unknown severity"
rejects lint '.findings[0].line = 0' "$T/lint-bad.json" "lint schema rejects line 0"

# --- atlas ---
"$SP_BIN" atlas --format json >"$T/atlas.json"
valid atlas "$T/atlas.json" "atlas --format json"
rejects atlas '.crosswalk[0].reachable = "maybe"' "$T/atlas.json" "atlas schema rejects an unknown reachability"
rejects atlas '(.crosswalk[] | select(.covered) | .detected_by) |= []' "$T/atlas.json" "atlas schema rejects a covered row with no detector"

# --- soak evidence and verify ---
if command -v bwrap >/dev/null && [ -x /bin/busybox ] && [ "$(id -u)" = 0 ]; then
	mkdir -p "$T/state"
	sed "s#^state_root: .*#state_root: $T/state#" "$SP_ROOT/workloads/bwrap-churn.yaml" >"$T/w.yaml"
	"$SP_BIN" soak --workload "$T/w.yaml" --profile R0 --out "$T/bundle" --seed 7 >"$T/soak.out" 2>&1
	is "$?" 0 "an R0 soak of the bwrap workload passes"
	valid summary "$T/bundle/summary.json" "summary.json"
	valid inventory "$T/bundle/inventory-start.json" "inventory-start.json"
	valid inventory "$T/bundle/inventory-final.json" "inventory-final.json"
	rejects summary '.stop_condition = "bored"' "$T/bundle/summary.json" "summary schema rejects an unknown stop condition"
	rejects inventory '.resources = [{"type": "box"}]' "$T/bundle/inventory-start.json" "inventory schema rejects a resource without id"
	"$SP_BIN" verify "$T/bundle" --format json >"$T/verify-pass.json"
	is "$(jq -r .result "$T/verify-pass.json")" pass "verify passes the bundle"
	valid verify "$T/verify-pass.json" "a passing verdict"
	"$SP_BIN" verify --emit-baseline "$T/base.json" "$T/bundle" >/dev/null
	valid baseline "$T/base.json" "verify --emit-baseline"
	rejects baseline '.scenarios = {}' "$T/base.json" "baseline schema rejects an empty scenario map"
	cp -r "$T/bundle" "$T/edited"
	printf 'x\n' >>"$T/edited/latency.tsv"
	"$SP_BIN" verify "$T/edited" --format json >"$T/verify-fail.json"
	is "$(jq -r .result "$T/verify-fail.json")" fail "verify fails an edited bundle"
	valid verify "$T/verify-fail.json" "a failing verdict"
	rejects verify '.gates[0].status = "skip"' "$T/verify-pass.json" "verify schema rejects a gate status other than pass/fail"
else
	skip "soak and verify samples need root, bwrap and /bin/busybox"
fi

# --- live ---
if command -v bwrap >/dev/null && [ "$(id -u)" = 0 ]; then
	"$SP_BIN" live --doctor "$LDOC" --runtime bwrap --format json -o "$T/live.json" >/dev/null 2>&1
	valid live "$T/live.json" "live --runtime bwrap"
	"$SP_BIN" live --doctor "$LDOC" --matrix --runtimes bwrap --format json -o "$T/matrix.json" >/dev/null 2>&1
	like "$(jq '[.lanes[] | select(.negative_control)] | length' "$T/matrix.json")" '^[1-9]' "the matrix has negative controls"
	valid live "$T/matrix.json" "live --matrix with negative controls"
	rejects live '.lanes[0].verdict = "OK"' "$T/matrix.json" "live schema rejects an unknown verdict"
	rejects live '(.lanes[] | select(.negative_control) | .removed) |= []' "$T/matrix.json" "live schema rejects a negative control that removes nothing"
else
	skip "live samples need root and bwrap"
fi
done_testing
