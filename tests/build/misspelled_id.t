#!/usr/bin/env bash
# live names the doctor's checks, its own host checks, the id prefixes and the
# protections through X-macro lists (src/catalog/list*.h, src/live/list_*.h),
# so a misspelled or removed id in a negative-control table is a build
# failure, not a silently dropped cover. Ground truth is the compiler: a copy
# of src/live/lane.c (the negative-control tables), compiled with the exact
# command the Makefile uses for it (make -n), must compile as it is (the
# control) and must fail with each deliberate misspelling.
. "$SP_ROOT/tests/lib/tap.sh"
[ "${SP_SAN:-0}" = 1 ] && skip_na "a build test: the normal run covers it"
need make
cd "$SP_ROOT" || exit 1
T=$(sp_tmpdir)
src=src/live/lane.c
# the Makefile's own command for lane.o (every warning as an error, the project's defines and include path)
cmd=$(make -s -n -W "$src" "build/obj/${src%.c}.o" 2>/dev/null | grep -F -- " -c $src -o build/obj/${src%.c}.o" | tail -1)
[ -n "$cmd" ] || skip_all "make -n gives no compile command for $src"
TAP_NAME="the Makefile's command for $src treats warnings as errors" ok grep -q -- '-Werror' <<<"$cmd"

# compile FILE [EXTRA-CPPFLAGS]: the Makefile's command on a copy; its output in $T/log
compile() {
	local c=${cmd/" -c $src -o build/obj/${src%.c}.o"/" -c $1 -o $T/out.o"}
	c=${c/" -MMD -MP"/}
	[ -n "${2:-}" ] && c=${c/" -Isrc "/" $2 -Isrc "}
	rm -f "$T/out.o"
	eval "$c" >"$T/log" 2>&1
}

# the control: the copy as it is compiles
cp "$src" "$T/lane_ok.c"
TAP_NAME="the unchanged negative-control tables compile" ok compile "$T/lane_ok.c"
[ -s "$T/out.o" ] || sed 's/^/# /' "$T/log"
ok test -s "$T/out.o"

# mutate NAME FROM TO: the copy with FROM (which must occur in the tables) replaced by TO must not compile
mutate() {
	local name=$1 from=$2 to=$3 f=$T/lane_$1.c
	TAP_NAME="$src has $from (the mutation applies)" ok grep -qF -- "$from" "$src"
	FROM=$from TO=$to perl -pe 's/\Q$ENV{FROM}\E/$ENV{TO}/' "$src" >"$f"
	TAP_NAME="$name: the copy differs" ok bash -c "! cmp -s '$src' '$f'"
	TAP_NAME="$name: a table naming $to does not compile" ok test "$(compile "$f"; echo $?)" -ne 0
	like "$(cat "$T/log")" "${4:-${to//[()]/_}}" "$name: the compiler names the unknown id"
}
mutate doctor-id 'checks_pidns[] = {SP_CKID(ns_pid)' 'checks_pidns[] = {SP_CKID(ns_pdi)' 'sp_ckid_ns_pdi'
mutate may-id 'SP_CKID(caps_kill)' 'SP_CKID(caps_kil)' 'sp_ckid_caps_kil'
mutate glob 'may_netns[] = {SP_CKGLOB(net)' 'may_netns[] = {SP_CKGLOB(nte)' 'sp_ckglob_nte'
mutate host-id 'SP_HOSTID(nnp), NULL}' 'SP_HOSTID(npp), NULL}' 'sp_hostid_npp'

# a check renamed in the list (its old symbol gone) breaks the tables that name it
mkdir -p "$T/inc/catalog"
cp src/catalog/*.h "$T/inc/catalog/"
sed -i 's/^SP_X(proc_host_visible, "proc.host_visible")$/SP_X(proc_host_seen, "proc.host_seen")/' "$T/inc/catalog/list_processes.h"
TAP_NAME="the renamed list differs from the tree's" ok bash -c "! cmp -s src/catalog/list_processes.h '$T/inc/catalog/list_processes.h'"
TAP_NAME="a check renamed in its list: the unchanged tables no longer compile" ok test "$(compile "$T/lane_ok.c" "-I$T/inc"; echo $?)" -ne 0
like "$(cat "$T/log")" 'sp_ckid_proc_host_visible' "the compiler names the renamed check's old symbol"

# a protection added to the list without its tables does not compile
mkdir -p "$T/inc/live"
cp src/live/*.h "$T/inc/live/"
cp src/catalog/*.h "$T/inc/catalog/"
echo 'SP_PR(IPCNS, ipcns, "ipc namespace")' >>"$T/inc/live/list_prots.h"
TAP_NAME="a protection without covering checks does not compile" ok test "$(compile "$T/lane_ok.c" "-I$T/inc"; echo $?)" -ne 0
like "$(cat "$T/log")" 'checks_ipcns' "the compiler names its missing table"
done_testing
