#!/usr/bin/env bash
# fs.host_mounts: a host filesystem mounted into the sandbox, on Docker (a
# private dockerd) and bwrap. Passing: a default container with a named
# volume (its own overlay root, /etc/hosts bound from the host's docker
# directory), a bwrap box with its own root and a data directory bound in.
# Failing: the host's root read-only at /host, the host's /etc at /hostetc,
# the host's /proc at /hostproc. Ground truth: the engine's own account of
# the mount (docker inspect) and the host's view (the same device and inode
# as the host's /, the same machine-id file as the host's). With the same
# engine: proc.pid1 with --pid host (the host's PID namespace, by its
# namespace link) does not pass, and passes in a container's own; under
# gVisor, ns.ipc fails with --ipc host (the host's /dev/shm marker visible
# inside) and passes without.
. "$(dirname "$0")/lib.sh"
. "$SP_ROOT/tests/lib/engines.sh"
need dockerd "dockerd not installed (Debian package docker.io)"
[ -x /bin/busybox ] || skip_all "busybox-static not installed"
[ -s /etc/machine-id ] || skip_all "the host has no /etc/machine-id"

# the containers have no libc: the static doctor
SDOC=$SP_DOCTOR
[ "${SP_SAN:-0}" = 1 ] && SDOC=$SP_ROOT/build/sandprobe-doctor
[ -x "$SDOC" ] || skip_all "static build/sandprobe-doctor missing (run make)"
R=$CAT/rootfs
sp_busybox_rootfs "$R"
cp "$SDOC" "$R/doctor" && chmod 755 "$R/doctor"
sp_dockerd_start || skip_all "the private dockerd did not start"
IMG=sp-hostmounts-$$:1
sp_docker_import "$R" "$IMG" || skip_all "docker import failed"
K='fs.host_mounts or proc.pid1'
dj() { # NAME docker-run-args...
	local n=$1
	shift
	run_json "$n" docker run --rm --network none "$@" "$IMG" /doctor --profile container --format json -k "$K"
}

# ---- Docker ------------------------------------------------------------------------
docker volume create "sp-hm-$$" >/dev/null
at_exit "docker volume rm -f sp-hm-$$ >/dev/null 2>&1"
dj dvol -v "sp-hm-$$:/data"
is_status dvol fs.host_mounts pass
is_status dvol proc.pid1 pass

is "$(docker run --rm --network none -v /:/host:ro "$IMG" stat -c '%d %i' /host)" "$(stat -c '%d %i' /)" \
	"ground truth: /host in the container is the host's / (device and inode)"
dj droot -v /:/host:ro
is_status droot fs.host_mounts fail
like "$(detail droot fs.host_mounts)" "^host filesystem mounted: /host" "the host's root at /host is named"

is "$(docker run --rm --network none -v /etc:/hostetc:ro "$IMG" cat /hostetc/machine-id)" "$(cat /etc/machine-id)" \
	"ground truth: /hostetc/machine-id is the host's"
dj detc -v /etc:/hostetc:ro
is_status detc fs.host_mounts fail
like "$(detail detc fs.host_mounts)" "/hostetc: a system's /etc with another machine-id" "by its machine-id"

# the host's PID namespace: pid 1 is the host's init, whatever its name
is "$(docker run --rm --network none --pid host "$IMG" readlink /proc/self/ns/pid)" "$(readlink /proc/self/ns/pid)" \
	"ground truth: --pid host is the host's PID namespace"
dj dpid --pid host
is_status dpid proc.pid1 fail

# ---- gVisor: ns.ipc takes no kernel-boundary waiver while the host's /dev/shm is inside ----
if command -v runsc >/dev/null 2>&1; then
	MARK=sp-hm-shm-$$
	: >"/dev/shm/$MARK"
	at_exit "rm -f /dev/shm/$MARK"
	gj() { # NAME docker-run-args...
		local n=$1
		shift
		run_json "$n" docker run --rm --network none --runtime runsc "$@" "$IMG" /doctor --profile strict \
			--format json -k ns.ipc
	}
	is "$(docker run --rm --network none --runtime runsc --ipc host "$IMG" ls /dev/shm | grep -c "^$MARK\$")" 1 \
		"ground truth: with --ipc host the host's /dev/shm marker is visible under gVisor"
	is "$(docker run --rm --network none --runtime runsc "$IMG" ls /dev/shm | grep -c "^$MARK\$")" 0 \
		"ground truth: by default it is not"
	gj gipchost --ipc host
	is_status gipchost ns.ipc fail
	like "$(detail gipchost ns.ipc)" "host's POSIX shared memory is shared" "the shared /dev/shm is named"
	gj gipc
	is_status gipc ns.ipc pass
	like "$(detail gipc ns.ipc)" "/dev/shm is its own memory" "passes on gVisor's own /dev/shm"
elif [ "${SP_MUST_WORK:-0}" = 1 ]; then
	_tap_result 1 "runsc installed (Debian package runsc)"
else
	skip "runsc not installed"
fi

# ---- bwrap ---------------------------------------------------------------------------
mkdir -p "$CAT/data/sub"
bbox() { # NAME bwrap-args...
	local n=$1
	shift
	run_json "$n" bwrap --die-with-parent --unshare-pid --unshare-net --bind "$R" / --proc /proc --dev /dev \
		--tmpfs /tmp --tmpfs /run "$@" /doctor --profile strict --format json -k "$K"
}
bbox bown --bind "$CAT/data" /data --ro-bind /etc/hosts /etc/hosts
is_status bown fs.host_mounts pass
bbox bproc --ro-bind /proc /hostproc
is_status bproc fs.host_mounts fail
like "$(detail bproc fs.host_mounts)" "/hostproc: a proc of another PID namespace" "the host's /proc by its self link"
# a host-shaped /var bound in: its engine state counts only where it is
# there (a non-empty lib/docker, a socket), not a blanked-out copy (what a
# runtime's blacklist leaves: an empty directory, a plain file where the
# socket was) nor a path whose symlink leads out of the mount (var/run -> /run)
mkdir -p "$CAT/hvar/lib/docker" "$CAT/fullvar" "$CAT/statevar/lib/docker/overlay2/l"
ln -s /run "$CAT/hvar/run"
: >"$CAT/hvar/docker.sock"
bbox bblank --bind "$CAT/hvar" /var --bind "$CAT/hvar" /hostrun
is_status bblank fs.host_mounts pass
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$CAT/fullvar/docker.sock"
is "$(stat -c %F "$CAT/fullvar/docker.sock")" socket "ground truth: a unix socket where the engine's would be"
bbox bsock --bind "$CAT/fullvar" /hostrun
is_status bsock fs.host_mounts fail
bbox bstate --bind "$CAT/statevar" /var
is_status bstate fs.host_mounts fail
like "$(detail bstate fs.host_mounts)" "/var: holds lib/docker/overlay2" "the engine's state found in the mounted /var"
# a host's /run with a live engine socket, and the same with the socket hidden
# under a plain file (as firejail's --blacklist hides it): only the first is the host's
mkdir -p "$CAT/hrun" "$CAT/hidden"
"$SP_HELPERS/unixlisten" "$CAT/hrun/docker.sock" >"$CAT/ul.pid" || skip_all "cannot listen on $CAT/hrun/docker.sock"
at_exit "kill $(cat "$CAT/ul.pid")"
: >"$CAT/blank"
is "$(stat -c %F "$CAT/hrun/docker.sock")" socket "ground truth: the engine socket stand-in is a socket"
bbox blive --ro-bind "$CAT/hrun" /hostrun
is_status blive fs.host_mounts fail
like "$(detail blive fs.host_mounts)" "/hostrun: holds docker.sock" "a live engine socket marks the host's /run"
is "$(bwrap --bind "$R" / --ro-bind "$CAT/hrun" /hostrun --ro-bind "$CAT/blank" /hostrun/docker.sock stat -c %F /hostrun/docker.sock)" \
	"regular empty file" "ground truth: the socket hidden under a plain file is no socket inside"
bbox bhidden --ro-bind "$CAT/hrun" /hostrun --ro-bind "$CAT/blank" /hostrun/docker.sock
is_status bhidden fs.host_mounts pass
done_testing
