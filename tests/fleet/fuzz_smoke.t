#!/usr/bin/env bash
# Fuzz smoke of the fleet plan parser and renderer (tests/fuzz/fuzz_fleet_plan.c)
# and of fleet collect's report and log reader (tests/fuzz/fuzz_fleet_collect.c):
# libFuzzer with ASan+UBSan from the committed corpus, a few seconds.
. "$(dirname "$0")/../lib/tap.sh"
need clang
cd "$SP_ROOT" || exit 1
for h in fuzz_fleet_plan fuzz_fleet_collect; do
	if ! make -s -j"$(nproc)" "build-fuzz/$h" >/dev/null 2>&1; then
		TAP_NAME="$h builds" ok false
		continue
	fi
	c=$(sp_tmpdir)
	seeds=tests/fuzz/corpus/${h#fuzz_}
	n=$(ls "$seeds" | wc -l)
	TAP_NAME="$h: a seed corpus is committed ($n files)" ok test "$n" -ge 4
	cp "$seeds"/* "$c/"
	out=$("build-fuzz/$h" -max_total_time=5 -max_len=16384 -timeout=5 -rss_limit_mb=1024 "$c" 2>&1)
	rc=$?
	is "$rc" 0 "$h: 5 s of fuzzing without a crash, leak or UB"
	[ "$rc" -ne 0 ] && printf '%s\n' "$out" | tail -30 | sed 's/^/# /'
	like "$out" 'Done [0-9]+ runs' "$h: libFuzzer ran to completion"
done
done_testing
