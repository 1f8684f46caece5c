/* checks of category mcp: SP_X(symbol, "id") lines (X-macro, no guard) */
SP_X(mcp_handshake, "mcp.handshake")
SP_X(mcp_tools, "mcp.tools")
SP_X(mcp_robust, "mcp.robust")
SP_X(mcp_fs_roots, "mcp.fs_roots")
SP_X(mcp_egress, "mcp.egress")
