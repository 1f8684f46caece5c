/* the runtime adapters, in the order the matrix shows them: SP_RT(symbol)
 * lines (X-macro, no guard). Each symbol names a `const sp_live_runtime
 * sp_rt_<symbol>` defined in src/live/<adapter>.c; its enum id is
 * SP_RTID_<symbol>. Adding a runtime = one adapter + one line. */
SP_RT(bwrap)
SP_RT(unshare)
SP_RT(runc)
SP_RT(crun)
SP_RT(runsc)
SP_RT(podman)
SP_RT(docker)
SP_RT(docker_runsc)
SP_RT(containerd_runc)
SP_RT(containerd_runsc)
SP_RT(firejail)
SP_RT(nspawn)
SP_RT(qemu)
