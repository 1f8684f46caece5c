#!/usr/bin/env bash
# ops.composition (seed 002, "Workload Composition"): an R24 or E72 run must
# combine the five classes at 40/20/15/15/10. The bundles come from the
# independent generator (mkbundle.sh -c: five scenarios of the five classes,
# rows in that proportion, each row a cycle); each wrong one is made by hand
# from a correct one, resealed, and must fail this gate with the reason.
. "$(dirname "$0")/../lib/tap.sh"
need jq
T=$(mktemp -d /tmp/sandprobe-test.XXXXXX) && at_exit "rm -rf '$T'"
MK=$SP_ROOT/tests/verify/mkbundle.sh
comp() { # DIR [verify args...] -> "status<TAB>detail" of ops.composition
	local d=$1
	shift
	"$SP_BIN" verify --format json "$@" "$d" | jq -r '.gates[] | select(.id == "ops.composition") | "\(.status)\t\(.detail // .message // "")"'
}
status() { cut -f1 <<<"$1"; }
"$MK" -p R24 -c -o 500 "$T/good" >/dev/null
r=$(comp "$T/good")
is "$(status "$r")" pass "R24, the composition declared and run in proportion: pass"
like "$r" "500 cycles \(200/100/75/75/50\)" "it counts the cycles of each class"
like "$(jq -r '.gates[] | select(.id == "ops.composition") | .measured' <(
	"$SP_BIN" verify --format json "$T/good"))" '^40.0/20.0/15.0/15.0/10.0$' "measured: each class's share"

"$MK" -p R24 -o 500 "$T/nomix" >/dev/null
r=$(comp "$T/nomix")
is "$(status "$r")" fail "R24 from a writer that records no class_mix: fail"
like "$r" "no class_mix" "the reason names class_mix"

mutate() { # NAME SED-SCRIPT FILE: a copy of good with FILE edited, resealed
	cp -a "$T/good" "$T/$1"
	sed -i -e "$2" "$T/$1/$3"
	"$MK" --reseal "$T/$1" >/dev/null
}
mutate mix 's/^class_mix=.*/class_mix=lifecycle:80,service:20,storage:0,network:0,fault:0/' metadata.txt
r=$(comp "$T/mix")
is "$(status "$r")" fail "R24 of a workload that declares 80/20/0/0/0: fail"
like "$r" "declares class_mix lifecycle:80" "the reason quotes the declared mix"

mutate nomap '/^scenario_classes=/d' metadata.txt
r=$(comp "$T/nomap")
is "$(status "$r")" fail "no scenario_classes: what each class ran cannot be told: fail"
like "$r" "no scenario_classes" "the reason says so"

mutate badmap 's/RUN-05:fault/RUN-09:fault/' metadata.txt
r=$(comp "$T/badmap")
is "$(status "$r")" fail "scenario_classes names an undeclared scenario: fail"
like "$r" "RUN-09:fault" "the reason quotes the entry"

# the fault class never ran: its rows (and their latency rows) removed
cp -a "$T/good" "$T/nofault"
for f in operations.tsv latency.tsv; do awk -F'\t' '$2 != "RUN-05"' "$T/good/$f" >"$T/nofault/$f"; done
awk -F'\t' '$1 != "RUN-05"' "$T/good/capability-results.tsv" >"$T/nofault/capability-results.tsv"
"$MK" --reseal "$T/nofault" >/dev/null
r=$(comp "$T/nofault")
is "$(status "$r")" fail "the fault class declared but never run: fail"
like "$r" "no operation of class fault" "the reason names the class"

# an operations.tsv that does not parse is not judged on its partial rows
mutate badops '3s/\t/ /' operations.tsv
r=$(comp "$T/badops")
is "$(status "$r")" fail "R24 with an invalid operations.tsv: fail"
like "$r" "operations.tsv is invalid" "not evaluated, and why"

# storage runs 5%, network 25%: declared right, run wrong. Every other
# storage row becomes a network row of the next generation.
cp -a "$T/good" "$T/skew"
awk -F'\t' -v OFS='\t' 'NR > 1 && $2 == "RUN-03" && (++n % 3) { $2 = "RUN-04"; $7 = 1000 + n } { print }' \
	"$T/good/operations.tsv" >"$T/skew/operations.tsv"
awk -F'\t' -v OFS='\t' 'NR > 1 && $2 == "RUN-03" && (++n % 3) { $2 = "RUN-04" } { print }' \
	"$T/good/latency.tsv" >"$T/skew/latency.tsv"
"$MK" --reseal "$T/skew" >/dev/null
r=$(comp "$T/skew")
is "$(status "$r")" fail "declared 40/20/15/15/10, run with storage at 5%: fail"
like "$r" "class storage had 5.0% of 500 cycles, declared 15%" "the reason gives the share"

# other profiles: not required, said so; --profile R24 demands it of any bundle
"$MK" -p G2 -s 24 -i 300 "$T/g2" >/dev/null
r=$(comp "$T/g2")
is "$(status "$r")" pass "G2: not required"
like "$r" "not required for profile G2" "and it says so"
r=$(comp "$T/g2" --profile R24)
is "$(status "$r")" fail "--profile R24 over a bundle without the composition: fail"
r=$(comp "$T/good" --profile E72)
is "$(status "$r")" pass "--profile E72 over a bundle with it: pass"
done_testing
