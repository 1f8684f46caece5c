#!/usr/bin/env bash
# Fuzz smoke: the doctor's parsers of untrusted input (policy files, -k
# expressions, injection manifests, agent configuration text, what an MCP
# server sends) under libFuzzer with ASan+UBSan, from the committed corpus.
. "$(dirname "$0")/../lib/tap.sh"
need clang
cd "$SP_ROOT" || exit 1
for h in fuzz_policy fuzz_kexpr fuzz_manifest fuzz_config_secrets fuzz_nft fuzz_mcp fuzz_dns; do
	if ! make -s -j"$(nproc)" "build-fuzz/$h" >/dev/null 2>&1; then
		TAP_NAME="$h builds" ok false
		continue
	fi
	c=$(sp_tmpdir)
	cp tests/fuzz/corpus/${h#fuzz_}/* "$c/"
	out=$("build-fuzz/$h" -runs=15000 -max_len=4096 -timeout=5 "$c" 2>&1); rc=$?
	is "$rc" 0 "$h: 15000 runs without a crash, leak or UB"
	[ "$rc" -ne 0 ] && printf '%s\n' "$out" | tail -30 | sed 's/^/# /'
done
done_testing
