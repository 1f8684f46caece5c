#!/usr/bin/env bash
# priv.runtime_sockets finds an engine by what answers, wherever it is in the
# sandbox's mount tree: a private dockerd's API socket and a private
# containerd's gRPC socket, reached through the host's root mounted
# read-only at /host (the issue's false PASS), and under names that say
# nothing (/srv/api, /srv/grpc); one socket reached by two paths is one
# socket. Passing sandbox: a tmpfs root holding an HTTP server that is no
# engine and a listener that says nothing. A walk stopped by its bound is no
# PASS. Ground truth: python3 in the same box shape asks the same sockets.
. "$(dirname "$0")/lib.sh"
. "$SP_ROOT/tests/lib/engines.sh"
need python3
need dockerd "dockerd not installed (Debian package docker.io)"
need containerd "containerd not installed (Debian package containerd)"

sp_dockerd_start || skip_all "the private dockerd did not start"
sp_containerd_start || skip_all "the private containerd did not start"
DSOCK=$SP_DOCKERD_DIR/docker.sock
CSOCK=$SP_CONTAINERD_DIR/containerd.sock

# box [bwrap args...] -- [doctor args...]: real root (no user namespace), a tmpfs root
# (the host's /usr read-only, for the dynamic SP_SAN=1 doctor; the walk does not enter usr)
box() {
	_split "$@"
	bwrap --die-with-parent --unshare-pid --unshare-net --tmpfs / --ro-bind /usr /usr --symlink usr/lib /lib \
		--symlink usr/lib64 /lib64 --proc /proc --dev /dev --tmpfs /tmp \
		"${BOX[@]}" --ro-bind "$CAT/doctor" /doctor /doctor --profile strict --format json \
		-k priv.runtime_sockets "${DOC[@]}"
}
# the same box shape with the host's /usr, for python3 as ground truth
ASK='import socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(2); s.connect(sys.argv[2])
if sys.argv[1] == "http":
    s.sendall(b"GET /_ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    r = s.recv(4096).decode(errors="replace")
    print("engine" if "\nApi-Version:" in r else r.split("\r\n")[0])
else:
    s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))
    r = s.recv(64)
    print("http2-settings" if len(r) >= 9 and r[3] == 4 else repr(r))'
ask() { # http|h2 PATH [bwrap args...]
	local how=$1 path=$2
	shift 2
	bwrap --die-with-parent --unshare-pid --unshare-net --tmpfs / --ro-bind /usr /usr --symlink usr/lib /lib \
		--symlink usr/lib64 /lib64 --symlink usr/bin /bin --proc /proc --dev /dev --tmpfs /tmp "$@" \
		/usr/bin/python3 -c "$ASK" "$how" "$path" 2>&1
}

# ---- the host's root read-only at /host --------------------------------------------
is "$(ask http "/host$DSOCK" --ro-bind / /host)" engine "ground truth: /host$DSOCK answers as the engine API"
run_json hostroot box --ro-bind / /host
is_status hostroot priv.runtime_sockets fail
like "$(detail hostroot priv.runtime_sockets)" "/host[^ ]*: answers HTTP/1.1 200 OK with an engine API's headers" \
	"an engine under /host is named by its answer"

# ---- names that say nothing; one socket by two paths --------------------------------
is "$(ask http /srv/api --bind "$DSOCK" /srv/api)" engine "ground truth: /srv/api answers as the engine API"
is "$(ask h2 /srv/grpc --bind "$CSOCK" /srv/grpc)" http2-settings "ground truth: /srv/grpc answers HTTP/2"
run_json anon box --bind "$DSOCK" /srv/api --bind "$DSOCK" /run/api.sock --bind "$DSOCK" /var/run/api.sock \
	--bind "$CSOCK" /srv/grpc
is_status anon priv.runtime_sockets fail
like "$(detail anon priv.runtime_sockets)" "/srv/grpc: answers( the)? HTTP/2" "containerd named by its HTTP/2 answer"
like "$(detail anon priv.runtime_sockets)" " 2 socket\\(s\\) \\(each counted once\\)" \
	"the engine's socket by three paths is one socket"

# ---- sockets that are no engine: pass ---------------------------------------------
mkdir -m 755 "$CAT/srv"
python3 - "$CAT/srv/web.sock" <<'PY' &
import socket, sys, os
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o666); s.listen(8)
while True:
    c, _ = s.accept(); c.settimeout(2)
    try: c.recv(4096); c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi")
    except OSError: pass
    c.close()
PY
WPID=$!
at_exit "kill $WPID"
LPID=$("$SP_HELPERS/unixlisten" "$CAT/srv/quiet.sock")
at_exit "kill $LPID"
for i in $(seq 50); do [ -S "$CAT/srv/web.sock" ] && break; sleep 0.1; done
is "$(ask http /srv/web.sock --bind "$CAT/srv" /srv)" "HTTP/1.1 200 OK" "ground truth: /srv/web.sock is HTTP, no engine"
run_json clean box --bind "$CAT/srv" /srv
is_status clean priv.runtime_sockets pass
like "$(detail clean priv.runtime_sockets)" "2 socket\\(s\\) \\(each counted once\\), 2 asked, 0 answering" \
	"both sockets were asked"

# ---- a walk stopped by its bound is no verdict ---------------------------------------
mkdir "$CAT/wide"
python3 -c '
import os, sys
for i in range(450):
    d = os.path.join(sys.argv[1], "d%d" % i); os.mkdir(d)
    for j in range(450): os.mknod(os.path.join(d, "f%d" % j))' "$CAT/wide"
run_json wide box --bind "$CAT/wide" /data
is_status wide priv.runtime_sockets error
like "$(detail wide priv.runtime_sockets)" "stopped at the (entry|time) bound" "the bound is named"
done_testing
