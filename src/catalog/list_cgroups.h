/* checks of category cgroups: SP_X(symbol, "id") lines (X-macro, no guard) */
SP_X(cgroup_version, "cgroup.version")
SP_X(cgroup_memory, "cgroup.memory")
SP_X(cgroup_pids, "cgroup.pids")
SP_X(cgroup_cpu, "cgroup.cpu")
SP_X(cgroup_readonly, "cgroup.readonly")
SP_X(cgroup_devices, "cgroup.devices")
SP_X(res_nofile, "res.nofile")
SP_X(res_nproc, "res.nproc")
