#!/usr/bin/env bash
# The live matrix over every runtime this machine has: bwrap, unshare, runc,
# crun (hybrid cgroups: in a private mount namespace), runsc (gVisor on an
# OCI bundle), podman (runtime runc), docker and docker --runtime runsc
# (against a private dockerd of this test, as a user's engine at DOCKER_HOST),
# containerd with the runc and runsc handlers (a private containerd at
# CONTAINERD_ADDRESS), firejail (no chroot), systemd-nspawn and qemu
# (software emulation). It holds on a real host: a system Docker engine at
# /var/run/docker.sock and a containerd at /run/containerd may run, and a
# runtime socket of this test's own under /run stands for them in any case.
#
# Every strict lane passes, or fails only on properties named here: what
# gVisor really lacks here, each established below from ground truth that
# is not the doctor's (the operation itself under runsc and runc, gVisor's
# own mountinfo, the engine's effective config). Every negative control
# fails exactly the checks that cover what it removed, but for one
# on gVisor a check the doctor's policy judges against the
# user-space kernel it accepts (seccomp.mode) is not demanded to fail, the
# host's view still is, and the same controls run once more with
# --set kernel.separate_kernel= where the doctor itself must fail it. The
# variants a runtime cannot launch here are launch limitations with their
# reason, named here; no other lane skips. Nothing is left
# behind, asserted from the host before and after, scoped to what this test
# created: processes, mounts, temp dirs, netns, runc/crun/runsc state,
# cgroups, podman and docker containers and images, containerd containers,
# tasks and snapshots in every namespace, and shims.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/engines.sh"
need_root
for t in jq bwrap unshare runc crun runsc podman docker dockerd containerd ctr firejail systemd-nspawn qemu-system-x86_64 python3; do need "$t"; done
ls /boot/vmlinuz-* >/dev/null 2>&1 || skip_all "no kernel in /boot (apt-get install linux-image-amd64)"
[ -x /bin/busybox ] || skip_all "busybox-static not installed"
need_lane_doctor
tmp=$(sp_tmpdir)
sp_dockerd_start >"$tmp/dockerd.err" 2>&1 || skip_all "dockerd did not start: $(tail -1 "$tmp/dockerd.err")"
sp_containerd_start >"$tmp/containerd.err" 2>&1 || skip_all "containerd did not start: $(tail -1 "$tmp/containerd.err")"
RUNTIMES=bwrap,unshare,runc,crun,runsc,podman,docker,docker-runsc,containerd-runc,containerd-runsc,firejail,systemd-nspawn,qemu
GVISOR="runsc docker-runsc containerd-runsc"

# --- what gVisor gets on this machine, by check id ---------------------------
# gVisor drops nosuid from the spec's tmpfs mounts (/tmp, and docker's
# /dev/shm: its own mountinfo shows /tmp without nosuid although the spec
# asks for it), but its kernel honours no set-user-ID bit (both proven
# below): fs.nosuid proves the effect (the set-user-ID probe the lane
# plants does not raise the euid) and passes. gVisor lacks nothing strict
# demands here.
GVISOR_LACKS=""
# docker --runtime runsc as this engine registers it (runtimeArgs without
# --oci-seccomp, the engine's own config, asked below): the OCI seccomp
# profile docker passes is not loaded (a profile that refuses mkdir does not
# refuse it under runsc, and does under runc: proven below). No strict lane
# can run on it: a launch limitation that says the fix.
# ns.net under gVisor asks the stack: with --network=host (hostinet) the
# control fails it (ground truth below: the host's loopback listener answers
# from inside then, and not on gVisor's netstack)
declare -A GVISOR_MISSED=()

# --- launch limitations: variants a runtime cannot launch here, each with its reason
declare -A LIMITED=(
	[docker-runsc/host-pid]="gVisor keeps a process table of its own"
	[docker-runsc/host-net]="registered with --network=none"
	[docker-runsc/host-dev]="gVisor does not pass host device nodes through"
	[docker-runsc/no-seccomp]="without --oci-seccomp"
	[docker-runsc/strict]="without --oci-seccomp.*fix: add \"--oci-seccomp\" to the runsc runtimeArgs"
	[runsc/host-pid]="gVisor keeps a process table of its own"
	[runsc/host-dev]="gVisor does not pass host device nodes through"
	[containerd-runsc/host-pid]="gVisor keeps a process table of its own"
	[containerd-runsc/host-dev]="gVisor does not pass host device nodes through"
	[runsc/no-nnp]="gVisor ignores a false noNewPrivileges"
	[docker-runsc/no-nnp]="gVisor ignores a false noNewPrivileges"
	[containerd-runsc/no-nnp]="gVisor ignores a false noNewPrivileges"
)
# what a strict launch limitation names, which its runtime's controls may fail too
declare -A LIMIT_FAILS=([docker-runsc]=host.seccomp)
# docker --privileged grants every capability the engine knows (0..39 for
# Docker 20.10); a host whose bounding set lacks one cannot launch it
bnd=$(awk '/^CapBnd/ { print $2 }' /proc/self/status)
missing_cap=""
[ $((0x$bnd & 0x2000000)) -eq 0 ] && missing_cap=CAP_SYS_RESOURCE
[ $((0xffffffffff & ~0x$bnd)) -ne 0 ] && LIMITED[docker/privileged]="bounding set lacks ${missing_cap:-CAP_}"

# What is left of the lanes of report $1, from the host: everything a lane
# creates carries its name (sandprobe-HEX: containers, cgroups, runtime
# state, shims, gVisor's gofer and sandbox), its nonce (the sandbox's shell)
# or its dir; a run's images and its own containerd are named in the report.
# Other engineers run lanes on this machine at the same time: only these count.
left_of() {
	local j=$1 n d img ns pat=$tmp/left.pat
	# the patterns go in a file: a grep whose command line held them would find itself
	jq -r '.lanes[] | select(.name) | .name, .nonce, .dir' "$j" >"$pat"
	[ -s "$pat" ] || { echo "no lane created anything"; return; }
	echo "procs: $(grep -laF -f "$pat" /proc/[0-9]*/cmdline 2>/dev/null | grep -v "/proc/$$/" | wc -l)"
	echo "mounts: $(grep -cF -f "$pat" /proc/self/mountinfo)"
	ip netns list 2>/dev/null | grep -F -f "$pat" | sed 's/^/netns left: /'
	for d in $(jq -r '.lanes[] | select(.dir) | .dir' "$j"); do [ -e "$d" ] && echo "dir left: $d"; done
	for n in $(jq -r '.lanes[] | select(.name) | .name' "$j"); do
		ls -d /sys/fs/cgroup/*/"$n" /sys/fs/cgroup/"$n" 2>/dev/null | sed 's/^/cgroup left: /'
		runc list -q 2>/dev/null | grep -qx "$n" && echo "runc state left: $n"
		podman ps -a --format '{{.Names}}' 2>/dev/null | grep -qx "$n" && echo "podman container left: $n"
		docker ps -a --format '{{.Names}}' 2>/dev/null | grep -qx "$n" && echo "docker container left: $n"
	done
	for img in $(jq -r '.lanes[].launch' "$j" | grep -oE 'localhost/sandprobe-live-[0-9]+-[0-9a-f]+' | sort -u); do
		podman images --format '{{.Repository}}' 2>/dev/null | grep -qx "$img" && echo "podman image left: $img"
		docker images --format '{{.Repository}}' 2>/dev/null | grep -qx "$img" && echo "docker image left: $img"
	done
	for d in $(jq -r '.lanes[].notes // empty' "$j" | grep -oE '/[^ ]*sandprobe-containerd\.[A-Za-z0-9]+' | sort -u); do
		[ -e "$d" ] && echo "own containerd dir left: $d"
		echo "$d" >"$pat.ctd"
		echo "own containerd procs: $(grep -laF -f "$pat.ctd" /proc/[0-9]*/cmdline 2>/dev/null | wc -l)"
	done
	for ns in $(jq -r '.lanes[].notes // empty' "$j" | grep -oE 'namespace sandprobe-[0-9]+-[0-9a-f]+' | cut -d' ' -f2 | sort -u); do
		ctr namespaces ls -q 2>/dev/null | grep -qx "$ns" && echo "containerd namespace left: $ns"
	done
}
# the engines this test started are its own: everything in them counts
engines() {
	local ns objs
	echo "docker: $(docker ps -aq 2>/dev/null | wc -l) containers, $(docker images -q 2>/dev/null | wc -l) images"
	echo "docker runsc state: $(ls "$SP_DOCKERD_DIR/exec/runtime-runc/moby" 2>/dev/null | wc -l)"
	echo "shims: $(grep -laE "containerd-shim" /proc/[0-9]*/cmdline 2>/dev/null | xargs -r grep -lE "$SP_DOCKERD_DIR|$SP_CONTAINERD_DIR" 2>/dev/null | wc -l)"
	# containerd objects in every namespace (a namespace an engine makes lazily, empty, is no leftover)
	for ns in $(ctr --address "$SP_DOCKER_CONTAINERD" namespaces ls -q 2>/dev/null); do
		objs="$(ctr --address "$SP_DOCKER_CONTAINERD" -n "$ns" containers ls -q | wc -l) containers, $(ctr --address "$SP_DOCKER_CONTAINERD" -n "$ns" tasks ls -q | wc -l) tasks"
		[ "$objs" = "0 containers, 0 tasks" ] || echo "docker's containerd $ns: $objs"
	done
	echo "containerd namespaces: $(ctr namespaces ls -q 2>/dev/null | tr '\n' ' ')"
	for ns in $(ctr namespaces ls -q 2>/dev/null); do
		objs="$(ctr -n "$ns" containers ls -q | wc -l) containers, $(ctr -n "$ns" tasks ls -q | wc -l) tasks, $(ctr -n "$ns" snapshots ls | tail -n +2 | wc -l) snapshots"
		[ "$objs" = "0 containers, 0 tasks, 0 snapshots" ] || echo "containerd $ns: $objs"
	done
}
# --- ground truth for what gVisor lacks or keeps, without the doctor ----------
# One bundle, run by runsc directly and by runc for contrast: root without
# capabilities runs a set-user-ID file owned by uid 1234; the effective uid
# changes exactly where the kernel honours the bit. The spec's /tmp tmpfs
# asks for nosuid; the runtime's own mountinfo says whether it kept it.
[ -x "$SP_HELPERS/truth" ] || skip_all "truth helper missing (make tests)"
GT=$tmp/gt
chmod 755 "$TAP_TMPBASE" "$tmp"
sp_busybox_rootfs "$GT/rootfs" && cp "$SP_HELPERS/truth" "$GT/rootfs/truth" && cp "$SP_HELPERS/truth" "$GT/rootfs/suid" &&
	chown 1234:1234 "$GT/rootfs/suid" && chmod 6755 "$GT/rootfs/suid" && (cd "$GT" && runc spec) ||
	skip_all "cannot build the ground-truth bundle"
jq '.process.terminal = false | .process.capabilities = {} | .root.readonly = true |
	.mounts += [{"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev", "mode=1777"]}] |
	.process.args = ["/bin/sh", "-c", "/suid euid; grep \" /tmp \" /proc/self/mountinfo"]' "$GT/config.json" >"$GT/base.json"
gt_run() { # RUNTIME NO_NEW_PRIVILEGES: the euid line and /tmp's mountinfo line
	jq --argjson n "$2" '.process.noNewPrivileges = $n' "$GT/base.json" >"$GT/config.json"
	case $1 in
	runsc) timeout 120 runsc --root "$GT/runsc" --network=none --ignore-cgroups run --bundle "$GT" "sp-mx-$$-$1-$2" ;;
	runc) timeout 120 runc --root "$GT/runc" run --bundle "$GT" "sp-mx-$$-$1-$2" ;;
	esac </dev/null 2>"$GT/$1-$2.err"
}
euid() { gt_run "$@" | sed -n 's/^euid //p'; }
is "$(euid runc false)" 1234 "ground truth: under runc without noNewPrivileges the set-user-ID bit changes the euid (the probe can tell)"
is "$(euid runc true)" 0 "ground truth: under runc with noNewPrivileges it does not"
is "$(euid runsc true)" 0 "ground truth: under gVisor with noNewPrivileges it does not (host.nnp must pass on the gVisor strict lanes)"
is "$(euid runsc false)" 0 "ground truth: under gVisor without noNewPrivileges it does not either: gVisor ignores the field (no-nnp is a launch limitation)"
like "$(gt_run runc true | grep ' /tmp ')" ' /tmp [^ ]*nosuid' "ground truth: runc keeps the spec's nosuid on /tmp"
tmpline=$(gt_run runsc true | grep ' /tmp ')
like "$tmpline" ' /tmp ' "ground truth: gVisor mounts the spec's /tmp ($tmpline)"
unlike "$tmpline" 'nosuid' "ground truth: gVisor drops the spec's nosuid from it (the flag is missing, the effect is not: fs.nosuid must prove the effect and pass)"
# gVisor's network: a loopback listener of the host answers from inside only
# with --network=host (hostinet: the host kernel's stack), not on gVisor's
# netstack (--network=none), for a spec without a network namespace
python3 -c 'import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
print(s.getsockname()[1], flush=True); sys.stdout.close()
while True: s.accept()[0].close()' >"$GT/port" &
GT_LISTENER=$!
at_exit "kill $GT_LISTENER"
for i in $(seq 50); do [ -s "$GT/port" ] && break; sleep 0.1; done
gt_port=$(cat "$GT/port")
gt_net() { # NETWORK: reached or unreached
	jq --arg c "nc -w 2 127.0.0.1 $gt_port </dev/null >/dev/null 2>&1 && echo reached || echo unreached" \
		'.process.args = ["/bin/sh", "-c", $c] | .linux.namespaces |= map(select(.type != "network"))' "$GT/base.json" >"$GT/config.json"
	timeout 120 runsc --root "$GT/runsc" --network="$1" --ignore-cgroups run --bundle "$GT" "sp-mx-$$-net-$1" </dev/null 2>"$GT/net-$1.err" | tail -1
}
is "$(gt_net host)" reached "ground truth: under gVisor with --network=host the host's loopback listener answers (ns.net must fail on host-net)"
is "$(gt_net none)" unreached "ground truth: on gVisor's netstack it does not (ns.net must pass on the strict lanes)"
is "$(runsc --root "$GT/runsc" list -q 2>/dev/null; runc --root "$GT/runc" list -q 2>/dev/null)" "" "the ground-truth containers are gone"
# a runtime control socket of this test's own under /run (a name the doctor
# and the firejail lane know as a runtime's), answering, as a system engine's
# would: the firejail lane must hide it, and the system engine's if it runs
FJ_SOCK=/run/containerd-sandprobe-mx-$$.sock
"$SP_HELPERS/unixlisten" "$FJ_SOCK" >"$tmp/unixlisten.pid" || skip_all "cannot listen on $FJ_SOCK"
at_exit "kill $(cat "$tmp/unixlisten.pid"); rm -f $FJ_SOCK"
HOST_SOCKS="$FJ_SOCK"
for s in /var/run/docker.sock /run/containerd/containerd.sock; do [ -S "$s" ] && HOST_SOCKS="$HOST_SOCKS $s"; done
# docker's runsc as this engine registers it: its runtimeArgs lack --oci-seccomp,
# and a profile refusing mkdir refuses it under runc only
rtargs=$(docker info --format '{{json .Runtimes}}' | jq -r '.runsc.runtimeArgs // [] | join(" ")')
like "$rtargs" '--network=none' "ground truth: the engine has runsc registered ($rtargs)"
unlike "$rtargs" 'oci-seccomp' "ground truth: without --oci-seccomp"
echo '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}]}' >"$GT/nomkdir.json"
gt_img=sandprobe-mx-gt-$$:latest
sp_docker_import "$GT/rootfs" "$gt_img"
gt_mkdir() { docker run --rm --network none --runtime "$1" --security-opt seccomp="$GT/nomkdir.json" "$gt_img" \
	/bin/sh -c 'mkdir /tmp/x 2>/dev/null && echo made || echo refused' 2>&1 | tail -1; }
is "$(gt_mkdir runc)" refused "ground truth: docker with runc loads the profile (mkdir refused)"
is "$(gt_mkdir runsc)" made "ground truth: docker with runsc as registered here does not (mkdir made): host.seccomp fails on docker-runsc, a real lack"
docker rmi "$gt_img" >/dev/null 2>&1

before=$(engines)

"$SP_BIN" live --matrix --runtimes "$RUNTIMES" --doctor "$DOCTOR" --format json --output "$tmp/live.json" 2>"$tmp/stderr"
rc=$?
after=$(engines)
J=$tmp/live.json

is "$(jq -r .schema "$J")" "sandprobe.live.v1" "report has schema sandprobe.live.v1"
is "$rc" 0 "matrix exits 0: every strict lane passes (or is a named launch limitation), every control fails as it must"
like "$(jq -r '.platform.cgroup' "$J")" '^(v1|v2|hybrid)$' "platform reports the cgroup layout"

has() { case " $1 " in *" $2 "*) return 0 ;; esac; return 1; }
sorted() { tr ' ,' '\n\n' | grep -v '^$' | sort -u | tr '\n' ' ' | sed 's/ $//'; }
fails_of() { jq -r --arg r "$1" --arg v "$2" '.lanes[] | select(.runtime==$r and .variant==$v) | [.results[] | select(.status=="fail" or .status=="error") | .id] | join(" ")' "$J" | sorted; }

# --- skips: only the launch limitations named above, each with its reason
while IFS='|' read -r rt v limited reason; do
	if [ -n "${LIMITED[$rt/$v]:-}" ]; then
		is "$limited" true "$rt/$v is a launch limitation"
		like "$reason" "^launch limitation: .*${LIMITED[$rt/$v]}" "$rt/$v: the reason says why (${LIMITED[$rt/$v]})"
	else
		is "$rt/$v skipped: $reason" "" "no lane but the named launch limitations skips"
	fi
done < <(jq -r '.lanes[] | select(.status=="skip") | [.runtime, .variant, .launch_limitation, .reason] | join("|")' "$J")
for k in "${!LIMITED[@]}"; do
	is "$(jq -r --arg r "${k%/*}" --arg v "${k#*/}" '.lanes[] | select(.runtime==$r and .variant==$v) | .status' "$J")" skip "$k is skipped as a launch limitation"
done

# --- strict lanes
for rt in ${RUNTIMES//,/ }; do
	has "$GVISOR" "$rt" && continue
	is "$(jq -r --arg r "$rt" '.lanes[] | select(.runtime == $r and .variant == "strict") | .status' "$J")" pass "$rt strict lane passes"
	n=$(jq --arg r "$rt" '[.lanes[] | select(.runtime == $r and .negative_control and .status != "skip")] | length' "$J")
	TAP_NAME="$rt has negative controls that ran ($n)" ok test "$n" -ge "$([ "$rt" = qemu ] && echo 1 || echo 4)"
done
gres() { jq -r --arg r "$1" --arg v "$2" --arg id "$3" --arg f "$4" '.lanes[] | select(.runtime==$r and .variant==$v) | .results[] | select(.id==$id) | .[$f]' "$J"; }
for rt in $GVISOR; do
	[ -n "${LIMITED[$rt/strict]:-}" ] && continue
	is "$(fails_of "$rt" strict)" "$(echo "$GVISOR_LACKS" | sorted)" \
		"$rt strict fails exactly on what gVisor really lacks here (named above, each proven above)"
	is "$(gres "$rt" strict host.nnp status)" pass "$rt: host.nnp passes (the ground truth: no set-user-ID bit raises the euid under gVisor)"
	like "$(gres "$rt" strict host.nnp observed)" \
		"^spec: noNewPrivileges true; gVisor's kernel \(the doctor\): NoNewPrivs 1; the Sentry's own NoNewPrivs 1" \
		"$rt: host.nnp says what it read: the spec, gVisor's kernel (the doctor's prctl) and the Sentry's own flag"
	like "$(gres "$rt" strict priv.no_new_privs observed)" "NoNewPrivs absent from /proc/self/status .*; 1 from prctl" \
		"$rt: gVisor's status has no NoNewPrivs line: the doctor asked prctl"
	is "$(jq -r --arg r "$rt" '.lanes[] | select(.runtime==$r and .variant=="strict") | .results[] | select(.id=="host.kernel.boundary") | .status' "$J")" \
		pass "$rt: the report came from gVisor's kernel, in the sandbox process the engine names"
	is "$(jq -r --arg r "$rt" '.lanes[] | select(.runtime==$r and .variant=="strict") | .results[] | select(.id=="host.engine") | .status' "$J")" \
		pass "$rt: the engine's view (its pid, the Sentry, its spec) found"
done
# fs.nosuid on gVisor: the flag is missing (ground truth above), the effect proven absent by the planted probe
for rt in runsc containerd-runsc; do
	is "$(gres "$rt" strict fs.nosuid status)" pass "$rt: fs.nosuid passes by the effect (no set-user-ID bit raises the euid)"
	like "$(gres "$rt" strict fs.nosuid observed)" "/tmp: mount NOT nosuid.*setuid-probe \(uid 65534, set-user-ID, on a mount without nosuid\) did not change the euid" \
		"$rt: its observed says the flag is missing and which file proved the effect"
	is "$(gres "$rt" strict ns.net status)" pass "$rt strict: ns.net passes (gVisor's netstack; ground truth above)"
	is "$(gres "$rt" host-net ns.net status)" fail "$rt host-net: ns.net fails (hostinet; ground truth above)"
done
for v in strict host-pid; do
	is "$(jq -r --arg v $v '.lanes[] | select(.runtime=="docker" and .variant==$v) | .results[] | select(.id=="host.engine") | .status' "$J")" \
		pass "docker $v: docker's init pid is the sandbox's shell, its shim found"
done
# every variant on the runtimes that can launch them all
for rt in runc crun podman docker containerd-runc; do
	is "$(jq -r --arg r "$rt" '[.lanes[] | select(.runtime == $r) | .variant] | join(",")' "$J")" \
		"strict,host-pid,host-net,writable-root,kept-caps,host-dev,no-seccomp,privileged,no-nnp" "$rt has a lane for every variant"
done
is "$(jq -r '[.lanes[] | select(.runtime == "bwrap") | .variant] | join(",")' "$J")" \
	"strict,host-pid,host-net,writable-root,kept-caps,host-dev,no-seccomp,privileged" "bwrap has a lane for every variant but no-nnp (bwrap always sets no_new_privs)"

# --- negative controls: each fails exactly the checks that cover what it removed
# (also_failed: finer probes of the same property that other check families add)
while IFS='|' read -r rt v status must missed collateral failing; do
	is "$status" fail "$rt/$v fails"
	isnt "$must" "" "$rt/$v has covering checks ($must)"
	if has "$GVISOR" "$rt"; then
		is "$missed" "${GVISOR_MISSED[$v]:-}" "$rt/$v: every covering check failed, but the documented limit (${GVISOR_MISSED[$v]:-none})"
		strict_fails=" $(fails_of "$rt" strict) "
		# a strict lane that is a launch limitation: what it names (docker-runsc: no --oci-seccomp) may fail
		[ -n "${LIMITED[$rt/strict]:-}" ] && strict_fails="$strict_fails ${LIMIT_FAILS[$rt]:-} "
		extra=""
		for id in $collateral; do case "$strict_fails" in *" $id "*) ;; *) extra="$extra $id ($(gres "$rt" "$v" "$id" status): $(gres "$rt" "$v" "$id" observed | head -c 300) | $(gres "$rt" "$v" "$id" detail | head -c 300))" ;; esac; done
		is "$extra" "" "$rt/$v: nothing else failed beyond what fails in its strict lane"
	else
		is "$missed" "" "$rt/$v: every covering check failed"
		is "$collateral" "" "$rt/$v: nothing else failed"
		is "$failing" "$must" "$rt/$v: the failing ids are exactly the covering ids (+ finer probes of the same property)"
	fi
done < <(jq -r '.lanes[] | select(.negative_control and .status != "skip") |
	[.runtime, .variant, .status, ((.must_fail + .also_failed) | sort | join(",")), (.did_not_fail | join(" ")),
	 (.collateral | join(" ")),
	 ([.results[] | select(.status == "fail" or .status == "error") | .id] | sort | join(","))] | join("|")' "$J")
is "$(jq -r '.defects[]' "$J")" "" "no TOOL DEFECT"

# --- firejail: the host's runtime sockets, proven by the lane's own command
# line replayed with a probe that connects to each (python3 of the host's
# filesystem, which firejail shows read-only); the same line without the
# lane's --blacklist options reaches them (the probe can tell)
like "$(jq -r '.lanes[] | select(.runtime=="firejail" and .variant=="strict") | .notes' "$J")" \
	"host control paths hidden \(--blacklist\): .*$FJ_SOCK" "firejail: the report names the host control paths it hid (this test's socket among them)"
lane_argv() { # RUNTIME: its strict lane's command line (as reported, shell-quoted) into the array line
	mapfile -d '' line < <(jq -r --arg r "$1" '.lanes[] | select(.runtime==$r and .variant=="strict") | .command' "$J" |
		python3 -c 'import shlex, sys; sys.stdout.write("\0".join(shlex.split(sys.stdin.read())))')
}
fj_replay() { # 1: keep the blacklists, 0: drop them
	local a out=() home=$tmp/fjhome-$1
	mkdir -p "$home"
	lane_argv firejail
	for a in "${line[@]}"; do
		case $a in
		--) break ;;
		--private=*) out+=("--private=$home") ;;
		--blacklist=*) [ "$1" = 1 ] && out+=("$a") ;;
		*) out+=("$a") ;;
		esac
	done
	timeout 60 "${out[@]}" -- python3 -c 'import socket, sys
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(p); print(p, "connected")
    except OSError as e:
        print(p, "refused")' $HOST_SOCKS 2>/dev/null
}
for s in $HOST_SOCKS; do
	like "$(fj_replay 0)" "$s connected" "ground truth: firejail's read-only view without the blacklists reaches $s"
	like "$(fj_replay 1)" "$s refused" "ground truth: the firejail strict lane's own command line does not"
done
is "$(jq -r '.lanes[] | select(.runtime=="firejail" and .variant=="strict") | .results[] | select(.id=="priv.runtime_sockets") | .status' "$J")" pass \
	"firejail strict: priv.runtime_sockets passes, as the replay shows"

# --- systemd-nspawn: its own seccomp filter lets clone(CLONE_NEWUSER) through
# and its /dev has tun (the lane's command line replayed on a busybox rootfs
# with the truth helper); the lane loads its own filter and hides /dev/net
NS=$tmp/nsroot
# (systemd-nspawn wants an OS tree: /usr and an os-release)
sp_busybox_rootfs "$NS" && mkdir -p "$NS/usr" && echo ID=sandprobe >"$NS/etc/os-release" && cp "$SP_HELPERS/truth" "$NS/truth" ||
	skip_all "cannot build the nspawn rootfs"
ns_replay() { # 1: the lane's /dev/net tmpfs kept, 0: dropped; then filter: under the lane's own seccomp filter
	local a out=() m=$1
	lane_argv systemd-nspawn
	for a in "${line[@]}"; do
		case $a in
		--) break ;;
		--directory=*) out+=("--directory=$NS") ;;
		--machine=*) out+=("--machine=sp-mx-$$-$m${2:+f}") ;;
		--tmpfs=/dev/net*) [ "$m" = 1 ] && out+=("$a") ;;
		*) out+=("$a") ;;
		esac
	done
	# the filter the lane loads on systemd-nspawn, loaded the same way by the product's own code
	[ "${2:-}" = filter ] && out=("$SP_BIN" live --runtime systemd-nspawn --doctor "$DOCTOR" --exec-under-filter -- "${out[@]}")
	timeout 60 "${out[@]}" -- /bin/sh -c '/truth userns; [ -e /dev/net/tun ] && echo tun present || echo tun absent' </dev/null 2>/dev/null
}
nsr=$(ns_replay 1)
like "$nsr" "userns.clone created" "ground truth: without the lane's filter, nspawn's own lets clone(CLONE_NEWUSER) through (the probe sees success)"
like "$nsr" "userns.clone3 created" "ground truth: and clone3(CLONE_NEWUSER)"
like "$nsr" "tun absent" "ground truth: the lane's command line hides /dev/net/tun"
like "$(ns_replay 0)" "tun present" "ground truth: without its /dev/net tmpfs, nspawn's /dev has tun (the probe sees it)"
nsf=$(ns_replay 1 filter)
like "$nsf" "userns.clone EPERM" "ground truth: the strict lane's command line under its own filter: clone(CLONE_NEWUSER) EPERM"
like "$nsf" "userns.clone3 ENOSYS" "ground truth: and clone3 ENOSYS"
like "$nsf" "tun absent" "ground truth: and /dev/net/tun absent"
is "$(gres systemd-nspawn strict kernel.userns status)" pass "systemd-nspawn strict: kernel.userns passes under the lane's filter"
like "$(gres systemd-nspawn strict kernel.userns observed)" "clone\(CLONE_NEWUSER\) in a child: EPERM" "and says clone(CLONE_NEWUSER) was refused"
like "$(jq -r '.lanes[] | select(.runtime=="systemd-nspawn" and .variant=="strict") | .notes' "$J")" \
	"host control paths hidden: none needed \(the lane's own rootfs" "systemd-nspawn: the report says which host control paths it hid (none needed)"
# the HTML report says the same, lane by lane
"$SP_BIN" live --matrix --runtimes firejail,systemd-nspawn --variants strict --doctor "$DOCTOR" --format html --output "$tmp/hidden.html" 2>/dev/null
like "$(grep -A3 '>firejail<' "$tmp/hidden.html")" "host control paths hidden \(--blacklist\): .*$FJ_SOCK" "HTML report: the firejail lane names the control paths it hid"
like "$(grep -A3 '>systemd-nspawn<' "$tmp/hidden.html")" "host control paths hidden: none needed" "HTML report: the systemd-nspawn lane says none needed hiding"
"$SP_BIN" live --runtime firejail --doctor "$DOCTOR" --exec-under-filter -- true 2>"$tmp/nofilter.err"
is "$?" 2 "--exec-under-filter with a runtime that loads no filter of its own: usage error"
like "$(cat "$tmp/nofilter.err")" "runtime 'firejail' loads no filter of its own" "and says so"

# --- inside and outside both saw the removal, where the host can see it
fails_all() { # runtime variant id... : every id is among the lane's failures
	local f r=$1 v=$2
	f=" $(fails_of "$r" "$v") "
	shift 2
	for id in "$@"; do case "$f" in *" $id "*) ;; *) echo "missing $id in $f"; return 1 ;; esac; done
}
TAP_NAME="bwrap host-pid: ns.pid, proc.host_visible and host.ns.pid fail" ok fails_all bwrap host-pid ns.pid proc.host_visible host.ns.pid
TAP_NAME="runc kept-caps: caps.effective, caps.bounding and host.caps fail" ok fails_all runc kept-caps caps.effective caps.bounding host.caps
TAP_NAME="podman no-seccomp: seccomp.mode and host.seccomp fail" ok fails_all podman no-seccomp seccomp.mode host.seccomp
TAP_NAME="unshare host-net: ns.net and host.ns.net fail" ok fails_all unshare host-net ns.net host.ns.net
TAP_NAME="docker host-dev: dev.host_devices and host.dev fail" ok fails_all docker host-dev dev.host_devices host.dev
TAP_NAME="containerd-runc host-pid: ns.pid and host.ns.pid fail" ok fails_all containerd-runc host-pid ns.pid host.ns.pid
TAP_NAME="firejail writable-root: fs.rootfs_readonly and host.fs.rootfs_readonly fail" ok fails_all firejail writable-root fs.rootfs_readonly host.fs.rootfs_readonly
TAP_NAME="runsc writable-root: fs.rootfs_readonly and host.fs.rootfs_readonly (the spec's view) fail" ok fails_all runsc writable-root fs.rootfs_readonly host.fs.rootfs_readonly
TAP_NAME="runc no-nnp: priv.no_new_privs and host.nnp fail" ok fails_all runc no-nnp priv.no_new_privs host.nnp
TAP_NAME="unshare no-nnp: priv.no_new_privs and host.nnp fail" ok fails_all unshare no-nnp priv.no_new_privs host.nnp
TAP_NAME="docker no-nnp: priv.no_new_privs and host.nnp fail" ok fails_all docker no-nnp priv.no_new_privs host.nnp
TAP_NAME="containerd-runsc kept-caps: caps.effective and host.caps fail" ok fails_all containerd-runsc kept-caps caps.effective host.caps

# gVisor's seccomp controls, as designed: the workload's syscalls end in
# gVisor's kernel, which shipped strict accepts (kernel.separate_kernel), so
# the doctor's seccomp.mode passes by the boundary and says so; the host's
# view (the spec and the Sentry's flags) sees the filter gone
for k in runsc/no-seccomp containerd-runsc/no-seccomp runsc/privileged docker-runsc/privileged containerd-runsc/privileged; do
	rt=${k%/*} v=${k#*/}
	[ -n "${LIMITED[$k]:-}" ] && continue
	is "$(gres "$rt" "$v" host.seccomp status)" fail "$k: host.seccomp (the engine's view) fails"
	if [ "$rt/$v" = docker-runsc/privileged ]; then
		# no --oci-seccomp: no filter in strict either, nothing for privileged to remove
		like "$(jq -r '.lanes[] | select(.runtime=="docker-runsc" and .variant=="privileged") | .notes' "$J")" "without --oci-seccomp" "$k: says the filter was never there"
		continue
	fi
	is "$(gres "$rt" "$v" seccomp.mode status)" pass "$k: the doctor's seccomp.mode passes by the kernel boundary"
	like "$(gres "$rt" "$v" seccomp.mode observed)" "Seccomp 0.*kernel boundary: user-space \(gVisor\), accepted by kernel.separate_kernel" \
		"$k: and its observed names the user-space boundary (and no filter)"
	is "$(jq -r --arg r "$rt" --arg v "$v" '.lanes[] | select(.runtime==$r and .variant==$v) | .judged_by_boundary | join(",")' "$J")" seccomp.mode \
		"$k: the control does not demand it fail, and says so"
done

# docker kept-caps adds only what the engine knows: ask it independently
if docker create --pull never --cap-add CAP_CHECKPOINT_RESTORE sandprobe-no-such-image:none 2>&1 | grep -q 'unknown capability'; then
	eff=$(jq -r '.lanes[] | select(.runtime=="docker" and .variant=="kept-caps") | .results[] | select(.id=="host.caps") | .observed' "$J" |
		sed -n 's/.*CapEff \([0-9a-f]*\).*/\1/p')
	ok test -n "$eff"
	is "$(( (0x${eff:-0} >> 40) & 1 ))" 0 "docker kept-caps: CAP_CHECKPOINT_RESTORE, unknown to the engine, is not asked for"
	is "$(( (0x${eff:-0} >> 21) & 1 ))" 1 "docker kept-caps: CAP_SYS_ADMIN is kept"
else
	skip "the engine knows CAP_CHECKPOINT_RESTORE"; skip "same"; skip "same"
fi
if [ -n "${LIMITED[docker/privileged]:-}" ]; then
	like "$(jq -r '.lanes[] | select(.runtime=="docker" and .variant=="privileged") | .reason' "$J")" \
		"CAP_SYS_RESOURCE|bounding set lacks CAP_" "docker privileged: the limitation names the capability the host lacks"
fi
# how the lanes ran, said in the report
if [ "$(jq -r .platform.cgroup "$J")" = hybrid ]; then
	like "$(jq -r '.lanes[] | select(.runtime=="crun" and .variant=="strict") | .notes' "$J")" "private mount namespace.*--cgroup-manager=disabled" \
		"crun on hybrid cgroups: said how it ran"
	like "$(jq -r .platform.notes "$J")" "hybrid cgroup host: crun, which refuses that layout, runs in a private mount namespace" \
		"the platform notes say how crun runs here (and that its lanes run: the crun strict lane passed above)"
fi
is "$(jq -r '[.lanes[] | select(.runtime=="containerd-runsc") | .runtime_class.handler] | unique | join(",")' "$J")" runsc \
	"containerd-runsc lanes read like a RuntimeClass (handler runsc)"
is "$(jq -r '[.lanes[] | select(.runtime=="containerd-runc") | .runtime_class.runtime_type] | unique | join(",")' "$J")" io.containerd.runc.v2 \
	"containerd-runc lanes name their runtime type"
like "$(jq -r '.lanes[] | select(.runtime=="containerd-runc" and .variant=="strict") | .notes' "$J")" "\(CONTAINERD_ADDRESS\); namespace sandprobe-" \
	"containerd lanes use the containerd given, in a namespace of the run's own"
like "$(jq -r '.lanes[] | select(.runtime=="qemu" and .variant=="strict") | .results[] | select(.id=="host.vm.accel") | .observed' "$J")" \
	'^(kvm|tcg)' "qemu lane reports its accelerator"
# expectations come from the launch, not from a table
like "$(jq -r '.lanes[] | select(.runtime=="unshare" and .variant=="strict") | .doctor_args | join(" ")' "$J")" \
	'caps.effective=ALL' "unshare: derived expectation caps.effective=ALL (its launch keeps them)"
is "$(jq '[.lanes[] | .results[] | select(.id=="host.teardown" and .status!="pass")] | length' "$J")" 0 \
	"every lane proved its teardown"
is "$(left_of "$J")" "procs: 0
mounts: 0" "nothing of the lanes is left (processes, mounts, temp dirs, cgroups, runc state, containers, images, containerd namespaces)"
is "$after" "$before" "nothing is left in the test's engines (docker containers and images, runsc state, shims, containerd objects in every namespace)"
ok test "$(jq '[.lanes[] | select(.name)] | length' "$J")" -ge 60

# --- the same gVisor seccomp controls with the doctor's policy judging gVisor's
# kernel as if it were the host's (--set kernel.separate_kernel=): the doctor
# itself must now FAIL seccomp.mode there, and the control demands it
b4=$(engines)
"$SP_BIN" live --matrix --runtimes runsc,containerd-runsc --variants no-seccomp,privileged --set kernel.separate_kernel= \
	--doctor "$DOCTOR" --format json --output "$tmp/literal.json" 2>"$tmp/literal.err"
L=$tmp/literal.json
is "$(jq '[.lanes[] | select(.status != "skip")] | length' "$L")" 4 "kernel.separate_kernel=: the four gVisor seccomp controls ran"
while IFS='|' read -r rt v kind acc args must missed judged st obs hst; do
	is "$kind/$acc" user-space/false "$rt/$v: the doctor's boundary is gVisor's, not accepted by its policy"
	like "$args" "--set kernel.separate_kernel=( |$)" "$rt/$v: the doctor got the --set, after the launch-derived ones"
	is "$st" fail "$rt/$v: the doctor's seccomp.mode FAILS"
	like "$obs" "Seccomp 0.*not accepted by kernel.separate_kernel" "$rt/$v: and says it judged the user-space kernel literally"
	is "$hst" fail "$rt/$v: host.seccomp fails"
	like ",$must," ",seccomp\.mode," "$rt/$v: seccomp.mode is a covering check again ($must)"
	is "$missed|$judged" "|" "$rt/$v: every covering check failed, none was left to the boundary"
done < <(jq -r '.lanes[] | select(.status != "skip") | [.runtime, .variant, .kernel_boundary.kind, (.kernel_boundary.accepted | tostring),
	(.doctor_args | join(" ")), (.must_fail | join(",")), (.did_not_fail | join(",")), (.judged_by_boundary | join(",")),
	(.results[] | select(.id == "seccomp.mode") | .status, .observed), (.results[] | select(.id == "host.seccomp") | .status)] | join("|")' "$L")
is "$(jq -r '.defects | length' "$L")" 0 "kernel.separate_kernel=: no DEFECT"
is "$(left_of "$L")$(engines)" "procs: 0
mounts: 0$b4" "kernel.separate_kernel=: nothing of those lanes is left"

# --- bad input: an engine that is absent or refuses an option is a skip with the reason and the command tried
DOCKER_HOST=unix:///nonexistent/docker.sock "$SP_BIN" live --runtime docker --doctor "$DOCTOR" --format json >"$tmp/nodocker.json"
is "$?" 0 "no engine at DOCKER_HOST: exit 0 (a skip)"
like "$(jq -r '.lanes[0].status + ": " + .lanes[0].reason' "$tmp/nodocker.json")" \
	'^skip: no docker engine answers at DOCKER_HOST=unix:///nonexistent/docker.sock: `docker info`' "and the skip names the endpoint and the command"
DOCKER_HOST=unix:///nonexistent/docker.sock "$SP_BIN" live --runtime docker --doctor "$DOCTOR" --strict >/dev/null
is "$?" 1 "--strict: the skip is a failure"
# a docker CLI in front of the real one that adds an option the engine refuses
mkdir -p "$tmp/bin"
cat >"$tmp/bin/docker" <<EOF
#!/bin/sh
if [ "\$1" = run ]; then shift; exec $(command -v docker) run --cap-add CAP_SANDPROBE_BOGUS "\$@"; fi
exec $(command -v docker) "\$@"
EOF
chmod +x "$tmp/bin/docker"
b2=$(engines)
PATH=$tmp/bin:$PATH "$SP_BIN" live --runtime docker --doctor "$DOCTOR" --format json >"$tmp/refused.json"
is "$?" 0 "an option the engine refuses: exit 0 (a skip)"
is "$(jq -r '.lanes[0].launch_failed' "$tmp/refused.json")" true "reported as a launch failure"
like "$(jq -r '.lanes[0].reason' "$tmp/refused.json")" \
	'^launch failed \(exit 125\): .*unknown capability.*CAP_SANDPROBE_BOGUS.*; tried: docker run -i --rm --name sandprobe-' \
	"with the engine's own message and the command tried"
is "$(jq '.defects | length' "$tmp/refused.json")" 0 "not a tool defect"
is "$(left_of "$tmp/refused.json")$(engines)" "procs: 0
mounts: 0$b2" "a refused launch leaves nothing half-created"
# containerd: one that is not there, and one the lane starts itself
"$SP_BIN" live --runtime containerd-runc --containerd-address /nonexistent/containerd.sock --doctor "$DOCTOR" --format json >"$tmp/noctd.json"
like "$(jq -r '.lanes[0].status + ": " + .lanes[0].reason' "$tmp/noctd.json")" \
	'^skip: no containerd answers at /nonexistent/containerd.sock \(--containerd-address\): `ctr --address /nonexistent/containerd.sock version` fails' \
	"a containerd that does not answer: a skip naming the socket and the command"
b3=$(engines)
env -u CONTAINERD_ADDRESS "$SP_BIN" live --runtime containerd-runc --doctor "$DOCTOR" --format json >"$tmp/ownctd.json"
is "$?" 0 "containerd-runc with no containerd given passes"
like "$(jq -r '.lanes[0].notes' "$tmp/ownctd.json")" "a containerd this run started \(config, root, state and socket under|the default socket" \
	"it starts a containerd of its own (or uses the default socket)"
is "$(left_of "$tmp/ownctd.json")$(engines)" "procs: 0
mounts: 0$(grep -q 'this run started' <<<"$(jq -r '.lanes[0].notes' "$tmp/ownctd.json")" && printf '\nown containerd procs: 0')$b3" \
	"and leaves nothing behind once the run ends (its containerd stopped, its dir removed)"
done_testing
