/* the protections a negative control may remove, in bit order:
 * SP_PR(SYMBOL, table, "name") lines (X-macro, no guard). Each gives the bit
 * SP_PROT_<SYMBOL> and needs, in src/live/lane.c, checks_<table>[] (the
 * check-id globs that must FAIL when it is removed) and may_<table>[] (those
 * that may also fail): a protection without its tables does not compile. */
SP_PR(PIDNS, pidns, "pid namespace")          /* host pid namespace */
SP_PR(NETNS, netns, "network namespace")      /* host network */
SP_PR(ROROOT, roroot, "read-only root")       /* writable root */
SP_PR(CAPS, caps, "capabilities dropped")     /* kept capabilities */
SP_PR(DEV, dev, "minimal /dev")               /* host /dev */
SP_PR(SECCOMP, seccomp, "seccomp filter")     /* no seccomp */
SP_PR(UNPRIV, unpriv, "unprivileged")         /* privileged */
SP_PR(NNP, nnp, "no_new_privs")               /* no no_new_privs */
