#!/usr/bin/env bash
# The scheduler: with concurrency 1 the sequence of scenario cycles is a
# function of --seed (same seed, same sequence; another seed, another one),
# every run opens with one cycle of each scenario (coverage), the class mix
# steers the picks, and a target rate is honoured and recorded.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need jq
tmp=$(sp_tmpdir)
at_exit "rm -rf '$tmp'" # sp_tmpdir ran in a subshell: register the cleanup here
cat > "$tmp/w.yaml" <<EOW
version: 1
name: seeded
runtime: {name: sh, version: [sh, -c, "echo sh"]}
state_root: $tmp
prefix: spseed
concurrency: 1
mix: {lifecycle: 70, service: 0, storage: 20, network: 10, fault: 0}
scenarios:
  - {id: RUN-01, class: lifecycle, steps: [{op: a, argv: ["true"]}]}
  - {id: RUN-02, class: lifecycle, steps: [{op: b, argv: ["true"]}]}
  - {id: STO-01, class: storage, steps: [{op: c, argv: ["true"]}]}
  - {id: NET-01, class: network, steps: [{op: d, argv: ["true"]}]}
EOW
seq_of() { awk -F'\t' 'NR>1{print $2}' "$1/operations.tsv" | head -200 | paste -sd' '; }
for s in a b; do
	"$SP_BIN" soak --workload "$tmp/w.yaml" --profile G2 --duration 2 --sample-interval 1 --seed 11 --out "$tmp/$s" --quiet >/dev/null 2>&1
done
"$SP_BIN" soak --workload "$tmp/w.yaml" --profile G2 --duration 2 --sample-interval 1 --seed 12 --out "$tmp/c" --quiet >/dev/null 2>&1
check_bundle "$tmp/a"
ok test "$(awk 'END{print NR}' "$tmp/a/operations.tsv")" -gt 200
is "$(seq_of "$tmp/a")" "$(seq_of "$tmp/b")" "same seed, same sequence of cycles"
isnt "$(seq_of "$tmp/a")" "$(seq_of "$tmp/c")" "another seed, another sequence"
is "$(awk -F'\t' 'NR>1 && NR<=5 {print $2}' "$tmp/a/operations.tsv" | paste -sd,)" "RUN-01,RUN-02,STO-01,NET-01" "a run opens with one cycle of every scenario"
# class mix: lifecycle 70 %, storage 20 %, network 10 %
mix=$(jq -r '.class_cycles | "\(.lifecycle) \(.storage) \(.network)"' "$tmp/a/summary.json")
ok awk -v m="$mix" 'BEGIN{split(m, c, " "); t = c[1] + c[2] + c[3]; exit !(c[1]/t > 0.6 && c[1]/t < 0.8 && c[2]/t > 0.12 && c[2]/t < 0.28 && c[3]/t > 0.04 && c[3]/t < 0.16)}'
is "$(meta "$tmp/a" seed)" "11" "seed recorded"

# target rate: 20 operations per second
sed 's/^concurrency: 1/concurrency: 2\nrate: 20/' "$tmp/w.yaml" > "$tmp/rate.yaml"
"$SP_BIN" soak --workload "$tmp/rate.yaml" --profile G2 --duration 3 --sample-interval 1 --out "$tmp/r" --quiet >/dev/null 2>&1
check_bundle "$tmp/r"
is "$(meta "$tmp/r" target_rate_ops_s)" "20" "requested rate in metadata"
is "$(jq -r .requested_rate_ops_s "$tmp/r/summary.json")" "20" "requested rate in summary"
n=$(awk 'END{print NR-1}' "$tmp/r/operations.tsv")
ok test "$n" -ge 50 -a "$n" -le 70
ok awk -v a="$(jq -r .achieved_rate_ops_s "$tmp/r/summary.json")" 'BEGIN{exit !(a > 10 && a <= 21)}'
done_testing
