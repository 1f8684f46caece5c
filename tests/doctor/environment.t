#!/usr/bin/env bash
# Environment checks, each against a sandbox that has the property and one
# that lacks it. The credential values here are synthetic strings in the
# shape of real tokens, never real credentials.
. "$(dirname "$0")/../lib/tap.sh"
need jq
need unshare
need_root

D="$SP_DOCTOR"
st() { printf '%s' "$2" | json_status "$1"; }
obs() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | .observed'; }
CLEAN=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root)
FAKE_GH=ghp_$(printf 'Zz9%.0s' {1..12})
FAKE_AWS=AKIA$(printf 'Q%.0s' {1..16})

# --- credentials in the doctor's own environment ---------------------------
rep=$("${CLEAN[@]}" "$D" --format json -k env.credentials)
is "$(st env.credentials "$rep")" pass "clean environment: no credentials"
rep=$("${CLEAN[@]}" GITHUB_TOKEN="$FAKE_GH" AWS_ACCESS_KEY_ID="$FAKE_AWS" "$D" --format json -k env.credentials)
is "$(st env.credentials "$rep")" fail "token-shaped values in the environment fail"
like "$(obs env.credentials "$rep")" 'GITHUB_TOKEN: GitHub token \(value redacted, 40 chars\)' "the variable and shape are named"
like "$(obs env.credentials "$rep")" 'AWS_ACCESS_KEY_ID: AWS access key id' "AWS key shape found"
unlike "$rep" "$FAKE_GH|$FAKE_AWS|Zz9Zz9" "the values never appear in the report"
rep=$("${CLEAN[@]}" GITHUB_TOKEN="$FAKE_GH" "$D" --format json -k env.credentials --set env.credentials_allowed=GITHUB_TOKEN)
is "$(st env.credentials "$rep")" pass "a variable allowed by policy passes"

# both halves on their own: a secret-named variable whatever its value's shape
# (short, with '/' and spaces), a high-entropy value whatever its name; and an
# ordinary environment (PATH, HOME, PWD, an author name, a path to a secret
# file, a commit id) that must not trip
for kv in "DB_PASSWORD=hunter2" "API_TOKEN=a/b+c d" "BASIC_AUTH=user:pw" \
	"BLOB=Zq8vT2mNx4Lr7Ws1Kd9Fh3Yb6Gc0Pj5Ue2Ia8Oz" "ANYNAME=-----BEGIN EC PRIVATE KEY-----"; do
	rep=$("${CLEAN[@]}" "$kv" "$D" --format json -k env.credentials)
	is "$(st env.credentials "$rep")" fail "${kv%%=*} (${#kv} chars) is found"
	unlike "$rep" "${kv#*=}" "and its value never appears"
done
rep=$("${CLEAN[@]}" PWD=/root OLDPWD=/ LANG=C.UTF-8 TERM=xterm-256color GIT_AUTHOR_NAME="Jane Doe" \
	TOKEN_FILE=/run/secrets/token SSH_AUTH_SOCK=/tmp/ssh-x/agent.1 TOKENIZERS_PARALLELISM=false \
	GIT_COMMIT=0123456789abcdef0123456789abcdef01234567 "$D" --format json -k env.credentials)
is "$(st env.credentials "$rep")" pass "an ordinary environment passes"

# --- credentials in PID 1's environment (a real PID namespace) -----------------
# PID 1 of the new namespace carries the token; the doctor itself does not
rep=$(env -i PATH=/usr/bin:/bin SESSION_TOKEN="$FAKE_GH" unshare -pf --mount-proc \
	sh -c "env -i PATH=/usr/bin:/bin HOME=/root '$D' --format json -k env.credentials; true")
is "$(st env.credentials "$rep")" fail "a token in PID 1's environment is found"
like "$(obs env.credentials "$rep")" 'pid1 SESSION_TOKEN: GitHub token' "it is attributed to PID 1"
rep=$(env -i PATH=/usr/bin:/bin unshare -pf --mount-proc \
	sh -c "env -i PATH=/usr/bin:/bin HOME=/root '$D' --format json -k env.credentials; true")
is "$(st env.credentials "$rep")" pass "PID 1 without credentials passes"
like "$(printf '%s' "$rep" | jq -r '.results[0].detail')" 'PID 1 variables scanned' "PID 1's environment was actually read"

# --- required variables ------------------------------------------------------------
rep=$(env -i PATH=/usr/bin:/bin HOME=/root "$D" --format json -k env.required --set env.required=PATH,HOME)
is "$(st env.required "$rep")" pass "PATH and HOME set"
rep=$(env -i PATH=/usr/bin:/bin "$D" --format json -k env.required --set env.required=PATH,HOME)
is "$(st env.required "$rep")" fail "HOME unset fails"
rep=$(env -i PATH=/usr/bin:/bin HOME= "$D" --format json -k env.required --set env.required=HOME)
is "$(st env.required "$rep")" fail "HOME empty fails"
rep=$(env -i PATH=/usr/bin:/bin "$D" --format json -k env.required --set env.path=/usr/local/bin)
is "$(st env.required "$rep")" fail "a PATH entry the policy requires is missing"

# --- hostname: own UTS namespace vs the host's ------------------------------------
host=$(hostname)
rep=$(unshare -u sh -c "hostname sbx-$$; '$D' --format json -k env.hostname --set env.hostname='sbx-*' --set env.hostname_forbidden=$host")
is "$(st env.hostname "$rep")" pass "own UTS namespace: hostname matches the policy"
rep=$("$D" --format json -k env.hostname --set env.hostname_forbidden="$host")
is "$(st env.hostname "$rep")" fail "shared UTS namespace: the host's name is forbidden"
rep=$(unshare -u sh -c "hostname other-$$; '$D' --format json -k env.hostname --set env.hostname='sbx-*'")
is "$(st env.hostname "$rep")" fail "a hostname not matching the policy fails"

# --- platform ---------------------------------------------------------------------
rep=$("$D" --format json -k env.platform --set env.arch="$(uname -m)" --set env.kernel_min=3.10)
is "$(st env.platform "$rep")" pass "this arch and kernel >= 3.10"
rep=$("$D" --format json -k env.platform --set env.arch=riscv64)
is "$(st env.platform "$rep")" fail "an arch outside env.arch fails"
rep=$("$D" --format json -k env.platform --set env.kernel_min=99.1)
is "$(st env.platform "$rep")" fail "a kernel older than env.kernel_min fails"

# --- pseudo filesystems, in real bwrap sandboxes -----------------------------------
if command -v bwrap >/dev/null; then
	M=/proc,/dev,/dev/pts,/dev/shm
	rep=$(bwrap --ro-bind / / --proc /proc --dev /dev "$D" --format json -k env.mounts --set env.mounts=$M)
	is "$(st env.mounts "$rep")" pass "bwrap with --proc and --dev: all mounted"
	rep=$(bwrap --ro-bind / / --tmpfs /proc --dev /dev "$D" --format json -k env.mounts --set env.mounts=$M)
	is "$(st env.mounts "$rep")" fail "a tmpfs where /proc should be fails"
	rep=$(bwrap --ro-bind / / --proc /proc --tmpfs /dev "$D" --format json -k env.mounts --set env.mounts=$M)
	is "$(st env.mounts "$rep")" fail "an empty /dev without pts and shm fails"
else
	skip "bwrap not installed"; skip "bwrap"; skip "bwrap"
fi

# --- clock, time zone and locale ----------------------------------------------------
rep=$("$D" --format json -k env.clock)
is "$(st env.clock "$rep")" pass "clock sane"
rep=$(TZ=Nowhere/Atlantis "$D" --format json -k env.locale)
is "$(st env.locale "$rep")" fail "a TZ naming no zone file fails"
if [ -r /usr/share/zoneinfo/UTC ]; then
	rep=$(TZ=UTC LANG=C "$D" --format json -k env.locale)
	is "$(st env.locale "$rep")" pass "TZ=UTC with a zone file passes"
else
	skip "no /usr/share/zoneinfo/UTC"
fi
if [ -e /usr/lib/locale/locale-archive ]; then
	skip "a locale archive is installed: names in it are not checked one by one"
else
	rep=$(LC_ALL=xx_YY.UTF-8 "$D" --format json -k env.locale)
	is "$(st env.locale "$rep")" warn "an uninstalled locale warns"
fi

done_testing
