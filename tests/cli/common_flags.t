#!/usr/bin/env bash
# Flags every verb shares, and the doctor's defaults: -q/--quiet (nothing on
# stdout, same exit status, -o still written), -o on every verb that writes,
# doctor --fail-on warn (judged against the report's own WARN count), policy
# discovery ($SANDPROBE_POLICY, then /etc/sandprobe/policy.ini, seen in a
# private mount namespace, never the host's /etc), colour on a terminal only
# and never under NO_COLOR, and live --matrix progress on stderr.
. "$SP_ROOT/tests/lib/tap.sh"
# live needs a static doctor: under SP_SAN=1 the normal build's
LDOC=$SP_DOCTOR
[ "${SP_SAN:-0}" = 1 ] && LDOC=$SP_ROOT/build/sandprobe-doctor
need jq
T=$(sp_tmpdir)
D=$SP_DOCTOR

# --- -q / --quiet: no stdout, same exit code ---
quiet_case() { # NAME CMD...: CMD -q prints nothing on stdout and exits as CMD
	local name=$1
	shift
	"$@" >/dev/null 2>&1
	local want=$?
	local out
	out=$("$@" -q 2>/dev/null)
	local got=$?
	is "$got:${#out}" "$want:0" "$name -q: no standard output, exit $want as without it"
}
quiet_case "doctor" "$D" --profile host -k ns
quiet_case "doctor (failing)" "$D" --profile strict -k ns
quiet_case "atlas" "$SP_BIN" atlas --format json
quiet_case "lint" "$SP_BIN" lint "$SP_ROOT"/tests/lint/fixtures/trigger/oci.*.json
out=$("$SP_BIN" keygen --out "$T/k" -q)
is "$?:$out" "0:" "keygen -q: keys written, nothing printed"
ok test -s "$T/k.key" -a -s "$T/k.pub"
"$D" --profile host --format json -q -o "$T/q.json"
is "$(jq -r .schema "$T/q.json")" sandprobe.doctor.v1 "doctor -q -o FILE: the report is still written"

# --- -o on every verb that writes ---
"$SP_BIN" atlas --format json -o "$T/atlas.json" >"$T/atlas.stdout"
is "$(jq -r .schema "$T/atlas.json"):$(wc -c <"$T/atlas.stdout" | tr -d ' ')" "sandprobe.atlas.v1:0" "atlas -o FILE"
"$SP_BIN" atlas -o "$T/nodir/x" 2>"$T/err"
is "$?" 2 "atlas -o into a missing directory: exit 2"
like "$(cat "$T/err")" "atlas: --output $T/nodir/x: No such file" "and the error names the path"
"$SP_BIN" lint "$SP_ROOT"/tests/lint/fixtures/good/oci.json -o "$T/lint.txt" >/dev/null
like "$(cat "$T/lint.txt")" '^RESULT: PASS' "lint -o FILE"
"$SP_BIN" soak -o 2>/dev/null
is "$?" 2 "soak -o without a value: usage error"
like "$("$SP_BIN" soak --help)" '-o, --out DIR' "soak --help documents -o and every flag"
for opt in --workload --profile --duration --sample-interval --concurrency --seed --sign-key --metrics-file --quiet --sample-once; do
	like "$("$SP_BIN" soak --help | grep -E "^  .*$opt")" "$opt" "soak --help has a line for $opt"
done

# --- doctor --fail-on warn, judged from the report's own counts ---
"$D" --profile host -k ns --format json >"$T/h.json"
hrc=$?
warns=$(jq '.summary.warn' "$T/h.json")
like "$warns" '^[1-9]' "ground truth: the host profile warns here ($warns WARN)"
is "$hrc" 0 "default --fail-on fail: WARN alone passes"
"$D" --profile host -k ns --fail-on warn >/dev/null
is "$?" 1 "--fail-on warn: the same WARNs fail"
like "$("$D" --profile host -k ns --fail-on warn)" 'RESULT: FAIL' "and the RESULT line says FAIL"
"$D" --profile host -k 'ns.pid' --set ns.required= --fail-on warn --format json >"$T/nowarn.json"
nrc=$?
is "$(jq '.summary.warn + .summary.fail + .summary.error' "$T/nowarn.json"):$nrc" "0:0" "--fail-on warn with no WARN passes"
"$D" --fail-on maybe 2>"$T/err"
is "$?" 2 "--fail-on maybe: usage error"

# --- policy discovery ---
cat >"$T/p.ini" <<'P'
[policy]
base = host
[expect]
ns.pid = off
P
SANDPROBE_POLICY=$T/p.ini "$D" --format json -k ns >"$T/env.json"
is "$(jq '[.results[] | select(.id == "ns.pid")] | length' "$T/env.json")" 0 "SANDPROBE_POLICY is used: its [expect] ns.pid = off removes ns.pid"
is "$(jq -r '.results[] | select(.id == "ns.net") | .status' "$T/env.json")" warn "and its base (host) makes the rest advisory"
SANDPROBE_POLICY=$T/p.ini "$D" --profile strict --format json -k ns >"$T/envp.json"
is "$(jq '[.results[] | select(.id == "ns.pid")] | length' "$T/envp.json")" 1 "--profile wins over SANDPROBE_POLICY"
SANDPROBE_POLICY=$T/missing.ini "$D" -k ns 2>"$T/err" >/dev/null
is "$?" 2 "SANDPROBE_POLICY naming a missing file: exit 2"
like "$(cat "$T/err")" "policy from SANDPROBE_POLICY: .*missing.ini" "the error says the policy came from SANDPROBE_POLICY"
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	# /etc/sandprobe/policy.ini inside a private mount namespace: a tmpfs over
	# /etc there, so the host's /etc is never touched
	cp "$T/p.ini" "$T/etc-policy.ini"
	etc_run() {
		unshare -m --propagation private sh -c '
			mount -t tmpfs sp-test-etc /etc && mkdir /etc/sandprobe && cp "$1" /etc/sandprobe/policy.ini &&
			shift && exec "$@"' sh "$T/etc-policy.ini" "$@"
	}
	etc_run env -u SANDPROBE_POLICY "$D" --format json -k ns >"$T/etc.json"
	is "$(jq '[.results[] | select(.id == "ns.pid")] | length' "$T/etc.json")" 0 "/etc/sandprobe/policy.ini is used when SANDPROBE_POLICY is unset"
	printf '[policy]\nbase = strict\n' >"$T/strict-env.ini"
	etc_run env SANDPROBE_POLICY="$T/strict-env.ini" "$D" --format json -k ns >"$T/etc2.json"
	is "$(jq '[.results[] | select(.id == "ns.pid")] | length' "$T/etc2.json")" 1 "SANDPROBE_POLICY wins over /etc/sandprobe/policy.ini"
	is "$(test -e /etc/sandprobe/policy.ini && echo present || echo absent)" absent "the host's /etc was not touched"
else
	skip "the /etc case needs root and a mount namespace"
fi
env -u SANDPROBE_POLICY "$D" --format json -k ns.pid >"$T/def.json"
is "$(jq -r .profile "$T/def.json")" strict "no policy anywhere: the strict profile"

# --- colour: only on a terminal, never under NO_COLOR ---
need script "util-linux script not installed"
esc=$(printf '\033')
col=$(env -u NO_COLOR TERM=xterm script -qec "$D --profile host -k ns.pid" /dev/null)
like "$col" "${esc}\[33mWARN" "on a terminal: WARN in colour"
like "$col" "RESULT: ${esc}\[32mPASS" "and the RESULT"
nc=$(NO_COLOR=1 TERM=xterm script -qec "$D --profile host -k ns.pid" /dev/null)
unlike "$nc" "$esc" "NO_COLOR=1: no escape sequence on the terminal"
dumb=$(env -u NO_COLOR TERM=dumb script -qec "$D --profile host -k ns.pid" /dev/null)
unlike "$dumb" "$esc" "TERM=dumb: no colour"
pipe=$(env -u NO_COLOR TERM=xterm "$D" --profile host -k ns.pid)
unlike "$pipe" "$esc" "not a terminal: no colour"
json=$(env -u NO_COLOR TERM=xterm script -qec "$D --profile host -k ns.pid --format json" /dev/null)
unlike "$json" "$esc" "JSON on a terminal: never coloured"

# --- live --matrix progress on stderr ---
if command -v bwrap >/dev/null && [ "$(id -u)" = 0 ]; then
	"$SP_BIN" live --doctor "$LDOC" --matrix --runtimes bwrap --variants strict,host-pid --format json -o "$T/m.json" 2>"$T/prog" >/dev/null
	n=$(jq '.lanes | length' "$T/m.json")
	is "$(grep -cE '^\[[0-9]+/'"$n"'\] lane bwrap/' "$T/prog")" "$n" "--matrix -o: one [i/$n] progress line per lane on stderr"
	"$SP_BIN" live --doctor "$LDOC" --matrix --runtimes bwrap --variants strict,host-pid --format json -o "$T/m2.json" -q 2>"$T/prog2" >/dev/null
	is "$(wc -c <"$T/prog2" | tr -d ' ')" 0 "--quiet: no progress"
	"$SP_BIN" live --doctor "$LDOC" --matrix --runtimes bwrap --variants strict --format json 2>"$T/prog3" >"$T/m3.json"
	is "$(grep -c '^\[' "$T/prog3")" 0 "report on stdout and stderr not a terminal: no progress mixed in"
	is "$(jq -r .schema "$T/m3.json")" sandprobe.live.v1 "and stdout is the report alone"
else
	skip "live progress needs bwrap and root"
fi
done_testing
