/* Test helper: ground truth for the doctor's verdicts, established without
 * any of the doctor's code. Inside a sandbox it performs the operation a
 * property is about and prints what happened; on the host it reads what
 * the kernel holds for a sandbox's process (its seccomp filters, fetched
 * with ptrace and evaluated by a BPF interpreter of its own).
 *
 * inside:  truth all [DIR] (each below, DIR or the first writable scratch dir)
 *          | uname | caps | nnp | userns | fibmap DIR | int80 | syslog |
 *          kill-other | mknod DIR | write DIR | hold NONCE (wait to be killed,
 *          so the host can inspect this very process; NONCE finds it)
 * host:    truth filter PID NAME...   the action the process's filters take
 *                                     on each syscall (x86_64, i386, x32)
 *          truth userns-hold UID      a process left running in a user
 *                                     namespace we own, as host uid UID
 * Every answer is one line "key value ..."; exit 0 unless the helper itself
 * could not run. */
#include <stdbool.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PTRACE_SECCOMP_GET_FILTER
#define PTRACE_SECCOMP_GET_FILTER 0x420c
#endif

static const char *en(int e)
{
	const char *n = strerrorname_np(e);
	return n ? n : "E?";
}

static int cmd_uname(void)
{
	struct utsname u;
	if (uname(&u) < 0)
		return printf("uname %s\n", en(errno)), 0;
	printf("uname %s\n", u.release);
	return 0;
}

static int cmd_caps(void)
{
	/* capget, version 3: two 32-bit words per set */
	struct {
		uint32_t version;
		int pid;
	} hdr = {0x20080522, 0};
	struct {
		uint32_t eff, prm, inh;
	} d[2];
	memset(d, 0, sizeof d);
	if (syscall(SYS_capget, &hdr, d) < 0)
		return printf("caps %s\n", en(errno)), 0;
	printf("caps eff=%016llx prm=%016llx\n", (unsigned long long)d[0].eff | ((unsigned long long)d[1].eff << 32),
	       (unsigned long long)d[0].prm | ((unsigned long long)d[1].prm << 32));
	return 0;
}

static int cmd_nnp(void)
{
	int v = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
	printf("nnp %s\n", v < 0 ? en(errno) : v ? "1" : "0");
	return 0;
}

/* run fn in a child; "created", an errno name or "signal N" */
static void in_child(const char *label, long (*fn)(void))
{
	int p[2];
	if (pipe(p) < 0)
		return;
	pid_t c = fork();
	if (c == 0) {
		close(p[0]);
		long r = fn();
		int e = r < 0 ? errno : 0;
		if (write(p[1], &e, sizeof e) != (ssize_t)sizeof e)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	int e = -1, st = 0;
	ssize_t n = read(p[0], &e, sizeof e);
	close(p[0]);
	waitpid(c, &st, 0);
	if (n != (ssize_t)sizeof e)
		printf("%s signal %d\n", label, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	else
		printf("%s %s\n", label, e ? en(e) : "created");
}

static long ns_unshare(void) { return unshare(CLONE_NEWUSER); }

static long ns_clone(void)
{
	long pid = syscall(SYS_clone, (long)(CLONE_NEWUSER | SIGCHLD), 0L, 0L, 0L, 0L);
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return pid < 0 ? -1 : 0;
}

static long ns_clone3(void)
{
	uint64_t args[8] = {CLONE_NEWUSER, 0, 0, 0, SIGCHLD, 0, 0, 0};
	long pid = syscall(435, args, sizeof args);
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, 0);
	return pid < 0 ? -1 : 0;
}

static int cmd_userns(void)
{
	in_child("userns.unshare", ns_unshare);
	in_child("userns.clone", ns_clone);
	in_child("userns.clone3", ns_clone3);
	return 0;
}

static int cmd_fibmap(const char *dir)
{
	char path[512];
	snprintf(path, sizeof path, "%s/truth-fibmap-%d", dir, (int)getpid());
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return printf("fibmap create %s\n", en(errno)), 0;
	unlink(path);
	int blk = 0;
	int r = ioctl(fd, FIBMAP, &blk);
	printf("fibmap %s\n", r == 0 ? "0" : en(errno));
	close(fd);
	return 0;
}

static int cmd_int80(void)
{
#if defined(__x86_64__)
	long ret;
	__asm__ volatile("int $0x80" : "=a"(ret) : "0"(20L) : "memory");
	printf("int80.getpid pid=%d ret=%ld\n", (int)getpid(), ret);
#else
	printf("int80 none\n");
#endif
	return 0;
}

static int cmd_syslog(void)
{
	char buf[512];
	int n = klogctl(3, buf, sizeof buf - 1);
	if (n < 0)
		return printf("syslog %s\n", en(errno)), 0;
	buf[n] = '\0';
	char *nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	printf("syslog read %d first=%s\n", n, buf);
	return 0;
}

static int cmd_kill_other(void)
{
	int p[2];
	if (pipe(p) < 0)
		return 1;
	/* a uid other than ours: 65534, or 1 when we are nobody already */
	uid_t other = getuid() == 65534 || geteuid() == 65534 ? 1 : 65534;
	pid_t t = fork();
	if (t == 0) {
		close(p[0]);
		char ok = setresuid(other, other, other) == 0 ? 'y' : 'n';
		if (write(p[1], &ok, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	char ok = 'n';
	if (read(p[0], &ok, 1) != 1)
		ok = 'n';
	if (ok != 'y') {
		printf("kill-other no-target\n");
	} else {
		int r = kill(t, 0);
		printf("kill-other %s\n", r == 0 ? "signalled" : en(errno));
	}
	kill(t, SIGKILL);
	waitpid(t, NULL, 0);
	return 0;
}

/* every visible process of another uid (ruid and suid not ours): can this
 * process signal one? "signalled PID", "refused N", or "none" */
static int cmd_kill_visible(void)
{
	DIR *d = opendir("/proc");
	if (!d)
		return printf("kill-visible %s\n", en(errno)), 0;
	struct dirent *de;
	int refused = 0;
	uid_t me = getuid(), eme = geteuid();
	while ((de = readdir(d))) {
		int pid = atoi(de->d_name);
		if (pid <= 0 || pid == getpid())
			continue;
		char p[64], line[256];
		snprintf(p, sizeof p, "/proc/%d/status", pid);
		FILE *f = fopen(p, "r");
		if (!f)
			continue;
		unsigned r = 0, e = 0, sv = 0;
		bool got = false;
		while (fgets(line, sizeof line, f))
			if (sscanf(line, "Uid: %u %u %u", &r, &e, &sv) == 3) {
				got = true;
				break;
			}
		fclose(f);
		if (!got || r == me || r == eme || sv == me || sv == eme)
			continue;
		if (kill(pid, 0) == 0) {
			closedir(d);
			return printf("kill-visible signalled %d\n", pid), 0;
		}
		refused++;
	}
	closedir(d);
	if (refused)
		printf("kill-visible refused %d\n", refused);
	else
		printf("kill-visible none\n");
	return 0;
}

/* A process in a user namespace owned by the caller, running as uid OUTER
 * of the caller's namespace (0 inside): a target that an owner's process
 * can signal without CAP_KILL. Prints "userns-hold PID" and keeps it. */
static int cmd_userns_hold(const char *outer)
{
	int go[2], ready[2];
	if (pipe(go) < 0 || pipe(ready) < 0)
		return printf("userns-hold %s\n", en(errno)), 1;
	pid_t c = fork();
	if (c == 0) {
		char b;
		if (unshare(CLONE_NEWUSER) < 0 || write(ready[1], "u", 1) != 1 || read(go[0], &b, 1) != 1)
			_exit(1);
		if (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0)
			_exit(2);
		if (write(ready[1], "r", 1) != 1)
			_exit(3);
		/* let whoever reads our output see its end */
		int nul = open("/dev/null", O_RDWR);
		for (int fd = 0; fd < 3 && nul >= 0; fd++)
			dup2(nul, fd);
		close(ready[1]);
		close(go[0]);
		for (;;)
			pause();
	}
	char b, path[64], map[64];
	if (read(ready[0], &b, 1) != 1)
		return printf("userns-hold unshare failed\n"), 1;
	snprintf(map, sizeof map, "0 %s 1\n", outer);
	const char *files[] = {"setgroups", "gid_map", "uid_map"};
	const char *vals[] = {"deny", map, map};
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "/proc/%d/%s", (int)c, files[i]);
		int fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, vals[i], strlen(vals[i])) < 0)
			return printf("userns-hold %s: %s\n", files[i], en(errno)), 1;
		close(fd);
	}
	if (write(go[1], "g", 1) != 1 || read(ready[0], &b, 1) != 1)
		return printf("userns-hold setuid failed\n"), 1;
	printf("userns-hold %d\n", (int)c);
	return 0;
}

static int cmd_mknod(const char *dir)
{
	char path[512];
	snprintf(path, sizeof path, "%s/truth-null-%d", dir, (int)getpid());
	if (mknod(path, S_IFCHR | 0600, makedev(1, 3)) < 0)
		return printf("mknod %s\n", en(errno)), 0;
	int fd = open(path, O_WRONLY);
	int e = errno;
	unlink(path);
	if (fd >= 0) {
		close(fd);
		printf("mknod opened\n");
	} else {
		printf("mknod created open=%s\n", en(e));
	}
	return 0;
}

static int cmd_rootmount(void)
{
	struct statvfs sv;
	if (statvfs("/", &sv) < 0)
		return printf("rootmount %s\n", en(errno)), 0;
	printf("rootmount %s\n", sv.f_flag & ST_RDONLY ? "ro" : "rw");
	return 0;
}

static int cmd_write(const char *dir)
{
	char path[512];
	snprintf(path, sizeof path, "%s/.truth-write-%d", dir, (int)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return printf("write %s %s\n", dir, en(errno)), 0;
	close(fd);
	unlink(path);
	printf("write %s written\n", dir);
	return 0;
}

/* ---- host side: the seccomp filters of a process ---- */

struct sdata {
	int nr;
	uint32_t arch;
	uint64_t ip;
	uint64_t args[6];
};

/* classic BPF as seccomp runs it; the return value, or 0 (KILL) on a bad program */
static uint32_t run_bpf(const struct sock_filter *f, size_t n, const struct sdata *d)
{
	uint32_t A = 0, X = 0, M[16] = {0};
	const unsigned char *data = (const unsigned char *)d;
	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *i = &f[pc];
		uint16_t code = i->code;
		switch (BPF_CLASS(code)) {
		case BPF_LD:
		case BPF_LDX: {
			uint32_t v;
			if (BPF_MODE(code) == BPF_ABS) {
				if (i->k + 4 > sizeof *d)
					return 0;
				memcpy(&v, data + i->k, 4);
			} else if (BPF_MODE(code) == BPF_IMM) {
				v = i->k;
			} else if (BPF_MODE(code) == BPF_MEM) {
				v = M[i->k & 15];
			} else if (BPF_MODE(code) == BPF_LEN) {
				v = sizeof *d;
			} else {
				return 0;
			}
			if (BPF_CLASS(code) == BPF_LD)
				A = v;
			else
				X = v;
			break;
		}
		case BPF_ST: M[i->k & 15] = A; break;
		case BPF_STX: M[i->k & 15] = X; break;
		case BPF_ALU: {
			uint32_t s = BPF_SRC(code) == BPF_X ? X : i->k;
			switch (BPF_OP(code)) {
			case BPF_ADD: A += s; break;
			case BPF_SUB: A -= s; break;
			case BPF_MUL: A *= s; break;
			case BPF_DIV: if (!s) return 0; A /= s; break;
			case BPF_OR: A |= s; break;
			case BPF_AND: A &= s; break;
			case BPF_LSH: A <<= (s & 31); break;
			case BPF_RSH: A >>= (s & 31); break;
			case BPF_NEG: A = -A; break;
			case BPF_MOD: if (!s) return 0; A %= s; break;
			case BPF_XOR: A ^= s; break;
			default: return 0;
			}
			break;
		}
		case BPF_JMP: {
			if (BPF_OP(code) == BPF_JA) {
				pc += i->k;
				break;
			}
			uint32_t s = BPF_SRC(code) == BPF_X ? X : i->k;
			bool t;
			switch (BPF_OP(code)) {
			case BPF_JEQ: t = A == s; break;
			case BPF_JGT: t = A > s; break;
			case BPF_JGE: t = A >= s; break;
			case BPF_JSET: t = (A & s) != 0; break;
			default: return 0;
			}
			pc += t ? i->jt : i->jf;
			break;
		}
		case BPF_RET: return BPF_RVAL(code) == BPF_A ? A : i->k;
		case BPF_MISC:
			if (BPF_MISCOP(code) == BPF_TAX)
				X = A;
			else
				A = X;
			break;
		default: return 0;
		}
	}
	return 0;
}

/* precedence of actions, most restrictive first (seccomp(2)) */
static int rank(uint32_t ret)
{
	switch (ret & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_KILL_PROCESS: return 0;
	case SECCOMP_RET_KILL_THREAD: return 1;
	case SECCOMP_RET_TRAP: return 2;
	case SECCOMP_RET_ERRNO: return 3;
	case SECCOMP_RET_USER_NOTIF: return 4;
	case SECCOMP_RET_TRACE: return 5;
	case SECCOMP_RET_LOG: return 6;
	case SECCOMP_RET_ALLOW: return 7;
	}
	return 0;
}

static void action_name(uint32_t ret, char *out, size_t size)
{
	switch (ret & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_KILL_PROCESS:
	case SECCOMP_RET_KILL_THREAD: snprintf(out, size, "KILL"); break;
	case SECCOMP_RET_TRAP: snprintf(out, size, "TRAP"); break;
	case SECCOMP_RET_ERRNO: snprintf(out, size, "ERRNO(%s)", en((int)(ret & SECCOMP_RET_DATA))); break;
	case SECCOMP_RET_USER_NOTIF: snprintf(out, size, "NOTIFY"); break;
	case SECCOMP_RET_TRACE: snprintf(out, size, "TRACE"); break;
	case SECCOMP_RET_LOG: snprintf(out, size, "LOG"); break;
	case SECCOMP_RET_ALLOW: snprintf(out, size, "ALLOW"); break;
	default: snprintf(out, size, "KILL"); break;
	}
}

struct sysc {
	const char *name;
	int nr64, nr32, nrx32;
	uint64_t a0; /* the first argument the dangerous use passes */
};

/* numbers from the kernel's syscall tables (x86_64, i386, x32 common) */
static const struct sysc table[] = {
	{"mount", 165, 21, 165, 0},		{"umount2", 166, 52, 166, 0},
	{"unshare", 272, 310, 272, 0x10000000},	{"clone", 56, 120, 56, 0x10000000 | SIGCHLD},
	{"clone3", 435, 435, 435, 0},		{"setns", 308, 346, 308, 0},
	{"keyctl", 250, 288, 250, 0},		{"add_key", 248, 286, 248, 0},
	{"request_key", 249, 287, 249, 0},	{"bpf", 321, 357, 321, 0},
	{"perf_event_open", 298, 336, 298, 0},	{"userfaultfd", 323, 374, 323, 0},
	{"io_uring_setup", 425, 425, 425, 0},	{"ptrace", 101, 26, 521, 16},
	{"kexec_load", 246, 283, 528, 0},	{"init_module", 175, 128, 175, 0},
	{"finit_module", 313, 350, 313, 0},	{"open_by_handle_at", 304, 342, 304, 0},
	{"personality", 135, 136, 135, 0x0040000},
};

static int cmd_filter(pid_t pid, int n, char **names)
{
	if (ptrace(PTRACE_SEIZE, pid, 0, 0) < 0)
		return fprintf(stderr, "truth: seize %d: %s\n", (int)pid, strerror(errno)), 1;
	if (ptrace(PTRACE_INTERRUPT, pid, 0, 0) < 0)
		return fprintf(stderr, "truth: interrupt %d: %s\n", (int)pid, strerror(errno)), 1;
	int st;
	if (waitpid(pid, &st, __WALL) < 0)
		return fprintf(stderr, "truth: wait %d: %s\n", (int)pid, strerror(errno)), 1;
	struct prog {
		struct sock_filter *f;
		long n;
	} progs[32];
	int np = 0;
	for (; np < 32; np++) {
		long len = ptrace(PTRACE_SECCOMP_GET_FILTER, pid, (void *)(long)np, NULL);
		if (len < 0)
			break;
		progs[np].f = calloc((size_t)len, sizeof *progs[np].f);
		progs[np].n = ptrace(PTRACE_SECCOMP_GET_FILTER, pid, (void *)(long)np, progs[np].f);
	}
	int why = errno;
	ptrace(PTRACE_DETACH, pid, 0, 0);
	printf("filters %d%s%s\n", np, np ? "" : " ", np ? "" : en(why));
	for (int k = 0; k < n; k++) {
		const struct sysc *s = NULL;
		for (size_t i = 0; i < sizeof table / sizeof *table; i++)
			if (!strcmp(table[i].name, names[k]))
				s = &table[i];
		if (!s) {
			printf("%s unknown\n", names[k]);
			continue;
		}
		printf("%s", s->name);
		for (int abi = 0; abi < 3; abi++) {
			struct sdata d = {.nr = abi == 0 ? s->nr64 : abi == 1 ? s->nr32 : (s->nrx32 | 0x40000000),
					  .arch = abi == 1 ? AUDIT_ARCH_I386 : AUDIT_ARCH_X86_64,
					  .args = {s->a0}};
			uint32_t best = SECCOMP_RET_ALLOW;
			for (int p = 0; p < np; p++) {
				uint32_t r = run_bpf(progs[p].f, (size_t)progs[p].n, &d);
				if (rank(r) < rank(best))
					best = r;
			}
			char a[48];
			action_name(best, a, sizeof a);
			printf(" %s=%s", abi == 0 ? "x86_64" : abi == 1 ? "i386" : "x32", a);
		}
		printf("\n");
	}
	return 0;
}

/* the first of the usual scratch places where a new file can be made */
static const char *writable_dir(const char *first)
{
	static const char *const dirs[] = {"/tmp", "/dev/shm", "/var/tmp", "/run"};
	const char *cand[5] = {first, dirs[0], dirs[1], dirs[2], dirs[3]};
	for (size_t i = 0; i < 5; i++) {
		char p[512];
		snprintf(p, sizeof p, "%s/.truth-probe-%d", cand[i], (int)getpid());
		int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
		if (fd >= 0) {
			close(fd);
			unlink(p);
			return cand[i];
		}
	}
	return NULL;
}

/* mknod where the sandbox could make a mount of its own without nodev */
static int cmd_mknod_own_mount(const char *dir)
{
	if (unshare(CLONE_NEWNS) < 0)
		return printf("mknod-own-mount unshare %s\n", en(errno)), 0;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("truth", dir, "tmpfs", MS_NOSUID | MS_NOEXEC, "size=16k") < 0)
		return printf("mknod-own-mount mount %s\n", en(errno)), 0;
	char path[512];
	snprintf(path, sizeof path, "%s/null", dir);
	if (mknod(path, S_IFCHR | 0600, makedev(1, 3)) < 0)
		return printf("mknod-own-mount %s\n", en(errno)), 0;
	int fd = open(path, O_WRONLY);
	printf("mknod-own-mount %s\n", fd >= 0 ? "opened" : en(errno));
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return fprintf(stderr, "usage: truth COMMAND [ARG...]\n"), 2;
	const char *c = argv[1];
	const char *a = argc > 2 ? argv[2] : "/tmp";
	if (!strcmp(c, "uname"))
		return cmd_uname();
	if (!strcmp(c, "caps"))
		return cmd_caps();
	if (!strcmp(c, "nnp"))
		return cmd_nnp();
	if (!strcmp(c, "userns"))
		return cmd_userns();
	if (!strcmp(c, "fibmap"))
		return cmd_fibmap(a);
	if (!strcmp(c, "int80"))
		return cmd_int80();
	if (!strcmp(c, "syslog"))
		return cmd_syslog();
	if (!strcmp(c, "kill-other"))
		return cmd_kill_other();
	if (!strcmp(c, "mknod"))
		return cmd_mknod(a);
	if (!strcmp(c, "write"))
		return cmd_write(a);
	if (!strcmp(c, "userns-hold") && argc > 2)
		return cmd_userns_hold(argv[2]);
	if (!strcmp(c, "euid")) {
		printf("euid %d\n", (int)geteuid());
		return 0;
	}
	if (!strcmp(c, "as-uid") && argc > 3) {
		/* become UID (all three ids), then exec the rest: does a setuid
		 * file on the target's mount raise the euid again? */
		uid_t u = (uid_t)atoi(argv[2]);
		if (setresgid(u, u, u) < 0 || setresuid(u, u, u) < 0)
			return printf("as-uid %s\n", en(errno)), 0;
		execv(argv[3], argv + 3);
		return printf("as-uid exec %s\n", en(errno)), 0;
	}
	if (!strcmp(c, "hold")) {
		printf("hold %s\n", a);
		for (;;)
			pause();
	}
	if (!strcmp(c, "filter") && argc > 2)
		return cmd_filter((pid_t)atoi(argv[2]), argc - 3, argv + 3);
	if (!strcmp(c, "all")) {
		const char *w = writable_dir(a);
		if (!w) {
			printf("writable none\n");
			w = a;
		} else {
			printf("writable %s\n", w);
		}
		a = w;
		/* each in a child: a filter that kills one call costs that line only */
		static const char *const all[] = {"uname", "caps", "nnp", "userns", "fibmap", "int80.getpid", "syslog",
						  "kill-other", "kill-visible", "mknod", "mknod-own-mount", "rootmount", "write",
						  "write"};
		for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
			fflush(stdout);
			pid_t ch = fork();
			if (ch == 0) {
				switch (i) {
				case 0: _exit(cmd_uname());
				case 1: _exit(cmd_caps());
				case 2: _exit(cmd_nnp());
				case 3: _exit(cmd_userns());
				case 4: _exit(cmd_fibmap(a));
				case 5: _exit(cmd_int80());
				case 6: _exit(cmd_syslog());
				case 7: _exit(cmd_kill_other());
				case 8: _exit(cmd_kill_visible());
				case 9: _exit(cmd_mknod(a));
				case 10: _exit(cmd_mknod_own_mount(a));
				case 11: _exit(cmd_rootmount());
				case 12: _exit(cmd_write("/"));
				default: _exit(cmd_write(a));
				}
			}
			int st = 0;
			waitpid(ch, &st, 0);
			if (WIFSIGNALED(st))
				printf("%s signal %d\n", all[i], WTERMSIG(st));
		}
		return 0;
	}
	return fprintf(stderr, "truth: unknown command '%s'\n", c), 2;
}
