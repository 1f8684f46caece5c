#!/usr/bin/env bash
# The README's examples, run as a new user would: from a fresh clone under
# /tmp (the doctor inside bwrap's --tmpfs /tmp must still be reachable), every
# command of the usage and tour blocks exits 0 or 1 (a verdict, never a usage
# or internal error, never a file that does not exist), and afterwards the
# clone has no untracked file (.gitignore covers what the tour writes). It
# holds where an unrelated soak run died and left its journal in /tmp.
. "$SP_ROOT/tests/lib/tap.sh"
[ "${SP_SAN:-0}" = 1 ] && skip_na "runs the README with the normal build"
need git
need bwrap
need_root
C=$(mktemp -d /tmp/sp-readme-clone.XXXXXX)
at_exit "rm -rf '$C'"
(cd "$SP_ROOT" && git ls-files -co --exclude-standard | grep -vE '^build(-san|-fuzz)?/' | tar -cf - -T -) | tar -xf - -C "$C"
mkdir -p "$C/build"
cp "$SP_ROOT/build/sandprobe" "$SP_ROOT/build/sandprobe-doctor" "$C/build/"
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
out, acc = [], ""
for blk in blocks[1:]:
    for line in blk:
        line = re.sub(r"\s{2,}#.*$", "", line)
        if re.match(r"^\s*(#|$)", line):
            continue
        if line.endswith("\\"):
            acc += line[:-1]
            continue
        out.append((acc + line).strip())
        acc = ""
print("\n".join(out))
PY
)
like "$(printf '%s\n' "$cmds" | wc -l)" '^[1-9][0-9]$' "the README has its usage and tour commands ($(printf '%s\n' "$cmds" | wc -l))"
i=0
while IFS= read -r cmd; do
	i=$((i + 1))
	case $cmd in
	make*) continue ;; # built above (the clone gets the normal build)
	*--matrix*qemu*) skip "README line $i: the qemu matrix boots VMs (tests/live/matrix.t runs it)"; continue ;;
	esac
	out=$(cd "$C" && timeout 300 bash -c "$cmd" 2>&1 </dev/null)
	rc=$?
	if [ "$rc" -le 1 ] && ! printf '%s' "$out" | grep -qE '^(sandprobe|bwrap): |^usage:'; then
		_tap_result 0 "README: $cmd (exit $rc)"
	else
		_tap_result 1 "README: $cmd (exit $rc)" "$(printf '%s' "$out" | tail -5)"
	fi
done <<<"$cmds"
is "$(git -C "$C" status --porcelain)" "" "the tour leaves no untracked or changed file in the clone"
done_testing
