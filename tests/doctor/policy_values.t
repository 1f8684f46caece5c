#!/usr/bin/env bash
# Policy values with a grammar of their own (a probe, a regex, an address, a
# port, a name from a fixed set ...) are checked when the policy loads, by
# the parser the check itself runs: a malformed one, from a policy file or
# from --set, is one line naming the file and line (or the --set argument)
# and the key, exit 2, and nothing runs (a probe that would leave a marker
# file leaves none, --bundle writes no tar). The good value of each key still
# loads. Ground truth for "nothing ran": the marker file and the bundle
# directory, read by the test.
. "$(dirname "$0")/../lib/tap.sh"
D=$SP_DOCTOR
T=$(sp_tmpdir)
M="$T/ran"
MARK=(--set "tools.probes=sh -c 'touch $M' => ^" --set 'expect.tools.probes=required')

# positive control: the marker probe runs when nothing is wrong
"$D" --profile host -k tools.probes "${MARK[@]}" >"$T/ctl.out" 2>&1
is "$?" 0 "control: the marker probe passes"
ok test -e "$M"
rm -f "$M"

# key | malformed value | what the error says | a good value
CASES=(
	"tools.probes|ls --version|expected 'PROGRAM ARG... => REGEX'|ls --version => ."
	"mcp.command|node 'srv.js|unterminated ' quote|node /srv/mcp/index.js stdio"
	"env.values|HOME~(|bad regex|HOME~^/; TERM=dumb"
	"env.kernel_release|~(|bad regex|~^6\\."
	"env.kernel_min|six|expected a kernel version|5.10"
	"env.swap|sometimes|expected on, off or any|off"
	"env.mounts|proc|not an absolute path|/proc, /dev"
	"net.egress.deny|example.com:443|is not an IP literal|10.0.0.1:443"
	"net.egress.allow|10.0.0.1|port between 1 and 65535|10.0.0.1:3128"
	"net.egress.dns|10.0.0.1:53:53|write IPv6 addresses as|10.0.0.1, [fd00::1]:53"
	"net.egress.metadata|169.254.169.254:0|port between 1 and 65535|169.254.169.254"
	"net.egress.ports|22,99999|'99999' is not a port|22, 443"
	"net.dns.resolvers|[fd00::1|unterminated|10.0.0.1:5353"
	"net.dns.unlisted|bad..name|label|canary.example.net"
	"net.dns.fake_address|10.0.0|expected an IPv4 or IPv6 address|10.0.0.99"
	"net.ipv6|yes|expected off, loopback or any|loopback"
	"net.proxy|ftp://10.0.0.1:21|unknown proxy scheme|socks5h://10.0.0.1:1080"
	"net.proxy.allowed_hosts|api.example.com:0|port must be a number|api.example.com:443"
	"net.proxy.readonly_hosts|a/b|cannot be in a DNS name|docs.example.com"
	"net.proxy.canary_host|http://canary|port must be a number|canary.example.net"
	"net.proxy.private_host|[::1]:x|port must be a number|rebind.example.net"
	"net.transparent.targets|192.0.2.10|port between 1 and 65535|192.0.2.10:443"
	"net.transparent.tls_ports|https|'https' is not a port|443, 8443"
	"net.transparent.sni|bad name|cannot be in a DNS name|api.example.com"
	"net.transparent.dns|resolver.example:53|not an IP literal|192.0.2.53"
	"net.transparent.dns_name|proxy_internal!|'!' cannot be in a DNS name|proxy.sandbox.internal"
	"net.transparent.resolver|10.0.0.1:0|port between 1 and 65535|10.0.0.1"
	"net.transparent.allow|10.0.0.1:http|port between 1 and 65535|10.0.0.1, 10.0.0.2:8443"
	"net.transparent.redirect|sctp/443|expected tcp/PORT, udp/PORT or PORT|tcp/443, udp/53"
	"tls.ca_fingerprint|sha256:abcd|expected a SHA-256 fingerprint|$(printf 'ab%.0s' $(seq 32))"
	"tls.allowed_hosts|api.example.com:99999|port must be a number|api.example.com"
	"tls.denied_hosts|a.test,b.test,c.test,d.test,e.test|5 entries, at most 4|canary.example.net"
	"proc.forbidden|sshd[|unterminated '['|sshd*, /usr/sbin/cron"
	"proc.required|/usr/bin/|no process name|agentd"
	"proc.pid1_forbidden|init[0-9|unterminated '['|systemd-*"
	"seccomp.deny|mount,mount2|'mount2' is not a syscall the doctor probes|mount, ptrace"
	"ns.required|pid,process|'process' is not a namespace type|pid, net"
	"fs.propagation|rshared|expected private, slave, shared or unbindable|private, slave"
	"cgroup.versions|2|expected v1, v2, hybrid or none|v2"
	"dev.allow|/dev/null|relative to /dev|null, net/tun"
	"kernel.separate_kernel|vm|expected user-space or guest|guest"
	"fs.writable|tmp|not an absolute path|/tmp"
	"fs.tmpfs|dev/shm|not an absolute path|/dev/shm"
	"fs.nosuid|tmp|not an absolute path|/tmp"
	"fs.nodev|tmp|not an absolute path|/tmp"
	"fs.noexec|tmp|not an absolute path|/tmp"
	"fs.masked|proc/kcore|not an absolute path|/proc/kcore"
	"fs.readonly|proc/sys|not an absolute path|/proc/sys"
	"fs.host_sensitive|etc/shadow|not an absolute path|/etc/shadow"
	"fs.agent_config|~/.mcp.json|not an absolute path|/home/agent/.mcp.json"
	"lsm.landlock_hidden|etc/hostname|not an absolute path|/etc/hostname"
	"priv.scan_roots|usr|not an absolute path|/usr"
	"priv.setuid_allow|bin/su|not an absolute path|/bin/su"
	"caps.effective|cap_flying|unknown capability 'cap_flying'|cap_chown"
	"priv.no_new_privs|maybe|expected true or false|true"
	"cgroup.pids_max|-1|expected a non-negative integer|200"
)

one_line() { [ "$(printf '%s\n' "$1" | wc -l | tr -d ' ')" = 1 ]; }

for c in "${CASES[@]}"; do
	IFS='|' read -r key bad why good <<<"$c"
	section=${key%%.*}
	name=${key#*.}
	mark=("${MARK[@]}")
	[ "$key" = tools.probes ] && mark=()

	# from a file: line 5 holds the bad value
	f="$T/$key.ini"
	if [ "$key" = tools.probes ]; then
		printf '; bad value\n[policy]\nbase = host\n[tools]\nprobes = %s\n' "$bad" >"$f"
	else
		printf "; bad value\n[tools]\nprobes = sh -c 'touch %s' => ^\n[%s]\n%s = %s\n" "$M" "$section" "$name" "$bad" >"$f"
	fi
	err=$("$D" --policy "$f" -k "tools.probes or ns.pid" 2>&1 >"$T/out"); rc=$?
	want="sandprobe: $f:5: $key: "
	is "$rc/${err:0:${#want}}" "2/$want" "$key = $bad in a file: exit 2, naming $f:5 and the key"
	TAP_NAME="... one line saying why ($why)" ok eval 'one_line "$err" && [[ $err == *"$why"* ]]'
	[[ $err == *"$why"* ]] || echo "# got: $err"
	TAP_NAME="... no report and the marker probe did not run" ok eval '! [ -s "$T/out" ] && ! [ -e "$M" ]'

	# from --set, after the marker probe: nothing runs, no bundle
	b="$T/bundle-$key"
	mkdir -p "$b"
	err=$("$D" --profile host --bundle "$b" -k "tools.probes or ns.pid" "${mark[@]}" --set "$key=$bad" 2>&1 >"$T/out"); rc=$?
	want="sandprobe: --set $key=$bad: $key: "
	is "$rc/${err:0:${#want}}" "2/$want" "--set $key=$bad: exit 2, naming the argument and the key"
	TAP_NAME="... one line saying why" ok eval 'one_line "$err" && [[ $err == *"$why"* ]]'
	TAP_NAME="... nothing ran: no report, no marker, no bundle" ok eval '! [ -s "$T/out" ] && ! [ -e "$M" ] && [ -z "$(ls -A "$b")" ]'

	# the good value loads (--list reads the whole policy and runs nothing)
	"$D" --profile host --list -k ns.pid --set "$key=$good" >/dev/null 2>"$T/good.err"
	is "$?" 0 "--set $key=$good loads"
	[ -s "$T/good.err" ] && sed 's/^/# /' "$T/good.err"
done

# doctor(1) says how each of these keys is written
man="$SP_ROOT/docs/man/sandprobe-doctor.1"
missing=""
for c in "${CASES[@]}"; do
	key=${c%%|*}
	case $key in caps.*|priv.no_new_privs|cgroup.pids_max) continue ;; esac
	grep -qF -- "$key" "$man" || missing="$missing $key"
done
is "$missing" "" "doctor(1), POLICY VALUES, names every key with a grammar"

# a continuation line is checked with the value it extends, on its own line
printf '[net]\negress.deny = 10.0.0.1:80,\n  10.0.0.2\n' >"$T/cont.ini"
err=$("$D" --policy "$T/cont.ini" -k ns.pid 2>&1 >/dev/null)
is "$?/$err" "2/sandprobe: $T/cont.ini:3: net.egress.deny: '10.0.0.2': expected host:port with a port between 1 and 65535" \
	"a bad entry on a continuation line names that line"

# a proxy URL's credentials never reach the message
err=$("$D" --set net.proxy=http://agent:hunter2@10.0.0.1:0 -k ns.pid 2>&1 >/dev/null)
is "$?" 2 "a bad proxy URL with credentials: exit 2"
unlike "$err" hunter2 "... and the password is not in the message"
like "$err" "^sandprobe: --set net.proxy=http://<redacted>@10.0.0.1:0: net.proxy: " "... which still names the argument"
done_testing
