/* checks of category processes: SP_X(symbol) lines (X-macro, no guard) */
SP_X(proc_host_visible)
