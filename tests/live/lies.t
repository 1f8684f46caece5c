#!/usr/bin/env bash
# A sandbox that lies about itself, or a doctor that is fooled, is caught:
# a forged doctor (tests/helpers/live_fake_doctor) reports that everything
# passed. The host-side checks must disagree with it (namespace links and
# capabilities seen from outside), and a report that breaks its own schema,
# is not JSON, is oversized, or names unknown checks is rejected. The real
# doctor in the same sandbox is the positive control.
. "$(dirname "$0")/../lib/tap.sh"
need_root
need bwrap
need jq
FAKE=$SP_HELPERS/live_fake_doctor
[ -x "$FAKE" ] || skip_all "live_fake_doctor helper not built (make tests)"
DOCTOR=$SP_DOCTOR
[ "${SP_SAN:-0}" = 1 ] && DOCTOR=$SP_ROOT/build/sandprobe-doctor
tmp=$(sp_tmpdir)
# lane dirs go to a dir of this test's own (others run lanes on this machine at the same time)
export SP_LIVE_TMPDIR=$tmp/lanes
mkdir -p "$SP_LIVE_TMPDIR"
chmod 755 "$TAP_TMPBASE" "$tmp" "$SP_LIVE_TMPDIR" # bwrap lanes run as nobody

lane() { # mode variant -> json on stdout, rc in $tmp/rc
	SP_FAKE_MODE=$1 "$SP_BIN" live --runtime bwrap --variant "$2" --doctor "$FAKE" --format json >"$tmp/out.json" 2>"$tmp/err"
	echo $? >"$tmp/rc"
	cat "$tmp/out.json"
}
status_of() { jq -r --arg id "$1" '.lanes[0].results[] | select(.id == $id) | .status'; }
detail_of() { jq -r --arg id "$1" '.lanes[0].results[] | select(.id == $id) | .detail'; }

# positive control: the real doctor, strict bwrap: host checks agree with it
"$SP_BIN" live --runtime bwrap --doctor "$DOCTOR" --format json >"$tmp/real.json"
is "$?" 0 "real doctor in strict bwrap: lane passes"
is "$(status_of host.ns.pid <"$tmp/real.json")" pass "real doctor: host.ns.pid agrees"
is "$(status_of host.caps <"$tmp/real.json")" pass "real doctor: host.caps agrees"

# the forged report is well-formed, so it is accepted as a report ...
out=$(lane lie strict)
is "$(cat "$tmp/rc")" 1 "forged all-pass report: lane fails"
is "$(echo "$out" | status_of host.doctor.report)" pass "forged report is schema-valid"
# ... but inside and outside disagree
is "$(echo "$out" | status_of host.ns.pid)" fail "host.ns.pid catches the forged pid namespace link"
like "$(echo "$out" | detail_of host.ns.net)" "disagree" "host.ns.net names the disagreement"
# with capabilities kept, the forged 'CapEff 0' contradicts the host's view
out=$(lane lie kept-caps)
is "$(echo "$out" | status_of host.caps)" fail "host.caps catches forged empty capability sets"
like "$(echo "$out" | detail_of host.caps)" "inside and outside disagree" "host.caps says the two views disagree"

# malformed reports are rejected, and none of their claims is taken
for mode in summary garbage huge unknown; do
	out=$(lane "$mode" strict)
	is "$(cat "$tmp/rc")" 1 "$mode report: lane fails"
	is "$(echo "$out" | status_of host.doctor.report)" fail "$mode report: host.doctor.report fails"
	is "$(echo "$out" | jq '[.lanes[0].results[] | select(.side == "inside")] | length')" 0 \
		"$mode report: no inside result taken from it"
done
like "$(lane summary strict | detail_of host.doctor.report)" "summary" "summary mismatch named"
like "$(lane huge strict | detail_of host.doctor.report)" "bytes|at most" "oversized field named"
like "$(lane unknown strict | detail_of host.doctor.report)" "ns.invented" "unknown check id named"
# a doctor that claims a separate kernel its policy accepts, on a lane whose
# runtime gives none (bwrap): no check is left to that boundary, the control
# still demands seccomp.mode fail, and the forged pass is a DEFECT
SP_FAKE_MODE=boundary "$SP_BIN" live --runtime bwrap --variant no-seccomp --doctor "$FAKE" --format json >"$tmp/b.json" 2>"$tmp/err"
is "$(jq -r '.lanes[0].kernel_boundary | "\(.kind)/\(.accepted)"' "$tmp/b.json")" user-space/true "forged boundary: reported as the doctor said"
is "$(jq -r '.lanes[0].judged_by_boundary | length' "$tmp/b.json")" 0 "forged boundary on bwrap: nothing left to it"
like "$(jq -r '.defects | join(";")' "$tmp/b.json")" "bwrap/no-seccomp: .*seccomp.mode" "forged boundary: the forged seccomp.mode pass is a DEFECT"

# gVisor: host.nnp compares the spec (noNewPrivileges true) with what gVisor's
# kernel told the doctor (prctl; gVisor's status has no NoNewPrivs line)
if command -v runsc >/dev/null 2>&1; then
	gv() { "$SP_BIN" live --runtime runsc --doctor "$1" --format json ${2:+--set sp_fake.mode=$2} >"$tmp/g.json" 2>"$tmp/err"; }
	gv "$DOCTOR"
	is "$(status_of host.nnp <"$tmp/g.json")" pass "real doctor under gVisor: host.nnp passes"
	gv "$FAKE" nnp-off
	is "$(status_of host.nnp <"$tmp/g.json")" fail "a doctor under gVisor reporting no_new_privs off, the spec setting it: host.nnp fails"
	like "$(detail_of host.nnp <"$tmp/g.json")" "the spec sets noNewPrivileges, but gVisor's kernel reports it off" "and says why"
	gv "$FAKE" nnp-unreadable
	is "$(status_of host.nnp <"$tmp/g.json")" error "NoNewPrivs readable in neither way: host.nnp is an error, not a pass"
	gv "$FAKE" lie
	is "$(status_of host.nnp <"$tmp/g.json")" pass "a doctor that reads NoNewPrivs 1 from its status, the spec setting it: host.nnp passes"
else
	for i in 1 2 3 4 5; do skip "runsc not installed (Debian package runsc)"; done
fi

ls -d "$SP_LIVE_TMPDIR"/sandprobe-live.* >/dev/null 2>&1
isnt "$?" 0 "no lane temp dir left"
done_testing
