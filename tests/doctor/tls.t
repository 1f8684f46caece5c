#!/usr/bin/env bash
# tls.*: TLS interception trust, against a real intercepting proxy
# (mitmproxy) with CAs this test generates, in front of a TLS origin in the
# test's fake internet:
#   sb (10.203.1.2) --- px (10.203.1.1: mitmproxy :8080 CA "proxy", :8081 CA "rogue")
#                       px (10.203.2.1) --- net (10.203.2.2: TLS origin, CA "origin")
# sb has no route past px and px does not forward: the proxy is the only
# way out. Each sandbox is the doctor in sb under bwrap with its own trust
# store bound over /etc/ssl/certs/ca-certificates.crt. The trusted sandbox
# passes; one missing the CA, one with a CA variable pointing at a wrong
# file, and one behind a proxy that re-signs with another CA each fail the
# check that covers it. Ground truth: real clients (curl, python's urllib,
# openssl s_client) in the same sandbox, and the origin's own record.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/net.sh"
. "$(dirname "$0")/../lib/mitm.sh"
need jq
need mitmdump
need openssl
need curl
need bwrap
need unshare
nett_init

nett_ns sb sb
nett_ns px px
nett_ns net net
nett_link "$sb" s0 10.203.1.2/24 "$px" p0 10.203.1.1/24
nett_link "$px" p1 10.203.2.1/24 "$net" n0 10.203.2.2/24

C="$NETT_DIR/ca"
mkdir -p "$C"
agent_ca "$C" proxy && agent_ca "$C" rogue && agent_ca "$C" origin &&
	agent_leaf "$C" origin-server origin "DNS:allowed.test,DNS:canary.test,IP:10.203.2.2" ||
	{ echo "Bail out! cannot make certificates"; exit 1; }
chmod -R a+rX "$C"
rec="$NETT_DIR/origin.jsonl"
: >"$rec"
agent_origin "$net" origin --record "$rec" --cert "$C/origin-server.pem" --key "$C/origin-server.key" \
	--tls 10.203.2.2/443 || { echo "Bail out! origin did not start"; exit 1; }
printf '10.203.2.2 allowed.test canary.test\n127.0.0.1 localhost\n' >"$NETT_DIR/hosts"
MITM=(-s "$SP_ROOT/tests/lib/mitm_policy.py" --set ssl_verify_upstream_trusted_ca="$C/origin.pem")
agent_mitm "$px" good "$C/proxy" "$NETT_DIR/hosts" 10.203.1.1 8080 "${MITM[@]}" --set sp_deny=canary.test ||
	{ echo "Bail out! mitmproxy did not start"; exit 1; }
# the same interception behind a SOCKS5 front (denied hosts refused inside the tunnel)
agent_mitm "$px" socks "$C/proxy" "$NETT_DIR/hosts" 10.203.1.1 1080 "${MITM[@]}" --mode socks5 --set sp_deny=canary.test ||
	{ echo "Bail out! mitmproxy did not start"; exit 1; }
# the rogue proxy re-signs with another CA and refuses nothing
agent_mitm "$px" rogue "$C/rogue" "$NETT_DIR/hosts" 10.203.1.1 8081 "${MITM[@]}" ||
	{ echo "Bail out! mitmproxy did not start"; exit 1; }

SYS=/etc/ssl/certs/ca-certificates.crt
[ -r "$SYS" ] || skip_all "no system CA bundle at $SYS"
cat "$SYS" "$C/proxy.pem" >"$NETT_DIR/store-good.pem"
cp "$SYS" "$NETT_DIR/store-nocA.pem"
chmod a+r "$NETT_DIR"/store-*.pem

# in_box STORE PROXYPORT [env...] -- CMD...: CMD in sb, the store bound as the
# system bundle, HTTPS_PROXY set, nothing else from this environment
in_box() {
	local store=$1 port=$2
	shift 2
	local envs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	ip netns exec "$sb" bwrap --dev-bind / / --ro-bind "$store" "$SYS" --die-with-parent -- \
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp HTTPS_PROXY=http://10.203.1.1:$port "${envs[@]}" "$@"
}
POL=(--profile host --set tls.ca="$C/proxy.pem" --set tls.allowed_hosts=allowed.test
	--set tls.denied_hosts=canary.test --set tls.ca_env=SSL_CERT_FILE,REQUESTS_CA_BUNDLE
	--set expect.tls.*=required)
doc() { # STORE PORT [env...]: the doctor's tls checks, JSON
	local store=$1 port=$2
	shift 2
	in_box "$store" "$port" "$@" -- "$SP_DOCTOR" --format json -k tls "${POL[@]}" 2>"$NETT_DIR/doctor.err"
}
st() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | .status'; }
ev() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | "\(.detail) | \(.observed)"'; }
is_st() { # REPORT ID WANT NAME
	local got
	got=$(st "$2" "$1")
	if [ "$got" = "$3" ]; then _tap_result 0 "$4"; else _tap_result 1 "$4" "got '$got': $(ev "$2" "$1" | head -c 900)"; fi
}
GOODENV=(SSL_CERT_FILE="$SYS" REQUESTS_CA_BUNDLE="$SYS" NODE_EXTRA_CA_CERTS="$C/proxy.pem")
pyget='import sys, urllib.request
try:
    urllib.request.urlopen("https://" + sys.argv[1] + "/", timeout=10).read(); print("ok")
except Exception as e:
    print("fail", type(e).__name__, str(e)[:80])'

# ---- the trusted sandbox ---------------------------------------------------
is "$(in_box "$NETT_DIR/store-good.pem" 8080 -- curl -sS -o /dev/null -w '%{http_code}' https://allowed.test/ 2>&1)" 200 \
	"ground truth: curl in the trusted sandbox reaches the allowed host without -k"
like "$(in_box "$NETT_DIR/store-good.pem" 8080 "${GOODENV[@]}" -- /usr/bin/python3 -c "$pyget" allowed.test)" '^ok' \
	"ground truth: python urllib (SSL_CERT_FILE) reaches it too"
issuer=$(in_box "$NETT_DIR/store-good.pem" 8080 -- openssl s_client -proxy 10.203.1.1:8080 -connect allowed.test:443 \
	-servername allowed.test </dev/null 2>/dev/null | openssl x509 -noout -issuer)
like "$issuer" "sandprobe test proxy" "ground truth: the certificate the sandbox sees is issued by the proxy CA"
like "$(in_box "$NETT_DIR/store-good.pem" 8080 -- curl -sS -o /dev/null -w '%{http_code}' https://canary.test/ 2>&1)" \
	'403|000|CONNECT' "ground truth: the canary host is refused by the proxy"
before=$(wc -l <"$rec")
out=$(doc "$NETT_DIR/store-good.pem" 8080 "${GOODENV[@]}")
for id in tls.ca_store tls.ca_env tls.intercept tls.denied; do
	is_st "$out" $id pass "trusted sandbox: $id passes"
done
like "$(ev tls.intercept "$out")" "issued by the policy's CA" "tls.intercept shows who issued the certificate"
grep -q '"request": "GET / HTTP/1.1"' <(tail -n +$((before + 1)) "$rec") && r=0 || r=1
_tap_result $r "the origin received the doctor's request through the tunnel"

# ---- the CA fingerprint instead of the file ----------------------------------
fpr=$(agent_fpr "$C/proxy.pem")
out=$(in_box "$NETT_DIR/store-good.pem" 8080 "${GOODENV[@]}" -- "$SP_DOCTOR" --format json -k tls --profile host \
	--set tls.ca_fingerprint="$fpr" --set tls.allowed_hosts=allowed.test --set expect.tls.*=required 2>/dev/null)
is_st "$out" tls.ca_store pass "fingerprint (openssl's spelling, colons): the CA found in the store"
is_st "$out" tls.intercept pass "fingerprint: the handshake chains to it"

# ---- a sandbox missing the CA ----------------------------------------------------
is "$(in_box "$NETT_DIR/store-nocA.pem" 8080 -- curl -sS -o /dev/null https://allowed.test/ >/dev/null 2>&1; echo $?)" 60 \
	"ground truth: curl in the sandbox without the CA fails verification (exit 60)"
out=$(doc "$NETT_DIR/store-nocA.pem" 8080 "${GOODENV[@]}")
is_st "$out" tls.ca_store fail "missing CA: tls.ca_store fails"
is_st "$out" tls.intercept fail "missing CA: tls.intercept fails"
ev tls.intercept "$out" | sed 's/^/# /'
like "$(ev tls.intercept "$out")" "did not verify against the system store" "and says the CA's certificate is not trusted"
is_st "$out" tls.ca_env fail "missing CA: the variables naming the system bundle fail too"

# ---- a CA variable pointing at a wrong file --------------------------------------
like "$(in_box "$NETT_DIR/store-good.pem" 8080 SSL_CERT_FILE="$C/origin.pem" -- /usr/bin/python3 -c "$pyget" allowed.test)" \
	'^fail' "ground truth: python urllib with SSL_CERT_FILE at the wrong file fails"
out=$(doc "$NETT_DIR/store-good.pem" 8080 SSL_CERT_FILE="$C/origin.pem" REQUESTS_CA_BUNDLE="$SYS")
is_st "$out" tls.ca_env fail "wrong SSL_CERT_FILE: tls.ca_env fails"
like "$(ev tls.ca_env "$out")" "SSL_CERT_FILE $C/origin.pem holds 1 certificate, not the CA" "and names the variable and file"
is_st "$out" tls.ca_store pass "the store itself is right"
is_st "$out" tls.intercept pass "and the handshake against it verifies"
out=$(doc "$NETT_DIR/store-good.pem" 8080 SSL_CERT_FILE="$SYS" REQUESTS_CA_BUNDLE=/nonexistent/bundle.pem)
like "$(ev tls.ca_env "$out")" "REQUESTS_CA_BUNDLE /nonexistent/bundle.pem: No such file" "a variable at a missing file"
out=$(doc "$NETT_DIR/store-good.pem" 8080 SSL_CERT_FILE="$SYS")
is_st "$out" tls.ca_env fail "a required variable unset fails"

# ---- a proxy that re-signs with another CA (and refuses nothing) ----------------
is "$(in_box "$NETT_DIR/store-good.pem" 8081 -- curl -sS -o /dev/null https://allowed.test/ >/dev/null 2>&1; echo $?)" 60 \
	"ground truth: curl behind the rogue proxy fails verification"
issuer=$(in_box "$NETT_DIR/store-good.pem" 8081 -- openssl s_client -proxy 10.203.1.1:8081 -connect allowed.test:443 \
	-servername allowed.test </dev/null 2>/dev/null | openssl x509 -noout -issuer)
like "$issuer" "sandprobe test rogue" "ground truth: the rogue proxy's certificate is issued by the rogue CA"
out=$(doc "$NETT_DIR/store-good.pem" 8081 "${GOODENV[@]}")
is_st "$out" tls.ca_store pass "rogue proxy: the store still holds the right CA"
is_st "$out" tls.intercept fail "rogue proxy: tls.intercept fails"
ev tls.intercept "$out" | sed 's/^/# /'
like "$(ev tls.intercept "$out")" "did not issue" "and says the interception CA did not issue the certificate"
is_st "$out" tls.denied fail "rogue proxy: the canary host gets through, tls.denied fails"

# ---- a SOCKS5 proxy (socks5h: names sent as names) ---------------------------------
SOCKS=HTTPS_PROXY=socks5h://10.203.1.1:1080
is "$(in_box "$NETT_DIR/store-good.pem" 8080 "$SOCKS" -- curl -sS -o /dev/null -w '%{http_code}' https://allowed.test/ 2>&1)" 200 \
	"ground truth: curl through the SOCKS5 front reaches the allowed host"
out=$(doc "$NETT_DIR/store-good.pem" 8080 "${GOODENV[@]}" "$SOCKS")
is_st "$out" tls.intercept pass "SOCKS5: tls.intercept passes"
like "$(ev tls.intercept "$out")" "via SOCKS5: answered 200" "the handshake went through the SOCKS5 tunnel"
is_st "$out" tls.denied pass "SOCKS5: the canary host is refused inside the tunnel"
out=$(doc "$NETT_DIR/store-nocA.pem" 8080 "${GOODENV[@]}" "$SOCKS")
is_st "$out" tls.intercept fail "SOCKS5 without the CA in the store: tls.intercept fails"

# ---- no proxy at all, and bad policy values --------------------------------------
out=$(ip netns exec "$sb" env -i PATH=/usr/bin:/bin "$SP_DOCTOR" --format json -k tls "${POL[@]}" 2>/dev/null)
is_st "$out" tls.intercept skip "no proxy named: tls.intercept skips"
in_box "$NETT_DIR/store-good.pem" 8080 -- "$SP_DOCTOR" --format json -k tls --profile host \
	--set tls.ca_fingerprint=abc >"$NETT_DIR/bad.out" 2>"$NETT_DIR/bad.err"
is "$?" 2 "a malformed fingerprint is a usage error before any probe, not a pass"
like "$(cat "$NETT_DIR/bad.err")" "^sandprobe: --set tls.ca_fingerprint=abc: tls.ca_fingerprint: 'abc': expected a SHA-256" \
	"naming the --set argument and the key"
out=$(in_box "$NETT_DIR/store-good.pem" 8080 -- "$SP_DOCTOR" --format json -k tls --profile host \
	--set tls.ca=/nonexistent/ca.pem 2>/dev/null)
is_st "$out" tls.ca_store error "an unreadable tls.ca is an error"
done_testing
