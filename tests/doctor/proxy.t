#!/usr/bin/env bash
# Proxy-aware egress probes against a real squid, configured by this test.
#   sb  (10.203.1.2) --- px (10.203.1.1 | 10.203.2.1: squid) --- net (10.203.2.2, .3: origin)
# The sandbox has no route past the proxy's namespace and px does not forward,
# so the only way out is through squid. Names resolve through squid's
# hosts_file (never real DNS). The correct config must PASS every probe; each
# config with one hole must FAIL the probe that covers that hole; the origin's
# own record proves a refused large body never arrived.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/net.sh"
need jq
need squid
nett_init

nett_ns sb sb
nett_ns px px
nett_ns net net
nett_link "$sb" s0 10.203.1.2/24 "$px" p0 10.203.1.1/24
nett_link "$px" p1 10.203.2.1/24 "$net" n0 10.203.2.2/24
ip -n "$net" addr add 10.203.2.3/24 dev n0
rec="$NETT_DIR/origin.jsonl"
: >"$rec"
nett_serve "$net" origin --http 0.0.0.0/80 --http 0.0.0.0/443 --record "$rec" ||
	{ echo "Bail out! origin did not start"; exit 1; }

D="$NETT_DIR/squid"
mkdir -p "$D"
chmod 777 "$D"
cat >"$D/hosts" <<'EOF'
10.203.2.2 allowed.test ro.test canary.test
10.203.2.3 rebind.allowed.test
EOF

# squid_conf HOLE: the correct policy, or the correct policy with one hole
squid_conf() {
	local hole=$1
	cat <<EOF
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
forwarded_for delete
acl allowed dstdomain .allowed.test ro.test
acl readonly dstdomain ro.test
acl writes method POST PUT PATCH DELETE
acl internal dst 10.203.2.3/32 169.254.0.0/16
acl CONNECT method CONNECT
acl chunked req_header Transfer-Encoding -i chunked
EOF
	[ "$hole" = connect ] && echo "http_access allow CONNECT"
	echo "http_access deny CONNECT"
	[ "$hole" = private ] || echo "http_access deny internal"
	[ "$hole" = post ] || echo "http_access deny readonly writes"
	# a body whose size is unknown up front cannot be judged before it is forwarded
	[ "$hole" = body ] || echo "http_access deny chunked"
	echo "http_access allow allowed"
	echo "http_access deny all"
	[ "$hole" = body ] || echo "request_body_max_size 64 KB"
}

SQUID_PID=""
squid_start() { # HOLE
	squid_conf "$1" >"$D/squid.conf"
	rm -f "$D/access.log" "$D/squid.pid"
	touch "$D/access.log"
	chmod 666 "$D/access.log"
	ip netns exec "$px" squid -N -f "$D/squid.conf" >"$D/squid.out" 2>&1 &
	SQUID_PID=$!
	for _ in $(seq 1 100); do
		ip netns exec "$px" bash -c 'exec 3<>/dev/tcp/10.203.1.1/3128' 2>/dev/null && return 0
		kill -0 "$SQUID_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "# squid did not start:"; sed 's/^/#   /' "$D/squid.out" "$D/cache.log" 2>/dev/null | tail -20
	return 1
}
squid_stop() {
	[ -n "$SQUID_PID" ] || return 0
	kill "$SQUID_PID" 2>/dev/null
	wait "$SQUID_PID" 2>/dev/null
	SQUID_PID=""
}
at_exit squid_stop

doctor() {
	nett_doctor "$sb" -k net.proxy \
		--set net.proxy=http://10.203.1.1:3128 \
		--set net.proxy.allowed_hosts=allowed.test \
		--set net.proxy.readonly_hosts=ro.test \
		--set net.proxy.canary_host=canary.test \
		--set net.proxy.private_host=rebind.allowed.test \
		--set "net.proxy.access_log=$D/access.log" \
		--set net.egress.deny=10.203.2.2:80 \
		--set net.proxy.body_bytes=1048576 --set net.proxy.late_ms=200 \
		--set net.egress.timeout_ms=3000 "$@"
}
PROBES="net.proxy.allowed net.proxy.canary net.proxy.readonly net.proxy.body net.proxy.late_body
	net.proxy.connect_ip net.proxy.connect_nontls net.proxy.private_dest"

# --- the correct configuration: every probe passes ---------------------------
squid_start correct || { echo "Bail out! squid"; exit 1; }
rep=$(doctor)
rc=$?
[ -n "${NETT_DEBUG:-}" ] && { sed 's/^/# log: /' "$D/access.log"; sed 's/^/# origin: /' "$rec"; }
for id in $PROBES; do
	is "$(st $id "$rep")" pass "correct proxy: $id passes" || echo "# $(obs $id "$rep")"
done
is "$rc" 0 "correct proxy: doctor exits 0"
like "$(obs net.proxy.readonly "$rep")" 'POST http://ro\.test/: denied \(403.*log: deny' "POST refusal confirmed by the access log"
like "$(obs net.proxy.body "$rep")" 'denied \(413' "large body refused with 413"
# the origin's own record: no large body arrived, no read-only write arrived
big=$(jq -s '[.[] | select((.path // "") | test("sandprobe-(body|late_body)")) | select(.complete and .received >= 1048576)] | length' "$rec")
is "$big" 0 "origin record: the refused 1 MiB bodies never arrived complete"
cl=$(jq -s '[.[] | select((.path // "") | test("sandprobe-body-"))] | length' "$rec")
is "$cl" 0 "origin record: the Content-Length body request never reached the origin at all"
ro=$(jq -s '[.[] | select(.method == "POST" or .method == "PUT") | select((.path // "") | test("sandprobe-readonly"))] | length' "$rec")
is "$ro" 0 "origin record: no POST/PUT for the read-only host arrived"
got=$(jq -s '[.[] | select((.path // "") | test("sandprobe-allowed"))] | length' "$rec")
is "$got" 1 "origin record: the positive control did arrive"

# the proxy named by the environment, as agents' tools find it; the
# credentials in its URL never appear in the report
rep=$(ip netns exec "$sb" env -i HTTPS_PROXY=http://agent:s3cretpw@10.203.1.1:3128 "$SP_DOCTOR" --format json \
	-k net.proxy.canary --set net.proxy.canary_host=canary.test --set net.proxy.allowed_hosts=allowed.test)
is "$(st net.proxy.canary "$rep")" pass "proxy from HTTPS_PROXY: canary denied"
like "$(obs net.proxy.canary "$rep")" 'from HTTPS_PROXY' "the proxy's source is reported"
unlike "$rep" 's3cretpw' "the proxy URL's password is redacted"

# the access log is the authority: a log without the deny entries is an error
rep=$(doctor --set "net.proxy.access_log=$D/hosts")
is "$(st net.proxy.canary "$rep")" error "a named access log without deny entries: not proven (error)"

# a dead proxy is not a blocking proxy
squid_stop
rep=$(doctor --set net.egress.timeout_ms=1000)
is "$(st net.proxy.canary "$rep")" error "proxy down: canary result is an error, not a pass"
is "$(st net.proxy.allowed "$rep")" error "proxy down: positive control errors"

# --- one hole at a time ---------------------------------------------------------
hole() { # HOLE CHECK WHAT
	squid_start "$1" || { echo "Bail out! squid ($1)"; exit 1; }
	: >"$rec"
	rep=$(doctor)
	is "$(st "$2" "$rep")" fail "hole '$1': $2 fails ($3)" || echo "# $(obs "$2" "$rep")"
	squid_stop
}
hole post net.proxy.readonly "POST allowed on a read-only host"
posts=$(jq -s '[.[] | select(.method == "POST") | select((.path // "") | test("sandprobe-readonly"))] | length' "$rec")
is "$posts" 1 "hole 'post': the origin did receive the POST (so the probe is real)"
hole connect net.proxy.connect_ip "raw IP CONNECT allowed"
is "$(st net.proxy.connect_nontls "$rep")" fail "hole 'connect': plain HTTP carried through the tunnel"
hole body net.proxy.body "no body limit"
is "$(st net.proxy.late_body "$rep")" fail "hole 'body': late chunked body got through"
big=$(jq -s '[.[] | select((.path // "") | test("sandprobe-body")) | select(.complete and .received >= 1048576)] | length' "$rec")
is "$big" 1 "hole 'body': the origin received the whole 1 MiB (so the probe is real)"
hole private net.proxy.private_dest "name resolving to an internal address"

done_testing
