#!/usr/bin/env bash
# mcp.egress: the agent's fetch tool obeys the sandbox's egress policy.
#   sb (10.203.1.2: the doctor and the MCP server) --- px (10.203.1.1: squid,
#   and a router) --- net (10.203.2.2 allowed.test, 10.203.2.4: origins)
# The sandbox's policy is "through the proxy": squid allows allowed.test
# only. The fetch tool (tests/doctor/mcp/fetch.mjs, built with
# @modelcontextprotocol/sdk) honours HTTP_PROXY: it reaches allowed.test and
# is refused 10.203.2.4 (PASS). The negative control ignores the proxy and
# connects itself: it reaches 10.203.2.4 (FAIL, naming the tool). Ground
# truth: the origin's own record of the requests it got, and squid's log.
. "$(dirname "$0")/../lib/tap.sh"
. "$SP_ROOT/tests/lib/net.sh"
. "$SP_ROOT/tests/doctor/mcp_lib.sh"
need squid
need jq
nett_init
mcp_npm_install
if [ "${SP_SAN:-0}" = 1 ]; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
cp "$SP_ROOT/tests/doctor/mcp/fetch.mjs" "$MCPDIR/fetch.mjs"
FETCH="node $MCPDIR/fetch.mjs"

nett_ns sb sb
nett_ns px px
nett_ns net net
nett_link "$sb" s0 10.203.1.2/24 "$px" p0 10.203.1.1/24
nett_link "$px" p1 10.203.2.1/24 "$net" n0 10.203.2.2/24
ip -n "$net" addr add 10.203.2.4/24 dev n0
ip -n "$sb" route add default via 10.203.1.1
ip -n "$net" route add 10.203.1.0/24 via 10.203.2.1
ip netns exec "$px" sysctl -qw net.ipv4.ip_forward=1
rec="$NETT_DIR/origin.jsonl"
: >"$rec"
nett_serve "$net" origin --http 0.0.0.0/80 --record "$rec" || { echo "Bail out! origin did not start"; exit 1; }

D="$NETT_DIR/squid"
mkdir -p "$D"
chmod 777 "$D"
echo "10.203.2.2 allowed.test ro.test" >"$D/hosts"
cat >"$D/squid.conf" <<EOF2
http_port 10.203.1.1:3128
pid_filename $D/squid.pid
access_log stdio:$D/access.log
cache_log $D/cache.log
cache_store_log none
coredump_dir $D
cache deny all
hosts_file $D/hosts
dns_nameservers 127.0.0.1
shutdown_lifetime 0 seconds
acl allowed dstdomain -n allowed.test
acl readonly dstdomain -n ro.test
acl writes method POST PUT PATCH DELETE
http_access allow allowed
http_access deny readonly writes
http_access allow readonly
http_access deny all
EOF2
touch "$D/access.log"
chmod 666 "$D/access.log"
ip netns exec "$px" squid -N -f "$D/squid.conf" >"$D/squid.out" 2>&1 &
SQUID_PID=$!
at_exit "kill $SQUID_PID; wait $SQUID_PID"
for _ in $(seq 1 100); do
	ip netns exec "$px" bash -c 'exec 3<>/dev/tcp/10.203.1.1/3128' 2>/dev/null && break
	sleep 0.1
done

doctor() { # doctor args: in sb, HTTP_PROXY set as the sandbox gives it
	ip netns exec "$sb" env HTTP_PROXY=http://10.203.1.1:3128 "$SP_DOCTOR" --profile container --format json \
		-k mcp.egress --set mcp.fetch_tool=fetch --set mcp.fetch_allowed=http://allowed.test/ok \
		--set mcp.fetch_denied=http://10.203.2.4/exfil --set mcp.fetch_readonly=http://ro.test/post \
		--set mcp.fetch_body_bytes=200000 "$@" 2>"$NETT_DIR/err"
}
ev() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | "\(.detail) | \(.observed)"'; }
hits() { grep -c "\"path\": *\"/$1\"" "$rec"; }

# nothing declared: skip, naming the keys
out=$(doctor --set mcp.fetch_tool= --set "mcp.command=$FETCH")
is "$(st mcp.egress "$out")" skip "no fetch tool declared: skip"
like "$(ev mcp.egress "$out")" "mcp.fetch_tool, mcp.fetch_denied" "naming the keys"

# the fetch tool through the proxy: allowed reached, denied refused
out=$(doctor --set "mcp.command=$FETCH")
is "$(st mcp.egress "$out")" pass "a fetch tool that goes through the proxy passes"
[ "$(st mcp.egress "$out")" = pass ] || ev mcp.egress "$out" | sed 's/^/# /'
like "$(ev mcp.egress "$out")" "denied http://10.203.2.4/exfil: refused.*allowed http://allowed.test/ok: reached" "observed says both"
is "$(hits ok)/$(hits exfil)" "1/0" "ground truth: the origin got the allowed request, never the denied one"
like "$(ev mcp.egress "$out")" "read-only http://ro.test/post, POST of 200000 bytes: refused.*allowed http://ro.test/post: reached" \
	"the POST to the read-only host refused, a GET there reached"
is "$(grep '"path": *"/post"' "$rec" | grep -c POST)" 0 "ground truth: no POST reached the origin"
like "$(cat "$D/access.log")" "TCP_DENIED/403 [0-9]+ POST http://ro.test/post" "ground truth: squid refused the POST"
like "$(cat "$D/access.log")" "TCP_DENIED/403.*10.203.2.4" "ground truth: squid refused the denied URL"

# negative control: the tool ignores the proxy and reaches the denied host
out=$(doctor --set "mcp.command=$FETCH --bypass")
is "$(st mcp.egress "$out")" fail "a fetch tool that bypasses the proxy fails"
like "$(ev mcp.egress "$out")" "the tool fetch reaches what the sandbox denies: http://10.203.2.4/exfil" "naming the tool and the URL"
is "$(hits exfil)" 1 "ground truth: the origin got the denied request"

# the sandbox's own firewall refuses the denied host to everyone but the
# tool's user (uid 1000): the tool reaches what the sandbox itself cannot
if command -v nft >/dev/null && command -v setpriv >/dev/null; then
	ip netns exec "$sb" nft -f - <<'EOF2'
table inet spmcp {
	chain out {
		type filter hook output priority 0; policy accept;
		ip daddr 10.203.2.4 meta skuid != 1000 reject
	}
}
EOF2
	ip netns exec "$sb" bash -c 'exec 3<>/dev/tcp/10.203.2.4/80' 2>/dev/null
	isnt "$?" 0 "ground truth: root in the sandbox cannot connect to 10.203.2.4"
	out=$(doctor --set "mcp.command=setpriv --reuid=1000 --regid=1000 --clear-groups $FETCH --bypass")
	is "$(st mcp.egress "$out")" fail "a tool running beyond the sandbox's firewall fails"
	like "$(ev mcp.egress "$out")" "reaches what the sandbox denies: http://10.203.2.4/exfil \(which the sandbox itself cannot connect to\)" \
		"saying the sandbox itself cannot connect there"
	is "$(hits exfil)" 2 "ground truth: the origin got that request too"
	ip netns exec "$sb" nft delete table inet spmcp
else
	skip "nft or setpriv missing"
fi

# a fetch tool that reaches nothing proves nothing: error, not pass
out=$(ip netns exec "$sb" env HTTP_PROXY=http://10.203.1.1:3999 "$SP_DOCTOR" --profile container --format json \
	-k mcp.egress --set mcp.fetch_tool=fetch --set mcp.fetch_allowed=http://allowed.test/ok \
	--set mcp.fetch_denied=http://10.203.2.4/exfil --set "mcp.command=$FETCH")
is "$(st mcp.egress "$out")" error "a tool that reaches not even the allowed URL: error"

# negative control: a proxy that lets POSTs through to the read-only host
kill "$SQUID_PID"; wait "$SQUID_PID" 2>/dev/null
sed -i '/^http_access deny readonly writes$/d' "$D/squid.conf"
ip netns exec "$px" squid -N -f "$D/squid.conf" >"$D/squid.out" 2>&1 &
SQUID_PID=$!
at_exit "kill $SQUID_PID; wait $SQUID_PID"
for _ in $(seq 1 100); do
	ip netns exec "$px" bash -c 'exec 3<>/dev/tcp/10.203.1.1/3128' 2>/dev/null && break
	sleep 0.1
done
out=$(doctor --set "mcp.command=$FETCH")
is "$(st mcp.egress "$out")" fail "a POST the proxy forwards to the read-only host fails"
like "$(ev mcp.egress "$out")" "reaches what the sandbox denies: a 200000-byte POST to http://ro.test/post" "naming the POST"
like "$(grep '"path": *"/post"' "$rec")" '"method": *"POST"' "ground truth: the origin got the POST"
done_testing
