#!/usr/bin/env bash
# Direct egress against a fake internet built from namespaces this test owns.
#   out:    the "internet": TCP listeners, an HTTP origin, DNS responders
#   open:   a sandbox with a path to it           -> egress checks must FAIL
#   empty:  a sandbox with only lo                 -> must PASS, in a few ms
#   filt:   a path, but nftables drops it (EPERM)  -> must PASS (filtered)
#   drop:   a path, but the far side drops (no answer) -> PASS (timeout), in ~1 timeout
# The doctor's default targets are always replaced with --set.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/net.sh"
need jq
nett_init

nett_ns out out
nett_ns open open
nett_ns empty empty
nett_ns filt filt
nett_ns drop drop
nett_link "$open" s0 10.203.0.2/24 "$out" o0 10.203.0.1/24 fd00:5a9d::2/64 fd00:5a9d::1/64
nett_link "$filt" s0 10.203.1.2/24 "$out" o1 10.203.1.1/24
nett_link "$drop" s0 10.203.3.2/24 "$out" o3 10.203.3.1/24
# the far side of "drop" silently discards everything from that sandbox
if command -v nft >/dev/null; then
	nftq() { ip netns exec "$1" nft "${@:2}" || { echo "Bail out! nft $*"; exit 1; }; }
	nftq "$out" add table inet spdrop
	nftq "$out" add chain inet spdrop in '{ type filter hook input priority 0; }'
	nftq "$out" add rule inet spdrop in iifname o3 drop
	nftq "$filt" add table inet spfilt
	nftq "$filt" add chain inet spfilt out '{ type filter hook output priority 0; }'
	nftq "$filt" add rule inet spfilt out oifname s0 drop
	have_nft=1
else
	have_nft=0
fi

# ping sockets allowed in the leaky sandbox, as Docker allows them by default
ip netns exec "$open" sh -c 'echo "0 2147483647" >/proc/sys/net/ipv4/ping_group_range'
nett_serve "$out" out --tcp 0.0.0.0/80 --tcp 0.0.0.0/443 --tcp 0.0.0.0/2222 --tcp ::/8443 --udp 0.0.0.0/80 \
	--dns 0.0.0.0/53/10.203.0.77 --dns 0.0.0.0/5353/10.203.0.99 --dns 0.0.0.0/5354/nx ||
	{ echo "Bail out! fake internet did not start"; exit 1; }

# targets in the fake internet, reached through whatever path each sandbox has
targets() { # PREFIX (10.203.0 / 10.203.1 / 10.203.3)
	local p=$1
	echo --set "net.egress.deny=$p.1:80,$p.1:81,[fd00:5a9d::1]:8443"
	echo --set "net.egress.dns=$p.1:53"
	echo --set "net.egress.metadata=$p.1:443"
	echo --set "net.egress.allow=$p.1:2222"
	echo --set "net.egress.ports=80,2222,443"
	echo --set "net.dns.resolvers=$p.1:53"
	echo --set "net.dns.unlisted=unlisted.example"
}
K='net. and not proxy'

# --- the leaky sandbox: every probe class must be caught ---------------------
rep=$(nett_doctor "$open" -k "$K" $(targets 10.203.0))
rc=$?
is "$rc" 1 "open sandbox: doctor exits 1"
is "$(st net.egress "$rep")" fail "open: TCP to deny targets fails"
like "$(obs net.egress "$rep")" 'tcp 10\.203\.0\.1:80: connected' "open: connected probe reported as connected"
like "$(obs net.egress "$rep")" 'tcp 10\.203\.0\.1:81: refused \(ECONNREFUSED' "open: RST is classified refused (a packet came back) and counts as a leak"
is "$(st net.egress.udp "$rep")" fail "open: UDP to deny targets answered or refused"
like "$(obs net.egress.udp "$rep")" 'udp 10\.203\.0\.1:80: replied' "open: UDP echo reply classified replied"
like "$(obs net.egress.udp "$rep")" 'udp 10\.203\.0\.1:81: refused \(ECONNREFUSED' "open: ICMP port unreachable classified refused"
is "$(st net.egress.icmp "$rep")" fail "open: ICMP echo answered"
like "$(obs net.egress.icmp "$rep")" 'icmp echo 10\.203\.0\.1: replied' "open: echo reply through a ping socket"
is "$(st net.egress.ipv6 "$rep")" fail "open: IPv6 deny target reached" || echo "# $(obs net.egress.ipv6 "$rep")"
is "$(st net.egress.direct_ip "$rep")" fail "open: octal/hex/integer/v4-mapped forms reached"
like "$(obs net.egress.direct_ip "$rep")" '012\.0313\.00\.01:80 \(octal\): connected' "open: octal form decoded and probed"
like "$(obs net.egress.direct_ip "$rep")" '\[::ffff:10\.203\.0\.1\]:80: connected' "open: v4-mapped IPv6 socket reaches the IPv4 target"
is "$(st net.egress.resolver "$rep")" fail "open: UDP DNS to the outside resolver answered"
is "$(st net.egress.metadata "$rep")" fail "open: metadata stand-in reached"
is "$(st net.egress.ports "$rep")" fail "open: non-allowed ports on the allowed host reachable"
is "$(st net.egress.allow "$rep")" pass "open: positive control (allowed target) reachable"
is "$(st net.lookup "$rep")" fail "open: unlisted name resolved by the resolver"
like "$(obs net.lookup "$rep")" 'RESOLVED to 10\.203\.0\.77' "open: resolved address shown"
is "$(st net.interfaces "$rep")" fail "open: extra interface s0 outside the policy"
is "$(st net.default_route "$rep")" pass "open: no default route (only a connected subnet)"

# ping sockets refused by the kernel (the default ping_group_range): ICMP blocked
ip netns exec "$open" sh -c 'echo "1 0" >/proc/sys/net/ipv4/ping_group_range'
rep=$(nett_doctor "$open" -k net.egress.icmp $(targets 10.203.0))
is "$(st net.egress.icmp "$rep")" pass "ping sockets not permitted: ICMP egress blocked"
like "$(obs net.egress.icmp "$rep")" 'filtered \(EACCES' "classified as filtered (EACCES)"

# fake-address resolver and NXDOMAIN resolver are acceptable answers
rep=$(nett_doctor "$open" -k net.lookup --set net.dns.resolvers=10.203.0.1:5353 \
	--set net.dns.unlisted=a.example --set net.dns.fake_address=10.203.0.99)
is "$(st net.lookup "$rep")" pass "DNS answering only the policy's fake address passes"
rep=$(nett_doctor "$open" -k net.lookup --set net.dns.resolvers=10.203.0.1:5354 --set net.dns.unlisted=a.example)
is "$(st net.lookup "$rep")" pass "DNS answering NXDOMAIN passes"
rep=$(nett_doctor "$open" -k net.lookup --set net.dns.resolvers=10.203.0.1:5353 --set net.dns.unlisted=a.example)
is "$(st net.lookup "$rep")" fail "an answer that is not the fake address fails"

# net.listening: the declared services answer (ground truth: ss in the fake internet)
is "$(ip netns exec "$out" ss -Htln 'sport = :2222' | wc -l)" 1 "ground truth (ss): a TCP listener on 2222"
is "$(ip netns exec "$out" ss -Htln 'sport = :2223' | wc -l)" 0 "ground truth (ss): none on 2223"
is "$(ip netns exec "$out" ss -Huln 'sport = :5399' | wc -l)" 0 "ground truth (ss): no UDP socket on 5399"
rep=$(nett_doctor "$open" -k net.listening --set net.listening.tcp=10.203.0.1:2222 --set net.listening.dns=10.203.0.1:5354)
is "$(st net.listening "$rep")" pass "a listening TCP service and an answering DNS forwarder: pass"
rep=$(nett_doctor "$open" -k net.listening --set net.listening.tcp=10.203.0.1:2223 --set net.listening.dns=10.203.0.1:5354)
is "$(st net.listening "$rep")" fail "nothing on the declared TCP port: fail"
rep=$(nett_doctor "$open" -k net.listening --set net.listening.tcp=10.203.0.1:2222 --set net.listening.dns=10.203.0.1:5399)
is "$(st net.listening "$rep")" fail "no DNS forwarder on the declared port: fail"
rep=$(nett_doctor "$open" -k net.listening --set net.listening.dns=10.203.0.1:80)
is "$(st net.listening "$rep")" fail "a UDP echo is no DNS answer: fail"
rep=$(nett_doctor "$open" -k net.listening)
is "$(st net.listening "$rep")" skip "nothing declared: skip"

# a resolver address where nothing listens: refused, no resolver tested, never a pass
rep=$(nett_doctor "$open" -k net.lookup --set net.dns.resolvers=10.203.0.1:5399 --set net.dns.unlisted=a.example)
is "$(st net.lookup "$rep")" error "no resolver listening (ICMP port unreachable): net.lookup is an error"
like "$(obs net.lookup "$rep")" 'refused \(ECONNREFUSED' "the refusal is shown"

# a deny target that is the sandbox's own address: a refusal from its own
# stack is no answer from outside (neither a leak nor a block)
rep=$(nett_doctor "$open" -k 'net.egress.udp or net.egress' --set 'net.egress.deny=127.0.0.1:9,10.203.0.2:9')
is "$(st net.egress "$rep")" error "TCP to the sandbox's own addresses: refused locally, not proven (no FAIL, no PASS)"
is "$(st net.egress.udp "$rep")" error "UDP to them: the same"
like "$(obs net.egress.udp "$rep")" "own address: nothing left the sandbox" "naming the sandbox's own address"

# a UDP refusal from outside names its sender (IP_RECVERR), and the
# outside host's own counter (nft) shows the packet arrived
if [ "$have_nft" = 1 ]; then
	nett_ns redir redir
	nett_link "$redir" s0 10.203.4.2/24 "$out" o4 10.203.4.1/24
	nftq "$out" add table inet spcount
	nftq "$out" add chain inet spcount in '{ type filter hook input priority 0; }'
	nftq "$out" add rule inet spcount in iifname o4 udp dport 81 counter
	rep=$(nett_doctor "$redir" -k net.egress.udp --set 'net.egress.deny=10.203.4.1:81')
	is "$(st net.egress.udp "$rep")" fail "the outside host refuses: a leak"
	like "$(obs net.egress.udp "$rep")" 'refused by 10\.203\.4\.1\)' "refused by the outside host, named"
	like "$(ip netns exec "$out" nft list chain inet spcount in)" 'packets [1-9]' "ground truth: the packet reached the outside"
else
	for _ in 1 2 3; do skip "nft not installed"; done
fi

# --- the empty sandbox: everything blocked, immediately ----------------------
start=$(date +%s%N)
rep=$(nett_doctor "$empty" -k "$K" $(targets 10.203.0) --set net.egress.allow=)
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
for id in net.egress net.egress.ipv6 net.egress.udp net.egress.icmp net.egress.direct_ip net.egress.resolver net.egress.metadata \
	net.interfaces net.default_route; do
	is "$(st $id "$rep")" pass "empty netns: $id passes"
done
is "$(st net.lookup "$rep")" error "empty netns: no resolver answers, so net.lookup is an error, not a pass"
like "$(printf '%s' "$rep" | jq -r '.results[] | select(.id=="net.lookup") | .detail')" "no resolver answered" \
	"naming why"
is "$rc" 1 "empty netns: doctor exits 1 (the lookup error)"
like "$(obs net.egress "$rep")" 'unreachable \(ENETUNREACH' "empty: ENETUNREACH classified unreachable"
batch=$(printf '%s' "$rep" | jq -r '.results[] | select(.id=="net.egress") | .duration_us')
ok test "$batch" -lt 200000
echo "# empty netns: whole run ${ms} ms (process start included), egress batch ${batch} us"

# --- filtered by a local nftables rule: EPERM, still a block -------------------
if [ "$have_nft" = 1 ]; then
	rep=$(nett_doctor "$filt" -k "$K" $(targets 10.203.1) --set net.egress.allow= \
		--set 'net.egress.deny=10.203.1.1:80,10.203.1.1:81' --set net.interfaces=lo,s0)
	is "$(st net.egress "$rep")" pass "nft-filtered sandbox: TCP egress blocked (SYN dropped: timeout)"
	is "$(st net.egress.resolver "$rep")" pass "nft-filtered sandbox: UDP DNS blocked"
	like "$(obs net.egress.resolver "$rep")" 'filtered \(EPERM' "nft drop on output classified as filtered (EPERM on send)"

	# --- far side drops: every probe times out, all in parallel ----------------
	rep=$(nett_doctor "$drop" -k "$K" $(targets 10.203.3) --set net.egress.allow= \
		--set 'net.egress.deny=10.203.3.1:80,10.203.3.1:81' --set net.egress.timeout_ms=600 \
		--set net.interfaces=lo,s0)
	is "$(st net.egress "$rep")" pass "silently dropped: egress blocked"
	like "$(obs net.egress "$rep")" 'timeout \(ETIMEDOUT' "silent drop classified as timeout"
	total=$(printf '%s' "$rep" | jq '[.results[] | .duration_us] | add')
	echo "# drop sandbox: all net checks together ${total} us with a 600 ms probe timeout"
	ok test "$total" -lt 720000 # one timeout + 20 %, not one per probe
else
	skip "nft not installed (filtered sandbox)"
	skip "nft not installed"
	skip "nft not installed"
	skip "nft not installed (drop sandbox)"
	skip "nft not installed"
	skip "nft not installed"
fi

# --- a real sandbox runtime in the leaky namespace: bwrap with and without
# its own network namespace ------------------------------------------------------
if command -v bwrap >/dev/null; then
	box() { ip netns exec "$open" bwrap --ro-bind / / --proc /proc --dev /dev "$@" \
		"$SP_DOCTOR" --format json -k 'egress and not proxy' $(targets 10.203.0) --set net.egress.allow=; }
	rep=$(box --unshare-net)
	is "$(st net.egress "$rep")" pass "bwrap --unshare-net inside the leaky namespace: egress blocked"
	rep=$(box)
	is "$(st net.egress "$rep")" fail "bwrap sharing the leaky namespace: egress reached"
	# seccomp refusing socket(AF_INET/AF_INET6) in the leaky namespace: by
	# EPERM, and by killing the caller (the doctor must survive and report)
	nett_tmpdir bpf
	"$SP_HELPERS/net_seccomp" eperm >"$bpf/eperm" && "$SP_HELPERS/net_seccomp" kill >"$bpf/kill"
	rep=$(box --seccomp 9 9<"$bpf/eperm")
	is "$(st net.egress "$rep")" pass "seccomp EPERM on socket(): egress blocked"
	like "$(obs net.egress "$rep")" 'filtered \(EPERM' "classified filtered (EPERM)"
	rep=$(box --seccomp 9 9<"$bpf/kill")
	is "$(st net.egress "$rep")" pass "seccomp killing socket(): egress blocked, doctor survives"
	like "$(obs net.egress "$rep")" 'filtered \(socket\(\) killed by seccomp: SIGSYS\)' "classified filtered (SIGSYS)"
	is "$(st net.egress.udp "$rep")" pass "SIGSYS: UDP probes decided too"
	is "$(printf '%s' "$rep" | jq -r .result)" pass "SIGSYS: the report is complete"
else
	for _ in 1 2 3 4 5 6 7 8; do skip "bwrap not installed"; done
fi

# a malformed target is a usage error naming the key, before any packet, never a pass
nett_doctor "$empty" -k net.egress --set 'net.egress.deny=example.com:80' >"$NETT_DIR/bad.out" 2>"$NETT_DIR/bad.err"
is "$?" 2 "a name instead of an IP literal in net.egress.deny is a usage error"
like "$(cat "$NETT_DIR/bad.err")" "^sandprobe: --set net.egress.deny=example.com:80: net.egress.deny: 'example.com:80': 'example.com' is not an IP literal" \
	"one line naming the argument, the policy key and the entry"

done_testing
