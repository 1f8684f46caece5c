#!/usr/bin/env bash
# net.resolver.*: the sandbox's resolver as an agent sandbox uses it, against a
# tiny DNS server (tests/lib/dnsd.py, UDP and TCP) in a namespace this test
# owns, reached over a veth from the "sandbox" namespace.
#   good:  answers UDP and TCP, NXDOMAIN for unknown names, fake.test=10.204.0.9
#   udponly: TCP not served                      -> transports FAIL
#   tconly: UDP replies all truncated (TC), TCP not served -> transports FAIL,
#           net.lookup ERROR (no answer anywhere), never PASS
#   tcliar: UDP replies truncated, TCP answers every name with an address
#           -> net.lookup FAIL (the name resolves over TCP)
#   big.test: 40 addresses, over 512 bytes: TC over UDP, whole over TCP
#   tcpjunk: TCP answered with bytes that are not DNS -> transports FAIL
#   liar:  every name answered with 10.204.0.66  -> nxdomain FAIL, fake FAIL
# Ground truth: the server's own log of what it was asked and answered.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/net.sh"
need jq
nett_init

nett_ns out out
nett_ns sb sb
nett_link "$sb" s0 10.204.0.2/24 "$out" o0 10.204.0.1/24
L=$NETT_DIR
dns() { # NAME PORT ARGS...
	local n=$1 p=$2
	shift 2
	nett_py "$out" "$n" dnsd dnsd.py --listen 10.204.0.1/"$p" --log "$L/$n.q" "$@" ||
		{ echo "Bail out! dnsd $n did not start"; exit 1; }
}
dns good 53 --zone fake.test=10.204.0.9 --zone api.test=10.204.0.10 --big big.test=40
dns udponly 5301 --tcp none --zone api.test=10.204.0.10 --big big.test=40
dns tconly 5304 --udp tc --tcp none --zone api.test=10.204.0.10
dns tcliar 5305 --udp tc --other 10.204.0.66
dns tcpjunk 5302 --tcp garbage --zone api.test=10.204.0.10
dns liar 5303 --other 10.204.0.66
# ground truth: the servers listen where the test says (ss in their namespace)
ss=$(ip netns exec "$out" ss -Hlnu; ip netns exec "$out" ss -Hlnt)
like "$ss" '10\.204\.0\.1:53 ' "ss: the good server listens on 53"
unlike "$(ip netns exec "$out" ss -Hlnt)" '10\.204\.0\.1:5301 ' "ss: the UDP-only server has no TCP listener"

d() { nett_doctor "$sb" "$@"; }
det() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | .detail'; }
# --- net.resolver.transports ------------------------------------------
rep=$(d -k net.resolver.transports --set net.dns.server=10.204.0.1 --set net.dns.query=api.test)
is "$(st net.resolver.transports "$rep")" pass "transports: answered over UDP and TCP"
like "$(obs net.resolver.transports "$rep")" 'UDP api\.test: NOERROR 10\.204\.0\.10.*TCP api\.test: NOERROR 10\.204\.0\.10' "transports: both answers shown"
like "$(cat "$L/good.q")" 'udp api\.test 1 0 10\.204\.0\.10' "server log: the UDP query arrived"
like "$(cat "$L/good.q")" 'tcp api\.test 1 0 10\.204\.0\.10' "server log: the TCP query arrived"
rep=$(d -k net.resolver.transports --set net.dns.server=10.204.0.1:5301 --set net.dns.query=api.test)
is "$(st net.resolver.transports "$rep")" fail "transports: a resolver without TCP fails"
like "$(obs net.resolver.transports "$rep")" 'TCP api\.test: no TCP connection' "transports: the TCP refusal is named"
rep=$(d -k net.resolver.transports --set net.dns.server=10.204.0.1:5302 --set net.dns.query=api.test)
is "$(st net.resolver.transports "$rep")" fail "transports: garbage over TCP is no answer"
rep=$(d -k net.resolver.transports --set net.dns.server=10.204.0.1:5399 --set net.dns.query=api.test)
is "$(st net.resolver.transports "$rep")" error "transports: no server at all is an error, not a pass"
like "$(det net.resolver.transports "$rep")" '10\.204\.0\.1:5399' "transports: the error names the resolver"
rep=$(d -k net.resolver.transports)
is "$(st net.resolver.transports "$rep")" skip "transports: nothing declared: skip"
# a large answer: truncated over UDP, whole over TCP
rep=$(d -k net.resolver.transports --set net.dns.server=10.204.0.1 --set net.dns.large=big.test)
is "$(st net.resolver.transports "$rep")" pass "transports: the large answer came whole over TCP"
like "$(obs net.resolver.transports "$rep")" 'UDP big\.test: truncated \(TC\) NOERROR.*TCP big\.test: NOERROR 10\.205\.0\.1, .*\(40 addresses\)' \
	"transports: TC over UDP, 40 addresses over TCP"
like "$(cat "$L/good.q")" 'udp big\.test 1 0 tc' "server log: the UDP reply to big.test was sent truncated"
like "$(cat "$L/good.q")" 'tcp big\.test 1 0 10\.205\.0\.1' "server log: the TCP reply to big.test carried the addresses"
rep=$(d -k net.resolver.transports --set net.dns.server=10.204.0.1:5301 --set net.dns.large=big.test)
is "$(st net.resolver.transports "$rep")" fail "transports: a truncated answer with no TCP to complete it fails"
like "$(obs net.resolver.transports "$rep")" 'big\.test: truncated over UDP and not answered whole over TCP' "transports: the lost answer is named"
rep=$(d -k net.resolver.transports --set net.dns.server=10.204.0.1:5304 --set net.dns.query=api.test)
is "$(st net.resolver.transports "$rep")" fail "transports: TC over UDP and TCP refused fails"
like "$(obs net.resolver.transports "$rep")" 'UDP api\.test: truncated \(TC\)' "transports: the truncated UDP reply is shown"
rep=$(d -k net.resolver.transports --set net.dns.server=10.204.0.1 --set net.dns.large=api.test)
is "$(st net.resolver.transports "$rep")" error "transports: a 'large' name that fits in UDP proves nothing: error"

# --- net.lookup over TCP ------------------------------------------------------
rep=$(d -k net.lookup --set net.dns.resolvers=10.204.0.1 --set net.dns.unlisted=exfil.example)
is "$(st net.lookup "$rep")" pass "lookup: NXDOMAIN over UDP and TCP passes"
like "$(obs net.lookup "$rep")" 'tcp 10\.204\.0\.1:53 A\? exfil\.example: NXDOMAIN' "lookup: the TCP answer is shown"
like "$(cat "$L/good.q")" 'tcp exfil\.example 28 3 -' "server log: the AAAA query came over TCP"
rep=$(d -k net.lookup --set net.dns.resolvers=10.204.0.1:5304 --set net.dns.unlisted=exfil.example)
is "$(st net.lookup "$rep")" error "lookup: only truncated UDP replies and no TCP: no resolver tested, error"
like "$(det net.lookup "$rep")" 'truncated and TCP gave no answer' "lookup: the error says why"
rep=$(d -k net.lookup --set net.dns.resolvers=10.204.0.1:5305 --set net.dns.unlisted=exfil.example)
is "$(st net.lookup "$rep")" fail "lookup: a name resolving over TCP after TC fails"
like "$(obs net.lookup "$rep")" 'tcp 10\.204\.0\.1:5305 A\? exfil\.example: RESOLVED to 10\.204\.0\.66' "lookup: the TCP answer is named"
like "$(cat "$L/tcliar.q")" 'tcp exfil\.example 1 0 10\.204\.0\.66' "server log: the lie went out over TCP"
# the resolver from /etc/resolv.conf when net.dns.server is unset
rc="$L/resolv.conf"
printf '# test\nnameserver 10.204.0.1\nnameserver 10.204.0.250\n' >"$rc"
rep=$(ip netns exec "$sb" unshare -m sh -c 'mount --bind "$1" /etc/resolv.conf && shift && exec "$@"' sh "$rc" \
	"$SP_DOCTOR" --format json -k net.resolver.transports --set net.dns.query=api.test)
is "$(st net.resolver.transports "$rep")" pass "transports: the first nameserver of /etc/resolv.conf is asked"
like "$(obs net.resolver.transports "$rep")" '10\.204\.0\.1 \(first nameserver of /etc/resolv.conf\)' "transports: the resolver's source is named"

# --- net.resolver.nxdomain --------------------------------------------------------
rep=$(d -k net.resolver.nxdomain --set net.dns.server=10.204.0.1 --set net.dns.nxdomain=exfil.example,evil.test)
is "$(st net.resolver.nxdomain "$rep")" pass "nxdomain: unknown names get NXDOMAIN"
like "$(cat "$L/good.q")" 'udp exfil\.example 1 3 -' "server log: NXDOMAIN sent for exfil.example"
rep=$(d -k net.resolver.nxdomain --set net.dns.server=10.204.0.1:5303 --set net.dns.nxdomain=exfil.example)
is "$(st net.resolver.nxdomain "$rep")" fail "nxdomain: a resolver answering with an address fails"
like "$(obs net.resolver.nxdomain "$rep")" 'exfil\.example: NOERROR 10\.204\.0\.66' "nxdomain: the address given is shown"
rep=$(d -k net.resolver.nxdomain --set net.dns.server=10.204.0.1 --set net.dns.nxdomain=api.test)
is "$(st net.resolver.nxdomain "$rep")" fail "nxdomain: a name in the zone resolves: fail"
rep=$(d -k net.resolver.nxdomain --set net.dns.server=10.204.0.1:5399 --set net.dns.nxdomain=exfil.example)
is "$(st net.resolver.nxdomain "$rep")" error "nxdomain: no answer is an error"
rep=$(d -k net.resolver.nxdomain)
is "$(st net.resolver.nxdomain "$rep")" skip "nxdomain: nothing declared: skip"

# --- net.resolver.fake ------------------------------------------------------------
rep=$(d -k net.resolver.fake --set net.dns.server=10.204.0.1 --set net.dns.fake=fake.test=10.204.0.9)
is "$(st net.resolver.fake "$rep")" pass "fake: the name maps to the declared address"
rep=$(d -k net.resolver.fake --set net.dns.server=10.204.0.1:5303 --set net.dns.fake=fake.test=10.204.0.9)
is "$(st net.resolver.fake "$rep")" fail "fake: another address fails"
like "$(obs net.resolver.fake "$rep")" 'fake\.test: NOERROR 10\.204\.0\.66' "fake: the address given is shown"
rep=$(d -k net.resolver.fake --set net.dns.server=10.204.0.1 --set net.dns.fake=nothere.test=10.204.0.9)
is "$(st net.resolver.fake "$rep")" fail "fake: NXDOMAIN for a faked name fails"
rep=$(d -k net.resolver.fake --set net.dns.server=10.204.0.1:5399 --set net.dns.fake=fake.test=10.204.0.9)
is "$(st net.resolver.fake "$rep")" error "fake: no answer is an error"
rep=$(d -k net.resolver.fake)
is "$(st net.resolver.fake "$rep")" skip "fake: nothing declared: skip"
out=$(d -k net.resolver.fake --set net.dns.fake=fake.test=10.204 2>&1); rc=$?
is "$rc" 2 "fake: a malformed NAME=IP is a usage error"
like "$out" 'net\.dns\.fake' "fake: the error names the key"
done_testing
