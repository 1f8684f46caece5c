#!/usr/bin/env bash
# The static doctor alone in an otherwise empty rootfs (no libc, no shell, no
# /bin) runs and gives the same verdicts as in a full rootfs under the same
# runtime configuration: with bwrap, with runc, and under unshare.
. "$(dirname "$0")/../lib/tap.sh"
need_root
[ "${SP_SAN:-0}" = 1 ] && skip_na "the sanitizer build of the doctor is not static"
need bwrap
need runc
need jq
need unshare
D=$SP_DOCTOR
T=$(sp_tmpdir)
"$SP_HELPERS/mkseccomp" > "$T/filter.bpf" || skip_all "mkseccomp helper missing"

TAP_NAME="doctor binary is statically linked" ok bash -c "file -b '$D' 2>/dev/null | grep -qE 'statically linked|static-pie linked' || ! ldd '$D' >/dev/null 2>&1"
size=$(stat -c %s "$D")
# it carries mbedTLS (about 0.9 MiB) for the tls.* handshakes and its SHA-256, no OpenSSL
TAP_NAME="doctor binary at most 2.5 MiB ($size bytes)" ok test "$size" -le 2621440

verdicts() { jq -r '[.results[] | "\(.id)=\(.status)"] | join(" ")'; }

# --- bwrap: empty rootfs vs the host's root, same options (those of
# tools/strict-bwrap: nobody, every namespace, masked kernel files)
chmod 755 "$TAP_TMPBASE" "$T"
chmod 644 "$T/filter.bpf"
E=$T/empty
mkdir -p "$E/proc" "$E/dev" "$E/tmp"   # mount points: nobody cannot create them
cp "$D" "$E/sandprobe-doctor"
masks=()
for f in /proc/keys /proc/timer_list /proc/kallsyms /proc/modules /proc/kcore /proc/sched_debug /proc/latency_stats; do
	[ -e "$f" ] && masks+=(--ro-bind /dev/null "$f")
done
opts=(--unshare-all --unshare-user --disable-userns --die-with-parent --new-session --cap-drop ALL
      --proc /proc --dev /dev --tmpfs /tmp "${masks[@]}" --seccomp 9)
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
empty=$(nobody bwrap --bind "$E" / "${opts[@]}" --remount-ro / /sandprobe-doctor --format json 9<"$T/filter.bpf"); rc=$?
is "$rc" 0 "bwrap, empty rootfs: doctor exits 0"
full=$(nobody bwrap --ro-bind / / "${opts[@]}" --tmpfs /sys/firmware --tmpfs /sys/fs/cgroup --ro-bind "$D" "$D" "$D" --format json 9<"$T/filter.bpf")
is "$(printf '%s' "$empty" | verdicts)" "$(printf '%s' "$full" | verdicts)" "bwrap: same verdicts in an empty and a full rootfs"
ok test "$(printf '%s' "$empty" | jq '.results | length')" -ge 100
is "$(printf '%s' "$empty" | jq -r .result)" pass "bwrap, empty rootfs: strict verdict pass"
is "$(ls -A "$E" | sort | tr '\n' ' ')" "dev proc sandprobe-doctor tmp " "empty rootfs holds only the doctor (and mount points)"
text=$(nobody bwrap --bind "$E" / "${opts[@]}" --remount-ro / /sandprobe-doctor 9<"$T/filter.bpf")
like "$(printf '%s\n' "$text" | tail -1)" "^RESULT: PASS" "bwrap, empty rootfs: text verdict"

# --- runc: the doctor alone vs a rootfs with busybox, same config
# the syscalls the strict filter refuses (the same list as tests/helpers/mkseccomp)
DENY='["mount","umount2","unshare","setns","keyctl","add_key","request_key","bpf","perf_event_open","userfaultfd","io_uring_setup","kexec_load","kexec_file_load","init_module","finit_module","delete_module","open_by_handle_at","ptrace","personality","pivot_root","chroot","swapon","swapoff","reboot","syslog","acct","quotactl","lookup_dcookie","name_to_handle_at","clone3"]'
mkbundle() { # dir, with_busybox
	local b=$1
	mkdir -p "$b/rootfs"
	cp "$D" "$b/rootfs/sandprobe-doctor"
	if [ "$2" = 1 ]; then
		mkdir -p "$b/rootfs/bin" "$b/rootfs/etc" "$b/rootfs/usr/lib"
		cp /bin/busybox "$b/rootfs/bin/busybox" 2>/dev/null || true
		echo "root:x:0:0::/:/bin/sh" > "$b/rootfs/etc/passwd"
	fi
	(cd "$b" && runc spec)
	jq '.process.args=["/sandprobe-doctor","--profile","container","--format","json"] | .process.terminal=false
	    | .root.readonly=true | .hostname="sp"
	    | .process.capabilities={"bounding":[],"effective":[],"permitted":[]}
	    | .mounts += [{"destination":"/tmp","type":"tmpfs","source":"tmpfs","options":["nosuid","nodev","mode=1777"]}]
	    | .linux.seccomp={"defaultAction":"SCMP_ACT_ALLOW","architectures":["SCMP_ARCH_X86_64","SCMP_ARCH_X86","SCMP_ARCH_X32"],
	                      "syscalls":[{"names":$deny,"action":"SCMP_ACT_ERRNO"},
	                                  {"names":["clone"],"action":"SCMP_ACT_ERRNO","args":[{"index":0,"value":268435456,"valueTwo":268435456,"op":"SCMP_CMP_MASKED_EQ"}]}]}' --argjson deny "$DENY" \
	    "$b/config.json" > "$b/c.json" && mv "$b/c.json" "$b/config.json"
}
mkbundle "$T/r-empty" 0
mkbundle "$T/r-full" 1
id1=sp-test-empty-$$
id2=sp-test-full-$$
at_exit "runc delete -f $id1; runc delete -f $id2"
empty=$(cd "$T/r-empty" && runc run "$id1" </dev/null); rc=$?
is "$rc" 0 "runc, empty rootfs: doctor exits 0 under container profile"
full=$(cd "$T/r-full" && runc run "$id2" </dev/null)
is "$(printf '%s' "$empty" | verdicts)" "$(printf '%s' "$full" | verdicts)" "runc: same verdicts with and without busybox/libc"
is "$(printf '%s' "$empty" | jq -r .result)" pass "runc, empty rootfs: verdict pass"
TAP_NAME="runc containers are gone" ok bash -c "! runc state $id1 >/dev/null 2>&1 && ! runc state $id2 >/dev/null 2>&1"

# --- unshare: namespaces only (no NNP, no seccomp, writable root)
out=$(unshare -U -r -p -f -n -u -i -C -m --mount-proc "$D" --format json)
is "$(printf '%s' "$out" | jq -r '[.results[] | select(.id|startswith("ns.")) | select(.id != "ns.time") | .status] | unique | join(",")')" pass "unshare: every namespace check passes"
is "$(printf '%s' "$out" | json_status priv.no_new_privs)" fail "unshare: no NoNewPrivs, fails"
is "$(printf '%s' "$out" | json_status seccomp.mode)" fail "unshare: no seccomp, fails"
is "$(printf '%s' "$out" | jq -r .result)" fail "unshare: strict verdict fail"
done_testing
