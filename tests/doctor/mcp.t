#!/usr/bin/env bash
# mcp.handshake, mcp.tools, mcp.robust: the agent's MCP server, started over
# stdio by the doctor inside a sandbox (bwrap: read-only host root, its own
# pid and network namespaces). Real servers from the npm registry:
# @modelcontextprotocol/server-everything, and a server the test builds with
# @modelcontextprotocol/sdk (tests/doctor/mcp/server.mjs) for the negative
# controls: an extra exec tool, a server a malformed line kills. Ground
# truth: a plain Python client (tests/doctor/mcp/truth.py) on the same
# servers.
. "$(dirname "$0")/../lib/tap.sh"
. "$SP_ROOT/tests/doctor/mcp_lib.sh"
need_root
need bwrap
need jq
need python3
mcp_npm_install
if [ "${SP_SAN:-0}" = 1 ]; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
T=$(sp_tmpdir)

box() { # doctor args: the doctor in a sandbox that starts the server
	bwrap --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$SP_ROOT" "$SP_ROOT" --unshare-pid --unshare-net --die-with-parent \
		-- "$SP_DOCTOR" --profile container --format json -k mcp "$@" 2>"$T/err"
}
st() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | .status'; }
ev() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | "\(.detail) | \(.observed)"'; }
is_st() { # OUT ID WANT NAME
	local got
	got=$(st "$2" "$1")
	if [ "$got" = "$3" ]; then _tap_result 0 "$4"; else _tap_result 1 "$4" "got '$got': $(ev "$2" "$1" | head -c 900) $(head -c 300 "$T/err")"; fi
}

# no server declared: each check skips and says which key
out=$(box)
for id in mcp.handshake mcp.tools mcp.robust; do
	is_st "$out" $id skip "$id skips with no server declared"
	like "$(ev $id "$out")" "mcp.command" "$id names mcp.command"
done

# server-everything: the handshake, exactly its tools, robust
want=$(truth tools $EVERYTHING)
n=$(printf '%s\n' "$want" | grep -c .)
TAP_NAME="ground truth: server-everything lists tools ($n)" ok test "$n" -ge 5
tools=$(printf '%s\n' "$want" | paste -sd, -)
out=$(box --set "mcp.command=$EVERYTHING" --set "mcp.tools=$tools")
is_st "$out" mcp.handshake pass "server-everything: handshake passes"
like "$(ev mcp.handshake "$out")" "protocol 20[0-9]{2}-" "and names the protocol version"
is_st "$out" mcp.tools pass "server-everything: exactly its $n tools pass"
is "$(truth survives $EVERYTHING)" survives "ground truth: server-everything survives malformed JSON"
is_st "$out" mcp.robust pass "server-everything: robust passes"
like "$(ev mcp.robust "$out")" "unknown method: error -32601" "the unknown method's error code is seen"

# one declared tool short of what it offers: the rest are unexpected
less=$(printf '%s\n' "$want" | grep -vx echo | paste -sd, -)
out=$(box --set "mcp.command=$EVERYTHING" --set "mcp.tools=$less")
is_st "$out" mcp.tools fail "server-everything with echo undeclared: fails"
like "$(ev mcp.tools "$out")" "unexpected tools: echo" "naming echo"
out=$(box --set "mcp.command=$EVERYTHING" --set "mcp.tools=$tools,fetch")
is_st "$out" mcp.tools fail "a declared tool the server lacks: fails"
like "$(ev mcp.tools "$out")" "missing: fetch" "naming it"

# negative control: the SDK server with an exec tool nobody declared
is "$(truth tools $TESTSERVER --tools echo,exec_command | paste -sd, -)" "echo,exec_command" \
	"ground truth: the test server offers echo and exec_command"
out=$(box --set "mcp.command=$TESTSERVER --tools echo,exec_command" --set mcp.tools=echo)
is_st "$out" mcp.tools fail "an undeclared exec tool fails"
like "$(ev mcp.tools "$out")" "unexpected tools: exec_command \(shell-like\)" "naming it, as shell-like"
out=$(box --set "mcp.command=$TESTSERVER --tools echo" --set mcp.tools=echo)
is_st "$out" mcp.tools pass "the same server without it passes"
is_st "$out" mcp.robust pass "and is robust"

# negative control: a server that a malformed line kills
is "$(truth survives $TESTSERVER --fragile)" dies "ground truth: the fragile server dies on malformed JSON"
out=$(box --set "mcp.command=$TESTSERVER --fragile")
is_st "$out" mcp.handshake pass "the fragile server makes the handshake"
is_st "$out" mcp.robust fail "and fails mcp.robust"
like "$(ev mcp.robust "$out")" "stopped answering after malformed JSON" "naming what killed it"

# something that is no MCP server: no answer within the timeout, or no program
t0=$(date +%s%N)
out=$(box --set "mcp.command=sleep 60" --set mcp.timeout_ms=1000 -k mcp.handshake)
ms=$((($(date +%s%N) - t0) / 1000000))
is_st "$out" mcp.handshake fail "a server that never answers fails the handshake"
like "$(ev mcp.handshake "$out")" "no response within 1000 ms" "naming the timeout"
TAP_NAME="bounded: the doctor returned in $ms ms" ok test "$ms" -lt 10000
out=$(box --set "mcp.command=sh -c 'echo mcp server broken >&2; exit 3'" -k mcp.handshake)
is_st "$out" mcp.handshake fail "a server that exits at once fails the handshake"
# (it may be gone before the request is written: a broken pipe, then its exit)
like "$(ev mcp.handshake "$out")" "it ended: exit 3 \(server stderr: \.\.\.mcp server broken" "naming its exit and its stderr"
out=$(box --set "mcp.command=/nonexistent/mcp-server" -k mcp.handshake)
is_st "$out" mcp.handshake error "a server that cannot be started is an error"

# a malformed command line is a usage error before anything runs
"$SP_DOCTOR" --profile container -k mcp --set "mcp.command=node 'unterminated" >/dev/null 2>"$T/err"
is "$?" 2 "an unterminated quote in mcp.command: exit 2"
like "$(cat "$T/err")" "mcp.command: .*unterminated" "naming the key"

# the documented example policy loads and enables the three checks as required
out=$("$SP_DOCTOR" --policy "$SP_ROOT/docs/examples/agent-mcp.ini" --list --format json -k mcp)
is "$(printf '%s' "$out" | jq -r '[.checks[] | "\(.id)=\(.expect)"] | join(",")')" \
	"mcp.handshake=required,mcp.tools=required,mcp.robust=required,mcp.fs_roots=required,mcp.egress=required" \
	"docs/examples/agent-mcp.ini enables mcp.* as required"
done_testing
