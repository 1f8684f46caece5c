#!/usr/bin/env bash
# Fuzz smoke: every parser of evidence (TSV rows, metadata key=value, JSON
# inventories and summary, MANIFEST and its signature) under libFuzzer with
# ASan+UBSan, a few seconds each, from the committed corpus; and the whole
# verdict on a bundle whose files come from the fuzzer.
. "$(dirname "$0")/../lib/tap.sh"
need clang
cd "$SP_ROOT" || exit 1
for h in fuzz_evidence_tsv fuzz_evidence_kv fuzz_evidence_json fuzz_evidence_manifest fuzz_evidence_bundle fuzz_evidence_secrets fuzz_a3s_bundle; do
	if ! make -s -j"$(nproc)" "build-fuzz/$h" >/dev/null 2>&1; then
		TAP_NAME="$h builds" ok false
		continue
	fi
	c=$(mktemp -d /tmp/sandprobe-test.XXXXXX) && at_exit "rm -rf '$c'"  # not $(sp_tmpdir): see cli.t
	seeds=tests/fuzz/corpus/${h#fuzz_}
	is "$(find "$seeds" -type f | wc -l | tr -d ' ')" "$(ls "$seeds" | wc -l | tr -d ' ')" "$h: committed corpus present"
	cp "$seeds"/* "$c/"
	out=$("build-fuzz/$h" -max_total_time=3 -max_len=16384 -timeout=5 -rss_limit_mb=1024 "$c" 2>&1); rc=$?
	is "$rc" 0 "$h: 3 s of fuzzing without a crash, leak or UB"
	[ "$rc" -ne 0 ] && printf '%s\n' "$out" | tail -30 | sed 's/^/# /'
	like "$out" 'Done [0-9]+ runs' "$h: libFuzzer ran to completion"
done
done_testing
