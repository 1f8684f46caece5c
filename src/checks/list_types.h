/* The grammars of policy values (core/policy.h: sp_policy_type), each
 * defined beside the parser its check runs: SP_T(sym) names a
 * `const sp_policy_type sp_ptype_<sym>` in src/checks/. A check names one in
 * its policy_keys as "key:NAME" (NAME is the type's .name). No include
 * guard: X-macro. */
SP_T(targets)        /* net_probe.c: IP:PORT */
SP_T(target)         /* net_probe.c: one IP:PORT */
SP_T(targets80)      /* net_probe.c: IP[:PORT], 80 */
SP_T(resolvers)      /* net_probe.c: IP[:PORT], 53 */
SP_T(resolver)       /* net_probe.c: one IP[:PORT], 53 */
SP_T(endpoints)      /* net_probe.c: IP or IP:PORT */
SP_T(ports)          /* net_probe.c: 1-65535 */
SP_T(dns_names)      /* net_probe.c */
SP_T(dns_name)       /* net_probe.c */
SP_T(host)           /* net_probe.c: a DNS name or an IP */
SP_T(dns_fakes)      /* net_dns.c: NAME=IP */
SP_T(iface_addrs)    /* net_iface.c: IFACE=ADDR[/LEN] */
SP_T(route_mode)     /* net_iface.c: present, absent, any */
SP_T(mount_facts)    /* mount_facts.c: /PATH=FSTYPE:ro|rw[:OPTION]... */
SP_T(block_devs)     /* mount_facts.c: block device names */
SP_T(ip)             /* net_probe.c */
SP_T(ipv6_mode)      /* network.c: off, loopback, any */
SP_T(proxy_url)      /* net_proxy.c */
SP_T(proxy_hosts)    /* net_proxy.c: HOST[:PORT] */
SP_T(proxy_host)     /* net_proxy.c */
SP_T(tls_hosts)      /* tls.c: HOST[:PORT], 443 */
SP_T(sha256s)        /* tls.c: CA fingerprints */
SP_T(redirects)      /* transparent.c: tcp/PORT, udp/PORT */
SP_T(probes)         /* tools.c: PROGRAM ARG... => REGEX; ... */
SP_T(pkg_managers)   /* pkg_offline.c: pip, dpkg, apt, npm */
SP_T(mcp_command)    /* mcp.c: PROGRAM ARG... */
SP_T(mcp_url)        /* mcp.c: http://IP:PORT/PATH */
SP_T(env_values)     /* environment.c: NAME=VALUE; NAME~REGEX */
SP_T(release)        /* environment.c: exact or ~REGEX */
SP_T(version)        /* environment.c: 5.10 */
SP_T(swap)           /* environment.c: on, off, any */
SP_T(proc_names)     /* processes.c */
SP_T(syscalls)       /* seccomp.c */
SP_T(namespaces)     /* namespaces.c */
SP_T(propagation)    /* filesystem.c */
SP_T(cgroup_layouts) /* cgroups.c */
SP_T(devices)        /* devices.c: names under /dev */
SP_T(paths)          /* probe.c: absolute paths */
SP_T(user_paths)     /* writable_as.c: USER:/PATH */
SP_T(boundaries)     /* runtime.c: kernel.separate_kernel */
