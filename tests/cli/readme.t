#!/usr/bin/env bash
# The README's examples, run as a new user would: from a fresh clone under
# /tmp (the doctor inside bwrap's --tmpfs /tmp must still be reachable), every
# command of the usage and tour blocks exits with the code the README
# documents in its comment ("exit N", "exit 0 or 1" for a verdict; 0 when
# none is said), never with a usage error; and afterwards the clone has no
# untracked file (.gitignore covers what the tour writes). The doctor's
# network examples (-k net..., -k tls) run in a network namespace of the
# test's own: their targets are never dialed from the host's.
# It holds where an unrelated soak run died and left its journal in /tmp.
. "$SP_ROOT/tests/lib/tap.sh"
[ "${SP_SAN:-0}" = 1 ] && skip_na "runs the README with the normal build"
need git
need bwrap
need_root
need unshare
C=$(mktemp -d /tmp/sp-readme-clone.XXXXXX)
chmod 755 "$C" # as git clone leaves it: tools/demo's sandbox runs the doctor as nobody
at_exit "rm -rf '$C'"
(cd "$SP_ROOT" && git ls-files -co --exclude-standard | grep -vE '^build(-san|-fuzz)?/' | tar -cf - -T -) | tar -xf - -C "$C"
# the clone gets this suite's build, objects and times kept, so tools/demo's
# make only redoes what the clone's own commit changes (the version string);
# a clean clone built from nothing is what .ci/run itself does first
mkdir -p "$C/build/tests/helpers"
cp -a "$SP_ROOT/build/sandprobe" "$SP_ROOT/build/sandprobe-doctor" "$SP_ROOT/build/obj" "$SP_ROOT/build/gen" \
	"$SP_ROOT/build/libsp.a" "$SP_ROOT"/build/flags-* "$C/build/"
cp -a "$SP_ROOT/build/tests/helpers/mkseccomp" "$C/build/tests/helpers/"
git -C "$C" init -q && git -C "$C" add -A && git -C "$C" -c user.name=t -c user.email=t@t commit -qm clone
# the build directory of a clone is ignored too
like "$(git -C "$C" status --porcelain --ignored build)" '^!! build/' "build/ is ignored"

# a host where an unrelated soak run died: its journal and state dir in /tmp,
# the state root every shipped workload shares (the tour must still run)
dead=spdead-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')
mkdir -m 700 "/tmp/$dead"
printf '{"t":"run","schema":"sandprobe.soak.journal.v1","run_id":"20260101T000000Z-%s","prefix":"%s","state_root":"/tmp","state_dir":"/tmp/%s","boot_id":"%s","supervisor_pid":0}\n{"t":"end","how":"killed","why":"SIGKILL"}\n' \
	"${dead#spdead-}" "$dead" "$dead" "$(cat /proc/sys/kernel/random/boot_id)" >"/tmp/$dead.journal"
at_exit "rm -rf '/tmp/$dead' '/tmp/$dead.journal'"

# the commands of the README's ```sh blocks after the first one (the first
# block is tools/demo and tools/test: the suite itself), joined over "\"
cmds=$(/usr/bin/python3 - "$C/README.md" <<'PY'
import re, sys
blocks, cur = [], None
for line in open(sys.argv[1]):
    if line.startswith("```"):
        if cur is None and line.strip() == "```sh":
            cur = []
        elif cur is not None:
            blocks.append(cur)
            cur = None
        continue
    if cur is not None:
        cur.append(line.rstrip("\n"))
out, acc, notes = [], "", ""
for blk in blocks[1:]:
    for line in blk:
        m = re.search(r"\s{2,}#(.*)$", line)
        note = m.group(1) if m else ""
        if m:
            line = line[:m.start()]
        if re.match(r"^\s*(#|$)", line):
            # an indented comment-only line right after a command belongs to it
            if note and not acc and out:
                out[-1][1] += " " + note
            continue
        notes += " " + note
        if line.endswith("\\"):
            acc += line[:-1]
            continue
        out.append([(acc + line).strip(), notes])
        acc, notes = "", ""
for cmd, n in out:
    m = re.search(r"exit (\d)( or (\d))?", n)
    want = m.group(1) + ("," + m.group(3) if m.group(3) else "") if m else "0"
    print(want + "\t" + cmd)
PY
)
like "$(printf '%s\n' "$cmds" | wc -l)" '^[1-9][0-9]$' "the README has its usage and tour commands ($(printf '%s\n' "$cmds" | wc -l))"
i=0
while IFS=$'\t' read -r want cmd; do
	i=$((i + 1))
	case $cmd in
	make*) continue ;; # built above (the clone gets the normal build)
	esac
	run=(bash -c "$cmd")
	case $cmd in
	*sandprobe-doctor\ -k\ net.* | *sandprobe-doctor\ -k\ tls*) run=(unshare --net bash -c "ip link set lo up && $cmd") ;;
	esac
	out=$(cd "$C" && timeout 900 "${run[@]}" 2>&1 </dev/null)
	rc=$?
	if [[ ",$want," == *",$rc,"* ]] && ! printf '%s' "$out" | grep -qE '^usage:'; then
		_tap_result 0 "README: $cmd (exit $rc)"
	else
		_tap_result 1 "README: $cmd (exit $rc, documented $want)" "$(printf '%s' "$out" | tail -5)"
	fi
done <<<"$cmds"
# the first block: tools/demo leads with the two verdicts (tools/test is this suite)
# (the build's linker notes go to stderr; the verdicts are the report on stdout)
out=$(cd "$C" && timeout 900 tools/demo 2>"$C/build/demo.err" </dev/null)
rc=$?
if [ "$rc" = 0 ]; then _tap_result 0 "README: tools/demo (exit 0)"; else
	_tap_result 1 "README: tools/demo (exit $rc)" "$(printf '%s\n' "$out"; tail -5 "$C/build/demo.err")"; fi
like "$(head -1 <<<"$out")" '^== verdicts ==$' "tools/demo: the verdicts come first"
like "$(sed -n 3p <<<"$out")" '^   RESULT: PASS -- .*profile host is advisory' "tools/demo: the host verdict says it is advisory"
TAP_NAME="tools/demo: at most 15 lines ($(wc -l <<<"$out"))" ok test "$(wc -l <<<"$out")" -le 15
is "$(git -C "$C" status --porcelain)" "" "the tour leaves no untracked or changed file in the clone"
done_testing
