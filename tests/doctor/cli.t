#!/usr/bin/env bash
# doctor's command line: bad input is a one-line error with exit 2 and runs
# nothing; --list, -k, --output, formats (JSON via jq, JUnit via xmllint,
# TAP via prove).
. "$(dirname "$0")/../lib/tap.sh"
need jq
need xmllint
need prove
D=$SP_DOCTOR
T=$(sp_tmpdir)

usage_error() { # name, args...
	local name=$1; shift
	local out rc
	out=$("$D" "$@" 2>&1 >/dev/null); rc=$?
	is "$rc" 2 "$name: exit 2"
	is "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" 1 "$name: one line of error"
	like "$out" "^sandprobe: " "$name: prefixed message"
	LAST_ERR=$out
}
usage_error "unknown flag" --bogus
like "$LAST_ERR" "unknown option '--bogus'" "unknown flag named"
usage_error "unknown profile" --profile nosuch
like "$LAST_ERR" "unknown profile 'nosuch'" "profile named"
usage_error "unknown -k word" -k 'ns and nosuchthing'
like "$LAST_ERR" "'nosuchthing' matches no check" "-k word named"
usage_error "bad -k syntax" -k '(ns'
usage_error "-k id: names nothing" -k 'id:'
usage_error "-k unknown exact id" -k 'id:ns'
like "$LAST_ERR" "'id:ns' matches no check" "an exact id is not a substring"
# a selection that the policy turns off entirely is no verdict (no 0-check PASS)
usage_error "-k selecting only checks that are off" --profile host -k 'id:proc.required' -o "$T/off.out"
like "$LAST_ERR" "-k 'id:proc.required' selects no check that policy 'host' runs" "expression and profile named"
TAP_NAME="nothing selected: no report file created" ok test ! -e "$T/off.out"
: > "$T/empty.ini"
usage_error "empty policy file" --policy "$T/empty.ini"
like "$LAST_ERR" "empty.ini: sets no key and names no base profile" "empty policy refused, file named"
printf '# only a comment\n[policy]\nname = mine\n' > "$T/keyless.ini"
usage_error "keyless policy file" --policy "$T/keyless.ini"
printf '[policy]\nbase = strict\n' > "$T/base.ini"
"$D" --policy "$T/base.ini" -k 'id:ns.pid' -q; rc=$?
is "$rc" 1 "a policy naming only its base is the base profile (strict: ns.pid fails on the host)"
mkdir -p "$T/mdir"
usage_error "manifest is a directory" --manifest "$T/mdir"
like "$LAST_ERR" "--manifest .*mdir: is a directory" "manifest directory named"
usage_error "manifest missing" --manifest "$T/nomanifest.json"
like "$LAST_ERR" "--manifest .*nomanifest.json: No such file or directory" "missing manifest named, no -1:-1"
usage_error "unknown --set key" --set no.such=1
like "$LAST_ERR" "unknown policy key 'no.such'" "key named"
printf '[ns]\nrequired = pid\n[fs]\nbogus = 1\n' > "$T/bad.ini"
usage_error "unknown key in policy file" --policy "$T/bad.ini"
like "$LAST_ERR" "bad.ini:4: unknown policy key 'fs.bogus'" "file, line and key named"
printf '[ns]\nrequired = pid\n=oops\n' > "$T/malformed.ini"
usage_error "malformed policy" --policy "$T/malformed.ini"
like "$LAST_ERR" "malformed.ini:3" "line named"
usage_error "missing policy file" --policy "$T/none.ini"
usage_error "profile and policy together" --profile strict --policy "$T/bad.ini"
usage_error "bad format" --format xml
usage_error "bad timeout" --timeout-ms 0
usage_error "stray argument" extra
usage_error "unwritable output" --output /proc/version/nope
usage_error "malformed manifest" --manifest "$T/bad.ini"
mkdir -p "$T/ro"
usage_error "output is a directory" --output "$T/ro"
# nothing was run or written on bad input
"$D" --output "$T/out.txt" --set no.such=1 2>/dev/null
ok test ! -e "$T/out.txt"
TAP_NAME="no output file created on a usage error" ok test ! -e "$T/out.txt"

# --help
out=$("$D" --help); rc=$?
is "$rc" 0 "--help exits 0"
like "$out" "--profile NAME" "--help explains the options"

# --list
list=$("$D" --list --format json)
is "$(printf '%s' "$list" | jq -r .schema)" "sandprobe.checks.v1" "--list json schema"
n=$(printf '%s' "$list" | jq '.checks | length')
ok test "$n" -ge 15
for id in ns.pid ns.net ns.mnt ns.uts ns.ipc ns.user ns.cgroup proc.host_visible caps.effective caps.bounding priv.no_new_privs seccomp.mode fs.rootfs_readonly fs.writable_paths; do
	is "$(printf '%s' "$list" | jq -r --arg id $id '.checks[] | select(.id==$id) | .id')" "$id" "--list has $id"
done
is "$(printf '%s' "$list" | jq -r '.checks[] | select(.id=="ns.pid") | .expect')" required "strict: ns.pid required"
is "$("$D" --list --format json --profile host | jq -r '.checks[] | select(.id=="ns.pid") | .expect')" advisory "host: ns.pid advisory"
is "$(printf '%s' "$list" | jq -r '.checks[] | select(.id=="ns.pid") | .policy["ns.required"]')" "pid,net,mnt,uts,ipc,user,cgroup" "--list shows the policy values a check reads"
text=$("$D" --list -k caps)
like "$text" "caps.effective" "--list -k filters (kept)"
unlike "$text" "ns.pid" "--list -k filters (dropped)"

# -k runs only the selection
out=$("$D" --profile host -k 'ns. and not (user or cgroup)' --format json)
is "$(printf '%s' "$out" | jq -r '[.results[].id] | join(",")')" "ns.pid,ns.net,ns.mnt,ns.uts,ns.ipc,ns.time" "-k selects exactly"

# the exact forms: a glob over the whole id, cat:, id:
out=$("$D" --profile host -k 'ns.* or caps.*' --format json)
is "$(printf '%s' "$out" | jq -r '[.results[].id | select(startswith("ns.") or startswith("caps.") | not)] | join(",")')" "" "ns.* or caps.*: no seccomp.unshare, kernel.userns, ..."
TAP_NAME="ns.* selects the namespaces" ok test "$(printf '%s' "$out" | jq '[.results[] | select(.id | startswith("ns."))] | length')" -ge 8
out=$("$D" --profile host -k 'ns' --format json)
like "$(printf '%s' "$out" | jq -r '[.results[].id] | join(",")')" "seccomp.unshare" "a bare word stays a substring"
out=$("$D" --profile host -k 'cat:namespaces and not id:ns.time' --format json)
is "$(printf '%s' "$out" | jq -r '[.results[].id] | join(",")')" "ns.pid,ns.net,ns.mnt,ns.uts,ns.ipc,ns.user,ns.cgroup" "cat: and id: select exactly"

# formats on this host (host profile: warnings, exit 0)
"$D" --profile host --format json --output "$T/r.json"; rc=$?
is "$rc" 0 "host profile: exit 0 (warnings only)"
ok jq -e '.schema == "sandprobe.doctor.v1" and (.results|length) >= 15 and .result == "pass" and .summary.warn > 0' "$T/r.json"
ok jq -e '.environment.kernel != "" and .environment.arch != "" and (.environment.uid|type) == "number" and .environment.runtime_guess != ""' "$T/r.json"
ok jq -e '[.results[] | select(.status as $s | ["pass","fail","skip","warn","error"] | index($s) | not)] | length == 0' "$T/r.json"
ok jq -e '[.results[] | select((.techniques|type) != "array" or (.duration_us|type) != "number")] | length == 0' "$T/r.json"
"$D" --profile host --format junit --output "$T/r.xml"
ok xmllint --noout "$T/r.xml"
is "$(xmllint --xpath 'count(//testcase)' "$T/r.xml")" "$(jq '.results|length' "$T/r.json")" "junit: one testcase per check"
"$D" --format junit --output "$T/strict.xml"
ok test "$(xmllint --xpath 'count(//testcase/failure)' "$T/strict.xml")" -gt 0
"$D" --profile host --format tap --output "$T/r.tap"
ok prove -e cat "$T/r.tap"
"$D" --format tap --output "$T/strict.tap"
TAP_NAME="prove sees the failures of a strict run on the host" ok bash -c "! prove -e cat '$T/strict.tap' >/dev/null 2>&1"

# text format and exit code under strict on the host
out=$("$D" 2>&1); rc=$?
is "$rc" 1 "strict on an unconfined host: exit 1"
like "$out" "^FAIL: ns.pid -- " "FAIL line for ns.pid"
like "$(printf '%s\n' "$out" | tail -1)" "^RESULT: FAIL -- [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped, [0-9]+ warned, [0-9]+ errors$" "RESULT line"
bad=$(printf '%s\n' "$out" | grep -vE '^(PASS|FAIL|WARN|SKIP|ERROR): |^      (expected|observed): |^RESULT: ' | head -3)
is "$bad" "" "every line is a verdict, evidence or the RESULT line"
# -x stops after the first failure
n=$("$D" -x --format json | jq '.results|length')
is "$n" 1 "-x stops after the first failing check"
# --strict turns skips into failures
out=$("$D" --profile host --set fs.writable= -k writable --strict --format json)
is "$(printf '%s' "$out" | json_status fs.writable_paths)" fail "--strict: a skip becomes a failure"
out=$("$D" --profile host --set fs.writable= -k writable --format json)
is "$(printf '%s' "$out" | json_status fs.writable_paths)" skip "without --strict it is a skip"
# -v prints evidence for passing checks too
like "$("$D" --profile host -v -k time)" "expected: " "-v prints evidence of passing checks"

# every selected check skips (no proxy in the environment or the policy): nothing
# was proven, which is not a pass -- RESULT: SKIP and exit 1 in every format
np() { env -u HTTPS_PROXY -u HTTP_PROXY -u ALL_PROXY -u https_proxy -u http_proxy -u all_proxy "$D" --profile host \
	-k 'net.proxy.*' "$@"; }
out=$(np); rc=$?
is "$rc" 1 "all skipped: exit 1"
is "$(printf '%s\n' "$out" | tail -1)" "RESULT: SKIP -- nothing was proven: all $(printf '%s\n' "$out" | grep -c '^SKIP: ') selected checks skipped" \
	"all skipped: RESULT: SKIP names the count"
is "$(printf '%s\n' "$out" | grep -cvE '^(SKIP: |RESULT: )')" 0 "... and every check line is a SKIP"
out=$(np --format json); rc=$?
is "$rc/$(printf '%s' "$out" | jq -r '.result')" "1/skip" "all skipped: JSON result skip, exit 1"
is "$(printf '%s' "$out" | jq '[.results[] | select(.status != "skip")] | length')" 0 "... its results are all skips"
like "$(np --format tap | tail -1)" "^# SKIP -- nothing was proven: all [0-9]+ selected checks skipped$" "all skipped: TAP says so"
is "$(np --format junit | xmllint --xpath 'string(//property[@name="result"]/@value)' -)" skip "all skipped: JUnit result property skip"
# one pass beside the skips is a verdict
out=$(np --format json -k 'net.proxy.* or id:ns.pid'); rc=$?
is "$rc/$(printf '%s' "$out" | jq -r '.result')" "0/pass" "a pass beside the skips: result pass, exit 0"
done_testing
