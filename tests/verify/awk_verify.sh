#!/usr/bin/env bash
# Baseline for bench/verify: the same hard gates as `sandprobe verify`,
# checked the way a shell soak verifier does it (sha256sum -c, awk, sort).
# Not a substitute for the verifier: no type checks of every value, no
# summary cross-check. Exit 0 pass, 1 fail.
#   awk_verify.sh DIR [BASELINE_P95_TSV]   (scenario<TAB>p95 lines)
set -u
d=$1
base=${2:-}
cd "$d" || exit 2
fail=0
sha256sum -c --quiet --strict MANIFEST >/dev/null 2>&1 || { echo "FAIL integrity.manifest"; fail=1; }
# every file listed
n_files=$(find . -type f ! -path ./MANIFEST ! -path ./MANIFEST.sig ! -path ./verify.out | wc -l)
[ "$n_files" -eq "$(wc -l <MANIFEST)" ] || { echo "FAIL integrity.manifest (unlisted files)"; fail=1; }
for f in metadata.txt operations.tsv latency.tsv resource-samples.tsv capability-results.tsv faults.tsv \
	inventory-start.json inventory-final.json summary.json; do
	[ -s "$f" ] || { echo "FAIL files.present $f"; fail=1; }
done
m() { sed -n "s/^$1=//p" metadata.txt; }
we=$(awk -F'\t' -v warm="$(m warmup_s)" -v scen="$(m scenarios)" '
	BEGIN { n = split(scen, s, ","); for (i = 1; i <= n; i++) want[s[i]] = 1 }
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ sc = $c["scenario"]; t = $c["ts"] + 0; cnt[sc]++
	  if (cnt[sc] == 1 || t < t1[sc]) { t2[sc] = t1[sc]; t1[sc] = t } else if (cnt[sc] == 2 || t < t2[sc]) t2[sc] = t
	  r = $c["result"]; if (r == "ok") ok++; else if (r == "fail") bad++; else ef[NR] = t }
	END { e = warm; for (k in want) if (t2[k] > e) e = t2[k]; print e
	      printf "%d %d\n", ok, bad > "/dev/stderr" }' operations.tsv 2>ops.counts.tmp)
read -r okn badn <ops.counts.tmp; rm -f ops.counts.tmp
awk -v ok="$okn" -v bad="$badn" -v min="$(m threshold.min_success_ratio)" 'BEGIN { r = ok / (ok + bad); exit !(r >= min && (min < 1 || bad == 0)) }' ||
	{ echo "FAIL ops.success"; fail=1; }
awk -F'\t' -v span="$(m threshold.min_span_s)" -v gapmax="$(m threshold.max_gap_s)" -v minp="$(m threshold.min_periodic_samples)" \
	-v we="$we" -v rssmax="$(m threshold.rss_slope_mib_per_day)" -v fdmax="$(m threshold.fd_growth_max)" -v disk="$(m threshold.disk_budget_bytes)" '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ t = $c["ts"] + 0
	  if (NR > 2) { g = t - prev; if (g > gap) gap = g; if (g <= 0) mono = 1 }
	  prev = t
	  if ($c["phase"] == "start") { ns++; t0 = t; for (k in c) s0[k] = $c[k] }
	  else if ($c["phase"] == "final") { nf++; t1 = t; for (k in c) s1[k] = $c[k] }
	  else { np++; if (t >= we) { n++; x = t; y = $c["owned_rss_bytes"]; sx += x; sy += y; sxx += x * x; sxy += x * y } }
	  if ($c["disk_bytes"] > peak) peak = $c["disk_bytes"] }
	END {
		f = 0
		if (ns != 1 || nf != 1 || mono) { print "FAIL samples.phases"; f = 1 }
		if (t1 - t0 < span) { print "FAIL samples.span"; f = 1 }
		if (np < minp) { print "FAIL samples.count"; f = 1 }
		if (gap > gapmax) { print "FAIL samples.gap"; f = 1 }
		if (n >= 2) { sl = (n * sxy - sx * sy) / (n * sxx - sx * sx) * 86400 / 1048576; if (sl > rssmax) { print "FAIL leak.rss_slope"; f = 1 } }
		if (s1["owned_fds"] - s0["owned_fds"] > fdmax) { print "FAIL leak.fd_final"; f = 1 }
		if (peak - s0["disk_bytes"] > disk || s1["disk_bytes"] - s0["disk_bytes"] > disk) { print "FAIL disk"; f = 1 }
		split("owned_processes owned_mounts owned_sockets owned_cgroups", cl, " ")
		for (i = 1; i <= 4; i++) if (s1[cl[i]] != s0[cl[i]]) { print "FAIL cleanup." cl[i]; f = 1 }
		for (k in c) if (k ~ /^extra\./ && s1[k] != s0[k]) { print "FAIL cleanup." k; f = 1 }
		exit f }' resource-samples.tsv || fail=1
awk -F'\t' 'NR > 1 && ($8 != "pass" || $6 > $7) { bad = 1 } END { exit bad }' faults.tsv || { echo "FAIL faults.recovered"; fail=1; }
cmp -s <(jq -S '.resources | sort' inventory-start.json) <(jq -S '.resources | sort' inventory-final.json) ||
	{ echo "FAIL cleanup.inventory"; fail=1; }
# p95 per scenario, nearest rank, post-warm-up
awk -F'\t' 'NR > 1 && $5 == 0 { print $2 "\t" $4 }' latency.tsv | LC_ALL=C sort -t "$(printf '\t')" -k1,1 -k2,2g |
	awk -F'\t' -v base="$base" -v pct="$(m threshold.p95_regression_pct)" '
	BEGIN { if (base != "") while ((getline l < base) > 0) { split(l, a, "\t"); b[a[1]] = a[2] } }
	function flush() { if (cur == "") return; r = int(0.95 * n); if (r < 0.95 * n) r++; p = v[r]
		if (base != "" && p > b[cur] * (1 + pct / 100)) { print "FAIL latency.p95." cur; f = 1 } }
	$1 != cur { flush(); cur = $1; n = 0 }
	{ v[++n] = $2 }
	END { flush(); exit f }' || fail=1
[ "$fail" -eq 0 ] && echo "result: PASS" || echo "result: FAIL"
exit "$fail"
