# shellcheck shell=bash
# Helpers for the R24/E72 composition tests (tests/soak/r24_*.t); source
# after tests/lib/tap.sh and tests/soak/lib.sh.

# What of a workload's runs the host holds, read from outside the run:
# processes whose command line, environment or cgroup names the declared
# prefix, mounts naming it or the test's dir, cgroups named with it, runc
# states (default root) and the system engines' containers and namespaces
# naming it, loopback listeners held by such processes, the test's state
# root's entries. PREFIX is the workload's declared prefix (every run
# prefix starts with it), DIR the test's temp dir (state root under it).
host_state() { # PREFIX DIR
	local p=$1 d=$2 pids="" q
	# "[s]pr..." matches the prefix but not grep's own command line
	local re="[${p:0:1}]${p:1}-"
	for q in $(grep -lsa -e "$re" /proc/[0-9]*/cmdline /proc/[0-9]*/environ /proc/[0-9]*/cgroup 2>/dev/null | cut -d/ -f3 | sort -un); do
		[ "$q" = $$ ] || [ "$q" = "$BASHPID" ] || pids="$pids $q"
	done
	echo "processes:$(for q in $pids; do [ -e /proc/$q ] && [ "$(sed 's/.*) //' /proc/$q/stat 2>/dev/null | cut -c1)" != Z ] && echo "$q($(cat /proc/$q/comm 2>/dev/null))"; done | paste -sd,)"
	echo "mounts:$(awk -v p="$p-" -v d="$d" 'index($5, d) || index($5, p) || index($4, p) { print $5 }' /proc/self/mountinfo | sort | paste -sd,)"
	echo "cgroups:$(find /sys/fs/cgroup -maxdepth 4 -type d -name "*$p-*" 2>/dev/null | sort | paste -sd,)"
	echo "runc:$(runc list -q 2>/dev/null | grep -F "$p-" | paste -sd,)"
	echo "listeners:$(for q in $pids; do ss -Hltnp 2>/dev/null | grep "pid=$q," | awk '{ print $4 }'; done | sort | paste -sd,)"
	if docker version >/dev/null 2>&1; then
		echo "system-docker:$(docker ps -a --format '{{.Names}}' 2>/dev/null | grep -F "$p-" | paste -sd,)"
	fi
	if [ -S /run/containerd/containerd.sock ]; then
		echo "system-containerd:$(ctr namespaces ls -q 2>/dev/null | grep -F "$p-" | paste -sd,)"
	fi
	echo "state-root:$(ls -A "$d/sr" 2>/dev/null | paste -sd,)"
}

# The composition: the class mix the bundle records is 40/20/15/15/10, every
# class has at least one scenario in the workload, ran at least one cycle
# (summary class_cycles) and has operations in operations.tsv, all ok or
# expected faults; the fault class's faults passed.
check_composition() { # OUT WORKLOAD
	local out=$1 w=$2 c ids got
	is "$(meta "$out" class_mix)" "lifecycle:40,service:20,storage:15,network:15,fault:10" "metadata: class_mix is the seed's 40/20/15/15/10"
	for c in lifecycle service storage network fault; do
		# the workload's scenarios of class c, read from the file itself
		ids=$(awk -v c="$c" '/^  - id: /{id=$3} /^    class: /{if ($2 == c) print id}' "$w" | paste -sd' ')
		isnt "$ids" "" "$c: the workload declares a scenario of it"
		got=$(awk -F'\t' -v ids=" $ids " 'NR > 1 && index(ids, " " $2 " ") { n++; if ($6 != "ok" && $6 != "expected_fault") bad++ } END { printf "%d:%d", n, bad }' "$out/operations.tsv")
		like "$got" '^[1-9][0-9]*:0$' "$c: operations of its scenarios ($ids) in operations.tsv, none failed ($got)"
		like "$(jq -r ".class_cycles.$c" "$out/summary.json")" '^[1-9][0-9]*$' "$c: at least one cycle in summary.json"
		for id in $ids; do
			like ",$(meta "$out" scenario_classes)," ",$id:$c," "metadata: scenario_classes maps $id to $c"
		done
	done
	# the composition gate: R0 does not require it; --profile R24 judges it
	# (each class ran; a one-cycle run is too short to judge the shares)
	is "$("$SP_BIN" verify --format json "$out" | jq -r '.gates[] | select(.id == "ops.composition") | .status')" pass "ops.composition: R0 passes (not required)"
	like "$("$SP_BIN" verify --format json --profile R24 "$out" | jq -r '.gates[] | select(.id == "ops.composition") | "\(.status) \(.message)"')" \
		'^pass R24: the five classes combined' "ops.composition under --profile R24: the five classes combined"
	is "$(awk -F'\t' 'NR > 1 { print $8 }' "$out/faults.tsv" | sort -u)" "pass" "every injected fault passed"
}
