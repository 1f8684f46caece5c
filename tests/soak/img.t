#!/usr/bin/env bash
# F05 (registry faults) as a runner fault, and the IMG-01 workload.
# - workloads/img-01.yaml rehearses (R0) against a real docker-registry the
#   run owns, behind the run's own fault proxy, with skopeo: complete bundle,
#   verified, push/pull/inspect/tag/save-load/remove/prune, the shared layer
#   stored once, F05 (truncate) in effect then undone, a pull during the
#   window failed, a bounded retry got the image, every blob checked against
#   its digest by the runner, and nothing of the run left (registry or proxy
#   process, port, storage dir).
# - small custom workloads (a curl client, a 256 KiB layer) for the rest:
#   a digest-checking client passes (the positive twin); negative controls
#   that verify rejects: a client that stores a truncated layer under its
#   digest, a proxy on which the fault has no effect; the injector's failure
#   paths: the proxy gone, a fault that cannot be undone (stop=error), a mode
#   file outside the run (invariant, nothing written), the run killed in the
#   middle of the window (nothing alive, ports closed, --reconcile removes
#   the rest).
# Ground truth outside the runner: ss, /proc, sha256sum, python3 connects.
# Network: loopback only.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need jq
need curl
need python3
need skopeo
need sha256sum
need docker-registry "docker-registry (Debian package docker-registry) not installed"
need_root
[ -x /bin/busybox ] || skip_all "/bin/busybox (busybox-static) missing"
tmp=$(sp_tmpdir)
at_exit "rm -rf '$tmp'" # sp_tmpdir ran in a subshell: register the cleanup here

accepts() { python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()' "$1" 2>/dev/null; }
refuses() { ! accepts "$1"; }
verdict() { awk '$2 == "'"$2"'"{print $1}' "$1/verify.out"; }
# no docker-registry or fault proxy of a run (by its state dir) left
none_of_registry() { # STATE
	is "$(pgrep -f "[d]ocker-registry serve $1/|[f]ault-proxy .*--mode-file $1/" | wc -l)" "0" "no registry or fault proxy of the run left"
}

# ---- the shipped workload, R0 (in the background while the custom runs go)
out=$tmp/img
workload_copy "$SP_ROOT/workloads/img-01.yaml" "$tmp/img.yaml" "$tmp"
"$SP_BIN" soak --workload "$tmp/img.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1 &
shipped=$!

# ---- custom workloads: a registry, the fault proxy, one layer pushed with curl
# reg_workload NAME MODE RECOVER-STEPS [REGISTRY-PORT]
reg_workload() {
	local name=$1 mode=$2 recover=$3 regport=${4:-}
	cat >"$tmp/$name.yaml" <<EOW
version: 1
name: $name
runtime: {name: docker-registry, version: [docker-registry, --version]}
state_root: $tmp
prefix: spr$name
concurrency: 1
timeout_ms: 20000
setup:
  - {op: ports, argv: [python3, -c, "import socket,sys\nss=[socket.socket() for i in range(2)]\nfor s in ss: s.bind(('127.0.0.1', 0))\nfor n, s in zip(['reg', 'proxy'], ss): open(sys.argv[1] + '/' + n + '.port', 'w').write(str(s.getsockname()[1]) if n == 'proxy' or not sys.argv[2] else sys.argv[2])", "{state}", "$regport"]}
  - op: config
    argv:
      - sh
      - -c
      - |
        set -e
        mkdir -p {state}/store {state}/clients/c/blobs/sha256
        printf 'version: 0.1\nlog: {level: warn}\nstorage:\n  filesystem: {rootdirectory: {state}/store}\nhttp: {addr: 127.0.0.1:%s}\n' \$(cat {state}/reg.port) > {state}/registry.yml
        echo pass > {state}/proxy.mode
        head -c 262144 /dev/urandom > {state}/layer
        sha256sum < {state}/layer | cut -d' ' -f1 > {state}/digest
        cat > {state}/start.sh <<'EOF'
        pidf=\$1 url=\$2
        shift 2
        ("\$@" >> \$pidf.log 2>&1 & echo \$! > \$pidf; wait) >/dev/null 2>&1 &
        for i in \$(seq 100); do test -s \$pidf && curl -sf -o /dev/null --max-time 2 \$url && exit 0; sleep 0.05; done
        exit 1
        EOF
        cat > {state}/stop.sh <<'EOF'
        p=\$(cat "\$1") || exit 0
        kill \$p 2>/dev/null
        for i in \$(seq 50); do kill -0 \$p 2>/dev/null || exit 0; sleep 0.1; done
        exit 1
        EOF
        # a client that checks the digest before it stores a blob
        cat > {state}/pull-checked.sh <<'EOF'
        d=\$(cat {state}/digest) b={state}/clients/c/blobs/sha256
        curl -sf --max-time 5 -o \$b/.tmp http://127.0.0.1:\$(cat {state}/proxy.port)/v2/sp/l/blobs/sha256:\$d || { rm -f \$b/.tmp; exit 1; }
        test "\$(sha256sum < \$b/.tmp | cut -d' ' -f1)" = \$d || { rm -f \$b/.tmp; exit 1; }
        mv \$b/.tmp \$b/\$d
        EOF
cleanup:
  - {op: leftovers, argv: [sh, -c, "for n in proxy reg; do test -s {state}/\$n.pid && kill \$(cat {state}/\$n.pid) 2>/dev/null; done; rm -rf {state}/store {state}/clients {state}/proxy.mode; true"]}
scenarios:
  - id: REG-01
    class: fault
    api: registry-v2
    start:
      - {op: registry-start, argv: [sh, -c, "sh {state}/start.sh {state}/reg.pid http://127.0.0.1:\$(cat {state}/reg.port)/v2/ docker-registry serve {state}/registry.yml"]}
      - {op: proxy-start, argv: [sh, -c, "sh {state}/start.sh {state}/proxy.pid http://127.0.0.1:\$(cat {state}/proxy.port)/v2/ {exe} soak fault-proxy --upstream \$(cat {state}/reg.port) --listen \$(cat {state}/proxy.port) --mode-file {state}/proxy.mode --lifetime-s 600"]}
      - op: push
        argv: [sh, -c, "p=http://127.0.0.1:\$(cat {state}/proxy.port); loc=\$(curl -sf -i -X POST \$p/v2/sp/l/blobs/uploads/ | tr -d '\\\\r' | awk 'tolower(\$1) == \"location:\" {print \$2}'); case \$loc in http*) ;; *) loc=\$p\$loc;; esac; case \$loc in *'?'*) s='&';; *) s='?';; esac; curl -sf -o /dev/null -X PUT -H 'Content-Type: application/octet-stream' --data-binary @{state}/layer \"\$loc\${s}digest=sha256:\$(cat {state}/digest)\" && test -f {state}/store/docker/registry/v2/blobs/sha256/\$(cut -c1-2 {state}/digest)/\$(cat {state}/digest)/data"]
    steps:
      - {op: pull-ok, argv: [sh, "{state}/pull-checked.sh"]}
    recover:
$recover
    stop:
      - {op: proxy-stop, argv: [sh, "{state}/stop.sh", "{state}/proxy.pid"]}
      - {op: registry-stop, argv: [sh, "{state}/stop.sh", "{state}/reg.pid"]}
    fault: {id: F05, step: pull-ok, pidfile: "{state}/proxy.pid", portfile: "{state}/proxy.port", modefile: "{state}/proxy.mode", mode: "$mode", window_ms: 1200, blobs: ["{state}/clients", "{state}/store"], rto_ms: 8000}
EOW
}
# during the window a checked pull fails; afterwards a bounded retry succeeds
checked='      - {op: pull-fails, expect: fail, argv: [sh, "{state}/pull-checked.sh"]}
      - {op: pull-retry, argv: [sh, -c, "for i in $(seq 20); do sh {state}/pull-checked.sh && exit 0; sleep 0.2; done; exit 1"]}'
declare -A pids
start_custom() { # NAME: runs it R0 in the background (own prefix, own state dir)
	"$SP_BIN" soak --workload "$tmp/$1.yaml" --profile R0 --out "$tmp/$1.out" --quiet >/dev/null 2>&1 &
	pids[$1]=$!
}
finish() { # NAME: waits for it; sets out, rc
	out=$tmp/$1.out
	wait "${pids[$1]}"
	rc=$?
}
frow() { awk -F'\t' 'NR>1{print $1" "$8}' "$1/faults.tsv"; }
ftarget() { awk -F'\t' 'NR>1{print $2}' "$1/faults.tsv"; }
fop() { awk -F'\t' '$4 == "F05"{print $6" "$8}' "$1/operations.tsv"; }

# the runs that end by themselves go in parallel
reg_workload good "truncate:4096" "$checked"
reg_workload trunc "truncate:4096" '      - {op: pull-unchecked, argv: [sh, -c, "curl -s --max-time 5 -o {state}/clients/c/blobs/sha256/$(cat {state}/digest) http://127.0.0.1:$(cat {state}/proxy.port)/v2/sp/l/blobs/sha256:$(cat {state}/digest); true"]}'
rp=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
reg_workload noeffect "redirect:$rp" "${checked/pull-fails, expect: fail/pull-fails, expect: ok}" "$rp"
reg_workload gone "stall" '      - {op: after, argv: ["true"]}'
sed -i 's#      - {op: pull-ok, argv: \[sh, "{state}/pull-checked.sh"\]}#      - {op: pull-ok, argv: [sh, -c, "sh {state}/pull-checked.sh \&\& sh {state}/stop.sh {state}/proxy.pid"]}#' "$tmp/gone.yaml"
reg_workload stuck "disconnect" '      - {op: jam, argv: [sh, -c, "rm -f {state}/proxy.mode && mkdir {state}/proxy.mode"]}'
reg_workload outside "disconnect" "$checked"
sed -i "s#modefile: \"{state}/proxy.mode\"#modefile: \"$tmp/foreign.mode\"#" "$tmp/outside.yaml"
echo pass >"$tmp/foreign.mode"
for n in good trunc noeffect gone stuck outside; do start_custom "$n"; done

# positive twin: a digest-checking client passes
finish good
is "$rc $(frow "$out")" "0 F05 pass" "checked client: F05 recorded, verify accepts"
like "$(ftarget "$out")" 'mode:truncate:4096 probe:reset:[0-9]+B undone-after:[0-9]+ms registry:answers blobs:2-verified$' \
	"checked client: in effect, undone, the registry back, 2 blobs verified"
undone=$(ftarget "$out" | sed -n 's/.*undone-after:\([0-9]*\)ms.*/\1/p')
TAP_NAME="checked client: undone when the 1200 ms window ended (${undone} ms)" ok test "${undone:-0}" -ge 1200
is "$(fop "$out")" "expected_fault truncate:4096/in-effect" "checked client: the fault operation says in effect"
is "$(awk -F'\t' '$4 ~ /^pull-(fails|retry)$/{print $4" "$6}' "$out/operations.tsv" | paste -sd,)" "pull-fails ok,pull-retry ok" \
	"checked client: a pull in the window failed, the bounded retry succeeded"
state=$(meta "$out" state_root)
none_of_registry "$state"
check_nothing_left "$out"

# negative control: a client that stores the truncated layer under its digest
finish trunc
isnt "$rc" "0" "truncated layer kept: verify rejects the bundle"
is "$(verdict "$out" faults.recovered)" "FAIL" "truncated layer kept: the faults.recovered gate fails"
like "$(ftarget "$out")" "blobs:checked=2,bad=1,first=[0-9a-f]{12},stores-missing=0\$" "truncated layer kept: the record names the bad blob"
is "$(awk -F'\t' '$4 == "pull-unchecked"{print $6}' "$out/operations.tsv")" "ok" "truncated layer kept: although the client's step succeeded"
check_nothing_left "$out"

# negative control: the fault has no effect (redirect to the registry itself)
finish noeffect
isnt "$rc" "0" "fault without effect: verify rejects the bundle"
is "$(fop "$out")" "fail redirect:$rp/not-in-effect" "fault without effect: the operation says so"
is "$(verdict "$out" faults.recovered)" "FAIL" "fault without effect: the faults.recovered gate fails"
check_nothing_left "$out"

# failure path: the proxy is gone before the fault
finish gone
isnt "$rc" "0" "proxy gone: verify rejects the bundle"
is "$(fop "$out")" "fail target-gone" "proxy gone: not injected, the operation says why"
is "$(frow "$out")" "F05 fail" "proxy gone: the record fails"
is "$(awk -F'\t' '$4 == "after"{print $6}' "$out/operations.tsv")" "ok" "proxy gone: the recover steps still ran"
check_nothing_left "$out"

# failure path: the fault cannot be undone (the mode file made a directory in the window)
finish stuck
isnt "$rc" "0" "cannot undo: verify rejects the bundle"
like "$(ftarget "$out")" 'undo-failed' "cannot undo: the record says so"
is "$(frow "$out")" "F05 fail" "cannot undo: the record fails"
is "$(jq -r .stop_condition "$out/summary.json")" "error" "cannot undo: the run stopped (error)"
check_nothing_left "$out"

# failure path: a mode file outside the run's state dir is never written
finish outside
isnt "$rc" "0" "mode file outside the run: verify rejects the bundle"
is "$(fop "$out")" "fail target-not-owned" "mode file outside the run: not injected"
is "$(jq -r .stop_condition "$out/summary.json")" "invariant" "mode file outside the run: the run stops (invariant)"
is "$(cat "$tmp/foreign.mode")" "pass" "mode file outside the run: left as it was"
check_nothing_left "$out"

# failure path: the runner killed in the middle of the window
reg_workload killed "stall" '      - {op: slow, argv: [sleep, "30"]}'
sed -i 's/window_ms: 1200, \(.*\)rto_ms: 8000/window_ms: 20000, \1rto_ms: 40000/' "$tmp/killed.yaml"
out=$tmp/killed.out
"$SP_BIN" soak --workload "$tmp/killed.yaml" --profile R0 --out "$out" --quiet >/dev/null 2>&1 &
pid=$!
for i in $(seq 200); do grep -q '	F05	' "$out/operations.tsv" 2>/dev/null && break; sleep 0.1; done
ok grep -q '	F05	[0-9.]*	expected_fault	1	stall/in-effect' "$out/operations.tsv"
prefix=$(meta "$out" prefix)
state=$(meta "$out" state_root)
at_exit "kill_all_of_run '$prefix' '$state'"
rport=$(cat "$state/reg.port") pport=$(cat "$state/proxy.port")
is "$(cat "$state/proxy.mode")" "stall" "killed mid-fault: the fault is on when the runner dies"
kill -KILL "$(runner_of "$pid")"
wait "$pid" 2>/dev/null
is "$(wait_nothing_alive "$prefix" "$state" "$out" 5)" "$NOTHING_ALIVE" "killed mid-fault: nothing of the run alive"
none_of_registry "$state"
TAP_NAME="killed mid-fault: the registry's port $rport closed" ok refuses "$rport"
TAP_NAME="killed mid-fault: the proxy's port $pport closed" ok refuses "$pport"
ok test ! -e "$out/summary.json"
"$SP_BIN" soak --reconcile "$tmp" >/dev/null 2>&1
ok test ! -e "$state" # the storage dir and the mode file went with the state dir

# ---- the shipped workload's bundle
wait "$shipped"
rc=$?
out=$tmp/img
check_bundle "$out"
check_exit_is_verifiers "$out" "$rc"
is "$rc" "0" "img-01: the verifier accepts the R0 bundle"
is "$(jq -r '.unexpected_failures' "$out/summary.json") $(jq -r .cleanup "$out/summary.json")" "0 ok" "img-01: no unexpected failure, cleanup ok"
for op in push-a push-b shared-layers inspect tag pull save-load remove prune push-f pull-ok pull-fails pull-retry; do
	is "$(awk -F'\t' -v o="$op" '$4 == o{print $6}' "$out/operations.tsv")" "ok" "img-01: $op"
done
is "$(frow "$out")" "F05 pass" "img-01: F05 injected, undone and recovered"
like "$(ftarget "$out")" 'mode:truncate:65536 probe:reset:[0-9]+B undone-after:[0-9]+ms registry:answers blobs:[0-9]+-verified$' \
	"img-01: in effect, undone, every blob verified"
undone=$(ftarget "$out" | sed -n 's/.*undone-after:\([0-9]*\)ms.*/\1/p')
TAP_NAME="img-01: undone when the 2500 ms window ended (${undone} ms)" ok test "${undone:-0}" -ge 2500
like "$(cat "$out/logs/IMG-02.pull-fails.log")" "reset|EOF|digest|unexpected" "img-01: the pull in the window failed on the cut answer"
like "$(cat "$out/logs/IMG-02.pull-retry.log")" "attempts=([2-9]|1[0-9]|20)$" "img-01: the bounded retry took more than one attempt"
is "$(jq -c .resources "$out/inventory-start.json") $(jq -c .resources "$out/inventory-final.json")" "[] []" \
	"img-01: no image, blob, archive, process or listener of the run in the start and final inventories"
is "$(awk -F'\t' 'NR>1 && $3=="final"{print $NF}' "$out/resource-samples.tsv")" "0" "img-01: no registry blob in the final sample (extra.registry_blobs)"
state=$(meta "$out" state_root)
none_of_registry "$state"
check_nothing_left "$out"
done_testing
