/* checks of category tools: SP_X(symbol) lines (X-macro, no guard) */
SP_X(tools_present)
SP_X(tools_probes)
SP_X(tools_shell)
