#!/usr/bin/env bash
# Workflow checks: a usable sandbox passes them all; a sandbox whose scratch
# dir is read-only, one whose tmpfs is too small for the large file, and one
# that cannot fork each fail the checks that cover them; so do ones whose
# processes cannot send SIGCONT or SIGTERM (wf.signals, each naming the step).
. "$(dirname "$0")/../lib/tap.sh"
need jq
need bwrap
need_root

D="$SP_DOCTOR"
st() { printf '%s' "$2" | json_status "$1"; }
obs() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | .observed'; }
ALL="wf.write_read wf.fork_exec wf.pipes wf.bigfile wf.tmpdir wf.signals"

# a usable sandbox: read-only root, private tmpfs /tmp
rep=$(bwrap --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$D" "$D" --unshare-pid "$D" --format json -k wf)
for id in $ALL; do
	is "$(st $id "$rep")" pass "usable bwrap sandbox: $id passes" || echo "# $(obs $id "$rep")"
done
like "$(obs wf.bigfile "$rep")" 'wrote 10485760 bytes.*removed, verified gone' "10 MiB written, digest compared, file removed"

# the scratch dir is read-only
T=$(mktemp -d /tmp/sandprobe-test.XXXXXX)
at_exit "rm -rf '$T'" # registered here: inside $(...) it would be lost
rep=$(bwrap --ro-bind / / --proc /proc --dev /dev "$D" --format json -k wf --set workflows.dir="$T")
for id in wf.write_read wf.bigfile wf.tmpdir; do
	is "$(st $id "$rep")" fail "read-only scratch dir: $id fails"
done
is "$(st wf.pipes "$rep")" pass "read-only scratch dir: pipes still work"

# a 2 MiB tmpfs: small files fit, the 10 MiB file does not
rep=$(bwrap --ro-bind / / --proc /proc --dev /dev --size 2097152 --tmpfs /tmp --ro-bind "$D" "$D" "$D" --format json -k wf)
is "$(st wf.write_read "$rep")" pass "2 MiB tmpfs: small file fits"
is "$(st wf.bigfile "$rep")" fail "2 MiB tmpfs: the 10 MiB file does not fit"
like "$(obs wf.bigfile "$rep")" 'ENOSPC' "the failure names ENOSPC"
ls -A "$T" | grep -q sandprobe && fail_left=1 || fail_left=0
is "$fail_left" 0 "nothing left behind in the scratch dir"

# no fork beyond the doctor's own probe child: RLIMIT_NPROC for an
# unprivileged user (the runner's child is the second process)
if command -v setpriv >/dev/null && command -v prlimit >/dev/null; then
	# a uid nobody else runs as: RLIMIT_NPROC counts every process of the uid
	nuid=$((61000 + $$ % 1000))
	rep=$(cd / && setpriv --reuid=$nuid --regid=$nuid --clear-groups prlimit --nproc=2 "$D" --format json -k "wf.fork_exec or wf.pipes or wf.signals" 2>/dev/null)
	for id in wf.fork_exec wf.pipes wf.signals; do
		is "$(st $id "$rep")" fail "fork refused by RLIMIT_NPROC: $id fails" || echo "# $(obs $id "$rep") / $(printf '%s' "$rep" | jq -r --arg id $id '.results[]|select(.id==$id)|.detail')"
	done
else
	skip "setpriv/prlimit missing"; skip "setpriv"; skip "setpriv"
fi

# a sandbox whose processes cannot send one signal (tests/helpers/sigdeny: seccomp refuses kill of it)
SD=$SP_HELPERS/sigdeny
if [ -x "$SD" ]; then
	rep=$("$SD" 18 "$D" --format json -k wf.signals)
	is "$(st wf.signals "$rep")" fail "SIGCONT refused: wf.signals fails"
	like "$(obs wf.signals "$rep")" 'stop seen, continue NOT seen' "... the child still stopped is not taken for continued (its /proc state is T)"
	rep=$("$SD" 15 "$D" --format json -k wf.signals)
	is "$(st wf.signals "$rep")" fail "SIGTERM refused: wf.signals fails"
	like "$(obs wf.signals "$rep")" 'continue seen, SIGTERM Operation not permitted, reaped NO' "... naming the refusal"
else
	skip "sigdeny helper not built"; skip "sigdeny"; skip "sigdeny"; skip "sigdeny"
fi
# one 10 MiB round trip for fs.large_write and wf.bigfile when they name the
# same directory; two when they do not. Ground truth: the bytes the doctor's
# processes wrote, counted by strace (every write call of every process)
if command -v strace >/dev/null; then
	written() { # [--set ...]: total bytes written by the doctor and its children
		strace -f -qq -e trace=write,pwrite64,writev -e signal=none -o "$T/strace" \
			bwrap --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --bind "$T" "$T" --ro-bind "$D" "$D" \
			--unshare-pid "$D" --format json -k 'fs.large_write or wf.bigfile' "$@" >"$T/rep.json"
		awk '/ = [0-9]+$/ { s += $NF } END { print s + 0 }' "$T/strace"
	}
	n=$(written)
	rep=$(cat "$T/rep.json")
	is "$(st fs.large_write "$rep") $(st wf.bigfile "$rep")" "pass pass" "same directory: both checks pass"
	_tap_result "$([ "$n" -ge 10485760 ] && [ "$n" -lt 12582912 ] && echo 0 || echo 1)" \
		"same directory: 10 MiB written once for both ($n bytes by every process)"
	like "$(obs wf.bigfile "$rep")" 'the round trip fs.large_write made' "wf.bigfile says whose round trip it read"
	n=$(written --set workflows.dir="$T")
	rep=$(cat "$T/rep.json")
	is "$(st fs.large_write "$rep") $(st wf.bigfile "$rep")" "pass pass" "different directories: both checks pass"
	_tap_result "$([ "$n" -ge 20971520 ] && echo 0 || echo 1)" "different directories: each its own 10 MiB ($n bytes)"
	rep=$(bwrap --ro-bind / / --proc /proc --dev /dev --size 12582912 --tmpfs /tmp --ro-bind "$D" "$D" "$D" \
		--format json -k 'fs.large_write or wf.bigfile' --set fs.large_write_mib=11 --set workflows.bigfile_mib=11)
	is "$(st fs.large_write "$rep") $(st wf.bigfile "$rep")" "pass pass" "11 MiB in a 12 MiB tmpfs: the shared round trip fits"
	rep=$(bwrap --ro-bind / / --proc /proc --dev /dev --size 8388608 --tmpfs /tmp --ro-bind "$D" "$D" "$D" \
		--format json -k 'fs.large_write or wf.bigfile')
	is "$(st fs.large_write "$rep") $(st wf.bigfile "$rep")" "fail fail" "8 MiB tmpfs: the shared round trip fails both"
	like "$(obs fs.large_write "$rep")" 'wrote [0-9] MiB, then ENOSPC' "fs.large_write names how far it got"
else
	skip "no strace"; skip "no strace"; skip "no strace"; skip "no strace"; skip "no strace"; skip "no strace"; skip "no strace"; skip "no strace"
fi
done_testing
