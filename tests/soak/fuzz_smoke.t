#!/usr/bin/env bash
# Fuzz smoke for the soak runner's parsers of untrusted input: the workload
# parser (YAML, shipped workloads and bad ones as corpus), F05's fault-proxy
# mode line (the mode file the proxy re-reads at each connection) and the step
# output path (bounded capture, elision, redaction: NUL bytes once overflowed
# the heap there), under libFuzzer with ASan+UBSan.
. "$(dirname "$0")/../lib/tap.sh"
need clang
cd "$SP_ROOT" || exit 1
for h in fuzz_workload fuzz_soak_logs fuzz_fault_proxy_mode; do
	if ! make -s -j"$(nproc)" "build-fuzz/$h" >/dev/null 2>&1; then
		TAP_NAME="$h builds" ok false
		continue
	fi
	c=$(sp_tmpdir)
	cp tests/fuzz/corpus/${h#fuzz_}/* "$c/"
	out=$("build-fuzz/$h" -runs=20000 -max_len=8192 -timeout=5 "$c" 2>&1); rc=$?
	is "$rc" 0 "$h: 20000 runs without a crash, leak or UB"
	[ "$rc" -ne 0 ] && printf '%s\n' "$out" | tail -30 | sed 's/^/# /'
done
done_testing
