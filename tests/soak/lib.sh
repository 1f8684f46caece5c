# Helpers for the soak tests (source after tests/lib/tap.sh).
# check_bundle DIR: asserts a finished bundle against docs/evidence-format.md
# with our own shell/jq/awk reading of the format (independent of the verifier).

SOAK_REQUIRED_META="schema run_id profile scenarios tool_version tool_commit dirty host_kernel host_arch host_cpus host_memory_bytes runtime runtime_version rootfs_digest started_at seed workload_sha256 concurrency faults duration_s sample_interval_s warmup_s threshold.min_span_s threshold.max_interval_s threshold.min_periodic_samples threshold.max_gap_s threshold.min_success_ratio threshold.rss_slope_mib_per_day threshold.fd_growth_max threshold.p95_regression_pct threshold.disk_budget_bytes"
SOAK_OPS_HDR=$'ts\tscenario\tapi\toperation\tlatency_ms\tresult\tgeneration\terror_code'
SOAK_LAT_HDR=$'ts\tscenario\toperation\tlatency_ms\twarmup'
SOAK_SAMPLES_HDR=$'ts\twall\tphase\towned_processes\towned_threads\towned_rss_bytes\towned_cpu_seconds\towned_fds\towned_mounts\towned_sockets\towned_cgroups\tdisk_bytes\tglobal_processes\tglobal_mounts\trunner_rss_bytes\trunner_fds'
SOAK_CAP_HDR=$'scenario\tattempted\tsucceeded\texpected_faults\tunexpected_failures\tresult'
SOAK_FAULTS_HDR=$'fault_id\ttarget\texpected\tstarted\tended\trecovery_ms\trto_ms\tresult'

# numeric equality to the millisecond: near A B NAME
near() {
	if awk -v a="$1" -v b="$2" 'BEGIN{d=a-b; if(d<0)d=-d; exit !(a!="" && b!="" && d < 0.0015)}'; then _tap_result 0 "$3"
	else _tap_result 1 "$3" "got '$1', want '$2' (to the millisecond)"; fi
}

meta() { grep -m1 "^$2=" "$1/metadata.txt" | cut -d= -f2-; }

# every row has the header's column count; prints the bad line numbers
tsv_shape() { awk -F'\t' 'NR==1{n=NF} NF!=n{print FILENAME": line "NR" has "NF" columns, header "n}' "$1"; }

check_bundle() {
	local d=$1 f missing="" k bad
	for f in metadata.txt operations.tsv latency.tsv resource-samples.tsv capability-results.tsv faults.tsv \
		inventory-start.json inventory-final.json summary.json MANIFEST verify.out; do
		[ -f "$d/$f" ] || missing="$missing $f"
	done
	is "$missing" "" "bundle: every file present"
	ok test -d "$d/logs"
	missing=""
	for k in $SOAK_REQUIRED_META; do
		[ "$(grep -c "^$k=" "$d/metadata.txt")" = 1 ] || missing="$missing $k"
	done
	is "$missing" "" "metadata: every required key exactly once"
	is "$(meta "$d" schema)" "sandprobe.evidence.v1" "metadata: schema"
	is "$(head -1 "$d/operations.tsv")" "$SOAK_OPS_HDR" "operations.tsv header"
	is "$(head -1 "$d/latency.tsv")" "$SOAK_LAT_HDR" "latency.tsv header"
	like "$(head -1 "$d/resource-samples.tsv")" "^$SOAK_SAMPLES_HDR(	extra\.[A-Za-z0-9._-]+)*\$" "resource-samples.tsv header"
	is "$(head -1 "$d/capability-results.tsv")" "$SOAK_CAP_HDR" "capability-results.tsv header"
	is "$(head -1 "$d/faults.tsv")" "$SOAK_FAULTS_HDR" "faults.tsv header"
	bad=""
	for f in operations.tsv latency.tsv resource-samples.tsv capability-results.tsv faults.tsv; do
		bad="$bad$(tsv_shape "$d/$f")"
	done
	is "$bad" "" "every TSV row has its header's column count"
	bad=$(awk -F'\t' 'NR>1 && ($1 !~ /^[0-9]+\.[0-9]+$/ || $1+0 < prev || $5 !~ /^[0-9]+(\.[0-9]+)?$/ || $6 !~ /^(ok|fail|expected_fault)$/ || $7 !~ /^[0-9]+$/ || $8 ~ / / || length($8) > 64) {print NR": "$0} NR>1{prev=$1+0}' "$d/operations.tsv")
	is "$bad" "" "operations.tsv: types, result values, monotonic ts"
	ok test "$(wc -l < "$d/operations.tsv")" -gt 1
	bad=$(awk -F'\t' 'NR>1 && ($1 !~ /^[0-9]+\.[0-9]+$/ || $4 !~ /^[0-9]+(\.[0-9]+)?$/ || $5 !~ /^[01]$/) {print NR": "$0}' "$d/latency.tsv")
	is "$bad" "" "latency.tsv: types"
	bad=$(awk -F'\t' 'NR>1 { if ($1 !~ /^[0-9]+\.[0-9]+$/ || $1+0 <= prev) print NR": ts "$1; prev=$1+0;
		if ($2 !~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z$/) print NR": wall "$2;
		for (i = 4; i <= NF; i++) if (i != 7 && $i !~ /^-?[0-9]+$/) print NR": column "i" "$i;
		if ($7 !~ /^[0-9]+(\.[0-9]+)?$/) print NR": cpu "$7 }' "$d/resource-samples.tsv")
	is "$bad" "" "resource-samples.tsv: strictly increasing ts, ISO wall, integer counters"
	is "$(awk -F'\t' 'NR>1 && ($15 <= 0 || $16 <= 0)' "$d/resource-samples.tsv")" "" "samples: the runner's RSS and fds measured in every row"
	is "$(awk -F'\t' 'NR>1{print $3}' "$d/resource-samples.tsv" | sed -n '1p')" "start" "samples: first row is start"
	is "$(awk -F'\t' 'NR>1{print $3}' "$d/resource-samples.tsv" | tail -1)" "final" "samples: last row is final"
	is "$(awk -F'\t' 'NR>1 && $3=="start"' "$d/resource-samples.tsv" | wc -l)$(awk -F'\t' 'NR>1 && $3=="final"' "$d/resource-samples.tsv" | wc -l)" "11" "samples: exactly one start and one final"
	is "$(awk -F'\t' 'NR>1 && $3!="start" && $3!="final" && $3!="periodic"' "$d/resource-samples.tsv" | wc -l)" "0" "samples: other rows are periodic"
	# capability rows agree with operations.tsv
	local want got
	want=$(awk -F'\t' 'NR>1{a[$2]++; if($6=="ok")o[$2]++; if($6=="expected_fault")e[$2]++; if($6=="fail")f[$2]++} END{for(s in a) printf "%s %d %d %d %d\n", s, a[s], o[s], e[s], f[s]}' "$d/operations.tsv" | sort)
	got=$(awk -F'\t' 'NR>1{printf "%s %d %d %d %d\n", $1, $2, $3, $4, $5}' "$d/capability-results.tsv" | sort)
	is "$got" "$want" "capability-results.tsv agrees with operations.tsv"
	is "$(awk -F'\t' 'NR>1{print $1}' "$d/capability-results.tsv" | paste -sd,)" "$(meta "$d" scenarios)" "capability-results: one row per declared scenario, in order"
	bad=$(awk -F'\t' 'NR>1 && ($1 !~ /^F0[0-9]$/ || $8 !~ /^(pass|fail)$/ || $6 !~ /^[0-9]+$/ || $7 !~ /^[0-9]+$/)' "$d/faults.tsv")
	is "$bad" "" "faults.tsv: ids, integers, result values"
	for f in inventory-start.json inventory-final.json; do
		is "$(jq -r '.schema + " " + (.resources | type)' "$d/$f")" "sandprobe.inventory.v1 array" "$f: schema and resources"
	done
	# summary agrees with the rows it summarises
	local s=$d/summary.json
	is "$(jq -r .schema "$s")" "sandprobe.summary.v1" "summary: schema"
	is "$(jq -r .run_id "$s")" "$(meta "$d" run_id)" "summary: run_id matches metadata"
	is "$(jq -r .profile "$s")" "$(meta "$d" profile)" "summary: profile matches metadata"
	is "$(jq -r .sample_count "$s")" "$(($(wc -l < "$d/resource-samples.tsv") - 1))" "summary: sample_count"
	is "$(jq -r .periodic_samples "$s")" "$(awk -F'\t' '$3=="periodic"' "$d/resource-samples.tsv" | wc -l)" "summary: periodic_samples"
	is "$(jq -r '[.operations.total,.operations.ok,.operations.fail,.operations.expected_fault,.unexpected_failures]|map(tostring)|join(" ")' "$s")" \
		"$(awk -F'\t' 'NR>1{t++; c[$6]++} END{printf "%d %d %d %d %d", t, c["ok"], c["fail"], c["expected_fault"], c["fail"]}' "$d/operations.tsv")" "summary: operation totals"
	like "$(jq -r .stop_condition "$s")" '^(duration|signal|invariant|error)$' "summary: stop_condition value"
	like "$(jq -r .cleanup "$s")" '^(ok|failed)$' "summary: cleanup value"
	is "$(jq -r .evidence_path "$s")" "$(cd "$d" && pwd -P)" "summary: evidence_path"
	near "$(jq -r '.span_s' "$s")" "$(awk -F'\t' 'NR==2{a=$1} END{printf "%.3f", $1-a}' "$d/resource-samples.tsv")" "summary: span = final ts - start ts"
	near "$(jq -r '.max_gap_s' "$s")" "$(awk -F'\t' 'NR>2{g=$1-p; if(g>m)m=g} NR>1{p=$1} END{printf "%.3f", m}' "$d/resource-samples.tsv")" "summary: max_gap_s"
	# warm-up: max(warmup_s, ts at which every scenario has two finished operations)
	local ws n
	ws=$(meta "$d" warmup_s)
	n=$(meta "$d" scenarios | tr ',' '\n' | wc -l)
	want=$(awk -F'\t' -v ws="$ws" -v n="$n" 'NR>1{c[$2]++; if(c[$2]==2){k++; if(k==n && !done){t=$1+0; done=1}}} END{if(!done) print "none"; else printf "%.3f", (t > ws ? t : ws)}' "$d/operations.tsv")
	if [ "$want" != none ]; then
		near "$(jq -r .warmup_end_s "$s")" "$want" "summary: warmup_end_s by the format's rule"
		# a row at exactly the warm-up end may carry either flag (as the verifier reads it)
		bad=$(awk -F'\t' -v w="$want" 'NR>1 && (($1+0 < w+0 && $5 != 1) || ($1+0 > w+0 && $5 != 0))' "$d/latency.tsv")
		is "$bad" "" "latency.tsv: warmup column agrees with warmup_end_s"
	fi
	# MANIFEST: every file but MANIFEST, MANIFEST.sig, verify.out; sorted; verifies
	want=$(cd "$d" && find . -type f ! -name MANIFEST ! -name MANIFEST.sig ! -name verify.out | sed 's#^\./##' | LC_ALL=C sort)
	is "$(awk '{print $2}' "$d/MANIFEST")" "$want" "MANIFEST lists every file, sorted"
	ok bash -c "cd '$d' && sha256sum --quiet -c MANIFEST"
	bad=$(find "$d/logs" -type f -size +64k)
	is "$bad" "" "logs: each at most 64 KiB"
}

# the soak exit code is the verifier's exit code on the finished bundle
check_exit_is_verifiers() {
	local d=$1 rc=$2 vrc
	"$SP_BIN" verify "$d" >/dev/null 2>&1
	vrc=$?
	is "$rc" "$vrc" "soak exit code ($rc) is the verifier's on this bundle"
	is "$(cat "$d/verify.out" | head -c 200 | wc -c | tr -d ' ' | sed 's/^0$/empty/;s/^[0-9]*$/written/')" "written" "verify.out written"
}

verify_available() { "$SP_BIN" verify --help >/dev/null 2>&1; }

# nothing of a run survives, seen from outside: no process carrying the
# run's marker in its environment, no mount and no directory under its state path
check_nothing_left() {
	local d=$1 prefix state
	prefix=$(meta "$d" prefix)
	state=$(meta "$d" state_root)
	is "$(grep -lsz "^SANDPROBE_SOAK_PREFIX=$prefix\$" /proc/[0-9]*/environ 2>/dev/null | wc -l)" "0" "no process with the run's marker survives"
	is "$(grep -c " $state" /proc/self/mountinfo)" "0" "no mount under the run's state dir survives"
	ok test ! -e "$state"
	is "$(find /sys/fs/cgroup -maxdepth 3 -name "$prefix*" 2>/dev/null | wc -l)" "0" "no cgroup named with the run prefix survives"
	# runc keeps its own state (default root /run/runc), also for podman's containers
	if command -v runc >/dev/null; then
		is "$(runc list 2>/dev/null | grep -c " $state/")" "0" "no runc container state with its bundle under the run's state dir survives"
	fi
}

# a copy of a shipped workload with state_root moved into a test temp dir
workload_copy() { # SRC DEST STATE_ROOT
	sed "s#^state_root: .*#state_root: $3#" "$1" > "$2"
}

# /proc/PID/... paths on stdin; those of zombies dropped (a dead process
# reparented to an init that does not reap is an entry, not a process alive)
not_zombies() {
	local f pid
	while read -r f; do
		pid=${f#/proc/}
		pid=${pid%%/*}
		[ "$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -c1)" = Z ] || echo "$f"
	done
}

# What of a run is alive, seen from outside the runner, scoped to what the
# run owns: prints "procs=N cgroup_procs=N cmdline_procs=N mounts=N cgroups=N"
# (processes with the run's environment marker; processes whose cgroup path
# carries the run prefix; processes whose command line names the run's state
# dir or bundle: the runner, its supervisor, conmon, runtimes; mounts under
# the state dir; cgroup directories named with the run prefix).
alive_of_run() { # PREFIX STATE OUT
	local p=$1 s=$2 o=$3
	# "[/]tmp/..." matches the path but not grep's own command line
	local sre="[${s:0:1}]${s:1}" ore="[${o:0:1}]${o:1}"
	printf 'procs=%s cgroup_procs=%s cmdline_procs=%s mounts=%s cgroups=%s\n' \
		"$(grep -lsz "^SANDPROBE_SOAK_PREFIX=$p\$" /proc/[0-9]*/environ 2>/dev/null | wc -l)" \
		"$(grep -lsF -- "$p" /proc/[0-9]*/cgroup 2>/dev/null | not_zombies | wc -l)" \
		"$(grep -lsa -e "$sre" -e "$ore" /proc/[0-9]*/cmdline 2>/dev/null | wc -l)" \
		"$(grep -cF " $s" /proc/self/mountinfo)" \
		"$(find /sys/fs/cgroup -maxdepth 4 -type d -name "*$p*" 2>/dev/null | wc -l)"
}
NOTHING_ALIVE="procs=0 cgroup_procs=0 cmdline_procs=0 mounts=0 cgroups=0"

# wait (at most SECONDS) until nothing of the run is alive; prints the last reading
wait_nothing_alive() { # PREFIX STATE OUT SECONDS
	local i a
	for ((i = 0; i < $4 * 10; i++)); do
		a=$(alive_of_run "$1" "$2" "$3")
		[ "$a" = "$NOTHING_ALIVE" ] && break
		sleep 0.1
	done
	echo "$a"
}

# wait until FILE has more than N lines (at most SECONDS)
wait_rows() { # FILE N SECONDS
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		[ -f "$1" ] && [ "$(wc -l < "$1")" -gt "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# the runner: the child of the supervisor (the process the test started)
runner_of() { cat /proc/"$1"/task/*/children 2>/dev/null | tr ' ' '\n' | grep -m1 .; }

kill_all_of_run() { # PREFIX STATE: the test removes what a failed case left (scoped to the run)
	local p
	for p in $(grep -lsz "^SANDPROBE_SOAK_PREFIX=$1\$" /proc/[0-9]*/environ | cut -d/ -f3) \
		$(grep -lsF -- "$1" /proc/[0-9]*/cgroup | cut -d/ -f3); do
		kill -9 "$p" 2>/dev/null
	done
	sleep 0.2
	for m in $(awk -v s="$2" 'index($5, s) == 1 {print $5}' /proc/self/mountinfo | sort -r); do umount -l "$m" 2>/dev/null; done
	find /sys/fs/cgroup -maxdepth 4 -depth -type d -name "*$1*" -exec rmdir {} \; 2>/dev/null
	true
}
