#!/usr/bin/env bash
# sandprobe gate --archive and --from-archive: the archive holds the plan,
# copies of the bundles, the decision and the reports under a MANIFEST that
# sha256sum -c accepts and whose signature openssl verifies; the decision
# re-made from the archive alone (at its recorded time, with the archived
# key) is the same, months later, wherever the original bundles went; an
# edited archive is refused.
. "$(dirname "$0")/../lib/tap.sh"
need jq
need openssl
MK="$(dirname "$0")/mkgate.sh"
T=$(mktemp -d /tmp/sandprobe-test.XXXXXX) && at_exit "rm -rf '$T'"
G() { "$SP_BIN" gate "$@"; }
AT=2026-08-05T00:00:00Z
A=sha256:$(printf candidate | sha256sum | cut -c1-64)
"$SP_BIN" keygen --out "$T/bk" >/dev/null  # the soak writers' key, named by the plan
"$SP_BIN" keygen --out "$T/ak" >/dev/null  # release engineering's archive key
"$SP_BIN" keygen --out "$T/xk" >/dev/null
mkdir "$T/plans" "$T/ev"
cat >"$T/plans/plan.yaml" <<EOF
version: 1
name: rc-archive
candidate: {id: 2.0.0-rc3, artifacts: {runc: $A}}
changes: [core]
evidence: {valid_for: {R0: 7d, G2: 14d}, retries: 1}
signing: {pubkey: ../bk.pub}
lanes:
  - {id: lane-a, host_class: linux-x86_64, isolation: oci-sandbox}
scenarios:
  - {id: RUN-01, owner: core-runtime, require: {core: {lane-a: [G2]}}}
  - {id: RUN-02, owner: oci, require: {core: {lane-a: [R0]}}}
  - {id: RUN-03, owner: lifecycle, require: {core: {lane-a: [R0]}}}
EOF
"$MK" -p R0 -a runc=$A -k "$T/bk.key" -t 2026-08-01T00:00:00Z -f "$T/ev/r0-fail"
"$MK" -p R0 -a runc=$A -k "$T/bk.key" -t 2026-08-01T01:00:00Z "$T/ev/r0"
"$MK" -p G2 -a runc=$A -k "$T/bk.key" -t 2026-08-01T02:00:00Z "$T/ev/g2"

out=$(G --plan "$T/plans/plan.yaml" --at $AT --archive "$T/arch" --sign-key "$T/ak.key" "$T/ev" --format json); rc=$?
is "$rc" 0 "a passing decision (one retry after a failure) with --archive: exit 0"
for f in plan.yaml signing.pub decision.json decision.txt junit.xml matrix.html MANIFEST MANIFEST.sig; do
	ok test -f "$T/arch/$f"
done
is "$(ls "$T/arch/bundles" | wc -l)" 3 "every bundle the decision was given is archived"
is "$(ls "$T/arch/reports" | wc -l)" 3 "with its report"
cmp -s "$T/plans/plan.yaml" "$T/arch/plan.yaml"; is "$?" 0 "the plan is archived byte for byte"
cmp -s "$T/bk.pub" "$T/arch/signing.pub"; is "$?" 0 "with the key it names"
diffs=""
for b in r0-fail r0 g2; do
	run=$(sed -n 's/^run_id=//p' "$T/ev/$b/metadata.txt")
	copy=$(ls -d "$T/arch/bundles/"*"-$run")
	diff -r "$T/ev/$b" "$copy" >/dev/null || diffs="$diffs $b"
done
is "$diffs" "" "each archived bundle is an exact copy (diff -r)"
is "$(jq -S 'del(.bundles[].path)' "$T/arch/decision.json")" "$(jq -S 'del(.bundles[].path)' <<<"$out")" \
	"decision.json is the decision that was printed"
(cd "$T/arch" && sha256sum --quiet -c MANIFEST) >/dev/null 2>&1; is "$?" 0 "sha256sum -c MANIFEST passes in the archive"
listed=$(awk '{print $2}' "$T/arch/MANIFEST" | sort)
present=$(cd "$T/arch" && find . -type f ! -path ./MANIFEST ! -path ./MANIFEST.sig | sed 's|^\./||' | LC_ALL=C sort)
is "$listed" "$(LC_ALL=C sort <<<"$present")" "MANIFEST lists every file of the archive"
base64 -d "$T/arch/MANIFEST.sig" >"$T/sig.bin"
openssl pkeyutl -verify -pubin -inkey "$T/ak.pub" -rawin -in "$T/arch/MANIFEST" -sigfile "$T/sig.bin" >/dev/null 2>&1
is "$?" 0 "openssl verifies MANIFEST.sig with the archive key"

# re-decide from the archive alone: the originals gone, months later
mv "$T/ev" "$T/ev.gone"
mv "$T/bk.pub" "$T/bk.pub.gone"
again=$(G --from-archive "$T/arch" --pubkey "$T/ak.pub" --format json 2>"$T/err"); rc=$?
is "$rc" 0 "re-made from the archive alone, months later: exit 0 (the decision's own time and key)"
like "$(cat "$T/err")" 'the re-made decision equals the archived one \(pass\)' "stderr says the decision is reproduced"
is "$(jq -c '[.result, .decided_at, [.cells[] | [.id, .state, .bundle.run_id]]]' <<<"$again")" \
	"$(jq -c '[.result, .decided_at, [.cells[] | [.id, .state, .bundle.run_id]]]' "$T/arch/decision.json")" \
	"the same result, time and cell states from the same runs"
is "$(jq -r '.cells[] | select(.id == "RUN-02/lane-a/R0") | [.evidence[].disposition] | join(",")' <<<"$again")" "retried,used" \
	"the retried failure is retained and re-judged too"
G --from-archive "$T/arch" >/dev/null 2>&1; is "$?" 0 "without --pubkey the archive is still re-decided"
mkdir "$T/again"
G --from-archive "$T/arch" --format html -o "$T/again/matrix.html" 2>/dev/null; is "$?" 0 "re-made as HTML: exit 0"
is "$(ls "$T/again/reports" | wc -l)" 3 "re-made as HTML: every bundle's report beside it"
like "$(cat "$T/again/reports/$(ls "$T/again/reports" | head -1)")" 'leak.rss_slope' "the re-made report of the failed run shows its gate"
G --from-archive "$T/arch" --pubkey "$T/xk.pub" >/dev/null 2>"$T/err"; rc=$?
is "$rc" 1 "another archive key: exit 1"
like "$(cat "$T/err")" 'MANIFEST.sig' "another key: the signature is named"

# an edited archive is refused
edit() { # NAME SED FILE: a copy of the archive with FILE edited
	rm -rf "$T/$1" && cp -r "$T/arch" "$T/$1" && sed -i "$2" "$T/$1/$3"
}
edit e1 's/"result": "pass"/"result": "fail"/' decision.json
G --from-archive "$T/e1" >/dev/null 2>"$T/err"; rc=$?
is "$rc" 1 "decision.json edited: exit 1"
like "$(cat "$T/err")" 'decision.json: does not match its MANIFEST digest' "decision.json edited: named"
b=$(ls "$T/arch/bundles" | head -1)
edit e2 's/^dirty=0/dirty=1/' "bundles/$b/metadata.txt"
G --from-archive "$T/e2" >/dev/null 2>"$T/err"; is "$?" 1 "an archived bundle edited: exit 1"
rm -rf "$T/e3" && cp -r "$T/arch" "$T/e3" && rm -r "$T/e3/bundles/$b"
G --from-archive "$T/e3" >/dev/null 2>"$T/err"; is "$?" 1 "an archived bundle removed: exit 1"
like "$(cat "$T/err")" 'listed in MANIFEST but missing' "removed: named"
# edited and resealed without the archive key: the MANIFEST matches but the decision must be re-made from evidence
rm -rf "$T/e4" && cp -r "$T/arch" "$T/e4" && rm -r "$T/e4/bundles/$b"
(cd "$T/e4" && rm MANIFEST MANIFEST.sig && find . -type f | sed 's|^\./||' | LC_ALL=C sort | while IFS= read -r f; do sha256sum -- "$f"; done >"$T/e4.manifest" && mv "$T/e4.manifest" MANIFEST)
G --from-archive "$T/e4" >/dev/null 2>"$T/err"; rc=$?
is "$rc" 1 "a bundle removed and the MANIFEST rebuilt: the re-made decision differs (exit 1)"
like "$(cat "$T/err")" 'differs from the archived one' "differs: said so"
G --from-archive "$T/e4" --pubkey "$T/ak.pub" >/dev/null 2>&1; is "$?" 1 "and with the archive key it is refused outright"

# a failing decision archives too, and re-decides as failing
mv "$T/ev.gone" "$T/ev" && mv "$T/bk.pub.gone" "$T/bk.pub"
now=$(G --plan "$T/arch/plan.yaml" "$T/arch/bundles" 2>/dev/null | tail -1)
like "$now" '^RESULT: FAIL -- .* [1-9][0-9]* expired' "control: decided now instead of at the recorded time, the evidence has expired"
rm -r "$T/ev/g2"
G --plan "$T/plans/plan.yaml" --at $AT --archive "$T/arch2" "$T/ev" >/dev/null; is "$?" 1 "a failing decision with --archive: exit 1"
ok test -f "$T/arch2/MANIFEST"
G --from-archive "$T/arch2" >/dev/null 2>"$T/err"; rc=$?
is "$rc" 1 "re-made: still failing (exit 1)"
like "$(cat "$T/err")" 'equals the archived one \(fail\)' "the failing decision is reproduced"
ok test ! -e "$T/arch2/MANIFEST.sig"

# a bundle with a symbolic link in it (never followed): untrusted, archived as what it was, re-decided the same
cp -r "$T/ev/r0" "$T/ev/r0-link" && ln -s /etc/hostname "$T/ev/r0-link/extra"
out=$(G --plan "$T/plans/plan.yaml" --at $AT --archive "$T/arch3" "$T/ev" 2>&1); rc=$?
is "$rc" 1 "a bundle holding a symlink: exit 1"
like "$out" 'PROBLEM: untrusted: .*r0-link' "the bundle with the link is untrusted"
like "$(cat "$T/arch3/bundles/"*/extra)" 'was a symbolic link to ./etc/hostname.' "archived as a note of what it was, not what it points to"
G --from-archive "$T/arch3" >/dev/null 2>"$T/err"; rc=$?
is "$rc" 1 "re-made from that archive: exit 1"
like "$(cat "$T/err")" 'equals the archived one \(fail\)' "and reproduced"

# never over an existing archive; nothing half-written is left
before=$(cd "$T/arch" && find . -type f -exec sha256sum {} + | sort)
err=$(G --plan "$T/plans/plan.yaml" --at $AT --archive "$T/arch" "$T/ev" 2>&1 >/dev/null); rc=$?
is "$rc" 2 "--archive over an existing directory: exit 2"
like "$err" 'exists' "existing archive: named"
is "$(cd "$T/arch" && find . -type f -exec sha256sum {} + | sort)" "$before" "the existing archive is untouched"
G --plan "$T/plans/plan.yaml" --at $AT --archive "$T/nodir/arch" "$T/ev" >/dev/null 2>&1; is "$?" 2 "--archive in a missing directory: exit 2"
is "$(ls -a "$T" | grep -c partial)" 0 "no partial archive left behind"
G --from-archive "$T/nonexistent" >/dev/null 2>&1; is "$?" 2 "--from-archive of nothing: exit 2"
G --from-archive "$T/arch" --plan "$T/plans/plan.yaml" >/dev/null 2>&1; is "$?" 2 "--from-archive with --plan: exit 2"
done_testing
