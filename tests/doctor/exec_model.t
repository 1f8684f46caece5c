#!/usr/bin/env bash
# The execution model: every check runs in a forked child (or with its
# declared batch in one), bounded by its timeout; only pure procfs/sysfs
# reads run in the doctor itself. A probe that hangs (a FUSE mount whose
# daemon never answers) costs its timeout and nothing more: the checks that
# do not touch it keep their verdicts, a batch costs one timeout for all its
# members, and nothing the probes started outlives the run. A batch child
# killed in one member costs that member only.
. "$(dirname "$0")/../lib/tap.sh"
need_root
need jq
need bwrap
[ -c /dev/fuse ] || skip_all "no /dev/fuse"
T=$(sp_tmpdir)
# a copy of our own, so leftovers can be found by their executable
cp "$SP_DOCTOR" "$T/doctor-$$"
D=$T/doctor-$$
mkdir -p "$T/stall"

# --list says which checks run isolated and which batch they belong to
"$D" --list --format json >"$T/list.json"
is "$(jq '[.checks[] | select(.isolated == false) | .id | select(test("^(caps|seccomp|kernel\\.(modules|dmesg|userns|devmem|debugfs)$|dev\\.|fs\\.(writable|tmpfs|host|propagation)|proc\\.(signal|environ)_foreign|net\\.egress)"))] | length' "$T/list.json")" 0 \
	"no check that acts or touches a policy-named path runs in the doctor process"
is "$(jq -r '[.checks[] | select(.id | startswith("caps.")) | .batch] | unique | join(",")' "$T/list.json")" "caps.probes,caps.sets" \
	"capability checks belong to the declared batches caps.sets and caps.probes"
is "$(jq -r '.checks[] | select(.id == "net.egress") | .batch' "$T/list.json")" net.probes "network probes are the batch net.probes"

# a FUSE mount nobody serves: the first access to it blocks until killed
exec 7<>/dev/fuse
mount -i -t fuse -o fd=7,rootmode=40000,user_id=0,group_id=0 "sp-stall-$$" "$T/stall" || skip_all "cannot mount fuse"
at_exit "umount -l '$T/stall'"
TMO=1500
start=$(date +%s%N)
timeout 60 "$D" -j 1 --profile strict --format json --set fs.writable="$T/stall" --timeout-ms $TMO \
	-k 'fs.writable_paths or privileges or namespaces' >"$T/hang.json"
rc=$?
end=$(date +%s%N)
start2=$(date +%s%N)
timeout 60 "$D" -j 2 --profile strict --format json --set fs.writable="$T/stall" --timeout-ms $TMO \
	-k 'fs.writable_paths or privileges or namespaces' >"$T/hang2.json"
end2=$(date +%s%N)
wall2=$(((end2 - start2) / 1000000))
exec 7>&-
wall=$(((end - start) / 1000000))
ok test "$rc" -ne 124
is "$(jq -r "has(\"results\")" "$T/hang.json")" true "the stalled run still reports"
st() { jq -r --arg id "$1" '.results[] | select(.id == $id) | .status' "$T/hang.json"; }
dt() { jq -r --arg id "$1" '.results[] | select(.id == $id) | .detail' "$T/hang.json"; }
is "$(st fs.writable_paths)" error "the check that writes into the stalled mount is an error"
like "$(dt fs.writable_paths)" "timed out after $TMO ms" "... after its timeout"
like "$(jq -r '.results[] | select(.id == "fs.writable_paths") | .observed' "$T/hang.json")" 'waiting in' \
	"... with where it waited as evidence"
# the capability batch makes its private dir in the first fs.writable entry
n=$(jq '[.results[] | select(.detail | test("^probe batch caps.probes timed out after '$TMO' ms"))] | length' "$T/hang.json")
is "$n" 18 "every member of the stalled batch reports the batch's one timeout"
for id in ns.pid ns.user caps.effective caps.bounding priv.no_new_privs priv.root_mapped priv.abstract_sockets; do
	isnt "$(st $id)" error "$id keeps its own verdict"
done
# each hung unit cost one timeout, no more: count them (a batch once)
units=$(jq '([.results[] | select(.detail | test("^probe timed out"))] | length) +
	([.results[] | select(.detail | test("^probe batch .* timed out"))] | map(.detail | capture("batch (?<b>[^ ]+)").b) | unique | length)' "$T/hang.json")
ok test "$units" -ge 2
dur=$(jq '.duration_ms | floor' "$T/hang.json")
TAP_NAME="-j 1: the run took about $units timeouts of $TMO ms ($dur ms in the report, $wall ms wall)" \
	ok test "$dur" -ge $((units * TMO)) -a "$dur" -lt $((units * TMO + 4000)) -a "$wall" -lt $((units * TMO + 6000))
# -j 2: the same verdicts in the same order, each hung unit still its own
# timeout, but two at once: less wall time than the units one after another
ids() { jq -r '.results[] | "\(.id) \(.status)"' "$1"; }
is "$(ids "$T/hang2.json")" "$(ids "$T/hang.json")" "-j 2: the same checks, statuses and order as -j 1"
is "$(jq -r '.results[] | select(.id == "fs.writable_paths") | .detail' "$T/hang2.json" | grep -c "timed out after $TMO ms")" 1 \
	"-j 2: the stalled check still errors after its own timeout"
TAP_NAME="-j 2: $units hung units overlap ($wall2 ms wall, $wall ms one at a time; at least one timeout)" \
	ok test "$wall2" -ge "$TMO" -a "$wall2" -lt $((units * TMO))
# nothing the probes started is left (their process groups were killed)
sleep 0.2
left=$(for p in /proc/[0-9]*; do [ "$(readlink "$p/exe" 2>/dev/null)" = "$D" ] && echo "${p#/proc/}"; done | wc -l)
is "$left" 0 "no probe process outlives the run"

# a batch child killed in one member: that member errors, the others keep their verdicts
"$SP_HELPERS/mkseccomp" --kill-only capget >"$T/kill-capget"
bwrap --dev-bind / / --seccomp 9 "$D" --profile strict --format json \
	-k 'caps.effective or caps.bounding or caps.ambient or priv.no_new_privs' 9<"$T/kill-capget" >"$T/die.json"
sd() { jq -r --arg id "$1" '.results[] | select(.id == $id) | "\(.status) \(.detail)"' "$T/die.json"; }
like "$(sd caps.effective)" '^error probe crashed in batch caps.sets: signal 31' "the member whose capget the filter kills is an error naming SIGSYS"
unlike "$(sd caps.bounding)" '^error' "the next member (PR_CAPBSET_READ) is judged in a new child"
unlike "$(sd caps.ambient)" '^error' "and the one after"
unlike "$(sd priv.no_new_privs)" '^error' "and NoNewPrivs"

# -j 2: an in-process check that crashes its worker (the filter kills the
# getdents64 of proc.host_visible's /proc listing) costs that check only: a
# new worker takes the rest of the queue, whose verdicts are those of the
# same sandbox without the filter
"$SP_HELPERS/mkseccomp" --kill-only getdents64 >"$T/kill-getdents"
SEL='proc.host_visible or ns.pid or ns.net or caps.effective or caps.bounding or priv.no_new_privs or fs.tmpfs'
bwrap --dev-bind / / --seccomp 9 "$D" -j 2 --profile strict --format json -k "$SEL" 9<"$T/kill-getdents" >"$T/wdie.json"
bwrap --dev-bind / / "$D" -j 2 --profile strict --format json -k "$SEL" >"$T/wlive.json"
like "$(jq -r '.results[] | select(.id == "proc.host_visible") | "\(.status) \(.detail)"' "$T/wdie.json")" \
	"^error probe crashed \\(the runner's worker\\): signal 31" "-j 2: the in-process check that crashed its worker is an error naming SIGSYS"
others() { jq -r '.results[] | select(.id != "proc.host_visible") | "\(.id) \(.status)"' "$1"; }
is "$(others "$T/wdie.json")" "$(others "$T/wlive.json")" "-j 2: every other check keeps its verdict and place"
is "$(jq '.results | length' "$T/wdie.json")" 7 "-j 2: every check reports"
# a filter that kills sched_setaffinity (each worker pins itself to one
# processor): the workers die before taking a unit, their successors run
# unpinned, and every verdict is that of the same sandbox without the filter
"$SP_HELPERS/mkseccomp" --kill-only sched_setaffinity >"$T/kill-affinity"
bwrap --dev-bind / / --seccomp 9 "$D" -j 2 --profile strict --format json -k "$SEL" 9<"$T/kill-affinity" >"$T/wpin.json"
all() { jq -r '.results[] | "\(.id) \(.status)"' "$1"; }
is "$(all "$T/wpin.json")" "$(all "$T/wlive.json")" "-j 2: workers a filter kills before their first unit cost no verdict"

# the whole catalogue (but net.egress) in a tiny rootfs, unprivileged: the
# same checks, statuses and details in the same order at -j 1 and -j 2 (the
# pool starts the long-running round trip first)
R=$(mktemp -d /tmp/sp-tiny.XXXXXX) # nobody must reach it: not under $T
at_exit "rm -rf '$R'"
mkdir -p "$R/bin" "$R/proc" "$R/dev" "$R/tmp" "$R/etc" "$R/usr"
cp "$D" "$R/bin/doctor"
ln -s usr/lib "$R/lib" && ln -s usr/lib64 "$R/lib64" # the sanitizer build's libraries, from /usr
chmod -R a+rX "$R"
tiny() { setpriv --reuid=65534 --regid=65534 --clear-groups -- bwrap --unshare-all --unshare-user --die-with-parent \
	--new-session --cap-drop ALL --ro-bind "$R" / --ro-bind /usr /usr --proc /proc --dev /dev --tmpfs /tmp "$@"; }
tiny /bin/doctor -j 1 --profile strict --format json -k 'not net.egress' >"$T/cat1.json"
tiny /bin/doctor -j 2 --profile strict --format json -k 'not net.egress' >"$T/cat2.json"
verd() { jq -r '.results[] | "\(.id) \(.status) \(.detail | gsub("[0-9]+"; "N"))"' "$1"; }
ok test "$(jq '.results | length' "$T/cat1.json")" -gt 150
is "$(verd "$T/cat2.json")" "$(verd "$T/cat1.json")" "the whole catalogue: the same checks, verdicts and order at -j 1 and -j 2"

# -j takes 1 to 64
for bad in 0 65 x 2x; do
	"$D" -j "$bad" --format json -k ns.pid >"$T/bad.out" 2>"$T/bad.err"
	like "$? $(wc -l <"$T/bad.out") $(head -1 "$T/bad.err")" "^2 0 sandprobe: doctor: -j '$bad': expected a number" "-j $bad is a usage error, nothing run"
done
done_testing
