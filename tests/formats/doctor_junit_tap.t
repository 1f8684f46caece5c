#!/usr/bin/env bash
# The doctor's JUnit and TAP, fed to their consumers' own tools: xmllint
# against docs/schema/junit.xsd (the common JUnit schema's rules: time with at
# most 3 decimals, no skipped on <testsuites>), and prove (TAP::Harness), whose
# verdict must agree with the doctor's exit code. A path holding invalid UTF-8
# must still give valid XML and TAP.
. "$SP_ROOT/tests/lib/tap.sh"
need xmllint "libxml2-utils not installed"
need prove "perl (prove) not installed"
XSD=$SP_ROOT/docs/schema/junit.xsd
T=$(sp_tmpdir)
bad=$'/nonexistent/\xff\xfe-\xed\xa0\x80-\x01<&]]>'

"$SP_DOCTOR" --profile host --format junit -o "$T/host.xml" >/dev/null 2>&1
TAP_NAME="doctor --profile host JUnit validates against junit.xsd" ok xmllint --noout --schema "$XSD" "$T/host.xml"
"$SP_DOCTOR" --profile strict -k 'ns or caps' --format junit >"$T/strict.xml"
rc=$?
is "$rc" 1 "the strict profile fails on this host (ground truth: we are in the initial namespaces)"
TAP_NAME="a failing JUnit report validates" ok xmllint --noout --schema "$XSD" "$T/strict.xml"
fails=$(xmllint --xpath 'count(//testcase/failure)' "$T/strict.xml")
attr=$(xmllint --xpath 'string(/testsuites/@failures)' "$T/strict.xml")
is "$fails" "$attr" "failures= on <testsuites> counts the <failure> elements"
is "$(xmllint --xpath 'count(/testsuites/@skipped)' "$T/strict.xml")" 0 "no skipped attribute on <testsuites>"
times=$(grep -oE 'time="[^"]*"' "$T/strict.xml" | grep -vcE 'time="[0-9]+\.[0-9]{3}"')
is "$times" 0 "every time= has exactly 3 decimals"

"$SP_DOCTOR" --profile strict -k id:fs.writable_paths --set "fs.writable=$bad" --format junit >"$T/utf8.xml"
like "$(cat -v "$T/utf8.xml")" 'nonexistent' "the hostile path is in the report"
TAP_NAME="invalid UTF-8, a surrogate, a control and ]]> in a path: JUnit still validates" \
	ok xmllint --noout --schema "$XSD" "$T/utf8.xml"
like "$(grep -c $'\xef\xbf\xbd' "$T/utf8.xml")" '^[1-9]' "ill-formed bytes became U+FFFD"
TAP_NAME="the JUnit file is well-formed UTF-8 (iconv)" ok bash -c "iconv -f UTF-8 -t UTF-8 '$T/utf8.xml' >/dev/null"
msg=$(xmllint --xpath 'string(//testcase/failure/@message)' "$T/utf8.xml" 2>/dev/null)
like "$msg" 'writable' "the failure message survives escaping"
body=$(xmllint --xpath 'string(//testcase/failure)' "$T/utf8.xml" 2>/dev/null)
like "$body" '<&\]\]>' "markup characters in the body read back literally"

# TAP through prove: its verdict agrees with the doctor's
"$SP_DOCTOR" --profile host -k 'ns or caps' --format tap >"$T/host.tap"
hrc=$?
out=$(prove --exec cat "$T/host.tap" 2>&1)
prc=$?
is "$hrc" 0 "doctor --profile host -k 'ns or caps' passes (WARNs are advisory)"
is "$prc" 0 "prove agrees: PASS"
unlike "$out" 'Parse errors' "prove reports no TAP parse error"
"$SP_DOCTOR" --profile strict -k 'ns or caps' --format tap >"$T/strict.tap"
src=$?
out=$(prove --exec cat "$T/strict.tap" 2>&1)
prc=$?
is "$src" 1 "doctor --profile strict fails here"
isnt "$prc" 0 "prove agrees: FAIL"
unlike "$out" 'Parse errors' "no parse error in a failing report"
nfail=$(grep -c '^not ok' "$T/strict.tap")
like "$out" "Failed $nfail/" "prove counts the same failures ($nfail)"
"$SP_DOCTOR" --profile strict -k id:fs.writable_paths --set "fs.writable=$bad" --format tap >"$T/utf8.tap"
out=$(prove -v --exec cat "$T/utf8.tap" 2>&1)
unlike "$out" 'Parse errors' "a hostile path gives no TAP parse error"
TAP_NAME="the TAP file is well-formed UTF-8" ok bash -c "iconv -f UTF-8 -t UTF-8 '$T/utf8.tap' >/dev/null"
yaml=$(sed -n '/^  ---$/,/^  \.\.\.$/p' "$T/utf8.tap" | sed '1d;$d;s/^  //')
TAP_NAME="the TAP YAML diagnostic block parses as YAML (python3 yaml)" \
	ok /usr/bin/python3 -c 'import sys, yaml; d = yaml.safe_load(sys.stdin.read()); assert d["status"] == "fail", d' <<<"$yaml"
done_testing
