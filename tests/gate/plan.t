#!/usr/bin/env bash
# Bad plan files: one line on stderr "sandprobe: gate: FILE:LINE: message",
# nothing on stdout, exit 2, no archive created. Each case names the line
# a reader would look at.
. "$(dirname "$0")/../lib/tap.sh"
need jq
MK="$(dirname "$0")/mkgate.sh"
T=$(mktemp -d /tmp/sandprobe-test.XXXXXX) && at_exit "rm -rf '$T'"
A=sha256:$(printf candidate | sha256sum | cut -c1-64)
"$MK" -p R0 -a runc=$A -t 2026-08-01T00:00:00Z "$T/b"

n=0
bad() { # EXPECTED-LINE MESSAGE-REGEX NAME  (plan on stdin; never at the end of a pipe: TAP counts in this shell)
	n=$((n + 1))
	local f=$T/plan$n.yaml
	cat >"$f"
	local out err rc
	out=$("$SP_BIN" gate --plan "$f" --at 2026-08-05T00:00:00Z --archive "$T/arch$n" "$T/b" 2>"$T/err")
	rc=$?
	err=$(cat "$T/err")
	is "$rc" 2 "$3: exit 2"
	like "$err" "^sandprobe: $f:$1: $2" "$3: file, line and message"
	is "$(wc -l <"$T/err" | tr -d ' ')/${#out}" "1/0" "$3: one line on stderr, nothing on stdout"
	ok test ! -e "$T/arch$n"
}

good_head() {
	cat <<EOF
version: 1
name: rc
candidate:
  id: c1
  artifacts: {runc: $A}
changes: [core]
evidence:
  valid_for: 7d
lanes:
  - {id: lane-a, host_class: linux-x86_64, isolation: oci-sandbox}
EOF
}
SCEN='scenarios:
  - {id: RUN-01, owner: o, require: {core: {lane-a: [R0]}}}'

# a control: the base plan is good
{ good_head; echo "$SCEN"; } >"$T/good.yaml"
"$SP_BIN" gate --plan "$T/good.yaml" --at 2026-08-05T00:00:00Z "$T/b" >/dev/null; is "$?" 0 "control: the base plan decides, exit 0"
is "$("$SP_BIN" gate --plan "$T/good.yaml" --at 2026-08-05T00:00:00Z "$T/b" | tail -1 | cut -c1-14)" "RESULT: PASS -" "control: the base plan passes"

bad 1 'empty plan' "an empty file" </dev/null
bad 3 "did not find expected ','" "malformed YAML" <<'EOF'
version: 1
name: [unclosed
EOF
bad 1 'a plan must be a mapping' "a list at the top" <<<'- a'
bad 13 "'waivers': a plan has no waivers" "a waiver key" < <({ good_head; echo "$SCEN"; echo "waivers: [RUN-01]"; })
bad 13 "unknown key 'extra' in the plan" "an unknown top-level key" < <({ good_head; echo "$SCEN"; echo "extra: 1"; })
bad 1 'plan version 2 is not supported' "version 2" < <({ good_head | sed 's/^version: 1/version: 2/'; echo "$SCEN"; })
bad 1 "the plan has no 'version'" "no version" < <({ good_head | sed '/^version/d'; echo "$SCEN"; })
bad 2 "'name' may only contain" "a name with a space" < <({ good_head | sed 's/^name: rc/name: "rc 1"/'; echo "$SCEN"; })
bad 5 "'candidate.artifacts.runc' must be sha256:<64 hex digits>" "a short digest" < <({ good_head | sed "s/runc: $A/runc: sha256:1234/"; echo "$SCEN"; })
bad 5 ".*must name at least one artifact digest" "no artifact" < <({ good_head | sed "s/artifacts: {runc: $A}/artifacts: {}/"; echo "$SCEN"; })
bad 5 "artifact name 'Runc' must be lowercase" "an uppercase artifact name" < <({ good_head | sed "s/artifacts: {runc:/artifacts: {Runc:/"; echo "$SCEN"; })
bad 6 "'changes' lists 'core' twice" "a change listed twice" < <({ good_head | sed 's/^changes: \[core\]/changes: [core, core]/'; echo "$SCEN"; })
bad 6 "'changes' lists 'storage', which no scenario's 'require' names" "a change no scenario requires" < <({ good_head | sed 's/^changes: \[core\]/changes: [core, storage]/'; echo "$SCEN"; })
bad 13 "'network.lane-a' must be a profile or a list of profiles" "an empty profile list" < <({ good_head | sed 's/^changes: \[core\]/changes: [network]/'; echo "$SCEN"; echo '  - {id: NET-01, owner: o, require: {network: {lane-a: []}}}'; })
bad 6 "'changes' lists 'core', which no scenario" "the plan requires nothing for its changes" < <({ good_head; echo "$SCEN" | sed 's/core: {lane-a/storage: {lane-a/'; })
bad 8 "'evidence.valid_for' must be a duration like 7d" "valid_for in words" < <({ good_head | sed 's/valid_for: 7d/valid_for: 7 days/'; echo "$SCEN"; })
bad 8 "'evidence.valid_for' must be a duration" "valid_for zero" < <({ good_head | sed 's/valid_for: 7d/valid_for: 0d/'; echo "$SCEN"; })
bad 8 ".*gives no lifetime for R0 evidence" "no lifetime for a required profile" < <({ good_head | sed 's/valid_for: 7d/valid_for: {G2: 7d}/'; echo "$SCEN"; })
bad 8 ".*keys are R0, G2, R24, E72 and default" "a lifetime for an unknown profile" < <({ good_head | sed 's/valid_for: 7d/valid_for: {R1: 7d}/'; echo "$SCEN"; })
bad 9 "'evidence.not_before' must be a UTC time" "not_before on Feb 30" < <({ good_head | sed 's/valid_for: 7d/valid_for: 7d\n  not_before: 2026-02-30T00:00:00Z/'; echo "$SCEN"; })
bad 9 "'evidence.retries' must be an integer from 0 to 100" "negative retries" < <({ good_head | sed 's/valid_for: 7d/valid_for: 7d\n  retries: -1/'; echo "$SCEN"; })
bad 9 "'evidence.retries' must be an integer" "quoted retries" < <({ good_head | sed 's/valid_for: 7d/valid_for: 7d\n  retries: "1"/'; echo "$SCEN"; })
bad 11 "duplicate lane id 'lane-a'" "a duplicate lane" < <({ good_head; echo '  - {id: lane-a, host_class: linux-x86_64, isolation: oci-sandbox}'; echo "$SCEN"; })
bad 10 "lane has no 'isolation'" "a lane without isolation" < <({ good_head | sed "s/, isolation: oci-sandbox//"; echo "$SCEN"; })
bad 12 "scenario RUN-01 requires lane 'lane-z', which 'lanes' does not declare" "an undeclared lane" < <({ good_head; echo "$SCEN" | sed 's/lane-a: \[R0\]/lane-z: [R0]/'; })
bad 12 "'R12' is not a promotion profile" "an unknown profile" < <({ good_head; echo "$SCEN" | sed 's/\[R0\]/[R0, R12]/'; })
bad 12 "'custom' is not a promotion profile" "custom is not a promotion profile" < <({ good_head; echo "$SCEN" | sed 's/\[R0\]/[custom]/'; })
bad 13 "duplicate scenario id 'run-01'" "scenario ids differ only in case" < <({ good_head; echo "$SCEN"; echo '  - {id: run-01, owner: o, require: {core: {lane-a: [R0]}}}'; })
bad 12 "scenario has no 'owner'" "a scenario without an owner" < <({ good_head; echo "$SCEN" | sed 's/owner: o, //'; })
bad 12 "'waive': a plan has no waivers" "a scenario-level waiver" < <({ good_head; echo "$SCEN" | sed 's/owner: o,/owner: o, waive: true,/'; })
bad 12 "'workload' must be sha256:<64 hex digits>" "a bad workload pin" < <({ good_head; echo "$SCEN" | sed 's/owner: o,/owner: o, workload: abc,/'; })
bad 13 "signing has no 'pubkey'" "signing without a key" < <({ good_head; echo "$SCEN"; echo "signing: {}"; })
bad 9 "anchors are not allowed in a plan$" "a YAML anchor" < <({ good_head; echo "$SCEN"; } | sed 's/^lanes:/lanes: \&l/')
bad 1 'NUL byte' "a NUL byte" < <(printf 'version: 1\nname: rc\x00\n')
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' '#' >"$T/big.yaml"
err=$("$SP_BIN" gate --plan "$T/big.yaml" "$T/b" 2>&1 >/dev/null); rc=$?
is "$rc" 2 "a plan over 1 MiB: exit 2"
like "$err" "^sandprobe: $T/big.yaml: plan file too large" "a plan over 1 MiB: named"
err=$("$SP_BIN" gate --plan "$T/none.yaml" "$T/b" 2>&1 >/dev/null); rc=$?
is "$rc" 2 "a plan that does not exist: exit 2"
like "$err" "^sandprobe: $T/none.yaml: cannot read the plan" "a missing plan: named"
# the README's example plan names the digest of the workload its tour runs
ex=$SP_ROOT/docs/examples/release-plan.yaml
is "$(sed -n 's/^ *workload: sha256://p' "$ex")" "$(sha256sum "$SP_ROOT/workloads/runc-lifecycle.yaml" | cut -c1-64)" \
	"docs/examples/release-plan.yaml: the digest of workloads/runc-lifecycle.yaml"
"$SP_BIN" gate --plan "$ex" "$T" >/dev/null 2>"$T/ex.err"; rc=$?
is "$rc/$(grep -c 'plan' "$T/ex.err")" "1/0" "the example plan loads (a decision, not a plan error)"
done_testing
