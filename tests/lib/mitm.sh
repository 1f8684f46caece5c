# Shared by tests/doctor/{tls,transparent}.t (source after tests/lib/tap.sh and tests/lib/net.sh):
# certificate authorities the test generates, a TLS origin in the fake
# internet, and mitmproxy as the sandbox's intercepting proxy. Everything
# lives in the test's own directory and network namespaces.

# agent_ca DIR NAME: a CA (DIR/NAME.pem certificate, DIR/NAME.key key)
agent_ca() {
	openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 7 -keyout "$1/$2.key" -out "$1/$2.pem" \
		-subj "/CN=sandprobe test $2" -addext "basicConstraints=critical,CA:TRUE" \
		-addext "keyUsage=critical,keyCertSign,cRLSign" >/dev/null 2>&1
}

# agent_leaf DIR NAME CA SAN: a server certificate signed by CA
agent_leaf() {
	openssl req -newkey rsa:2048 -nodes -sha256 -keyout "$1/$2.key" -out "$1/$2.csr" -subj "/CN=$2" \
		>/dev/null 2>&1 &&
		printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$4" >"$1/$2.ext" &&
		openssl x509 -req -in "$1/$2.csr" -CA "$1/$3.pem" -CAkey "$1/$3.key" -CAcreateserial -days 7 -sha256 \
			-extfile "$1/$2.ext" -out "$1/$2.pem" >/dev/null 2>&1
}

# agent_fpr PEM: SHA-256 fingerprint as openssl prints it (independent of the doctor)
agent_fpr() { openssl x509 -in "$1" -noout -fingerprint -sha256 | cut -d= -f2; }

# agent_origin NS NAME ARGS...: tests/lib/tlsorigin.py in NS until the test ends
agent_origin() {
	local ns=$1 name=$2
	shift 2
	nett_py "$ns" "$name" origin tlsorigin.py "$@"
}

# agent_mitm NS NAME CA HOSTS ADDR PORT [mitmdump args...]: mitmproxy with the
# CA (DIR/CA.pem + .key) in NS, names resolved through the HOSTS file (bound
# over /etc/hosts in a private mount namespace), until the test ends
agent_mitm() {
	local ns=$1 name=$2 ca=$3 hosts=$4 addr=$5 port=$6
	shift 6
	local conf="$NETT_DIR/mitm-$name"
	mkdir -p "$conf"
	cat "$ca.key" "$ca.pem" >"$conf/mitmproxy-ca.pem"
	ip netns exec "$ns" unshare -m sh -c 'mount --bind "$1" /etc/hosts && shift && exec "$@"' - "$hosts" \
		mitmdump --set confdir="$conf" --listen-host "$addr" --listen-port "$port" "$@" \
		>"$NETT_DIR/mitm-$name.log" 2>&1 &
	local pid=$!
	at_exit "kill $pid; wait $pid"
	for _ in $(seq 1 200); do
		ip netns exec "$ns" bash -c "exec 3<>/dev/tcp/$addr/$port" 2>/dev/null && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	echo "# mitmproxy $name did not start:"; sed 's/^/#   /' "$NETT_DIR/mitm-$name.log" | tail -20
	return 1
}
