#!/usr/bin/env bash
# Fixture generator: writes a correct evidence bundle (docs/evidence-format.md)
# with awk and coreutils only, independently of sandprobe's own code, so that
# tests and benchmarks can feed `sandprobe verify` bundles it did not write.
#
#   mkbundle.sh [options] DIR       create DIR (must not exist) as a bundle
#   mkbundle.sh --reseal [-k KEY] DIR   rewrite MANIFEST (and MANIFEST.sig) after an edit
# options:
#   -o N        operation rows (default 300; 3 scenarios RUN-01..RUN-03)
#   -s N        periodic samples (default 10); plus one start and one final
#   -i S        sample interval in seconds (default 60)
#   -k KEY      sign MANIFEST with this Ed25519 PEM private key (openssl)
#   -p NAME     profile recorded in metadata (default custom)
#   -r BYTES    owned RSS grows by BYTES per periodic sample (default 0)
#   -e NAME     one extra.NAME counter column (default boxes)
#   -c          seed 002's composition: five scenarios RUN-01..RUN-05 of the classes
#               lifecycle, service, storage, network, fault, their rows in the
#               proportion 40/20/15/15/10, each row its scenario's next generation
#               (cycle), class_mix and scenario_classes in metadata (ops.composition)
#   -t TIME     started_at, ISO 8601 UTC to the second (default 2026-01-01T00:00:00Z); the
#               sample walls follow it
set -euo pipefail

ops=300 periodic=10 interval=60 key="" profile=custom rss_step=0 extra=boxes reseal=0 started=2026-01-01T00:00:00Z comp=0
while [ $# -gt 0 ]; do
	case "$1" in
	-o) ops=$2; shift 2 ;;
	-s) periodic=$2; shift 2 ;;
	-i) interval=$2; shift 2 ;;
	-k) key=$2; shift 2 ;;
	-p) profile=$2; shift 2 ;;
	-r) rss_step=$2; shift 2 ;;
	-e) extra=$2; shift 2 ;;
	-t) started=$2; shift 2 ;;
	-c) comp=1; shift ;;
	--reseal) reseal=1; shift ;;
	-*) echo "mkbundle.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "usage: mkbundle.sh [options] DIR" >&2; exit 2; }
dir=$1

seal() {
	(
		cd "$dir"
		find . -type f ! -path ./MANIFEST ! -path ./MANIFEST.sig ! -path ./verify.out | sed 's|^\./||' |
			LC_ALL=C sort | while IFS= read -r f; do sha256sum -- "$f"; done >MANIFEST
	)
	rm -f "$dir/MANIFEST.sig"
	if [ -n "$key" ]; then
		openssl pkeyutl -sign -rawin -inkey "$key" -in "$dir/MANIFEST" | base64 -w0 >"$dir/MANIFEST.sig"
		echo >>"$dir/MANIFEST.sig"
	fi
}

if [ "$reseal" = 1 ]; then
	seal
	exit 0
fi

[ ! -e "$dir" ] || { echo "mkbundle.sh: $dir exists" >&2; exit 2; }
mkdir -p "$dir/logs"
duration=$(( (periodic + 1) * interval ))
# the warm-up a custom run may declare: 900 s per 7200 s; R0 has none
warmup=$interval
[ $(( 900 * duration / 7200 )) -lt "$warmup" ] && warmup=$(( 900 * duration / 7200 ))
[ "$profile" = R0 ] && warmup=0
case $started in
????-??-??T??:??:??Z) ;;
*) echo "mkbundle.sh: -t wants YYYY-MM-DDTHH:MM:SSZ" >&2; exit 2 ;;
esac
# seconds from 1970-01-01 to the start (days: civil, Howard Hinnant's algorithm)
start_epoch=$(echo "$started" | awk -F'[-T:Z]' '{ y = $1 + 0; m = $2 + 0; d = $3 + 0; if (m <= 2) y--
	era = int(y / 400); yoe = y - era * 400; mp = m > 2 ? m - 3 : m + 9
	doy = int((153 * mp + 2) / 5) + d - 1; doe = yoe * 365 + int(yoe / 4) - int(yoe / 100) + doy
	printf "%d\n", (era * 146097 + doe - 719468) * 86400 + $4 * 3600 + $5 * 60 + $6 }')
fault_start=$(( duration / 2 ))
fault_end=$(( fault_start + 5 ))

# operations.tsv and latency.tsv (ok operations), then the warm-up end
awk -v n="$ops" -v dur="$duration" -v warm="$warmup" -v fs="$fault_start" -v dir="$dir" -v comp="$comp" 'BEGIN {
	OFS = "\t"
	opsf = dir "/operations.tsv"; latf = dir "/lat.tmp"
	print "ts", "scenario", "api", "operation", "latency_ms", "result", "generation", "error_code" > opsf
	efts = sprintf("%.3f", fs + 1); efdone = 0
	for (i = 0; i < n; i++) {
		ts = sprintf("%.3f", 1 + i * (dur - 2) / n)
		# one operation failing on purpose inside fault F01 window, in time order
		if (!efdone && ts + 0 >= efts + 0) {
			print efts, "RUN-01", "cli", "create", "2.000", "expected_fault", comp ? gen["RUN-01"] + 0 : int(i / 100), "ECONNRESET" > opsf
			efdone = 1
		}
		if (comp) {
			# 20 slots: 8 lifecycle, 4 service, 3 storage, 3 network, 2 fault
			k = i % 20
			sc = sprintf("RUN-%02d", k < 8 ? 1 : k < 12 ? 2 : k < 15 ? 3 : k < 18 ? 4 : 5)
			g = ++gen[sc]
		} else {
			sc = sprintf("RUN-%02d", i % 3 + 1)
			g = int(i / 100)
		}
		op = (i % 2) ? "start" : "create"
		lat = sprintf("%.3f", 5 + ((i * 7919) % 2000) / 100)
		print ts, sc, "cli", op, lat, "ok", g, "-" > opsf
		print ts, sc, op, lat > latf
		cnt[sc]++
		if (cnt[sc] == 2 && ts + 0 > second) second = ts + 0
	}
	if (!efdone)
		print efts, "RUN-01", "cli", "create", "2.000", "expected_fault", comp ? gen["RUN-01"] + 0 : int(n / 100), "ECONNRESET" > opsf
	we = warm + 0 > second ? warm + 0 : second
	printf "%.3f\n", we > (dir "/warmup.tmp")
}'
we=$(cat "$dir/warmup.tmp")
awk -v we="$we" 'BEGIN { OFS = "\t"; print "ts", "scenario", "operation", "latency_ms", "warmup" }
	{ print $1, $2, $3, $4, ($1 + 0 < we + 0) ? 1 : 0 }' "$dir/lat.tmp" >"$dir/latency.tsv"
rm -f "$dir/lat.tmp" "$dir/warmup.tmp"

# resource-samples.tsv
awk -v p="$periodic" -v iv="$interval" -v step="$rss_step" -v extra="$extra" -v se="$start_epoch" '
# seconds since the start as an ISO 8601 UTC time (civil from days)
function iso(t,    d, s, z, era, doe, yoe, y, doy, mp, dd, m) {
	t += se; d = int(t / 86400); s = t - d * 86400
	z = d + 719468; era = int(z / 146097); doe = z - era * 146097
	yoe = int((doe - int(doe / 1460) + int(doe / 36524) - int(doe / 146096)) / 365)
	y = yoe + era * 400; doy = doe - (365 * yoe + int(yoe / 4) - int(yoe / 100))
	mp = int((5 * doy + 2) / 153); dd = doy - int((153 * mp + 2) / 5) + 1
	m = mp < 10 ? mp + 3 : mp - 9; if (m <= 2) y++
	return sprintf("%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, dd, int(s / 3600), int(s / 60) % 60, s % 60)
}
BEGIN {
	OFS = "\t"
	print "ts", "wall", "phase", "owned_processes", "owned_threads", "owned_rss_bytes", "owned_cpu_seconds",
	      "owned_fds", "owned_mounts", "owned_sockets", "owned_cgroups", "disk_bytes", "global_processes",
	      "global_mounts", "runner_rss_bytes", "runner_fds", "extra." extra
	for (k = 0; k <= p + 1; k++) {
		ts = k * iv
		phase = k == 0 ? "start" : (k == p + 1 ? "final" : "periodic")
		wall = iso(ts)
		rss = 104857600 + (phase == "periodic" ? (k - 1) * step + (k % 3) * 4096 : 0)
		fds = 20 + (phase == "periodic" ? k % 2 : 0)
		disk = 5000000 + (phase == "periodic" ? (k % 4) * 1000 : 0)
		print sprintf("%.3f", ts), wall, phase, 3, 12, rss, sprintf("%.2f", k * 0.25), fds, 5, 2, 1, disk, 180,
		      40, 10485760, 8, 1
	}
}' >"$dir/resource-samples.tsv"

{
	printf 'scenario\tattempted\tsucceeded\texpected_faults\tunexpected_failures\tresult\n'
	awk -F'\t' 'NR > 1 { n[$2]++; if ($6 == "ok") ok[$2]++; if ($6 == "expected_fault") ef[$2]++; if ($6 == "fail") f[$2]++ }
		END { for (s in n) printf "%s\t%d\t%d\t%d\t%d\t%s\n", s, n[s], ok[s], ef[s], f[s], f[s] ? "fail" : "pass" }' \
		"$dir/operations.tsv" | LC_ALL=C sort
} >"$dir/capability-results.tsv"

printf 'fault_id\ttarget\texpected\tstarted\tended\trecovery_ms\trto_ms\tresult\n' >"$dir/faults.tsv"
printf 'F01\tsp-box-1\trestart\t%d.000\t%d.000\t%d\t30000\tpass\n' "$fault_start" "$fault_end" \
	$(( (fault_end - fault_start) * 1000 )) >>"$dir/faults.tsv"

inv='{"schema":"sandprobe.inventory.v1","resources":[{"type":"container","id":"sp-fixture-base"},{"type":"volume","id":"sp-fixture-data"}]}'
echo "$inv" >"$dir/inventory-start.json"
echo "$inv" >"$dir/inventory-final.json"

cat >"$dir/metadata.txt" <<EOF
schema=sandprobe.evidence.v1
run_id=fixture-$$-$RANDOM
profile=$profile
scenarios=$([ "$comp" = 1 ] && echo RUN-01,RUN-02,RUN-03,RUN-04,RUN-05 || echo RUN-01,RUN-02,RUN-03)
tool_version=fixture
tool_commit=0000000000000000000000000000000000000000
dirty=0
host_kernel=$(uname -r)
host_arch=$(uname -m)
host_cpus=2
host_memory_bytes=4294967296
runtime=fixture
runtime_version=fixture 1.0
rootfs_digest=none
started_at=$started
seed=1
workload_sha256=$(printf 'fixture' | sha256sum | cut -c1-64)
concurrency=2
faults=F01
duration_s=$duration
sample_interval_s=$interval
warmup_s=$warmup
threshold.min_span_s=$duration
threshold.max_interval_s=$interval
threshold.min_periodic_samples=$periodic
threshold.max_gap_s=$interval
threshold.min_success_ratio=1
threshold.rss_slope_mib_per_day=50
threshold.fd_growth_max=8
threshold.p95_regression_pct=30
threshold.disk_budget_bytes=1000000
workload_name=fixture
EOF
[ "$comp" = 1 ] && printf '%s\n' class_mix=lifecycle:40,service:20,storage:15,network:15,fault:10 \
	scenario_classes=RUN-01:lifecycle,RUN-02:service,RUN-03:storage,RUN-04:network,RUN-05:fault >>"$dir/metadata.txt"

run_id=$(sed -n 's/^run_id=//p' "$dir/metadata.txt")
awk -F'\t' -v run_id="$run_id" -v profile="$profile" -v dur="$duration" -v we="$we" -v dir="$dir" '
	FILENAME ~ /operations/ && FNR > 1 { total++; r[$6]++ }
	FILENAME ~ /samples/ && FNR > 1 {
		ns++; if ($3 == "periodic") np++
		if (ns == 1) first = $1
		else if ($1 - prev > gap) gap = $1 - prev
		prev = $1
	}
	END {
		printf "{\"schema\":\"sandprobe.summary.v1\",\"run_id\":\"%s\",\"profile\":\"%s\",", run_id, profile
		printf "\"requested_duration_s\":%d,\"measured_duration_s\":%.3f,\"sample_count\":%d,\"periodic_samples\":%d,", dur, prev, ns, np
		printf "\"span_s\":%.3f,\"max_gap_s\":%.3f,\"warmup_end_s\":%.3f,", prev - first, gap, we
		printf "\"operations\":{\"total\":%d,\"ok\":%d,\"fail\":%d,\"expected_fault\":%d},", total, r["ok"], r["fail"], r["expected_fault"]
		printf "\"unexpected_failures\":%d,\"stop_condition\":\"duration\",\"cleanup\":\"ok\",\"evidence_path\":\"%s\"}\n", r["fail"], dir
	}' "$dir/operations.tsv" "$dir/resource-samples.tsv" >"$dir/summary.json"

printf 'step 1: create sp-fixture-base\nok\n' >"$dir/logs/001-setup.out"
printf '' >"$dir/logs/001-setup.err"
printf 'step 2: cleanup\nok\n' >"$dir/logs/002-cleanup.out"
seal
