#!/usr/bin/env bash
# Fuzz smoke: the live tier's parsers of untrusted input (the doctor's report
# as the sandbox hands it over; containerd's gRPC replies to the teardown
# proof's lists) under libFuzzer with ASan+UBSan, from the committed corpus.
. "$(dirname "$0")/../lib/tap.sh"
need clang
cd "$SP_ROOT" || exit 1
for h in fuzz_live_report fuzz_ctrd_reply; do
	if ! make -s -j"$(nproc)" "build-fuzz/$h" >/dev/null 2>&1; then
		TAP_NAME="$h builds" ok false
		continue
	fi
	c=$(sp_tmpdir)
	cp tests/fuzz/corpus/${h#fuzz_}/* "$c/"
	out=$("build-fuzz/$h" -runs=30000 -max_len=8192 -timeout=5 "$c" 2>&1)
	rc=$?
	is "$rc" 0 "$h: 30000 runs without a crash, leak or UB"
	[ "$rc" -ne 0 ] && printf '%s\n' "$out" | tail -30 | sed 's/^/# /'
done
done_testing
