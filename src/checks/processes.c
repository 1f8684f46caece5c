/* Process isolation: /proc must show only the sandbox's own processes. A
 * process is the sandbox's when it descends from the sandbox's init (pid 1)
 * or from the root of our own ancestry (a process that entered with
 * setns/exec has a parent outside the namespace, seen as ppid 0). Kernel
 * threads, and any other tree, are the host's. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks/probe.h"
#include "core/util.h"

#define PF_KTHREAD 0x00200000u

struct proc_entry {
	int pid, ppid;
	unsigned flags;
	char comm[32];
};

static int read_stat(int pid, struct proc_entry *e)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	ssize_t n = sp_read_file(path, buf, sizeof buf);
	if (n <= 0)
		return n < 0 ? (int)n : -EINVAL;
	char *lp = strchr(buf, '('), *rp = strrchr(buf, ')');
	if (!lp || !rp || rp < lp)
		return -EINVAL;
	size_t clen = (size_t)(rp - lp - 1);
	if (clen >= sizeof e->comm)
		clen = sizeof e->comm - 1;
	memcpy(e->comm, lp + 1, clen);
	e->comm[clen] = '\0';
	char state;
	int ppid;
	unsigned flags;
	/* after ")": state ppid pgrp session tty_nr tpgid flags */
	if (sscanf(rp + 1, " %c %d %*d %*d %*d %*d %u", &state, &ppid, &flags) != 3)
		return -EINVAL;
	e->pid = pid;
	e->ppid = ppid;
	e->flags = flags;
	return 0;
}

static const struct proc_entry *lookup(const struct proc_entry *v, size_t n, int pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == pid)
			return &v[i];
	return NULL;
}

/* root of pid's ancestry (the entry whose parent is 0 or not visible) */
static int root_of(const struct proc_entry *v, size_t n, int pid)
{
	for (size_t depth = 0; depth < n + 1; depth++) {
		const struct proc_entry *e = lookup(v, n, pid);
		if (!e || e->ppid == 0 || !lookup(v, n, e->ppid))
			return pid;
		pid = e->ppid;
	}
	return pid;
}

static void run_host_visible(const sp_ctx *ctx, sp_result *r)
{
	bool must = sp_policy_bool(ctx->policy, "proc.isolated", true);
	sp_expected(r, "%s", must ? "only processes of the sandbox in /proc (no host processes, no kernel threads)"
				  : "any (not required by policy)");
	char self[32];
	ssize_t sl = readlink("/proc/self", self, sizeof self - 1);
	if (sl <= 0) {
		sp_errorr(r, "/proc/self unreadable (%s): is /proc mounted?", sl < 0 ? strerror(errno) : "empty");
		return;
	}
	self[sl] = '\0';
	int selfpid = atoi(self);

	_cleanup_closedir_ DIR *d = opendir("/proc");
	if (!d) {
		sp_errorr(r, "cannot list /proc: %s", strerror(errno));
		return;
	}
	size_t cap = 256, n = 0;
	_cleanup_free_ struct proc_entry *v = sp_xmalloc(cap * sizeof *v);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (n == cap) {
			cap *= 2;
			v = sp_xrealloc(v, cap * sizeof *v);
		}
		if (read_stat(atoi(de->d_name), &v[n]) == 0)
			n++;
	}
	/* empty-vs-empty guard: we must at least see ourselves */
	if (n == 0 || !lookup(v, n, selfpid)) {
		sp_observed(r, "%zu processes listed, own pid %d %s", n, selfpid, n ? "absent" : "");
		sp_errorr(r, "/proc does not list this process: cannot judge");
		return;
	}
	int selfroot = root_of(v, n, selfpid);
	size_t foreign = 0, kthreads = 0;
	char list[512] = "";
	for (size_t i = 0; i < n; i++) {
		int root = root_of(v, n, v[i].pid);
		bool kthread = (v[i].flags & PF_KTHREAD) != 0;
		bool ours = !kthread && (root == 1 || root == selfroot);
		if (ours)
			continue;
		foreign++;
		kthreads += kthread;
		size_t len = strlen(list);
		if (foreign <= 6)
			snprintf(list + len, sizeof list - len, "%s%d(%s)", len ? " " : "", v[i].pid, v[i].comm);
	}
	bool outer_proc = getpid() != selfpid;
	sp_observed(r, "%zu processes visible, %zu outside the sandbox's trees (%zu kernel threads)%s%s%s", n,
		    foreign, kthreads, foreign ? ": " : "", list, foreign > 6 ? " ..." : "");
	if (outer_proc)
		sp_observed_add(r, "/proc belongs to an outer PID namespace (our pid there %d, here %d)", selfpid,
				(int)getpid());
	if (!foreign && !outer_proc)
		sp_pass(r, "%zu processes visible, all in the sandbox", n);
	else if (must)
		sp_failr(r, "%s", outer_proc ? "/proc is an outer PID namespace's: host processes visible"
					      : "host processes visible in /proc");
	else
		sp_pass(r, "host processes visible, not required by policy");
}

const sp_check sp_check_proc_host_visible = {
	.id = "proc.host_visible",
	.category = "processes",
	.title = "no host process visible in /proc",
	.rationale = "visible host processes leak command lines and environments and invite ptrace or signals",
	.techniques = "T1057,T1611",
	.policy_keys = "proc.isolated:bool",
	.method = "read",
	.run = run_host_visible,
};
