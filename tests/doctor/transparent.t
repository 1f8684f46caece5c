#!/usr/bin/env bash
# net.transparent.*: traffic forced through the proxy even when a program
# ignores HTTPS_PROXY, with nftables redirect rules in the sandbox's own
# namespace:
#   sb (10.203.1.2, default route via px) --- px (10.203.1.1: mitmproxy :8443, resolver :53;
#                                                  a router: forwards to net)
#                                             px (10.203.2.1) --- net (10.203.2.2: origin :443/:80,
#                                                                       outside resolver :53)
# Sealed, sb's ruleset redirects TLS and DNS to px and drops everything
# else: the direct probes are blocked or answered by the proxy, DNS answers
# come from the sandbox's resolver, the ruleset matches the policy. With one
# rule missing (the default drop, the TLS redirect) or one widened (DNS to
# anywhere), the check that covers it fails. Ground truth: the origin's own
# record of who connected, and a DNS query and a TLS handshake made by the
# test itself from sb.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/net.sh"
. "$(dirname "$0")/../lib/mitm.sh"
need jq
need nft
need mitmdump
need openssl
nett_init

nett_ns sb sb
nett_ns px px
nett_ns net net
nett_link "$sb" s0 10.203.1.2/24 "$px" p0 10.203.1.1/24
nett_link "$px" p1 10.203.2.1/24 "$net" n0 10.203.2.2/24
ip -n "$sb" route add default via 10.203.1.1
ip -n "$net" route add 10.203.1.0/24 via 10.203.2.1
ip netns exec "$px" sysctl -qw net.ipv4.ip_forward=1

C="$NETT_DIR/ca"
mkdir -p "$C"
agent_ca "$C" proxy && agent_ca "$C" origin &&
	agent_leaf "$C" origin-server origin "DNS:origin.test,IP:10.203.2.2" ||
	{ echo "Bail out! cannot make certificates"; exit 1; }
chmod -R a+rX "$C"
rec="$NETT_DIR/origin.jsonl"
: >"$rec"
agent_origin "$net" origin --record "$rec" --cert "$C/origin-server.pem" --key "$C/origin-server.key" \
	--tls 10.203.2.2/443 --http 10.203.2.2/80 || { echo "Bail out! origin did not start"; exit 1; }
nett_serve "$net" outside-dns --dns 10.203.2.2/53/10.203.2.77 || { echo "Bail out! dns did not start"; exit 1; }
nett_serve "$px" own-dns --dns 10.203.1.1/53/10.203.9.9 || { echo "Bail out! dns did not start"; exit 1; }
printf '127.0.0.1 localhost\n' >"$NETT_DIR/hosts"
agent_mitm "$px" transparent "$C/proxy" "$NETT_DIR/hosts" 10.203.1.1 8443 --mode reverse:https://10.203.2.2:443 \
	-s "$SP_ROOT/tests/lib/mitm_policy.py" --set ssl_verify_upstream_trusted_ca="$C/origin.pem" --set sp_deny=denied.test ||
	{ echo "Bail out! mitmproxy did not start"; exit 1; }

# ruleset VARIANT: the sealed one, or the sealed one with one rule missing or widened
ruleset() {
	local policy=drop tls="ip daddr != 10.203.1.1 tcp dport 443 dnat ip to 10.203.1.1:8443"
	local dns="ip daddr != 10.203.1.1 udp dport 53 dnat ip to 10.203.1.1:53"
	local dnsok="ip daddr 10.203.1.1 udp dport 53 accept"
	case $1 in
	open) policy=accept ;;
	bypass) tls="" dnsok="$dnsok
		tcp dport 443 accept" ;;
	no-tls-redirect) tls="" ;;
	dns-anywhere) dns="" dnsok="udp dport 53 accept" ;;
	esac
	cat <<EOF2
table inet sandbox {
	chain nat_out {
		type nat hook output priority -100; policy accept;
		$tls
		$dns
	}
	chain out {
		type filter hook output priority 0; policy $policy;
		oifname "lo" accept
		ct state established,related accept
		ip daddr 10.203.1.1 tcp dport 8443 accept
		$dnsok
	}
}
EOF2
}
load() {
	ip netns exec "$sb" nft flush ruleset &&
		ruleset "$1" | ip netns exec "$sb" nft -f - || { echo "Bail out! nft cannot load variant $1"; exit 1; }
}
POL=(--profile host -k net.transparent --set 'expect.net.transparent.*=required'
	--set net.transparent.targets=10.203.2.2:443,10.203.2.2:80 --set tls.ca="$C/proxy.pem"
	--set net.transparent.proxy_match=sp-sandbox-proxy --set net.transparent.dns=10.203.2.2:53
	--set net.transparent.dns_name=agent.sandbox.internal --set net.transparent.resolver=10.203.1.1
	--set net.transparent.allow=10.203.1.1:8443 --set net.transparent.redirect=tcp/443,udp/53)
doc() { ip netns exec "$sb" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$SP_DOCTOR" --format json "${POL[@]}" "$@" 2>/dev/null; }
st() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | .status'; }
ev() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | "\(.detail) | \(.observed)"'; }
is_st() { # REPORT ID WANT NAME
	local got
	got=$(st "$2" "$1")
	if [ "$got" = "$3" ]; then _tap_result 0 "$4"; else _tap_result 1 "$4" "got '$got': $(ev "$2" "$1" | head -c 900)"; fi
}
# who reached the origin from sb itself since line $1 of the record
direct_hits() { tail -n +$(($1 + 1)) "$rec" | jq -r 'select(.peer == "10.203.1.2") | .listener' | sort -u | tr '\n' ' '; }
# ground truth DNS: what an outside resolver query from sb returns
dns_truth() {
	ip netns exec "$sb" python3 -c '
import socket, struct, sys
q = struct.pack("!HHHHHH", 0x5151, 0x0100, 1, 0, 0, 0) + b"".join(bytes([len(p)]) + p.encode() for p in "agent.sandbox.internal".split(".")) + b"\0\0\1\0\1"
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(1.5)
try:
    s.sendto(q, ("10.203.2.2", 53)); d = s.recv(512); print(socket.inet_ntoa(d[-4:]))
except OSError as e:
    print("none", type(e).__name__)'
}

# ---- sealed --------------------------------------------------------------------
load sealed
n=$(wc -l <"$rec")
issuer=$(ip netns exec "$sb" openssl s_client -connect 10.203.2.2:443 </dev/null 2>/dev/null | openssl x509 -noout -issuer)
like "$issuer" "sandprobe test proxy" "ground truth: a direct TLS connection from sb gets the proxy's certificate"
like "$(dns_truth)" '^10\.203\.9\.9$' "ground truth: an outside DNS query from sb is answered by the sandbox's resolver"
out=$(doc)
for id in net.transparent.direct net.transparent.dns net.transparent.ruleset; do
	is_st "$out" $id pass "sealed: $id passes"
done
like "$(ev net.transparent.direct "$out")" "10.203.2.2:443 \(direct, no proxy\): landed at the proxy" "the TLS probe landed at the proxy"
like "$(ev net.transparent.direct "$out")" "10.203.2.2:80 \(direct, no proxy\): blocked" "the plain probe was blocked"
is "$(direct_hits "$n")" "" "ground truth: nothing from sb reached the origin itself"

# ---- names through the redirect: reach the declared proxy, allowed and denied -------
VIA=(-k 'net.transparent.proxied or net.transparent.denied' --set net.transparent.proxy=10.203.1.1:8443
	--set net.transparent.allowed_hosts=allowed.test --set net.transparent.denied_hosts=denied.test)
mitmlog="$NETT_DIR/mitm-transparent.log"
m=$(wc -l <"$mitmlog")
out=$(doc "${VIA[@]}")
is_st "$out" net.transparent.proxied pass "sealed: an allowed name reaches the origin through the declared proxy"
is_st "$out" net.transparent.denied pass "sealed: a denied name is refused by the proxy on the redirected path"
sleep 0.3
TAP_NAME="ground truth: the proxy's log shows sb's requests relayed (200)" \
	ok test "$(tail -n +$((m + 1)) "$mitmlog" | grep -c '<< 200')" -ge 1
is "$(tail -n +$((m + 1)) "$mitmlog" | grep -c '<< 403')" 1 "ground truth: and one refused (403: denied.test)"
out=$(doc "${VIA[@]}" --set net.transparent.denied_hosts=other.test)
is_st "$out" net.transparent.denied fail "a 'denied' name the proxy lets through: net.transparent.denied fails"
# the declared proxy is not where anything listens: never a pass
is "$(ip netns exec "$px" ss -Htln 'sport = :8444' | wc -l)" 0 "ground truth (ss): nothing listens on 10.203.1.1:8444"
out=$(doc "${VIA[@]}" --set net.transparent.proxy=10.203.1.1:8444)
is_st "$out" net.transparent.proxied error "declared proxy not listening: net.transparent.proxied is an error"
is_st "$out" net.transparent.denied error "and net.transparent.denied too"
like "$(ev net.transparent.proxied "$out")" "does not accept a connection" "naming the dead proxy"

# ---- port 443 let straight out: the names bypass the proxy ----------------------------
load bypass
n=$(wc -l <"$rec")
out=$(doc "${VIA[@]}")
is_st "$out" net.transparent.proxied fail "443 open to anywhere, no redirect: net.transparent.proxied fails"
like "$(ev net.transparent.proxied "$out")" "BYPASSED the proxy" "naming the bypass"
is_st "$out" net.transparent.denied fail "and the denied name gets through"
like "$(direct_hits "$n")" "10.203.2.2/443" "ground truth: the origin saw sb connect itself on 443"

# ---- the default drop missing ------------------------------------------------------
load open
n=$(wc -l <"$rec")
out=$(doc)
is_st "$out" net.transparent.direct fail "without the default drop: net.transparent.direct fails"
like "$(direct_hits "$n")" "10.203.2.2/80" "ground truth: the origin saw sb's direct connection on port 80"
is_st "$out" net.transparent.ruleset fail "and net.transparent.ruleset fails"
like "$(ev net.transparent.ruleset "$out")" "no output filter chain for IPv4 drops by default" "naming the missing drop"

# ---- the TLS redirect missing ------------------------------------------------------
load no-tls-redirect
out=$(doc)
is_st "$out" net.transparent.ruleset fail "without the TLS redirect: net.transparent.ruleset fails"
like "$(ev net.transparent.ruleset "$out")" "no redirect .* for tcp/443" "naming the missing redirect"
is_st "$out" net.transparent.direct pass "the direct probe alone sees only a block (why the ruleset is read too)"
out=$(doc "${VIA[@]}")
is_st "$out" net.transparent.proxied fail "and the names on 443 no longer reach the listening proxy: proxied fails"
like "$(ev net.transparent.proxied "$out")" "did NOT reach the proxy" "naming the undelivered traffic"
is_st "$out" net.transparent.denied error "denied without a positive control: error, not a pass"

# ---- DNS allowed anywhere, not redirected --------------------------------------
load dns-anywhere
like "$(dns_truth)" '^10\.203\.2\.77$' "ground truth: now the outside resolver answers sb itself"
out=$(doc)
is_st "$out" net.transparent.dns fail "DNS to anywhere: net.transparent.dns fails"
like "$(ev net.transparent.dns "$out")" "answered 10.203.2.77 \(NOT the own resolver's answer\)" "naming the foreign answer"
is_st "$out" net.transparent.ruleset fail "and the ruleset check names the wide accept"
like "$(ev net.transparent.ruleset "$out")" "accepts any destination udp dport 53" "the rule that accepts any destination"

# ---- the same seal written with iptables-nft (xt DNAT/REDIRECT targets) --------------
ipt() { ip netns exec "$sb" iptables-nft "$@" || { echo "Bail out! iptables-nft $*"; exit 1; }; }
ipt_seal() { # TLS_TARGET: -j DNAT/REDIRECT arguments for tcp/443
	ip netns exec "$sb" nft flush ruleset
	ipt -t nat -A OUTPUT -p tcp --dport 443 ! -d 10.203.1.1 "$@"
	ipt -t nat -A OUTPUT -p udp --dport 53 ! -d 10.203.1.1 -j DNAT --to-destination 10.203.1.1:53
	ipt -A OUTPUT -o lo -j ACCEPT
	ipt -A OUTPUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
	ipt -A OUTPUT -d 10.203.1.1 -p tcp --dport 8443 -j ACCEPT
	ipt -A OUTPUT -d 10.203.1.1 -p udp --dport 53 -j ACCEPT
	ipt -P OUTPUT DROP
	ip netns exec "$sb" ip6tables-nft -A OUTPUT -o lo -j ACCEPT
	ip netns exec "$sb" ip6tables-nft -P OUTPUT DROP
}
ipt_seal -j DNAT --to-destination 10.203.1.1:8443
like "$(ip netns exec "$sb" nft -j list ruleset)" '"xt": \{"type": "target", "name": "DNAT"' \
	"ground truth: nft shows iptables-nft's DNAT as an xt expression"
out=$(doc --set net.transparent.proxy=10.203.1.1:8443)
is_st "$out" net.transparent.ruleset pass "iptables-nft seal: net.transparent.ruleset reads the xt DNAT and passes"
like "$(ev net.transparent.ruleset "$out")" "redirect tcp/443: 10\.203\.1\.1:8443" "the xt DNAT's destination read"
like "$(ev net.transparent.ruleset "$out")" "tcp/443's target 10\.203\.1\.1:8443: accepts a connection" "and its target accepts"
is_st "$out" net.transparent.direct pass "and the direct probes pass through it"

# the DNAT to a port that is not the proxy's
ipt_seal -j DNAT --to-destination 10.203.1.1:8444
# (the DNAT'd SYN to 8444 is dropped by the OUTPUT policy: a bounded connect,
# not openssl's, which waits out TCP's whole retry schedule, two minutes)
like "$(ip netns exec "$sb" python3 -c '
import socket
s = socket.socket(); s.settimeout(2)
try:
    s.connect(("10.203.2.2", 443)); print("connected")
except OSError as e:
    print("no connection:", type(e).__name__)')" "^no connection" \
	"ground truth: TCP to 10.203.2.2:443 from sb no longer connects"
out=$(doc --set net.transparent.proxy=10.203.1.1:8443)
is_st "$out" net.transparent.ruleset fail "iptables-nft DNAT to port 8444, the proxy is on 8443: fails"
like "$(ev net.transparent.ruleset "$out")" "tcp/443 goes to 10\.203\.1\.1:8444, which is not the proxy" "naming the wrong port"

# REDIRECT to a local port: the proxy must listen there, on the declared port
ipt_seal -j REDIRECT --to-ports 9443
like "$(ip netns exec "$sb" nft -a list ruleset)" "redirect to :9443" "ground truth: nft translates the xt REDIRECT"
POLR=(--set net.transparent.proxy=127.0.0.1:9443 --set net.transparent.targets=10.203.2.2:80)
out=$(doc "${POLR[@]}")
is "$(ip netns exec "$sb" ss -Htln 'sport = :9443' | wc -l)" 0 "ground truth (ss): nothing listens on 9443 in sb"
is_st "$out" net.transparent.ruleset error "REDIRECT to a port where nothing listens: error, never a pass"
like "$(ev net.transparent.ruleset "$out")" "tcp/443 goes to 127\.0\.0\.1:9443, where nothing accepts" "naming the dead target"
nett_py "$sb" lst9443 listener fakenet.py --tcp 127.0.0.1/9443 || { echo "Bail out! listener did not start"; exit 1; }
is "$(ip netns exec "$sb" ss -Htln 'sport = :9443' | wc -l)" 1 "ground truth (ss): now a listener on 9443"
out=$(doc "${POLR[@]}")
is_st "$out" net.transparent.ruleset pass "REDIRECT to the declared local proxy port, listening: passes"
out=$(doc --set net.transparent.proxy=127.0.0.1:9444 --set net.transparent.targets=10.203.2.2:80)
is_st "$out" net.transparent.ruleset fail "REDIRECT to 9443 while the proxy is declared on 9444: fails"
like "$(ev net.transparent.ruleset "$out")" "goes to local port 9443, which is not the proxy" "naming the port"
ip netns exec "$sb" nft flush ruleset

# a native dnat to the proxy's host on a port where nothing listens
load sealed
ip netns exec "$sb" nft add rule inet sandbox out ip daddr 10.203.1.1 tcp dport 8444 accept
ip netns exec "$sb" nft flush chain inet sandbox nat_out
ip netns exec "$sb" nft add rule inet sandbox nat_out ip daddr != 10.203.1.1 tcp dport 443 dnat ip to 10.203.1.1:8444
ip netns exec "$sb" nft add rule inet sandbox nat_out ip daddr != 10.203.1.1 udp dport 53 dnat ip to 10.203.1.1:53
is "$(ip netns exec "$px" ss -Htln 'sport = :8444' | wc -l)" 0 "ground truth (ss): nothing listens on the proxy host's 8444"
out=$(doc --set net.transparent.allow=10.203.1.1:8443,10.203.1.1:8444)
is_st "$out" net.transparent.ruleset error "dnat to a dead port the policy allows: error, not a pass (blocked is not delivered)"

# ---- policy errors and a ruleset file ----------------------------------------------
load sealed
ip netns exec "$sb" nft -j list ruleset >"$NETT_DIR/ruleset.json"
out=$(ip netns exec "$sb" env -i PATH=/nonexistent "$SP_DOCTOR" --format json "${POL[@]}" \
	--set net.transparent.ruleset="$NETT_DIR/ruleset.json" 2>/dev/null)
is_st "$out" net.transparent.ruleset pass "the ruleset read from a file (nft not on PATH) passes"
echo '{"nftables": 3}' >"$NETT_DIR/bad.json"
out=$(doc --set net.transparent.ruleset="$NETT_DIR/bad.json")
is_st "$out" net.transparent.ruleset error "a file that is no nftables ruleset is an error"
out=$(doc --set net.transparent.dns_name=)
is_st "$out" net.transparent.dns error "no dns_name: cannot tell the resolvers apart, an error"
done_testing
