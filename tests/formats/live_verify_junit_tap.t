#!/usr/bin/env bash
# live and verify as JUnit and TAP, on real runs, fed to xmllint (against
# docs/schema/junit.xsd) and prove. Each must agree with the verb's own
# verdict: its exit code, its JSON (failed gates, a negative control's
# required failures reported as passes).
. "$SP_ROOT/tests/lib/tap.sh"
# live needs a static doctor: under SP_SAN=1 the normal build's
LDOC=$SP_DOCTOR
[ "${SP_SAN:-0}" = 1 ] && LDOC=$SP_ROOT/build/sandprobe-doctor
need xmllint "libxml2-utils not installed"
need prove "perl (prove) not installed"
need jq
need_root
XSD=$SP_ROOT/docs/schema/junit.xsd
T=$(sp_tmpdir)
at_exit "rm -rf '$T'"

# --- verify: a passing and an edited bundle from a real R0 soak ---
if command -v bwrap >/dev/null && [ -x /bin/busybox ]; then
	mkdir -p "$T/state"
	sed "s#^state_root: .*#state_root: $T/state#" "$SP_ROOT/workloads/bwrap-churn.yaml" >"$T/w.yaml"
	"$SP_BIN" soak --workload "$T/w.yaml" --profile R0 --out "$T/b" --seed 3 >/dev/null 2>&1
	cp -r "$T/b" "$T/e"
	printf 'x\n' >>"$T/e/operations.tsv"
	for b in b e; do
		"$SP_BIN" verify "$T/$b" --format json >"$T/$b.json"
		vrc=$?
		"$SP_BIN" verify "$T/$b" --format junit -o "$T/$b.xml" >/dev/null
		is "$?" "$vrc" "verify --format junit exits as verify does ($vrc, bundle $b)"
		TAP_NAME="verify JUnit validates (bundle $b)" ok xmllint --noout --schema "$XSD" "$T/$b.xml"
		is "$(xmllint --xpath 'count(//testcase)' "$T/$b.xml")" "$(jq '.gates | length' "$T/$b.json")" "one testcase per gate ($b)"
		is "$(xmllint --xpath 'count(//testcase/failure)' "$T/$b.xml")" "$(jq '.summary.fail' "$T/$b.json")" "a failure per failed gate ($b)"
		first=$(jq -r '[.gates[] | select(.status == "fail")][0].id // empty' "$T/$b.json")
		if [ -n "$first" ]; then
			is "$(xmllint --xpath "count(//testcase[@name='$first']/failure)" "$T/$b.xml")" 1 "the failed gate $first is the failure"
		fi
		"$SP_BIN" verify "$T/$b" --format tap >"$T/$b.tap"
		out=$(prove --exec cat "$T/$b.tap" 2>&1)
		prc=$?
		unlike "$out" 'Parse errors' "verify TAP parses ($b)"
		if [ "$vrc" = 0 ]; then is "$prc" 0 "prove passes the passing verdict"; else isnt "$prc" 0 "prove fails the failing verdict"; fi
	done
	is "$(jq -r .result "$T/e.json")" fail "ground truth: the edited bundle fails verify"
else
	skip "verify samples need bwrap and /bin/busybox"
fi

# --- live: a strict lane and two negative controls ---
if command -v bwrap >/dev/null; then
	m=(live --matrix --runtimes bwrap --variants strict,host-pid,writable-root)
	"$SP_BIN" "${m[@]}" --doctor "$LDOC" --format json -o "$T/live.json" >/dev/null 2>&1
	lrc=$?
	"$SP_BIN" "${m[@]}" --doctor "$LDOC" --format junit -o "$T/live.xml" >/dev/null 2>&1
	is "$?" "$lrc" "live --format junit exits as live does ($lrc)"
	TAP_NAME="live JUnit validates" ok xmllint --noout --schema "$XSD" "$T/live.xml"
	is "$(xmllint --xpath 'count(/testsuites/testsuite)' "$T/live.xml")" "$(jq '.lanes | length' "$T/live.json")" "one suite per lane"
	nf=$(xmllint --xpath 'number(/testsuites/@failures) + number(/testsuites/@errors)' "$T/live.xml")
	if [ "$lrc" = 0 ]; then is "$nf" 0 "a passing live run has no failure"; else isnt "$nf" 0 "a failing live run has failures"; fi
	for v in host-pid writable-root; do
		for id in $(jq -r --arg v "$v" '.lanes[] | select(.variant == $v) | .must_fail[]' "$T/live.json"); do
			st=$(jq -r --arg v "$v" --arg id "$id" '.lanes[] | select(.variant == $v) | .results[] | select(.id == $id) | .status' "$T/live.json")
			like "$st" "^(fail|error)$" "$v: $id did fail in the run (JSON)"
			is "$(xmllint --xpath "count(//testsuite[@name='live.bwrap.$v']/testcase[@name='$id']/failure)" "$T/live.xml")" 0 \
				"$v: $id ($st, required to fail) is not a JUnit failure"
		done
	done
	"$SP_BIN" "${m[@]}" --doctor "$LDOC" --format tap >"$T/live.tap" 2>/dev/null
	out=$(prove --exec cat "$T/live.tap" 2>&1)
	prc=$?
	unlike "$out" 'Parse errors' "live TAP parses"
	if [ "$lrc" = 0 ]; then is "$prc" 0 "prove agrees with live: PASS"; else isnt "$prc" 0 "prove agrees with live: FAIL"; fi
else
	skip "live needs bwrap"
fi
done_testing
