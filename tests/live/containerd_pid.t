#!/usr/bin/env bash
# The containerd lanes take the task's pid from the shim's own record of it
# (BUNDLE/init.pid, written by the runtime at create and read by the shim,
# which reports it to containerd's task service), and ask `ctr tasks ls` only
# when that record is absent. Judged against containerd itself: this test's
# own containerd runs the shim with a runc wrapper on its PATH that, after
# the real start, asks `ctr tasks ls` for the task's pid (the engine's
# answer, the ground truth) and can bend the record:
#  - plain: host.engine names the shim's init.pid and containerd's pid;
#  - no record (init.pid removed once the shim has read it): the lane asks
#    ctr tasks ls, says so, and still names containerd's pid;
#  - a forged record (another process's pid, written after the shim read
#    the real one): host.engine FAILS (containerd and the host disagree)
#    instead of passing on the record's word.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/engines.sh"
need_root
for t in jq ctr containerd runc; do need "$t"; done
need_lane_doctor
tmp=$(sp_tmpdir)
export SP_LIVE_TMPDIR=$tmp/lanes
mkdir -p "$SP_LIVE_TMPDIR" "$tmp/bin"
real=$(command -v runc)
ctrbin=$(command -v ctr)
cat >"$tmp/bin/runc" <<EOF
#!/bin/bash
# runc in front of the real one, for the shim: the mode is in $tmp/mode
mode=\$(cat $tmp/mode 2>/dev/null)
sub= pidfile= rootdir= id=\${@: -1}
prev=
for x in "\$@"; do
	case \$x in create | start) [ -z "\$sub" ] && sub=\$x ;; esac
	[ "\$prev" = --pid-file ] && pidfile=\$x
	[ "\$prev" = --root ] && rootdir=\$x
	prev=\$x
done
# the shim runs runc with --root RUNC_ROOT/NAMESPACE: the task's namespace,
# so the ground truth below asks one ctr per try (a short lane's task may be
# gone before a slower poll answers on a loaded machine)
ns=\$(basename "\$rootdir")
if [ "\$sub" = create ]; then
	"$real" "\$@" || exit
	echo "\$pidfile" >"$tmp/pidfile.\$id"
	exit 0
fi
[ "\$sub" = start ] || exec "$real" "\$@"
# the shim read the record when create returned; the sandbox's command runs only from this start
pf=\$(cat "$tmp/pidfile.\$id")
case \$mode in
nopid) rm -f "\$pf" ;;
forge) sleep 30 </dev/null >/dev/null 2>&1 & echo \$! >"$tmp/forged.pid"; printf '%d' \$! >"\$pf.new"; mv "\$pf.new" "\$pf" ;;
esac
"$real" "\$@" || exit
# the ground truth: containerd's own answer for the task's pid
CONTAINERD_ADDRESS=\$(cat $tmp/addr)
( for i in \$(seq 1 200); do
	p=\$("$ctrbin" --address "\$CONTAINERD_ADDRESS" -n "\$ns" tasks ls | awk -v id="\$id" '\$1 == id && \$2 > 0 { print \$2 }')
	[ -n "\$p" ] && { echo "\$p" >"$tmp/truth.\$id"; exit 0; }
	sleep 0.02
done ) </dev/null >/dev/null 2>&1 &
exit 0
EOF
chmod +x "$tmp/bin/runc"
PATH="$tmp/bin:$PATH" sp_containerd_start >"$tmp/ctd.err" 2>&1 || skip_all "containerd did not start: $(tail -1 "$tmp/ctd.err")"
echo "$CONTAINERD_ADDRESS" >"$tmp/addr"
lanerun() { # NAME MODE: one containerd-runc lane, its report in $tmp/NAME.json
	echo "$2" >"$tmp/mode"
	"$SP_BIN" live --runtime containerd-runc --doctor "$DOCTOR" --format json -o "$tmp/$1.json" 2>"$tmp/$1.err"
}
res() { jq -r --arg i "$2" '.lanes[0].results[] | select(.id == $i) | .status + " " + .observed' "$tmp/$1.json"; }
name() { jq -r '.lanes[0].name' "$tmp/$1.json"; }
truth() { cat "$tmp/truth.$(name "$1")" 2>/dev/null; }

lanerun plain plain
is "$(jq -r '.lanes[0].status' "$tmp/plain.json")" pass "plain: the containerd-runc lane passes"
like "$(truth plain)" '^[0-9]+$' "ground truth: containerd's ctr tasks ls named the task's pid ($(truth plain))"
like "$(res plain host.engine)" "^pass task $(name plain): pid $(truth plain) \\(the shim's init.pid\\), the shell with the lane's nonce $(truth plain);" \
	"plain: host.engine takes the shim's init.pid, which is containerd's pid and the sandbox's shell"

lanerun nopid nopid
is "$(jq -r '.lanes[0].status' "$tmp/nopid.json")" pass "no init.pid: the lane passes"
like "$(truth nopid)" '^[0-9]+$' "ground truth: containerd named the task's pid ($(truth nopid))"
like "$(res nopid host.engine)" "^pass task $(name nopid): pid $(truth nopid) \\(ctr tasks ls\\)" "no init.pid: the lane asked ctr tasks ls, and says so"

lanerun forged forge
fp=$(cat "$tmp/forged.pid" 2>/dev/null)
like "$fp" '^[0-9]+$' "ground truth: the forged record names a sleeper of the wrapper's ($fp)"
like "$(truth forged)" '^[0-9]+$' "ground truth: containerd still names the real task ($(truth forged))"
isnt "$fp" "$(truth forged)" "the forged pid is not containerd's"
like "$(res forged host.engine)" "^fail task $(name forged): pid $fp \\(the shim's init.pid\\), the shell with the lane's nonce $(truth forged);" \
	"a forged record: host.engine FAILS, naming both pids"
is "$(jq -r '.lanes[0].status' "$tmp/forged.json")" fail "and the lane fails"
like "$(res forged host.teardown)" '^pass ' "the forged lane still tears down completely"
[ -n "$fp" ] && kill "$fp" 2>/dev/null
left=$(for ns in $(ctr namespaces ls -q); do ctr -n "$ns" containers ls -q; ctr -n "$ns" tasks ls -q; done | wc -l)
is "$left" 0 "this containerd holds no container or task afterwards"
done_testing
