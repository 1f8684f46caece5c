#!/usr/bin/env bash
# Malformed input never crashes the linter: truncated JSON and YAML, wrong
# types, duplicate keys, huge and deeply nested inputs, binary data. Each is
# a one-line error naming file:line:column, exit 2, nothing on stdout.
. "$(dirname "$0")/../lib/tap.sh"
FIX=$(cd "$(dirname "$0")/fixtures" && pwd)
T=$(sp_tmpdir)

# expect_usage NAME REGEX FILE [ARGS...]: exit 2, one stderr line matching REGEX,
# and the report's lint.input_invalid finding at the position stderr names
expect_usage() {
	local name=$1 re=$2
	shift 2
	"$SP_BIN" lint --format json "$@" >"$T/stdout" 2>"$T/stderr"
	local rc=$?
	is "$rc" 2 "$name: exit 2"
	like "$(cat "$T/stderr")" "^sandprobe: $re" "$name: the error names the place"
	is "$(wc -l <"$T/stderr" | tr -d ' ')" 1 "$name: one line on stderr"
	# file:line:col: on stderr -> the finding's line and column ("file: msg": line 1)
	local pos want
	pos=$(sed -E 's/^sandprobe: //' "$T/stderr" | awk -v f="${*: -1}" '{ r = substr($0, length(f) + 2); if (match(r, /^[0-9]+:[0-9]+:/)) print substr(r, 1, RLENGTH - 1); else if (match(r, /^[0-9]+:/)) print substr(r, 1, RLENGTH - 1) ":1"; else print "1:1" }')
	want=$(jq -r '[.findings[] | select(.rule == "lint.input_invalid") | "\(.line):\(.column)"] | join(" ")' "$T/stdout" 2>/dev/null)
	is "$want" "$pos" "$name: reported as lint.input_invalid at $pos"
}

# a file that is no config at all: one line, exit 2, no report (not even with
# --output: nothing is created), whatever the format
expect_refused() { # NAME REGEX FILE
	rm -f "$T/refused.out"
	"$SP_BIN" lint "$3" >"$T/stdout" 2>"$T/stderr"
	is "$?" 2 "$1: exit 2"
	like "$(cat "$T/stderr")" "^sandprobe: lint: $2" "$1: the error names the file"
	is "$(wc -l <"$T/stderr" | tr -d ' ')" 1 "$1: one line on stderr"
	is "$(wc -c <"$T/stdout" | tr -d ' ')" 0 "$1: nothing on stdout (no RESULT line)"
	"$SP_BIN" lint --format sarif -o "$T/refused.out" "$FIX/good/oci.json" "$3" >/dev/null 2>&1
	TAP_NAME="$1: beside a good file, with --output: exit 2 and no report written" ok test $? = 2 -a ! -e "$T/refused.out"
}

# truncated JSON: the position is where the text ends
head -c 300 "$FIX/good/oci.json" >"$T/trunc.json"
lines=$(wc -l <"$T/trunc.json" | tr -d ' ')
expect_usage "truncated JSON" "$T/trunc.json:$((lines + 1)):[0-9]+: invalid JSON: " "$T/trunc.json"

# wrong types, located on the offending member
sed 's/"noNewPrivileges": true/"noNewPrivileges": "yes"/' "$FIX/good/oci.json" >"$T/type.json"
l=$(grep -n noNewPrivileges "$T/type.json" | cut -d: -f1)
expect_usage "OCI wrong type" "$T/type.json:$l:5: /process/noNewPrivileges: expected a boolean, got a string" "$T/type.json"
sed 's/"limit": 256/"limit": "256"/' "$FIX/good/oci.json" >"$T/type2.json"
expect_usage "OCI wrong type deep" "$T/type2.json:[0-9]+:[0-9]+: /linux/resources/pids/limit: expected an integer" "$T/type2.json"
printf '{"domains": {"pypi.org": ["ro"]}}\n' >"$T/al.json"
expect_usage "allowlist wrong type" "$T/al.json:1:14: /domains/pypi.org: expected a string, got an array" "$T/al.json"
printf '{"inference_providers": []}\n' >"$T/al2.json"
expect_usage "allowlist without domains" "$T/al2.json:1:1: /: \"domains\" is required" "$T/al2.json"
printf '{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": "mount", "action": "SCMP_ACT_ALLOW"}]}\n' >"$T/sc.json"
expect_usage "seccomp wrong type" "$T/sc.json:1:51: /syscalls/0/names: expected an array or null, got a string" "$T/sc.json"

# duplicate keys are refused at parse time (a second "pypi.org" could hide the first)
printf '{"domains": {\n  "pypi.org": "ro",\n  "pypi.org": "rw"}}\n' >"$T/dup.json"
expect_usage "duplicate key" "$T/dup.json:3:[0-9]+: invalid JSON: duplicate object key" "$T/dup.json"

# YAML: truncated, wrong types
printf 'services:\n  agent:\n    cap_add: [NET_ADMIN\n' >"$T/trunc.yaml"
expect_usage "truncated YAML" "$T/trunc.yaml:4:1: invalid YAML: " "$T/trunc.yaml"
printf 'services: 5\n' >"$T/svc.yaml"
expect_usage "compose wrong type" "$T/svc.yaml:1:11: /services: expected a mapping, got a scalar" "$T/svc.yaml"
printf 'apiVersion: v1\nkind: Pod\nspec:\n  containers: nginx\n' >"$T/pod.yaml"
expect_usage "kube wrong type" "$T/pod.yaml:4:15: /spec/containers: expected a sequence, got a scalar" "$T/pod.yaml"
printf 'services:\n  a:\n    privileged: [true]\n' >"$T/priv.yaml"
expect_usage "compose wrong scalar" "$T/priv.yaml:3:17: /services/a/privileged: expected a scalar" "$T/priv.yaml"

# a key given twice in a YAML mapping (kubectl and compose refuse it; the
# second hostPID would hide behind the first); in a JSON List item too
printf 'apiVersion: v1\nkind: Pod\nspec:\n  hostPID: false\n  containers: []\n  hostPID: true\n' >"$T/dup.yaml"
expect_usage "YAML duplicate key" "$T/dup.yaml:6:3: duplicate key 'hostPID' \\(first at line 4\\)" "$T/dup.yaml"
printf '{"apiVersion": "v1", "kind": "List", "items": [\n {"apiVersion": "v1", "kind": "Pod",\n  "spec": {"hostPID": false, "hostPID": true}}]}\n' >"$T/dupl.json"
expect_usage "JSON List item duplicate key" "$T/dupl.json:3:30: duplicate key 'hostPID'" "$T/dupl.json"

# squid: bad directives name the line
printf 'http_port 3128\nhttp_access maybe all\n' >"$T/bad.conf"
expect_usage "squid bad http_access" "$T/bad.conf:2:1: http_access needs allow or deny" "$T/bad.conf"
printf 'http_port 3128\nhttp_access allow nosuchacl\n' >"$T/bad2.conf"
expect_usage "squid undefined acl" "$T/bad2.conf:2:1: http_access uses undefined acl 'nosuchacl'" "$T/bad2.conf"
printf 'http_port 127.0.0.1:99999\n' >"$T/bad3.conf"
expect_usage "squid bad port" "$T/bad3.conf:1:11: http_port '127.0.0.1:99999'" "$T/bad3.conf"

# huge input: refused before it is read into memory
truncate -s 65M "$T/huge.json"
expect_refused "huge file" "$T/huge.json: file too large" "$T/huge.json"
# deep nesting: jansson's depth limit, and ours for YAML flow nesting (libyaml is quadratic there)
head -c 100000 /dev/zero | tr '\0' '[' >"$T/deep.json"
expect_usage "deep JSON" "$T/deep.json:1:[0-9]+: invalid JSON: maximum parsing depth" "$T/deep.json"
{ printf 'services: '; head -c 100000 /dev/zero | tr '\0' '['; } >"$T/deep.yaml"
start=$(date +%s%N)
expect_usage "deep YAML" "$T/deep.yaml:1:[0-9]+: YAML nested deeper than 1000 levels" "$T/deep.yaml"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
TAP_NAME="deep YAML refused in under 2 s (${ms} ms)" ok test "$ms" -lt 2000

# alias bombs cost nothing: aliases share nodes, walkers follow fixed paths
{
	printf 'x-bomb:\n  a: &a [x, x, x, x, x, x, x, x, x]\n'
	prev=a
	for k in b c d e f g h i; do printf '  %s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n' $k $k $prev $prev $prev $prev $prev $prev $prev $prev $prev; prev=$k; done
	printf 'services:\n  agent:\n    environment: *i\n'
} >"$T/bomb.yaml"
"$SP_BIN" lint "$T/bomb.yaml" >/dev/null 2>"$T/stderr"
rc=$?
is "$rc" 2 "alias bomb under environment: a clean type error, exit 2"
printf 'services: &s\n  a:\n    read_only: true\n    user: "1000"\n    security_opt: [no-new-privileges:true]\n  b: *s\n' >"$T/rec.yaml"
timeout 10 "$SP_BIN" lint "$T/rec.yaml" >/dev/null 2>&1
rc=$?
TAP_NAME="a recursive alias neither hangs nor crashes (exit $rc)" ok test "$rc" -lt 3

# binary, empty, missing, unknown
printf '{"a":\0}' >"$T/bin.json"
expect_refused "binary data" "$T/bin.json: binary data" "$T/bin.json"
: >"$T/empty"
expect_refused "empty file" "$T/empty: is empty" "$T/empty"
expect_refused "missing file" "$T/nope.json: No such file" "$T/nope.json"
mkdir -p "$T/adir"
expect_refused "a directory" "$T/adir: is a directory" "$T/adir"
printf '{"hello": "world"}\n' >"$T/what.json"
expect_usage "unknown JSON kind" "$T/what.json: cannot tell what kind of config this is" "$T/what.json"
printf '{"domains": {"caf\xe9.example": "ro"}}\n' >"$T/utf.json"
expect_usage "invalid UTF-8" "$T/utf.json:1:[0-9]+: invalid JSON: " "$T/utf.json"
# a bad file among others: the others are still linted and reported
"$SP_BIN" lint --format json "$FIX/trigger/oci.caps_dangerous.json" "$T/dup.json" "$FIX/trigger/kube.privileged.yaml" \
	>"$T/stdout" 2>"$T/stderr"
is "$?" 2 "one malformed file among others: exit 2"
is "$(jq -r '[.findings[].rule] | map(select(. == "oci.caps_dangerous" or . == "kube.privileged" or . == "lint.input_invalid")) | unique | join(" ")' "$T/stdout")" \
	"kube.privileged lint.input_invalid oci.caps_dangerous" "and the other files' findings are reported beside the error"
is "$(jq -r '[.files[].path | split("/") | last] | join(" ")' "$T/stdout")" "oci.caps_dangerous.json dup.json kube.privileged.yaml" \
	"every file is in the report"
is "$(jq -r '.result' "$T/stdout")" fail "the result is fail"
# a type error in one document: that document is reported, the next ones are linted
printf 'apiVersion: v1\nkind: Pod\nspec:\n  containers: nginx\n---\napiVersion: v1\nkind: Pod\nspec:\n  hostPID: true\n' >"$T/two.yaml"
"$SP_BIN" lint --format json "$T/two.yaml" >"$T/stdout" 2>/dev/null
is "$?" 2 "a type error in the first document: exit 2"
is "$(jq -r '[.findings[] | select(.rule == "lint.input_invalid" or .rule == "kube.host_namespace") | "\(.rule)@\(.line)"] | join(" ")' "$T/stdout")" \
	"lint.input_invalid@4 kube.host_namespace@9" "the second document is still linted"
done_testing
