/* Process isolation: /proc must show only the sandbox's own processes. A
 * process is the sandbox's when it descends from the sandbox's init (pid 1)
 * or from the root of our own ancestry (a process that entered with
 * setns/exec has a parent outside the namespace, seen as ppid 0). Kernel
 * threads, and any other tree, are the host's. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks/types.h"
#include "checks/probe.h"
#include "checks/runtime.h"
#include "core/util.h"
#include "catalog/catalog.h"

/* the two probes of processes outside the sandbox share one child */
static const sp_batch proc_foreign = {
	.id = "proc.foreign",
	.what = "signal 0 to, and the environment of, processes that are not the sandbox's",
};

#define PF_KTHREAD 0x00200000u

struct proc_entry {
	int pid, ppid;
	unsigned flags;
	char comm[32];
};

/* pid's entry from /proc/PID/stat; 0, or -1 with o (the strerror of why
 * not: EINVAL when it does not parse) */
static int read_stat(int pid, struct proc_entry *e, sp_outcome *o)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	ssize_t n = sp_read_file(path, buf, sizeof buf);
	if (n < 0)
		return sp_why_errno(o, (int)-n, "%s", strerror((int)-n));
	char *lp = strchr(buf, '('), *rp = strrchr(buf, ')');
	if (n == 0 || !lp || !rp || rp < lp)
		return sp_why_errno(o, EINVAL, "%s", strerror(EINVAL));
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
		return sp_why_errno(o, EINVAL, "%s", strerror(EINVAL));
	e->pid = pid;
	e->ppid = ppid;
	e->flags = flags;
	return 0;
}

/* every process of the open /proc directory d whose stat parses (malloc'd) */
static struct proc_entry *read_procs(DIR *d, size_t *count)
{
	size_t cap = 256, n = 0;
	struct proc_entry *v = sp_xmalloc(cap * sizeof *v);
	struct dirent *de;
	sp_outcome o; /* a process gone or unreadable is left out */
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (n == cap) {
			cap *= 2;
			v = sp_xrealloc(v, cap * sizeof *v);
		}
		if (read_stat(atoi(de->d_name), &v[n], &o) == 0)
			n++;
	}
	*count = n;
	return v;
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
	bool must = sp_expect_required(ctx, r, "proc.isolated",
				       "only processes of the sandbox in /proc (no host processes, no kernel threads)");
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
	size_t n;
	_cleanup_free_ struct proc_entry *v = read_procs(d, &n);
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
	.id = SP_CKID(proc_host_visible),
	.category = "processes",
	.title = "no host process visible in /proc",
	.rationale = "visible host processes leak command lines and environments and invite ptrace or signals",
	.techniques = "T1057,T1611",
	.policy_keys = "proc.isolated:bool",
	.method = "read",
	.run = run_host_visible,
	.flags = SP_CHECK_INPROCESS | SP_CHECK_KERNEL,
};

/* ---- process lists: forbidden, required, pid 1 ---- */

/* A process as the name lists see it. The kernel's comm is cut to 15
 * characters and any process may rename itself (prctl PR_SET_NAME), so a
 * name is matched against the executable (/proc/PID/exe) and argv[0] (and,
 * for an interpreter, the script it runs); comm only stands in when neither
 * is readable (another user's process, a zombie). */
struct proc_ident {
	int pid;
	char comm[20];
	char exe[256];   /* "" when unreadable; " (deleted)" stripped */
	char argv0[256]; /* "" when the command line is empty or unreadable */
	char script[256];/* first non-option argument of an interpreter, or "" */
};

struct ident_list {
	struct proc_ident *v;
	size_t n;
};

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static bool is_interpreter(const char *name)
{
	static const char *const interp[] = {"python", "perl", "ruby", "node", "nodejs", "sh", "bash",
					     "dash", "zsh", "php", "lua", "tclsh", "java", "deno", "bun"};
	for (size_t i = 0; i < SP_ARRAY_SIZE(interp); i++) {
		size_t l = strlen(interp[i]);
		/* python3, python3.11, lua5.4: the name plus a version */
		if (!strncmp(name, interp[i], l) && (name[l] == '\0' || (name[l] >= '0' && name[l] <= '9')))
			return true;
	}
	return false;
}

static void read_ident(int pid, const char *comm, struct proc_ident *id)
{
	char path[64];
	memset(id, 0, sizeof *id);
	id->pid = pid;
	snprintf(id->comm, sizeof id->comm, "%s", comm);
	snprintf(path, sizeof path, "/proc/%d/exe", pid);
	ssize_t n = readlink(path, id->exe, sizeof id->exe - 1);
	id->exe[n > 0 ? n : 0] = '\0';
	if (sp_endswith(id->exe, " (deleted)"))
		id->exe[strlen(id->exe) - strlen(" (deleted)")] = '\0';
	char cmd[1024];
	snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
	ssize_t cl = sp_read_file(path, cmd, sizeof cmd);
	if (cl <= 0)
		return;
	/* arguments are NUL-separated; sp_read_file added one more NUL */
	snprintf(id->argv0, sizeof id->argv0, "%s", cmd);
	if (!is_interpreter(base_name(id->argv0)) && !is_interpreter(base_name(id->exe)))
		return;
	for (size_t off = strlen(cmd) + 1; off < (size_t)cl; off += strlen(cmd + off) + 1)
		if (cmd[off] && cmd[off] != '-') {
			snprintf(id->script, sizeof id->script, "%s", cmd + off);
			break;
		}
}

static struct ident_list *list_idents(void)
{
	DIR *d = opendir("/proc");
	if (!d)
		return NULL;
	struct ident_list *l = sp_xcalloc(1, sizeof *l);
	size_t cap = 0;
	struct dirent *de;
	sp_outcome o; /* a process gone or unreadable is left out */
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		struct proc_entry e;
		if (read_stat(atoi(de->d_name), &e, &o) < 0 || (e.flags & PF_KTHREAD))
			continue;
		if (l->n == cap) {
			cap = cap ? cap * 2 : 256;
			l->v = sp_xrealloc(l->v, cap * sizeof *l->v);
		}
		read_ident(e.pid, e.comm, &l->v[l->n++]);
	}
	closedir(d);
	return l;
}

static void free_idents(struct ident_list *l)
{
	if (l)
		free(l->v);
	free(l);
}

typedef enum name_match {
	NM_NO,
	NM_EXE,    /* the executable's path or name */
	NM_ARGV0,  /* argv[0] (path or name) */
	NM_SCRIPT, /* the script an interpreter runs */
	NM_COMM,   /* comm, neither exe nor argv[0] readable */
	NM_COMM_TRUNCATED, /* comm is the first 15 characters of a longer name: unproven */
} name_match;

/* A name as the lists hold it: a file name ("sshd"), or a path when it holds
 * a '/' ("/usr/sbin/sshd"), compared exactly with the executable, argv[0]
 * and an interpreter's script (each read into 256 bytes). */
static int proc_name_parse(const char *name, sp_outcome *o)
{
	if (strlen(name) > 255) {
		sp_why(o, "'%.60s...': longer than a process's path can be read (255 characters)", name);
		return -1;
	}
	if (strpbrk(name, "[")) {
		/* a bracket expression must close, or fnmatch takes '[' literally */
		const char *b = strchr(name, '[');
		if (!strchr(b + 1, ']')) {
			sp_why(o, "'%.100s': unterminated '[' in a pattern", name);
			return -1;
		}
	}
	if (sp_endswith(name, "/")) {
		sp_why(o, "'%.100s': a directory is no process name", name);
		return -1;
	}
	return 0;
}

const sp_policy_type sp_ptype_proc_names = {.name = "proc_names",
					    .what = "program names (sshd) or paths (/usr/sbin/sshd), exact or shell "
						    "patterns (systemd-*, sshd*)",
					    .list = true,
					    .parse = proc_name_parse};

/* a name (exact) or a shell pattern ("systemd-*", "sshd*") against s */
static bool name_is(const char *name, const char *s)
{
	return strpbrk(name, "*?[") ? sp_glob_match(name, s) : !strcmp(name, s);
}

/* Does the policy's name (a path when it holds a '/', else a file name;
 * either may be a shell pattern) name this process? */
static name_match ident_matches(const struct proc_ident *id, const char *name)
{
	bool path = strchr(name, '/') != NULL;
	if (id->exe[0] && name_is(name, path ? id->exe : base_name(id->exe)))
		return NM_EXE;
	if (id->argv0[0] && name_is(name, path ? id->argv0 : base_name(id->argv0)))
		return NM_ARGV0;
	if (id->script[0] && name_is(name, path ? id->script : base_name(id->script)))
		return NM_SCRIPT;
	if (id->exe[0] || id->argv0[0] || path)
		return NM_NO;
	if (name_is(name, id->comm))
		return NM_COMM;
	if (strlen(name) > 15 && strlen(id->comm) == 15 && !strncmp(id->comm, name, 15))
		return NM_COMM_TRUNCATED;
	return NM_NO;
}

static const char *match_name(name_match m)
{
	switch (m) {
	case NM_NO: return "no";
	case NM_EXE: return "exe";
	case NM_ARGV0: return "argv0";
	case NM_SCRIPT: return "script";
	case NM_COMM: return "comm";
	case NM_COMM_TRUNCATED: return "comm, truncated";
	}
	return "?";
}

/* which of names (if any) this process is: the first match, and how */
static name_match ident_matches_any(const struct proc_ident *id, const sp_strv *names, const char **which)
{
	for (size_t j = 0; j < names->n; j++) {
		name_match m = ident_matches(id, names->v[j]);
		if (m != NM_NO) {
			*which = names->v[j];
			return m;
		}
	}
	return NM_NO;
}

/* the processes in /proc; NULL (an error result, names freed) when none can
 * be listed */
static struct ident_list *idents_or_error(sp_result *r, sp_strv *names)
{
	struct ident_list *l = list_idents();
	if (l && l->n > 0)
		return l;
	sp_errorr(r, "cannot list processes in /proc");
	free_idents(l);
	sp_strv_free(names);
	return NULL;
}

static void run_forbidden(const sp_ctx *ctx, sp_result *r)
{
	sp_strv names;
	sp_policy_list(ctx->policy, "proc.forbidden", &names);
	sp_expected(r, "none of these running (by executable or argv[0]): %s",
		    names.n ? sp_policy_get(ctx->policy, "proc.forbidden") : "(none listed)");
	if (names.n == 0) {
		sp_skip(r, "policy lists no forbidden process (proc.forbidden)");
		sp_strv_free(&names);
		return;
	}
	struct ident_list *l = idents_or_error(r, &names);
	if (!l)
		return;
	size_t bad = 0, unsure = 0;
	char list[512] = "";
	for (size_t i = 0; i < l->n; i++) {
		const char *which = NULL;
		name_match m = ident_matches_any(&l->v[i], &names, &which);
		if (m == NM_NO)
			continue;
		/* a truncated comm may be the forbidden program: counted, said so */
		bad++;
		unsure += m == NM_COMM_TRUNCATED;
		size_t len = strlen(list);
		snprintf(list + len, sizeof list - len, "%s%d(%s by %s%s%s)", len ? " " : "", l->v[i].pid, which,
			 match_name(m), l->v[i].exe[0] ? ": " : "", l->v[i].exe);
	}
	sp_observed(r, "%zu processes visible%s%s", l->n, bad ? "; forbidden: " : "", list);
	if (unsure)
		sp_observed_add(r, "%zu matched only by a 15-character comm (executable and command line unreadable)", unsure);
	if (bad)
		sp_failr(r, "%zu forbidden process(es) running: %s", bad, list);
	else
		sp_pass(r, "no forbidden process among %zu", l->n);
	free_idents(l);
	sp_strv_free(&names);
}

static void run_required(const sp_ctx *ctx, sp_result *r)
{
	sp_strv names;
	sp_policy_list(ctx->policy, "proc.required", &names);
	sp_expected(r, "running (by executable or argv[0]): %s",
		    names.n ? sp_policy_get(ctx->policy, "proc.required") : "(none listed)");
	if (names.n == 0) {
		sp_skip(r, "policy lists no required process (proc.required)");
		sp_strv_free(&names);
		return;
	}
	struct ident_list *l = idents_or_error(r, &names);
	if (!l)
		return;
	size_t missing = 0, unsure = 0;
	for (size_t j = 0; j < names.n; j++) {
		name_match best = NM_NO;
		int pid = 0;
		for (size_t i = 0; i < l->n && (best == NM_NO || best == NM_COMM_TRUNCATED); i++) {
			name_match m = ident_matches(&l->v[i], names.v[j]);
			if (m != NM_NO && (best == NM_NO || m != NM_COMM_TRUNCATED)) {
				best = m;
				pid = l->v[i].pid;
			}
		}
		if (best == NM_NO)
			sp_observed_add(r, "%s MISSING", names.v[j]);
		else if (best == NM_COMM_TRUNCATED)
			sp_observed_add(r, "%s not proven: only pid %d's 15-character comm matches", names.v[j], pid);
		else
			sp_observed_add(r, "%s running (pid %d, by %s)", names.v[j], pid, match_name(best));
		missing += best == NM_NO;
		unsure += best == NM_COMM_TRUNCATED;
	}
	if (missing || unsure)
		sp_failr(r, "%zu required process(es) not running%s", missing + unsure,
			 unsure ? " (or only a truncated comm matches)" : "");
	else
		sp_pass(r, "all %zu required processes running", names.n);
	free_idents(l);
	sp_strv_free(&names);
}

static void run_pid1(const sp_ctx *ctx, sp_result *r)
{
	sp_strv bad;
	sp_policy_list(ctx->policy, "proc.pid1_forbidden", &bad);
	sp_expected(r, "pid 1 is the sandbox's own init, not one of: %s",
		    bad.n ? sp_policy_get(ctx->policy, "proc.pid1_forbidden") : "(none listed)");
	struct proc_entry e;
	sp_outcome o = {0};
	if (read_stat(1, &e, &o) < 0) {
		sp_observed(r, "/proc/1/stat: %s", o.why);
		sp_errorr(r, "cannot read pid 1: %s", o.why);
		sp_strv_free(&bad);
		return;
	}
	char exe[256] = "";
	ssize_t n = readlink("/proc/1/exe", exe, sizeof exe - 1);
	if (n > 0)
		exe[n] = '\0';
	else
		snprintf(exe, sizeof exe, "(%s)", sp_errname(errno));
	sp_observed(r, "pid 1 comm %s, exe %s, ppid %d", e.comm, exe, e.ppid);
	struct proc_ident id;
	const char *which = NULL;
	read_ident(1, e.comm, &id);
	if (ident_matches_any(&id, &bad, &which) != NM_NO) {
		sp_failr(r, "pid 1 is %s: the host's init is visible", which);
		sp_strv_free(&bad);
		return;
	}
	sp_strv_free(&bad);
	/* A name that is not on the list proves nothing by itself: the host's
	 * init may be any program. pid 1 is the sandbox's own only when this
	 * /proc is our PID namespace's and that namespace is not the initial
	 * one: kernel threads live only in the initial PID namespace, and its
	 * inode is the kernel's fixed PROC_PID_INIT_INO on a host kernel. */
	char self[32], ns[64] = "", ns1[64] = "";
	ssize_t sl = readlink("/proc/self", self, sizeof self - 1);
	if (sl <= 0) {
		sp_errorr(r, "/proc/self unreadable: cannot tell whose PID namespace /proc shows");
		return;
	}
	self[sl] = '\0';
	ssize_t nl = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
	ns[nl > 0 ? nl : 0] = '\0';
	ssize_t nl1 = readlink("/proc/1/ns/pid", ns1, sizeof ns1 - 1);
	ns1[nl1 > 0 ? nl1 : 0] = '\0';
	const struct proc_entry *kt = NULL;
	DIR *d = opendir("/proc");
	size_t np = 0;
	_cleanup_free_ struct proc_entry *v = d ? read_procs(d, &np) : NULL;
	if (d)
		closedir(d);
	for (size_t i = 0; i < np && !kt; i++)
		if (v[i].flags & PF_KTHREAD)
			kt = &v[i];
	bool userspace = sp_boundary_get()->kind == SP_KERNEL_USERSPACE;
	/* a guest kernel of the sandbox's own (a microVM): its initial PID
	 * namespace and kernel threads are the VM's, and so is pid 1 */
	bool guest = sp_boundary_get()->kind == SP_KERNEL_GUEST;
	sp_observed_add(r, "our pid %d, in this /proc %s; pid namespace %s, pid 1's %s; %zu processes, %s", (int)getpid(),
			self, ns[0] ? ns : "(unreadable)", ns1[0] ? ns1 : "(unreadable)", np,
			kt ? "kernel threads visible" : "no kernel thread");
	if (atoi(self) != (int)getpid())
		sp_failr(r, "/proc is an outer PID namespace's: its pid 1 is not the sandbox's");
	else if (guest && d && np > 0)
		sp_pass(r, "pid 1 is %s, init of a guest kernel of the sandbox's own (%s)", e.comm, sp_boundary_get()->kernel);
	else if (kt)
		sp_failr(r, "kernel threads visible (pid %d %s): pid 1 is the initial PID namespace's init, the host's",
			 kt->pid, kt->comm);
	else if (!userspace && !strcmp(ns, "pid:[4026531836]"))
		sp_failr(r, "the initial PID namespace (the host's): pid 1 is the host's init");
	else if (!d || np == 0)
		sp_errorr(r, "cannot list /proc: pid 1 not proven the sandbox's own");
	else if (!ns[0] && !userspace)
		sp_errorr(r, "/proc/self/ns/pid unreadable: pid 1 not proven the sandbox's own");
	else
		sp_pass(r, "pid 1 is %s, init of the sandbox's own PID namespace", e.comm);
}

/* the foreign (non-sandbox) processes, as proc.host_visible defines them;
 * -1 when /proc cannot be listed (nothing was looked at) */
static long foreign_pids(int *out, size_t max)
{
	DIR *d = opendir("/proc");
	if (!d)
		return -1;
	size_t n;
	struct proc_entry *v = read_procs(d, &n);
	closedir(d);
	char self[32];
	ssize_t sl = readlink("/proc/self", self, sizeof self - 1);
	size_t k = 0;
	if (sl > 0) {
		self[sl] = '\0';
		int selfroot = root_of(v, n, atoi(self));
		/* without a PID namespace of our own, the process tree cannot tell the
		 * sandbox from the host: a process in another mount namespace (or one
		 * whose namespace we may not read) is outside */
		char pidns[64] = "", mntns[64] = "";
		ssize_t pl = readlink("/proc/self/ns/pid", pidns, sizeof pidns - 1);
		ssize_t ml = readlink("/proc/self/ns/mnt", mntns, sizeof mntns - 1);
		if (pl > 0)
			pidns[pl] = '\0';
		if (ml > 0)
			mntns[ml] = '\0';
		bool shared_pid = !strcmp(pidns, "pid:[4026531836]") || atoi(self) != (int)getpid();
		for (size_t i = 0; i < n && k < max; i++) {
			if (v[i].flags & PF_KTHREAD)
				continue;
			int root = root_of(v, n, v[i].pid);
			bool foreign = root != 1 && root != selfroot;
			if (!foreign && shared_pid && ml > 0) {
				char p[64], l[64];
				snprintf(p, sizeof p, "/proc/%d/ns/mnt", v[i].pid);
				ssize_t ll = readlink(p, l, sizeof l - 1);
				if (ll > 0)
					l[ll] = '\0';
				foreign = ll <= 0 ? errno != ENOENT : strcmp(l, mntns) != 0;
			}
			if (foreign)
				out[k++] = v[i].pid;
		}
	}
	free(v);
	return sl > 0 && n > 0 ? (long)k : -1;
}

static void run_signal_foreign(const sp_ctx *ctx, sp_result *r)
{
	bool must = sp_expect_required(ctx, r, "proc.isolated",
				       "no process outside the sandbox can be signalled (kill with signal 0)");
	int pids[512];
	long got = foreign_pids(pids, SP_ARRAY_SIZE(pids));
	if (got < 0) {
		sp_errorr(r, "cannot list /proc (or find this process in it): no process looked at");
		return;
	}
	size_t n = (size_t)got;
	size_t ok = 0;
	int first = 0;
	for (size_t i = 0; i < n; i++)
		if (kill(pids[i], 0) == 0) {
			ok++;
			if (!first)
				first = pids[i];
		}
	sp_observed(r, "%zu foreign processes visible, %zu accept signals (signal 0: nothing delivered)", n, ok);
	if (ok && must)
		sp_failr(r, "%zu process(es) outside the sandbox can be signalled (first pid %d)", ok, first);
	else
		sp_pass(r, "%s", n ? "foreign processes visible but cannot be signalled" : "no foreign process visible");
}

static void run_environ_foreign(const sp_ctx *ctx, sp_result *r)
{
	bool must = sp_expect_required(ctx, r, "proc.isolated",
				       "no environment or memory of a process outside the sandbox readable");
	int pids[512];
	long got = foreign_pids(pids, SP_ARRAY_SIZE(pids));
	if (got < 0) {
		sp_errorr(r, "cannot list /proc (or find this process in it): no process looked at");
		return;
	}
	size_t n = (size_t)got;
	size_t readable = 0;
	int first = 0;
	for (size_t i = 0; i < n; i++) {
		char p[64];
		snprintf(p, sizeof p, "/proc/%d/environ", pids[i]);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		char c;
		ssize_t rd = read(fd, &c, 1);
		close(fd);
		if (rd >= 0) {
			readable++;
			if (!first)
				first = pids[i];
		}
	}
	sp_observed(r, "%zu foreign processes visible, %zu environments readable", n, readable);
	if (readable && must)
		sp_failr(r, "environment of %zu process(es) outside the sandbox readable (first pid %d)", readable, first);
	else
		sp_pass(r, "%s", n ? "foreign environments unreadable" : "no foreign process visible");
}

const sp_check sp_check_proc_forbidden = {
	.id = SP_CKID(proc_forbidden),
	.category = "processes",
	.title = "no forbidden process running",
	.rationale = "a visible sshd, cron or container daemon is a host service within reach",
	.techniques = "T1057,T1543,T1053.003",
	.policy_keys = "proc.forbidden:proc_names",
	.method = "read",
	.run = run_forbidden,
	.flags = SP_CHECK_INPROCESS,
};

const sp_check sp_check_proc_required = {
	.id = SP_CKID(proc_required),
	.category = "processes",
	.title = "required processes running",
	.rationale = "a sandbox that lacks its supervisor or proxy is not the sandbox the policy describes",
	.techniques = "",
	.policy_keys = "proc.required:proc_names",
	.method = "read",
	.run = run_required,
	.flags = SP_CHECK_INPROCESS,
};

const sp_check sp_check_proc_pid1 = {
	.id = SP_CKID(proc_pid1),
	.category = "processes",
	.title = "PID 1 is the sandbox's init",
	.rationale = "the host's init as pid 1 means the sandbox shares the host's process tree",
	.techniques = "T1057,T1611",
	.policy_keys = "proc.pid1_forbidden:proc_names",
	.method = "read",
	.run = run_pid1,
	.flags = SP_CHECK_INPROCESS,
};

const sp_check sp_check_proc_signal_foreign = {
	.id = SP_CKID(proc_signal_foreign),
	.category = "processes",
	.title = "processes outside the sandbox cannot be signalled",
	.rationale = "signalling host processes kills or disturbs the host's services",
	.techniques = "T1499,T1611",
	.policy_keys = "proc.isolated:bool",
	.method = "action",
	.run = run_signal_foreign,
	.batch = &proc_foreign,
};

const sp_check sp_check_proc_environ_foreign = {
	.id = SP_CKID(proc_environ_foreign),
	.category = "processes",
	.title = "environments outside the sandbox unreadable",
	.rationale = "host process environments carry credentials and tokens",
	.techniques = "T1552.001,T1057",
	.policy_keys = "proc.isolated:bool",
	.method = "action",
	.run = run_environ_foreign,
	.batch = &proc_foreign,
};
