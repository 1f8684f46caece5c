#!/usr/bin/env bash
# sandprobe verify on A3S Box evidence: every case of A3S's own self-test
# (soak-evidence-self-test.sh), reproduced on bundles of our own making
# (tests/verify/a3s/mkcase.sh, table tests/verify/a3s/cases.tsv), decided as
# A3S decides it, failing on the gate that corresponds to A3S's check; and
# the cases where sandprobe is stricter, failing where A3S passes.
. "$(dirname "$0")/../lib/tap.sh"
need jq

here=$(cd "$(dirname "$0")" && pwd)
MK=$here/a3s/mkcase.sh
T=$(mktemp -d /tmp/sandprobe-test.XXXXXX) && at_exit "rm -rf '$T'"

n_agree=0 n_stricter=0
while IFS=$'\t' read -r id a3s_case a3s_dec sp_dec want_gate flags; do
	case "$id" in '#'*|'') continue ;; esac
	d=$T/$id
	[ -d "$d" ] || "$MK" "$id" "$d" || { TAP_NAME="$id: mkcase.sh writes the bundle" ok false; continue; }
	# shellcheck disable=SC2086 # flags are words
	if [ -n "$flags" ]; then
		js=$("$SP_BIN" verify --input a3s --format json $flags "$d" 2>"$T/err"); rc=$?
	else
		js=$("$SP_BIN" verify --format json "$d" 2>"$T/err"); rc=$? # auto-detected
	fi
	label="$id ($a3s_case${flags:+; $flags})"
	if [ "$sp_dec" = pass ]; then
		is "$rc" 0 "$label: passes"
		[ "$rc" = 0 ] || printf '%s\n' "$js" | jq -r '.gates[] | select(.status == "fail") | "#   \(.id): \(.message)"'
	else
		is "$rc" 1 "$label: fails"
		is "$(jq -r --arg g "$want_gate" '.gates[] | select(.id == $g) | .status' <<<"$js")" fail "$label: gate $want_gate fails"
	fi
	like "$(jq -r .input <<<"$js")" '^a3s\.(host|cluster)$|^a3s$' "$id: judged as an A3S bundle"
	if [ "$a3s_dec" = "$sp_dec" ]; then n_agree=$((n_agree + 1)); else n_stricter=$((n_stricter + 1)); fi
done <"$here/a3s/cases.tsv"
echo "# $n_agree cases decided as A3S decides them, $n_stricter where sandprobe is stricter"

# every reported gate id is in the catalogue (the self-test checks the same
# for sandprobe bundles); the text output names the kind
"$MK" cluster-pass "$T/c2"
out=$("$SP_BIN" verify --format a3s "$T/c2"); rc=$?
is "$rc" 0 "--format a3s: a passing cluster bundle exits 0"
like "$out" '^sandprobe verify .* \(a3s.cluster bundle, profile none\)' "text output names the A3S kind"
like "$out" 'PASS a3s.runtimeclass ' "text output: one line per gate"
like "$(tail -1 <<<"$out")" '^result: PASS \([0-9]+ gates passed, 0 failed\)' "text output ends with the verdict"
ids=$("$SP_BIN" verify --input a3s --format json "$T/c2" | jq -r '.gates[].id' | sort | uniq -d)
is "$ids" "" "gate ids are unique"
out=$("$SP_BIN" verify --input a3s --format json "$T/host-pass" | jq -r '.gates[].id')
is "$(printf '%s\n' "$out" | grep -c '^a3s\.')" "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" "every gate of an A3S verdict is an a3s.* gate"

# usage errors: exit 2, nothing judged
"$SP_BIN" verify --format a3s --kind pod "$T/c2" >/dev/null 2>"$T/err"; is "$?" 2 "--kind pod: exit 2"
like "$(cat "$T/err")" "kind pod: not host, cluster or auto" "--kind pod: says why"
"$SP_BIN" verify --format a3s --min-samples x "$T/c2" >/dev/null 2>"$T/err"; is "$?" 2 "--min-samples x: exit 2"
"$SP_BIN" verify --format a3s --baseline /dev/null "$T/c2" >/dev/null 2>"$T/err"; is "$?" 2 "--baseline on an A3S bundle: exit 2"
"$SP_BIN" verify --format a3s --profile G9 "$T/c2" >/dev/null 2>"$T/err"; is "$?" 2 "--profile G9 on an A3S bundle: exit 2"
"$here/mkbundle.sh" "$T/sp" >/dev/null
"$SP_BIN" verify --min-samples 3 "$T/sp" >/dev/null 2>"$T/err"; is "$?" 2 "an A3S gate flag on a sandprobe bundle: exit 2"
like "$(cat "$T/err")" "not an A3S bundle" "... and says so"
"$SP_BIN" verify "$T/sp" >/dev/null; is "$?" 0 "a sandprobe bundle is still judged as one (auto)"
"$SP_BIN" verify --format a3s "$T/sp" >/dev/null 2>&1; is "$?" 1 "a sandprobe bundle forced through --format a3s fails (a3s.kind)"

# verifying through a symlink to the bundle
ln -s "$T/c2" "$T/c2-link"
"$SP_BIN" verify --format a3s "$T/c2-link" >/dev/null; is "$?" 0 "an A3S bundle verified through a symlink passes"

done_testing
