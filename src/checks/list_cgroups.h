/* checks of category cgroups: SP_X(symbol) lines (X-macro, no guard) */
SP_X(cgroup_version)
SP_X(cgroup_memory)
SP_X(cgroup_pids)
SP_X(cgroup_cpu)
SP_X(cgroup_readonly)
SP_X(cgroup_devices)
SP_X(res_nofile)
SP_X(res_nproc)
