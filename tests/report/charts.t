#!/usr/bin/env bash
# The report's pages and charts for their readers: the HTML parses with
# xmllint --html with no message at all; every chart is an SVG document with
# titled axes in one unit each (human units for sizes); dense faults merge
# into bands with a count, every fault window of faults.tsv inside a band;
# Chromium, which lays the text out for real, finds no two labels that
# overlap (a page built to overlap is caught); a screenshot of the densest
# chart still shows the data line; short runs still show rate and latency.
. "$(dirname "$0")/../lib/tap.sh"
# live needs a static doctor: under SP_SAN=1 the normal build's
LDOC=$SP_DOCTOR
[ "${SP_SAN:-0}" = 1 ] && LDOC=$SP_ROOT/build/sandprobe-doctor
need python3
need xmllint "libxml2-utils not installed"
here=$(cd "$(dirname "$0")" && pwd)
mk=$here/mkbundle.sh
chk="python3 $here/check_html.py"
tmp=$(sp_tmpdir)
at_exit "rm -rf '$tmp'"
pj() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }

"$mk" "$tmp/std"
"$mk" "$tmp/dense" --many-faults 150
"$mk" "$tmp/short" --duration 30 --interval 2 --warmup 5 --requested-rate 3
for b in std dense short; do
	"$SP_BIN" report "$tmp/$b" -o "$tmp/$b.html" 2>/dev/null
	out=$(xmllint --html --noout "$tmp/$b.html" 2>&1)
	_tap_result $? "xmllint --html accepts the $b report" "$out"
	is "$out" "" "and says nothing about it ($b)"
	$chk svgs "$tmp/$b.html" | awk -v d="$tmp/$b" 'BEGIN{n=0} /^<svg xmlns/{n++} {print > (d "-" n ".svg")}'
	bad=0
	for s in "$tmp/$b"-*.svg; do xmllint --noout "$s" 2>/dev/null || bad=$((bad + 1)); done
	is "$bad" 0 "every embedded chart of the $b report is well-formed XML"
done
like "$(cat "$tmp/std.html")" '8 GiB memory' "host memory in human units (8589934592 bytes)"

# --- axes: titles with one unit each, tick labels bare numbers ---
for c in chart-rss chart-fds chart-rate chart-latency-0; do
	$chk svg "$tmp/std.html" "$c" "$tmp/std-$c.svg"
	$chk geometry "$tmp/std-$c.svg" >"$tmp/std-$c.json"
done
is "$(pj "$tmp/std-chart-rss.json" "d['titles']")" "['resident memory (MiB)', 'run time (min)']" \
	"memory chart: y in MiB (RSS around 50 MB), x in minutes (a 600 s run)"
is "$(pj "$tmp/std-chart-fds.json" "d['titles'][0]")" "open file descriptors (count)" "fd chart: y title with its unit"
is "$(pj "$tmp/std-chart-rate.json" "d['titles'][0]")" "finished operations (ops/s)" "rate chart: ops/s"
is "$(pj "$tmp/std-chart-latency-0.json" "d['titles'][0]")" "latency (ms)" "latency chart: ms"
is "$(pj "$tmp/std-chart-rss.json" "all(__import__('re').fullmatch(r'[0-9.]+', t) for t in d['texts']['yt'] + d['texts']['xt'])")" True \
	"tick labels are bare numbers (the unit is in the axis title)"
$chk svg "$tmp/short.html" chart-rate "$tmp/short-rate.svg"
$chk geometry "$tmp/short-rate.svg" >"$tmp/short-rate.json"
is "$(pj "$tmp/short-rate.json" "d['titles'][1]")" "run time (s)" "a 30 s run: x in seconds"

# --- short runs: rate and latency are drawn ---
$chk svg "$tmp/short.html" chart-latency-0 "$tmp/short-lat.svg"
$chk geometry "$tmp/short-lat.svg" >"$tmp/short-lat.json"
rows=$(awk -F'\t' 'NR > 1 && $2 == "RUN-01"' "$tmp/short/latency.tsv" | wc -l | tr -d ' ')
is "$(pj "$tmp/short-lat.json" "d['circles'].get('pts', 0)")" "$rows" "a 30 s run: every latency sample of RUN-01 is drawn ($rows)"
$chk parse "$tmp/short.html" >"$tmp/short.json"
ok test "$(pj "$tmp/short.json" "max(len(x.split(' L')) for x in d['paths']['chart-rate'])")" -ge 5

# --- dense faults: bands with a count, covering every window ---
$chk svg "$tmp/dense.html" chart-rss "$tmp/dense-rss.svg"
$chk geometry "$tmp/dense-rss.svg" >"$tmp/dense-rss.json"
nb=$(pj "$tmp/dense-rss.json" "len(d['bands'])")
ok test "$nb" -lt 60
like "$(pj "$tmp/dense-rss.json" "' '.join(d['texts']['lg'])")" "150 fault windows in $nb bands" "the legend counts windows and bands ($nb)"
like "$(pj "$tmp/dense-rss.json" "' '.join(d['texts']['fl'])")" '[0-9]+ faults' "a merged band is labelled with its count"
cov=$(python3 - "$tmp/dense-rss.json" "$tmp/dense/faults.tsv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
(v0, p0), (v1, p1) = d["ticks"][0], d["ticks"][-1]
px = lambda s: p0 + (s / 60.0 - v0) / (v1 - v0) * (p1 - p0)   # ticks are minutes here
miss = 0
for line in open(sys.argv[2]).read().splitlines()[1:]:
    f = line.split("\t")
    a, b = px(float(f[3])), px(float(f[4]))
    if not any(x0 - 1 <= a and b <= x1 + 1 for x0, x1 in d["bands"]):
        miss += 1
print(miss)
PY
)
is "$cov" 0 "every fault window of faults.tsv lies inside a drawn band (from the tick scale)"

# --- Chromium lays the text out: no two labels intersect ---
if command -v chromium >/dev/null 2>&1 && unshare -n true 2>/dev/null; then
	dom() { # page: dump the DOM after scripts ran, in a fresh network namespace
		local ud
		ud=$(mktemp -d "$tmp/chromium.XXXXXX")
		timeout -k 5 90 unshare -n chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--user-data-dir="$ud" --dump-dom "file://$1" 2>/dev/null | grep -o '<pre id="result">[^<]*' | sed 's/.*>//'
	}
	for s in "$tmp/dense-rss.svg" "$tmp/std-chart-rss.svg" "$tmp/std-chart-latency-0.svg" "$tmp/short-lat.svg" "$tmp/short-rate.svg"; do
		$chk overlap-page "$s" "$s.html"
		r=$(dom "$s.html")
		like "$r" '^texts=[1-9][0-9]* overlaps=0 ' "$(basename "$s"): Chromium finds no overlapping labels ($r)"
	done
	# control: the same chart with one label moved onto another must be caught
	sed 's|<text class="ct" x="[0-9.]*" y="18">|<text class="ct" x="74" y="40">|' "$tmp/dense-rss.svg" >"$tmp/control.svg"
	$chk overlap-page "$tmp/control.svg" "$tmp/control.html"
	like "$(dom "$tmp/control.html")" 'overlaps=[1-9]' "control: a title moved onto the fault labels is reported as an overlap"
	# screenshot of the densest chart: the data line is still there to see
	ud=$(mktemp -d "$tmp/chromium.XXXXXX")
	timeout -k 5 90 unshare -n chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
		--user-data-dir="$ud" --screenshot="$tmp/dense.png" --window-size=960,330 "file://$tmp/dense-rss.svg" >/dev/null 2>&1
	ok test -s "$tmp/dense.png"
	blue=$($chk pngcolor "$tmp/dense.png" 2456a6 40 74 40 942 240)
	ok test "$(pj <(echo "$blue") "int(d['count'] > 800)")" = 1
	echo "# owned RSS line pixels in the plot: $blue"
	red=$($chk pngcolor "$tmp/dense.png" f0c0c0 40 74 60 942 230)
	ok test "$(pj <(echo "$red") "int(d['fraction'] < 0.5)")" = 1
	echo "# fault-band pixels in the plot: $red"
else
	if [ "${SP_MUST_WORK:-0}" = 1 ]; then
		ok false # chromium and unshare -n are required under SP_MUST_WORK=1
	else
		skip "chromium not installed or no network namespace"
	fi
fi

# --- the live matrix page ---
if command -v bwrap >/dev/null && [ "$(id -u)" = 0 ]; then
	"$SP_BIN" live --doctor "$LDOC" --matrix --runtimes bwrap --variants strict,host-pid --format html -o "$tmp/live.html" >/dev/null 2>&1
	out=$(xmllint --html --noout "$tmp/live.html" 2>&1)
	_tap_result $? "xmllint --html accepts the live matrix page" "$out"
	is "$out" "" "and says nothing about it"
else
	skip "live matrix page needs bwrap and root"
fi
done_testing
