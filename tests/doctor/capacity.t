#!/usr/bin/env bash
# fs.capacity: free space and inodes of the named paths against the policy's
# minimums. Real tmpfs mounts of a known size and inode count in a private
# mount namespace; ground truth: df (-m and -i) read by the test itself.
. "$(dirname "$0")/lib.sh"
need df

mkdir -p "$CAT/cap"
# run DOCTOR-ARGS... on a fresh tmpfs at $CAT/cap of size $1 and $2 inodes, filled with $3 MiB
cap_run() {
	local size=$1 inodes=$2 fill=$3
	shift 3
	unshare --mount --propagation private sh -c '
		mount -t tmpfs -o "size=$1,nr_inodes=$2" tmpfs "$3/cap" || exit 9
		[ "$4" -gt 0 ] && dd if=/dev/zero of="$3/cap/fill" bs=1M count="$4" status=none
		df -Pm "$3/cap" | awk "NR==2 {print \$4}" >"$3/df-m"
		df -Pi "$3/cap" | awk "NR==2 {print \$4}" >"$3/df-i"
		shift 4
		"$@"' sh "$size" "$inodes" "$CAT" "$fill" "$CAT/doctor" --profile strict --format json -k fs.capacity \
		--set "fs.capacity=$CAT/cap" "$@"
}

# 16 MiB, 2 MiB used: 14 MiB free, above a 8 MiB minimum
run_json roomy cap_run 16m 1000 2 --set fs.capacity_min_mib=8 --set fs.capacity_min_inodes=100
is "$(cat "$CAT/df-m")" 14 "truth: df -m says 14 MiB free"
is_status roomy fs.capacity pass
like "$(detail roomy fs.capacity)" "14 of 16 MiB free" "the free space df reports is shown"
# the same with 12 MiB used: 4 MiB free, below the 8 MiB minimum
run_json full cap_run 16m 1000 12 --set fs.capacity_min_mib=8
is "$(cat "$CAT/df-m")" 4 "truth: df -m says 4 MiB free"
is_status full fs.capacity fail
# inodes: 20 in all, a minimum of 100 free
run_json fewinodes cap_run 16m 20 0 --set fs.capacity_min_inodes=100
like "$(cat "$CAT/df-i")" '^1[0-9]$' "truth: df -i says fewer than 20 inodes free"
is_status fewinodes fs.capacity fail
# nothing named: skip; a named path that does not exist: error, never pass
run_json none "$CAT/doctor" --profile strict --format json -k fs.capacity
is_status none fs.capacity skip
run_json gone "$CAT/doctor" --profile strict --format json -k fs.capacity --set "fs.capacity=$CAT/absent"
is_status gone fs.capacity error
done_testing
