#!/usr/bin/env bash
# Write a small, correct evidence bundle (docs/evidence-format.md) into DIR,
# with warm-up, periodic samples and (by default) two fault windows.
#   mkbundle.sh DIR [--duration S] [--interval S] [--warmup S] [--seed N]
#               [--scenarios A,B,C] [--rss-growth BYTES_PER_S] [--latency-ms MS]
#               [--requested-rate R] [--no-faults] [--fail-op] [--many-faults N]
# --many-faults N: N short fault windows instead of two, most of them in
# bursts (1 s apart), the rest spread out: the report must stay readable.
# Deterministic for given options: change an option, the data changes.
set -eu
dir=$1
shift
duration=600 interval=20 warmup=60 seed=7 scenarios=RUN-01,RUN-02,RUN-03
rss_growth=20000 latency=40 rate=2 faults=1 fail_op=0 many=0
while [ $# -gt 0 ]; do
	case $1 in
	--duration) duration=$2; shift ;;
	--interval) interval=$2; shift ;;
	--warmup) warmup=$2; shift ;;
	--seed) seed=$2; shift ;;
	--scenarios) scenarios=$2; shift ;;
	--rss-growth) rss_growth=$2; shift ;;
	--latency-ms) latency=$2; shift ;;
	--requested-rate) rate=$2; shift ;;
	--no-faults) faults=0 ;;
	--fail-op) fail_op=1 ;;
	--many-faults) many=$2; shift ;;
	*) echo "mkbundle.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
mkdir -p "$dir/logs"
T=$'\t'

faultlist=none
[ "$faults" = 1 ] && faultlist=F01,F03
[ "$faults" = 1 ] && [ "$many" -gt 0 ] && faultlist=F01,F02,F03
cat >"$dir/metadata.txt" <<EOF
schema=sandprobe.evidence.v1
run_id=fixture-$seed-$duration
profile=custom
scenarios=$scenarios
tool_version=0.1.0-test
tool_commit=0000000000000000000000000000000000000000
dirty=0
host_kernel=6.1.0-test
host_arch=x86_64
host_cpus=2
host_memory_bytes=8589934592
runtime=bwrap
runtime_version=bubblewrap 0.8.0
rootfs_digest=none
started_at=2026-01-01T00:00:00Z
seed=$seed
workload_sha256=0000000000000000000000000000000000000000000000000000000000000000
concurrency=2
faults=$faultlist
duration_s=$duration
sample_interval_s=$interval
warmup_s=$warmup
threshold.min_span_s=$((duration - interval))
threshold.max_interval_s=$((interval * 2))
threshold.min_periodic_samples=3
threshold.max_gap_s=$((interval * 3))
threshold.min_success_ratio=1
threshold.rss_slope_mib_per_day=50
threshold.fd_growth_max=4
threshold.p95_regression_pct=30
threshold.disk_budget_bytes=10485760
requested_rate_per_s=$rate
workload_name=fixture <demo> & "quotes"
EOF

# operations.tsv and latency.tsv: every scenario in turn, rate ops/s overall,
# latency a deterministic wave plus noise; ops inside fault windows are
# expected faults.
awk -v dur="$duration" -v rate="$rate" -v sc="$scenarios" -v lat="$latency" -v seed="$seed" \
    -v warm="$warmup" -v faults="$faults" -v failop="$fail_op" -v ops="$dir/operations.tsv" -v lt="$dir/latency.tsv" '
BEGIN {
	srand(seed); n = split(sc, s, ",")
	print "ts\tscenario\tapi\toperation\tlatency_ms\tresult\tgeneration\terror_code" > ops
	print "ts\tscenario\toperation\tlatency_ms\twarmup" > lt
	step = 1.0 / rate; i = 0
	for (t = step / 2; t < dur; t += step) {
		k = (i % n) + 1; i++
		l = lat * (1 + 0.4 * sin(t / dur * 6.283) + 0.3 * k / n) + rand() * lat * 0.5
		if (rand() < 0.03) l *= 4
		res = "ok"; code = "-"
		if (faults && ((t >= 200 && t < 260) || (t >= 400 && t < 420)) && k == 1) { res = "expected_fault"; code = "ECONNREFUSED" }
		if (failop && i == 7) { res = "fail"; code = "ETIMEDOUT" }
		printf "%.3f\t%s\tcli\trun\t%.3f\t%s\t%d\t%s\n", t, s[k], l, res, 1, code > ops
		printf "%.3f\t%s\trun\t%.3f\t%d\n", t, s[k], l, (t < warm ? 1 : 0) > lt
	}
}'

# resource-samples.tsv: start, periodic every interval, final
{
	echo "ts${T}wall${T}phase${T}owned_processes${T}owned_threads${T}owned_rss_bytes${T}owned_cpu_seconds${T}owned_fds${T}owned_mounts${T}owned_sockets${T}owned_cgroups${T}disk_bytes${T}global_processes${T}global_mounts${T}runner_rss_bytes${T}runner_fds${T}extra.boxes"
	awk -v dur="$duration" -v iv="$interval" -v g="$rss_growth" -v seed="$seed" '
	function row(t, ph) {
		rss = 50000000 + g * t + 300000 * sin(t / 37)
		procs = (ph == "final") ? 3 : 3 + int(2 + 2 * sin(t / 50))
		fds = (ph == "final") ? 12 : 12 + int(3 + 3 * sin(t / 40))
		mounts = (ph == "final") ? 4 : 4 + int(1 + sin(t / 60))
		disk = 1000000 + 2000 * t
		if (ph == "final") disk = 1000000
		boxes = (ph == "final") ? 0 : 1 + int(1 + sin(t / 30))
		# a real date: past 24 h the day turns (no hour 24)
		printf "%.3f\t2026-01-%02dT%02d:%02d:%02dZ\t%s\t%d\t%d\t%d\t%.2f\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", \
			t, 1 + int(t / 86400), int(t / 3600) % 24, int(t / 60) % 60, int(t) % 60, ph, procs, procs * 2, rss, t * 0.05, fds, mounts, \
			2, 1, disk, 180 + procs, 40 + mounts, 20000000 + 1000 * t, 9, boxes
	}
	BEGIN {
		row(0, "start")
		for (t = iv; t < dur; t += iv) row(t, "periodic")
		row(dur + 1, "final")
	}'
} >"$dir/resource-samples.tsv"

# capability-results.tsv from the operations
awk -F'\t' 'NR > 1 { a[$2]++; if ($6 == "ok") ok[$2]++; else if ($6 == "expected_fault") ef[$2]++; else uf[$2]++ }
END {
	print "scenario\tattempted\tsucceeded\texpected_faults\tunexpected_failures\tresult"
	for (s in a) printf "%s\t%d\t%d\t%d\t%d\t%s\n", s, a[s], ok[s], ef[s], uf[s], (uf[s] ? "fail" : "pass")
}' "$dir/operations.tsv" | { IFS= read -r h; echo "$h"; sort; } >"$dir/capability-results.tsv"

{
	echo "fault_id${T}target${T}expected${T}started${T}ended${T}recovery_ms${T}rto_ms${T}result"
	if [ "$faults" = 1 ] && [ "$many" -gt 0 ]; then
		awk -v n="$many" -v dur="$duration" 'BEGIN {
			# four bursts of 1 s spaced windows, then the rest spread evenly
			burst = int(n * 0.8 / 4); k = 0
			for (b = 0; b < 4; b++)
				for (j = 0; j < burst; j++) {
					t = dur * (0.15 + 0.2 * b) + j * 1.0
					printf "F%02d\tsp-fixture-box-%d\tECONNREFUSED\t%.3f\t%.3f\t400\t30000\tpass\n", (k % 2) ? 1 : 3, k, t, t + 0.4
					k++
				}
			rest = n - k
			for (j = 0; j < rest; j++) {
				t = dur * (j + 0.5) / rest
				printf "F02\tsp-fixture-daemon\trestart\t%.3f\t%.3f\t900\t20000\tpass\n", t, t + 2
			}
		}' | sort -t "$T" -k4,4n
	elif [ "$faults" = 1 ]; then
		echo "F01${T}sp-fixture-box-1${T}ECONNREFUSED${T}200.000${T}260.000${T}1840${T}30000${T}pass"
		echo "F03${T}sp-fixture-daemon${T}restart${T}400.000${T}420.000${T}950${T}20000${T}pass"
	fi
} >"$dir/faults.tsv"

echo '{"schema":"sandprobe.inventory.v1","resources":[]}' >"$dir/inventory-start.json"
echo '{"schema":"sandprobe.inventory.v1","resources":[]}' >"$dir/inventory-final.json"
echo "fixture run" >"$dir/logs/step-0001.out"

total=$(($(wc -l <"$dir/operations.tsv") - 1))
okc=$(awk -F'\t' 'NR > 1 && $6 == "ok"' "$dir/operations.tsv" | wc -l)
efc=$(awk -F'\t' 'NR > 1 && $6 == "expected_fault"' "$dir/operations.tsv" | wc -l)
fc=$(awk -F'\t' 'NR > 1 && $6 == "fail"' "$dir/operations.tsv" | wc -l)
samples=$(($(wc -l <"$dir/resource-samples.tsv") - 1))
# warm-up end: max(warmup_s, second finished op of every declared scenario)
wend=$(awk -F'\t' -v w="$warmup" 'NR > 1 { c[$2]++; if (c[$2] == 2 && $1 > m) m = $1 } END { print (m > w ? m : w) }' "$dir/operations.tsv")
cat >"$dir/summary.json" <<EOF
{"schema":"sandprobe.summary.v1","run_id":"fixture-$seed-$duration","profile":"custom",
 "requested_duration_s":$duration,"measured_duration_s":$((duration + 1)),"sample_count":$samples,"periodic_samples":$((samples - 2)),
 "span_s":$((duration + 1)),"max_gap_s":$interval,"warmup_end_s":$wend,
 "operations":{"total":$total,"ok":$okc,"fail":$fc,"expected_fault":$efc},
 "unexpected_failures":$fc,"stop_condition":"duration",
 "cleanup":"ok","evidence_path":"$dir"}
EOF
(cd "$dir" && find . -type f ! -name MANIFEST ! -name MANIFEST.sig ! -name verify.out | sed 's|^\./||' | LC_ALL=C sort |
	xargs -d '\n' sha256sum >MANIFEST)
