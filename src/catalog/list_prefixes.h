/* the id prefixes of the checks (the part before the first dot), in report
 * order: SP_P(prefix) lines (X-macro, no guard). Every prefix names at least
 * one check of src/catalog/list.h and every check's id starts with one of
 * them (tests/unit/test_live.c holds both to it). */
SP_P(ns)
SP_P(proc)
SP_P(caps)
SP_P(priv)
SP_P(seccomp)
SP_P(lsm)
SP_P(fs)
SP_P(ws)
SP_P(kernel)
SP_P(dev)
SP_P(cgroup)
SP_P(res)
SP_P(net)
SP_P(tls)
SP_P(env)
SP_P(tools)
SP_P(pkg)
SP_P(mcp)
SP_P(wf)
SP_P(inject)
