# Shared by tests/doctor/mcp*.t: real MCP servers from the npm registry,
# installed once with npm into a cache directory (SP_MCP_NPM, default
# build/mcp-npm: repeated runs do not refetch), under a lock (the mcp*.t
# files may run at once). A failed install skips the file (fails it under
# SP_MUST_WORK=1).
#   mcp_npm_install   NM= the node_modules directory; MCPDIR= its parent,
#                     holding tests/doctor/mcp/server.mjs (ESM resolves
#                     packages from the script's directory)
#   truth WHAT CMD... tests/doctor/mcp/truth.py: the answer of a plain client
MCP_PKGS="@modelcontextprotocol/sdk@1.32.2 @modelcontextprotocol/server-everything@2026.8.31 @modelcontextprotocol/server-filesystem@2026.8.31 zod@4.6.7"
mcp_npm_install() {
	need node
	need npm
	MCPDIR=${SP_MCP_NPM:-$SP_ROOT/build/mcp-npm}
	mkdir -p "$MCPDIR" || skip_all "cannot make $MCPDIR"
	local stamp="$MCPDIR/.installed" want
	want=$(printf '%s' "$MCP_PKGS" | sha256sum | cut -c1-16)
	(
		flock -w 600 9 || exit 1
		[ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && exit 0
		cd "$MCPDIR" || exit 1
		[ -f package.json ] || echo '{"private": true}' >package.json
		# shellcheck disable=SC2086
		timeout 600 npm install --no-audit --no-fund --cache "$MCPDIR/.npm-cache" $MCP_PKGS >"$MCPDIR/install.log" 2>&1 || exit 1
		echo "$want" >"$stamp"
	) 9>"$MCPDIR.lock" || skip_all "npm install of the MCP servers failed: $(tail -3 "$MCPDIR/install.log" 2>/dev/null | tr '\n' ' ')"
	NM=$MCPDIR/node_modules
	cp "$SP_ROOT/tests/doctor/mcp/server.mjs" "$MCPDIR/server.mjs"
	EVERYTHING="node $NM/@modelcontextprotocol/server-everything/dist/index.js stdio"
	TESTSERVER="node $MCPDIR/server.mjs"
}
truth() { python3 "$SP_ROOT/tests/doctor/mcp/truth.py" "$@"; }
