# The ground-truth matrix (source after tests/lib/tap.sh). Each cell is one
# runtime and variant. In the sandbox, one script runs the truth helper
# (tests/helpers/truth: the operation itself, not doctor code), the doctor
# under the strict and the container profile, then holds the sandbox open
# (`truth hold NONCE`) so the host can read the very process: its namespaces,
# status, uid map, mount propagation and seccomp filters (fetched with ptrace
# and evaluated by the helper's own BPF interpreter). From those facts the
# expected verdict of each property is derived here, without the doctor, and
# compared with the doctor's, profile by profile.
#
#   truth_rootfs DIR              busybox rootfs with /doctor and /truth
#   cell NAME BOUNDARY LAUNCHER   run LAUNCHER SCRIPT (it starts the sandbox
#                                 with SCRIPT as its shell command), collect,
#                                 judge; BOUNDARY is the launch's kernel:
#                                 host, user-space (gVisor) or guest (a VM)
#   cell_inside NAME BOUNDARY LAUNCHER  the same without a host process to
#                                 read (gVisor, VMs: the host sees none)
#   expect_engine NAME ENGINE RUNTIME   the runtime guess of the cell
#   assert_cell NAME [PROP...]    every property (default: all of $PROPS)
. "$SP_ROOT/tests/lib/engines.sh"
need_root
need jq

TDOCTOR=$SP_DOCTOR
if [ "${SP_SAN:-0}" = 1 ]; then
	# sandboxes have no libc: the cells need the static doctor
	TDOCTOR=$SP_ROOT/build/sandprobe-doctor
	[ -x "$TDOCTOR" ] || skip_all "static build/sandprobe-doctor missing (run make)"
fi
TRUTH=$SP_HELPERS/truth
[ -x "$TRUTH" ] || skip_all "truth helper missing (make tests)"
TR=$(sp_tmpdir)
# TRUTH_KEEP=DIR keeps every cell's facts and reports there (debugging)
[ -n "${TRUTH_KEEP:-}" ] && at_exit "mkdir -p '$TRUTH_KEEP' && cp -r '$TR'/. '$TRUTH_KEEP'/"
[ -n "${TAP_TMPBASE:-}" ] && chmod 755 "$TAP_TMPBASE"
chmod 755 "$TR"

# the properties every cell asserts (check ids of the doctor)
PROPS="ns.pid ns.net ns.mnt ns.uts ns.ipc ns.user ns.cgroup caps.effective priv.no_new_privs seccomp.mode
seccomp.mount seccomp.unshare seccomp.clone seccomp.clone3 seccomp.setns seccomp.keyctl seccomp.bpf
seccomp.io_uring_setup seccomp.ptrace seccomp.kexec_load seccomp.open_by_handle_at seccomp.personality
seccomp.abi32 kernel.userns caps.kill caps.sys_rawio caps.mknod kernel.dmesg dev.mknod fs.rootfs_readonly
fs.propagation priv.root_mapped"
SECCOMP_NAMES="mount umount2 unshare clone clone3 setns keyctl add_key request_key bpf perf_event_open userfaultfd
io_uring_setup ptrace kexec_load init_module finit_module open_by_handle_at personality"
DENY_STRICT=" $(echo $SECCOMP_NAMES) "
DENY_CONTAINER=" mount umount2 unshare clone setns keyctl add_key request_key bpf perf_event_open userfaultfd kexec_load init_module finit_module open_by_handle_at personality "
NS_STRICT=" pid net mnt uts ipc user cgroup "
NS_CONTAINER=" pid net mnt uts ipc "
# capabilities that act on files and ids: no separate kernel excuses them
FILE_CAPS=$((0x900002DF))

truth_rootfs() {
	sp_busybox_rootfs "$1" || return 1
	cp "$TDOCTOR" "$1/doctor" && cp "$TRUTH" "$1/truth" && chmod 755 "$1/doctor" "$1/truth"
}

# the script a sandbox runs; $1 = where the binaries are inside, $2 = nonce,
# $3 = yes to hold the sandbox open for the host, else end it
cell_script() {
	local b=$1 end="exec $1/truth hold $2"
	[ "$3" = yes ] || end="echo hold $2"
	echo "$b/truth all /tmp; echo @@strict@@; $b/doctor --profile strict --format json; echo @@container@@;" \
		"$b/doctor --profile container --format json; echo @@held@@; $end"
}

# the pid of the hold process itself: argv exactly TRUTH hold NONCE
_hold_pid() {
	local f a
	for f in /proc/[0-9]*/cmdline; do
		{ mapfile -d '' a <"$f"; } 2>/dev/null || continue
		[ "${#a[@]}" = 3 ] && [ "${a[1]}" = hold ] && [ "${a[2]}" = "$1" ] &&
			case ${a[0]} in */truth) f=${f#/proc/}; echo "${f%/cmdline}"; return ;; esac
	done
}

_section() { # FILE FROM TO (a serial console ends lines with CR)
	tr -d '\r' <"$1" | awk -v a="$2" -v b="$3" '$0 == a { on = 1; next } $0 == b { on = 0 } on'
}

# facts of the cell loaded by _load (FACT_OF names it), else read from its file
declare -A F
FACT_OF=""
_load() {
	F=()
	local k v
	while read -r k v; do
		[ -n "$k" ] && [ -z "${F[$k]+x}" ] && F[$k]=$v
	done <"$TR/$1.facts"
	FACT_OF=$1
}
fact() {
	[ "$FACT_OF" = "$1" ] || _load "$1"
	printf '%s\n' "${F[$2]:-}"
}

# host facts about the live process PID
_host_facts() { # NAME PID
	local n=$1 pid=$2 t a b
	{
		for t in pid net mnt uts ipc user cgroup; do
			a=$(readlink "/proc/$pid/ns/$t") b=$(readlink "/proc/self/ns/$t")
			[ -n "$a" ] && [ "$a" != "$b" ] && echo "ns.$t own" || echo "ns.$t shared"
		done
		echo "capeff $(awk '$1 == "CapEff:" { print $2 }' "/proc/$pid/status")"
		echo "capbnd $(awk '$1 == "CapBnd:" { print $2 }' "/proc/$pid/status")"
		echo "nnp $(awk '$1 == "NoNewPrivs:" { print $2 }' "/proc/$pid/status")"
		echo "seccomp $(awk '$1 == "Seccomp:" { print $2 }' "/proc/$pid/status")"
		echo "uidmap0 $(awk '$1 == 0 { print $2 }' "/proc/$pid/uid_map")"
		"$TRUTH" filter "$pid" $SECCOMP_NAMES | sed 's/^/sc./'
		# propagation of /: its peer group, and whether a mount namespace
		# other than the sandbox's holds a member of it
		local opt grp ns peer=none p
		opt=$(awk '$5 == "/" { o = ""; for (i = 7; $i != "-"; i++) o = o " " $i; r = o } END { print r }' "/proc/$pid/mountinfo")
		grp=$(echo "$opt" | grep -oE 'shared:[0-9]+' | head -1)
		ns=$(readlink "/proc/$pid/ns/mnt")
		if [ -n "$grp" ]; then
			for p in /proc/[0-9]*; do
				[ "$(readlink "$p/ns/mnt" 2>/dev/null)" = "$ns" ] && continue
				grep -qE " $grp( |$)" "$p/mountinfo" 2>/dev/null && { peer=${p#/proc/}; break; }
			done
		fi
		if [ -z "$grp" ]; then
			echo "$opt" | grep -q master: && echo "prop slave" || echo "prop private"
		elif [ "$peer" != none ]; then
			echo "prop shared-out $grp pid $peer"
		else
			echo "prop shared-own $grp"
		fi
	} >>"$TR/$n.facts"
}

# run a cell; LAUNCHER SCRIPT starts the sandbox in the foreground
_run_cell() { # NAME BOUNDARY WITH_HOST BIN LAUNCHER...
	local n=$1 bnd=$2 host=$3 bin=$4
	shift 4
	local nonce=sptruth$$x$RANDOM$RANDOM i pid=""
	echo "boundary $bnd" >"$TR/$n.facts"
	"$@" "$(cell_script "$bin" "$nonce" "$host")" >"$TR/$n.out" 2>"$TR/$n.err" </dev/null &
	local lp=$!
	# the hold prints its line once it runs (the exec is done)
	for i in $(seq 1 "${TRUTH_WAIT:-1200}"); do
		grep -q "^hold $nonce" "$TR/$n.out" 2>/dev/null && break
		kill -0 $lp 2>/dev/null || break
		sleep 0.1
	done
	[ "$host" = yes ] && pid=$(_hold_pid "$nonce")
	if [ "$host" = yes ]; then
		if [ -n "$pid" ]; then _host_facts "$n" "$pid"; else echo "nohost 1" >>"$TR/$n.facts"; fi
	fi
	tr -d '\r' <"$TR/$n.out" | awk '/^@@strict@@/ { exit } { print }' >>"$TR/$n.facts"
	_section "$TR/$n.out" @@strict@@ @@container@@ >"$TR/$n.strict.json"
	_section "$TR/$n.out" @@container@@ @@held@@ >"$TR/$n.container.json"
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	# the launcher ends with its sandbox (bounded: a stuck one is killed)
	for i in $(seq 1 300); do kill -0 $lp 2>/dev/null || break; sleep 0.1; done
	kill -KILL $lp 2>/dev/null
	wait $lp 2>/dev/null
	local ok=1
	for pr in strict container; do
		[ "$(jq -r 'has("results")' "$TR/$n.$pr.json" 2>/dev/null)" = true ] || ok=0
	done
	if [ $ok = 1 ]; then
		_tap_result 0 "$n: the doctor ran under both profiles"
	else
		_tap_result 1 "$n: the doctor ran under both profiles" "$(head -c 1500 "$TR/$n.err"; tail -c 1500 "$TR/$n.out")"
	fi
	return $((1 - ok))
}
cell() { local n=$1 b=$2; shift 2; _run_cell "$n" "$b" yes "${CELL_BIN:-}" "$@"; }
cell_inside() { local n=$1 b=$2; shift 2; _run_cell "$n" "$b" no "${CELL_BIN:-}" "$@"; }

dstatus() { jq -r --arg id "$3" '.results[] | select(.id == $id) | .status' "$TR/$1.$2.json"; }
devidence() { jq -r --arg id "$3" '.results[] | select(.id == $id) | "\(.detail) | \(.observed)"' "$TR/$1.$2.json"; }

# ---- the expected verdict of a property, from the facts only ----
# prints pass, fail or warn; the reason in $WHY
_capeff() { # from the host's view where there is one, else the helper's capget
	local c
	c=$(fact "$1" capeff)
	[ -z "$c" ] && c=$(fact "$1" caps | sed -n 's/.*eff=\([0-9a-f]*\).*/\1/p')
	echo "${c:-0}"
}
_has_cap() { [ $(((0x$(_capeff "$1") >> $2) & 1)) = 1 ]; }
# a syscall's verdict from the filter's action for it (ABI x86_64 or i386):
# pass (blocked), fail (reaches the kernel) or warn (the inside cannot tell:
# EPERM from the filter, or from the kernel for a capability the sandbox
# lacks now but could regain, still being in its bounding set)
# (open_by_handle_at copies the handle before its capability check: EFAULT, not EPERM)
_sc_cap() { case $1 in kexec_load) echo 22 ;; init_module | finit_module) echo 16 ;; *) echo -1 ;; esac; }
_sc_verdict() { # NAME SYSCALL ABI
	local a c bnd
	a=$(fact "$1" "sc.$2" | grep -oE "$3=[A-Z]+(\([A-Z0-9]+\))?" | cut -d= -f2)
	c=$(_sc_cap "$2")
	if [ "$c" -ge 0 ] && ! _has_cap "$1" "$c"; then
		bnd=$(fact "$1" capbnd)
		local inbnd=$(((0x${bnd:-0} >> c) & 1))
		case $a in
		ALLOW | LOG) [ $inbnd = 0 ] && echo pass || echo warn ;; # the kernel refuses: for good, or not
		"ERRNO(ENOSYS)" | KILL | TRAP) echo pass ;;
		ERRNO*) [ $inbnd = 0 ] && echo pass || echo warn ;;
		*) echo pass ;;
		esac
		return
	fi
	case $a in ALLOW | LOG) echo fail ;; *) echo pass ;; esac
}
_separate() { [ "$(fact "$1" boundary)" != host ]; }

expected() { # NAME PROFILE PROP: sets WANT and WHY
	_load "$1"
	_expected "$@" >"$TR/.want"
	read -r WANT <"$TR/.want"
}
_expected() {
	local n=$1 pr=$2 p=$3 b v
	b=$(fact "$n" boundary)
	WHY=""
	local deny=$DENY_STRICT nsreq=$NS_STRICT
	[ "$pr" = container ] && deny=$DENY_CONTAINER nsreq=$NS_CONTAINER
	case $p in
	ns.*)
		local t=${p#ns.}
		case "$nsreq" in *" $t "*) ;; *) WHY="not required"; echo pass; return ;; esac
		if [ "$b" = user-space ] && [ "$t" = net ]; then
			# gVisor's stack is what runsc was started with (the cell records it: gvisor.network);
			# tests/live/matrix.t proves the stacks apart (a host loopback listener answers under host only)
			v=$(fact "$n" gvisor.network)
			case $v in
			none | sandbox) WHY="gVisor's own netstack (runsc --network=$v)"; echo pass ;;
			host) WHY="the host kernel's stack (runsc --network=host)"; echo fail ;;
			*) WHY="gVisor's network mode not recorded"; echo warn ;;
			esac
			return
		fi
		_separate "$n" && { WHY="separate kernel"; echo pass; return; }
		v=$(fact "$n" "ns.$t")
		WHY="host view: $v"
		[ "$v" = own ] && echo pass || echo fail ;;
	caps.effective)
		local c=$((0x$(_capeff "$n")))
		WHY="CapEff $(_capeff "$n")"
		if [ $c = 0 ]; then echo pass
		elif [ "$b" = guest ]; then echo pass
		elif [ "$b" = user-space ] && [ $((c & FILE_CAPS)) = 0 ]; then echo pass
		else echo fail; fi ;;
	priv.no_new_privs)
		v=$(fact "$n" nnp)
		WHY="NoNewPrivs $v"
		[ "$v" = 1 ] && echo pass || echo fail ;;
	seccomp.mode)
		_separate "$n" && { echo pass; return; }
		v=$(fact "$n" seccomp)
		WHY="Seccomp $v"
		[ "$v" = 2 ] && echo pass || echo fail ;;
	seccomp.abi32)
		_separate "$n" && { echo pass; return; }
		v=$(fact "$n" int80.getpid)
		# the i386 table is there when getpid answers the pid, or a filter kills it
		if [ "$v" != "signal 31" ] && ! echo "$v" | awk '{ split($1, a, "="); split($2, b, "="); exit !(a[2] == b[2]) }'; then
			WHY="int 0x80 getpid: $v"; echo pass; return
		fi
		local s reached="" unsure=""
		for s in $deny; do
			[ "$s" = umount2 ] || [ "$s" = finit_module ] && continue
			case $(_sc_verdict "$n" "$s" i386) in fail) reached="$reached $s" ;; warn) unsure="$unsure $s" ;; esac
		done
		WHY="i386 reaching:${reached:- none}; not provable:${unsure:- none}"
		if [ -n "$reached" ]; then echo fail; elif [ -n "$unsure" ]; then echo warn; else echo pass; fi ;;
	seccomp.*)
		local s=${p#seccomp.}
		case "$deny" in *" $s "*) ;; *) WHY="not in seccomp.deny"; echo pass; return ;; esac
		_separate "$n" && { echo pass; return; }
		v=$(fact "$n" "sc.$s")
		WHY="filter: $v; CapBnd $(fact "$n" capbnd)"
		# a syscall this kernel does not have cannot reach it either
		if [ "$s" = kexec_load ] && [ ! -e /proc/sys/kernel/kexec_load_disabled ]; then
			WHY="$WHY; the kernel has no kexec"; echo pass; return
		fi
		if [ "$(fact "$n" seccomp)" != 2 ]; then echo fail; return; fi
		_sc_verdict "$n" "$s" x86_64 ;;
	kernel.userns)
		_separate "$n" && { echo pass; return; }
		v="$(fact "$n" userns.unshare) $(fact "$n" userns.clone) $(fact "$n" userns.clone3)"
		WHY="unshare/clone/clone3: $v"
		echo "$v" | grep -q created && echo fail || echo pass ;;
	caps.kill)
		_separate "$n" && { echo pass; return; }
		v=$(fact "$n" kill-other)
		WHY="kill of another uid: $v; of a visible one: $(fact "$n" kill-visible)"
		if [ "$v" = signalled ]; then echo fail
		elif fact "$n" kill-visible | grep -q '^signalled'; then echo fail # e.g. in a user namespace we own
		elif _has_cap "$n" 5; then echo fail
		elif [ "$v" = no-target ] && [ "$(fact "$n" kill-visible)" = none ] && ! _has_cap "$n" 7; then
			# no process of another uid, and none can be made (no CAP_SETUID):
			# kill was never tried, CapEff alone is no pass
			WHY="$WHY; no target and none can be made"; echo skip
		else echo pass; fi ;;
	caps.sys_rawio)
		_separate "$n" && { echo pass; return; }
		v=$(fact "$n" fibmap)
		WHY="FIBMAP: $v"
		case $v in
		0 | EINVAL) echo fail ;;
		create*) _has_cap "$n" 17 && echo error || echo skip ;; # no writable place to try: not tried
		*) echo pass ;;
		esac ;;
	caps.mknod)
		_separate "$n" && { echo pass; return; }
		v=$(fact "$n" mknod)
		WHY="mknod: $v (writable: $(fact "$n" writable))"
		if [ "$(fact "$n" writable)" = none ]; then
			_has_cap "$n" 27 && echo error || echo skip # not tried: CapEff alone is no pass
			return
		fi
		case $v in EPERM | EACCES) echo pass ;; *) echo fail ;; esac ;;
	kernel.dmesg)
		_separate "$n" && { echo pass; return; }
		v=$(fact "$n" syslog)
		WHY="syslog: $v"
		case $v in read*) echo fail ;; *) echo pass ;; esac ;;
	dev.mknod)
		_separate "$n" && { echo pass; return; }
		v=$(fact "$n" mknod)
		WHY="mknod: $v; on a mount of its own: $(fact "$n" mknod-own-mount)"
		# no writable place: mknod was not tried
		[ "$(fact "$n" writable)" = none ] && { echo skip; return; }
		case $v in
		opened) echo fail ;;
		created*) [ "$(fact "$n" mknod-own-mount)" = opened ] && echo fail || echo pass ;;
		*) echo pass ;;
		esac ;;
	fs.rootfs_readonly)
		v=$(fact "$n" write); v=${v#/ }
		WHY="write to /: $v; / mounted $(fact "$n" rootmount)"
		# EROFS is the read-only mount itself (gVisor's statfs does not flag it)
		if [ "$v" = written ]; then echo fail
		elif [ "$v" != EROFS ] && [ "$(fact "$n" rootmount)" = rw ]; then echo warn # refused by permissions only
		else echo pass; fi ;;
	fs.propagation)
		_separate "$n" && { echo pass; return; }
		v=$(fact "$n" prop)
		WHY="host view: $v"
		case $v in
		private* | slave*) echo pass ;;
		shared-out*) echo fail ;;
		shared-own*) [ "$(fact "$n" ns.pid)" = own ] && echo warn || echo pass ;;
		*) echo fail ;;
		esac ;;
	priv.root_mapped)
		[ "$pr" = container ] && { WHY="root_is_host_root = true"; echo pass; return; }
		_separate "$n" && { echo pass; return; }
		v=$(fact "$n" uidmap0)
		WHY="user ns $(fact "$n" ns.user), uid 0 -> $v"
		[ "$(fact "$n" ns.user)" = own ] && [ "$v" != 0 ] && echo pass || echo fail ;;
	*) echo "?" ;;
	esac
}

assert_cell() { # NAME [PROP...]
	local n=$1 p pr want got
	shift
	local props=${*:-$PROPS}
	[ -s "$TR/$n.strict.json" ] || { skip "$n: no report"; return; }
	local -A S
	for pr in strict container; do
		while read -r p got; do S[$pr.$p]=$got; done < <(jq -r '.results[] | "\(.id) \(.status)"' "$TR/$n.$pr.json")
	done
	is "$(jq -r .environment.kernel_boundary.kind "$TR/$n.strict.json")" "$(fact "$n" boundary)" \
		"$n: kernel boundary is $(fact "$n" boundary)"
	for pr in strict container; do
		for p in $props; do
			expected "$n" "$pr" "$p"
			want=$WANT
			got=${S[$pr.$p]:-}
			if [ "$got" = "$want" ]; then
				_tap_result 0 "$n/$pr: $p $want"
			else
				_tap_result 1 "$n/$pr: $p $want" "truth: $WHY
doctor: $got: $(devidence "$n" "$pr" "$p" | head -c 700)"
			fi
		done
	done
}

expect_engine() { # NAME ENGINE RUNTIME
	is "$(jq -r '"\(.environment.engine)/\(.environment.runtime)"' "$TR/$1.strict.json")" "$2/$3" "$1: runtime guess $2/$3"
}

# a separate kernel the policy accepts: no check it satisfies may fail, and
# what fails is only what it does not provide (listed, for the record)
assert_boundary_verdicts() { # NAME KIND
	local n=$1 k=$2 pr sat bad
	"$TDOCTOR" --list --format json >"$TR/.list.json"
	sat=$(jq -r --arg k "$k" '[.checks[] | select(.separate_kernel_satisfies | index($k)) | .id] | join(" ")' "$TR/.list.json")
	for pr in strict container; do
		bad=$(jq -r --arg s " $sat " '[.results[] | select((.status == "fail" or .status == "error") and
			($s | contains(" " + .id + " ")))] | map(.id) | join(" ")' "$TR/$n.$pr.json")
		is "$bad" "" "$n/$pr: nothing the $k kernel provides fails ($(jq -r '[.results[] | select(.status == "fail") | .id] | join(" ")' "$TR/$n.$pr.json" | sed 's/^$/no failure/;s/^/what fails: /'))"
	done
}
