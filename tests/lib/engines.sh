# Real container engines for tests, each private to the test file that starts
# it (source after tests/lib/tap.sh):
#   sp_dockerd_start        own dockerd: data-root, exec-root, socket, pidfile,
#                           cgroup parent and a config file with gVisor (runsc)
#                           registered; --iptables=false --bridge=none, so
#                           containers get loopback only. Exports DOCKER_HOST,
#                           SP_DOCKERD_DIR and SP_DOCKER_CONTAINERD (the socket
#                           of the containerd that this dockerd runs). Stopped,
#                           with everything under it, when the test exits.
#   sp_docker_import DIR TAG  a docker image from a rootfs the test built
#   sp_containerd_start     own containerd: config, root, state, socket.
#                           Exports CONTAINERD_ADDRESS and SP_CONTAINERD_DIR.
#   sp_runsc_wrapper FILE   a runc-compatible wrapper that runs gVisor, for
#                           `ctr run --runc-binary FILE` (Debian ships no
#                           containerd shim for runsc)
#   sp_busybox_rootfs DIR   a minimal rootfs: busybox-static and its applets
# Nothing here touches the host's /etc/docker, /run/docker or /run/containerd:
# several test files (and several developers) may run engines at once.

sp_busybox_rootfs() {
	local d=$1 a
	mkdir -p "$d/bin" "$d/proc" "$d/sys" "$d/dev" "$d/tmp" "$d/etc" "$d/run" || return 1
	cp /bin/busybox "$d/bin/busybox" || return 1
	for a in $(/bin/busybox --list); do
		[ -e "$d/bin/$a" ] || ln -s busybox "$d/bin/$a"
	done
	echo 'root:x:0:0:root:/root:/bin/sh' >"$d/etc/passwd"
	echo 'nobody:x:65534:65534:nobody:/:/bin/false' >>"$d/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$d/etc/group"
	chmod 1777 "$d/tmp"
}

# unmount everything mounted below DIR, deepest first
_sp_umount_below() {
	local m
	awk -v p="$1" '$5 == p || index($5, p "/") == 1 { print $5 }' /proc/self/mountinfo |
		sort -r | while read -r m; do umount -l "$m" 2>/dev/null; done
}

_sp_wait_gone() { # PID SECONDS
	local i=0
	while kill -0 "$1" 2>/dev/null && [ $i -lt $(($2 * 10)) ]; do sleep 0.1; i=$((i + 1)); done
	! kill -0 "$1" 2>/dev/null
}

sp_dockerd_stop() {
	[ -n "${SP_DOCKERD_DIR:-}" ] || return 0
	local d=$SP_DOCKERD_DIR pid ids c
	ids=$(docker ps -aq 2>/dev/null)
	[ -n "$ids" ] && docker rm -f $ids >/dev/null 2>&1
	pid=$(cat "$d/docker.pid" 2>/dev/null)
	if [ -n "$pid" ]; then
		kill -TERM "$pid" 2>/dev/null
		_sp_wait_gone "$pid" 20 || kill -KILL "$pid" 2>/dev/null
	fi
	# the containerd dockerd started, and any shim left under its exec root
	for c in $(pgrep -f -- "$d/" 2>/dev/null); do kill -KILL "$c" 2>/dev/null; done
	_sp_umount_below "$d"
	for c in /sys/fs/cgroup/*/"$(basename "$d")" /sys/fs/cgroup/unified/"$(basename "$d")"; do
		[ -d "$c" ] && find "$c" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	rm -rf "$d"
	unset SP_DOCKERD_DIR DOCKER_HOST SP_DOCKER_CONTAINERD
}

sp_dockerd_start() {
	command -v dockerd >/dev/null 2>&1 || { echo "dockerd not installed (Debian package docker.io)" >&2; return 1; }
	local d i
	d=$(mktemp -d /tmp/sp-dockerd.XXXXXX) || return 1
	export SP_DOCKERD_DIR=$d
	cat >"$d/daemon.json" <<EOF
{"runtimes": {"runsc": {"path": "$(command -v runsc || echo /usr/bin/runsc)",
                        "runtimeArgs": ["--ignore-cgroups", "--network=none"]}},
 "cgroup-parent": "/$(basename "$d")"}
EOF
	at_exit sp_dockerd_stop
	dockerd --iptables=false --ip-masq=false --bridge=none --config-file "$d/daemon.json" \
		--data-root "$d/data" --exec-root "$d/exec" -H "unix://$d/docker.sock" \
		--pidfile "$d/docker.pid" >"$d/dockerd.log" 2>&1 &
	export DOCKER_HOST=unix://$d/docker.sock
	export SP_DOCKER_CONTAINERD=$d/exec/containerd/containerd.sock
	for i in $(seq 1 300); do
		docker info >/dev/null 2>&1 && return 0
		kill -0 $! 2>/dev/null || break
		sleep 0.1
	done
	echo "dockerd did not come up; its log:" >&2
	tail -5 "$d/dockerd.log" >&2
	return 1
}

sp_docker_import() { # DIR TAG
	tar -C "$1" -c . | docker import - "$2" >/dev/null
}

sp_containerd_stop() {
	[ -n "${SP_CONTAINERD_DIR:-}" ] || return 0
	local d=$SP_CONTAINERD_DIR pid ns c
	for ns in $(ctr --address "$d/containerd.sock" namespaces ls -q 2>/dev/null); do
		for c in $(ctr --address "$d/containerd.sock" -n "$ns" tasks ls -q 2>/dev/null); do
			ctr --address "$d/containerd.sock" -n "$ns" tasks kill -s KILL "$c" >/dev/null 2>&1
			ctr --address "$d/containerd.sock" -n "$ns" tasks delete -f "$c" >/dev/null 2>&1
		done
		for c in $(ctr --address "$d/containerd.sock" -n "$ns" containers ls -q 2>/dev/null); do
			ctr --address "$d/containerd.sock" -n "$ns" containers delete "$c" >/dev/null 2>&1
		done
	done
	pid=$(cat "$d/containerd.pid" 2>/dev/null)
	if [ -n "$pid" ]; then
		kill -TERM "$pid" 2>/dev/null
		_sp_wait_gone "$pid" 10 || kill -KILL "$pid" 2>/dev/null
	fi
	for c in $(pgrep -f -- "$d/" 2>/dev/null); do kill -KILL "$c" 2>/dev/null; done
	_sp_umount_below "$d"
	rm -rf "$d"
	unset SP_CONTAINERD_DIR CONTAINERD_ADDRESS
}

sp_containerd_start() {
	command -v containerd >/dev/null 2>&1 || { echo "containerd not installed (Debian package containerd)" >&2; return 1; }
	local d i
	d=$(mktemp -d /tmp/sp-containerd.XXXXXX) || return 1
	export SP_CONTAINERD_DIR=$d
	cat >"$d/config.toml" <<EOF
version = 2
root = "$d/root"
state = "$d/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$d/containerd.sock"
[ttrpc]
  address = "$d/containerd.sock.ttrpc"
[debug]
  address = "$d/debug.sock"
EOF
	at_exit sp_containerd_stop
	containerd --config "$d/config.toml" >"$d/containerd.log" 2>&1 &
	echo $! >"$d/containerd.pid"
	export CONTAINERD_ADDRESS=$d/containerd.sock
	for i in $(seq 1 200); do
		ctr --address "$d/containerd.sock" version >/dev/null 2>&1 && return 0
		kill -0 $! 2>/dev/null || break
		sleep 0.1
	done
	echo "containerd did not come up; its log:" >&2
	tail -5 "$d/containerd.log" >&2
	return 1
}

sp_runsc_wrapper() { # FILE (the shim passes its own --root, --log ...)
	cat >"$1" <<EOF
#!/bin/sh
exec $(command -v runsc || echo /usr/bin/runsc) --network=none --ignore-cgroups "\$@"
EOF
	chmod 755 "$1"
}
