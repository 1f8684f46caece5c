#!/usr/bin/env bash
# Bad input: a one-line error naming file:line (or the option), exit 2, and
# nothing started (no bundle directory, no state directory, no process).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
tmp=$(sp_tmpdir)
at_exit "rm -rf '$tmp'" # sp_tmpdir ran in a subshell: register the cleanup here
good() {
	cat <<EOW
version: 1
name: usage
runtime: {name: sh, version: [sh, -c, "echo sh"]}
state_root: $tmp
prefix: spuse
scenarios:
  - id: RUN-01
    class: lifecycle
    steps:
      - {op: one, argv: [touch, "{state}/started-{gen}"]}
EOW
}
good > "$tmp/good.yaml"

# bad_case NAME WANT-REGEX SED-EXPR|FILE-CONTENT...
bad_run() { # NAME REGEX ARGS...
	local name=$1 re=$2
	shift 2
	rm -rf "$tmp/out"
	local err
	err=$("$SP_BIN" soak "$@" 2>&1 >/dev/null)
	local rc=$?
	is "$rc" "2" "$name: exit 2"
	like "$err" "$re" "$name: message"
	is "$(printf '%s\n' "$err" | wc -l | tr -d ' ')" "1" "$name: one line"
	ok test ! -e "$tmp/out"
	is "$(ls -d "$tmp"/spuse-* 2>/dev/null | wc -l)" "0" "$name: no state directory created"
}
bad_file() { # NAME REGEX SED-EXPR
	sed "$3" "$tmp/good.yaml" > "$tmp/bad.yaml"
	bad_run "$1" "$2" --workload "$tmp/bad.yaml" --profile R0 --out "$tmp/out"
}

bad_file "unknown key" "bad.yaml:3: unknown key 'runtme' in the workload" 's/^runtime:/runtme:/'
bad_file "unknown scenario key" "bad.yaml:9: unknown key 'stepz' in a scenario" 's/^    steps:/    stepz:/'
bad_file "bad class" "bad.yaml:8: 'class' must be lifecycle, service, storage, network or fault" 's/class: lifecycle/class: chaos/'
bad_file "bad concurrency" "bad.yaml:6: 'concurrency' must be an integer from 1 to 256" 's/^prefix: spuse/prefix: spuse\nconcurrency: 0/'
bad_file "unknown placeholder" "bad.yaml:10: unknown placeholder '\{stat\}'" 's/{state}/{stat}/'
bad_file "scenario placeholder outside" "bad.yaml:5: placeholder '\{id\}' is only available in scenario steps" 's#^state_root: .*#&\nsetup: [[touch, "{id}"]]#'
bad_file "mix sum" "bad.yaml:6: 'mix' percentages must add up to 100" 's/^prefix: spuse/prefix: spuse\nmix: {lifecycle: 50, fault: 10}/'
bad_file "bad prefix" "bad.yaml:5: 'prefix' must be 2 to 16 characters" 's/^prefix: spuse/prefix: Bad_Prefix/'
bad_file "relative state_root" "bad.yaml:4: 'state_root' must be an absolute path" 's#^state_root: .*#state_root: tmp#'
bad_file "missing version" "bad.yaml:1: missing 'version: 1'" '/^version/d'
bad_file "duplicate key" "bad.yaml:6: duplicate key 'name'" 's/^prefix: spuse/prefix: spuse\nname: again/'
bad_file "yaml syntax" "bad.yaml:[0-9]+: " 's/^    steps:/    steps: [/'
bad_file "fault without pidfile" "bad.yaml:[0-9]+: F02 needs 'pidfile'" 's/class: lifecycle/class: fault\n    fault: {id: F02, step: one}/'
bad_file "fault on unknown step" "bad.yaml:[0-9]+: fault step 'two' is not a step" 's/class: lifecycle/class: fault\n    fault: {id: F01, step: two}/'
bad_file "bad fault id" "bad.yaml:[0-9]+: fault id must be F01, F02, F03, F04, F05, F06, F07, F08 or F09" 's/class: lifecycle/class: fault\n    fault: {id: F10, step: one}/'
bad_file "F06 without portfile" "bad.yaml:[0-9]+: F06 needs 'portfile'" 's/class: lifecycle/class: fault\n    fault: {id: F06, step: one, pidfile: "{state}\/p.pid"}/'
bad_file "F04 without tasks" "bad.yaml:[0-9]+: F04 needs 'tasks'" 's/class: lifecycle/class: fault\n    fault: {id: F04, step: one, pidfile: "{state}\/p.pid"}/'
bad_file "tasks on F03" "bad.yaml:[0-9]+: 'tasks' is for F04 and F09 only" 's/class: lifecycle/class: fault\n    fault: {id: F03, step: one, pidfile: "{state}\/p.pid", tasks: [ls]}/'
bad_file "portfile on F02" "bad.yaml:[0-9]+: 'portfile' is for F05 and F06 only" 's/class: lifecycle/class: fault\n    fault: {id: F02, step: one, pidfile: "{state}\/p.pid", portfile: "{state}\/p.port"}/'
bad_file "F08 without qmp" "bad.yaml:[0-9]+: F08 needs 'qmp' .* and 'state'" 's/class: lifecycle/class: fault\n    fault: {id: F08, step: one, pidfile: "{state}\/vm.pid", state: [cat, "{state}\/s"]}/'
bad_file "F08 without pidfile" "bad.yaml:[0-9]+: F08 needs 'pidfile'" 's/class: lifecycle/class: fault\n    fault: {id: F08, step: one, qmp: "{state}\/q.sock", state: [cat, "{state}\/s"]}/'
bad_file "qmp on F02" "bad.yaml:[0-9]+: 'qmp' is for F08 only" 's/class: lifecycle/class: fault\n    fault: {id: F02, step: one, pidfile: "{state}\/p.pid", qmp: "{state}\/q.sock"}/'
bad_file "qmp with unknown placeholder" "bad.yaml:[0-9]+: .*nope" 's/class: lifecycle/class: fault\n    fault: {id: F08, step: one, pidfile: "{state}\/vm.pid", qmp: "{nope}\/q.sock", state: [cat]}/'
bad_file "portfile with unknown placeholder" "bad.yaml:[0-9]+: .*nope" 's/class: lifecycle/class: fault\n    fault: {id: F06, step: one, pidfile: "{state}\/p.pid", portfile: "{nope}\/p.port"}/'
bad_file "alias" "bad.yaml:[0-9]+: (anchors|aliases) are not allowed" 's/^name: usage/name: \&a usage/'
bad_file "missing state_root dir" "state_root $tmp/nope is not an existing directory" "s#^state_root: .*#state_root: $tmp/nope#"
bad_file "tiny rate" "bad.yaml:6: 'rate' must be 0 \(unbounded\) or from 0.0001" 's/^prefix: spuse/prefix: spuse\nrate: 0.00001/'
bad_file "newline in a value" "bad.yaml:[0-9]+: .* \(got 'life\?cycle'\)" 's/class: lifecycle/class: "life\\ncycle"/'


bad_run "unknown profile" "--profile X1: must be R0, G2, R24 or E72" --workload "$tmp/good.yaml" --profile X1 --out "$tmp/out"
bad_run "missing workload" "cannot read workload" --workload "$tmp/none.yaml" --profile R0 --out "$tmp/out"
bad_run "interval above the profile's" "--sample-interval 301: profile G2 needs a sample at least every 300 s" --workload "$tmp/good.yaml" --profile G2 --sample-interval 301 --out "$tmp/out"
bad_run "bad duration" "--duration must be an integer" --workload "$tmp/good.yaml" --profile G2 --duration 1x --out "$tmp/out"
bad_run "unknown option" "unknown option|needs a value or is unknown" --workload "$tmp/good.yaml" --profile R0 --out "$tmp/out" --frobnicate
bad_run "required options" "--workload, --profile and --out are required" --profile R0
printf 'not a key\n' > "$tmp/bad.key"
bad_run "bad sign key" "--sign-key .*: not a PEM private key" --workload "$tmp/good.yaml" --profile R0 --out "$tmp/out" --sign-key "$tmp/bad.key"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$tmp/ec.key" 2>/dev/null
bad_run "non-Ed25519 key" "not an Ed25519 key" --workload "$tmp/good.yaml" --profile R0 --out "$tmp/out" --sign-key "$tmp/ec.key"
mkdir -p "$tmp/full" && touch "$tmp/full/x"
err=$("$SP_BIN" soak --workload "$tmp/good.yaml" --profile R0 --out "$tmp/full" 2>&1 >/dev/null)
is "$?" "2" "non-empty --out: exit 2"
like "$err" "exists and is not an empty directory" "non-empty --out: message"
is "$(ls -d "$tmp"/spuse-* 2>/dev/null | wc -l)" "0" "non-empty --out: no state directory"
"$SP_BIN" keygen >/dev/null 2>&1
is "$?" "2" "keygen without --out: exit 2"
"$SP_BIN" soak --help | grep -q -- '--workload FILE'
is "$?" "0" "soak --help"
# children run with the runner's original RLIMIT_NOFILE (the sampler's raised one is not inherited)
sed 's#\[touch, "{state}/started-{gen}"\]#[sh, -c, "echo nofile=$(ulimit -n)"]#' "$tmp/good.yaml" > "$tmp/nofile.yaml"
"$SP_BIN" soak --workload "$tmp/nofile.yaml" --profile R0 --out "$tmp/nofile" --quiet >/dev/null 2>&1
like "$(cat "$tmp/nofile/logs/RUN-01.one.log")" "^nofile=$(ulimit -n)\$" "operations see the original open-files limit ($(ulimit -n))"
# --reconcile: bad input is exit 2
err=$("$SP_BIN" soak --reconcile relative/dir 2>&1 >/dev/null)
is "$?" "2" "--reconcile with a relative path: exit 2"
like "$err" "needs the absolute state_root" "--reconcile with a relative path: message"
"$SP_BIN" soak --reconcile "$tmp/none" >/dev/null 2>&1
is "$?" "2" "--reconcile of a missing directory: exit 2"
"$SP_BIN" soak --reconcile "$tmp" --workload "$tmp/good.yaml" >/dev/null 2>&1
is "$?" "2" "--reconcile with other options: exit 2"
# a state directory of the workload's prefix without a journal: named, the run refuses
mkdir "$tmp/spuse-0123abcd"
err=$("$SP_BIN" soak --workload "$tmp/good.yaml" --profile R0 --out "$tmp/out" 2>&1 >/dev/null)
is "$?" "2" "a leftover state dir without a journal: exit 2"
like "$err" "state dir $tmp/spuse-0123abcd without a journal" "... named"
ok test ! -e "$tmp/out"
rmdir "$tmp/spuse-0123abcd"
# an internal failure is exit 3, never 2
sed 's#^scenarios:#setup: [["false"]]\nscenarios:#' "$tmp/good.yaml" > "$tmp/setup.yaml"
err=$("$SP_BIN" soak --workload "$tmp/setup.yaml" --profile R0 --out "$tmp/setup" 2>&1 >/dev/null)
is "$?" "3" "a failing setup step: exit 3"
like "$err" "workload setup failed \(see $tmp/setup/logs/\)" "a failing setup step: message"
is "$(ls "$tmp" | grep -c '^spuse-')" "0" "a failing setup step: state dir and journal removed"
# the good workload does run (control for the cases above)
"$SP_BIN" soak --workload "$tmp/good.yaml" --profile R0 --out "$tmp/ok" --quiet >/dev/null 2>&1
ok test -f "$tmp/ok/summary.json"
is "$(awk -F'\t' 'NR>1{print $6}' "$tmp/ok/operations.tsv")" "ok" "control workload ran its one operation"
done_testing
