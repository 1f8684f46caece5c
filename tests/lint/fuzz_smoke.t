#!/usr/bin/env bash
# Fuzz smoke of sandprobe lint's parsers: each libFuzzer harness
# (tests/fuzz/fuzz_lint_<kind>.c, built by `make fuzz` with ASan+UBSan) runs
# from its committed seed corpus for a short while and must not crash, leak,
# hit undefined behaviour or time out.
. "$(dirname "$0")/../lib/tap.sh"
need clang
cd "$SP_ROOT" || exit 1
for k in oci seccomp allowlist compose kube squid auto; do
	h=fuzz_lint_$k
	if ! make -s -j"$(nproc)" "build-fuzz/$h" >/dev/null 2>&1; then
		TAP_NAME="$h builds" ok false
		continue
	fi
	n=$(ls tests/fuzz/corpus/lint_$k | wc -l)
	TAP_NAME="$h: a seed corpus is committed ($n files)" ok test "$n" -ge 2
	c=$(sp_tmpdir)
	cp tests/fuzz/corpus/lint_$k/* "$c/"
	out=$("build-fuzz/$h" -runs=20000 -max_total_time=5 -max_len=8192 -timeout=5 -rss_limit_mb=1024 "$c" 2>&1)
	rc=$?
	is "$rc" 0 "$h: no crash, leak, UB or timeout"
	[ "$rc" -ne 0 ] && printf '%s\n' "$out" | tail -30 | sed 's/^/# /'
	like "$out" "Done [0-9]+ runs" "$h: libFuzzer ran to completion"
done
done_testing
