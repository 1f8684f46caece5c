#!/usr/bin/env bash
# mcp.fs_roots: the agent's MCP file tool stays inside its declared roots.
# @modelcontextprotocol/server-filesystem from the npm registry, started by
# the doctor inside a sandbox (bwrap: read-only host root, the test's own
# directory writable, a tmpfs /tmp); the doctor places a marker inside the
# root and one outside (in /tmp), and reads both through the tool by '..', an
# absolute path and a symlink. Negative controls: the same server given a
# root too wide (/tmp, and /), which must FAIL. Ground truth: a plain Python
# client (tests/doctor/mcp/truth.py) reading through the same server.
. "$(dirname "$0")/../lib/tap.sh"
. "$SP_ROOT/tests/doctor/mcp_lib.sh"
need_root
need bwrap
need jq
need python3
mcp_npm_install
if [ "${SP_SAN:-0}" = 1 ]; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
T=$(sp_tmpdir)
mkdir -p "$T/root/sub"
FS="node $NM/@modelcontextprotocol/server-filesystem/dist/index.js"

box() { # doctor args
	bwrap --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$SP_ROOT" "$SP_ROOT" --bind "$T" "$T" --unshare-pid --unshare-net \
		--die-with-parent -- "$SP_DOCTOR" --profile container --format json -k mcp.fs_roots \
		--set mcp.fs_tool=read_text_file --set "mcp.fs_roots=$T/root" "$@" 2>"$T/err"
}
st() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | .status'; }
ev() { printf '%s' "$2" | jq -r --arg id "$1" '.results[] | select(.id == $id) | "\(.detail) | \(.observed)"'; }
is_st() { # OUT ID WANT NAME
	local got
	got=$(st "$2" "$1")
	if [ "$got" = "$3" ]; then _tap_result 0 "$4"; else _tap_result 1 "$4" "got '$got': $(ev "$2" "$1" | head -c 900) $(head -c 300 "$T/err")"; fi
}
left() { find "$T" -name '.sandprobe-mcp-*' | wc -l; }

# ground truth: the server confines a read to its root, unless the root is wider
echo outside >"$T/outside"
echo inside >"$T/root/inside"
ln -s "$T/outside" "$T/root/link"
is "$(truth read read_text_file "$T/root/inside" $FS "$T/root")" inside "ground truth: a read inside the root works"
like "$(truth read read_text_file "$T/root/../outside" $FS "$T/root")" "^refused: .*outside allowed" "ground truth: '..' is refused"
like "$(truth read read_text_file "$T/root/link" $FS "$T/root")" "^refused: .*symlink" "ground truth: the symlink out is refused"
is "$(truth read read_text_file "$T/outside" $FS "$T")" outside "ground truth: with a root too wide the outside file is read"
rm -f "$T/root/link" "$T/outside" "$T/root/inside"

# nothing declared: skips naming the keys
out=$(bwrap --ro-bind / / --proc /proc --dev /dev --tmpfs /tmp --ro-bind "$SP_ROOT" "$SP_ROOT" --unshare-pid --unshare-net --die-with-parent \
	-- "$SP_DOCTOR" --profile container --format json -k mcp.fs_roots --set "mcp.command=$FS /nonexistent")
is_st "$out" mcp.fs_roots skip "no file tool declared: skip"
like "$(ev mcp.fs_roots "$out")" "mcp.fs_tool, mcp.fs_roots" "naming the keys"

# the server confined to the declared root: passes
out=$(box --set "mcp.command=$FS $T/root")
is_st "$out" mcp.fs_roots pass "server-filesystem with the declared root: passes"
like "$(ev mcp.fs_roots "$out")" "'..': refused.*absolute path: refused.*symlink leading out: refused" "each escape refused"
is "$(left)" 0 "the doctor removed its markers and the symlink"

# negative controls: roots too wide
out=$(box --set "mcp.command=$FS /tmp $T/root")
is_st "$out" mcp.fs_roots fail "roots too wide (/tmp beside the declared root): fails"
like "$(ev mcp.fs_roots "$out")" "reads outside its roots through '..', an absolute path, a symlink leading out" "naming every way out"
out=$(box --set "mcp.command=$FS /")
is_st "$out" mcp.fs_roots fail "root / : fails"
like "$(ev mcp.fs_roots "$out")" "the tool read_text_file reads outside" "naming the tool"
is "$(left)" 0 "the markers are removed after a failure too"

# a tool that cannot read inside its root proves nothing: an error
out=$(box --set "mcp.command=$FS $T/root/sub")
is_st "$out" mcp.fs_roots error "the server's root is elsewhere (cannot read the marker): error, not pass"
# a root the doctor cannot write: skip, saying why
out=$(box --set "mcp.command=$FS $T/root" --set mcp.fs_roots=/usr/share)
is_st "$out" mcp.fs_roots skip "a read-only root: skip"
like "$(ev mcp.fs_roots "$out")" "cannot place a file in the root /usr/share" "saying why"
done_testing
