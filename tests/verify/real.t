#!/usr/bin/env bash
# A bundle from a real soak run (the shipped bwrap workload, R0) passes the
# verifier, also through a symlink; the same bundle edited
# the way a liar would, and resealed so that the MANIFEST matches, fails on
# the gate of each lying class.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../soak/lib.sh"
need bwrap
need jq
need busybox
need_root
[ -x /bin/busybox ] || skip_all "/bin/busybox (busybox-static) missing"

MK="$(dirname "$0")/mkbundle.sh"
T=$(mktemp -d /tmp/sandprobe-test.XXXXXX) && at_exit "rm -rf '$T'"
workload_copy "$SP_ROOT/workloads/bwrap-churn.yaml" "$T/w.yaml" "$T"
"$SP_BIN" soak --workload "$T/w.yaml" --profile R0 --seed 7 --out "$T/real" --quiet >/dev/null 2>&1
js=$("$SP_BIN" verify "$T/real" --format json); rc=$?
is "$rc" 0 "a real bwrap soak bundle (R0) passes every gate"
[ "$rc" = 0 ] || jq -r '.gates[] | select(.status == "fail") | "#   \(.id): \(.message)"' <<<"$js"
ln -s "$T/real" "$T/real-link"
"$SP_BIN" verify "$T/real-link" >/dev/null; is "$?" 0 "the same bundle verified through a symlink passes"

# edit a copy, reseal, expect gate to fail
lie() { # NAME GATE EDIT...
	local name=$1 want=$2
	shift 2
	rm -rf "$T/lie"
	cp -a "$T/real" "$T/lie"
	(cd "$T/lie" && eval "$@")
	"$MK" --reseal "$T/lie"
	local j
	j=$("$SP_BIN" verify "$T/lie" --format json)
	is "$(jq -r --arg g "$want" '.gates[] | select(.id == $g) | .status' <<<"$j")" fail "$name: $want fails"
	[ "$want" = integrity.manifest ] ||
		is "$(jq -r '.gates[] | select(.id == "integrity.manifest") | .status' <<<"$j")" pass "$name: resealed (the MANIFEST matches)"
}
# a sample's wall clock 10 s off its ts
lie "a wall clock moved" samples.wall \
	"awk -F'\t' -v OFS='\t' 'NR == 3 { \$2 = \"2099-01-01T00:00:00Z\" } { print }' resource-samples.tsv >x && mv x resource-samples.tsv"
# two operation rows swapped
lie "operations out of order" operations.order \
	"awk 'NR == 3 { s = \$0; next } NR == 4 { print; print s; next } { print }' operations.tsv >x && mv x operations.tsv"
# a latency row edited alone (a p95 regression hidden)
lie "latency.tsv edited alone" latency.agree \
	"awk -F'\t' -v OFS='\t' 'NR == 2 { \$4 = \"0.001\" } { print }' latency.tsv >x && mv x latency.tsv"
# a longer warm-up than the profile allows
lie "a warm-up an R0 run does not have" warmup.bounded "sed -i 's/^warmup_s=.*/warmup_s=5/' metadata.txt"
# a summary whose measured duration is not the rows'
lie "summary measured_duration_s" summary.consistent \
	"jq -c '.measured_duration_s += 100' summary.json >x && mv x summary.json"
# an unredacted secret in a log
lie "a secret in a log" logs.redacted "printf 'curl -H \"Authorization: Bearer abcdef0123456789\"\n' >>\"\$(ls logs/* | head -1)\""
# an unlisted file hidden in a directory named like a skipped file
lie "a directory verify.out/" integrity.manifest "rm -f verify.out && mkdir verify.out && echo x >verify.out/hidden"
if [ "$(awk 'END { print NR }' "$T/real/faults.tsv")" -gt 1 ]; then
	lie "a fault window longer than its recovery" faults.window \
		"awk -F'\t' -v OFS='\t' 'NR == 2 { \$5 = sprintf(\"%.3f\", \$5 + 5) } { print }' faults.tsv >x && mv x faults.tsv"
	lie "fault id F00" types.faults "awk -F'\t' -v OFS='\t' 'NR == 2 { \$1 = \"F00\" } { print }' faults.tsv >x && mv x faults.tsv"
else
	skip "the run injected no fault"
	skip "the run injected no fault"
	skip "the run injected no fault"
	skip "the run injected no fault"
fi
done_testing
