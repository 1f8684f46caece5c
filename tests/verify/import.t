#!/usr/bin/env bash
# sandprobe import a3s: A3S bundles of our own making (tests/verify/a3s/
# mkcase.sh) turned into sandprobe.evidence.v1 bundles: samples mapped value
# for value (checked against the source with awk), what A3S does not record
# marked absent and never invented, secrets redacted, the MANIFEST right
# (sha256sum -c), report draws it, verify says what it lacks.
. "$(dirname "$0")/../lib/tap.sh"
need jq
need sha256sum

here=$(cd "$(dirname "$0")" && pwd)
MK=$here/a3s/mkcase.sh
T=$(mktemp -d /tmp/sandprobe-test.XXXXXX) && at_exit "rm -rf '$T'"

for kind in host cluster; do
	src=$T/$kind-src out=$T/$kind-out
	"$MK" "$kind-pass" "$src"
	# a secret in the A3S evidence must not reach the sandprobe bundle
	if [ "$kind" = host ]; then
		printf 'A3S_BOX_REGISTRY_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ0123\n' >>"$src/metadata.txt"
		printf 'pushing with password=hunter2secret\n' >>"$src/iteration-1-core.log"
	fi
	msg=$("$SP_BIN" import a3s "$src" "$out"); rc=$?
	is "$rc" 0 "$kind: import exits 0"
	like "$msg" "imported .* into .*$kind-out" "$kind: says what it wrote"
	ok test -f "$out/MANIFEST"
	TAP_NAME="$kind: sha256sum -c MANIFEST passes in the imported bundle" ok sh -c "cd '$out' && sha256sum -c --quiet MANIFEST"
	is "$(sed -n 's/^schema=//p' "$out/metadata.txt")" sandprobe.evidence.v1 "$kind: schema sandprobe.evidence.v1"
	is "$(sed -n 's/^imported_from=//p' "$out/metadata.txt")" "a3s.$kind" "$kind: imported_from a3s.$kind"
	is "$(sed -n 's/^run_id=//p' "$out/metadata.txt")" "$(sed -n 's/^run_id=//p' "$src/metadata.txt")" "$kind: run_id kept"
	like "$(sed -n 's/^absent=//p' "$out/metadata.txt")" '(^|,)host_cpus(,|$)' "$kind: host_cpus marked absent"
	like "$(sed -n 's/^absent=//p' "$out/metadata.txt")" '(^|,)owned_rss_bytes(,|$)' "$kind: owned_rss_bytes marked absent"
	is "$(sed -n 's/^host_cpus=//p' "$out/metadata.txt")" - "$kind: an absent field is '-', not a made-up value"
	# samples: one row per A3S row, counters value for value, owned ones absent
	is "$(($(wc -l <"$out/resource-samples.tsv") - 1))" "$(($(grep -c . "$src/resource-samples.tsv") - 1))" "$kind: one sample per A3S sample"
	want=$(awk -F'\t' 'NR == 1 { for (i = 3; i <= NF; i++) h[i] = $i; n = NF; next } { s = ""; for (i = 3; i <= n; i++) s = s $i " "; print $1, s }' "$src/resource-samples.tsv")
	got=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^extra\./) x[i] = 1; n = NF; next } { s = ""; for (i = 1; i <= n; i++) if (x[i]) s = s $i " "; print $2, s }' "$out/resource-samples.tsv")
	is "$got" "$want" "$kind: every A3S counter carried as extra.<name>, value for value, with its wall time"
	is "$(awk -F'\t' 'NR > 1 { for (i = 4; i <= 16; i++) if ($i != "-") bad++ } END { print bad + 0 }' "$out/resource-samples.tsv")" 0 \
		"$kind: sandprobe's owned/global counters are all absent ('-')"
	first=$(awk -F'\t' 'NR == 2 { print $1 }' "$src/resource-samples.tsv")
	is "$(awk -F'\t' 'NR == 2 { print $1, $3 } END { print $3 }' "$out/resource-samples.tsv" | head -1)" "0.000 start" "$kind: the first sample is the start, at ts 0"
	is "$(tail -1 "$out/resource-samples.tsv" | cut -f3)" final "$kind: the last sample is the final one"
	is "$(wc -l <"$out/operations.tsv")" 1 "$kind: no operation invented (header only)"
	is "$(wc -l <"$out/latency.tsv")" 1 "$kind: no latency invented"
	is "$(wc -l <"$out/faults.tsv")" 1 "$kind: no fault invented"
	ok test ! -e "$out/inventory-start.json"
	is "$(jq -r '.absent | index("operations") != null' "$out/summary.json")" true "$kind: summary.json marks operations absent"
	is "$(jq -r 'has("operations") or has("stop_condition")' "$out/summary.json")" false "$kind: summary.json invents no totals or stop condition"
	is "$(jq -r .sample_count "$out/summary.json")" "$(($(grep -c . "$src/resource-samples.tsv") - 1))" "$kind: summary sample_count from the rows"
	# verify says what is missing
	js=$("$SP_BIN" verify "$out" --format json); rc=$?
	is "$rc" 1 "$kind: verify on the imported bundle fails (it lacks evidence)"
	is "$(jq -r '.gates[] | select(.id == "metadata.absent") | .status' <<<"$js")" fail "$kind: metadata.absent fails"
	is "$(jq -r '.gates[] | select(.id == "integrity.manifest") | .status' <<<"$js")" pass "$kind: the MANIFEST verifies"
	is "$(jq -r '.gates[] | select(.id == "logs.redacted") | .status' <<<"$js")" pass "$kind: the copied logs are redacted"
	# report draws it
	"$SP_BIN" report "$out" -o "$T/$kind.html"; rc=$?
	is "$rc" 0 "$kind: report draws the imported bundle"
	like "$(cat "$T/$kind.html")" "chart-extra\\.$([ $kind = host ] && echo shims || echo pods_total)" "$kind: the report charts an A3S counter"
done
# a source without a duration: summary.json lists requested_duration_s as
# absent (not silently left out), and report still draws it
"$MK" host-pass "$T/nodur"
sed -i '/^soak_duration_secs=/d' "$T/nodur/metadata.txt"
"$SP_BIN" import a3s "$T/nodur" "$T/nodur-out" >/dev/null; is "$?" 0 "no soak_duration_secs: imported"
is "$(jq -r 'has("requested_duration_s")' "$T/nodur-out/summary.json")" false "... summary.json has no requested_duration_s"
is "$(jq -r '.absent | index("requested_duration_s") != null' "$T/nodur-out/summary.json")" true "... and lists it absent"
SANDPROBE_VERIFY=/nonexistent "$SP_BIN" report "$T/nodur-out" -o "$T/nodur.html"; is "$?" 0 "... report draws it"
unlike "$(cat "$T/host-out/metadata.txt" "$T"/host-out/logs/*)" 'ghp_0123456789|hunter2secret' "no secret of the A3S bundle in the imported one"
like "$(cat "$T/host-out/logs/iteration-1-core.log")" 'password=\[REDACTED\]' "the copied log has the secret redacted"

# a log beyond 64 KiB is kept as head, elision line and tail
"$MK" host-pass "$T/big"
awk 'BEGIN { for (i = 0; i < 4000; i++) printf "line %05d of a long core suite log with some padding text\n", i }' >"$T/big/iteration-1-core.log"
"$SP_BIN" import a3s "$T/big" "$T/big-out" >/dev/null
sz=$(wc -c <"$T/big-out/logs/iteration-1-core.log")
TAP_NAME="a 236 KB log becomes $sz bytes (at most 64 KiB)" ok test "$sz" -le 65536
like "$(cat "$T/big-out/logs/iteration-1-core.log")" '\[\.\.\. [0-9]+ bytes elided \.\.\.\]' "... with the elision line"
like "$(tail -1 "$T/big-out/logs/iteration-1-core.log")" 'line 03999' "... and the tail kept"

# usage errors: exit 2, nothing judged valid written
"$SP_BIN" import >/dev/null 2>&1; is "$?" 2 "no arguments: exit 2"
"$SP_BIN" import tar "$T/host-src" "$T/x1" >/dev/null 2>"$T/err"; is "$?" 2 "an unknown format: exit 2"
like "$(cat "$T/err")" "only format is a3s" "an unknown format: says so"
ok test ! -e "$T/x1"
"$SP_BIN" import a3s "$T/host-src" "$T/host-out" >/dev/null 2>"$T/err"; is "$?" 2 "a non-empty OUT: exit 2"
like "$(cat "$T/err")" "exists and is not an empty directory" "a non-empty OUT: says so"
"$MK" host-bad-timestamp "$T/badts"
"$SP_BIN" import a3s "$T/badts" "$T/x2" >/dev/null 2>"$T/err"; is "$?" 2 "an unparseable timestamp: exit 2"
like "$(cat "$T/err")" "resource-samples.tsv:2: timestamp 'not-a-timestamp'" "... naming file, line and value"
ok test ! -e "$T/x2"
mkdir "$T/notA3S" && printf 'schema=sandprobe.evidence.v1\n' >"$T/notA3S/metadata.txt"
"$SP_BIN" import a3s "$T/notA3S" "$T/x3" >/dev/null 2>"$T/err"; is "$?" 2 "not an A3S bundle: exit 2"
like "$(cat "$T/err")" "not an A3S host or cluster bundle" "... says so"
"$SP_BIN" import --help | grep -q 'import a3s DIR OUT'; is "$?" 0 "--help shows the usage"

done_testing
