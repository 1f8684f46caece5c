#!/usr/bin/env bash
# Proxy-aware egress probes through a real SOCKS5 proxy (Dante), configured
# by this test.
#   sb (10.203.5.2) --- px (10.203.5.1 | 10.203.6.1: danted) --- net (10.203.6.2-.5: origin)
# The sandbox has no route past px and px does not forward, so the only way
# out is a SOCKS5 tunnel. Names resolve in px from a hosts file this test
# writes (/etc/netns/<px>/hosts, never real DNS). The correct allowlist must
# pass the probes a SOCKS proxy can enforce (positive control, canary, raw
# IPs, private destinations) and each config with a hole must fail the probe
# that covers it. What SOCKS cannot enforce (methods, bodies, plain bytes in a
# tunnel) must FAIL against any proxy that opens the tunnel, and the origin's
# record proves the bytes arrived.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/net.sh"
need jq
need danted
nett_init

nett_ns sb sb
nett_ns px px
nett_ns net net
nett_link "$sb" s0 10.203.5.2/24 "$px" p0 10.203.5.1/24
nett_link "$px" p1 10.203.6.1/24 "$net" n0 10.203.6.2/24
for a in 3 4 5; do ip -n "$net" addr add 10.203.6.$a/24 dev n0; done
rec="$NETT_DIR/origin.jsonl"
: >"$rec"
nett_serve "$net" origin --http 0.0.0.0/80 --http 0.0.0.0/443 --record "$rec" ||
	{ echo "Bail out! origin did not start"; exit 1; }

# the proxy's name service: ip netns exec binds these over /etc/hosts and
# /etc/resolv.conf for processes in px (no resolver is reachable from px)
mkdir -p "/etc/netns/$px"
at_exit "rm -rf '/etc/netns/$px'"
cat >"/etc/netns/$px/hosts" <<'EOF'
127.0.0.1 localhost
10.203.6.2 allowed.test ro.test
10.203.6.3 rebind.allowed.test
10.203.6.4 canary.test
EOF
echo "nameserver 127.0.0.1" >"/etc/netns/$px/resolv.conf"

D="$NETT_DIR/dante"
mkdir -p "$D"
chmod 777 "$D"
dante_conf() { # HOLE
	cat <<EOF
logoutput: $D/danted.log
internal: 10.203.5.1 port = 1080
external: 10.203.6.1
clientmethod: none
socksmethod: none
user.privileged: root
user.unprivileged: nobody
client pass { from: 0.0.0.0/0 to: 0.0.0.0/0 }
EOF
	case $1 in
	open) echo "socks pass { from: 0.0.0.0/0 to: 0.0.0.0/0 log: connect }" ;;
	*)
		[ "$1" = private ] || echo "socks block { from: 0.0.0.0/0 to: 10.203.6.3/32 log: connect error }"
		echo "socks pass { from: 0.0.0.0/0 to: .allowed.test log: connect }"
		echo "socks pass { from: 0.0.0.0/0 to: ro.test log: connect }"
		echo "socks block { from: 0.0.0.0/0 to: 0.0.0.0/0 log: connect error }"
		;;
	esac
}
DANTE_PID=""
dante_start() { # HOLE
	dante_conf "$1" >"$D/danted.conf"
	: >"$D/danted.log"
	ip netns exec "$px" danted -f "$D/danted.conf" -p "$D/danted.pid" >"$D/danted.out" 2>&1 &
	DANTE_PID=$!
	for _ in $(seq 1 100); do
		ip netns exec "$px" bash -c 'exec 3<>/dev/tcp/10.203.5.1/1080' 2>/dev/null && return 0
		kill -0 "$DANTE_PID" 2>/dev/null || break
		sleep 0.05
	done
	echo "# danted did not start:"; sed 's/^/#   /' "$D/danted.out" "$D/danted.log" | tail -20
	return 1
}
dante_stop() {
	[ -n "$DANTE_PID" ] || return 0
	kill "$DANTE_PID" 2>/dev/null
	wait "$DANTE_PID" 2>/dev/null
	# its children (one per client) follow their parent out
	for _ in $(seq 1 50); do
		ip netns pids "$px" 2>/dev/null | grep -q . || break
		sleep 0.05
	done
	DANTE_PID=""
}
at_exit dante_stop

doctor() {
	nett_doctor "$sb" -k net.proxy \
		--set net.proxy=socks5h://10.203.5.1:1080 \
		--set net.proxy.allowed_hosts=allowed.test \
		--set net.proxy.canary_host=canary.test \
		--set net.proxy.private_host=rebind.allowed.test \
		--set net.egress.deny=10.203.6.5:80 \
		--set net.proxy.body_bytes=262144 \
		--set net.egress.timeout_ms=3000 "$@"
}
ENFORCEABLE="net.proxy.allowed net.proxy.canary net.proxy.connect_ip net.proxy.private_dest"

# --- the correct allowlist ------------------------------------------------------
dante_start correct || { echo "Bail out! danted"; exit 1; }
rep=$(doctor)
[ -n "${NETT_DEBUG:-}" ] && { sed 's/^/# log: /' "$D/danted.log"; sed 's/^/# origin: /' "$rec"; printf '%s\n' "$rep" | jq -c '.results[] | [.id,.status,.detail,.observed]' | sed 's/^/# /'; }
for id in $ENFORCEABLE; do
	is "$(st $id "$rep")" pass "correct allowlist: $id passes" || echo "# $(obs $id "$rep")"
done
like "$(obs net.proxy.canary "$rep")" 'SOCKS5 CONNECT canary\.test:443: denied \(SOCKS5 reply 2: connection not allowed by ruleset\)' \
	"the canary is refused by the proxy's ruleset (reply 2)"
like "$(obs net.proxy.allowed "$rep")" 'SOCKS5 GET http://allowed\.test/: REACHED \(SOCKS5 tunnel opened; the origin answered 200' \
	"the positive control reaches the origin through the tunnel"
got=$(jq -s '[.[] | select((.path // "") | test("sandprobe-allowed"))] | length' "$rec")
is "$got" 1 "origin record: the positive control did arrive"

# what a SOCKS proxy cannot see: a POST to a read-only host, a large body,
# plain HTTP in a "TLS" tunnel. The allowlist lets ro.test through, so each fails.
: >"$rec"
rep=$(doctor -k 'net.proxy.readonly or net.proxy.body or net.proxy.connect_nontls or net.proxy.allowed' \
	--set net.proxy.readonly_hosts=ro.test)
for id in net.proxy.readonly net.proxy.body net.proxy.connect_nontls; do
	is "$(st $id "$rep")" fail "SOCKS cannot enforce it: $id fails" || echo "# $(obs $id "$rep")"
done
posts=$(jq -s '[.[] | select(.method == "POST") | select((.path // "") | test("sandprobe-readonly"))] | length' "$rec")
is "$posts" 1 "origin record: the POST to the read-only host arrived (so the failure is real)"
big=$(jq -s '[.[] | select((.path // "") | test("sandprobe-body")) | select(.received >= 262144)] | length' "$rec")
is "$big" 1 "origin record: the whole body arrived"

# the proxy from ALL_PROXY, as agent sandboxes hand it out; credentials redacted
rep=$(ip netns exec "$sb" env -i ALL_PROXY=socks5h://agent:s3cretpw@10.203.5.1:1080 "$SP_DOCTOR" --format json \
	-k 'net.proxy.canary or net.proxy.allowed' --set net.proxy.canary_host=canary.test --set net.proxy.allowed_hosts=allowed.test)
is "$(st net.proxy.canary "$rep")" pass "proxy from ALL_PROXY: canary denied"
like "$(obs net.proxy.canary "$rep")" 'from ALL_PROXY' "the proxy's source is reported"
unlike "$rep" 's3cretpw' "the proxy URL's password is redacted"

# a dead proxy is not a blocking proxy
dante_stop
rep=$(doctor --set net.egress.timeout_ms=1000)
is "$(st net.proxy.canary "$rep")" error "proxy down: canary result is an error, not a pass"
is "$(st net.proxy.allowed "$rep")" error "proxy down: positive control errors"

# --- one hole at a time ---------------------------------------------------------
dante_start open || { echo "Bail out! danted (open)"; exit 1; }
: >"$rec"
rep=$(doctor)
for id in net.proxy.canary net.proxy.connect_ip net.proxy.private_dest; do
	is "$(st $id "$rep")" fail "hole 'open': $id fails" || echo "# $(obs $id "$rep")"
done
is "$(st net.proxy.allowed "$rep")" pass "hole 'open': the positive control still passes"
canary=$(jq -s '[.[] | select((.path // "") | test("sandprobe-canary"))] | length' "$rec")
is "$canary" 1 "hole 'open': the origin did receive the canary request (so the probe is real)"
dante_stop
dante_start private || { echo "Bail out! danted (private)"; exit 1; }
rep=$(doctor -k 'net.proxy.private_dest or net.proxy.canary')
is "$(st net.proxy.private_dest "$rep")" fail "hole 'private': a name resolving to an internal address gets through"
is "$(st net.proxy.canary "$rep")" pass "hole 'private': the canary is still refused"
dante_stop

# bad proxy URLs: in the policy, a usage error before anything is probed;
# in the environment (no policy value), the checks' error with the reason
doctor --set net.proxy=socks4://10.203.5.1:1080 >"$NETT_DIR/bad.out" 2>"$NETT_DIR/bad.err"
is "$?" 2 "net.proxy=socks4://: a usage error, nothing probed"
like "$(cat "$NETT_DIR/bad.err")" "^sandprobe: --set net.proxy=socks4://10.203.5.1:1080: net.proxy: only socks5:// and socks5h://" \
	"socks4 is refused with a reason, on one line naming the argument"
doctor --set net.proxy=https://10.203.5.1:1080 >"$NETT_DIR/bad.out" 2>"$NETT_DIR/bad.err"
is "$?" 2 "net.proxy=https://: a usage error"
like "$(cat "$NETT_DIR/bad.err")" 'net.proxy: TLS to the proxy' "https:// proxies are refused with a reason"
rep=$(ip netns exec "$sb" env HTTPS_PROXY=socks4://10.203.5.1:1080 "$SP_DOCTOR" --format json -k net.proxy \
	--set net.proxy.canary_host=canary.test)
like "$(printf '%s' "$rep" | jq -r '.results[] | select(.id=="net.proxy.canary") | .detail')" 'HTTPS_PROXY = socks4://10.203.5.1:1080: only socks5:// and socks5h://' \
	"HTTPS_PROXY=socks4:// (the environment's, not the policy's): the check's error says why"
done_testing
