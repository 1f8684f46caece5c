/* checks of category namespaces: SP_X(symbol, "id") lines (X-macro, no guard) */
SP_X(ns_pid, "ns.pid")
SP_X(ns_net, "ns.net")
SP_X(ns_mnt, "ns.mnt")
SP_X(ns_uts, "ns.uts")
SP_X(ns_ipc, "ns.ipc")
SP_X(ns_user, "ns.user")
SP_X(ns_cgroup, "ns.cgroup")
SP_X(ns_time, "ns.time")
