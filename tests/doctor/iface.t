#!/usr/bin/env bash
# net.iface.*: interface facts, in namespaces this test owns (veth pairs are
# virtual; addresses and routes set with ip). Ground truth: ip addr / ip route
# and /sys/class/net read by the test itself.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/net.sh"
need jq
nett_init

nett_ns a a
nett_ns b b
nett_link "$a" s0 10.205.0.2/24 "$b" o0 10.205.0.1/24 fd00:5a9e::2/64 fd00:5a9e::1/64
ip -n "$a" route add default via 10.205.0.1
d() { nett_doctor "$1" "${@:2}"; }
like "$(ip -n "$a" -4 addr show s0)" 'inet 10\.205\.0\.2/24' "ip: s0 has 10.205.0.2/24"

# --- net.iface.address -------------------------------------------------------
rep=$(d "$a" -k net.iface.address --set 'net.iface.addresses=s0=10.205.0.2/24,s0=fd00:5a9e::2/64,lo=127.0.0.1')
is "$(st net.iface.address "$rep")" pass "address: the declared addresses are there"
rep=$(d "$a" -k net.iface.address --set 'net.iface.addresses=s0=10.205.0.2/16')
is "$(st net.iface.address "$rep")" fail "address: another prefix length fails"
like "$(obs net.iface.address "$rep")" 's0: 10\.205\.0\.2/24, not /16' "address: the real length is shown"
rep=$(d "$a" -k net.iface.address --set 'net.iface.addresses=s0=10.205.0.9')
is "$(st net.iface.address "$rep")" fail "address: an address not assigned fails"
rep=$(d "$a" -k net.iface.address --set 'net.iface.addresses=eth7=10.205.0.2')
is "$(st net.iface.address "$rep")" fail "address: a missing interface fails"
like "$(obs net.iface.address "$rep")" 'eth7: no such interface' "address: the missing interface is named"
rep=$(d "$a" -k net.iface.address)
is "$(st net.iface.address "$rep")" skip "address: nothing declared: skip"
out=$(d "$a" -k net.iface.address --set 'net.iface.addresses=s0=10.205.0.2/40' 2>&1); rc=$?
is "$rc" 2 "address: /40 on IPv4 is a usage error"

# --- net.iface.virtual -------------------------------------------------------
rep=$(d "$a" -k net.iface.virtual --set net.iface.no_physical=true)
is "$(st net.iface.virtual "$rep")" pass "virtual: lo and a veth are virtual"
rep=$(d "$a" -k net.iface.virtual)
is "$(st net.iface.virtual "$rep")" skip "virtual: nothing declared: skip"
# a real device: the host namespace's NIC when it has one (read only: sysfs)
real=$(for i in /sys/class/net/*; do [ -e "$i/device" ] && basename "$i"; done | head -1)
if [ -n "$real" ]; then
	rep=$("$SP_DOCTOR" --format json -k net.iface.virtual --set net.iface.no_physical=true)
	is "$(st net.iface.virtual "$rep")" fail "virtual: the host's $real (a device link) fails"
	like "$(obs net.iface.virtual "$rep")" "$real: a device" "virtual: the real device is named"
	rep=$("$SP_DOCTOR" --format json -k net.iface.virtual --set net.iface.no_physical=true \
		--set "net.iface.physical_allowed=$(for i in /sys/class/net/*; do [ -e "$i/device" ] && basename "$i"; done | paste -sd,)")
	is "$(st net.iface.virtual "$rep")" pass "virtual: the host's devices, allowed, pass"
else
	for _ in 1 2 3; do skip "this host has no interface with a device link"; done
fi

# --- net.iface.default_route -------------------------------------------------
like "$(ip -n "$a" route show default)" 'default via 10\.205\.0\.1' "ip: a has a default route"
is "$(ip -n "$b" route show default)" "" "ip: b has none"
rep=$(d "$a" -k net.iface.default_route --set net.iface.default_route=present)
is "$(st net.iface.default_route "$rep")" pass "default_route: present where declared present"
rep=$(d "$b" -k net.iface.default_route --set net.iface.default_route=present)
is "$(st net.iface.default_route "$rep")" fail "default_route: absent where declared present fails"
rep=$(d "$b" -k net.iface.default_route --set net.iface.default_route=absent)
is "$(st net.iface.default_route "$rep")" pass "default_route: absent where declared absent"
rep=$(d "$a" -k net.iface.default_route --set net.iface.default_route=absent)
is "$(st net.iface.default_route "$rep")" fail "default_route: present where declared absent fails"
# net.default_route = true allows a route: a pass rests on the route seen, none is a skip
rep=$(d "$a" -k net.default_route --set net.default_route=true)
is "$(st net.default_route "$rep")" pass "net.default_route=true: the route a has passes"
rep=$(d "$b" -k net.default_route --set net.default_route=true)
is "$(st net.default_route "$rep")" skip "net.default_route=true: no route in b is a skip, not a pass"
rep=$(d "$a" -k net.default_route --set net.default_route=false)
is "$(st net.default_route "$rep")" fail "net.default_route=false: the route a has fails"
ip -n "$b" -6 route add default via fd00:5a9e::2 dev o0
rep=$(d "$b" -k net.iface.default_route --set net.iface.default_route=absent)
is "$(st net.iface.default_route "$rep")" fail "default_route: an IPv6 default route alone fails absent"
rep=$(d "$a" -k net.iface.default_route --set net.iface.default_route=any)
is "$(st net.iface.default_route "$rep")" skip "default_route: any: skip"
done_testing
