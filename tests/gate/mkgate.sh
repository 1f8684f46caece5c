#!/usr/bin/env bash
# Bundles for the gate's tests and benchmark: the verifier's independent
# fixture generator (tests/verify/mkbundle.sh, awk and coreutils only), then
# the identity the gate matches on written into metadata.txt (lane, artifact
# digests, scenario ids, start time, run id, dirty flag) and the bundle
# resealed (and signed) with sha256sum/openssl, as a writer would.
#
#   mkgate.sh [options] DIR
#   -p PROFILE   R0 (default), G2, R24, E72 or custom (samples sized to meet it)
#   -l LANE      lane= (default lane-a; "-" writes no lane)
#   -a NAME=DIG  artifact.NAME=DIG (repeatable; DIG sha256:<hex>)
#   -S A,B,C     the three scenario ids (default RUN-01,RUN-02,RUN-03)
#   -t TIME      started_at (default 2026-08-01T00:00:00Z)
#   -n ID        run_id (default gate-<random>)
#   -d 0|1       dirty (default 0)
#   -A ARCH      host_arch (default x86_64, whatever this host is)
#   -r NAME      runtime (default runc)
#   -s N         periodic samples (default by profile: the run's length)
#   -w HEX       workload_sha256
#   -f           a failing run (owned RSS grows: leak.rss_slope fails)
#   -k KEY       sign MANIFEST with this Ed25519 PEM private key
#   -o N         operation rows (default 60 for R0, more for longer profiles: the
#                generator's warm-up end must come from warmup_s, see below)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
MK=$here/../verify/mkbundle.sh
profile=R0 lane=lane-a scen=RUN-01,RUN-02,RUN-03 started=2026-08-01T00:00:00Z run="gate-$$-$RANDOM$RANDOM"
dirty=0 workload="" fail=0 key="" ops="" arch=x86_64 runtime=runc samples=""
arts=()
while getopts "p:l:a:S:t:n:d:w:fk:o:A:r:s:" o; do
	case $o in
	p) profile=$OPTARG ;;
	l) lane=$OPTARG ;;
	a) arts+=("$OPTARG") ;;
	S) scen=$OPTARG ;;
	t) started=$OPTARG ;;
	n) run=$OPTARG ;;
	d) dirty=$OPTARG ;;
	w) workload=$OPTARG ;;
	f) fail=1 ;;
	k) key=$OPTARG ;;
	o) ops=$OPTARG ;;
	A) arch=$OPTARG ;;
	r) runtime=$OPTARG ;;
	s) samples=$OPTARG ;;
	*) echo "mkgate.sh: bad option" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: mkgate.sh [options] DIR" >&2; exit 2; }
dir=$1
# enough operations that every scenario has its second one before 1000 s:
# the generator prints the warm-up end with awk's 6 significant digits, and
# a later one (7225.833) disagrees with its own summary (summary.consistent)
case $profile in
R0 | custom) s=3 i=10 o=60 ;;
G2) s=24 i=300 o=60 ;;
R24) s=288 i=300 o=1800 ;;
E72) s=864 i=300 o=5000 ;;
*) echo "mkgate.sh: profile $profile" >&2; exit 2 ;;
esac
rss=0
[ -n "$ops" ] || ops=$o
[ -n "$samples" ] && s=$samples
[ "$fail" = 1 ] && rss=200000000
# R24 and E72 combine the five classes (ops.composition): five scenarios, the
# fifth's second row at the 20th, so more rows than the three-scenario ones
comp=; case $profile in R24 | E72) comp=-c ;; esac
"$MK" -t "$started" -o "$ops" -s "$s" -i "$i" -p "$profile" -r "$rss" $comp "$dir" >/dev/null
IFS=, read -r s1 s2 s3 <<<"$scen"
for f in operations.tsv latency.tsv capability-results.tsv; do
	sed -i -e "s/\tRUN-01\t/\t$s1\t/; s/\tRUN-02\t/\t$s2\t/; s/\tRUN-03\t/\t$s3\t/; s/^RUN-01\t/$s1\t/; s/^RUN-02\t/$s2\t/; s/^RUN-03\t/$s3\t/" "$dir/$f"
done
# capability-results.tsv stays sorted by scenario, as the generator writes it
{ head -n1 "$dir/capability-results.tsv"; tail -n +2 "$dir/capability-results.tsv" | LC_ALL=C sort; } >"$dir/c.tmp"
mv "$dir/c.tmp" "$dir/capability-results.tsv"
old=$(sed -n 's/^run_id=//p' "$dir/metadata.txt")
sed -i -e "s/^run_id=.*/run_id=$run/" -e "s/^scenarios=RUN-01,RUN-02,RUN-03/scenarios=$s1,$s2,$s3/" \
	-e "/^scenario_classes=/{s/RUN-01:/$s1:/; s/RUN-02:/$s2:/; s/RUN-03:/$s3:/}" -e "s/^started_at=.*/started_at=$started/" \
	-e "s/^dirty=.*/dirty=$dirty/" -e "s/^host_arch=.*/host_arch=$arch/" -e "s/^runtime=.*/runtime=$runtime/" "$dir/metadata.txt"
[ -n "$workload" ] && sed -i "s/^workload_sha256=.*/workload_sha256=$workload/" "$dir/metadata.txt"
[ "$lane" != - ] && echo "lane=$lane" >>"$dir/metadata.txt"
for a in "${arts[@]}"; do echo "artifact.$a" >>"$dir/metadata.txt"; done
sed -i "s/\"run_id\":\"$old\"/\"run_id\":\"$run\"/" "$dir/summary.json"
if [ -n "$key" ]; then "$MK" --reseal -k "$key" "$dir"; else "$MK" --reseal "$dir"; fi
