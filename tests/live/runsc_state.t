#!/usr/bin/env bash
# The runsc lane reads runsc's own record of its container (the state file
# under the lane's --root, the file `runsc state` loads) for the sandbox's
# pid, and proves teardown by that root holding nothing; it asks `runsc
# state` only when the record is not where it looks. Judged against runsc
# itself, through a runsc wrapper on PATH that logs each subcommand and asks
# the real runsc (never through the wrapper) while the container runs:
#  - plain: host.engine names the state file, its pid is the one the real
#    `runsc state` gives, no `runsc state` is run by the lane;
#  - a runsc that leaves a file in its root after the run: host.teardown
#    FAILS naming it (the file is there: ground truth from the kept lane dir);
#  - a runsc that keeps its state elsewhere than the --root it is given: the
#    lane asks `runsc state` for the pid and for the proof, and says so;
#  - and then a forged record in the root naming a process that is not the
#    Sentry: refused (host.engine is not a pass), and the record is a leftover.
. "$(dirname "$0")/../lib/tap.sh"
need_root
need jq
need runsc
need_lane_doctor
tmp=$(sp_tmpdir)
export SP_LIVE_TMPDIR=$tmp/lanes
mkdir -p "$SP_LIVE_TMPDIR" "$tmp/bin"
real=$(command -v runsc)
cat >"$tmp/bin/runsc" <<EOF
#!/bin/bash
# runsc in front of the real one: logs each subcommand, bent by the test's variables
real=$real
log=$tmp/log
a=() root= sub= id=
for x in "\$@"; do
	case \$x in
	--root=*) root=\${x#--root=}; [ -n "\${SP_T_ELSEWHERE:-}" ] && x=--root=\$root-alt ;;
	run | state | delete | create | start | flags | --version) [ -z "\$sub" ] && sub=\$x ;;
	esac
	a+=("\$x")
done
id=\${a[-1]}
echo "\$sub \$id" >>"\$log"
[ "\$sub" = run ] || exec "\$real" "\${a[@]}"
ra=--root=\$root
[ -n "\${SP_T_ELSEWHERE:-}" ] && ra=--root=\$root-alt
# the truth while it runs: the real runsc's answer for the container's pid
( for i in \$(seq 1 400); do
	p=\$("\$real" "\$ra" state "\$id" 2>/dev/null | sed -n 's/^ *"pid": *\([0-9]*\).*/\1/p')
	[ -n "\$p" ] && [ "\$p" != 0 ] && { echo "\$p" >"$tmp/truth.\$id"; break; }
	sleep 0.02
done ) </dev/null >/dev/null 2>&1 &
if [ -n "\${SP_T_FORGE:-}" ]; then
	# a record in the given root naming this wrapper's own sleeper, which is no Sentry
	sleep 30 </dev/null >/dev/null 2>&1 &
	echo \$! >"$tmp/forged.pid"
	mkdir -p "\$root"
	printf '{"id":"%s","status":"running","sandbox":{"id":"%s","pid":%d}}\n' "\$id" "\$id" \$! >"\$root/\${id}_sandbox:\$id.state"
fi
"\$real" "\${a[@]}"
rc=\$?
[ -n "\${SP_T_STRAY:-}" ] && : >"\$root/stray.lock"
exit \$rc
EOF
chmod +x "$tmp/bin/runsc"
lanerun() { # NAME ENV...: one runsc lane through the wrapper, its report in $tmp/NAME.json
	local n=$1
	shift
	: >"$tmp/log"
	env PATH="$tmp/bin:$PATH" "$@" "$SP_BIN" live --runtime runsc ${KEEP:+--keep} --doctor "$DOCTOR" --format json -o "$tmp/$n.json" 2>"$tmp/$n.err"
	cp "$tmp/log" "$tmp/$n.log"
}
res() { jq -r --arg i "$2" '.lanes[0].results[] | select(.id == $i) | .status + " " + .observed' "$tmp/$1.json"; }
name() { jq -r '.lanes[0].name' "$tmp/$1.json"; }
states() { grep -c "^state $(name "$1")\$" "$tmp/$1.log"; }

# --- plain: the record is read, and it is runsc's answer ----------------------------
lanerun plain
is "$(jq -r '.lanes[0].runtime' "$tmp/plain.json")" runsc "plain: a runsc lane"
unlike "$(jq -r '.lanes[0].status' "$tmp/plain.json")" 'skip|error' "plain: it ran (not a skip or an error)"
truth=$(cat "$tmp/truth.$(name plain)" 2>/dev/null)
like "$truth" '^[0-9]+$' "ground truth: the real runsc state named the sandbox's pid while it ran ($truth)"
like "$(res plain host.engine)" "^pass runsc's state .*/runsc-root/$(name plain)_sandbox:$(name plain)\\.state \\(what runsc state reads\\): pid $truth is runsc-sandbox" \
	"plain: host.engine names runsc's state file and the pid the real runsc state gives"
is "$(states plain)" 0 "plain: the lane ran no runsc state"
like "$(res plain host.teardown)" "^pass .*runsc: nothing left: runsc's root .*/runsc-root holds no state \\(runsc knows no $(name plain)\\)" \
	"plain: teardown proven by the empty root"

# --- a file left in the root --------------------------------------------------------
KEEP=1 lanerun stray SP_T_STRAY=1
like "$(res stray host.teardown)" '^fail .*runsc state .*/runsc-root/stray\.lock is left' "a runsc leaving a file in its root: host.teardown FAILS naming it"
is "$(jq -r '.lanes[0].status' "$tmp/stray.json")" fail "and the lane fails"
dir=$(jq -r '.lanes[0].dir' "$tmp/stray.json")
ok test -e "$dir/runsc-root/stray.lock"
is "$(ls -A "$dir/runsc-root" | grep -v '^stray\.lock$')" "" "ground truth: the kept root holds the stray file and nothing else"
rm -rf "$dir"

# --- the state elsewhere: the engine is asked ---------------------------------------
lanerun elsewhere SP_T_ELSEWHERE=1
unlike "$(jq -r '.lanes[0].status' "$tmp/elsewhere.json")" 'skip|error' "state elsewhere: the lane ran"
truth=$(cat "$tmp/truth.$(name elsewhere)" 2>/dev/null)
like "$truth" '^[0-9]+$' "ground truth: the real runsc (its other root) named the sandbox's pid ($truth)"
like "$(res elsewhere host.engine)" "^pass runsc state $(name elsewhere): pid $truth is runsc-sandbox" \
	"state elsewhere: host.engine asked runsc state, which names the Sentry"
is "$(states elsewhere)" 2 "state elsewhere: runsc state asked twice (the pid, the teardown proof)"
like "$(res elsewhere host.teardown)" "^pass .*runsc state knows no $(name elsewhere)" "state elsewhere: the proof says runsc state knows none"

# --- a forged record ------------------------------------------------------------------
lanerun forged SP_T_ELSEWHERE=1 SP_T_FORGE=1
fp=$(cat "$tmp/forged.pid" 2>/dev/null)
like "$fp" '^[0-9]+$' "ground truth: the forged record names the wrapper's sleeper $fp"
unlike "$(res forged host.engine)" '^pass' "a record naming a process that is no Sentry: host.engine does not pass"
like "$(jq -r '[.lanes[0].results[] | .observed + " " + .detail] | join(" | ")' "$tmp/forged.json")" "pid $fp is not the gVisor sandbox" \
	"the lane says the named pid is not the gVisor sandbox"
like "$(res forged host.teardown)" "^fail .*_sandbox:$(name forged)\\.state is left" "and the forged record is a leftover of the root"
is "$(jq -r '.lanes[0].status' "$tmp/forged.json")" fail "the lane fails"
[ -n "$fp" ] && kill "$fp" 2>/dev/null
is "$(pgrep -fc "$(name forged)")" 0 "no process of the forged lane's container is left"
done_testing
