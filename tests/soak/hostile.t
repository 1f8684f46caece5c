#!/usr/bin/env bash
# Hostile steps and counters. Each case once broke the runner:
# - a step printing NUL bytes (a heap overflow in the log redaction);
# - a step printing 1 GB (the runner keeps head and tail, its memory stays flat);
# - secrets straddling the elision point (a kept tail that started mid-line
#   kept a value whose key was elided);
# - a child escaping with setsid and a clean environment (found by descent
#   and by the run's cgroup, also when runner and supervisor are both killed);
# - a hanging counter and a failing one (once -1 in the samples: an invalid
#   bundle; and a sample held up for 10 s per counter);
# - a slow counter in flight at the final inventory (its process was listed as
#   a leak: a false cleanup.inventory failure).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need jq
need_root
tmp=$(sp_tmpdir)
at_exit "rm -rf '$tmp'" # sp_tmpdir ran in a subshell: register the cleanup here

wl() { # NAME PREFIX then scenario YAML on stdin (after "scenarios:"), extra top-level keys in $EXTRA
	{
		cat <<EOW
version: 1
name: $1
runtime: {name: sh, version: [sh, -c, "echo sh"]}
state_root: $tmp
prefix: $2
concurrency: 1
${EXTRA:-}
scenarios:
EOW
		cat
	} > "$tmp/$1.yaml"
}
gate() { jq -r --arg id "$2" '.gates[] | select(.id == $id) | .status' "$1"; }

# ---- NUL bytes ----
wl nul spnul <<'EOW'
  - id: RUN-01
    class: lifecycle
    steps:
      - {op: nul, argv: [sh, -c, "printf 'a\\000b token=tok123456789 \\000\\000 password=hunter22\\n'; head -c 100000 /dev/zero; echo; echo end-of-output"]}
EOW
out=$tmp/nul
"$SP_BIN" soak --workload "$tmp/nul.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>"$tmp/nul.err"
rc=$?
is "$rc" "0" "NUL bytes: the run completes and verifies"
check_bundle "$out"
log=$out/logs/RUN-01.nul.log
is "$(tr -cd '\000' < "$log" | wc -c)" "0" "NUL bytes: none in the log (spaces instead)"
like "$(cat "$log")" "a b token=\[REDACTED\]    password=\[REDACTED\]" "NUL bytes: the rest of the line is kept and redacted"
like "$(tail -2 "$log")" "end-of-output" "NUL bytes: the output after them is kept"
check_nothing_left "$out"

# ---- 1 GB of output ----
wl big spbig <<'EOW'
  - id: RUN-01
    class: lifecycle
    steps:
      - {op: gigabyte, timeout_ms: 300000, argv: [sh, -c, "yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c 1073741824"]}
EOW
out=$tmp/big
"$SP_BIN" soak --workload "$tmp/big.yaml" --profile R0 --sample-interval 1 --out "$out" --quiet >/dev/null 2>&1
rc=$?
is "$rc" "0" "1 GB: the run completes and verifies"
is "$(awk -F'\t' 'NR>1{print $4" "$6}' "$out/operations.tsv")" "gigabyte ok" "1 GB: the operation succeeded"
ok test "$(stat -c %s "$out/logs/RUN-01.gigabyte.log")" -le 65664
like "$(cat "$out/logs/RUN-01.gigabyte.log")" "\[\.\.\. 10[0-9]{8} bytes elided \.\.\.\]" "1 GB: head, one elision line for the whole gigabyte, tail"
growth=$(awk -F'\t' 'NR==2{s=$15} NR>1 && $15>m{m=$15} END{print int((m - s) / 1048576)}' "$out/resource-samples.tsv")
if [ "${SP_SAN:-0}" = 1 ]; then
	skip "the runner's RSS growth is not meaningful under ASan (its quarantine holds freed buffers: 23 MiB seen)"
else
	ok test "$growth" -lt 16 # MiB: the 1 GB stream is not held
fi
check_nothing_left "$out"

# ---- secrets straddling the elision point (a step keeps its first and last 16320 bytes) ----
awk 'function y(n,  s, i) { s = ""; for (i = 1; i < n; i++) s = s "y"; print s }
BEGIN {
	for (k = 0; k < 163; k++) y(100); y(10); print "password: hunter22" # across the end of the head
	for (k = 0; k < 163; k++) y(100); y(2)
	print "api_key: S3CRETVALUE-0123456789"                              # across the start of the tail
	for (k = 0; k < 162; k++) y(100); y(97)
}' > "$tmp/straddle.txt"
is "$(stat -c %s "$tmp/straddle.txt") $(grep -bo 'password' "$tmp/straddle.txt" | cut -d: -f1) $(grep -bo 'S3CRET' "$tmp/straddle.txt" | cut -d: -f1)" \
	"48960 16310 32640" "elision: the planted secrets sit across both cut points"
wl straddle spstr <<EOW
  - id: RUN-01
    class: lifecycle
    steps:
      - {op: straddle, argv: [cat, "$tmp/straddle.txt"]}
EOW
out=$tmp/straddle
"$SP_BIN" soak --workload "$tmp/straddle.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1
rc=$?
is "$rc" "0" "elision: the run completes and verifies"
log=$out/logs/RUN-01.straddle.log
like "$(cat "$log")" "bytes elided" "elision: the output was cut"
is "$(grep -c -e S3CRET -e VALUE-0123 -e hunter -e 'word: ' "$log")" "0" "elision: no part of a secret whose key was cut off survives"
is "$(grep -v '^##' "$log" | grep -v 'bytes elided' | grep -vc '^y*$')" "0" "elision: every kept line is a whole line of the output"
check_nothing_left "$out"

# ---- a child escaping with setsid and a clean environment ----
mark=299.$RANDOM
wl escape spesc <<EOW
  - id: RUN-01
    class: lifecycle
    steps:
      - {op: escape, argv: [sh, -c, "setsid env -i /bin/sleep $mark </dev/null >/dev/null 2>&1 & sleep 0.2"]}
EOW
out=$tmp/escape
"$SP_BIN" soak --workload "$tmp/escape.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1
rc=$?
is "$(jq -r .cleanup "$out/summary.json") $rc" "failed 1" "escape: the escaped child is a leak: cleanup failed, verifier rejects"
ok test "$(jq -r .leftovers_removed "$out/summary.json")" -ge 1
is "$(pgrep -fc "sleep $mark")" "0" "escape: the runner removed it"
check_nothing_left "$out"
# ... with runner and supervisor both killed: only the run's cgroup still knows it
wl escape2 spesc <<EOW
  - id: RUN-01
    class: lifecycle
    steps:
      - {op: escape, argv: [sh, -c, "setsid env -i /bin/sleep $mark </dev/null >/dev/null 2>&1 & sleep 0.2"]}
EOW
out=$tmp/escape2
"$SP_BIN" soak --workload "$tmp/escape2.yaml" --profile G2 --duration 60 --sample-interval 1 --out "$out" --quiet >/dev/null 2>&1 &
pid=$!
ok wait_rows "$out/operations.tsv" 3 30
prefix=$(meta "$out" prefix)
at_exit "kill_all_of_run '$prefix' '$(meta "$out" state_root)'"
runner=$(runner_of "$pid")
kill -STOP "$pid" "$runner"
kill -KILL "$pid" "$runner"
wait "$pid" 2>/dev/null
sleep 0.3
esc=$(pgrep -f "sleep $mark" | head -1)
ok test -n "$esc"
is "$(tr '\0' '\n' < /proc/$esc/environ | wc -l) $(grep -c "$prefix.runner" /proc/$esc/cgroup)" "0 1" "escape: no environment at all, but in the run's cgroup"
"$SP_BIN" soak --reconcile "$tmp" > "$tmp/escape.rec"
is "$?" "0" "escape: --reconcile succeeds"
is "$(pgrep -fc "sleep $mark")" "0" "escape: --reconcile killed the escaped child (by the journaled cgroup)"

# ---- a hanging counter and a failing one ----
EXTRA=$(printf 'counters:\n  - {name: hang, argv: [sleep, "3600"]}\n  - {name: broken, argv: ["false"]}\n  - {name: three, argv: [echo, "3"]}')
wl counters spcnt <<'EOW'
  - id: RUN-01
    class: lifecycle
    steps:
      - {op: work, argv: ["true"]}
EOW
EXTRA=
out=$tmp/counters
t0=$(date +%s)
"$SP_BIN" soak --workload "$tmp/counters.yaml" --profile G2 --duration 4 --sample-interval 1 --out "$out" --quiet >/dev/null 2>&1
rc=$?
t1=$(date +%s)
ok test $((t1 - t0)) -lt 20
check_bundle "$out"
"$SP_BIN" verify --format json "$out" > "$tmp/counters.json" 2>/dev/null
is "$(gate "$tmp/counters.json" types.samples)" "pass" "counters: the samples are valid (no -1)"
# (over 4 s the trend gates, RSS slope and fd growth, see in-flight processes come and go)
is "$(jq -r '[.gates[] | select(.status != "pass" and .id != "leak.rss_slope" and .id != "leak.fd_growth") | .id] | join(",")' "$tmp/counters.json")" "cleanup.status" \
	"counters: only cleanup.status fails (a counter failed in the start and final samples: baseline unproven)"
is "$rc" "1" "counters: the verifier's exit code"
is "$(awk -F'\t' 'NR>1{print $17 $18 $19}' "$out/resource-samples.tsv" | sort -u)" "003" "counters: failing counters keep their last value (0), the good one reads 3"
ok test "$(jq -r .counter_failures "$out/summary.json")" -ge 8
like "$(cat "$out/logs/counters.log")" "counter=hang failed: (timeout|aborted-by-stop)" "counters: the hanging one is logged"
like "$(cat "$out/logs/counters.log")" "counter=broken failed: exit=1" "counters: the failing one is logged"
ok awk -v g="$(jq -r .max_gap_s "$out/summary.json")" 'BEGIN{exit !(g <= 2)}'
is "$(pgrep -fc 'sleep 3600$' -P "$$" 2>/dev/null)" "0" "counters: no hanging counter left"

# ---- a slow counter in flight at the final inventory ----
EXTRA=$(printf 'counters:\n  - {name: slow, argv: [sh, -c, "sleep 0.6; echo 1"]}')
wl slow spslow <<'EOW'
  - id: RUN-01
    class: lifecycle
    steps:
      - {op: work, argv: ["true"]}
EOW
EXTRA=
out=$tmp/slow
# the stop comes with a periodic sample (duration a multiple of the interval): its counter is in flight
"$SP_BIN" soak --workload "$tmp/slow.yaml" --profile G2 --duration 4 --sample-interval 2 --out "$out" --quiet >/dev/null 2>&1
rc=$?
check_bundle "$out"
is "$(jq -c .resources "$out/inventory-final.json")" "$(jq -c .resources "$out/inventory-start.json")" "slow counter: inventories equal (no false leak)"
is "$rc" "0" "slow counter: the run verifies"
check_nothing_left "$out"
done_testing
