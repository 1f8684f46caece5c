#!/usr/bin/env bash
# F06 as a bounded connection loss (src/soak/fault_netloss.c) and the
# workload workloads/net-01-loss.yaml: a fault proxy the run owns in front of
# its tinyproxy, stalled for a window by the runner, then restored.
# - R0 on the real tinyproxy: verified; the record names the cut (closed
#   after N ms, cut for the window, reopened after M ms); a request during
#   the window failed (expect: fail), later work recovered; nothing left.
# - ground truth during the window, by this test's own python3 client: a
#   request through the path gets no answer while the run holds the cut, and
#   once the run is killed in the window nothing of it remains (the port
#   refuses, the state dir goes with --reconcile): the cut cannot outlive it.
# - negative controls rejected by `verify`: a fault proxy that does not take
#   the cut (the runner writes a mode file it does not read; the path stays
#   open), a recovery that never brings the path back although the
#   workload's own steps pass.
# - failure paths: the path not answering before the cut (nothing cut), a
#   mode file outside the state dir (usage error, exit 2, nothing created).
# Network: loopback only.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need jq
need curl
need python3
need tinyproxy
need_root
[ -x /bin/busybox ] || skip_all "/bin/busybox (busybox-static) missing"
tmp=$(sp_tmpdir)
at_exit "rm -rf '$tmp'"

# ground truth independent of the runner
accepts() { python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()' "$1" 2>/dev/null; }
# a request through the path gets an answer within 1 s (exit 0), or not
answers() { python3 -c 'import socket,sys
s=socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1)
s.sendall(b"GET http://127.0.0.1/ HTTP/1.0\r\n\r\n")
sys.exit(0 if s.recv(1) else 1)' "$1" 2>/dev/null; }

variant() { # NAME SED-EXPR...: a copy with its own prefix, edited
	local name=$1
	shift
	workload_copy "$SP_ROOT/workloads/net-01-loss.yaml" "$tmp/$name.yaml" "$tmp"
	sed -i "s/^prefix: spnetl/prefix: spnl$name/" "$tmp/$name.yaml"
	local e
	for e in "$@"; do sed -i "$e" "$tmp/$name.yaml"; done
}
run_variant() { # NAME: sets out, rc
	out=$tmp/$1.out
	"$SP_BIN" soak --workload "$tmp/$1.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1
	rc=$?
}

# ---- the shipped workload, R0
variant r0
run_variant r0
check_bundle "$out"
check_exit_is_verifiers "$out" "$rc"
is "$rc" "0" "net-01-loss: the verifier accepts the R0 bundle"
is "$(jq -r '.unexpected_failures' "$out/summary.json") $(jq -r .cleanup "$out/summary.json")" "0 ok" "no unexpected failure, cleanup ok"
is "$(awk -F'\t' 'NR>1{print $1" "$8}' "$out/faults.tsv")" "F06 pass" "F06 cut and recovered"
like "$(awk -F'\t' 'NR>1{print $2}' "$out/faults.tsv")" \
	'^path:127\.0\.0\.1:[0-9]+\(.*/fp\.mode\) cut:stall-closed-after:[0-9]+ms cut-for:(29|30|31)[0-9][0-9]ms path-reopened-after:[0-9]+ms$' \
	"the record: the path cut, for the 3 s window, then reopened"
is "$(awk -F'\t' '$4 == "F06"{print $6" "$8}' "$out/operations.tsv")" "expected_fault stall/path-cut" "the fault operation says the path was cut"
is "$(awk -F'\t' '$4 == "loss-visible" || $4 == "egress-recovers" {print $4" "$6}' "$out/operations.tsv" | paste -sd,)" \
	"loss-visible ok,egress-recovers ok" "a request failed during the window (expect: fail), later work recovered"
ok awk -F'\t' 'NR>1{exit !($6 + 0 >= 3000 && $6 + 0 <= $7 + 0)}' "$out/faults.tsv"
check_nothing_left "$out"

# ---- the run killed in the window (the recovery sleeps): the test sees the
# cut itself, then nothing of it once the run is gone
variant killed 's#^    recover:$#    recover:\n      - {op: slow, argv: [sleep, "30"]}#' 's/window_ms: 3000/window_ms: 60000/' 's/rto_ms: 8000/rto_ms: 120000/'
ok grep -q 'op: slow' "$tmp/killed.yaml"
out=$tmp/killed.out
"$SP_BIN" soak --workload "$tmp/killed.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1 &
pid=$!
for i in $(seq 300); do grep -q '	F06	' "$out/operations.tsv" 2>/dev/null && break; sleep 0.1; done
ok grep -q '	F06	[0-9.]*	expected_fault	[0-9]*	stall/path-cut$' "$out/operations.tsv"
prefix=$(meta "$out" prefix)
state=$(meta "$out" state_root)
at_exit "kill_all_of_run '$prefix' '$state'"
fp=$(cat "$state/fp.port")
is "$(cat "$state/fp.mode")" "stall" "killed: the fault proxy's mode file holds the cut"
TAP_NAME="killed: the path accepts a connection during the window" ok accepts "$fp"
TAP_NAME="killed: but a request through it gets no answer (python3)" ok bash -c "$(declare -f answers); ! answers $fp"
kill -KILL "$(runner_of "$pid")"
wait "$pid" 2>/dev/null
is "$(wait_nothing_alive "$prefix" "$state" "$out" 5)" "$NOTHING_ALIVE" "killed: nothing of the run alive"
TAP_NAME="killed: the cut path is gone with the run (port $fp refuses)" ok bash -c "$(declare -f accepts); ! accepts $fp"
"$SP_BIN" soak --reconcile "$tmp" >/dev/null 2>&1
ok test ! -e "$state"
check_nothing_left "$out"

# ---- negative: the fault proxy does not take the cut (the runner writes a
# mode file the proxy does not read): the path stays open
variant deaf 's#      modefile: "{state}/fp.mode"#      modefile: "{state}/other.mode"#' 's/rto_ms: 8000/rto_ms: 3000/'
ok grep -q 'other.mode' "$tmp/deaf.yaml"
run_variant deaf
isnt "$rc" "0" "cut not taken: verify rejects the bundle"
is "$(awk -F'\t' '$4 == "F06"{print $8}' "$out/operations.tsv")" "stall/path-still-open" "cut not taken: the operation says the path stayed open"
is "$(awk -F'\t' 'NR>1{print $8}' "$out/faults.tsv")" "fail" "cut not taken: the record fails"
is "$(awk -F'\t' '$4 == "loss-visible"{print $6" "$8}' "$out/operations.tsv")" "fail unexpected-success" "cut not taken: the client saw no loss"
check_nothing_left "$out"

# ---- negative: the recovery never brings the path back, although the
# workload's own recover steps pass (they stop the proxy behind the path)
variant noback 's#^      - op: egress-recovers$#      - {op: break-proxy, argv: [sh, "{state}/stop.sh", "{state}/proxy.pid"]}\n      - op: egress-recovers-unused#' \
	'/^      - op: egress-recovers-unused$/,/^        argv:/d' 's/rto_ms: 8000/rto_ms: 3000/' \
	's#      - {op: proxy-stop, argv: \[sh, "{state}/stop.sh", "{state}/proxy.pid"\]}#      - {op: proxy-stop, argv: [sh, -c, "sh {state}/stop.sh {state}/proxy.pid; true"]}#'
ok grep -q 'op: break-proxy' "$tmp/noback.yaml"
run_variant noback
isnt "$rc" "0" "path never back: verify rejects the bundle"
is "$(awk -F'\t' '$4 == "break-proxy"{print $6}' "$out/operations.tsv")" "ok" "path never back: the workload's recover steps passed"
like "$(awk -F'\t' 'NR>1{print $2" "$8}' "$out/faults.tsv")" 'path-not-reopened-after:[0-9]+ms fail$' "path never back: the runner's probe fails the record"
is "$(awk '$2 == "faults.recovered"{print $1}' "$out/verify.out")" "FAIL" "path never back: the faults.recovered gate fails"
check_nothing_left "$out"

# ---- failure path: the path does not answer before the cut: nothing is cut
variant deadpath 's#      portfile: "{state}/fp.port"#      portfile: "{state}/dead.port"#' 's/rto_ms: 8000/rto_ms: 1000/' \
	's#^  - op: config$#  - {op: dead-port, argv: [python3, -c, "import socket,sys\\ns=socket.socket()\\ns.bind((\x27127.0.0.1\x27, 0))\\nopen(sys.argv[1], \x27w\x27).write(str(s.getsockname()[1]))", "{state}/dead.port"]}\n  - op: config#'
ok grep -q 'op: dead-port' "$tmp/deadpath.yaml"
run_variant deadpath
is "$(awk -F'\t' '$4 == "F06"{print $6" "$8}' "$out/operations.tsv")" "fail path-not-answering" "dead path: not cut, the operation says why"
is "$(awk -F'\t' 'NR>1{print $8}' "$out/faults.tsv")" "fail" "dead path: the record fails"
isnt "$rc" "0" "dead path: verify rejects the bundle"
check_nothing_left "$out"

# ---- usage: a mode file outside the state dir is refused before anything starts
variant outside 's#      modefile: "{state}/fp.mode"#      modefile: "/tmp/fp.mode"#'
before=$(ls "$tmp" | wc -l)
err=$("$SP_BIN" soak --workload "$tmp/outside.yaml" --profile R0 --out "$tmp/outside.out" 2>&1 >/dev/null)
is "$?" "2" "modefile outside {state}: usage error"
like "$err" "outside.yaml:[0-9]+: 'modefile' must be a file under \{state\}/" "modefile outside {state}: names file, line and field"
is "$(ls "$tmp" | wc -l)" "$before" "modefile outside {state}: nothing created"
done_testing
