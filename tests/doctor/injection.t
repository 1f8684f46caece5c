#!/usr/bin/env bash
# Injection: --manifest FILE lists env vars and files the host injected; the
# doctor checks each exactly. A malformed or missing manifest is a usage
# error (exit 2) that names the file and the field, before any check runs.
. "$(dirname "$0")/../lib/tap.sh"
need jq
need_root

D="$SP_DOCTOR"
st() { printf '%s' "$2" | json_status "$1"; }
obs() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | .observed'; }
T=$(mktemp -d /tmp/sandprobe-test.XXXXXX)
at_exit "rm -rf '$T'" # registered here: inside $(...) it would be lost
mkdir "$T/secrets"
printf 'synthetic-token-value\n' >"$T/secrets/token"
chown 1000:1001 "$T/secrets/token"
chmod 0400 "$T/secrets/token"
printf 'x\n' >"$T/secrets/config"
chmod 0644 "$T/secrets/config"
chmod 0750 "$T/secrets"
manifest() { # extra JSON for files[0] fields
	cat <<EOF
{"version": 1,
 "env": [{"name": "API_BASE_URL"}, {"name": "AGENT_ID"}],
 "files": [
  {"path": "$T/secrets/token", "mode": "${1:-0400}", "uid": ${2:-1000}, "gid": ${3:-1001}},
  {"path": "$T/secrets/config", "mode": "0644", "uid": 0, "gid": 0, "type": "file"},
  {"path": "$T/secrets", "mode": "0750", "uid": 0, "gid": 0, "type": "dir"}
 ]}
EOF
}
manifest >"$T/m.json"
run() { API_BASE_URL=http://10.203.9.9 AGENT_ID=a1 "$D" --format json -k inject --manifest "$@"; }

rep=$(run "$T/m.json")
is "$?" 0 "exact manifest: doctor exits 0"
is "$(st inject.env "$rep")" pass "injected variables present"
is "$(st inject.files "$rep")" pass "injected files exactly as declared"
unlike "$rep" "synthetic-token-value|10\.203\.9\.9" "no injected value appears in the report"

rep=$(AGENT_ID=a1 "$D" --format json -k inject --manifest "$T/m.json")
is "$(st inject.env "$rep")" fail "a missing variable fails"
rep=$(API_BASE_URL= AGENT_ID=a1 "$D" --format json -k inject --manifest "$T/m.json")
is "$(st inject.env "$rep")" fail "an empty variable fails"

manifest 0440 >"$T/m2.json"
rep=$(run "$T/m2.json")
is "$(st inject.files "$rep")" fail "mode differs (0400 on disk, 0440 declared): fail"
like "$(obs inject.files "$rep")" 'mode 0400, not 0440' "the difference is shown"
manifest 0400 1000 0 >"$T/m3.json"
rep=$(run "$T/m3.json")
is "$(st inject.files "$rep")" fail "group differs: fail"
manifest 0400 0 1001 >"$T/m4.json"
rep=$(run "$T/m4.json")
is "$(st inject.files "$rep")" fail "owner differs: fail"

: >"$T/secrets/config"
rep=$(run "$T/m.json")
is "$(st inject.files "$rep")" fail "an empty injected file fails"
like "$(obs inject.files "$rep")" 'config: empty' "named as empty"
printf 'x\n' >"$T/secrets/config"
mv "$T/secrets/token" "$T/secrets/token.real"
ln -s token.real "$T/secrets/token"
rep=$(run "$T/m.json")
is "$(st inject.files "$rep")" fail "a symlink in place of the file fails (never followed)"
rm "$T/secrets/token"
rep=$(run "$T/m.json")
is "$(st inject.files "$rep")" fail "a missing file fails"
like "$(obs inject.files "$rep")" 'token: ENOENT' "missing named with ENOENT"

rep=$("$D" --format json -k inject)
is "$(st inject.files "$rep")" skip "no --manifest: skipped"

# --- malformed manifests: exit 2, one line naming file and field ---------------
bad() { # JSON NAME REGEX
	printf '%s' "$1" >"$T/bad.json"
	local err
	err=$("$D" -k inject --manifest "$T/bad.json" 2>&1 >/dev/null)
	local rc=$?
	is "$rc" 2 "$2: exit 2"
	like "$err" "$T/bad.json.*$3" "$2: message names the file and $3"
}
bad '{"version": 1, "files": [{"path": "/a", "mode": "0999", "uid": 0, "gid": 0}]}' "non-octal mode" 'files\[0\]\.mode'
bad '{"version": 1, "files": [{"path": "rel", "mode": "0400", "uid": 0, "gid": 0}]}' "relative path" 'files\[0\]\.path'
bad '{"version": 1, "files": [{"path": "/a", "mode": "0400", "gid": 0}]}' "missing uid" 'files\[0\]\.uid'
bad '{"version": 1, "files": [{"path": "/a", "mode": "0400", "uid": -1, "gid": 0}]}' "negative uid" 'files\[0\]\.uid'
bad '{"version": 1, "files": [{"path": "/a", "mode": "0400", "uid": 0, "gid": 0, "owner": "root"}]}' "unknown key" "unknown key 'owner'"
bad '{"version": 1, "env": [{"name": "1BAD"}]}' "bad variable name" 'env\[0\]\.name'
bad '{"version": 1, "env": [{"name": "A"}, {"name": "A"}]}' "duplicate variable" 'env\[1\]\.name'
bad '{"version": 2, "env": [{"name": "A"}]}' "wrong version" 'version'
bad '{"env": [{"name": "A"}]}' "missing version" 'version'
bad '{"version": 1}' "empty manifest" 'nothing to check'
bad '{"version": 1, "env": [' "truncated JSON" ':1:'
bad '[]' "not an object" 'top level'
err=$("$D" -k inject --manifest "$T/nope.json" 2>&1 >/dev/null)
is "$?" 2 "missing manifest file: exit 2"
like "$err" "nope\.json" "missing manifest: message names the file"

done_testing
