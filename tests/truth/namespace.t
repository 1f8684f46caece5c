#!/usr/bin/env bash
# Ground truth on the namespace sandboxes: bubblewrap strict (as nobody, every
# namespace, no capabilities, a seccomp filter, read-only root, tmpfs /tmp)
# and each live-matrix variant of it; podman (runtime runc) hardened on the
# command line and the same variants; systemd-nspawn with its defaults;
# firejail without --chroot (Debian's firejail.config disables it) with
# --net=none, every capability dropped, --nonewprivs and its seccomp filter.
# Facts and expectations: tests/truth/lib.sh.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
need bwrap
need setpriv
R=$TR/rootfs
truth_rootfs "$R"
chmod -R a+rX "$R"
"$SP_HELPERS/mkseccomp" >"$TR/filter"

bw() { # VARIANT SCRIPT
	local v=$1 ns=(--unshare-user --unshare-pid --unshare-net --unshare-ipc --unshare-uts --unshare-cgroup)
	local root=(--ro-bind "$R" /) dev=(--dev /dev) caps=(--cap-drop ALL) sec=(--seccomp 9) who=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
	case $v in
	host-pid) ns=(--unshare-user --unshare-net --unshare-ipc --unshare-uts --unshare-cgroup) ;;
	host-net) ns=(--unshare-user --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup) ;;
	writable-root) root=(--bind "$R" /) ;;
	kept-caps) caps=(--cap-add ALL) ;;
	host-dev) dev=(--dev-bind /dev /dev) ;;
	no-seccomp) sec=() ;;
	privileged) who=() ns=(--unshare-pid --unshare-net --unshare-ipc --unshare-uts --unshare-cgroup) caps=(--cap-add ALL) sec=() ;;
	esac
	"${who[@]}" bwrap "${ns[@]}" --die-with-parent --new-session "${caps[@]}" "${root[@]}" --proc /proc "${dev[@]}" \
		--tmpfs /tmp "${sec[@]}" /bin/sh -c "$2" 9<"$TR/filter"
}
for V in ${TRUTH_VARIANTS:-strict host-pid host-net writable-root kept-caps host-dev no-seccomp privileged}; do
	bwv() { bw "$V" "$1"; }
	cell "bwrap-$V" host bwv && assert_cell "bwrap-$V"
done
expect_engine bwrap-strict bwrap ""

# a process of another uid in a user namespace root owns: an owner holds every
# capability in its namespaces, so a host-pid sandbox running as root can
# signal it without CAP_KILL (the host-pid cells below must find that out)
hold=$("$TRUTH" userns-hold 231072)
UPID=${hold#userns-hold }
[ "$UPID" -gt 0 ] 2>/dev/null && at_exit "kill -KILL $UPID"

if command -v podman >/dev/null 2>&1; then
	pm() { # VARIANT SCRIPT
		local v=$1 a=(--cap-drop ALL --read-only --security-opt no-new-privileges --network none --tmpfs /tmp)
		case $v in
		host-pid) a+=(--pid host) ;;
		host-net) a=(--cap-drop ALL --read-only --security-opt no-new-privileges --network host --tmpfs /tmp) ;;
		writable-root) a=(--cap-drop ALL --security-opt no-new-privileges --network none --tmpfs /tmp) ;;
		kept-caps) a=(--cap-add SYS_ADMIN,NET_RAW,KILL,MKNOD --read-only --security-opt no-new-privileges --network none --tmpfs /tmp) ;;
		host-dev) a+=(-v /dev:/dev) ;;
		no-seccomp) a+=(--security-opt seccomp=unconfined) ;;
		privileged) a=(--privileged --network none --tmpfs /tmp) ;;
		esac
		timeout 120 podman --runtime runc run --rm --name "sp-truth-$$-$v" --ulimit nofile=1024:1024 \
			--ulimit nproc=1024:1024 "${a[@]}" --rootfs "$R" /bin/sh -c "$2"
	}
	for V in ${TRUTH_VARIANTS:-strict host-pid host-net writable-root kept-caps host-dev no-seccomp privileged}; do
		pmv() { pm "$V" "$1"; }
		cell "podman-$V" host pmv && assert_cell "podman-$V"
	done
	expect_engine podman-strict podman runc
	if [ -s "$TR/podman-host-pid.facts" ]; then
		like "$(fact podman-host-pid kill-visible)" '^signalled' "truth: host pids, no CAP_KILL, yet a process in a root-owned user namespace can be signalled"
		like "$(devidence podman-host-pid strict caps.kill)" 'user namespace this sandbox.s uid owns' \
			"caps.kill fails and says why: the owner of a user namespace holds every capability in it"
	fi
else
	skip "podman not installed"
fi

if command -v systemd-nspawn >/dev/null 2>&1; then
	mkdir -p "$R/usr/lib" && touch "$R/usr/lib/os-release"
	ns_name=sp-truth-$$
	at_exit "rm -rf /run/systemd/nspawn/propagate/$ns_name"
	nsp() {
		timeout 120 systemd-nspawn --quiet --register=no --keep-unit --console=pipe --machine="$ns_name" \
			--directory="$R" /bin/sh -c "$1"
	}
	cell nspawn host nsp && assert_cell nspawn
	expect_engine nspawn nspawn ""
else
	skip "systemd-nspawn not installed (Debian package systemd-container)"
fi

if command -v firejail >/dev/null 2>&1; then
	# no chroot: the host's root, the helper and the doctor from our dir
	# (outside /tmp and /var/tmp, which --private-tmp hides: the build dir,
	# or /var/lib when the checkout itself is under /tmp)
	fj_base=${SP_BUILD:-$SP_ROOT/build}
	case "$fj_base" in /tmp/* | /var/tmp/*) fj_base=/var/lib ;; esac # a clone under /tmp
	CELL_BIN=$(mktemp -d "$fj_base/sandprobe-truth-fj.XXXXXX")
	at_exit "rm -rf '$CELL_BIN'"
	cp "$R/doctor" "$R/truth" "$CELL_BIN/" && chmod 755 "$CELL_BIN"
	fj() {
		timeout 120 firejail --noprofile --quiet --net=none --caps.drop=all --nonewprivs --seccomp --private-tmp \
			--private-dev /bin/sh -c "$1"
	}
	cell firejail host fj && assert_cell firejail
	expect_engine firejail firejail ""
	CELL_BIN=
else
	skip "firejail not installed"
fi
# no sandbox at all: the doctor on this machine itself. Where the machine is a
# VM (this one is a Firecracker guest) it runs other workloads beside the
# doctor, so its kernel is a host kernel for the doctor, not a sandbox's own
host_sh() { sh -c "$1"; }
CELL_BIN=$R cell bare-host host host_sh && assert_cell bare-host
if grep -qw hypervisor /proc/cpuinfo; then
	like "$(jq -r .environment.kernel_boundary.doubt "$TR/bare-host.strict.json")" 'not the doctor.s alone' \
		"a VM running other workloads is not taken for a sandbox's own kernel"
else
	skip "not a VM: the doubt about other workloads does not arise"
fi
done_testing
