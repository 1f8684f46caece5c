#!/usr/bin/env bash
# Filesystems and mounts. Passing sandbox: the strict box (read-only root,
# tmpfs /tmp, masked /proc and /sys paths, nobody). Failing sandboxes: a
# writable tmpfs root, a disk-backed /tmp, a suid/dev/exec scratch mount,
# real root mapped to uid 0 in its user namespace (/proc/sys writable), a
# planted /etc/shadow with a hash, a shared root propagation, a 1 MiB /tmp.
# fs.agent_config_*: a read-only and a writable bind of an agent configuration
# tree, and one holding a token.
# Cannot fail on this machine (asserted as pass): fs.modprobe,
# fs.sysrq_trigger and fs.uevent_helper -- this kernel has no module support,
# no magic SysRq and no uevent helper, so the files do not exist.
. "$(dirname "$0")/lib.sh"

run_json strict strict_box -- -k filesystem --set fs.writable=/tmp --set fs.tmpfs=/tmp
for id in fs.rootfs_readonly fs.writable_paths fs.tmpfs fs.nosuid fs.nodev fs.masked_paths fs.readonly_paths \
	fs.core_pattern fs.modprobe fs.sysrq_trigger fs.binfmt_misc fs.uevent_helper fs.release_agent fs.host_sensitive \
	fs.proc1_root fs.propagation fs.large_write fs.fsync; do
	is_status strict $id pass
done

# a writable root (bwrap's own tmpfs as /), a read-only path demanded writable
run_json rwroot setpriv --reuid=65534 --regid=65534 --clear-groups -- bwrap --unshare-all --die-with-parent \
	--ro-bind /usr /usr --symlink usr/lib /lib --symlink usr/lib64 /lib64 --proc /proc --dev /dev \
	--ro-bind "$CAT/doctor" /sd \
	/sd --profile strict --format json -k 'fs.rootfs_readonly or fs.writable_paths' --set fs.writable=/,/usr
is_status rwroot fs.rootfs_readonly fail
is_status rwroot fs.writable_paths fail

# /tmp on the host disk instead of tmpfs
mkdir -m 1777 "$CAT/disk"
run_json disk strict_box --bind "$CAT/disk" /tmp -- -k fs.tmpfs --set fs.tmpfs=/tmp
is_status disk fs.tmpfs fail

# scratch mounts with and without nosuid/nodev/noexec (real mounts in a private mount namespace)
mkdir -p "$CAT/m"
flags_run() {
	unshare --mount --propagation private sh -c 'mount -t tmpfs -o "$1" tmpfs "$2/m" && chmod 1777 "$2/m" &&
		"$2/doctor" --profile strict --format json -k "fs.nosuid or fs.nodev or fs.noexec" \
			--set "fs.nosuid=$2/m" --set "fs.nodev=$2/m" --set "fs.noexec=$2/m" --set "fs.writable=$2/m"' sh "$1" "$CAT"
}
run_json locked flags_run nosuid,nodev,noexec
run_json open flags_run suid,dev,exec
for id in fs.nosuid fs.nodev fs.noexec; do
	is_status locked $id pass
	is_status open $id fail
done
like "$(detail locked fs.noexec)" "exec of a probe file: EACCES" "noexec proven by an exec attempt"
# every named path absent: no mount was looked at, so no verdict
ok test ! -e "$CAT/absent-a" -a ! -e "$CAT/absent-b" # truth: the paths do not exist
run_json absent "$CAT/doctor" --profile strict --format json \
	-k "fs.nosuid or fs.nodev or fs.noexec or fs.agent_config_readonly" \
	--set "fs.nosuid=$CAT/absent-a,$CAT/absent-b" --set "fs.nodev=$CAT/absent-a,$CAT/absent-b" \
	--set "fs.noexec=$CAT/absent-a,$CAT/absent-b" --set "fs.agent_config=$CAT/absent-a"
for id in fs.nosuid fs.nodev fs.noexec fs.agent_config_readonly; do is_status absent $id skip; done
like "$(detail absent fs.nodev)" "none of the 2 named path" "the skip says no named path exists"
# nosuid by its effect: a set-user-ID file of uid 65534 made there (real root can chown) raises the euid only without it
like "$(detail open fs.nosuid)" "a set-user-ID file of uid 65534 RAISED the euid" "suid mount: the probe's set-user-ID file raised the euid"
like "$(detail locked fs.nosuid)" "a set-user-ID file of uid 65534 cannot be executed at all" "nosuid,noexec mount: it cannot even run"
run_json nosuidexec flags_run nosuid,exec
is_status nosuidexec fs.nosuid pass
like "$(detail nosuidexec fs.nosuid)" "a set-user-ID file of uid 65534 did not change the euid" "nosuid mount with exec: it ran and did not raise the euid"

# real root whose user namespace maps 0 -> 0: /proc/sys is writable, masks absent
run_json rootmap bwrap --unshare-user --uid 0 --unshare-pid --die-with-parent --ro-bind / / --proc /proc --dev /dev \
	--tmpfs /tmp --ro-bind "$CAT/doctor" $D $D --profile strict --format json -k filesystem
is_status rootmap fs.readonly_paths fail
is_status rootmap fs.core_pattern fail
is_status rootmap fs.masked_paths fail

# binfmt_misc mounted and writable by root
run_json binfmt unshare --mount --propagation private sh -c \
	'mount -t binfmt_misc none /proc/sys/fs/binfmt_misc && "$1" --profile strict --format json -k fs.binfmt_misc' sh "$CAT/doctor"
is_status binfmt fs.binfmt_misc fail

# every capability in the initial cgroup namespace: a fresh cgroup v1 hierarchy can be mounted and
# its release_agent written (from a cgroup namespace of its own, the kernel refuses new hierarchies)
run_json root bwrap --unshare-pid --unshare-net --die-with-parent --cap-add ALL --ro-bind / / --proc /proc \
	--dev /dev --tmpfs /tmp --ro-bind "$CAT/doctor" $D $D --profile strict --format json -k fs.release_agent
is_status root fs.release_agent fail

# a host's cgroup v1 hierarchy (a named one of the test's, in a mount namespace of
# its own) bound into a box of real root: with every capability its
# release_agent takes a write, without CAP_SYS_ADMIN the kernel refuses the
# write (EPERM) although the file opens for writing. Ground truth: python3
# writing the file's own value back in the same box.
mkdir -p "$CAT/cg1"
ra_box() { # CAPARG CMD...
	local cap=$1
	shift
	unshare --mount --propagation private sh -c 'mount -t cgroup -o "none,name=spra$$" cgroup "$1" || exit 1
		d=$1 c=$2; shift 2
		exec bwrap --die-with-parent --unshare-pid --unshare-net $c ALL --ro-bind / / --bind "$d" /mnt \
			--proc /proc --dev /dev --tmpfs /tmp "$@"' sh "$CAT/cg1" "$cap" "$@"
}
RA_PY='import os
fd = os.open("/mnt/release_agent", os.O_RDWR)
v = os.pread(fd, 4096, 0) or b"\n"
try:
    os.pwrite(fd, v, 0); print("accepted")
except OSError as e: print("refused", e.errno)'
is "$(ra_box --cap-drop python3 -c "$RA_PY")" "refused 1" "ground truth: without CAP_SYS_ADMIN the write gets EPERM"
is "$(ra_box --cap-add python3 -c "$RA_PY")" "accepted" "ground truth: with every capability it is accepted"
run_json ranocap ra_box --cap-drop --ro-bind "$CAT/doctor" $D $D --profile strict --format json -k fs.release_agent
is_status ranocap fs.release_agent pass
like "$(detail ranocap fs.release_agent)" "/mnt/release_agent: write of its own value EPERM" "judged by the write"
run_json racap ra_box --cap-add --ro-bind "$CAT/doctor" $D $D --profile strict --format json -k fs.release_agent
is_status racap fs.release_agent fail
like "$(detail racap fs.release_agent)" "/mnt/release_agent: write of its own value ACCEPTED" "the write accepted"

# a host shadow file with password hashes bind-mounted in
printf 'root:$6$sandprobe$Zm9vYmFy:19000:0:99999:7:::\n' >"$CAT/shadow"
chmod 644 "$CAT/shadow"
run_json shadow strict_box --ro-bind "$CAT/shadow" /etc/shadow -- -k fs.host_sensitive
is_status shadow fs.host_sensitive fail

# host processes with another root in view (shared PID namespace, tmpfs root)
sleep 300 &
SLP=$!
at_exit "kill $SLP"
run_json proc1 bwrap --unshare-net --die-with-parent --ro-bind /usr /usr --symlink usr/lib /lib \
	--symlink usr/lib64 /lib64 --proc /proc --dev /dev \
	--ro-bind "$CAT/doctor" /sd /sd --profile strict --format json -k fs.proc1_root
is_status proc1 fs.proc1_root fail

# shared propagation of /. A new mount namespace made rshared on a host whose / is private gets peer
# groups of its own: nothing propagates to the host (ground truth: no mount of the host's namespace
# carries the group), and the doctor, which sees the host's namespace here, proves it
run_json shared unshare --mount --propagation private sh -c 'mount --make-rshared / &&
	unshare --mount --propagation unchanged "$0" --profile strict --format json -k fs.propagation; exit $?' "$CAT/doctor"
is_status shared fs.propagation fail
like "$(detail shared fs.propagation)" 'has a member in mount namespace mnt:' "the outer namespace holding the peer is named"
# (the ground truth is taken while the sandbox's namespace lives: group numbers are reused after it)
unshare --mount --propagation shared sh -c '"$0" --profile strict --format json -k fs.propagation >"$1"
	g=$(awk "\$5 == \"/\" { for (i = 7; \$i != \"-\"; i++) if (\$i ~ /^shared:/) print \$i }" /proc/self/mountinfo | tail -1)
	echo "$g $(grep -c " $g " /proc/$2/mountinfo)" >"$1.truth"' "$CAT/doctor" "$CAT/own_group.json" $$
read -r grp hostn <"$CAT/own_group.json.truth"
like "$grp" '^shared:[0-9]+$' "the sandbox's / is in a shared peer group ($grp)"
is "$hostn" 0 "ground truth: the host's namespace holds no mount of the sandbox's group $grp"
is_status own_group fs.propagation pass
# the same own group behind a PID namespace: the host's mount namespace is out of sight, so no proof
run_json hidden unshare --mount --propagation shared --pid --fork --mount-proc "$CAT/doctor" --profile strict \
	--format json -k fs.propagation
is_status hidden fs.propagation warn

# a 1 MiB /tmp: the 10 MiB write fails; a 2 MiB quota is enforced; 32 KiB cannot hold the fsync probe
run_json small strict_box --size 1048576 --tmpfs /tmp -- -k 'fs.large_write or fs.fsync'
is_status small fs.large_write fail
run_json quota strict_box --size 2097152 --tmpfs /tmp -- -k fs.large_write --set fs.quota_mib=2 --set fs.large_write_mib=1
is_status quota fs.large_write pass
run_json noquota strict_box -- -k fs.large_write --set fs.quota_mib=2 --set fs.large_write_mib=1
is_status noquota fs.large_write fail
run_json tiny strict_box --size 32768 --tmpfs /tmp -- -k fs.fsync
is_status tiny fs.fsync fail

# An agent's configuration named by the policy (fs.agent_config). Passing: the
# tree bound read-only, no credential in it. Failing: the same tree bound
# writable for the sandbox's user (nobody), and a token in its MCP settings.
AC=$CAT/agent
mkdir -p "$AC/cfg/tools"
printf '{"model": "m", "max_tokens": 4096, "apiKey": "OPENAI_API_KEY_VARIABLE"}\n' >"$AC/cfg/settings.json"
printf 'name = "lint"\n' >"$AC/cfg/tools/lint.toml"
chmod -R a+rwX "$AC"
ACSET=(--set fs.agent_config=/tmp/agent,/tmp/agent-absent)
run_json ac_ro strict_box --ro-bind "$AC/cfg" /tmp/agent -- -k 'fs.agent_config_readonly or fs.agent_config_secrets' "${ACSET[@]}"
is_status ac_ro fs.agent_config_readonly pass
is_status ac_ro fs.agent_config_secrets pass
like "$(detail ac_ro fs.agent_config_readonly)" '2 files and 2 directories probed' "read-only: every file and directory of the tree probed"
run_json ac_rw strict_box --bind "$AC/cfg" /tmp/agent -- -k 'fs.agent_config_readonly' "${ACSET[@]}"
is_status ac_rw fs.agent_config_readonly fail
like "$(detail ac_rw fs.agent_config_readonly)" '/tmp/agent/settings.json: write open ACCEPTED' "the writable file is named"
like "$(detail ac_rw fs.agent_config_readonly)" '/tmp/agent/tools: creating a file ACCEPTED \(probe removed\)' "a new file in a subdirectory is refused or named"
is "$(cd "$AC/cfg" && find . | sort | tr '\n' ' ')" ". ./settings.json ./tools ./tools/lint.toml " "the probes left nothing behind"
is "$(cat "$AC/cfg/settings.json")" '{"model": "m", "max_tokens": 4096, "apiKey": "OPENAI_API_KEY_VARIABLE"}' "the probed file is unchanged"
tok=ghp_$(printf 'k%.0s' $(seq 36))
printf '{"mcpServers": {"gh": {"env": {"GITHUB_TOKEN": "%s"}}}}\n' "$tok" >"$AC/cfg/mcp.json"
chmod a+r "$AC/cfg/mcp.json"
run_json ac_tok strict_box --ro-bind "$AC/cfg" /tmp/agent -- -k 'fs.agent_config_secrets' "${ACSET[@]}"
is_status ac_tok fs.agent_config_secrets fail
like "$(detail ac_tok fs.agent_config_secrets)" '/tmp/agent/mcp.json:1: GitHub token \(value redacted\)' "the token is located by file and line"
unlike "$(cat "$CAT/ac_tok.json")" "$tok" "the token's value never appears in the report"
# a tree beyond the walk's bound: what was probed holds, but it is not a pass
mkdir -p "$AC/many"
for i in $(seq 1 600); do echo "x = $i" >"$AC/many/f$i.toml"; done
chmod -R a+rX "$AC/many"
run_json ac_many strict_box --ro-bind "$AC/many" /tmp/agent -- -k 'fs.agent_config_readonly or fs.agent_config_secrets' "${ACSET[@]}"
is_status ac_many fs.agent_config_readonly warn
is_status ac_many fs.agent_config_secrets warn
like "$(detail ac_many fs.agent_config_readonly)" 'walk stopped at its bound of 512 entries' "the bound is named"
run_json ac_none strict_box -- -k 'fs.agent_config_readonly or fs.agent_config_secrets'
is_status ac_none fs.agent_config_readonly skip
is_status ac_none fs.agent_config_secrets skip
done_testing
