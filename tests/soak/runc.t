#!/usr/bin/env bash
# runc: an R0 rehearsal of the shipped workload (lifecycle, service, storage,
# network invariant, F01, F02) and a short custom run with a 1 s sampler:
# profile 'custom', thresholds scaled and fixed before the run, the span
# meets the duration, periodic samples on the sampler's own timer, cgroups
# of the run counted while containers live and back to zero at the end.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need runc
need jq
need_root
[ -x /bin/busybox ] || skip_all "/bin/busybox (busybox-static) missing"

tmp=$(sp_tmpdir)
at_exit "rm -rf '$tmp'" # sp_tmpdir ran in a subshell: register the cleanup here
workload_copy "$SP_ROOT/workloads/runc-lifecycle.yaml" "$tmp/w.yaml" "$tmp"

out=$tmp/r0
"$SP_BIN" soak --workload "$tmp/w.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1
rc=$?
check_bundle "$out"
check_exit_is_verifiers "$out" "$rc"
check_nothing_left "$out"
is "$(awk -F'\t' 'NR>1{print $1}' "$out/capability-results.tsv" | paste -sd,)" "RUN-01,RUN-02,RUN-03,RUN-04,RUN-05,RUN-06" "every runc scenario ran"
is "$(jq -r .unexpected_failures "$out/summary.json")" "0" "R0: no unexpected failure"
is "$(awk -F'\t' 'NR>1{print $1" "$8}' "$out/faults.tsv" | sort | paste -sd,)" "F01 pass,F02 pass" "F01 (exec client) and F02 (container init) recovered"
ok grep -q 'start-unknown	ok' <(cut -f4,6 "$out/operations.tsv")
ok test "$(awk -F'\t' 'NR>1 && $11>m{m=$11} END{print m+0}' "$out/resource-samples.tsv")" -gt 0
is "$(awk -F'\t' 'END{print $11" "$17}' "$out/resource-samples.tsv")" "0 0" "final: no owned cgroup, no container left (extra.containers)"
ok grep -q '^threshold.min_success_ratio=1$' "$out/metadata.txt"
if verify_available; then is "$rc" "0" "verifier accepts the runc R0 bundle"; else skip "verify not implemented on this branch yet"; fi

# a short custom run: 6 s, a sample every second
out=$tmp/custom
t0=$(date +%s.%N)
"$SP_BIN" soak --workload "$tmp/w.yaml" --profile G2 --duration 6 --sample-interval 1 --concurrency 2 --seed 7 --out "$out" --quiet >/dev/null 2>&1
rc=$?
t1=$(date +%s.%N)
check_bundle "$out"
check_exit_is_verifiers "$out" "$rc"
check_nothing_left "$out"
is "$(meta "$out" profile)" "custom" "a shortened G2 run records profile custom"
is "$(meta "$out" duration_s) $(meta "$out" sample_interval_s)" "6 1" "metadata: duration and interval"
is "$(meta "$out" threshold.min_span_s) $(meta "$out" threshold.max_interval_s) $(meta "$out" threshold.max_gap_s) $(meta "$out" threshold.min_periodic_samples)" \
	"6 2 4 3" "custom thresholds scaled from the run (span, 2x interval, 4x interval, duration/max interval)"
is "$(jq -r .stop_condition "$out/summary.json")" "duration" "stopped on duration"
ok awk -v s="$(jq -r .span_s "$out/summary.json")" 'BEGIN{exit !(s >= 6)}'
ok test "$(jq -r .periodic_samples "$out/summary.json")" -ge 4
ok awk -v g="$(jq -r .max_gap_s "$out/summary.json")" 'BEGIN{exit !(g <= 2)}'
ok awk -v a="$t0" -v b="$t1" 'BEGIN{exit !(b - a < 30)}'
# the sampler runs on its own timer: periodic rows about 1 s apart, not at operation boundaries
like "$(awk -F'\t' '$3=="periodic"{n++; if(n>1){printf "%.1f\n", $1-p}; p=$1}' "$out/resource-samples.tsv" | sort -u | paste -sd' ')" '^(0\.[89] |1\.[01] ?|1\.0 ?)+$' "periodic samples 1 s apart"
ok test "$(jq -r .operations.total "$out/summary.json")" -gt 20
is "$(jq -r .unexpected_failures "$out/summary.json")" "0" "custom run: no unexpected failure"
# a failure is shown with its rows and the end of its step's log (this run is short and busy machines are where it flakes)
if [ "$(jq -r .unexpected_failures "$out/summary.json")" != 0 ]; then
	awk -F'\t' 'NR > 1 && $6 != "ok" && $6 != "expected_fault" { print "# operation: " $0 }' "$out/operations.tsv"
	for f in $(awk -F'\t' 'NR > 1 && $6 != "ok" && $6 != "expected_fault" { print $2 "." $4 ".log" }' "$out/operations.tsv" | sort -u); do
		tail -15 "$out/logs/$f" 2>/dev/null | sed "s/^/#   $f: /"
	done
fi
ok test "$(jq -r '.class_cycles.lifecycle' "$out/summary.json")" -gt 0
is "$(meta "$out" threshold.rss_slope_mib_per_day)" "60000" "custom: RSS slope threshold scaled to allow G2's absolute growth (50 MiB/day x 7200 s / 6 s)"
if verify_available; then
	# over 6 s the trend gates (RSS slope, FD growth) see in-flight runc
	# processes come and go: every other gate must pass
	"$SP_BIN" verify --format json "$out" > "$tmp/v.json" 2>/dev/null
	is "$(jq -r '[.gates[] | select(.status != "pass" and .id != "leak.rss_slope" and .id != "leak.fd_growth") | .id] | join(",")' "$tmp/v.json")" "" \
		"verifier: every gate but the noise-bound trend gates passes on the custom runc bundle"
else
	skip "verify not implemented on this branch yet"
fi
# a run that stops between RUN-06's create and its start (the window widened here to 0.4 s, fault scenarios
# only): the start is skipped, nothing is injected, and the shipped recovery undoes the create (a recovery
# that insisted on "stopped" failed 5 of 8 such runs)
python3 - "$tmp/w.yaml" "$tmp/wf.yaml" <<'PY'
import sys
s = open(sys.argv[1]).read()
s = s.replace("mix: {lifecycle: 40, service: 20, storage: 15, network: 15, fault: 10}", "mix: {lifecycle: 0, service: 0, storage: 0, network: 0, fault: 100}")
i = s.index("  - id: RUN-06")
j = s.index("{op: create, argv: [runc", i)
k = s.index("\n", j)
s = s[:j] + '{op: create, argv: [sh, -c, "runc --root {state}/runc create --bundle {state}/bundle --pid-file {state}/{id}.pid {id} && sleep 0.4"]}' + s[k:]
open(sys.argv[2], "w").write(s)
PY
skipped=0
for seed in 5 6 9 10; do
	o=$tmp/stop-$seed
	"$SP_BIN" soak --workload "$tmp/wf.yaml" --profile G2 --duration 2 --sample-interval 1 --concurrency 2 --seed $seed --out "$o" --quiet >/dev/null 2>&1
	is "$(jq -r .unexpected_failures "$o/summary.json")" 0 "seed $seed: a stop between create and start is no unexpected failure"
	last=$(awk -F'\t' '$2 == "RUN-06" { g = $7 } END { print g }' "$o/operations.tsv")
	ops=$(awk -F'\t' -v g="$last" '$2 == "RUN-06" && $7 == g { print $4 ":" $6 }' "$o/operations.tsv" | paste -sd' ')
	case $ops in "create:ok stopped:ok delete:ok rm-pidfile:ok") skipped=$((skipped + 1)) ;; esac
	check_nothing_left "$o"
done
TAP_NAME="the window was hit: $skipped of 4 runs stopped between create and start, their recovery undid the create" ok test "$skipped" -ge 1
done_testing
