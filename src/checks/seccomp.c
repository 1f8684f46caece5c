/* Seccomp and LSM. Each dangerous syscall is called in a forked child with
 * arguments that make an allowed call fail early with EINVAL/EBADF/EFAULT/
 * ESRCH/EOPNOTSUPP, before the kernel looks at capabilities where the kernel
 * allows that. So: one of those errnos = the call reached the kernel (not
 * filtered); EPERM/EACCES under a filter = refused by the filter; ENOSYS =
 * filtered or absent; a SIGSYS kill = blocked by a killing filter. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "checks/types.h"
#include "checks/probe.h"
#include "core/emul.h"
#include "core/util.h"
#include "catalog/catalog.h"

/* the mode read and every syscall probe: one declared batch (defined below) */
static const sp_batch sc_probes;

static void run_mode(const sp_ctx *ctx, sp_result *r)
{
	bool must = sp_expect_required(ctx, r, "seccomp.required", "seccomp filter mode (2) with at least one filter");
	char mode[16], filters[16] = "";
	int e = sp_status_field("/proc/self/status", "Seccomp", mode, sizeof mode);
	if (e < 0) {
		sp_errorr(r, "cannot read Seccomp from /proc/self/status: %s", strerror(-e));
		return;
	}
	bool have_count = sp_status_field("/proc/self/status", "Seccomp_filters", filters, sizeof filters) == 0;
	int p = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	sp_observed(r, "Seccomp %s, Seccomp_filters %s, PR_GET_SECCOMP %d", mode, have_count ? filters : "(absent)", p);
	if (p >= 0 && (p == 2) != (strcmp(mode, "2") == 0)) {
		sp_errorr(r, "status and prctl disagree on the seccomp mode");
		return;
	}
	bool filtered = !strcmp(mode, "2") && (!have_count || strcmp(filters, "0") != 0);
	if (filtered)
		sp_pass(r, "seccomp filter in force (%s filter%s)", have_count ? filters : "some",
			have_count && !strcmp(filters, "1") ? "" : "s");
	else if (must)
		sp_failr(r, "no seccomp filter: every syscall reaches the kernel");
	else
		sp_pass(r, "no seccomp filter, not required by policy");
}

const sp_check sp_check_seccomp_mode = {
	.id = SP_CKID(seccomp_mode),
	.category = "seccomp",
	.title = "seccomp filter in force",
	.rationale = "a syscall filter removes kernel attack surface the sandbox does not need",
	.techniques = "T1611,T1068",
	.policy_keys = "seccomp.required:bool",
	.method = "read",
	.run = run_mode,
	.flags = SP_CHECK_KERNEL,
	.batch = &sc_probes,
};

/* ---- syscall probes ---- */

enum abi { ABI_64, ABI_32, ABI_X32 };

struct sc_probe {
	const char *name;   /* syscall name, as in seccomp.deny */
	long nr;            /* native number (-1: not on this arch) */
	long nr32, nrx32;   /* i386 and x32 numbers (-1: none) */
	long a[6];
	const char *allowed; /* errnos an allowed call returns with these args */
	int cap;            /* capability the kernel checks before the args (-1: none) */
};

#define NA (-1L)
#ifndef SYS_clone3
#define SYS_clone3 435
#endif
#define CLONE_NEWUSER_ 0x10000000L
#define CLONE_FS_ 0x00000200L

static const struct sc_probe probes[] = {
	{"mount", SYS_mount, 21, 165, {0, 0, 0, 0, 0, 0}, "EFAULT,ENOENT,EINVAL", -1},
	{"umount2", SYS_umount2, 52, 166, {(long)"/", 0x80000000L, 0, 0, 0, 0}, "EINVAL", -1},
	{"unshare", SYS_unshare, 310, 272, {CLONE_NEWUSER_ | 0x1L, 0, 0, 0, 0, 0}, "EINVAL", -1},
	{"clone", SYS_clone, 120, 56, {CLONE_NEWUSER_ | CLONE_FS_, 0, 0, 0, 0, 0}, "EINVAL", -1},
	{"clone3", SYS_clone3, 435, 435, {0, 0, 0, 0, 0, 0}, "EINVAL,EFAULT", -1},
	{"setns", SYS_setns, 346, 308, {-1, 0, 0, 0, 0, 0}, "EBADF", -1},
	{"keyctl", SYS_keyctl, 288, 250, {9999, 0, 0, 0, 0, 0}, "EOPNOTSUPP,EINVAL", -1},
	{"add_key", SYS_add_key, 286, 248, {0, 0, 0, 0, 0, 0}, "EFAULT,EINVAL", -1},
	{"request_key", SYS_request_key, 287, 249, {0, 0, 0, 0, 0, 0}, "EFAULT,EINVAL", -1},
	{"bpf", SYS_bpf, 357, 321, {9999, 0, 0, 0, 0, 0}, "EINVAL,E2BIG", -1},
	{"perf_event_open", SYS_perf_event_open, 336, 298, {0, 0, -1, -1, 0x7fffffffL, 0}, "EINVAL,EFAULT", -1},
	{"userfaultfd", SYS_userfaultfd, 374, 323, {0x1 | 0x2, 0, 0, 0, 0, 0}, "EINVAL", -1},
	{"io_uring_setup", SYS_io_uring_setup, 425, 425, {1, 0, 0, 0, 0, 0}, "EFAULT,EINVAL", -1},
	{"ptrace", SYS_ptrace, 26, 521, {16 /* PTRACE_ATTACH */, 0x7ffffffeL, 0, 0, 0, 0}, "ESRCH", -1},
	{"kexec_load", SYS_kexec_load, 283, 528, {0, 1000, 0, 0, 0, 0}, "EINVAL", CAP_SYS_BOOT},
	{"init_module", SYS_init_module, 128, 175, {0, 0, 0, 0, 0, 0}, "ENOEXEC,EFAULT,EINVAL", CAP_SYS_MODULE},
	{"finit_module", SYS_finit_module, 350, 313, {-1, (long)"", 0, 0, 0, 0}, "EBADF,EINVAL", CAP_SYS_MODULE},
	{"open_by_handle_at", SYS_open_by_handle_at, 342, 304, {-1, 0, 0, 0, 0, 0}, "EBADF,EFAULT,EINVAL",
	 CAP_DAC_READ_SEARCH},
	{"personality", SYS_personality, 136, 135, {0x0040000L /* ADDR_NO_RANDOMIZE */, 0, 0, 0, 0, 0}, "", -1},
};

struct sc_call {
	const struct sc_probe *p;
	enum abi abi;
};

#if defined(__x86_64__)
static long int80(long nr, long a, long b, long c, long d, long e)
{
	long ret;
	__asm__ volatile("int $0x80" : "=a"(ret) : "0"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e) : "memory");
	if (ret < 0 && ret > -4096) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}
#endif

static long do_sc(void *arg)
{
	const struct sc_call *c = arg;
	const long *a = c->p->a;
	switch (c->abi) {
	case ABI_64:
		return syscall(c->p->nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	case ABI_32:
#if defined(__x86_64__)
		/* 32-bit pointers: only NULL and small constants are passed */
		return int80(c->p->nr32, a[0] > 0xffffffffL ? 0 : a[0], a[1] > 0xffffffffL ? 0 : a[1], a[2], a[3],
			     a[4]);
#else
		errno = ENOSYS;
		return -1;
#endif
	case ABI_X32:
#if defined(__x86_64__)
		return syscall(c->p->nrx32 | 0x40000000L, a[0], a[1], a[2], a[3], a[4], a[5]);
#else
		errno = ENOSYS;
		return -1;
#endif
	}
	errno = EINVAL;
	return -1;
}

static bool errno_in(const char *list, int e)
{
	return sp_opt_has(list, sp_errname(e));
}

enum sc_verdict { SC_BLOCKED, SC_REACHED, SC_UNAVAILABLE, SC_UNKNOWN, SC_AMBIGUOUS };

/* judge one call's outcome; text into buf */
static enum sc_verdict sc_judge(const struct sc_probe *p, enum abi abi, int mode, const sp_call *res, char *buf,
				size_t bsz)
{
	if (res->timed_out) {
		snprintf(buf, bsz, "timed out");
		return SC_UNKNOWN;
	}
	if (res->sig == SIGSYS) {
		snprintf(buf, bsz, "killed by SIGSYS (filter)");
		return SC_BLOCKED;
	}
	if (res->sig) {
		bool noabi = abi == ABI_32 && (res->sig == SIGSEGV || res->sig == SIGBUS);
		snprintf(buf, bsz, "child killed by signal %d%s", res->sig, noabi ? " (32-bit ABI not available)" : "");
		return noabi ? SC_UNAVAILABLE : SC_UNKNOWN;
	}
	if (!res->ran) {
		snprintf(buf, bsz, "no result");
		return SC_UNKNOWN;
	}
	if (res->ret >= 0) {
		snprintf(buf, bsz, "returned %ld (allowed)", res->ret);
		return SC_REACHED;
	}
	int e = res->err;
	if (errno_in(p->allowed, e)) {
		snprintf(buf, bsz, "%s: reached the kernel", sp_errname(e));
		return SC_REACHED;
	}
	if (e == ENOSYS) {
		snprintf(buf, bsz, "ENOSYS (%s)", mode == 2 ? "filtered or absent" : "not in this kernel");
		return mode == 2 ? SC_BLOCKED : SC_UNAVAILABLE;
	}
	if (mode != 2) {
		snprintf(buf, bsz, "%s without a filter: refused by the kernel itself%s%s", sp_errname(e),
			 p->cap >= 0 ? " (no " : "", p->cap >= 0 ? sp_cap_name((unsigned)p->cap) : "");
		if (p->cap >= 0)
			snprintf(buf + strlen(buf), bsz - strlen(buf), ")");
		return SC_REACHED;
	}
	if (p->cap >= 0 && !sp_has_cap((unsigned)p->cap)) {
		/* the kernel checks the capability before the arguments, so EPERM
		 * may be the filter's or the kernel's. Outside the bounding set the
		 * capability can never come back: refused for good either way */
		char v[64];
		uint64_t bnd = ~0ull;
		if (sp_status_field("/proc/self/status", "CapBnd", v, sizeof v) == 0)
			sp_caps_parse(v, &bnd);
		if (!(bnd >> p->cap & 1)) {
			snprintf(buf, bsz, "%s under a filter; %s is not in the bounding set, so the kernel refuses it for good either way",
				 sp_errname(e), sp_cap_name((unsigned)p->cap));
			return SC_BLOCKED;
		}
		snprintf(buf, bsz, "%s under a filter, but without %s (still in the bounding set) the kernel refuses too: "
			 "whether the filter blocks it cannot be told from inside", sp_errname(e), sp_cap_name((unsigned)p->cap));
		return SC_AMBIGUOUS;
	}
	snprintf(buf, bsz, "%s from the filter", sp_errname(e));
	return SC_BLOCKED;
}

struct sc_rec {
	long ret;
	int err;
};

/* Run probes [0, n) of one ABI in as few children as possible: a child runs
 * them in order and reports each before the next; when a filter kills it,
 * the probe it was in is the first unreported one, and a new child resumes
 * after it. Results are cached: the seccomp.* checks run in the doctor
 * process, so the first one probes for all of them. */
static sp_call sc_cache[3][SP_ARRAY_SIZE(probes)];
static bool sc_cached[3];

/* Is the alternative ABI that ABI? Its getpid (i386 20, x32 39) must return
 * the caller's pid: a kernel that dispatches int 0x80 with the x86_64 table
 * (gVisor) runs writev instead, and then no number below means what the
 * probe table says. */
enum abi_proof { ABI_PROVEN, ABI_OTHER_TABLE, ABI_ABSENT, ABI_FILTERED, ABI_UNKNOWN };
static enum abi_proof abi_proven[3];
static char abi_how[3][160];

#if defined(__x86_64__)
static long abi_getpid(void *arg)
{
	const enum abi *a = arg;
	long want = getpid();
	errno = 0;
	long got = *a == ABI_32 ? int80(20, 0, 0, 0, 0, 0) : syscall(39 | 0x40000000L);
	if (got < 0)
		return -1;
	return got == want ? 1 : got + 2;
}
#endif

static void prove_abi(enum abi abi, int mode)
{
#if defined(__x86_64__)
	const char *call = abi == ABI_32 ? "int 0x80 getpid (20)" : "x32 getpid (39|0x40000000)";
	sp_call c;
	enum abi a = abi;
	if (sp_child_call(abi_getpid, &a, 2000, &c) < 0 || c.timed_out) {
		abi_proven[abi] = ABI_UNKNOWN;
		snprintf(abi_how[abi], sizeof abi_how[abi], "%s: the probe did not run", call);
	} else if (c.sig == SIGSYS) {
		abi_proven[abi] = ABI_FILTERED;
		snprintf(abi_how[abi], sizeof abi_how[abi], "%s killed by SIGSYS: the filter covers this ABI", call);
	} else if (c.sig == SIGSEGV || c.sig == SIGBUS) {
		abi_proven[abi] = ABI_ABSENT;
		snprintf(abi_how[abi], sizeof abi_how[abi], "%s: signal %d, no such ABI", call, c.sig);
	} else if (c.sig || !c.ran) {
		abi_proven[abi] = ABI_UNKNOWN;
		snprintf(abi_how[abi], sizeof abi_how[abi], "%s: child killed by signal %d", call, c.sig);
	} else if (c.ret == 1) {
		abi_proven[abi] = ABI_PROVEN;
		snprintf(abi_how[abi], sizeof abi_how[abi], "%s returned the pid: the ABI is dispatched with its own numbers",
			 call);
	} else if (c.ret >= 2) {
		abi_proven[abi] = ABI_OTHER_TABLE;
		snprintf(abi_how[abi], sizeof abi_how[abi],
			 "%s returned %ld, not the pid: this kernel does not dispatch the ABI with its own numbers", call,
			 c.ret - 2);
	} else if (c.err == ENOSYS && mode != 2) {
		abi_proven[abi] = ABI_ABSENT;
		snprintf(abi_how[abi], sizeof abi_how[abi], "%s: ENOSYS without a filter, no such ABI", call);
	} else if (mode == 2 && (c.err == EPERM || c.err == EACCES || c.err == ENOSYS)) {
		abi_proven[abi] = ABI_FILTERED;
		snprintf(abi_how[abi], sizeof abi_how[abi], "%s: %s under a filter: the filter covers this ABI", call,
			 sp_errname(c.err));
	} else {
		/* getpid cannot fail: an errno means another call ran */
		abi_proven[abi] = ABI_OTHER_TABLE;
		snprintf(abi_how[abi], sizeof abi_how[abi],
			 "%s failed with %s, which getpid never does: this kernel does not dispatch the ABI with its own numbers",
			 call, sp_errname(c.err));
	}
#else
	(void)mode;
	abi_proven[abi] = ABI_ABSENT;
	snprintf(abi_how[abi], sizeof abi_how[abi], "not x86_64");
#endif
}

struct sc_seq {
	enum abi abi;
	sp_call *out;
	size_t n;
};

static void sc_seq_run(size_t i, void *rec, void *arg)
{
	const struct sc_seq *q = arg;
	struct sc_call c = {.p = &probes[i], .abi = q->abi};
	long nr = probes[i].nrx32;
	if (q->abi == ABI_64)
		nr = probes[i].nr;
	else if (q->abi == ABI_32)
		nr = probes[i].nr32;
	struct sc_rec *sr = rec;
	sr->ret = -1;
	sr->err = ENOSYS;
	if (nr >= 0) {
		errno = 0;
		sr->ret = do_sc(&c);
		sr->err = sr->ret < 0 ? errno : 0;
	}
}

static void sc_seq_got(size_t i, const void *rec, void *arg)
{
	const struct sc_seq *q = arg;
	const struct sc_rec *sr = rec;
	q->out[i].ran = true;
	q->out[i].ret = sr->ret;
	q->out[i].err = sr->err;
}

static bool sc_seq_lost(size_t i, int sig, bool timed_out, void *arg)
{
	(void)timed_out;
	const struct sc_seq *q = arg;
	if (!sig) {
		q->out[i].timed_out = true;
		return true;
	}
	q->out[i].sig = sig;
	if (q->abi == ABI_32 && (sig == SIGSEGV || sig == SIGBUS)) {
		/* no int 0x80 at all: every remaining probe is unavailable */
		for (size_t j = i; j < q->n; j++)
			q->out[j].sig = sig;
		return false;
	}
	return true;
}

static void sc_batch(enum abi abi)
{
	if (sc_cached[abi])
		return;
	if (abi != ABI_64)
		prove_abi(abi, sp_seccomp_mode());
	memset(sc_cache[abi], 0, sizeof sc_cache[abi]);
	struct sc_seq q = {.abi = abi, .out = sc_cache[abi], .n = SP_ARRAY_SIZE(probes)};
	sp_probe_seq seq = {.n = q.n,
			    .rec_size = sizeof(struct sc_rec),
			    .timeout_ms = 2000,
			    .run = sc_seq_run,
			    .got = sc_seq_got,
			    .lost = sc_seq_lost,
			    .arg = &q};
	sp_outcome o = {0};
	sp_probe_seq_run(&seq, &o);
	sc_cached[abi] = true;
}

/* classify one call; text into buf */
static enum sc_verdict sc_classify(const struct sc_probe *p, enum abi abi, int mode, char *buf, size_t bsz)
{
	sc_batch(abi);
	return sc_judge(p, abi, mode, &sc_cache[abi][p - probes], buf, bsz);
}

/* The declared batch seccomp.probes: the mode read and every syscall probe
 * of the three ABIs in one child (each ABI's probes in sub-children that a
 * killing filter may end; the next resumes after the killed one), each
 * seccomp.* member judging its own from the cache. */
static void sc_batch_run(const sp_ctx *ctx)
{
	(void)ctx;
	/* every syscall probe skips under emulation (SP_CHECK_NOEMU) */
	if (sp_user_emulation(NULL, 0))
		return;
	sc_batch(ABI_64);
#if defined(__x86_64__)
	sc_batch(ABI_32);
	sc_batch(ABI_X32);
#endif
}

static const sp_batch sc_probes = {
	.id = "seccomp.probes",
	.what = "every syscall probe of the x86_64, i386 and x32 ABIs in one child",
	.timeout_ms = 20000,
	.run = sc_batch_run,
};

static const struct sc_probe *probe_find(const char *name)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(probes); i++)
		if (!strcmp(probes[i].name, name))
			return &probes[i];
	return NULL;
}

/* seccomp.deny's entries: the syscalls a probe exists for (one the doctor
 * cannot probe would be demanded and never checked) */
static const char *probe_name(size_t i)
{
	return probes[i].name;
}

static int syscall_parse(const char *name, sp_outcome *o)
{
	if (probe_find(name))
		return 0;
	return sp_not_one_of(name, "a syscall the doctor probes", probe_name, SP_ARRAY_SIZE(probes), o);
}

const sp_policy_type sp_ptype_syscalls = {.name = "syscalls", .what = "names of the syscalls the doctor probes",
					  .list = true, .parse = syscall_parse};

static void run_syscall(const char *name, const sp_ctx *ctx, sp_result *r)
{
	const struct sc_probe *p = probe_find(name);
	bool must = sp_policy_list_has(ctx, "seccomp.deny", name);
	int mode = sp_seccomp_mode();
	sp_expected(r, "%s", must ? "blocked by the seccomp filter (EPERM/ENOSYS/SIGSYS)" : "any (not in seccomp.deny)");
	if (!p || p->nr < 0) {
		sp_skip(r, "%s does not exist on this architecture", name);
		return;
	}
	char buf[256];
	enum sc_verdict v = sc_classify(p, ABI_64, mode, buf, sizeof buf);
	sp_observed(r, "%s: %s; seccomp mode %d", name, buf, mode);
	switch (v) {
	case SC_BLOCKED:
		sp_pass(r, "%s blocked (%s)", name, buf);
		break;
	case SC_UNAVAILABLE:
		sp_pass(r, "%s unavailable (%s)", name, buf);
		break;
	case SC_REACHED:
		if (must)
			sp_failr(r, "%s reaches the kernel: the filter does not block it", name);
		else
			sp_pass(r, "%s reaches the kernel, not in seccomp.deny", name);
		break;
	case SC_UNKNOWN:
		sp_errorr(r, "cannot classify %s: %s", name, buf);
		break;
	case SC_AMBIGUOUS:
		if (must)
			sp_warn(r, "%s refused, by the filter or for lack of a capability: not proven", name);
		else
			sp_pass(r, "%s refused, not in seccomp.deny", name);
		break;
	}
}

static void run_abi(enum abi abi, const sp_ctx *ctx, sp_result *r)
{
	const char *abiname = abi == ABI_32 ? "i386 (int 0x80)" : "x32";
	sp_strv deny;
	sp_policy_list(ctx->policy, "seccomp.deny", &deny);
	bool must = deny.n > 0;
	int mode = sp_seccomp_mode();
	sp_expected(r, "%s", must ? "seccomp.deny syscalls blocked through the alternative ABI too"
				  : "any (seccomp.deny empty)");
#if !defined(__x86_64__)
	(void)mode;
	sp_strv_free(&deny);
#if defined(__aarch64__)
	if (abi == ABI_32) {
		sp_skip(r, "the i386 ABI exists only on x86_64; arm64's compat ABI (AArch32) is not probed: a 64-bit "
			   "process cannot enter it, it needs a 32-bit ARM executable");
		return;
	}
#endif
	sp_skip(r, "the %s ABI exists only on x86_64", abiname);
	return;
#else
	size_t reached = 0, probed = 0, unavailable = 0, ambiguous = 0;
	char first[64] = "";
	sc_batch(abi);
	sp_observed(r, "%s", abi_how[abi]);
	if (abi_proven[abi] == ABI_OTHER_TABLE || abi_proven[abi] == ABI_ABSENT) {
		sp_strv_free(&deny);
		sp_pass(r, "%s ABI not available: %s", abiname,
			abi_proven[abi] == ABI_ABSENT ? "the kernel has no such entry" : "the kernel runs these calls as native ones");
		return;
	}
	if (abi_proven[abi] == ABI_UNKNOWN) {
		sp_strv_free(&deny);
		sp_errorr(r, "cannot prove the %s ABI before judging it (%s)", abiname, abi_how[abi]);
		return;
	}
	for (size_t i = 0; i < deny.n; i++) {
		const struct sc_probe *p = probe_find(deny.v[i]);
		long nr = p ? (abi == ABI_32 ? p->nr32 : p->nrx32) : -1;
		if (!p || nr < 0)
			continue;
		/* pointer-argument probes that need a real pointer are skipped */
		if (abi == ABI_32 && (!strcmp(p->name, "umount2") || !strcmp(p->name, "finit_module")))
			continue;
		char buf[200];
		enum sc_verdict v = sc_classify(p, abi, mode, buf, sizeof buf);
		probed++;
		sp_observed_add(r, "%s: %s", p->name, buf);
		if (v == SC_REACHED) {
			reached++;
			if (!first[0])
				snprintf(first, sizeof first, "%s", p->name);
		}
		unavailable += v == SC_UNAVAILABLE;
		ambiguous += v == SC_AMBIGUOUS;
		if (v == SC_UNAVAILABLE && i == 0 && abi == ABI_32)
			break; /* no int 0x80 at all */
	}
	sp_strv_free(&deny);
	if (probed == 0) {
		sp_pass(r, "nothing to probe (seccomp.deny empty)");
		return;
	}
	if (reached == 0 && ambiguous && must)
		sp_warn(r, "%s ABI: %zu refusal(s) may be the kernel's for lack of a capability: not proven", abiname, ambiguous);
	else if (reached == 0)
		sp_pass(r, "%s ABI: %zu probes blocked or unavailable%s", abiname, probed,
			unavailable == probed ? " (ABI not available)" : "");
	else if (must)
		sp_failr(r, "%s ABI: %zu denied syscalls reach the kernel (first: %s)", abiname, reached, first);
	else
		sp_pass(r, "%s ABI reachable, not required", abiname);
#endif
}

static void run_abi32(const sp_ctx *ctx, sp_result *r) { run_abi(ABI_32, ctx, r); }
static void run_abix32(const sp_ctx *ctx, sp_result *r) { run_abi(ABI_X32, ctx, r); }

#define SC_CHECK(sym, name_, why_, tech_) \
	static void run_##sym(const sp_ctx *ctx, sp_result *r) { run_syscall(name_, ctx, r); } \
	const sp_check sp_check_##sym = { \
		.id = SP_CKID(sym), \
		.category = "seccomp", \
		.title = "seccomp blocks " name_, \
		.rationale = why_, \
		.techniques = tech_, \
		.policy_keys = "seccomp.deny:syscalls", \
		.method = "action", \
		.run = run_##sym, \
		.flags = SP_CHECK_KERNEL | SP_CHECK_NOEMU, \
		.batch = &sc_probes, \
	}

SC_CHECK(seccomp_mount, "mount", "mount is the first step of most container escapes", "T1611");
SC_CHECK(seccomp_umount2, "umount2", "unmounting a masking mount reveals what it hid", "T1611");
SC_CHECK(seccomp_unshare, "unshare", "unshare(CLONE_NEWUSER) hands root-in-a-namespace to the sandbox", "T1611,T1068");
SC_CHECK(seccomp_clone, "clone", "clone with namespace flags creates new namespaces", "T1611");
SC_CHECK(seccomp_clone3, "clone3", "clone3 flags cannot be inspected by seccomp, so it must be refused whole",
	 "T1611");
SC_CHECK(seccomp_setns, "setns", "setns joins another namespace, possibly the host's", "T1611");
SC_CHECK(seccomp_keyctl, "keyctl", "the kernel keyring is not namespaced and leaks secrets", "T1552");
SC_CHECK(seccomp_add_key, "add_key", "the kernel keyring is not namespaced", "T1552");
SC_CHECK(seccomp_request_key, "request_key", "request_key can call user-mode helpers on the host", "T1552");
SC_CHECK(seccomp_bpf, "bpf", "eBPF is a large kernel attack surface", "T1068");
SC_CHECK(seccomp_perf_event_open, "perf_event_open", "perf events leak kernel data and have a history of bugs",
	 "T1068");
SC_CHECK(seccomp_userfaultfd, "userfaultfd", "userfaultfd makes kernel race exploits reliable", "T1068");
SC_CHECK(seccomp_io_uring_setup, "io_uring_setup", "io_uring bypasses syscall filtering and has many CVEs",
	 "T1068");
SC_CHECK(seccomp_ptrace, "ptrace", "ptrace can inject into other processes and bypass filters on old kernels",
	 "T1055.008");
SC_CHECK(seccomp_kexec_load, "kexec_load", "kexec replaces the running kernel", "T1611");
SC_CHECK(seccomp_init_module, "init_module", "loading a module runs code in the kernel", "T1547.006");
SC_CHECK(seccomp_finit_module, "finit_module", "loading a module runs code in the kernel", "T1547.006");
SC_CHECK(seccomp_open_by_handle_at, "open_by_handle_at", "file handles escape a chroot or bind mount (shocker)",
	 "T1611");
SC_CHECK(seccomp_personality, "personality", "personality flags disable ASLR and enable old kernel paths",
	 "T1068");

const sp_check sp_check_seccomp_abi32 = {
	.id = SP_CKID(seccomp_abi32),
	.category = "seccomp",
	.title = "denied syscalls blocked through the 32-bit ABI",
	.rationale = "a filter written for x86_64 numbers only is bypassed by int 0x80",
	.techniques = "T1611,T1068",
	.policy_keys = "seccomp.deny:syscalls",
	.method = "action",
	.run = run_abi32,
	.flags = SP_CHECK_KERNEL,
	.batch = &sc_probes,
};

const sp_check sp_check_seccomp_abix32 = {
	.id = SP_CKID(seccomp_abix32),
	.category = "seccomp",
	.title = "denied syscalls blocked through the x32 ABI",
	.rationale = "x32 syscall numbers (bit 30) bypass a filter that does not check the ABI",
	.techniques = "T1611,T1068",
	.policy_keys = "seccomp.deny:syscalls",
	.method = "action",
	.run = run_abix32,
	.flags = SP_CHECK_KERNEL,
	.batch = &sc_probes,
};

/* ---- LSM ---- */

static void run_lsm_label(const sp_ctx *ctx, sp_result *r)
{
	bool must = sp_policy_bool(ctx->policy, "lsm.required", false);
	sp_expected(r, "%s", must ? "an AppArmor profile or SELinux context other than unconfined"
				  : "any (lsm.required = false)");
	char aa[256] = "", cur[256] = "", lsms[256] = "";
	ssize_t na = sp_read_file("/proc/self/attr/apparmor/current", aa, sizeof aa);
	ssize_t nc = sp_read_file("/proc/self/attr/current", cur, sizeof cur);
	sp_read_file("/sys/kernel/security/lsm", lsms, sizeof lsms);
	const char *label = na > 0 ? sp_trim(aa) : nc > 0 ? sp_trim(cur) : "";
	sp_observed(r, "label \"%s\"; lsm list \"%s\"", label, sp_trim(lsms));
	bool confined = *label && strcmp(label, "unconfined") && !sp_startswith(label, "unconfined_u:unconfined_r") &&
			!strstr(label, "kernel_t");
	if (confined)
		sp_pass(r, "confined by %s", label);
	else if (must)
		sp_failr(r, "no AppArmor/SELinux confinement (%s)", *label ? label : "no label");
	else
		sp_pass(r, "no LSM confinement, not required by policy");
}

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif

/* would the file's mode alone let this process read it (CAP_DAC_OVERRIDE and
 * CAP_DAC_READ_SEARCH count as allowing)? */
static bool dac_allows_read(const struct stat *st)
{
	if (sp_has_cap(CAP_DAC_OVERRIDE) || sp_has_cap(CAP_DAC_READ_SEARCH))
		return true;
	uid_t u = geteuid();
	if (st->st_uid == u)
		return st->st_mode & S_IRUSR;
	gid_t groups[256];
	int n = getgroups(256, groups);
	bool member = st->st_gid == getegid();
	for (int k = 0; k < n && !member; k++)
		member = groups[k] == st->st_gid;
	return member ? (st->st_mode & S_IRGRP) != 0 : (st->st_mode & S_IROTH) != 0;
}

static void run_landlock(const sp_ctx *ctx, sp_result *r)
{
	sp_strv hidden;
	sp_policy_list(ctx->policy, "lsm.landlock_hidden", &hidden);
	bool must = sp_policy_bool(ctx->policy, "lsm.landlock", false);
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1u /* LANDLOCK_CREATE_RULESET_VERSION */);
	int e = errno;
	sp_expected(r, "%s", must ? "a Landlock domain: the paths in lsm.landlock_hidden refuse access with EACCES"
				  : "any (lsm.landlock = false)");
	if (abi < 0)
		sp_observed(r, "Landlock ABI: %s", sp_errname(e));
	else
		sp_observed(r, "Landlock ABI %ld", abi);
	size_t denied = 0, open_ok = 0, absent = 0;
	for (size_t i = 0; i < hidden.n; i++) {
		struct stat st;
		if (stat(hidden.v[i], &st) < 0) {
			sp_observed_add(r, "%s: %s", hidden.v[i], sp_errname(errno));
			absent++;
			continue;
		}
		int fd = open(hidden.v[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		int oe = errno;
		if (fd >= 0) {
			close(fd);
			open_ok++;
			sp_observed_add(r, "%s: opened", hidden.v[i]);
		} else if (oe == EACCES && !dac_allows_read(&st)) {
			/* the file's own mode refuses this uid: the refusal says nothing of Landlock */
			sp_observed_add(r, "%s: exists, open EACCES, but its mode refuses this uid anyway: proves nothing",
					hidden.v[i]);
		} else {
			denied += oe == EACCES;
			sp_observed_add(r, "%s: exists, open %s", hidden.v[i], sp_errname(oe));
		}
	}
	size_t n = hidden.n;
	sp_strv_free(&hidden);
	if (!must) {
		sp_pass(r, "Landlock not required by policy");
		return;
	}
	if (abi < 0) {
		sp_failr(r, "Landlock unavailable (%s): no domain can be in force", sp_errname(e));
		return;
	}
	if (n == 0) {
		sp_skip(r, "lsm.landlock_hidden lists no path to probe");
		return;
	}
	if (open_ok == 0 && denied > 0)
		sp_pass(r, "%zu hidden paths exist but refuse access with EACCES: a Landlock domain is in force", denied);
	else if (open_ok)
		sp_failr(r, "%zu path(s) the policy hides can be opened", open_ok);
	else
		sp_skip(r, "no hidden path was refused by anything but its own mode (%zu absent): nothing proves a domain",
			absent);
}

const sp_check sp_check_lsm_label = {
	.id = SP_CKID(lsm_label),
	.category = "seccomp",
	.title = "AppArmor or SELinux confinement",
	.rationale = "an LSM profile is a second wall when a capability or syscall slips through",
	.techniques = "T1611",
	.policy_keys = "lsm.required:bool",
	.method = "read",
	.run = run_lsm_label,
	.flags = SP_CHECK_INPROCESS,
};

const sp_check sp_check_lsm_landlock = {
	.id = SP_CKID(lsm_landlock),
	.category = "seccomp",
	.title = "Landlock domain hides the policy's paths",
	.rationale = "Landlock lets an unprivileged sandbox restrict its own file access",
	.techniques = "T1005",
	.policy_keys = "lsm.landlock:bool,lsm.landlock_hidden:paths",
	.method = "action",
	.run = run_landlock,
};
