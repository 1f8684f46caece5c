#!/usr/bin/env bash
# F05's fault-injecting proxy (`sandprobe soak fault-proxy`) in front of a
# real local registry (Debian's docker-registry, distribution v2, on
# loopback with its config and storage in the test's dir). A blob is pushed
# through the proxy with the v2 API; each mode is then judged by what a
# client sees, with the blob's sha256 as ground truth:
# pass delivers the whole blob, truncate/disconnect/stall make the pull fail
# (and the short body never matches the digest), slow delivers it whole but
# late, redirect sends the connection to another loopback port; a pull that
# retries within bounds gets the valid blob once the fault is undone.
# Negative control: a client that keeps a truncated body without checking
# its digest holds a layer whose sha256 is not the published one.
# Failure paths: the registry gone (the client sees a reset, the proxy lives
# on), the proxy cannot bind (exit 1, one line), the proxy killed in the
# middle of a stall (no connection child left, the port closed), a bad mode
# line (the connection closed, the file named).
# Not here yet: the IMG-01 workload and F05 in the runner (faults.tsv).
# Network: loopback only.
. "$(dirname "$0")/../lib/tap.sh"
need curl
need python3
need sha256sum
need docker-registry "docker-registry (Debian package docker-registry) not installed"
tmp=$(sp_tmpdir)
at_exit "rm -rf '$tmp'"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
accepts() { python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()' "$1" 2>/dev/null; }
wait_for() { for _ in $(seq 100); do "$@" && return 0; sleep 0.05; done; return 1; }
# the pids of the proxy's children (its connections), from /proc
children_of() { for s in /proc/[0-9]*/stat; do awk -v p="$1" '{sub(/.*\) /, ""); if ($2 == p) print FILENAME}' "$s" 2>/dev/null; done | sed 's|/proc/||; s|/stat||'; }

regport=$(free_port)
mkdir -p "$tmp/store"
cat >"$tmp/registry.yml" <<EOF
version: 0.1
log: {level: error}
storage:
  filesystem: {rootdirectory: $tmp/store}
http: {addr: 127.0.0.1:$regport}
EOF
docker-registry serve "$tmp/registry.yml" >"$tmp/registry.log" 2>&1 &
regpid=$!
at_exit "kill $regpid 2>/dev/null; wait $regpid 2>/dev/null"
ok wait_for curl -sf -o /dev/null "http://127.0.0.1:$regport/v2/"

start_proxy() { # upstream-port -> sets ppid, pport
	rm -f "$tmp/proxy.port"
	"$SP_BIN" soak fault-proxy --upstream "$1" --mode-file "$tmp/mode" --port-file "$tmp/proxy.port" \
		--pid-file "$tmp/proxy.pid" --lifetime-s 300 2>>"$tmp/proxy.err" &
	ppid=$!
	wait_for test -s "$tmp/proxy.port" || return 1
	pport=$(cat "$tmp/proxy.port")
}
echo pass >"$tmp/mode"
start_proxy "$regport"
at_exit "kill $ppid 2>/dev/null"
ok accepts "$pport"
is "$(ss -Hltn "sport = :$pport" | awk '{print $4}')" "127.0.0.1:$pport" "the proxy listens on loopback only (ss)"

# ---- push a 1 MiB layer through the proxy (v2 monolithic upload)
head -c 1048576 /dev/urandom >"$tmp/layer"
digest=sha256:$(sha256sum "$tmp/layer" | cut -d' ' -f1)
base=http://127.0.0.1:$pport/v2/sp/img
loc=$(curl -s -i -X POST "$base/blobs/uploads/" | tr -d '\r' | awk 'tolower($1) == "location:" {print $2}')
case $loc in http*) ;; *) loc=http://127.0.0.1:$pport$loc ;; esac
loc=${loc/127.0.0.1:$regport/127.0.0.1:$pport}
sep='?'; case $loc in *'?'*) sep='&' ;; esac
code=$(curl -s -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: application/octet-stream' \
	--data-binary @"$tmp/layer" "$loc${sep}digest=$digest")
is "$code" 201 "push through the proxy: the registry took the layer (201)"
ok test -f "$tmp/store/docker/registry/v2/blobs/sha256/${digest:7:2}/${digest:7}/data"
is "$(sha256sum <"$tmp/store/docker/registry/v2/blobs/sha256/${digest:7:2}/${digest:7}/data" | cut -d' ' -f1)" "${digest:7}" \
	"the blob in the registry's storage has the layer's digest"

pull() { # mode -> curl exit code in rc, body in $tmp/got
	echo "$1" >"$tmp/mode"
	rm -f "$tmp/got"
	curl -s --max-time "${2:-10}" -o "$tmp/got" "$base/blobs/$digest"
	rc=$?
}
sum() { sha256sum <"$tmp/got" 2>/dev/null | cut -d' ' -f1; }

pull pass
is "$rc $(sum)" "0 ${digest:7}" "pass: the whole layer, digest checked"

pull truncate:1000
isnt "$rc" 0 "truncate:1000: the pull fails (curl $rc)"
ok test "$(stat -c %s "$tmp/got" 2>/dev/null || echo 0)" -le 1000
isnt "$(sum)" "${digest:7}" "truncate: the short body does not match the digest"
# negative control: a client that keeps what it got without the digest check
# holds a layer that is not the published one; a digest-checking client rejects it
if [ -s "$tmp/got" ] && [ "$(sum)" != "${digest:7}" ]; then
	TAP_NAME="negative control: a truncated layer kept as valid is caught by its digest" ok true
else
	TAP_NAME="negative control: a truncated layer kept as valid is caught by its digest" ok false
fi

pull disconnect
isnt "$rc" 0 "disconnect: the pull fails (curl $rc)"
ok test ! -s "$tmp/got"

t0=$(date +%s%N)
pull stall 2
is "$rc" 28 "stall: the pull times out (curl 28)"
ok test $((($(date +%s%N) - t0) / 1000000)) -ge 1900

t0=$(date +%s%N)
pull slow:524288 20
ms=$((($(date +%s%N) - t0) / 1000000))
is "$rc $(sum)" "0 ${digest:7}" "slow:524288: the whole layer, digest checked"
ok test "$ms" -ge 1500 # 1 MiB at 512 KiB/s: about 2 s (measured ${ms} ms)
echo "# slow: 1 MiB in $ms ms"

dead=$(free_port)
pull "redirect:$dead"
isnt "$rc" 0 "redirect to a dead loopback port: the pull fails (curl $rc)"
pull "redirect:$regport"
is "$rc $(sum)" "0 ${digest:7}" "redirect to the registry's own port: the layer"

pull "bogus:1"
isnt "$rc" 0 "a bad mode line: the connection is closed"
like "$(cat "$tmp/proxy.err")" "$tmp/mode: unknown mode" "the bad mode file is named on the proxy's stderr"

# a pull that retries within bounds: truncated three times, then the fault is undone
echo truncate:4096 >"$tmp/mode"
( sleep 1; echo pass >"$tmp/mode" ) &
flip=$!
good=""
for i in $(seq 20); do
	rm -f "$tmp/got"
	curl -s --max-time 5 -o "$tmp/got" "$base/blobs/$digest" && [ "$(sum)" = "${digest:7}" ] && good=$i && break
	sleep 0.2
done
wait $flip
ok test -n "$good" # bounded retry: valid after ${good} attempt(s)
ok test "${good:-0}" -gt 1

# ---- failure paths
# the registry gone: the client sees a failure, the proxy lives on
kill "$regpid"
wait "$regpid" 2>/dev/null
pull pass
isnt "$rc" 0 "the registry gone: the pull through the proxy fails (curl $rc)"
ok kill -0 "$ppid"

# the proxy cannot bind: its port is taken
err=$("$SP_BIN" soak fault-proxy --upstream "$regport" --mode-file "$tmp/mode" --listen "$pport" 2>&1)
is "$?" 1 "a port taken: the proxy exits 1"
like "$err" "cannot listen on 127.0.0.1:$pport" "one line names the address"
err=$("$SP_BIN" soak fault-proxy --upstream 70000 --mode-file "$tmp/mode" --listen 1 2>&1)
is "$?" 2 "a bad port: usage error"

# killed in the middle of a stall: no connection child left, the port closed
python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8); open(sys.argv[1], "w").write(str(s.getsockname()[1])); time.sleep(30)' "$tmp/sink.port" &
sink=$!
at_exit "kill $sink 2>/dev/null"
wait_for test -s "$tmp/sink.port"
kill "$ppid"; wait "$ppid" 2>/dev/null
ok test ! -e "$tmp/proxy.pid" # SIGTERM: pid file removed
echo stall >"$tmp/mode"
start_proxy "$(cat "$tmp/sink.port")"
curl -s --max-time 20 "http://127.0.0.1:$pport/" >/dev/null &
cl=$!
wait_for test -n "$(children_of "$ppid")"
kids=$(children_of "$ppid")
ok test -n "$kids" # a connection child during the stall
kill -KILL "$ppid"
wait "$ppid" 2>/dev/null
left=""
for _ in $(seq 40); do
	left=""
	for k in $kids; do kill -0 "$k" 2>/dev/null && left="$left $k"; done
	[ -z "$left" ] && break
	sleep 0.05
done
is "$left" "" "the proxy killed mid-fault: none of its connection children is left"
ok wait_for eval '! accepts '"$pport"
wait "$cl" 2>/dev/null
isnt "$?" 0 "the client's stalled pull failed"
done_testing
