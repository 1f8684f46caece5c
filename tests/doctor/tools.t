#!/usr/bin/env bash
# tools.*: the tools an agent needs, in a busybox rootfs with them and one
# without them, as an unprivileged user (uid 1000 in a user namespace):
# present on PATH, executable, not replaceable by that user, and each probe
# runs (exit 0, output matching); the login shell is the one named. Ground
# truth: the same commands run by the test in the same rootfs.
. "$(dirname "$0")/../lib/tap.sh"
. "$SP_ROOT/tests/lib/engines.sh"
need_root
need bwrap
need jq
need setpriv
[ -x /bin/busybox ] || skip_all "busybox-static not installed"
chmod 755 "$TAP_TMPBASE" # the sandbox runs as nobody: the base must be traversable
T=$(sp_tmpdir)
chmod 755 "$T"

mkroot() { # DIR: busybox, an agent user, the agent's own CLI
	sp_busybox_rootfs "$1" || return 1
	mkdir -p "$1/usr/bin" "$1/usr/lib" "$1/usr/lib64" "$1/home/agent"
	ln -s usr/lib64 "$1/lib64"
	ln -s usr/lib "$1/lib"
	: >"$1/sandprobe-doctor" # mount points: the sandbox user cannot make them
	printf '#!/bin/sh\necho "agent-cli 1.4.2"\n' >"$1/usr/bin/agent-cli"
	chmod 755 "$1/usr/bin/agent-cli"
	echo 'agent:x:1000:1000:agent:/home/agent:/bin/sh' >>"$1/etc/passwd"
	chmod 755 "$1" "$1/usr" "$1/usr/bin" "$1/bin" "$1/home/agent"
}
mkroot "$T/with" || { echo "Bail out! cannot build the rootfs"; exit 1; }
mkroot "$T/without" && rm "$T/without/usr/bin/agent-cli" "$T/without/bin/awk"
mkroot "$T/writable" && chmod 777 "$T/writable/usr/bin/agent-cli"
mkroot "$T/broken" && printf '#!/bin/sh\necho "agent-cli: cannot load its runtime" >&2\nexit 1\n' >"$T/broken/usr/bin/agent-cli"
cp "$SP_DOCTOR" "$T/doctor"
chmod 755 "$T/doctor"

# in_root DIR UID CMD...: CMD as UID in the rootfs, in a user namespace
# made by an unprivileged user (nobody), so the rootfs's root-owned files are
# not the sandbox user's; the host's libraries beside it, for a dynamic
# doctor, and nothing of the host on PATH
in_root() {
	local root=$1 uid=$2
	shift 2
	setpriv --reuid=65534 --regid=65534 --clear-groups -- bwrap --bind "$root" / --proc /proc --dev /dev --ro-bind /usr/lib /usr/lib --ro-bind /usr/lib64 /usr/lib64 \
		--ro-bind "$T/doctor" /sandprobe-doctor --unshare-user --uid "$uid" --gid "$uid" \
		--unshare-pid --die-with-parent --chdir / --clearenv --setenv PATH /usr/bin:/bin --setenv HOME /home/agent "$@"
}
PROBES="agent-cli --version => ^agent-cli 1\\.; sh -c 'echo ready' => ^ready\$; awk 'BEGIN { print 6 * 7 }' => ^42\$"
doc() { # DIR UID [args]
	local root=$1 uid=$2
	shift 2
	in_root "$root" "$uid" /sandprobe-doctor --profile host --format json -k tools --set 'expect.tools.*=required' \
		--set tools.required=agent-cli,sh --set "tools.probes=$PROBES" --set tools.shell=sh "$@" 2>"$T/doctor.err"
}
st() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | .status'; }
ev() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | "\(.detail) | \(.observed)"'; }
is_st() {
	local got
	got=$(st "$2" "$1")
	if [ "$got" = "$3" ]; then _tap_result 0 "$4"; else _tap_result 1 "$4" "got '$got': $(ev "$2" "$1" | head -c 900)"; fi
}

# ---- with the tools ---------------------------------------------------------
is "$(in_root "$T/with" 1000 sh -c 'agent-cli --version; awk "BEGIN { print 6 * 7 }"' 2>&1 | tr '\n' ' ')" \
	"agent-cli 1.4.2 42 " "ground truth: the tools run in the rootfs"
out=$(doc "$T/with" 1000)
for id in tools.present tools.probes tools.shell; do
	is_st "$out" $id pass "with the tools: $id passes"
done
like "$(ev tools.present "$out")" "agent-cli: /usr/bin/agent-cli" "found on the rootfs's PATH"

# ---- without them ----------------------------------------------------------
like "$(in_root "$T/without" 1000 sh -c 'agent-cli --version' 2>&1)" "not found" "ground truth: agent-cli is missing"
out=$(doc "$T/without" 1000)
is_st "$out" tools.present fail "without the tools: tools.present fails"
like "$(ev tools.present "$out")" "agent-cli \(MISSING\)" "naming the missing tool"
is_st "$out" tools.probes fail "and tools.probes fails"
like "$(ev tools.probes "$out")" "awk 'BEGIN .*cannot be run" "the probe of the missing awk"

# ---- a tool the agent can overwrite -------------------------------------------
ok in_root "$T/writable" 1000 sh -c 'test -w /usr/bin/agent-cli'
out=$(doc "$T/writable" 1000)
is_st "$out" tools.present fail "a world-writable tool: tools.present fails"
like "$(ev tools.present "$out")" "/usr/bin/agent-cli is writable" "saying what is writable"
is_st "$out" tools.probes pass "while its probe still works"
chmod 777 "$T/with/usr/bin"
out=$(doc "$T/with" 1000)
like "$(ev tools.present "$out")" "its directory /usr/bin is writable" "a writable directory makes the tool replaceable"
chmod 755 "$T/with/usr/bin"

# ---- a tool that is present but broken --------------------------------------------
out=$(doc "$T/broken" 1000)
is_st "$out" tools.present pass "a broken tool is present"
is_st "$out" tools.probes fail "but its probe fails"
like "$(ev tools.probes "$out")" "exit 1 .*cannot load its runtime' does NOT match" "with its exit status and output"

# ---- bounded in time ------------------------------------------------------------------
t0=$(date +%s%N)
out=$(doc "$T/with" 1000 --set "tools.probes=sleep 30 => never" --set tools.timeout_ms=800)
ms=$((($(date +%s%N) - t0) / 1000000))
is_st "$out" tools.probes fail "a probe that hangs fails"
like "$(ev tools.probes "$out")" "no end within 800 ms" "killed at its timeout"
ok test "$ms" -lt 10000
doc "$T/with" 1000 --set "tools.probes=agent-cli => (" >"$T/bad.out"
is "$?" 2 "a bad regex is a usage error before anything runs"
like "$(cat "$T/doctor.err")" "tools.probes: 'agent-cli => \\(': bad regex" "naming the key and the entry"

# ---- a ';' inside quotes belongs to its word, not the entry list -----------------
is "$(in_root "$T/with" 1000 sh -c 'echo one; echo two' 2>&1 | tr '\n' ' ')" "one two " \
	"ground truth: the quoted command prints two lines"
out=$(doc "$T/with" 1000 --set "tools.probes=sh -c 'echo one; echo two' => ^two\$; agent-cli --version => ^agent")
is_st "$out" tools.probes pass "a probe with a quoted ';' runs whole and passes"
like "$(ev tools.probes "$out")" "echo one; echo two" "its entry is kept whole"
out=$(doc "$T/with" 1000 --set "tools.probes=sh -c \"echo one; exit 3\" => ^one\$")
is_st "$out" tools.probes fail "a quoted ';' command that exits 3 fails"

# ---- the login shell --------------------------------------------------------------
out=$(doc "$T/with" 1000 --set tools.shell=bash)
is_st "$out" tools.shell fail "tools.shell=bash when the passwd entry says /bin/sh: fails"
out=$(doc "$T/with" 1000 --set tools.shell=/bin/sh)
is_st "$out" tools.shell pass "tools.shell=/bin/sh (full path) passes"
out=$(doc "$T/with" 2000)
is_st "$out" tools.shell fail "a user without a passwd entry has no login shell: fails"
# a check that skips does no work: with no tool, probe or shell declared the
# three tools checks are skipped by their precondition in the doctor, with no
# probe child (ground truth: the processes strace sees the doctor start)
forksk() { # EXPR ARGS...: the processes a doctor run of that selection starts
	local k=$1
	shift
	strace -f -qq -e trace=clone,clone3,fork,vfork -e signal=none -o "$T/forks" \
		"$SP_DOCTOR" -j 1 --profile strict --format json -k "$k" "$@" >"$T/forks.json" 2>/dev/null
	grep -cE '^[0-9]+ +(clone|clone3|fork|vfork)\(' "$T/forks"
}
forks() { forksk 'tools.*' "$@"; }
if command -v strace >/dev/null; then
	# the baseline: a run of one check that runs in the doctor itself (ns.pid
	# reads a link); what the runtime starts on its own (LeakSanitizer's
	# tracer at exit under ASan) is in both
	base=$(forksk id:ns.pid)
	is "$(forks)" "$base" "nothing declared: the tools checks skip without a probe child (as many as a run of one in-process check: $base)"
	is "$(jq -r '[.results[] | .status] | unique | join(",")' "$T/forks.json")" skip "... and all three are skips"
	n=$(forks --set tools.required=sh)
	TAP_NAME="a declared tool is looked for in a probe child ($n started, $base without)" ok test "$n" -gt "$base"
	like "$(jq -r '.results[] | select(.id == "tools.present") | .status' "$T/forks.json")" '^(pass|fail)$' \
		"... and judged there (found; replaceable or not)"
else
	need strace "strace counts the doctor's children"
fi
done_testing
