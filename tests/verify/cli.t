#!/usr/bin/env bash
# sandprobe verify on bundles written by the independent fixture generator
# (tests/verify/mkbundle.sh): exit codes, text and JSON output, usage errors,
# signatures made with the openssl CLI, baselines, and gates checked against
# numbers recomputed here with awk.
. "$(dirname "$0")/../lib/tap.sh"
need jq
need openssl
need awk

MK="$(dirname "$0")/mkbundle.sh"
T=$(mktemp -d /tmp/sandprobe-test.XXXXXX) && at_exit "rm -rf '$T'"  # not $(sp_tmpdir): its at_exit is lost in the $( ) subshell
V() { "$SP_BIN" verify "$@"; }
gate_status() { jq -r --arg id "$1" '.gates[] | select(.id == $id) | .status'; }
gate_measured() { jq -r --arg id "$1" '.gates[] | select(.id == $id) | .measured'; }
# edit a TSV column of one row with awk: file row(1-based data row, or "last") column value
set_field() {
	awk -F'\t' -v OFS='\t' -v row="$2" -v col="$3" -v val="$4" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; print; next }
		{ lines[NR] = $0 }
		END { last = NR; for (n = 2; n <= last; n++) { $0 = lines[n]; if ((row == "last" && n == last) || n - 1 == row) $c = val; print } }
	' "$1" >"$1.new" && mv "$1.new" "$1"
}

"$MK" "$T/good" >/dev/null
before=$(cd "$T/good" && find . -type f -exec sha256sum {} + | sort)

out=$(V "$T/good"); rc=$?
is "$rc" 0 "a correct generated bundle passes (exit 0)"
like "$out" '^result: PASS \([0-9]+ gates passed, 0 failed\)' "text output ends with the verdict"
like "$out" 'PASS integrity.manifest +measured 0 bad' "text lines carry id, measured and threshold"
after=$(cd "$T/good" && find . -type f -exec sha256sum {} + | sort)
is "$after" "$before" "verify changes nothing in the bundle"

js=$(V "$T/good" --format json); rc=$?
is "$rc" 0 "json: exit 0"
is "$(jq -r .schema <<<"$js")" "sandprobe.verify.v1" "json: schema sandprobe.verify.v1"
is "$(jq -r .result <<<"$js")" "pass" "json: result pass"
is "$(jq -r '[.gates[] | select((.id|type) == "string" and (.status == "pass" or .status == "fail") and (.measured|type) == "string" and (.threshold|type) == "string" and (.message|type) == "string")] | length' <<<"$js")" \
	"$(jq -r '.gates | length' <<<"$js")" "json: every gate has id, status, measured, threshold, message"
is "$(jq -r '.summary.pass + .summary.fail' <<<"$js")" "$(jq -r '.gates | length' <<<"$js")" "json: summary counts every gate"
ids=$(jq -r '.gates[].id' <<<"$js" | sort | uniq -d)
is "$ids" "" "json: gate ids are unique"
for g in files.present metadata.schema samples.span samples.gap samples.count ops.success capability.coverage \
	cleanup.owned_processes cleanup.owned_mounts cleanup.owned_sockets cleanup.owned_cgroups cleanup.inventory \
	leak.rss_slope leak.fd_growth leak.fd_final latency.p95 disk.peak disk.final faults.recovered \
	integrity.manifest integrity.signature summary.consistent; do
	is "$(gate_status "$g" <<<"$js")" pass "json: gate $g reported and passing"
done

# usage errors: exit 2, one line on stderr, nothing on stdout
err=$(V 2>&1 >/dev/null); rc=$?
is "$rc" 2 "missing DIR: exit 2"
like "$err" 'missing bundle directory' "missing DIR: message names the problem"
V "$T/nonexistent" >/dev/null 2>&1; is "$?" 2 "nonexistent DIR: exit 2"
V "$T/good" --format xml >/dev/null 2>&1; is "$?" 2 "--format xml: exit 2"
V "$T/good" --profile G9 >/dev/null 2>&1; is "$?" 2 "--profile G9: exit 2"
V "$T/good" --bogus >/dev/null 2>&1; is "$?" 2 "unknown option: exit 2"
err=$(V "$T/good" --pubkey "$T/nokey.pem" 2>&1 >/dev/null); rc=$?
is "$rc" 2 "unreadable --pubkey: exit 2"
like "$err" "nokey.pem" "unreadable --pubkey: message names the file"
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024 -out "$T/rsa.key" 2>/dev/null
openssl pkey -in "$T/rsa.key" -pubout -out "$T/rsa.pub" 2>/dev/null
err=$(V "$T/good" --pubkey "$T/rsa.pub" 2>&1 >/dev/null); rc=$?
is "$rc" 2 "an RSA --pubkey: exit 2"
like "$err" "not an Ed25519 key" "an RSA --pubkey: says why"
echo '{"schema":"sandprobe.baseline.v1"}' >"$T/bad-baseline.json"
err=$(V "$T/good" --baseline "$T/bad-baseline.json" 2>&1 >/dev/null); rc=$?
is "$rc" 2 "malformed --baseline: exit 2"
like "$err" "bad-baseline.json: field scenarios" "malformed --baseline: message names file and field"

# signatures made by the openssl CLI
openssl genpkey -algorithm ED25519 -out "$T/k.key" 2>/dev/null
openssl pkey -in "$T/k.key" -pubout -out "$T/k.pub" 2>/dev/null
openssl genpkey -algorithm ED25519 -out "$T/other.key" 2>/dev/null
openssl pkey -in "$T/other.key" -pubout -out "$T/other.pub" 2>/dev/null
"$MK" -k "$T/k.key" "$T/signed" >/dev/null
js=$(V "$T/signed" --pubkey "$T/k.pub" --format json); rc=$?
is "$rc" 0 "signed bundle verifies with its public key"
is "$(gate_status integrity.signature <<<"$js")" pass "signed bundle: integrity.signature pass"
js=$(V "$T/signed" --pubkey "$T/other.pub" --format json); rc=$?
is "$rc" 1 "signed bundle with another key: exit 1"
is "$(gate_status integrity.signature <<<"$js")" fail "another key: integrity.signature fail"
js=$(V "$T/good" --pubkey "$T/k.pub" --format json); rc=$?
is "$rc" 1 "unsigned bundle when --pubkey is given: exit 1"
is "$(gate_measured integrity.signature <<<"$js")" unsigned "unsigned bundle: measured 'unsigned'"

# an edited file after sealing
cp -a "$T/good" "$T/edited"
sed -i 's/"cleanup":"ok"/"cleanup":"ok" /' "$T/edited/summary.json"
js=$(V "$T/edited" --format json); rc=$?
is "$rc" 1 "an edited summary.json: exit 1"
is "$(gate_status integrity.manifest <<<"$js")" fail "an edited summary.json: integrity.manifest fail"
like "$(jq -r '.gates[] | select(.id == "integrity.manifest") | .message' <<<"$js")" 'summary.json does not match' "message names the edited file"

# a leaked mount, resealed so that only the cleanup gate can catch it
cp -a "$T/good" "$T/leak"
set_field "$T/leak/resource-samples.tsv" last owned_mounts 6
"$MK" --reseal "$T/leak"
js=$(V "$T/leak" --format json); rc=$?
is "$rc" 1 "a leaked mount: exit 1"
is "$(gate_status cleanup.owned_mounts <<<"$js")" fail "a leaked mount: cleanup.owned_mounts fail"
is "$(gate_status integrity.manifest <<<"$js")" pass "a leaked mount: the resealed MANIFEST passes"
is "$(jq -r '.summary.fail' <<<"$js")" 1 "a leaked mount: only that gate fails"

# a gap: drop one periodic sample
cp -a "$T/good" "$T/gap"
awk 'NR != 6' "$T/gap/resource-samples.tsv" >"$T/gap/x" && mv "$T/gap/x" "$T/gap/resource-samples.tsv"
"$MK" --reseal "$T/gap"
js=$(V "$T/gap" --format json)
is "$(gate_status samples.gap <<<"$js")" fail "a dropped sample: samples.gap fail"
is "$(gate_measured samples.gap <<<"$js")" 120 "a dropped sample: measured gap 120 s"
is "$(gate_status summary.consistent <<<"$js")" fail "a dropped sample: summary no longer agrees"

# a named profile the bundle does not meet
js=$(V "$T/good" --profile G2 --format json); rc=$?
is "$rc" 1 "--profile G2 on a 660 s bundle: exit 1"
is "$(gate_status samples.span <<<"$js")" fail "--profile G2: samples.span fail"
like "$(jq -r '.gates[] | select(.id == "samples.span") | .threshold' <<<"$js")" '7200' "--profile G2: threshold 7200 s"

# RSS slope against an independent least-squares fit (awk)
"$MK" -r 2000000 "$T/rss" >/dev/null
js=$(V "$T/rss" --format json)
got=$(gate_measured leak.rss_slope <<<"$js")
want=$(awk -F'\t' -v we=60 'NR > 1 && $3 == "periodic" && $1 >= we { n++; x = $1; y = $6; sx += x; sy += y; sxx += x * x; sxy += x * y }
	END { printf "%.6f", (n * sxy - sx * sy) / (n * sxx - sx * sx) * 86400 / 1048576 }' "$T/rss/resource-samples.tsv")
ok awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 1e-4 * (b < 0 ? -b : b) + 1e-6) }'
is "$(gate_status leak.rss_slope <<<"$js")" fail "a 2 MB/min RSS growth fails the 50 MiB/day gate (measured $got, awk $want)"

# baselines: emit, reuse, detect a regression; quantiles against sort + nearest rank
V --emit-baseline "$T/base.json" "$T/good" >/dev/null; rc=$?
is "$rc" 0 "--emit-baseline on a passing bundle: exit 0"
is "$(jq -r .schema "$T/base.json")" "sandprobe.baseline.v1" "baseline schema"
for sc in RUN-01 RUN-02 RUN-03; do
	for p in 50 95 99; do
		want=$(awk -F'\t' -v s="$sc" 'NR > 1 && $2 == s && $5 == 0 { print $4 }' "$T/good/latency.tsv" | sort -g |
			awk -v p="$p" '{ v[NR] = $1 } END { r = p / 100 * NR; k = int(r); if (k < r) k++; if (k < 1) k = 1; printf "%.3f", v[k] }')
		got=$(jq -r --arg s "$sc" --arg p "p$p" '.scenarios[$s][$p]' "$T/base.json" | awk '{ printf "%.3f", $1 }')
		is "$got" "$want" "baseline $sc p$p equals the nearest-rank quantile of sort(1)"
	done
done
V "$T/good" --baseline "$T/base.json" >/dev/null; is "$?" 0 "the bundle passes against its own baseline"
# a real slowdown shows in both files: operations.tsv and latency.tsv edited alike
cp -a "$T/good" "$T/slow"
awk -F'\t' -v OFS='\t' 'NR > 1 && $2 == "RUN-02" { $4 = sprintf("%.3f", $4 * 1.5) } { print }' "$T/slow/latency.tsv" >"$T/slow/x" &&
	mv "$T/slow/x" "$T/slow/latency.tsv"
awk -F'\t' -v OFS='\t' 'NR > 1 && $2 == "RUN-02" && $6 == "ok" { $5 = sprintf("%.3f", $5 * 1.5) } { print }' "$T/slow/operations.tsv" >"$T/slow/x" &&
	mv "$T/slow/x" "$T/slow/operations.tsv"
"$MK" --reseal "$T/slow"
js=$(V "$T/slow" --baseline "$T/base.json" --format json)
is "$(gate_status latency.agree <<<"$js")" pass "operations.tsv and latency.tsv slowed alike: latency.agree pass"
# the same slowdown hidden in one file only: the two no longer agree
cp -a "$T/good" "$T/hidden"
cp "$T/slow/latency.tsv" "$T/hidden/latency.tsv"
"$MK" --reseal "$T/hidden"
js=$(V "$T/hidden" --format json); rc=$?
is "$rc" 1 "latency.tsv edited alone: exit 1"
is "$(gate_status latency.agree <<<"$js")" fail "latency.tsv edited alone: latency.agree fail"
like "$(jq -r '.gates[] | select(.id == "latency.agree") | .message' <<<"$js")" 'latency.tsv line [0-9]+: latency_ms' "latency.agree names the line and the column"
js=$(V "$T/slow" --baseline "$T/base.json" --format json); rc=$?
is "$rc" 1 "50% slower RUN-02: exit 1"
is "$(gate_status latency.p95.RUN-02 <<<"$js")" fail "50% slower RUN-02: latency.p95.RUN-02 fail"
is "$(gate_status latency.p95.RUN-01 <<<"$js")" pass "RUN-01 unchanged: latency.p95.RUN-01 pass"
V --emit-baseline "$T/base2.json" "$T/leak" >/dev/null 2>&1; rc=$?
is "$rc" 1 "--emit-baseline on a failing bundle: exit 1"
ok test ! -e "$T/base2.json"

# streaming: memory grows with the operations log only by the latencies kept
# for exact quantiles (8 bytes each), not by the rows read
if [ "${SP_SAN:-0}" = 1 ]; then
	skip "peak RSS is not meaningful under ASan (its shadow memory and quarantine)"
	skip "peak RSS is not meaningful under ASan (its shadow memory and quarantine)"
elif [ ! -x /usr/bin/time ]; then # Debian package time (tools/deps.sh): a failure under SP_MUST_WORK
	if [ "${SP_MUST_WORK:-0}" = 1 ]; then
		TAP_NAME="/usr/bin/time missing (Debian package time): peak RSS of 20,000 rows" ok false
		TAP_NAME="/usr/bin/time missing (Debian package time): peak RSS of 400,000 rows" ok false
	else
		skip "/usr/bin/time missing (Debian package time)"
		skip "/usr/bin/time missing (Debian package time)"
	fi
else
	"$MK" -o 20000 -s 20 "$T/small" >/dev/null
	"$MK" -o 400000 -s 20 "$T/large" >/dev/null
	rss_small=$(/usr/bin/time -f %M "$SP_BIN" verify "$T/small" 2>&1 >/dev/null | tail -1)
	rss_large=$(/usr/bin/time -f %M "$SP_BIN" verify "$T/large" 2>&1 >/dev/null | tail -1)
	TAP_NAME="400,000 rows: peak RSS $rss_large KiB under 32 MiB" ok test "$rss_large" -lt 32768
	# 380,000 more latencies are 3 MB of doubles (x1.5 growth slack): allow 8 MiB
	TAP_NAME="20x more rows: peak RSS $rss_small KiB -> $rss_large KiB (at most 8 MiB more)" \
		ok test $((rss_large - rss_small)) -lt 8192
	rm -rf "$T/small" "$T/large"
fi

# the self-test
st=$("$SP_BIN" verify --self-test); rc=$?
is "$rc" 0 "verify --self-test exits 0"
n=$(grep -c '^ok ' <<<"$st")
ok test "$n" -ge 100
is "$(grep -c '^not ok' <<<"$st")" 0 "self-test: no case misbehaves ($n cases)"
like "$(tail -1 <<<"$st")" "^# $n cases: $n behaved, 0 did not" "self-test prints its final count"
"$SP_BIN" verify --self-test "$T/good" >/dev/null 2>&1; is "$?" 2 "--self-test with a DIR: exit 2"

done_testing
