#!/usr/bin/env bash
# Processes: the strict sandbox (own PID namespace) sees only itself; a
# sandbox that shares the host's PID namespace (own mount namespace, real
# root) sees, signals and reads host processes, including a planted
# "forbidden" one.
. "$(dirname "$0")/lib.sh"

# a host process with a distinctive name, and one of another uid
cp /bin/sleep "$CAT/sp-fake-sshd"
"$CAT/sp-fake-sshd" 300 &
FAKE=$!
at_exit "kill $FAKE"
setpriv --reuid=65534 --regid=65534 --clear-groups sleep 300 &
OTHER=$!
at_exit "kill $OTHER"
PID1=$(cat /proc/1/comm)

run_json strict strict_box -- -k processes --set proc.forbidden=sp-fake-sshd --set "proc.pid1_forbidden=$PID1" \
	--set proc.required=bwrap --set expect.proc.required=required
for id in proc.host_visible proc.pid1 proc.forbidden proc.required proc.signal_foreign proc.environ_foreign; do
	is_status strict $id pass
done

run_json shared bwrap --unshare-net --unshare-ipc --die-with-parent --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp \
	--ro-bind "$CAT/doctor" $D $D --profile strict --format json -k processes --set proc.forbidden=sp-fake-sshd \
	--set "proc.pid1_forbidden=$PID1" --set proc.required=sp-not-running --set expect.proc.required=required
for id in proc.host_visible proc.pid1 proc.forbidden proc.required proc.signal_foreign proc.environ_foreign; do
	is_status shared $id fail
done

# pid 1 by glob patterns, and pid 1's ownership proven, not assumed from a
# name missing from the list: a box in the host's PID namespace (ground
# truth: its pid namespace link is the host's) with no pid1_forbidden list
# must not pass proc.pid1; patterns match like names
HOSTNS=$(readlink /proc/self/ns/pid)
BOXNS=$(bwrap --unshare-net --die-with-parent --ro-bind / / --proc /proc --dev /dev readlink /proc/self/ns/pid)
is "$BOXNS" "$HOSTNS" "ground truth: the shared box is in the host's PID namespace"
run_json sharedglob bwrap --unshare-net --unshare-ipc --die-with-parent --ro-bind / / --proc /proc --dev /dev \
	--tmpfs /tmp --ro-bind "$CAT/doctor" $D $D --profile strict --format json -k processes \
	--set 'proc.forbidden=sp-fake-s*' --set proc.pid1_forbidden= --set 'proc.required=sp-fake-?shd' \
	--set expect.proc.required=required
is_status sharedglob proc.pid1 fail
is_status sharedglob proc.forbidden fail
is_status sharedglob proc.required pass
run_json strictglob strict_box -- -k processes --set 'proc.forbidden=sp-fake-s*' --set proc.pid1_forbidden= \
	--set 'proc.required=bw[a-z]ap' --set expect.proc.required=required
is_status strictglob proc.pid1 pass
is_status strictglob proc.forbidden pass
is_status strictglob proc.required pass

# nothing looked at is no pass: an empty /proc (a tmpfs, ground truth: no pid
# directory in it) and an empty forbidden list
is "$(bwrap --unshare-pid --die-with-parent --ro-bind / / --tmpfs /proc --dev /dev ls /proc | wc -l | tr -d ' ')" 0 \
	"ground truth: the tmpfs /proc lists nothing"
run_json noproc bwrap --unshare-pid --die-with-parent --ro-bind / / --tmpfs /proc --dev /dev --tmpfs /tmp \
	--ro-bind "$CAT/doctor" $D $D --profile strict --format json -k 'processes or fs.proc1_root' --set proc.forbidden=
for id in proc.signal_foreign proc.environ_foreign proc.pid1 proc.host_visible fs.proc1_root; do
	is_status noproc $id error
done
is_status noproc proc.forbidden skip
run_json noprocnet bwrap --unshare-pid --die-with-parent --ro-bind / / --tmpfs /proc --dev /dev --tmpfs /tmp \
	--ro-bind "$CAT/doctor" $D $D --profile strict --format json -k priv.abstract_sockets
is_status noprocnet priv.abstract_sockets skip
done_testing
