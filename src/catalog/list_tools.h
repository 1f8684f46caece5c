/* checks of category tools: SP_X(symbol, "id") lines (X-macro, no guard) */
SP_X(tools_present, "tools.present")
SP_X(tools_probes, "tools.probes")
SP_X(tools_shell, "tools.shell")
