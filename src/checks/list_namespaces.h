/* checks of category namespaces: SP_X(symbol) lines (X-macro, no guard) */
SP_X(ns_pid)
SP_X(ns_net)
SP_X(ns_mnt)
SP_X(ns_uts)
SP_X(ns_ipc)
SP_X(ns_user)
SP_X(ns_cgroup)
SP_X(ns_time)
