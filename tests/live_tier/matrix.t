#!/usr/bin/env bash
# The live matrix over bwrap, unshare, runc, podman (runtime runc) and qemu
# (software emulation here): every strict lane passes, every negative control
# fails exactly the checks that cover what it removed (no more, no fewer),
# and nothing is left behind: no process carrying a lane's nonce, no mount or
# temp dir of a lane, no runc/podman container or image, no network namespace
# bind. All of it is asserted from the host before and after.
. "$(dirname "$0")/../lib/tap.sh"
need_root
for t in jq bwrap unshare runc podman qemu-system-x86_64; do need "$t"; done
ls /boot/vmlinuz-* >/dev/null 2>&1 || skip_all "no kernel in /boot (apt-get install linux-image-amd64)"
[ -x /bin/busybox ] || skip_all "busybox-static not installed"
DOCTOR=$SP_DOCTOR
if [ "${SP_SAN:-0}" = 1 ]; then
	# the sanitizer doctor is dynamic; lanes need the static one
	DOCTOR=$SP_ROOT/build/sandprobe-doctor
	[ -x "$DOCTOR" ] || skip_all "static build/sandprobe-doctor missing (run make)"
fi
tmp=$(sp_tmpdir)

snapshot() {
	{
		# a lane's shell carries its nonce (sp-live-HEX); runtimes, conmon and qemu carry the lane name or dir
		echo "procs: $(grep -lE 'sp-live-[0-9a-f]{16}|sandprobe-[0-9a-f]{16}|sandprobe-live\.' /proc/[0-9]*/cmdline 2>/dev/null | grep -v "/proc/$$/" | wc -l)"
		echo "nsfs: $(grep -E ' nsfs ' /proc/self/mountinfo | grep -c 'sandprobe')"
		echo "mounts: $(grep -c 'sandprobe-live' /proc/self/mountinfo)"
		echo "tmpdirs: $(ls -d /tmp/sandprobe-live.* /dev/shm/sandprobe-live.* 2>/dev/null | wc -l)"
		echo "netns: $(ip netns list 2>/dev/null | grep -c sandprobe)"
		echo "runc: $(runc list -q 2>/dev/null | grep -c '^sandprobe-')"
		echo "podman: $(podman ps -a --format '{{.Names}}' 2>/dev/null | grep -c '^sandprobe-')"
		echo "images: $(podman images --format '{{.Repository}}' 2>/dev/null | grep -c 'sandprobe-live-')"
	}
}
before=$(snapshot)

"$SP_BIN" live --matrix --runtimes bwrap,unshare,runc,podman,qemu --doctor "$DOCTOR" \
	--format json --output "$tmp/live.json" 2>"$tmp/stderr"
rc=$?
after=$(snapshot)
J=$tmp/live.json

is "$(jq -r .schema "$J")" "sandprobe.live.v1" "report has schema sandprobe.live.v1"
is "$rc" 0 "matrix exits 0 (strict lanes pass, negative controls fail, no defect)"
is "$(jq '.defects | length' "$J")" 0 "no tool defect reported"
like "$(jq -r '.platform.cgroup' "$J")" '^(v1|v2|hybrid)$' "platform reports the cgroup layout"

for rt in bwrap unshare runc podman qemu; do
	is "$(jq -r --arg r "$rt" '[.lanes[] | select(.runtime == $r and .variant == "strict")][0].status' "$J")" pass \
		"$rt strict lane passes"
	n=$(jq --arg r "$rt" '[.lanes[] | select(.runtime == $r and .negative_control)] | length' "$J")
	ok test "$n" -ge 1
done
# every variant that removes something on the big three
for rt in bwrap runc podman; do
	is "$(jq -r --arg r "$rt" '[.lanes[] | select(.runtime == $r) | .variant] | join(",")' "$J")" \
		"strict,host-pid,host-net,writable-root,kept-caps,host-dev,no-seccomp,privileged" "$rt runs every variant"
done

# each negative control: fails, and exactly its covering checks fail (inside and host side);
# also_failed holds finer probes of the same property that other check families add
while IFS='|' read -r rt v status must missed collateral failing; do
	is "$status" fail "$rt/$v fails"
	isnt "$must" "" "$rt/$v has covering checks ($must)"
	is "$missed" "" "$rt/$v: every covering check failed"
	is "$collateral" "" "$rt/$v: nothing else failed"
	is "$failing" "$must" "$rt/$v: the failing ids are exactly the covering ids (+ finer probes of the same property)"
done < <(jq -r '.lanes[] | select(.negative_control) |
	[.runtime, .variant, .status, ((.must_fail + .also_failed) | sort | join(",")), (.did_not_fail | join(",")),
	 (.collateral | join(",")),
	 ([.results[] | select(.status == "fail" or .status == "error") | .id] | sort | join(","))] | join("|")' "$J")

# inside and outside both saw the removal, where the host can see it
fails_of() { jq -r --arg r "$1" --arg v "$2" '.lanes[] | select(.runtime==$r and .variant==$v) | [.results[] | select(.status=="fail") | .id] | sort | join(",")' "$J"; }
fails_all() { # runtime variant id... : every id is among the lane's failures
	local f r=$1 v=$2
	f=",$(fails_of "$r" "$v"),"
	shift 2
	for id in "$@"; do case "$f" in *",$id,"*) ;; *) echo "missing $id in $f"; return 1 ;; esac; done
}
TAP_NAME="bwrap host-pid: ns.pid, proc.host_visible and host.ns.pid fail" ok fails_all bwrap host-pid ns.pid proc.host_visible host.ns.pid
TAP_NAME="runc kept-caps: caps.effective, caps.bounding and host.caps fail" ok fails_all runc kept-caps caps.effective caps.bounding host.caps
TAP_NAME="podman no-seccomp: seccomp.mode and host.seccomp fail" ok fails_all podman no-seccomp seccomp.mode host.seccomp
TAP_NAME="unshare host-net: ns.net and host.ns.net fail" ok fails_all unshare host-net ns.net host.ns.net
# expectations come from the launch, not from a table: unshare keeps root's capabilities in its user namespace
like "$(jq -r '.lanes[] | select(.runtime=="unshare" and .variant=="strict") | .doctor_args | join(" ")' "$J")" \
	'caps.effective=ALL' "unshare: derived expectation caps.effective=ALL (its launch keeps them)"
like "$(jq -r '.lanes[] | select(.runtime=="bwrap" and .variant=="strict") | .doctor_args | join(" ")' "$J")" \
	'caps.effective= .*fs.rootfs_readonly=true' "bwrap: derived expectations cap-drop ALL and read-only root"
like "$(jq -r '.lanes[] | select(.runtime=="qemu" and .variant=="strict") | .results[] | select(.id=="host.vm.accel") | .observed' "$J")" \
	'^(kvm|tcg)' "qemu lane reports its accelerator"
is "$(jq -r '.lanes[] | select(.runtime=="qemu" and .variant=="strict") | .results[] | select(.id=="host.vm.kernel") | .status' "$J")" \
	pass "qemu: the report came from the booted guest kernel"
is "$(jq '[.lanes[] | .results[] | select(.id=="host.teardown" and .status!="pass")] | length' "$J")" 0 \
	"every lane proved its teardown"

is "$after" "$before" "nothing left behind (processes, mounts, temp dirs, netns, containers, images)"
done_testing
