#!/usr/bin/env bash
# Edges that once made the runner lie:
# - a rate slot cut by the stop started its operation anyway (after the stop);
# - a full --out that frees up again tore rows (lost halves of rows);
# - an unwritable --metrics-file was silently ignored;
# - Prometheus output: counters typed gauge, values with float noise;
# - F02 in the shipped bwrap workload could kill the outer bwrap while the
#   sandbox inside survived, and the recovery check passed anyway.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need jq
need_root
tmp=$(sp_tmpdir)
at_exit "rm -rf '$tmp'" # sp_tmpdir ran in a subshell: register the cleanup here

trivial() { # FILE PREFIX [EXTRA-LINE]
	cat > "$1" <<EOW
version: 1
name: edge
runtime: {name: sh, version: [sh, -c, "echo sh"]}
state_root: $tmp
prefix: $2
concurrency: 2
${3:-}
scenarios:
  - id: RUN-01
    class: lifecycle
    parallel: true
    steps:
      - {op: work, argv: [sh, -c, "echo work {id}"]}
EOW
}

# ---- no operation starts after the stop ----
# rate 0.4/s: starts at 0 and 2.5 s; the slot at 5 s lies beyond the 3 s run
trivial "$tmp/rate.yaml" sprate "rate: 0.4"
out=$tmp/rate
"$SP_BIN" soak --workload "$tmp/rate.yaml" --profile G2 --duration 3 --sample-interval 1 --out "$out" --quiet >/dev/null 2>&1
check_bundle "$out"
is "$(awk 'END{print NR-1}' "$out/operations.tsv")" "2" "rate 0.4/s over 3 s: two operations, none started after the stop"
stop=$(awk -F'\t' 'NR==2{print $1 + 3}' "$out/resource-samples.tsv")
is "$(awk -F'\t' -v s="$stop" 'NR>1 && $1 - $5/1000 > s' "$out/operations.tsv")" "" "no operation row starts after the stop ($stop s)"
is "$(meta "$out" target_rate_ops_s)" "0.4" "metadata: the requested rate"
# a rate below the minimum is refused (it once overflowed into "unbounded")
trivial "$tmp/tiny.yaml" sptiny "rate: 0.00000001"
err=$("$SP_BIN" soak --workload "$tmp/tiny.yaml" --profile G2 --duration 3 --out "$tmp/tiny" 2>&1 >/dev/null)
is "$?" "2" "tiny rate: exit 2"
like "$err" "tiny.yaml:7: 'rate' must be 0 \(unbounded\) or from 0.0001 to 100000" "tiny rate: file:line and the range"
ok test ! -e "$tmp/tiny"

# ---- a full --out that frees up again ----
mnt=$tmp/small
mkdir -p "$mnt"
if mount -t tmpfs -o size=2m tmpfs "$mnt"; then
	at_exit "umount -l '$mnt' 2>/dev/null"
	trivial "$tmp/full.yaml" spfull "rate: 200"
	out=$mnt/bundle
	"$SP_BIN" soak --workload "$tmp/full.yaml" --profile G2 --duration 6 --sample-interval 1 --out "$out" >/dev/null 2>"$tmp/full.err" &
	pid=$!
	ok wait_rows "$out/operations.tsv" 20 20
	dd if=/dev/zero of="$mnt/filler" bs=4k 2>/dev/null # until the disk is full
	ok test "$(df --output=avail "$mnt" | tail -1)" -lt 8
	sleep 2
	rm -f "$mnt/filler"
	wait "$pid"
	rc=$?
	check_bundle "$out"
	check_exit_is_verifiers "$out" "$rc"
	like "$(cat "$tmp/full.err")" "cannot write .*/operations.tsv: No space left on device; its rows wait in memory" "full disk: the stall is reported"
	like "$(cat "$tmp/full.err")" "operations.tsv is written again, no row lost" "full disk: and its end"
	is "$rc" "0" "full disk that freed up: the bundle is complete and verifies"
	[ "$rc" = 0 ] || grep '^FAIL' "$out/verify.out" | while IFS= read -r l; do echo "# verify: $l"; done
	ok test "$(jq -r .operations.total "$out/summary.json")" -gt 200
	check_nothing_left "$out"
else
	skip "cannot mount a tmpfs"
fi

# ---- --metrics-file ----
trivial "$tmp/m.yaml" spmet
err=$("$SP_BIN" soak --workload "$tmp/m.yaml" --profile R0 --out "$tmp/m0" --metrics-file /proc/sp-metrics.prom 2>&1 >/dev/null)
is "$?" "2" "unwritable --metrics-file: exit 2"
like "$err" "^sandprobe: --metrics-file /proc/sp-metrics.prom: cannot write /proc/sp-metrics.prom.tmp there" "unwritable --metrics-file: the message names it"
is "$(printf '%s\n' "$err" | wc -l | tr -d ' ')" "1" "unwritable --metrics-file: one line"
ok test ! -e "$tmp/m0"
is "$(ls -d "$tmp"/spmet-* 2>/dev/null | wc -l)" "0" "unwritable --metrics-file: nothing started"
# a metrics file that becomes unwritable during the run is reported and counted
mkdir -p "$tmp/mdir"
out=$tmp/m1
"$SP_BIN" soak --workload "$tmp/m.yaml" --profile G2 --duration 4 --sample-interval 1 --out "$out" --metrics-file "$tmp/mdir/m.prom" \
	>/dev/null 2>"$tmp/m1.err" &
pid=$!
ok wait_rows "$out/resource-samples.tsv" 1 20
rm -rf "$tmp/mdir"
wait "$pid"
like "$(cat "$tmp/m1.err")" "cannot write the metrics file $tmp/mdir/m.prom: No such file or directory" "metrics: a failed write is reported"
ok test "$(jq -r .metrics_write_failures "$out/summary.json")" -ge 1
# Prometheus text: valid for promtool, counters typed counter, decimals without float noise
out=$tmp/m2
"$SP_BIN" soak --workload "$tmp/m.yaml" --profile G2 --duration 2 --sample-interval 1 --out "$out" --metrics-file "$tmp/m2.prom" --quiet >/dev/null 2>&1
if command -v promtool >/dev/null; then
	ok promtool check metrics < "$tmp/m2.prom"
elif [ "${SP_MUST_WORK:-0}" = 1 ]; then
	TAP_NAME="promtool installed (SP_MUST_WORK=1)" ok false
else
	skip "promtool (prometheus) not installed"
fi
is "$(awk '/^# TYPE/ && $3 ~ /_total$/ && $4 != "counter"' "$tmp/m2.prom")" "" "metrics: every *_total is typed counter"
is "$(awk '/^# TYPE/ && $4 == "counter"{print $3}' "$tmp/m2.prom" | paste -sd,)" \
	"sandprobe_soak_operations_total,sandprobe_soak_operations_failed_total,sandprobe_soak_operations_expected_fault_total,sandprobe_soak_samples_total" "metrics: the counters"
is "$(grep -v '^#' "$tmp/m2.prom" | awk '{print $NF}' | grep -vE '^[0-9]+(\.[0-9]{1,3})?$')" "" "metrics: every value an integer or a decimal of at most 3 places"
is "$(awk '$1 ~ /^sandprobe_soak_operations_total/{print $2}' "$tmp/m2.prom")" "$(jq -r .operations.total "$out/summary.json")" "metrics: operations_total agrees with the bundle"

# ---- F02: a process of the killed target that survives fails the record ----
# whatever the workload's own recovery check says (here one that sees nothing)
cat > "$tmp/surv.yaml" <<EOW
version: 1
name: survivor
runtime: {name: sh, version: [sh, -c, "echo sh"]}
state_root: $tmp
prefix: spsurv
scenarios:
  - id: RUN-01
    class: fault
    steps:
      - op: launch
        argv: [sh, -c, "(sh -c 'sleep 30 & wait' & echo \$! > {state}/{id}.pid; wait) >/dev/null 2>&1 & for i in \$(seq 50); do test -s {state}/{id}.pid && exit 0; sleep 0.05; done; exit 1"]
    recover:
      - {op: weak-check, argv: ["true"]}
    fault: {id: F02, step: launch, pidfile: "{state}/{id}.pid", after_ms: 300, rto_ms: 3000}
EOW
out=$tmp/surv
"$SP_BIN" soak --workload "$tmp/surv.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1
is "$(awk -F'\t' 'NR>1{print $1" "$8}' "$out/faults.tsv")" "F02 fail" "F02: the target's child outlived the kill: the record fails"
like "$(awk -F'\t' 'NR>1{print $2}' "$out/faults.tsv")" "survivor:[0-9]+\(sleep\)" "F02: the record names the survivor"
is "$(awk -F'\t' '$4 == "weak-check"{print $6}' "$out/operations.tsv")" "ok" "F02: although the workload's own check passed"
check_nothing_left "$out"

# ---- F02 on the shipped bwrap workload: a sandbox that survives fails its record ----
if command -v bwrap >/dev/null && [ -x /bin/busybox ]; then
	# the shipped workload with only its F02 scenario (RUN-04), the kill as
	# early as the launch step allows (after_ms 0)
	awk '/^scenarios:/{print; s=1; next} s && /^  - id: /{keep = ($3 == "RUN-04")} !s || keep' "$SP_ROOT/workloads/bwrap-churn.yaml" |
		sed "s#^state_root: .*#state_root: $tmp#; s#^mix: .*#mix: {lifecycle: 0, service: 0, storage: 0, network: 0, fault: 100}#; s#after_ms: 200#after_ms: 0#" > "$tmp/f02.yaml"
	is "$(grep -c '^  - id: ' "$tmp/f02.yaml")" "1" "F02: one scenario kept"
	out=$tmp/f02
	"$SP_BIN" soak --workload "$tmp/f02.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1
	is "$(awk -F'\t' 'NR>1{print $1" "$8}' "$out/faults.tsv")" "F02 pass" "F02: the real sandbox dies with its killed monitor"
	# weakened: the sandbox does not die with its parent (a negative control)
	sed 's/(bwrap --unshare-all --die-with-parent /(bwrap --unshare-all /' "$tmp/f02.yaml" > "$tmp/f02-weak.yaml"
	isnt "$(cat "$tmp/f02-weak.yaml")" "$(cat "$tmp/f02.yaml")" "F02: the weakened copy differs"
	out=$tmp/f02-weak
	"$SP_BIN" soak --workload "$tmp/f02-weak.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1
	is "$(awk -F'\t' 'NR>1{print $1" "$8}' "$out/faults.tsv")" "F02 fail" "F02: a sandbox that outlives its killed monitor fails the record"
	is "$(awk -F'\t' '$4 == "no-survivor"{print $6}' "$out/operations.tsv")" "fail" "F02: the workload's own recovery check sees the survivor"
	check_nothing_left "$out"
else
	skip "bwrap or busybox missing"
fi
done_testing
