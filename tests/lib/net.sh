# Shared setup for the network tests (tests/doctor/{egress,proxy,socks,tls,transparent}.t;
# source after tests/lib/tap.sh).
# Builds a fake internet out of network namespaces and veth pairs that this
# test owns. Every address used lives only inside those namespaces
# (10.203.0.0/16 and fd00:5a9d::/64), so no packet can leave the machine.
# Everything is removed at exit.

NETT_ID="spn$$"
NETT_DIR=""

nett_init() {
	need_root
	need ip
	need python3
	ip netns list >/dev/null 2>&1 || skip_all "ip netns unusable here"
	nett_tmpdir NETT_DIR
	chmod 755 "$NETT_DIR"
}

# nett_tmpdir VAR: a temp dir removed at exit, its path in VAR. (Not
# VAR=$(...): cleanup registered inside a command substitution is lost with
# the subshell.)
nett_tmpdir() {
	local d
	d=$(mktemp -d /tmp/sandprobe-test.XXXXXX) || return 1
	at_exit "rm -rf '$d'"
	printf -v "$1" '%s' "$d"
}

# nett_ns VAR NAME: create namespace $NETT_ID-NAME with lo up, its name in
# VAR (called directly, so the cleanup it registers is not lost in a subshell)
nett_ns() {
	local ns="$NETT_ID-$2"
	ip netns add "$ns" || { echo "Bail out! cannot create namespace $ns"; exit 1; }
	at_exit "ip netns del '$ns'"
	printf -v "$1" '%s' "$ns"
	ip -n "$ns" link set lo up
	# no duplicate address detection: IPv6 is usable at once
	ip netns exec "$ns" sh -c 'echo 0 >/proc/sys/net/ipv6/conf/all/accept_dad; echo 0 >/proc/sys/net/ipv6/conf/default/accept_dad' 2>/dev/null
}

# nett_link NS_A IF_A ADDR_A NS_B IF_B ADDR_B [ADDR6_A ADDR6_B]
nett_link() {
	ip link add "$2" netns "$1" type veth peer name "$5" netns "$4" || return 1
	ip -n "$1" addr add "$3" dev "$2"
	ip -n "$4" addr add "$6" dev "$5"
	if [ -n "${7:-}" ]; then
		ip -n "$1" addr add "$7" dev "$2" nodad
		ip -n "$4" addr add "$8" dev "$5" nodad
	fi
	ip -n "$1" link set "$2" up
	ip -n "$4" link set "$5" up
	# wait for carrier on both ends, or the first packets (IPv6 neighbour
	# solicitations) go out on a dead link and retry only after a second
	for _ in $(seq 1 100); do
		ip -n "$1" link show "$2" | grep -q NO-CARRIER || ip -n "$4" link show "$5" | grep -q NO-CARRIER || return 0
		sleep 0.02
	done
}

# nett_py NS NAME WHAT SCRIPT ARGS...: python3 tests/lib/SCRIPT --ready FILE
# ARGS... in NS until the test ends; waits for the ready file (WHAT names
# the server in the message when it does not start)
nett_py() {
	local ns=$1 name=$2 what=$3 script=$4
	shift 4
	local ready="$NETT_DIR/$name.ready"
	ip netns exec "$ns" python3 "$SP_ROOT/tests/lib/$script" --ready "$ready" "$@" \
		>"$NETT_DIR/$name.log" 2>&1 &
	local pid=$!
	at_exit "kill $pid; wait $pid"
	for _ in $(seq 1 100); do
		[ -f "$ready" ] && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	echo "# $what $name did not start:"; sed 's/^/#   /' "$NETT_DIR/$name.log"
	return 1
}

# nett_serve NS NAME ARGS...: run fakenet.py in NS until the test ends
nett_serve() {
	local ns=$1 name=$2
	shift 2
	nett_py "$ns" "$name" fakenet fakenet.py "$@"
}

# nett_doctor NS ARGS...: the static doctor inside NS, JSON report on stdout
nett_doctor() {
	local ns=$1
	shift
	ip netns exec "$ns" env -u HTTPS_PROXY -u HTTP_PROXY -u https_proxy -u http_proxy -u ALL_PROXY -u all_proxy \
		"$SP_DOCTOR" --format json "$@"
}

# status of check $1 in the JSON report $2
st() { printf '%s' "$2" | json_status "$1"; }
obs() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | .observed'; }
