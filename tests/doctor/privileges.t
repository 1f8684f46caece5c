#!/usr/bin/env bash
# Privileges and capabilities. Passing sandbox: the strict box (nobody, no
# capabilities, NoNewPrivs). Failing sandboxes: real root with every
# capability kept (bwrap --cap-add ALL, no user namespace), ambient
# capabilities from setpriv, no NoNewPrivs (unshare), a planted setuid
# binary, a planted file capability, a planted passwordless sudo, a runtime
# socket that answers, an abstract containerd-shim socket in a shared
# network namespace.
# Cannot fail on this machine (said once here, asserted as pass below):
#  - caps.sys_module: the kernel has no module support (init_module ENOSYS);
#    asserted as fail where the kernel has modules
#  - caps.sys_resource: the host itself lacks CAP_SYS_RESOURCE (CapBnd bit
#    24); asserted as fail where the host has it
. "$(dirname "$0")/lib.sh"

CAPS="caps.net_raw caps.sys_admin caps.sys_ptrace caps.mknod caps.dac_override caps.chown caps.setuid caps.setgid
caps.net_admin caps.sys_time caps.sys_chroot caps.sys_boot caps.sys_rawio caps.sys_nice caps.setfcap"

run_json strict strict_box -- -k 'privileges'
for id in caps.effective caps.bounding caps.permitted caps.inheritable caps.ambient priv.no_new_privs priv.root_mapped $CAPS \
	caps.sys_module caps.sys_resource priv.setuid_files priv.file_caps priv.sudo_helpers priv.runtime_sockets \
	priv.abstract_sockets; do
	is_status strict $id pass
done
# the box maps no other uid and shows no process of another uid, and nobody
# cannot make one: kill was not tried, and CapEff alone is no pass
is_status strict caps.kill skip
like "$(detail strict caps.kill)" "ground: CapEff only" "caps.kill says its only ground was CapEff"
# with no other id mapped, a change of owner or id is tried towards an unmapped one (EINVAL)
like "$(detail strict caps.setuid)" "tried [0-9]+ \(unmapped\): EINVAL" "caps.setuid tried the operation"

# a seccomp filter that kills (SIGSYS) on mount, ptrace, reboot ...: the batched capability
# probes resume after each kill, every check still has its verdict, and nothing is left running
STRICT_FILTER=$CAT/filter-kill run_json killfilter strict_box -- -k 'caps or priv.no_new_privs'
for id in $CAPS caps.sys_module caps.sys_resource; do is_status killfilter $id pass; done
is_status killfilter caps.kill skip
is "$(pgrep -u 65534 -f "$D" | wc -l | tr -d ' ')" 0 "no probe process outlives a killed batch"

# real root, every capability, host PID namespace (for caps.kill: a process of another uid)
setpriv --reuid=65534 --regid=65534 --clear-groups sleep 300 &
OTHER=$!
at_exit "kill $OTHER"
run_json root bwrap --unshare-net --unshare-ipc --unshare-uts --die-with-parent --new-session --cap-add ALL \
	--ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$CAT/doctor" $D \
	$D --profile strict --format json -k privileges
for id in caps.effective caps.bounding caps.permitted $CAPS caps.kill; do is_status root $id fail; done
if have_modules; then is_status root caps.sys_module fail; else is_status root caps.sys_module pass; fi
if grep -q '^CapBnd:.*' /proc/self/status && [ $((0x$(awk '/^CapBnd/ {print $2}' /proc/self/status) >> 24 & 1)) = 1 ]; then
	is_status root caps.sys_resource fail
else
	is_status root caps.sys_resource pass
fi

# ambient and inheritable capabilities
run_json ambient setpriv --inh-caps +net_raw --ambient-caps +net_raw -- "$CAT/doctor" --profile strict --format json \
	-k 'caps.inheritable or caps.ambient'
is_status ambient caps.inheritable fail
is_status ambient caps.ambient fail

# root inside is root outside: bwrap as real root with a user namespace maps 0 -> 0
run_json rootmap bwrap --unshare-user --uid 0 --die-with-parent --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp \
	--ro-bind "$CAT/doctor" $D $D --profile strict --format json -k priv.root_mapped
is_status rootmap priv.root_mapped fail

# no NoNewPrivs
run_json nonnp unshare --pid --fork --mount-proc "$CAT/doctor" --profile strict --format json -k priv.no_new_privs
is_status nonnp priv.no_new_privs fail

# a planted setuid-root binary on a mount that honours setuid; the same on a nosuid mount
mkdir -p "$CAT/m"
plant() { # OPTS -> runs the doctor as nobody over the planted mount
	unshare --mount --propagation private sh -c '
		mount -t tmpfs -o "$1" tmpfs "$2/m" && cp /bin/true "$2/m/suidtool" && chmod 4755 "$2/m/suidtool" &&
		setpriv --reuid=65534 --regid=65534 --clear-groups -- "$2/doctor" --profile strict --format json \
			-k priv.setuid_files --set "priv.scan_roots=$2/m"' sh "$1" "$CAT"
}
run_json suid plant suid
is_status suid priv.setuid_files fail
run_json nosuid plant nosuid
is_status nosuid priv.setuid_files pass
# the doctor as root: what another user of the sandbox could gain. A setuid-root file
# that others may run counts (ground truth: nobody running a setuid copy of id gets
# euid 0); one only root's group may run does not
plant_root() { # MODE
	unshare --mount --propagation private sh -c '
		mount -t tmpfs -o suid tmpfs "$2/m" && chmod 755 "$2/m" && cp /usr/bin/id "$2/m/suidid" &&
		chmod "$1" "$2/m/suidid" && if [ "$3" = truth ]; then
			setpriv --reuid=65534 --regid=65534 --clear-groups -- "$2/m/suidid" -u
		else "$2/doctor" --profile strict --format json -k priv.setuid_files --set "priv.scan_roots=$2/m"; fi' \
		sh "$1" "$CAT" "${2:-}"
}
is "$(plant_root 4755 truth)" 0 "ground truth: nobody runs the 4755 setuid-root copy as euid 0"
run_json rootsuid plant_root 4755
is_status rootsuid priv.setuid_files fail
run_json rootsuid750 plant_root 4750
is_status rootsuid750 priv.setuid_files pass
# the scan is bounded: 1 ms over a large tree without setuid files warns with its progress
run_json budget setpriv --reuid=65534 --regid=65534 --clear-groups -- "$CAT/doctor" --profile strict --format json \
	-k priv.setuid_files --set priv.scan_roots=/usr/share --set priv.scan_budget_ms=1
is_status budget priv.setuid_files warn
like "$(detail budget priv.setuid_files)" "over its 1 ms budget after [0-9]+ files" "budget warning says how far it got"

# a planted file capability on PATH; harmless under NoNewPrivs
fcap() {
	unshare --mount --propagation private sh -c '
		mount -t tmpfs -o suid tmpfs "$1/m" && cp /bin/true "$1/m/captool" && "$2" "$1/m/captool" &&
		PATH="$1/m" $3 "$1/doctor" --profile strict --format json -k priv.file_caps' sh "$CAT" "$SP_HELPERS/setfcap" "$1"
}
run_json fcap fcap ""
is_status fcap priv.file_caps fail
run_json fcapnnp fcap "$(command -v setpriv) --no-new-privs --"
is_status fcapnnp priv.file_caps pass
# a PATH directory nobody cannot list: the search did not look everywhere, so no pass
mkdir -m 700 "$CAT/locked" && mkdir -m 755 "$CAT/open"
NOBODY=("$(command -v setpriv)" --reuid=65534 --regid=65534 --clear-groups --)
TAP_NAME="truth: nobody cannot list the locked PATH directory" ok eval '! "${NOBODY[@]}" ls "$CAT/locked" >/dev/null 2>&1'
run_json fcaplocked env PATH="$CAT/open:$CAT/locked" "${NOBODY[@]}" "$CAT/doctor" --profile strict --format json -k priv.file_caps
is_status fcaplocked priv.file_caps warn
like "$(detail fcaplocked priv.file_caps)" "locked: cannot be listed \(EACCES\)" "the unlisted directory is named"

# a setuid sudo with a passwordless rule, run as nobody without NoNewPrivs
sudo_box() {
	unshare --mount --propagation private sh -c '
		mount -t tmpfs -o suid tmpfs /usr/local/sbin && cp /bin/true /usr/local/sbin/sudo &&
		chmod 4755 /usr/local/sbin/sudo && mount -t tmpfs tmpfs /etc && printf "%s\n" "$2" >/etc/sudoers &&
		chmod 644 /etc/sudoers &&
		setpriv --reuid=65534 --regid=65534 --clear-groups -- "$1/doctor" --profile strict --format json \
			-k priv.sudo_helpers' sh "$CAT" "$1"
}
run_json sudo sudo_box "nobody ALL=(ALL) NOPASSWD: ALL"
is_status sudo priv.sudo_helpers fail
run_json sudopw sudo_box "nobody ALL=(ALL) ALL"
is_status sudopw priv.sudo_helpers pass
# /etc/sudoers readable, a rule in /etc/sudoers.d that nobody cannot read: the
# search did not see every file, so no pass (ground truth: nobody's cat is refused)
sudo_hidden() {
	unshare --mount --propagation private sh -c '
		mount -t tmpfs -o suid tmpfs /usr/local/sbin && cp /bin/true /usr/local/sbin/sudo &&
		chmod 4755 /usr/local/sbin/sudo && mount -t tmpfs tmpfs /etc && printf "%s\n" "nobody ALL=(ALL) ALL" >/etc/sudoers &&
		chmod 644 /etc/sudoers && mkdir -m 755 /etc/sudoers.d &&
		echo "nobody ALL=(ALL) NOPASSWD: ALL" >/etc/sudoers.d/hidden && chmod 600 /etc/sudoers.d/hidden &&
		if setpriv --reuid=65534 --regid=65534 --clear-groups -- cat /etc/sudoers.d/hidden >/dev/null 2>&1;
		then echo "{}"; exit; fi &&
		setpriv --reuid=65534 --regid=65534 --clear-groups -- "$1/doctor" --profile strict --format json \
			-k priv.sudo_helpers' sh "$CAT"
}
run_json sudohidden sudo_hidden
is_status sudohidden priv.sudo_helpers warn
like "$(detail sudohidden priv.sudo_helpers)" "/etc/sudoers.d/hidden: EACCES" "the unread rule file is named"

# a docker-like control socket inside the sandbox's own /run; it answers, then it does not
mkdir -m 755 "$CAT/run"
LPID=$("$SP_HELPERS/unixlisten" "$CAT/run/docker.sock")
at_exit "kill $LPID"
chmod 666 "$CAT/run/docker.sock"
run_json sock strict_box --bind "$CAT/run" /run -- -k priv.runtime_sockets
is_status sock priv.runtime_sockets fail
kill "$LPID"
run_json deadsock strict_box --bind "$CAT/run" /run -- -k priv.runtime_sockets
is_status deadsock priv.runtime_sockets pass

# an abstract containerd-shim socket reaches a sandbox that shares the network namespace
APID=$("$SP_HELPERS/unixlisten" "@containerd-shim/sandprobe-test-$$.sock")
at_exit "kill $APID"
run_json abstract setpriv --reuid=65534 --regid=65534 --clear-groups -- bwrap --unshare-pid --die-with-parent \
	--ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$CAT/doctor" $D \
	$D --profile strict --format json -k priv.abstract_sockets
is_status abstract priv.abstract_sockets fail
run_json abstract_netns strict_box -- -k priv.abstract_sockets
is_status abstract_netns priv.abstract_sockets pass
done_testing
