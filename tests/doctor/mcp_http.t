#!/usr/bin/env bash
# mcp.* over the HTTP transports (mcp.url: streamable HTTP; mcp.sse_url:
# the older SSE transport): @modelcontextprotocol/server-everything in its
# streamableHttp and sse modes on loopback, the doctor reaching each by
# IP:PORT. Ground truth: Python's http.client on the same server
# (tests/doctor/mcp/http_truth.py). Negative controls: an undeclared tool
# fails mcp.tools over either transport; a port nothing listens on, a GET
# that is no event stream and a stream with a malformed chunk are errors;
# a message event that is not JSON and a server that never answers fail
# the handshake, within the timeout; an https URL skips, saying so.
. "$(dirname "$0")/../lib/tap.sh"
. "$SP_ROOT/tests/doctor/mcp_lib.sh"
need jq
need python3
mcp_npm_install
if [ "${SP_SAN:-0}" = 1 ]; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
T=$(sp_tmpdir)
HT="$SP_ROOT/tests/doctor/mcp/http_truth.py"

doc() { "$SP_DOCTOR" --profile container --format json -k mcp "$@" 2>"$T/err"; }
st() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | .status'; }
ev() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | "\(.detail) | \(.observed)"'; }
is_st() { # OUT ID WANT NAME
	local got
	got=$(st "$2" "$1")
	if [ "$got" = "$3" ]; then _tap_result 0 "$4"; else _tap_result 1 "$4" "got '$got': $(ev "$2" "$1" | head -c 900) $(head -c 300 "$T/err")"; fi
}
listening() { # PORT: wait up to 20 s for a listener on loopback
	local i
	for i in $(seq 200); do
		python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 0.2)" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
serve() { # PORT ARGS...: a server in the background, killed at exit
	local port=$1
	shift
	PORT=$port "$@" >"$T/server.$port.log" 2>&1 &
	at_exit "kill $! 2>/dev/null"
	listening "$port" || bail "nothing listens on 127.0.0.1:$port: $(tail -3 "$T/server.$port.log")"
}
bail() { _tap_result 1 "$*"; done_testing; exit 1; }

ALL=$(printf '%s' "$EVERYTHING" | sed 's/ stdio$//')
HP=$(python3 "$HT" port)
serve "$HP" $ALL streamableHttp
SP=$(python3 "$HT" port)
while [ "$SP" = "$HP" ]; do SP=$(python3 "$HT" port); done
serve "$SP" $ALL sse

want=$(python3 "$HT" tools "http://127.0.0.1:$HP/mcp")
n=$(printf '%s\n' "$want" | grep -c .)
TAP_NAME="ground truth: server-everything over streamable HTTP lists tools ($n)" ok test "$n" -ge 5
tools=$(printf '%s\n' "$want" | paste -sd, -)
less=$(printf '%s\n' "$want" | grep -vx echo | paste -sd, -)

for tr in "url=http://127.0.0.1:$HP/mcp" "sse_url=http://127.0.0.1:$SP/sse"; do
	name=${tr%%=*}
	out=$(doc --set "mcp.$tr" --set "mcp.tools=$tools")
	is_st "$out" mcp.handshake pass "mcp.$name: handshake passes"
	like "$(ev mcp.handshake "$out")" "protocol 20[0-9]{2}-" "mcp.$name: names the protocol version"
	is_st "$out" mcp.tools pass "mcp.$name: exactly its $n tools pass"
	is_st "$out" mcp.robust pass "mcp.$name: robust passes"
	like "$(ev mcp.robust "$out")" "unknown method: error -32601" "mcp.$name: the unknown method's error code is seen"
	is_st "$out" mcp.fs_roots skip "mcp.$name: fs_roots skips without a file tool"
	out=$(doc --set "mcp.$tr" --set "mcp.tools=$less" -k mcp.tools)
	is_st "$out" mcp.tools fail "mcp.$name: echo undeclared fails mcp.tools"
	like "$(ev mcp.tools "$out")" "unexpected tools: echo" "mcp.$name: naming echo"
done
grep -q "termination request" "$T/server.$HP.log"
_tap_result $? "streamable HTTP: the doctor ended its sessions with DELETE (the server's log)"

# a port nothing listens on: an error, never a pass
DEAD=$(python3 "$HT" port)
for k in url sse_url; do
	out=$(doc --set "mcp.$k=http://127.0.0.1:$DEAD/mcp" -k mcp.handshake)
	is_st "$out" mcp.handshake error "mcp.$k: a dead endpoint is an error"
	like "$(ev mcp.handshake "$out")" "Connection refused" "mcp.$k: naming the refusal"
done
# the streamable endpoint's path wrong: the server answers 404, no handshake
out=$(doc --set "mcp.url=http://127.0.0.1:$HP/nowhere" -k mcp.handshake)
isnt "$(st mcp.handshake "$out")" pass "a wrong path (HTTP 404) does not pass"
like "$(ev mcp.handshake "$out")" "status 404" "naming the status"

# broken SSE servers (Python, loopback)
broken() { # KIND: the doctor's handshake against it
	local p
	p=$(python3 "$HT" port)
	python3 "$HT" serve "$p" "$1" >"$T/py.$1.log" 2>&1 &
	at_exit "kill $! 2>/dev/null"
	listening "$p" || bail "the $1 server did not start: $(tail -3 "$T/py.$1.log")"
	doc --set "mcp.sse_url=http://127.0.0.1:$p/sse" --set mcp.timeout_ms=1500 -k mcp.handshake
}
out=$(broken badchunk)
is_st "$out" mcp.handshake error "a malformed chunk in the event stream is an error"
like "$(ev mcp.handshake "$out")" "malformed chunk size" "naming it"
out=$(broken html)
is_st "$out" mcp.handshake error "a GET answered with no event stream is an error"
like "$(ev mcp.handshake "$out")" "not an event stream" "naming it"
out=$(broken badjson)
is_st "$out" mcp.handshake fail "a message event that is not JSON fails the handshake"
like "$(ev mcp.handshake "$out")" "not JSON" "naming it"
t0=$(date +%s%N)
out=$(broken silent)
ms=$((($(date +%s%N) - t0) / 1000000))
is_st "$out" mcp.handshake fail "a server that never answers fails the handshake"
like "$(ev mcp.handshake "$out")" "no response within 1500 ms" "naming the timeout"
TAP_NAME="bounded: the doctor returned in $ms ms" ok test "$ms" -lt 10000

# https: not spoken by the static doctor, said so
out=$(doc --set "mcp.url=https://127.0.0.1:$DEAD/mcp" -k mcp.handshake)
is_st "$out" mcp.handshake skip "an https URL skips"
like "$(ev mcp.handshake "$out")" "https is not supported" "saying why"
# a name, not an IP: a usage error before anything runs
"$SP_DOCTOR" --profile container -k mcp --set "mcp.url=http://mcp.example:80/mcp" >/dev/null 2>"$T/err"
is "$?" 2 "a host name in mcp.url: exit 2"
like "$(cat "$T/err")" "mcp.url: .*not an IP address" "naming the key"
# two servers at once: an error, not a guess
out=$(doc --set "mcp.url=http://127.0.0.1:$HP/mcp" --set "mcp.command=$EVERYTHING" -k mcp.handshake)
is_st "$out" mcp.handshake error "mcp.command and mcp.url both set: an error"
done_testing
