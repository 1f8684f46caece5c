/* checks of the shared workspace (workspace.c): SP_X(symbol, "id") lines (X-macro, no guard) */
SP_X(ws_mount, "ws.mount")
SP_X(ws_io, "ws.io")
SP_X(ws_confined, "ws.confined")
