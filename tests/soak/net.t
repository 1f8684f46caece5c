#!/usr/bin/env bash
# F06 (the egress proxy terminated) and the NET-01 workload.
# - workloads/net-01.yaml rehearses (R0) on a real tinyproxy the run starts on
#   loopback: complete bundle, the verifier accepts it, F06 recovered with
#   its port proven closed then reopened, a request through the dead proxy
#   failed, and nothing of the run is left (process, port, mount, dir).
# - negative controls, each rejected by `verify`: a proxy that ignores the
#   termination (its port stays open), and a workload whose recovery never
#   brings the proxy back although its own checks say so.
# - the injector's failure paths: target gone, port not listening (the
#   target is then not signalled), and the run killed in the middle of the
#   fault (nothing left, the port closed).
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
at_exit "rm -rf '$tmp'" # sp_tmpdir ran in a subshell: register the cleanup here

# ground truth independent of the runner: does 127.0.0.1:PORT accept?
accepts() { python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()' "$1" 2>/dev/null; }
refuses() { ! accepts "$1"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
verdict() { awk '$2 == "'"$2"'"{print $1}' "$1/verify.out"; }

# ---- the shipped workload, R0
out=$tmp/net
workload_copy "$SP_ROOT/workloads/net-01.yaml" "$tmp/net.yaml" "$tmp"
"$SP_BIN" soak --workload "$tmp/net.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1
rc=$?
check_bundle "$out"
check_exit_is_verifiers "$out" "$rc"
is "$rc" "0" "net-01: the verifier accepts the R0 bundle"
is "$(jq -r '.unexpected_failures' "$out/summary.json") $(jq -r .cleanup "$out/summary.json")" "0 ok" "net-01: no unexpected failure, cleanup ok"
is "$(awk -F'\t' 'NR>1{print $1" "$8}' "$out/faults.tsv")" "F06 pass" "net-01: F06 injected and recovered"
like "$(awk -F'\t' 'NR>1{print $2}' "$out/faults.tsv")" '^pid:[0-9]+\(.*/proxy\.pid\) port:[0-9]+-closed-after:[0-9]+ms port:[0-9]+-reopened$' \
	"net-01: the record names the proxy, its port closed, then reopened"
ok awk -F'\t' 'NR>1{exit !($6 + 0 <= $7 + 0 && $6 + 0 > 0)}' "$out/faults.tsv"
is "$(awk -F'\t' '$4 == "F06"{print $6" "$8}' "$out/operations.tsv")" "expected_fault TERM/port-closed" "net-01: the fault operation says the port closed"
is "$(awk -F'\t' '$4 == "egress-fails"{print $6}' "$out/operations.tsv")" "ok" "net-01: a request through the terminated proxy failed (expect: fail)"
is "$(awk -F'\t' '$4 == "egress-again" || $4 == "proxy-restart"{print $4" "$6}' "$out/operations.tsv" | sort | paste -sd,)" \
	"egress-again ok,proxy-restart ok" "net-01: restarted, egress works again"
is "$(awk -F'\t' 'NR>1{print $6}' "$out/capability-results.tsv" | sort -u)" "pass" "net-01: every scenario passes"
for op in egress-get filtered-refused connection-pressure publish-reuse; do
	ok grep -q "	$op	[0-9.]*	ok	" "$out/operations.tsv"
done
is "$(awk -F'\t' 'NR>1 && $3=="final"{print $10}' "$out/resource-samples.tsv")" "0" "net-01: no owned socket in the final sample"
is "$(jq -c . "$out/inventory-start.json") $(jq -c .resources "$out/inventory-final.json")" '{"schema":"sandprobe.inventory.v1","resources":[]} []' \
	"net-01: no listener or process of the run in the start and final inventories"
port=$(awk -F'\t' 'NR>1{print $2}' "$out/faults.tsv" | sed 's/.* port:\([0-9]*\)-reopened/\1/')
TAP_NAME="net-01: the proxy's port $port refuses after the run" ok refuses "$port"
is "$(pgrep -f "[t]inyproxy -d -c $tmp/" | wc -l)" "0" "net-01: no tinyproxy of the run left"
check_nothing_left "$out"

# negative: the proxy is not stopped at the drain: the final inventory names
# its listener and process, cleanup.inventory fails (the runner still kills it)
workload_copy "$SP_ROOT/workloads/net-01.yaml" "$tmp/netleak.yaml" "$tmp"
sed -i -e 's/^prefix: spnet/prefix: spnleak/' -e 's#      - {op: proxy-stop, argv: .*#      - {op: proxy-stop, argv: ["true"]}#' "$tmp/netleak.yaml"
out=$tmp/netleak
"$SP_BIN" soak --workload "$tmp/netleak.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1
rc=$?
isnt "$rc" "0" "proxy left running: verify rejects the bundle"
is "$(verdict "$out" cleanup.inventory)" "FAIL" "proxy left running: the cleanup.inventory gate fails"
is "$(jq -r '[.resources[] | .type + ":" + (.id | sub("^[0-9]+:"; "") | sub(":127.0.0.1:[0-9]+$"; ""))] | sort | join(",")' "$out/inventory-final.json")" \
	"listener:proxy,process:tinyproxy" "proxy left running: the final inventory names its listener and process"
is "$(jq -r '.resources | length' "$out/inventory-start.json")" "0" "proxy left running: the start inventory was empty"
check_nothing_left "$out"
is "$(pgrep -f "[t]inyproxy -d -c $tmp/" | wc -l)" "0" "proxy left running: the runner killed it at the end"

# ---- custom workloads around a small python "proxy" on a port chosen here.
# proxy_workload NAME PORT FAULT-EXTRA RECOVER-STEPS [PROXY-PRE]
# PROXY-PRE is python run before listening (e.g. ignore SIGTERM).
proxy_workload() {
	local name=$1 port=$2 extra=$3 recover=$4 pre=${5:-pass}
	cat > "$tmp/$name.yaml" <<EOW
version: 1
name: $name
runtime: {name: sh, version: [sh, -c, "echo sh"]}
state_root: $tmp
prefix: sp$name
timeout_ms: 20000
setup:
  - {op: port, argv: [sh, -c, "echo $port > {state}/p.port"]}
  - op: script
    argv: [sh, -c, "printf '%s\\\\n' 'import signal,socket,sys,time' '$pre' 's=socket.socket()' 's.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)' 's.bind((\"127.0.0.1\", $port))' 's.listen(16)' 'while True: s.accept()[0].close()' > {state}/proxy.py"]
scenarios:
  - id: NET-09
    class: fault
    start:
      - {op: proxy-start, argv: [sh, -c, "(python3 {state}/proxy.py & echo \$! > {state}/p.pid; wait) >/dev/null 2>&1 & for i in \$(seq 100); do test -s {state}/p.pid && python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", $port), timeout=1)' 2>/dev/null && exit 0; sleep 0.05; done; exit 1"]}
    steps:
      - {op: check, argv: [sh, -c, "kill -0 \$(cat {state}/p.pid)"]}
    recover:
$recover
    stop:
      - {op: proxy-stop, argv: [sh, -c, "kill -KILL \$(cat {state}/p.pid) 2>/dev/null; true"]}
    fault: {id: F06, step: check, pidfile: "{state}/p.pid", portfile: "{state}/p.port", rto_ms: 8000$extra}
EOW
}
restart='      - {op: restart, argv: [sh, -c, "for i in $(seq 50); do kill -0 $(cat {state}/p.pid) 2>/dev/null || break; sleep 0.1; done; (python3 {state}/proxy.py & echo $! > {state}/p.pid; wait) >/dev/null 2>&1 & for i in $(seq 100); do python3 -c \"import socket; socket.create_connection((\\\"127.0.0.1\\\", $(cat {state}/p.port)), timeout=1)\" 2>/dev/null && exit 0; sleep 0.05; done; exit 1"]}'
run_custom() { # NAME: runs it R0; sets out, rc
	out=$tmp/$1.out
	"$SP_BIN" soak --workload "$tmp/$1.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1
	rc=$?
}

# positive twin of the negative controls: the same harness passes when the proxy behaves
p=$(free_port)
proxy_workload good "$p" "" "$restart"
run_custom good
is "$rc $(awk -F'\t' 'NR>1{print $1" "$8}' "$out/faults.tsv")" "0 F06 pass" "control: a well-behaved proxy passes F06 and verify"
check_nothing_left "$out"
TAP_NAME="control: port $p closed after the run" ok refuses "$p"

# negative 1: the proxy ignores SIGTERM, its port stays open
p=$(free_port)
proxy_workload deaf "$p" "" "$restart" 'signal.signal(signal.SIGTERM, signal.SIG_IGN)'
run_custom deaf
isnt "$rc" "0" "deaf proxy: verify rejects the bundle"
is "$(verdict "$out" faults.recovered)" "FAIL" "deaf proxy: the faults.recovered gate fails"
is "$(awk -F'\t' 'NR>1{print $1" "$8}' "$out/faults.tsv")" "F06 fail" "deaf proxy: the record fails"
like "$(awk -F'\t' 'NR>1{print $2}' "$out/faults.tsv")" "port:$p-still-open" "deaf proxy: the record says the port stayed open"
is "$(awk -F'\t' '$4 == "F06"{print $8}' "$out/operations.tsv")" "TERM/port-still-open" "deaf proxy: so does the operation"
check_nothing_left "$out"
TAP_NAME="deaf proxy: port $p closed after the run" ok refuses "$p"

# negative 2: the recovery never restarts the proxy, and its own check is lax
p=$(free_port)
proxy_workload lax "$p" "" '      - {op: lax-check, argv: ["true"]}'
run_custom lax
isnt "$rc" "0" "lax recovery: verify rejects the bundle"
is "$(verdict "$out" faults.recovered)" "FAIL" "lax recovery: the faults.recovered gate fails"
like "$(awk -F'\t' 'NR>1{print $2" "$8}' "$out/faults.tsv")" "port:$p-closed-after:[0-9]+ms port:$p-not-reopened fail\$" \
	"lax recovery: closed, never reopened: the record fails"
is "$(awk -F'\t' '$4 == "lax-check"{print $6}' "$out/operations.tsv")" "ok" "lax recovery: although the workload's own check passed"
check_nothing_left "$out"

# failure path: the target is gone before the fault (the pid file names a dead process)
p=$(free_port)
proxy_workload gone "$p" "" "$restart"
sed -i 's#      - {op: check, argv: .*#      - {op: check, argv: [sh, -c, "sh -c true \& echo $! > {state}/p.pid; wait"]}#' "$tmp/gone.yaml"
run_custom gone
isnt "$rc" "0" "target gone: verify rejects the bundle"
is "$(awk -F'\t' '$4 == "F06"{print $6" "$8}' "$out/operations.tsv")" "fail target-gone" "target gone: the fault operation fails naming why"
is "$(awk -F'\t' 'NR>1{print $1" "$8}' "$out/faults.tsv")" "F06 fail" "target gone: the record fails"
check_nothing_left "$out"

# failure path: the port file names a port nobody listens on: nothing is signalled
p=$(free_port)
q=$(free_port)
proxy_workload noport "$p" "" '      - {op: still-alive, argv: [sh, -c, "kill -0 $(cat {state}/p.pid)"]}'
sed -i "s#echo $p > {state}/p.port#echo $q > {state}/p.port#" "$tmp/noport.yaml"
[ "$p" != "$q" ] || q=0
run_custom noport
isnt "$rc" "0" "port not listening: verify rejects the bundle"
is "$(awk -F'\t' '$4 == "F06"{print $6" "$8}' "$out/operations.tsv")" "fail port-not-listening" "port not listening: not injected, the operation says why"
is "$(awk -F'\t' '$4 == "still-alive"{print $6}' "$out/operations.tsv")" "ok" "port not listening: the proxy was not signalled"
is "$(awk -F'\t' 'NR>1{print $1" "$8}' "$out/faults.tsv")" "F06 fail" "port not listening: the record fails"
check_nothing_left "$out"

# failure path: the run killed in the middle of the fault (the recovery sleeps)
p=$(free_port)
proxy_workload killed "$p" "" '      - {op: slow-recover, argv: [sleep, "30"]}'
out=$tmp/killed.out
"$SP_BIN" soak --workload "$tmp/killed.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1 &
pid=$!
for i in $(seq 100); do grep -q '	F06	' "$out/operations.tsv" 2>/dev/null && break; sleep 0.1; done
ok grep -q '	F06	[0-9.]*	expected_fault	' "$out/operations.tsv"
prefix=$(meta "$out" prefix)
state=$(meta "$out" state_root)
at_exit "kill_all_of_run '$prefix' '$state'"
TAP_NAME="killed mid-fault: the proxy's port is closed during the fault" ok refuses "$p"
kill -KILL "$(runner_of "$pid")"
wait "$pid" 2>/dev/null
is "$(wait_nothing_alive "$prefix" "$state" "$out" 5)" "$NOTHING_ALIVE" "killed mid-fault: nothing of the run alive"
ok test ! -e "$out/summary.json"
TAP_NAME="killed mid-fault: port $p closed" ok refuses "$p"
is "$(grep -c " $state" /proc/self/mountinfo)" "0" "killed mid-fault: no mount under the state dir"
"$SP_BIN" soak --reconcile "$tmp" >/dev/null 2>&1
ok test ! -e "$state"
done_testing
