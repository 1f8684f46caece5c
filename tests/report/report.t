#!/usr/bin/env bash
# sandprobe report: a fixture bundle (tests/report/mkbundle.sh) rendered to a
# self-contained page; structure, charts computed from the data, gate table
# from a verifier process, escaping, malformed bundles, and a headless
# Chromium render (screenshot non-trivial, no request made by the page).
. "$(dirname "$0")/../lib/tap.sh"
need python3
need sha256sum
need jq
here=$(cd "$(dirname "$0")" && pwd)
mk=$here/mkbundle.sh
chk="python3 $here/check_html.py"
tmp=$(sp_tmpdir)

# one field of the parse summary: jq-like access through python
pj() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }

# --- a correct bundle, rendered with the real (placeholder) verifier ---
"$mk" "$tmp/a"
out=$("$SP_BIN" report "$tmp/a" -o "$tmp/a.html" 2>&1); rc=$?
is "$rc" 0 "report exits 0 for a correct bundle"
is "$out" "" "nothing on stdout/stderr with -o"
$chk parse "$tmp/a.html" >"$tmp/a.json"
is "$(pj "$tmp/a.json" "d['ok']")" True "the page parses: balanced tags, one html/head/body/title, doctype"
is "$(pj "$tmp/a.json" "d['errors']")" "[]" "no structure errors"
is "$(pj "$tmp/a.json" "d['scripts']")" 0 "no <script> element"
is "$(pj "$tmp/a.json" "d['external']")" "[]" "no external reference (src/href to non-fragment, url(), http(s):)"
unlike "$(cat "$tmp/a.html")" 'https?://' "no http:// or https:// anywhere in the page"
# the real verify verb (a placeholder exiting 3 until it lands): the page
# shows its gates when it answers with JSON, else says why it is unavailable
"$SP_BIN" verify "$tmp/a" --format json >"$tmp/verify.json" 2>/dev/null; vrc=$?
if [ "$vrc" -le 1 ] && jq -e '.schema == "sandprobe.verify.v1"' "$tmp/verify.json" >/dev/null 2>&1; then
	is "$(grep -c '<tr class="gate ' "$tmp/a.html")" "$(jq '.gates | length' "$tmp/verify.json")" \
		"real verifier: one row per gate of its JSON"
else
	like "$(cat "$tmp/a.html")" "id=\"verifier-unavailable\">verifier unavailable: verifier exited with status $vrc" \
		"real verifier without JSON (exit $vrc): the gate table says why it is unavailable"
fi
printf '#!/bin/sh\necho "sandprobe: not implemented yet" >&2\nexit 3\n' >"$tmp/verify-3"
chmod +x "$tmp/verify-3"
SANDPROBE_VERIFY=$tmp/verify-3 "$SP_BIN" report "$tmp/a" -o "$tmp/a3.html"
is "$?" 0 "a verifier exiting 3 without JSON: the report is still written"
like "$(cat "$tmp/a3.html")" 'id="verifier-unavailable">verifier unavailable: verifier exited with status 3: sandprobe: not implemented yet' \
	"and the gate table reads 'verifier unavailable: <reason>'"
is "$(grep -c 'id="chart-' "$tmp/a3.html")" 10 "and every chart is still rendered"
like "$(cat "$tmp/a3.html")" '<tr><td>rss_slope_mib_per_day</td><td>50</td></tr>' "and the recorded thresholds are listed, unjudged"
for c in chart-rss chart-fds chart-processes chart-mounts chart-disk chart-rate chart-latency-0 chart-latency-1 chart-latency-2 chart-extra.boxes; do
	n=$(pj "$tmp/a.json" "max([len(x.split(' L')) for x in d['paths'].get('$c', [''])])")
	ok test "$n" -ge 20 || echo "# $c: $n points"
done
is "$(pj "$tmp/a.json" "d['rects'].get('warmup', 0)")" 10 "warm-up shaded in every chart"
is "$(pj "$tmp/a.json" "d['rects'].get('fault', 0)")" 20 "two fault windows marked in every chart"
$chk svgs "$tmp/a.html" >"$tmp/a.svgs"
like "$(cat "$tmp/a.svgs")" '<text class="fl"[^>]*>F01</text>' "fault window labelled with its id"
like "$(cat "$tmp/a.html")" '<tr class="cap"><td>RUN-01</td><td class="num">400</td><td class="num">347</td><td class="num">53</td>' \
	"capability results rendered from capability-results.tsv"
like "$(cat "$tmp/a.html")" 'requested 2/s' "requested rate from metadata shown"
like "$(cat "$tmp/a.html")" 'fixture &lt;demo&gt; &amp; &quot;quotes&quot;' "bundle text is HTML-escaped"
unlike "$(cat "$tmp/a.html")" '<demo>' "no raw markup from the bundle"

# --- markup in scenario names (TSV rows, chart titles, legends) stays text ---
"$mk" "$tmp/x" --scenarios 'A&B,<svg onload=x>,C"D'
"$SP_BIN" report "$tmp/x" -o "$tmp/x.html"
$chk parse "$tmp/x.html" >"$tmp/x.json"
is "$(pj "$tmp/x.json" "(d['ok'], d['scripts'], d['svgs'])")" "(True, 0, 10)" "hostile scenario names: page still well-formed, 10 charts"
$chk svgs "$tmp/x.html" >"$tmp/x.svgs"
like "$(cat "$tmp/x.svgs")" '<title>Latency &lt;svg onload=x&gt;</title>' "scenario name escaped in the chart title"
unlike "$(cat "$tmp/x.html" "$tmp/x.svgs")" '<svg onload' "no raw element from a scenario name"

# --- charts come from the data: change one input, that path changes, others do not ---
"$mk" "$tmp/b" --rss-growth 90000
"$SP_BIN" report "$tmp/b" -o "$tmp/b.html"
$chk parse "$tmp/b.html" >"$tmp/b.json"
isnt "$(pj "$tmp/a.json" "d['paths']['chart-rss'][0]")" "$(pj "$tmp/b.json" "d['paths']['chart-rss'][0]")" \
	"more RSS growth: the RSS path changes"
is "$(pj "$tmp/a.json" "d['paths']['chart-fds'][0]")" "$(pj "$tmp/b.json" "d['paths']['chart-fds'][0]")" \
	"same fds: the fd path is unchanged"
"$mk" "$tmp/c" --latency-ms 90 --no-faults
"$SP_BIN" report "$tmp/c" -o "$tmp/c.html"
$chk parse "$tmp/c.html" >"$tmp/c.json"
isnt "$(pj "$tmp/a.json" "d['paths']['chart-latency-0']")" "$(pj "$tmp/c.json" "d['paths']['chart-latency-0']")" \
	"higher latency: the latency paths change"
is "$(pj "$tmp/c.json" "d['rects'].get('fault', 0)")" 0 "no faults: no fault windows"
like "$(cat "$tmp/c.html")" 'No faults were injected' "no faults: said in the faults section"

# --- gate table from a verifier process (SANDPROBE_VERIFY stands in for verify) ---
cat >"$tmp/verify-ok" <<'EOF'
#!/bin/sh
[ "$1" = verify ] && [ "$3" = --format ] && [ "$4" = json ] || { echo "bad args: $*" >&2; exit 2; }
printf '{"schema":"sandprobe.verify.v1","bundle":"%s","profile":"custom","gates":[' "$2"
printf '{"id":"samples.span","status":"pass","measured":"601","threshold":">= 580","message":"span ok"},'
printf '{"id":"rss.slope","status":"fail","measured":"61.2 MiB/day","threshold":"<= 50","message":"<b>slope</b> too steep"},'
printf '{"id":"faults.rto","status":"pass","measured":1840,"threshold":30000,"message":"F01 recovered"}'
printf '],"summary":{"pass":2,"fail":1},"result":"fail"}\n'
exit 1
EOF
chmod +x "$tmp/verify-ok"
SANDPROBE_VERIFY=$tmp/verify-ok "$SP_BIN" report "$tmp/a" -o "$tmp/g.html"
is "$?" 0 "a failing verdict still renders (exit 0)"
g=$(cat "$tmp/g.html")
is "$(grep -c '<tr class="gate ' "$tmp/g.html")" 3 "one row per gate"
like "$g" '<tr class="gate fail"><td>rss.slope</td><td class="fail">fail</td><td class="num">61.2 MiB/day</td><td class="num">&lt;= 50</td><td>&lt;b&gt;slope&lt;/b&gt; too steep</td>' \
	"gate row: id, status, measured, threshold, message (escaped)"
like "$g" '<td>faults.rto</td><td class="pass">pass</td><td class="num">1840</td><td class="num">30000</td>' "numeric measured/threshold rendered"
like "$g" 'class="badge b-fail">FAIL<' "verdict badge from the verifier's result"
unlike "$g" 'verifier unavailable' "no unavailable note when the verifier answered"

printf '#!/bin/sh\necho "this is not json"\nexit 0\n' >"$tmp/verify-garbage"
chmod +x "$tmp/verify-garbage"
SANDPROBE_VERIFY=$tmp/verify-garbage "$SP_BIN" report "$tmp/a" -o "$tmp/h.html"
is "$?" 0 "verifier printing garbage: report still written"
like "$(cat "$tmp/h.html")" 'verifier unavailable: verifier output is not JSON' "garbage output named as the reason"
printf '#!/bin/sh\nkill -9 $$\n' >"$tmp/verify-crash"
chmod +x "$tmp/verify-crash"
SANDPROBE_VERIFY=$tmp/verify-crash "$SP_BIN" report "$tmp/a" -o "$tmp/i.html"
like "$(cat "$tmp/i.html")" 'verifier unavailable: verifier killed by signal 9' "crashing verifier named as the reason"
printf '#!/bin/sh\nsleep 30\n' >"$tmp/verify-hang"
chmod +x "$tmp/verify-hang"
start=$(date +%s)
SANDPROBE_VERIFY=$tmp/verify-hang "$SP_BIN" report "$tmp/a" -o "$tmp/j.html" --verify-timeout 1
like "$(cat "$tmp/j.html")" 'verifier unavailable: verifier timed out after 1 s' "hanging verifier: timed out, named"
ok test $(($(date +%s) - start)) -lt 10

# --- malformed bundles: one-line error naming file:line, exit 2, no output file ---
bad() { # name, edit command (run in the copy), expected stderr regex
	local d=$tmp/bad-$1
	cp -r "$tmp/a" "$d"
	(cd "$d" && eval "$2")
	err=$("$SP_BIN" report "$d" -o "$tmp/bad.html" 2>&1 >/dev/null); rc=$?
	is "$rc" 2 "$1: exit 2"
	like "$err" "$3" "$1: error names the place"
	is "$(printf '%s\n' "$err" | wc -l | tr -d ' ')" 1 "$1: one line"
	ok test ! -e "$tmp/bad.html"
}
bad latency-not-number "sed -i '5s/\t[0-9.]*\tok\t/\tabc\tok\t/' operations.tsv" "operations.tsv:5: latency_ms: 'abc' is not a number"
bad missing-column "sed -i '1s/owned_fds/owned_fdz/' resource-samples.tsv" "resource-samples.tsv:1: missing column 'owned_fds'"
bad field-count "sed -i '3s/\t[^\t]*$//' latency.tsv" "latency.tsv:3: 4 fields, the header has 5"
bad bad-result "sed -i '9s/\tok\t/\tmaybe\t/' operations.tsv" "operations.tsv:9: result: 'maybe'"
bad bad-phase "sed -i '4s/periodic/sometimes/' resource-samples.tsv" "resource-samples.tsv:4: phase: 'sometimes'"
bad no-final "sed -i '\$d' resource-samples.tsv" "resource-samples.tsv:[0-9]+: the last row is not 'final'"
bad metadata-line "sed -i '3s/=/:/' metadata.txt" "metadata.txt:3: expected key=value"
bad metadata-dup "echo 'seed=9' >> metadata.txt" "metadata.txt:[0-9]+: duplicate key 'seed'"
bad schema "sed -i '1s/v1/v9/' metadata.txt" "metadata.txt:1: schema is 'sandprobe.evidence.v9'"
bad summary-json "sed -i '2s/,/,,/' summary.json" "summary.json:2: "
bad missing-file "rm latency.tsv" "latency.tsv: No such file"
# rows are held to the verifier's value syntax (evidence's parsers)
bad sample-decimal-count "sed -i '3s/\tperiodic\t\([0-9]*\)\t/\tperiodic\t\1.5\t/' resource-samples.tsv" \
	"resource-samples.tsv:3: owned_processes: '[0-9]+\.5' is not a non-negative integer"
bad sample-wall "sed -i '3s/\t2026-[^\t]*\t/\tyesterday\t/' resource-samples.tsv" "resource-samples.tsv:3: wall: 'yesterday' is not an ISO 8601"
bad op-exponent "sed -i '5s/\t[0-9.]*\tok\t/\t1e2\tok\t/' operations.tsv" "operations.tsv:5: latency_ms: '1e2' is not a plain decimal"
for c in sample-decimal-count sample-wall op-exponent; do
	js=$("$SP_BIN" verify "$tmp/bad-$c" --format json 2>/dev/null)
	like "$(jq -r '[.gates[] | select(.id | startswith("types.")) | .status] | join(" ")' <<<"$js")" fail "$c: verify refuses it too (a types gate)"
done
# summary.json is read by the verifier's reader: what verify refuses as
# malformed (types.summary) is not drawn as if it were fine
bad summary-cleanup "sed -i 's/\"cleanup\":\"ok\"/\"cleanup\":\"maybe\"/' summary.json" \
	"summary.json: field cleanup: 'maybe' is not an allowed value"
bad summary-missing "sed -i 's/\"profile\":\"custom\",//' summary.json" "summary.json: field profile: missing or not a non-empty string"
bad summary-negative "sed -i 's/\"span_s\":[0-9]*/\"span_s\":-1/' summary.json" "summary.json: field span_s: missing or not a non-negative number"
bad summary-ops-type "sed -i 's/\"total\":[0-9]*/\"total\":\"many\"/' summary.json" "summary.json: field operations.total: missing or not a non-negative integer"
bad summary-absent-type "sed -i 's/^{/{\"absent\":\"warmup_end_s\",/' summary.json" "summary.json: field absent: not an array of non-empty strings"
bad summary-schema "sed -i 's/summary.v1/summary.v2/' summary.json" "summary.json: field schema: not sandprobe.summary.v1"
for c in cleanup missing negative ops-type; do
	js=$("$SP_BIN" verify "$tmp/bad-summary-$c" --format json 2>/dev/null)
	is "$(jq -r '.gates[] | select(.id == "types.summary") | .status' <<<"$js")" fail "summary-$c: verify refuses it too (types.summary)"
done
# a field the bundle marks absent (sandprobe import) may be missing: drawn
d=$tmp/summary-absent
cp -r "$tmp/a" "$d"
sed -i 's/"warmup_end_s":[0-9.]*,//; s/"stop_condition":"duration",//; s/^{/{"absent":["warmup_end_s","stop_condition"],/' "$d/summary.json"
err=$(SANDPROBE_VERIFY=/nonexistent "$SP_BIN" report "$d" -o "$tmp/absent.html" 2>&1); rc=$?
is "$rc" 0 "summary.json without the fields its absent array names: drawn"
is "$err" "" "... with nothing on stderr"
like "$(cat "$tmp/absent.html")" "<td>stop condition</td><td>-</td>" "... the absent stop condition shown as '-'"
sed -i 's/"absent":\["warmup_end_s","stop_condition"\]/"absent":["stop_condition"]/' "$d/summary.json"
err=$(SANDPROBE_VERIFY=/nonexistent "$SP_BIN" report "$d" -o "$tmp/absent2.html" 2>&1); rc=$?
is "$rc" 2 "a missing field the absent array does not name: refused"
like "$err" "summary.json: field warmup_end_s: missing" "... naming the field"
ok test ! -e "$tmp/absent2.html"
bad fault-order "sed -i '2s/\t260.000\t/\t100.000\t/' faults.tsv" "faults.tsv:2: ended: 100 is before started 200"
bad cap-count "sed -i '2s/\t400\t/\t-4\t/' capability-results.tsv" "capability-results.tsv:2: attempted: '-4' is not a non-negative integer"

# --- usage ---
"$SP_BIN" report 2>/dev/null; is "$?" 2 "no bundle directory: exit 2"
"$SP_BIN" report "$tmp/a" --bogus 2>/dev/null; is "$?" 2 "unknown option: exit 2"
"$SP_BIN" report "$tmp/nonexistent" 2>/dev/null; is "$?" 2 "missing directory: exit 2"
"$SP_BIN" report "$tmp/a" -o "$tmp/no/such/dir/x.html" 2>/dev/null; is "$?" 2 "unwritable output path: exit 2"
"$SP_BIN" report "$tmp/a" >"$tmp/stdout.html"
is "$?" 0 "without -o: the page goes to stdout"
like "$(head -c 15 "$tmp/stdout.html")" '<!DOCTYPE html>' "stdout page starts with the doctype"

# --- headless Chromium: renders, screenshot non-trivial, the page requests nothing ---
if command -v chromium >/dev/null 2>&1 && unshare -n true 2>/dev/null; then
	shot() { # html png netlog: in a fresh network namespace, so nothing can leave
		local ud
		ud=$(mktemp -d "$tmp/chromium.XXXXXX")
		timeout -k 5 90 unshare -n chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--user-data-dir="$ud" --log-net-log="$3" --screenshot="$2" --window-size=1280,2000 \
			"file://$1" >/dev/null 2>&1
	}
	shot "$tmp/g.html" "$tmp/g.png" "$tmp/g.netlog"
	ok test -s "$tmp/g.png"
	$chk png "$tmp/g.png" >"$tmp/png.json"
	is "$(pj "$tmp/png.json" "(d['width'], d['height'])")" "(1280, 2000)" "screenshot has the window size"
	ok test "$(pj "$tmp/png.json" "int(d['colors'] > 50 and d['non_background'] > 0.2)")" = 1
	echo "# screenshot: $(cat "$tmp/png.json")"
	is "$(python3 "$here/check_html.py" netlog "$tmp/g.netlog")" "[]" "the page made no network request (NetLog)"
	# positive control: a page with one external image is caught by the same check
	printf '<!DOCTYPE html><html><head><title>x</title></head><body><img src="http://127.0.0.1:9/x.png"></body></html>\n' >"$tmp/ext.html"
	shot "$tmp/ext.html" "$tmp/ext.png" "$tmp/ext.netlog"
	like "$(python3 "$here/check_html.py" netlog "$tmp/ext.netlog")" '127\.0\.0\.1:9/x\.png' \
		"control: an external image is seen by the NetLog check"
else
	if [ "${SP_MUST_WORK:-0}" = 1 ]; then
		ok false # chromium (apt-get install chromium) and unshare -n are required under SP_MUST_WORK=1
	else
		skip "chromium not installed or no network namespace"
	fi
fi
done_testing
