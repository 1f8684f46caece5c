#!/usr/bin/env bash
# fs.writable_as: a path another user of the sandbox must write (apt's _apt
# in its partial cache), proven by that user's own write. The doctor runs as
# root (it may become the user) over directories of this test: one owned by
# nobody (writable), one only root may write (refused). Ground truth: the
# same create done by setpriv as nobody. A user the doctor cannot become (it
# runs as nobody itself; or only root is mapped in its user namespace) and a
# user with no passwd entry are errors: the write was never tried.
. "$(dirname "$0")/lib.sh"
need id
need touch

WA=$CAT/wa
mkdir -p "$WA/ok" "$WA/rootonly"
chown 65534:65534 "$WA/ok"
chmod 755 "$WA/ok" "$WA/rootonly" "$WA"
nobody=$(id -nu 65534)
asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
DOC=("$CAT/doctor" --profile strict --format json -k fs.writable_as)

TAP_NAME="truth: nobody can create a file in the directory it owns" ok asnobody touch "$WA/ok/t"
rm -f "$WA/ok/t"
if asnobody touch "$WA/rootonly/t" 2>/dev/null; then r=1; else r=0; fi
_tap_result $r "truth: nobody cannot create one in a root-only directory"

run_json ok "${DOC[@]}" --set "fs.writable_as=$nobody:$WA/ok"
is_status ok fs.writable_as pass
like "$(detail ok fs.writable_as)" "uid 65534, gid [0-9]+\) in $WA/ok: create/write/read/delete ok" "the write was made as nobody"
is "$(ls -A "$WA/ok")" "" "no probe file left"

run_json refused "${DOC[@]}" --set "fs.writable_as=$nobody:$WA/ok, $nobody:$WA/rootonly"
is_status refused fs.writable_as fail
like "$(detail refused fs.writable_as)" "$WA/rootonly: create refused \(EACCES\)" "naming the refused path and errno"

# the write is not tried: never a pass
run_json unknown "${DOC[@]}" --set "fs.writable_as=sp-no-such-user:$WA/ok"
is_status unknown fs.writable_as error
like "$(detail unknown fs.writable_as)" "sp-no-such-user: no /etc/passwd entry" "the unknown user named"
run_json cannot asnobody "${DOC[@]}" --set "fs.writable_as=root:$WA/ok"
is_status cannot fs.writable_as error
like "$(detail cannot fs.writable_as)" "root: could not become uid 0 gid 0 \(EPERM\)" "as nobody it cannot become root"
run_json unmapped bwrap --unshare-user --uid 0 --gid 0 --ro-bind / / --proc /proc --dev /dev \
	--ro-bind "$SP_ROOT" "$SP_ROOT" -- "${DOC[@]}" --set "fs.writable_as=$nobody:$WA/ok"
is_status unmapped fs.writable_as error
like "$(detail unmapped fs.writable_as)" "could not become uid 65534" "only root mapped in its user namespace: not tried"

run_json none "${DOC[@]}"
is_status none fs.writable_as skip
done_testing
