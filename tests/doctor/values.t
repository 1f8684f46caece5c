#!/usr/bin/env bash
# Values, not just presence: environment values (exact, pattern; a
# credential-shaped value never shown), the kernel release, interfaces that
# must be up (in a network namespace the test makes), swap on or off (the
# doctor reads /proc/swaps: a private mount namespace shows it a file the
# test writes), and the injection manifest's symlinks with their targets and
# environment values checked by SHA-256, never printed. Ground truth: the
# values the test sets, uname, ip link, the files it makes, sha256sum.
. "$(dirname "$0")/../lib/tap.sh"
need jq
need_root
need ip
need unshare
need sha256sum
T=$(sp_tmpdir)
D="$SP_DOCTOR"
st() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | .status'; }
ev() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | "\(.detail) | \(.observed)"'; }
is_st() {
	local got
	got=$(st "$2" "$1")
	if [ "$got" = "$3" ]; then _tap_result 0 "$4"; else _tap_result 1 "$4" "got '$got': $(ev "$2" "$1" | head -c 900)"; fi
}
doc() { "$D" --profile host --format json --set 'expect.*=required' "$@" 2>/dev/null; }

# ---- environment values ------------------------------------------------------
SECRET="sk-proj-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
out=$(env -i PATH=/usr/bin:/bin TERM=xterm-256color HOME=/home/agent OPENAI_API_KEY="$SECRET" "$D" --profile host \
	--format json --set 'expect.*=required' -k env.values \
	--set "env.values=TERM=xterm-256color; HOME~^/home/; PATH~(^|:)/usr/bin(:|\$); OPENAI_API_KEY~^sk-proj-" 2>/dev/null)
is_st "$out" env.values pass "exact and pattern values all hold"
unlike "$out" "$SECRET" "the credential-shaped value is not in the report"
like "$(ev env.values "$out")" "OPENAI_API_KEY matches \(value redacted" "it is reported redacted"
out=$(env -i PATH=/usr/bin:/bin TERM=dumb OPENAI_API_KEY="$SECRET-wrong" "$D" --profile host --format json \
	--set 'expect.*=required' -k env.values --set "env.values=TERM=xterm-256color; HOME~^/home/; OPENAI_API_KEY=$SECRET" \
	2>/dev/null)
is_st "$out" env.values fail "a wrong, a missing and a differing secret value fail"
like "$(ev env.values "$out")" "TERM=dumb DIFFERS" "the wrong value is shown"
like "$(ev env.values "$out")" "HOME unset" "the missing one named"
unlike "$(ev env.values "$out" | sed 's/^[^|]*|//')" "$SECRET" "the differing secret is not shown in the evidence"
"$D" --profile host --format json -k env.values --set "env.values=TERM" >"$T/bad.out" 2>"$T/bad.err"
is "$?" 2 "an entry without = or ~ is a usage error (exit 2), found when the policy loads"
like "$(cat "$T/bad.err")" "^sandprobe: --set env.values=TERM: env.values: 'TERM': expected NAME=VALUE or NAME~REGEX\$" \
	"one line naming the --set argument, the key and the entry"
is "$(wc -c <"$T/bad.out" | tr -d ' ')" 0 "no report: nothing ran"

# ---- kernel release ---------------------------------------------------------------
rel=$(uname -r)
out=$(doc -k env.kernel_release --set "env.kernel_release=$rel")
is_st "$out" env.kernel_release pass "the exact release (uname -r: $rel) passes"
out=$(doc -k env.kernel_release --set "env.kernel_release=$rel-other")
is_st "$out" env.kernel_release fail "another release fails"
out=$(doc -k env.kernel_release --set "env.kernel_release=~^${rel%%.*}\\.")
is_st "$out" env.kernel_release pass "a pattern of the major version passes"
out=$(doc -k env.kernel_release --set "env.kernel_release=~^0\\.")
is_st "$out" env.kernel_release fail "a pattern that does not match fails"

# ---- interfaces up -------------------------------------------------------------------
ns="spv$$"
ip netns add "$ns" || { echo "Bail out! cannot create a namespace"; exit 1; }
at_exit "ip netns del $ns"
ip -n "$ns" link add sp-up type veth peer name sp-down && ip -n "$ns" link set sp-up up
like "$(ip -n "$ns" -o link show sp-down)" "<BROADCAST,MULTICAST>" "ground truth: sp-down is down (no UP flag)"
like "$(ip -n "$ns" -o link show sp-up)" "[<,]UP[,>]" "ground truth: sp-up is up"
out=$(ip netns exec "$ns" "$D" --profile host --format json --set 'expect.*=required' -k env.interfaces_up \
	--set env.interfaces_up=sp-up 2>/dev/null)
is_st "$out" env.interfaces_up pass "an interface that is up passes"
out=$(ip netns exec "$ns" "$D" --profile host --format json --set 'expect.*=required' -k env.interfaces_up \
	--set env.interfaces_up=sp-up,sp-down,sp-absent,lo 2>/dev/null)
is_st "$out" env.interfaces_up fail "a down, an absent and a down lo fail"
like "$(ev env.interfaces_up "$out")" "sp-up up, no carrier; sp-down DOWN; sp-absent ABSENT; lo DOWN" "each named with its state"

# ---- swap ----------------------------------------------------------------------------
printf 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n' >"$T/swaps-off"
{ cat "$T/swaps-off"; printf '/swapfile                               file\t\t1048572\t\t0\t\t-2\n'; } >"$T/swaps-on"
with_swaps() { # FILE ARGS...: the doctor with FILE as /proc/swaps (private mount namespace)
	local f=$1
	shift
	unshare -m sh -c 'mount --bind "$1" /proc/swaps && shift && exec "$@"' - "$f" "$D" --profile host --format json \
		--set 'expect.*=required' -k env.swap "$@" 2>/dev/null
}
is_st "$(with_swaps "$T/swaps-on" --set env.swap=on)" env.swap pass "swap required on, one area active: pass"
is_st "$(with_swaps "$T/swaps-off" --set env.swap=on)" env.swap fail "swap required on, none active: fail"
is_st "$(with_swaps "$T/swaps-on" --set env.swap=off)" env.swap fail "swap required off, one active: fail"
is_st "$(with_swaps "$T/swaps-off" --set env.swap=off)" env.swap pass "swap required off, none active: pass"
"$D" --profile host -k env.swap --set env.swap=sometimes >"$T/bad.out" 2>"$T/bad.err"
is "$?" 2 "a value other than on/off/any is a usage error"
like "$(cat "$T/bad.err")" "env.swap: 'sometimes': expected on, off or any" "naming the key and the value"

# ---- manifest: symlinks and hashed values ------------------------------------------
mkdir -p "$T/opt/agent/bin"
printf '#!/bin/sh\n' >"$T/opt/agent/bin/agent"
ln -s "$T/opt/agent/bin/agent" "$T/agent"
ln -s ../elsewhere "$T/relative"
TOKEN="injected-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
H=$(printf '%s' "$TOKEN" | sha256sum | cut -d' ' -f1)
m() { # TARGET1 HASH [extra file fields]
	cat <<EOF
{"version": 1,
 "env": [{"name": "AGENT_TOKEN", "sha256": "$2"}],
 "files": [
  {"path": "$T/agent", "type": "symlink", "target": "$1"},
  {"path": "$T/relative", "type": "symlink", "target": "../elsewhere", "uid": 0, "gid": 0}${3:-}
 ]}
EOF
}
m "$T/opt/agent/bin/agent" "$H" >"$T/m.json"
out=$(AGENT_TOKEN="$TOKEN" "$D" --format json -k inject --manifest "$T/m.json" 2>/dev/null)
is_st "$out" inject.files pass "symlinks point exactly at their declared targets"
is_st "$out" inject.env pass "the injected value hashes to the manifest's sha256"
unlike "$out" "$TOKEN" "the injected value is not printed"
unlike "$(printf '%s' "$out" | jq -c '.results[] | {detail, observed}')" "$H" "nor its hash"
out=$(AGENT_TOKEN="$TOKEN-changed" "$D" --format json -k inject --manifest "$T/m.json" 2>/dev/null)
is_st "$out" inject.env fail "a value other than the injected one fails"
like "$(ev inject.env "$out")" "value DIFFERS from the injected one" "said, without the value"
unlike "$out" "$TOKEN" "still not printed"
m "$T/opt/agent/bin/other" "$H" >"$T/m2.json"
out=$(AGENT_TOKEN="$TOKEN" "$D" --format json -k inject --manifest "$T/m2.json" 2>/dev/null)
is_st "$out" inject.files fail "a symlink pointing elsewhere fails"
like "$(ev inject.files "$out")" "points at $T/opt/agent/bin/agent, not" "naming where it points"
m "$T/opt/agent/bin/agent" "$H" ", {\"path\": \"$T/opt/agent/bin/agent\", \"type\": \"symlink\", \"target\": \"x\"}" >"$T/m3.json"
out=$(AGENT_TOKEN="$TOKEN" "$D" --format json -k inject --manifest "$T/m3.json" 2>/dev/null)
like "$(ev inject.files "$out")" "bin/agent: is a file, not a symlink" "a regular file declared a symlink fails"

# the manifest's own errors: exit 2, naming the field
bad() { # JSON-FILES-ENTRY WHAT
	printf '{"version": 1, "files": [%s]}' "$1" >"$T/bad.json"
	local err
	err=$("$D" -k inject --manifest "$T/bad.json" 2>&1 >/dev/null)
	is "$?" 2 "manifest with $2: exit 2"
	like "$err" "files\[0\]\.(target|mode)" "and the message names the field ($2)"
}
bad "{\"path\": \"$T/agent\", \"type\": \"symlink\"}" "a symlink without target"
bad "{\"path\": \"$T/agent\", \"type\": \"symlink\", \"target\": \"x\", \"mode\": \"0777\"}" "a mode on a symlink"
bad "{\"path\": \"$T/agent\", \"mode\": \"0644\", \"uid\": 0, \"gid\": 0, \"target\": \"x\"}" "a target on a file"
printf '{"version": 1, "env": [{"name": "X", "sha256": "ABC"}]}' >"$T/bad.json"
"$D" -k inject --manifest "$T/bad.json" >/dev/null 2>"$T/err"
is "$?" 2 "a malformed sha256: exit 2"
like "$(cat "$T/err")" 'env\[0\]\.sha256' "naming env[0].sha256"
done_testing
