#!/usr/bin/env bash
# Namespaces: each ns.* check passes in a sandbox with its own namespace and
# fails in one that shares the host's (bwrap without --unshare-X, or unshare
# without --mount).
. "$(dirname "$0")/lib.sh"

run_json strict strict_box -- -k namespaces
for t in pid net mnt uts ipc user cgroup; do is_status strict "ns.$t" pass; done

# shares every namespace but mount, user and pid with the host
run_json shared bwrap --die-with-parent --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$CAT/doctor" /tmp/sd \
	--unshare-pid /tmp/sd --profile strict --format json -k namespaces
for t in net uts ipc user cgroup; do is_status shared "ns.$t" fail; done
is_status shared ns.pid pass
# shares the mount namespace
run_json nomnt unshare --net --uts --ipc "$CAT/doctor" --profile strict --format json -k ns.mnt
is_status nomnt ns.mnt fail


# ns.time: bwrap never unshares time; unshare --time does
run_json notime strict_box -- -k ns.time --set ns.required=time
is_status notime ns.time fail
run_json time unshare --time --fork "$CAT/doctor" --profile strict --format json -k ns.time --set ns.required=time
is_status time ns.time pass
done_testing
