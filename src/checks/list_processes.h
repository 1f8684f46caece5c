/* checks of category processes: SP_X(symbol) lines (X-macro, no guard) */
SP_X(proc_host_visible)
SP_X(proc_pid1)
SP_X(proc_forbidden)
SP_X(proc_required)
SP_X(proc_signal_foreign)
SP_X(proc_environ_foreign)
