#!/usr/bin/env bash
# The private engines of tests/lib/engines.sh: each starts, runs a real
# container (docker with runc and with runsc, containerd with runc and with a
# runsc wrapper), and leaves nothing behind once stopped.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/engines.sh"
need_root
need dockerd "dockerd not installed (Debian package docker.io)"
need containerd "containerd not installed (Debian package containerd)"
need runsc "runsc not installed (Debian package runsc)"
plan 12

t=$(sp_tmpdir)
sp_busybox_rootfs "$t/rootfs"
ok sp_dockerd_start
ok sp_docker_import "$t/rootfs" sp-harness:1
out=$(docker run --rm --network none sp-harness:1 /bin/sh -c 'echo hi; readlink /proc/self/ns/pid' 2>&1)
like "$out" '^hi' "docker (runc) runs a container from the imported rootfs"
isnt "$(echo "$out" | tail -1)" "$(readlink /proc/self/ns/pid)" "its pid namespace is not the host's"
out=$(docker run --rm --runtime runsc sp-harness:1 /bin/cat /proc/version 2>&1)
like "$out" 'Linux version' "docker with runsc (gVisor) runs a container"
ddir=$SP_DOCKERD_DIR
sp_dockerd_stop
ok test ! -e "$ddir"
is "$(pgrep -f -- "$ddir/" | wc -l)" 0 "no process of that dockerd survives its stop"

ok sp_containerd_start
# an image-less container from a rootfs bundle: ctr run --rootfs
out=$(ctr -n sp-harness run --rm --rootfs "$t/rootfs" sp-h1 /bin/echo viaruncv2 2>&1)
is "$out" viaruncv2 "containerd (io.containerd.runc.v2) runs a container from a rootfs"
sp_runsc_wrapper "$t/runsc-wrap"
out=$(ctr -n sp-harness run --rm --runc-binary "$t/runsc-wrap" --rootfs "$t/rootfs" sp-h2 /bin/cat /proc/version 2>&1)
like "$out" 'Linux version' "containerd with a runsc wrapper runs a gVisor container"
cdir=$SP_CONTAINERD_DIR
sp_containerd_stop
ok test ! -e "$cdir"
is "$(awk -v p="$cdir" 'index($5, p) == 1' /proc/self/mountinfo | wc -l)" 0 "no mount of that containerd survives its stop"
