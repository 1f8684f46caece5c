/* checks of category processes: SP_X(symbol, "id") lines (X-macro, no guard) */
SP_X(proc_host_visible, "proc.host_visible")
SP_X(proc_pid1, "proc.pid1")
SP_X(proc_forbidden, "proc.forbidden")
SP_X(proc_required, "proc.required")
SP_X(proc_signal_foreign, "proc.signal_foreign")
SP_X(proc_environ_foreign, "proc.environ_foreign")
