#!/usr/bin/env bash
# Lint configurations that real tools produced on this machine, and judge
# the findings against what jq reads from the same files (both sides, no
# hard-coded answers):
#   - `runc spec` and `runc spec --rootless`
#   - the config.json podman writes for a container it created (runc)
#   - the seccomp profile containers-common installs for podman
#   - the distribution's squid.conf, and our squid fixtures parsed by squid itself
. "$(dirname "$0")/../lib/tap.sh"
need jq
need yq
need runc
FIX=$(cd "$(dirname "$0")/fixtures" && pwd)
T=$(sp_tmpdir)

rules_of() { "$SP_BIN" lint --format json --fail-on note "$@" | jq -r '[.findings[].rule] | unique | join(" ")'; }

# what jq says a config.json lacks, as the rule ids that must fire
expected_oci() {
	jq -r '[
	  (if .linux.seccomp == null then "oci.seccomp_missing" else empty end),
	  (if (.linux.resources.memory.limit // 0) <= 0 then "oci.memory_limit" else empty end),
	  (if (.linux.resources.pids.limit // 0) <= 0 then "oci.pids_limit" else empty end),
	  (if ([.linux.namespaces[]?.type] | index("user")) == null then "oci.userns_missing" else empty end),
	  (if .process.noNewPrivileges != true then "oci.no_new_privileges" else empty end),
	  (if .root.readonly != true then "oci.root_writable" else empty end),
	  (if ([.linux.namespaces[]?.type] as $t | ["pid","network","mount","ipc","uts"] | map(select(. as $n | $t | index($n) | not)) | length) > 0
	   then "oci.namespace_missing" else empty end)
	] | join(" ")' "$1"
}
# the subset of lint's rules that expected_oci speaks about
judged='^(oci\.(seccomp_missing|memory_limit|pids_limit|userns_missing|no_new_privileges|root_writable|namespace_missing))$'
subset() { tr ' ' '\n' | grep -E "$judged" | sort | tr '\n' ' '; }

# --- runc spec
mkdir "$T/runc" "$T/rootless"
(cd "$T/runc" && runc spec) && (cd "$T/rootless" && runc spec --rootless)
for d in runc rootless; do
	f=$T/$d/config.json
	got=$(rules_of "$f" | subset)
	want=$(expected_oci "$f" | subset)
	is "$got" "$want" "runc spec ($d): the findings are what jq reads from the file"
	TAP_NAME="runc spec ($d): jq expects some findings ($want)" ok test -n "$want"
	is "$(rules_of "$f" | tr ' ' '\n' | grep -c '^oci\.caps_')" 0 "runc spec ($d): its default capabilities raise nothing"
	is "$(rules_of "$f" | tr ' ' '\n' | grep -cE '^oci\.(masked|readonly)_paths_missing$')" 0 \
		"runc spec ($d): its masked and read-only paths are the standard ones"
done
like "$(rules_of "$T/runc/config.json")" "oci.userns_missing" "runc spec: no user namespace"
unlike "$(rules_of "$T/rootless/config.json")" "oci.userns_missing" "runc spec --rootless: has a user namespace"

# --- containers-common's seccomp profile: the dangerous syscalls lint reports
# are exactly those jq finds in unconditional SCMP_ACT_ALLOW entries without args
PROFILE=/usr/share/containers/seccomp.json
if [ -f "$PROFILE" ]; then
	"$SP_BIN" lint --format json "$PROFILE" >"$T/prof.json"
	TAP_NAME="containers-common profile lints (exit 0 or 1)" ok test $? -le 1
	is "$(jq -r .files[0].kind "$T/prof.json")" seccomp "containers-common profile detected as seccomp"
	got=$(jq -r '[.findings[] | select(.rule == "seccomp.dangerous_syscall") | .message | split(" ")[0]] | sort | join(" ")' "$T/prof.json")
	want=$(jq -r --argjson d '["mount","umount2","fsopen","fsmount","move_mount","open_tree","ptrace","bpf","keyctl","add_key","request_key","unshare","setns","kexec_load","kexec_file_load","init_module","finit_module","delete_module","open_by_handle_at","userfaultfd","perf_event_open","io_uring_setup","io_uring_enter","io_uring_register","personality"]' \
		'[.syscalls[] | select(.action == "SCMP_ACT_ALLOW" and ((.args // []) | length) == 0
		   and ((.includes.caps // []) | length) == 0 and ((.includes.arches // []) | length) == 0) | .names[]
		  | select(. as $n | $d | index($n))] | unique | join(" ")' "$PROFILE")
	is "$got" "$want" "containers-common profile: dangerous syscalls reported = jq's unconditional allows"
	is "$(jq '[.findings[] | select(.rule == "seccomp.default_allow" or .rule == "seccomp.arch_missing")] | length' "$T/prof.json")" 0 \
		"containers-common profile: default action denies and x86_64 carries x86 and x32"
	line=$(jq -r '[.findings[] | select(.rule == "seccomp.dangerous_syscall")][0] | "\(.line) \(.message | split(" ")[0])"' "$T/prof.json")
	is "$(sed -n "${line%% *}p" "$PROFILE" | tr -d ' \t",')" "${line#* }" "containers-common profile: the finding's line holds that syscall name"
else
	[ "${SP_MUST_WORK:-0}" = 1 ] && _tap_result 1 "containers-common's seccomp profile is required under SP_MUST_WORK=1"
	skip "containers-common seccomp profile not installed"
fi

# --- the distribution's squid.conf, and a sandbox pointed at its port
if [ -f /etc/squid/squid.conf ]; then
	port=$(awk '$1 == "http_port" { print $2; exit }' /etc/squid/squid.conf)
	port=${port##*:}
	jq --arg p "http://127.0.0.1:$port" '.process.env += ["HTTPS_PROXY=" + $p]' "$T/runc/config.json" >"$T/withproxy.json"
	jq '.process.env += ["HTTPS_PROXY=http://127.0.0.1:1"]' "$T/runc/config.json" >"$T/wrongproxy.json"
	r=$(rules_of /etc/squid/squid.conf "$T/withproxy.json")
	unlike "$r" "relation.proxy_address" "distribution squid.conf: a sandbox using its http_port ($port) matches"
	r=$(rules_of /etc/squid/squid.conf "$T/wrongproxy.json")
	like "$r" "relation.proxy_address" "distribution squid.conf: a sandbox using another port does not"
	r=$(rules_of /etc/squid/squid.conf "$T/runc/config.json")
	like "$r" "relation.proxy_unset" "distribution squid.conf: a sandbox without HTTPS_PROXY is reported"
fi
if command -v squid >/dev/null; then
	bad=""
	for f in "$FIX"/good/squid.conf "$FIX"/trigger/*.conf "$FIX"/trigger/*/squid.conf; do
		squid -k parse -f "$f" 2>&1 | grep -qE 'FATAL|ERROR|Bungled' && bad="$bad $f"
	done
	is "$bad" "" "every squid fixture is a config that squid itself accepts"
else
	skip "squid not installed"
fi

# --- kubectl: what `kubectl create --dry-run=client` writes (no cluster needed),
# YAML and JSON, with its null fields (creationTimestamp: null) and empty ones
if command -v kubectl >/dev/null; then
	for fmt in yaml json; do
		kubectl create deployment web --image=localhost/web:1 --dry-run=client -o "$fmt" >"$T/kubectl.$fmt" 2>"$T/kubectl.err"
		is "$?" 0 "kubectl create deployment -o $fmt"
		"$SP_BIN" lint --format json "$T/kubectl.$fmt" >"$T/kl.json" 2>&1
		TAP_NAME="kubectl $fmt: linted (exit 1, no input error)" ok test "$?" = 1 -a \
			"$(jq '[.findings[] | select(.rule == "lint.input_invalid")] | length' "$T/kl.json")" = 0
		is "$(jq -r '.files[0].kind' "$T/kl.json")" kube "kubectl $fmt: detected as kube"
		# ground truth from the file itself: no limits, no securityContext
		want=$(yq -r '.spec.template.spec.containers[0].resources.limits == null' "$T/kubectl.$fmt")
		got=$(jq -r '[.findings[] | select(.rule == "kube.resource_limits")] | length > 0' "$T/kl.json")
		is "$got" "$want" "kubectl $fmt: kube.resource_limits exactly when the container has no limits"
	done
	yq -y '.spec.template.spec.containers[0].resources = {limits: {memory: "64Mi", cpu: "100m"}}' "$T/kubectl.yaml" \
		>"$T/kubectl-lim.yaml" 2>/dev/null &&
		unlike "$("$SP_BIN" lint --format json "$T/kubectl-lim.yaml" | jq -r '[.findings[].rule] | join(" ")')" \
			"kube.resource_limits" "kubectl yaml with limits set: no kube.resource_limits"
else
	# not required under SP_MUST_WORK: Debian 12 has no kubectl that the
	# machines' own one would not conflict with
	skip "kubectl not installed"
fi

# --- podman: the config.json it writes for a container it created
if ! command -v podman >/dev/null || ! command -v busybox >/dev/null; then
	[ "${SP_MUST_WORK:-0}" = 1 ] && _tap_result 1 "podman and busybox are required under SP_MUST_WORK=1"
	skip "podman or busybox not installed"
	done_testing
	exit 0
fi
name=sp-lint-$$-$RANDOM
img=localhost/$name:1
mkdir -p "$T/rootfs/bin"
cp "$(command -v busybox)" "$T/rootfs/bin/busybox"
ln -s busybox "$T/rootfs/bin/sh"
tar -C "$T/rootfs" -cf "$T/rootfs.tar" .
at_exit "podman rmi -f '$img'"
podman import -q "$T/rootfs.tar" "$img" >/dev/null
is "$?" 0 "podman import of a busybox rootfs (no registry)"
at_exit "podman rm -f '$name'"
podman create -q --runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --name "$name" \
	--env HTTPS_PROXY=http://127.0.0.1:3128 "$img" /bin/sh >/dev/null
is "$?" 0 "podman create --runtime runc"
podman init "$name" >/dev/null 2>"$T/init.err"
is "$?" 0 "podman init writes the OCI bundle"
cfg=$(podman inspect --format '{{.StaticDir}}' "$name")/config.json
TAP_NAME="podman wrote config.json under the container's userdata dir" ok test -s "$cfg"
cp "$cfg" "$T/podman.json"
got=$(rules_of "$T/podman.json" | subset)
want=$(expected_oci "$T/podman.json" | subset)
is "$got" "$want" "podman config.json: the findings are what jq reads from the file"
TAP_NAME="podman config.json: jq expects some findings ($want)" ok test -n "$want"
r=$(rules_of "$T/podman.json")
is "$(tr ' ' '\n' <<<"$r" | grep -cE '^oci\.(caps_all|caps_dangerous|caps_beyond_default|masked_paths_missing|readonly_paths_missing|seccomp_missing)$')" 0 \
	"podman config.json: default capabilities, masked/read-only paths and seccomp raise nothing"
# the embedded profile: mount allowed without args in podman's seccomp => reported under /linux/seccomp
m=$(jq '[.linux.seccomp.syscalls[] | select(.action == "SCMP_ACT_ALLOW" and ((.args // []) | length) == 0) | .names[] | select(. == "mount")] | length' "$T/podman.json")
d=$("$SP_BIN" lint --format json "$T/podman.json" | jq '[.findings[] | select(.rule == "seccomp.dangerous_syscall" and (.message | startswith("mount ")) and (.pointer | startswith("/linux/seccomp/")))] | length')
is "$([ "$m" -gt 0 ] && echo yes || echo no)" "$([ "$d" -gt 0 ] && echo yes || echo no)" \
	"podman config.json: mount reported in linux.seccomp exactly when the profile allows it"
# the proxy podman was given, against the proxy configs
unlike "$(rules_of "$T/podman.json" "$FIX/good/squid.conf")" "relation.proxy_(address|unset)" \
	"podman config.json + squid on 127.0.0.1:3128: the proxy address matches"
sed 's/^http_port .*/http_port 127.0.0.1:3129/' "$FIX/good/squid.conf" >"$T/squid3129.conf"
like "$(rules_of "$T/podman.json" "$T/squid3129.conf")" "relation.proxy_address" \
	"podman config.json + squid on :3129: the proxy address does not match"

# --- podman generate kube: the Pod YAML podman writes for containers it
# created (a comment-only first document, then the Pod), judged against what
# podman inspect says about the same containers
gk=sp-lint-gk-$$-$RANDOM
at_exit "podman rm -f '$gk-weak' '$gk-plain' >/dev/null 2>&1"
podman create -q --runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --name "$gk-weak" \
	--cap-add SYS_ADMIN -v /var/run:/host-run "$img" /bin/sh >/dev/null
podman create -q --runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --name "$gk-plain" \
	"$img" /bin/sh >/dev/null
for v in weak plain; do
	podman generate kube "$gk-$v" >"$T/gk-$v.yaml" 2>/dev/null
	is "$?" 0 "podman generate kube ($v)"
	"$SP_BIN" lint --format json "$T/gk-$v.yaml" >"$T/gk-$v.json" 2>&1
	TAP_NAME="podman generate kube ($v): linted, no input error" ok test \
		"$(jq '[.findings[] | select(.rule == "lint.input_invalid")] | length' "$T/gk-$v.json")" = 0
	caps=$(podman inspect --format '{{range .HostConfig.CapAdd}}{{.}} {{end}}' "$gk-$v" | tr ' ' '\n' | grep . | sed 's/^CAP_//' | sort | tr '\n' ' ')
	got=$(jq -r '[.findings[] | select(.rule == "kube.cap_add") | .message | split(" adds ")[1] | sub("^CAP_"; "")] | sort | join(" ")' "$T/gk-$v.json")
	is "$got" "${caps% }" "podman generate kube ($v): kube.cap_add names exactly podman's CapAdd (${caps:-none})"
	src=$(podman inspect --format '{{range .Mounts}}{{.Source}} {{end}}' "$gk-$v")
	n=$(jq '[.findings[] | select(.rule == "kube.runtime_socket" or .rule == "kube.host_path")] | length' "$T/gk-$v.json")
	is "$n" "$(wc -w <<<"$src" | tr -d ' ')" "podman generate kube ($v): one hostPath finding per bind mount podman reports (${src:-none})"
done
like "$(jq -r '[.findings[].rule] | join(" ")' "$T/gk-weak.json")" "kube.runtime_socket" \
	"podman generate kube: /var/run (which holds the runtime sockets) mounted whole is a runtime socket"
done_testing
