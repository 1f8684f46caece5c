#!/usr/bin/env bash
# Fuzz smoke of the release plan parser (tests/fuzz/fuzz_gate_plan.c):
# libFuzzer with ASan+UBSan from the committed corpus, a few seconds.
. "$(dirname "$0")/../lib/tap.sh"
need clang
cd "$SP_ROOT" || exit 1
h=fuzz_gate_plan
if ! make -s -j"$(nproc)" "build-fuzz/$h" >/dev/null 2>&1; then
	TAP_NAME="$h builds" ok false
	done_testing
	exit
fi
c=$(mktemp -d /tmp/sandprobe-test.XXXXXX) && at_exit "rm -rf '$c'"
seeds=tests/fuzz/corpus/gate_plan
ok test "$(ls "$seeds" | wc -l)" -ge 4
cp "$seeds"/* "$c/"
out=$("build-fuzz/$h" -max_total_time=5 -max_len=16384 -timeout=5 -rss_limit_mb=1024 "$c" 2>&1); rc=$?
is "$rc" 0 "$h: 5 s of fuzzing without a crash, leak or UB"
[ "$rc" -ne 0 ] && printf '%s\n' "$out" | tail -30 | sed 's/^/# /'
like "$out" 'Done [0-9]+ runs' "$h: libFuzzer ran to completion"
done_testing
