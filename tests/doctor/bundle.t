#!/usr/bin/env bash
# doctor --bundle DIR: one tar in DIR with the report in every format, each
# failing, erroring (a timeout too) or warning check's evidence, a timeout's
# snapshot (probe state, its process group, load, memory, busiest
# processes), mountinfo, cmdline and the kernel log (or why not), and a
# MANIFEST of SHA-256s. Ground truth: GNU tar reads it, sha256sum -c
# verifies it (and rejects an edited file), the files match what the test
# reads itself; bad DIRs are usage errors before anything runs.
. "$(dirname "$0")/../lib/tap.sh"
need jq
need tar
need sha256sum
T=$(sp_tmpdir)
D="$SP_DOCTOR"
mkdir "$T/out"
# a failing check (a required process that is not running), an erroring one
# (a CA file that is not there), a timed-out one (a probe that sleeps past the
# forced per-check timeout) and passing ones
"$D" --profile host --format json --bundle "$T/out" -k 'proc.required or tls.ca_store or tools.probes or env.hostname' \
	--set expect.proc.required=required --set proc.required=sp-not-running-$$ --set "tls.ca=$T/no-such-ca.pem" \
	--set "tools.probes=sleep 30 => never" --timeout-ms 800 >"$T/stdout.json" 2>"$T/stderr"
is "$?" 1 "the run fails (exit 1)"
tarfile=$(ls "$T/out"/*.tar 2>/dev/null)
is "$(ls "$T/out" | wc -l | tr -d ' ')" 1 "exactly one file in DIR"
like "$(cat "$T/stderr")" "evidence bundle $tarfile" "its path is said on stderr"
mkdir "$T/x"
ok tar -C "$T/x" -xf "$tarfile"
root=$(ls -d "$T/x"/*/)
ok test -s "$root/MANIFEST"
(cd "$root" && sha256sum --quiet -c MANIFEST) >"$T/check.out" 2>&1
is "$?" 0 "sha256sum -c MANIFEST verifies every file"
is "$(wc -l <"$root/MANIFEST" | tr -d ' ')" "$(cd "$root" && find . -type f ! -name MANIFEST | wc -l | tr -d ' ')" \
	"MANIFEST names every other file"
for f in report.txt report.json report.tap report.junit.xml system/mountinfo system/cmdline system/uname README; do
	ok test -s "$root/$f"
done
ok test -s "$root/system/kernel-log" -o -s "$root/system/kernel-log.unavailable"
is "$(jq -r .schema "$root/report.json")" sandprobe.doctor.v1 "report.json is the JSON report"
is "$(jq -r '[.results[].id] | sort | join(",")' "$root/report.json")" \
	"$(jq -r '[.results[].id] | sort | join(",")' "$T/stdout.json")" "and covers the checks the run did"
like "$(head -1 "$root/report.tap")" "^TAP version 13" "report.tap is TAP"
like "$(cat "$root/report.junit.xml")" "<testsuite" "report.junit.xml is JUnit"
like "$(cat "$root/system/cmdline")" "$(head -c 40 /proc/cmdline | sed 's/[][\.*^$]/./g')" "system/cmdline is the kernel's"
grep -q " / / " "$root/system/mountinfo" && r=0 || r=1
_tap_result $r "system/mountinfo is a mountinfo"
like "$(cat "$root/system/doctor-cmdline")" "--bundle $T/out" "the doctor's own command line is kept"

ok test -s "$root/checks/proc.required.txt"
like "$(cat "$root/checks/proc.required.txt")" "status: fail" "the failing check's evidence"
like "$(cat "$root/checks/proc.required.txt")" "sp-not-running-$$ MISSING" "with its observed text"
like "$(cat "$root/checks/tls.ca_store.txt")" "status: error" "the erroring check's evidence"
t="$root/checks/tools.probes.txt"
like "$(cat "$t")" "probe timed out after 800 ms" "the timed-out check's evidence"
like "$(cat "$t")" "timeout snapshot, taken" "with a snapshot taken before the kill"
like "$(cat "$t")" "comm sleep cmdline sleep 30" "naming what the probe was running"
like "$(cat "$t")" "load average \(/proc/loadavg\)" "the load"
like "$(cat "$t")" "MemAvailable" "memory"
like "$(cat "$t")" "busiest processes" "and the busiest processes"
ok test ! -e "$root/checks/env.hostname.txt"
unlike "$(cat "$root/README" "$root"/checks/*)" "HOME=|PATH=" "no environment is copied"
spid=$(sed -n 's/^  pid \([0-9]*\) .* comm sleep cmdline sleep 30$/\1/p' "$t")
like "$spid" '^[0-9]+$' "the snapshot names the sleeping probe's pid"
[ -n "$spid" ] && [ "$(cat "/proc/$spid/cmdline" 2>/dev/null | tr '\0' ' ')" = "sleep 30 " ] && r=1 || r=0
_tap_result $r "nothing the timed-out probe started is left running"

# an edited file is caught
printf 'edited\n' >>"$root/report.txt"
(cd "$root" && sha256sum --quiet -c MANIFEST) >/dev/null 2>&1
isnt "$?" 0 "an edited file fails sha256sum -c"

# bad DIRs: exit 2, nothing run, nothing written
for bad in "$T/none" "$T/stdout.json"; do
	out=$("$D" --profile host --bundle "$bad" -k env.hostname 2>&1)
	is "$?" 2 "--bundle $(basename "$bad"): exit 2"
	like "$out" "--bundle $bad: " "naming the directory"
done
ok test ! -e "$T/none"
done_testing
