#!/usr/bin/env bash
# sandprobe gate against evidence arranged by an adversary (issue 27): a
# failing run in a hidden subdirectory, a bundle that is a symbolic link,
# an archive whose decision does not reproduce, a run from another host
# class or isolation, a decision time in the future or in the past, runs
# that start in the same second, and a promotion order broken in time.
# Bundles are made here (tests/gate/mkgate.sh), signed and not; what each
# case expects is worked out from the bundles' own files, not the gate.
. "$(dirname "$0")/../lib/tap.sh"
need jq
need openssl
MK="$(dirname "$0")/mkgate.sh"
T=$(mktemp -d /tmp/sandprobe-test.XXXXXX) && at_exit "rm -rf '$T'"
G() { "$SP_BIN" gate "$@"; }
AT=2026-08-05T00:00:00Z
A=sha256:$(printf candidate | sha256sum | cut -c1-64)
state() { jq -r --arg id "$1" '.cells[] | select(.id == $id) | .state'; }
reason() { jq -r --arg id "$1" '.cells[] | select(.id == $id) | .reason'; }
run_of() { sed -n 's/^run_id=//p' "$1/metadata.txt"; }
"$SP_BIN" keygen --out "$T/bk" >/dev/null
# reseal an archive after an edit, as someone with write access would
reseal_archive() {
	(cd "$1" && rm -f MANIFEST MANIFEST.sig && find . -type f | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum >"$T/MANIFEST.new" &&
		mv "$T/MANIFEST.new" MANIFEST)
}

# mkplan FILE [LANES] [EVIDENCE EXTRA] [SIGNING]: RUN-01..03 require R0 on lane-a
LANE_A='  - {id: lane-a, host_class: linux-x86_64, isolation: oci-sandbox}'
mkplan() {
	cat >"$1" <<EOF
version: 1
name: rc-adv
candidate: {id: 3.0.0-rc1, artifacts: {runc: $A}}
changes: [core]
evidence:
  valid_for: {R0: 7d, default: 30d}
${3:-}
${4:-}
lanes:
${2:-$LANE_A}
scenarios:
  - {id: RUN-01, owner: core, require: {core: {lane-a: [R0]}}}
  - {id: RUN-02, owner: core, require: {core: {lane-a: [R0]}}}
  - {id: RUN-03, owner: core, require: {core: {lane-a: [R0]}}}
EOF
}
mkplan "$T/p.yaml"
mkplan "$T/ps.yaml" "" "" "signing: {pubkey: $T/bk.pub}"

# ---- 1. every entry of an evidence root is decided on or named -----------------
mkdir -p "$T/ev1"
"$MK" -p R0 -a runc=$A -k "$T/bk.key" -t 2026-08-01T00:00:00Z "$T/ev1/r0"
"$MK" -p R0 -a runc=$A -k "$T/bk.key" -t 2026-08-01T02:00:00Z -f "$T/ev1/.rerun"
echo notes >"$T/ev1/README"
"$SP_BIN" verify "$T/ev1/.rerun" >/dev/null; is "$?" 1 "fixture: the hidden run fails the verifier"
js=$(G --plan "$T/ps.yaml" --at $AT "$T/ev1" --format json); rc=$?
is "$rc" 1 "a failing run in evidence/.rerun/ (hidden name): exit 1, not a pass on the older run"
is "$(state RUN-01/lane-a/R0 <<<"$js")" fail "the hidden failing run decides the cell: fail"
like "$(reason RUN-01/lane-a/R0 <<<"$js")" "run $(run_of "$T/ev1/.rerun") failed" "the reason names the hidden run"
is "$(jq -r '.bundles | length' <<<"$js")" 2 "both runs are bundles of the decision"
is "$(jq -r '.skipped | join("|")' <<<"$js")" "$T/ev1/README: not a directory (a bundle is a directory)" \
	"json: the file that is not a bundle is named with the reason"
out=$(G --plan "$T/ps.yaml" --at $AT "$T/ev1"); rc=$?
like "$out" "SKIPPED: $T/ev1/README: not a directory" "text: the skipped entry is named"
ju=$(G --plan "$T/ps.yaml" --at $AT "$T/ev1" --format junit)
like "$ju" "skipped: $T/ev1/README" "junit: the skipped entry is named"
G --plan "$T/ps.yaml" --at $AT --archive "$T/a1" "$T/ev1" -q; rc=$?
is "$rc" 1 "--archive of that decision: exit 1 (it fails), the archive is kept"
is "$(ls -A "$T/a1/bundles" | wc -l)" 2 "--archive keeps the hidden failing run"
is "$(jq -r .result "$T/a1/decision.json")" fail "the archived decision is fail"
G --from-archive "$T/a1" --pubkey "$T/bk.pub" -q 2>/dev/null; is "$?" 1 "the archived fail reproduces (exit 1)"
is "$(G --from-archive "$T/a1" --format json 2>/dev/null | jq -r .result)" fail "round trip: fail stays fail"
ln -s "$T/nowhere" "$T/ev1/dangling"
err=$(G --plan "$T/ps.yaml" --at $AT "$T/ev1" 2>&1 >/dev/null); rc=$?
is "$rc" 2 "an entry the gate cannot examine (dangling link): refused, exit 2"
like "$err" "ev1/dangling: .*never skipped" "the refusal names the entry"
rm "$T/ev1/dangling"

# ---- 2. a symlinked bundle is decided on and archived as its content -------------
mkdir -p "$T/real" "$T/ev2"
"$MK" -p R0 -a runc=$A -t 2026-08-01T00:00:00Z "$T/real/r0"
ln -s "$T/real/r0" "$T/ev2/r0"
js=$(G --plan "$T/p.yaml" --at $AT "$T/ev2" --format json --archive "$T/a2"); rc=$?
is "$rc" 0 "a bundle that is a symbolic link inside the evidence directory: decided, exit 0"
ok test -d "$T/a2/bundles"
copy=$(ls -d "$T/a2/bundles/"*)
ok test -f "$copy/metadata.txt" -a ! -L "$copy"
diff -r "$T/real/r0" "$copy" >/dev/null; is "$?" 0 "the archive holds the link's content (diff -r)"
is "$(G --from-archive "$T/a2" --format json 2>/dev/null | jq -r .result)" pass "round trip: pass stays pass"
ln -s "$T/real/r0" "$T/r0link"
G --plan "$T/p.yaml" --at $AT "$T/r0link" --archive "$T/a2b" -q; is "$?" 0 "the same link on the command line: decided and archived"

# ---- 3. a decision that does not reproduce is a result of its own ------------------
cp -r "$T/a1" "$T/a3"
failing=$(ls -d "$T/a3/bundles/"*"-$(run_of "$T/ev1/.rerun")")
rm -rf "$failing"
reseal_archive "$T/a3"
js=$(G --from-archive "$T/a3" --format json 2>/dev/null); rc=$?
is "$rc" 1 "an archive whose failing run was removed (MANIFEST rewritten): exit 1"
is "$(jq -r .result <<<"$js")" not-reproduced "json: result not-reproduced, not pass"
is "$(jq -r '.reproduction.archived_result + " " + .reproduction.remade_result' <<<"$js")" "fail pass" \
	"json: both decisions"
is "$(jq -r '[.reproduction.cells[] | "\(.id)=\(.archived)>\(.remade)"] | join(" ")' <<<"$js")" \
	"RUN-01/lane-a/R0=fail>pass RUN-02/lane-a/R0=fail>pass RUN-03/lane-a/R0=fail>pass" "json: the differing cells"
G --from-archive "$T/a3" --format junit -o "$T/a3.xml" 2>/dev/null
like "$(cat "$T/a3.xml")" '<failure type="not-reproduced" message="archived result fail, re-made result pass">' \
	"junit: a failure of its own"
like "$(grep -o 'testsuites [^>]*' "$T/a3.xml")" 'failures="1"' "junit: counted as a failure"
out=$(G --from-archive "$T/a3" 2>/dev/null)
like "$(tail -1 <<<"$out")" '^RESULT: NOT-REPRODUCED' "text: RESULT: NOT-REPRODUCED"
like "$out" 'DIFFERS: cell RUN-01/lane-a/R0: archived fail, re-made pass' "text: the differing cell"
G --from-archive "$T/a3" --format html -o "$T/a3.html" 2>/dev/null
like "$(cat "$T/a3.html")" 'id="result">NOT REPRODUCED<' "html: the badge says not reproduced"

# ---- 4. lanes are host classes ---------------------------------------------------
LANES="$LANE_A
  - {id: lane-g, host_class: linux-amd64, isolation: gvisor}
  - {id: lane-k, host_class: linux-arm64, isolation: kvm-microvm}
  - {id: lane-x, host_class: linux-x86_64, isolation: in-house, runtimes: [boxd]}"
mkplan "$T/pl.yaml" "$LANES"
"$MK" -p R0 -a runc=$A -k "$T/bk.key" -A aarch64 "$T/arm"
"$MK" -p R0 -a runc=$A -k "$T/bk.key" -r runsc "$T/gvisor"
js=$(G --plan "$T/pl.yaml" --at $AT "$T/arm" --format json); rc=$?
is "$rc $(state RUN-01/lane-a/R0 <<<"$js")" "1 wrong-lane" "a run on aarch64 claiming the x86_64 lane: wrong-lane, exit 1"
like "$(reason RUN-01/lane-a/R0 <<<"$js")" "ran on aarch64, lane lane-a is host class linux-x86_64" "wrong-lane: the reason names both"
js=$(G --plan "$T/pl.yaml" --at $AT "$T/gvisor" --format json)
is "$(state RUN-01/lane-a/R0 <<<"$js")" wrong-lane "a gVisor (runsc) run claiming an oci-sandbox lane: wrong-lane"
like "$(reason RUN-01/lane-a/R0 <<<"$js")" "runtime runsc, not one of lane lane-a's isolation oci-sandbox \(shared host kernel" \
	"wrong-lane: the kernel boundary named"
for l in g k x; do
	rt=runsc arch=x86_64
	[ $l = k ] && rt=kata arch=aarch64
	[ $l = x ] && rt=boxd
	"$MK" -p R0 -a runc=$A -l lane-$l -A $arch -r $rt "$T/lane-$l"
	mkplan "$T/pl$l.yaml" "$LANES"
	sed -i "s/lane-a: \[R0\]/lane-$l: [R0]/" "$T/pl$l.yaml"
	js=$(G --plan "$T/pl$l.yaml" --at $AT "$T/lane-$l" --format json); rc=$?
	is "$rc $(state RUN-01/lane-$l/R0 <<<"$js")" "0 pass" "lane-$l ($arch, $rt): its own run passes"
done
# host_arch is a required key (the verifier refuses a bundle without it); a
# writer that did not know it records '-'
cp -r "$T/arm" "$T/noarch"
sed -i -e "s/^run_id=.*/run_id=noarch-1/" -e "s/^host_arch=.*/host_arch=-/" "$T/noarch/metadata.txt"
"$(dirname "$0")/../verify/mkbundle.sh" --reseal -k "$T/bk.key" "$T/noarch" >/dev/null
mkplan "$T/pls.yaml" "$LANE_A" "" "signing: {pubkey: $T/bk.pub}"
js=$(G --plan "$T/pls.yaml" --at $AT "$T/noarch" --format json); rc=$?
is "$rc $(state RUN-01/lane-a/R0 <<<"$js")" "1 wrong-lane" "a signed run that records no host_arch (-) never fills the lane"
like "$(reason RUN-01/lane-a/R0 <<<"$js")" "records no host_arch" "the reason says what is missing"
mkplan "$T/pbad.yaml" "  - {id: lane-a, host_class: gpu-host, isolation: oci-sandbox}"
err=$(G --plan "$T/pbad.yaml" --at $AT "$T/arm" 2>&1); rc=$?
is "$rc" 2 "a host_class the gate cannot compare: exit 2"
like "$err" "pbad.yaml:10: lane lane-a: host_class 'gpu-host' must be linux-ARCH" "named with file and line"
mkplan "$T/pbad2.yaml" "  - {id: lane-a, host_class: linux-x86_64, isolation: mystery}"
err=$(G --plan "$T/pbad2.yaml" --at $AT "$T/arm" 2>&1); rc=$?
is "$rc" 2 "an isolation class the gate does not know, without runtimes: exit 2"
like "$err" "isolation 'mystery' is not a class the gate knows" "named"
G --plan "$T/pl.yaml" --at $AT --archive "$T/a4" "$T/arm" "$T/gvisor" -q
is "$(G --from-archive "$T/a4" --format json 2>/dev/null | jq -r '.result + " " + .reproduction.cells[0].id?')" "fail " \
	"round trip: a wrong-lane decision reproduces"

# ---- 5. time: --at, ties, promotion order ------------------------------------------
future=$(date -u -d '+2 days' +%Y-%m-%dT%H:%M:%SZ)
err=$(G --plan "$T/p.yaml" --at "$future" "$T/real/r0" 2>&1); rc=$?
is "$rc" 2 "--at in the future: refused, exit 2"
like "$err" "--at $future: in the future" "the refusal says why"
js=$(G --plan "$T/p.yaml" --at $AT "$T/real/r0" --format json); rc=$?
is "$rc $(jq -r .expired_by_now <<<"$js")" "0 3" "a backdated --at: the three passes rest on evidence expired by now"
like "$(G --plan "$T/p.yaml" --at $AT "$T/real/r0")" "NOTE: decided at $AT, before the gate ran \(--at\): 3 passing cell" \
	"text: the backdated decision is flagged"
# two runs in the same second, one fails: the pass is no retry of the failure
mkplan "$T/pr.yaml" "" "  retries: 1"
"$MK" -p R0 -a runc=$A -t 2026-08-01T00:00:00Z -n tie-a -f "$T/tie-a"
"$MK" -p R0 -a runc=$A -t 2026-08-01T00:00:00Z -n tie-b "$T/tie-b"
is "$(jq .measured_duration_s "$T/tie-a/summary.json")" "$(jq .measured_duration_s "$T/tie-b/summary.json")" \
	"fixture: both runs end in the same second too"
js=$(G --plan "$T/pr.yaml" --at $AT "$T/tie-a" "$T/tie-b" --format json); rc=$?
is "$rc $(state RUN-01/lane-a/R0 <<<"$js")" "1 fail" "a pass that started and ended with a failure is not its retry (the id tie-b sorts later)"
"$MK" -p R0 -a runc=$A -t 2026-08-01T00:00:01Z -n tie-0 "$T/tie-0"
js=$(G --plan "$T/pr.yaml" --at $AT "$T/tie-a" "$T/tie-0" --format json)
is "$(state RUN-01/lane-a/R0 <<<"$js")" pass "a pass one second after the failure is its retry"
# the same start: the one that ended later is the later run, whatever its id
"$MK" -p R0 -a runc=$A -t 2026-08-01T00:00:00Z -n tie-0-long -s 5 "$T/tie-long"
is "$(jq .measured_duration_s "$T/tie-long/summary.json") $(jq .measured_duration_s "$T/tie-a/summary.json")" "60 40" \
	"fixture: the passing run ends 20 s after the failing one"
js=$(G --plan "$T/pr.yaml" --at $AT "$T/tie-a" "$T/tie-long" --format json)
is "$(state RUN-01/lane-a/R0 <<<"$js")" pass "same start, the pass ended later: its retry (the id tie-0-long sorts first)"
"$MK" -p R0 -a runc=$A -t 2026-08-01T00:00:00Z -n tie-z-long -s 5 -f "$T/tie-long-f"
js=$(G --plan "$T/pr.yaml" --at $AT "$T/tie-long-f" "$T/tie-b" --format json)
is "$(state RUN-01/lane-a/R0 <<<"$js")" fail "same start, the failure ended later: no retry"
# promotion order in time: an R0 that ended after the G2 started does not enable it
mkplan "$T/pg.yaml"
sed -i 's/lane-a: \[R0\]/lane-a: [G2]/' "$T/pg.yaml"
"$MK" -p G2 -a runc=$A -t 2026-08-01T00:00:00Z "$T/g2"
"$MK" -p R0 -a runc=$A -t 2026-08-01T00:30:00Z "$T/r0late"
js=$(G --plan "$T/pg.yaml" --at $AT "$T/g2" "$T/r0late" --format json); rc=$?
is "$rc $(state RUN-01/lane-a/R0 <<<"$js") $(state RUN-01/lane-a/G2 <<<"$js")" "1 pass blocked" \
	"an R0 run after the G2 started: G2 blocked"
like "$(reason RUN-01/lane-a/G2 <<<"$js")" "in time: R0 run .* ended at 2026-08-01T00:30:40Z, after G2 run" "blocked: both times named"
sed 's/^  valid_for:/  promotion_order: state\n  valid_for:/' "$T/pg.yaml" >"$T/pgs.yaml"
G --plan "$T/pgs.yaml" --at $AT "$T/g2" "$T/r0late" -q; is "$?" 0 "evidence.promotion_order: state: the same runs pass"
"$MK" -p R0 -a runc=$A -t 2026-07-31T23:00:00Z "$T/r0early"
G --plan "$T/pg.yaml" --at $AT "$T/g2" "$T/r0early" --archive "$T/a5" -q; is "$?" 0 "an R0 that ended before the G2 started enables it"
G --plan "$T/pg.yaml" --at $AT "$T/g2" "$T/r0late" --archive "$T/a6" -q
is "$(G --from-archive "$T/a6" --format json 2>/dev/null | jq -r '.result + " " + (.reproduction.reproduced | tostring)')" \
	"fail true" "round trip: a blocked-in-time decision reproduces"
is "$(G --from-archive "$T/a5" --format json 2>/dev/null | jq -r '.result + " " + (.reproduction.reproduced | tostring)')" \
	"pass true" "round trip: the passing decision reproduces"
done_testing
