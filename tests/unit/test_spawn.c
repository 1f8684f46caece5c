/* Unit tests for core/spawn: capture, stdin, exec failure as an error, exit
 * codes and signals, the deadline killing the whole process group (checked
 * from /proc: the grandchildren really die), the group's stragglers killed
 * when the leader exits (or kept with keep_group), output bounds, sinks, and
 * no descriptor left open. */
#include <dirent.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/spawn.h"
#include "core/util.h"
#include "unit/tap.h"

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* is pid gone or a zombie (dead, waiting for whoever adopted it)? waits up to 3 s */
static bool dead(pid_t pid)
{
	for (int i = 0; i < 300; i++) {
		char path[64], buf[512];
		snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
		ssize_t n = sp_read_file(path, buf, sizeof buf);
		if (n <= 0)
			return true;
		const char *p = strrchr(buf, ')');
		if (p && (p[2] == 'Z' || p[2] == 'X'))
			return true;
		usleep(10000);
	}
	return false;
}

static void pids_of(const char *text, pid_t *out, int max, int *n)
{
	*n = 0;
	const char *p = text;
	while (p && *p && *n < max) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p) {
			p++;
			continue;
		}
		if (v > 0)
			out[(*n)++] = (pid_t)v;
		p = end;
	}
}

static void test_capture(void)
{
	sp_child c;
	sp_error err;
	char *argv[] = {"/bin/sh", "-c", "echo out; echo err >&2; exit 3", NULL};
	sp_spawn_opts o = {.capture_out = true, .capture_err = true};
	ok(sp_spawn(&c, argv, &o, &err) == 0, "spawn sh");
	is_int(sp_child_wait(&c, sp_now_ns() + 10 * SP_NS_PER_S), 0, "it ends by itself");
	is_int(sp_child_code(&c), 3, "exit code 3");
	is_str(c.out_buf.data, "out\n", "stdout captured");
	is_str(c.err_buf.data, "err\n", "stderr captured apart");
	char d[128];
	sp_child_describe(&c, d, sizeof d);
	is_str(d, "exit 3", "described as exit 3");
	sp_child_free(&c);

	char *argv2[] = {"/bin/sh", "-c", "echo a; echo b >&2; echo c", NULL};
	sp_spawn_opts o2 = {.capture_out = true, .err_to_out = true};
	sp_spawn(&c, argv2, &o2, &err);
	sp_child_wait(&c, sp_now_ns() + 10 * SP_NS_PER_S);
	is_str(c.out_buf.data, "a\nb\nc\n", "err_to_out: one stream, in order");
	sp_child_free(&c);

	char *argv3[] = {"sh", "-c", "echo \"$SP_T\"", NULL};
	char *envp[] = {"SP_T=from-envp", "PATH=/bin:/usr/bin", NULL};
	sp_spawn_opts o3 = {.capture_out = true, .envp = envp};
	sp_spawn(&c, argv3, &o3, &err);
	sp_child_wait(&c, sp_now_ns() + 10 * SP_NS_PER_S);
	is_str(c.out_buf.data, "from-envp\n", "envp is the child's environment (PATH searched)");
	sp_child_free(&c);
}

static void test_stdin(void)
{
	sp_child c;
	sp_error err;
	char *argv[] = {"cat", NULL};
	sp_spawn_opts o = {.pipe_in = true, .capture_out = true};
	ok(sp_spawn(&c, argv, &o, &err) == 0, "spawn cat with a stdin pipe");
	ok(sp_write_all(c.in, "hello\n", 6) == 0, "write to its stdin");
	is_int(sp_child_read_until(&c, "hello", sp_now_ns() + 10 * SP_NS_PER_S), 1, "read_until finds the echo");
	is_int(sp_child_wait(&c, sp_now_ns() + 10 * SP_NS_PER_S), 0, "wait closes stdin: cat ends");
	is_int(sp_child_code(&c), 0, "cat exit 0");
	sp_child_free(&c);

	char *argv2[] = {"/bin/sh", "-c", "read x || echo eof", NULL};
	sp_spawn_opts o2 = {.capture_out = true};
	sp_spawn(&c, argv2, &o2, &err);
	sp_child_wait(&c, sp_now_ns() + 10 * SP_NS_PER_S);
	is_str(c.out_buf.data, "eof\n", "no stdin pipe: /dev/null");
	sp_child_free(&c);
}

static void test_exec_failure(void)
{
	sp_child c;
	sp_error err;
	sp_error_clear(&err);
	char *argv[] = {"sp-no-such-program-xyz", NULL};
	is_int(sp_spawn(&c, argv, NULL, &err), -1, "a missing program is an error of spawn");
	is_int(err.errnum, ENOENT, "with ENOENT");
	like_str(err.msg, "cannot execute sp-no-such-program-xyz", "the message names it");
	sp_child_free(&c);
	char tmpl[] = "/tmp/sp-spawn-test.XXXXXX";
	int fd = mkstemp(tmpl); /* mode 0600: no execute bit */
	if (fd >= 0)
		close(fd);
	char *argv2[] = {"x", NULL};
	sp_spawn_opts o = {.path = tmpl};
	is_int(sp_spawn(&c, argv2, &o, &err), -1, "a file that is not executable");
	is_int(err.errnum, EACCES, "with EACCES");
	like_str(err.msg, tmpl, "the message names the path");
	unlink(tmpl);
	sp_child_free(&c);
	char *out = NULL, *eo = NULL;
	is_int(sp_run_cmd(argv, &out, &eo, 1000), -1, "sp_run_cmd: -1 when it cannot run");
	like_str(eo, "cannot execute", "and says why on its stderr");
	free(out);
	free(eo);
}

static void test_signal(void)
{
	sp_child c;
	sp_error err;
	char *argv[] = {"/bin/sh", "-c", "kill -9 $$", NULL};
	sp_spawn(&c, argv, NULL, &err);
	is_int(sp_child_wait(&c, sp_now_ns() + 10 * SP_NS_PER_S), 0, "a process that kills itself ended by itself");
	is_int(sp_child_code(&c), 128 + 9, "code 128+9");
	char d[128];
	sp_child_describe(&c, d, sizeof d);
	like_str(d, "signal 9", "described as signal 9");
	sp_child_free(&c);
}

static void test_deadline(void)
{
	sp_child c;
	sp_error err;
	/* a leader and two grandchildren in its group, all hanging */
	char *argv[] = {"/bin/sh", "-c", "sleep 60 & echo $!; sleep 60 & echo $!; wait", NULL};
	sp_spawn_opts o = {.capture_out = true};
	ok(sp_spawn(&c, argv, &o, &err) == 0, "spawn a hanging group");
	pid_t leader = c.pid;
	uint64_t t0 = sp_now_ns();
	/* wait for both pids to be printed */
	for (int i = 0; i < 500 && !(c.out_buf.data && strchr(strchr(c.out_buf.data, '\n') + 1, '\n')); i++)
		sp_child_poll(&c, 10);
	pid_t kids[4];
	int n = 0;
	pids_of(c.out_buf.data, kids, 4, &n);
	is_int(n, 2, "two grandchildren started");
	is_int(sp_child_wait(&c, sp_now_ns() + 300 * SP_NS_PER_MS), -ETIMEDOUT, "killed at the deadline");
	double ms = (double)(sp_now_ns() - t0) / 1e6;
	ok(ms < 5000, "well before the children would end (%.0f ms)", ms);
	ok(c.timed_out && c.reaped, "timed out, and reaped");
	is_int(sp_child_code(&c), 128 + 9, "the leader died of SIGKILL");
	char d[128];
	sp_child_describe(&c, d, sizeof d);
	like_str(d, "timed out after", "described as a timeout");
	for (int i = 0; i < n; i++)
		ok(dead(kids[i]), "grandchild %d of the group is dead too (seen in /proc)", (int)kids[i]);
	ok(dead(leader), "the leader is gone");
	sp_child_free(&c);

	char *out = NULL, *eo = NULL;
	char *argv2[] = {"/bin/sh", "-c", "echo partial; sleep 60", NULL};
	t0 = sp_now_ns();
	is_int(sp_run_cmd(argv2, &out, &eo, 300), -1, "sp_run_cmd: -1 on a timeout");
	ok((double)(sp_now_ns() - t0) / 1e6 < 5000, "it returns at the deadline");
	is_str(out, "partial\n", "what it printed before is kept");
	like_str(eo, "timed out after", "the timeout is named on its stderr");
	free(out);
	free(eo);
}

static void test_stragglers(void)
{
	sp_child c;
	sp_error err;
	char *argv[] = {"/bin/sh", "-c", "sleep 60 & echo $!", NULL};
	sp_spawn_opts o = {.capture_out = true};
	sp_spawn(&c, argv, &o, &err);
	uint64_t t0 = sp_now_ns();
	is_int(sp_child_wait(&c, sp_now_ns() + 20 * SP_NS_PER_S), 0, "the leader ends by itself");
	ok((double)(sp_now_ns() - t0) / 1e6 < 5000, "wait does not hang on the straggler holding stdout");
	pid_t kid[2];
	int n;
	pids_of(c.out_buf.data, kid, 2, &n);
	is_int(n, 1, "one straggler");
	ok(n == 1 && dead(kid[0]), "the straggler left in the group is killed when the leader exits");
	sp_child_free(&c);

	char *argv2[] = {"/bin/sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!", NULL};
	sp_spawn_opts o2 = {.capture_out = true, .keep_group = true};
	sp_spawn(&c, argv2, &o2, &err);
	sp_child_wait(&c, sp_now_ns() + 20 * SP_NS_PER_S);
	pids_of(c.out_buf.data, kid, 2, &n);
	ok(n == 1 && kill(kid[0], 0) == 0, "keep_group: the group's other member survives");
	if (n == 1)
		kill(kid[0], SIGKILL);
	sp_child_free(&c);
}

static void test_bounds(void)
{
	sp_child c;
	sp_error err;
	char *argv[] = {"/bin/sh", "-c", "yes | head -c 100000", NULL};
	sp_spawn_opts o = {.capture_out = true, .out_max = 10};
	sp_spawn(&c, argv, &o, &err);
	is_int(sp_child_wait(&c, sp_now_ns() + 10 * SP_NS_PER_S), 0, "a bounded stream is drained to the end");
	is_int(c.out_buf.len, 10, "only the bound is kept");
	ok(c.out_buf.overflow, "and the overflow is flagged");
	is_int(sp_child_code(&c), 0, "the child was not killed");
	sp_child_free(&c);

	char *argv2[] = {"yes", NULL};
	sp_spawn_opts o2 = {.capture_out = true, .out_max = 4096, .overflow_kills = true};
	sp_spawn(&c, argv2, &o2, &err);
	is_int(sp_child_wait(&c, sp_now_ns() + 10 * SP_NS_PER_S), 0, "overflow_kills: ends before the deadline");
	ok(c.overflowed && sp_child_code(&c) == 128 + 9, "killed for its output");
	sp_child_free(&c);
}

struct sink_ctx {
	size_t bytes[3];
};
static void sink(void *ctx, int stream, const char *buf, size_t len)
{
	(void)buf;
	((struct sink_ctx *)ctx)->bytes[stream] += len;
}

static void test_sink(void)
{
	sp_child c;
	sp_error err;
	struct sink_ctx s = {{0}};
	char *argv[] = {"/bin/sh", "-c", "head -c 200000 /dev/zero; printf 123 >&2", NULL};
	sp_spawn_opts o = {.capture_out = true, .capture_err = true, .sink = sink, .sink_ctx = &s};
	sp_spawn(&c, argv, &o, &err);
	sp_child_wait(&c, sp_now_ns() + 10 * SP_NS_PER_S);
	is_int(s.bytes[1], 200000, "the sink saw all of stdout");
	is_int(s.bytes[2], 3, "and all of stderr");
	ok(c.out_buf.data == NULL, "nothing buffered when a sink is given");
	sp_child_free(&c);
}

static void test_free_kills(void)
{
	sp_child c;
	sp_error err;
	char *argv[] = {"/bin/sh", "-c", "echo ready; sleep 60 & sleep 60", NULL};
	sp_spawn_opts o = {.capture_out = true};
	sp_spawn(&c, argv, &o, &err);
	is_int(sp_child_read_until(&c, "ready", sp_now_ns() + 10 * SP_NS_PER_S), 1, "read_until sees the marker");
	pid_t leader = c.pid;
	sp_child_signal(&c, SIGSTOP);
	is_int(sp_child_poll(&c, 50), 0, "stopped, still running");
	sp_child_free(&c);
	ok(dead(leader), "sp_child_free kills and reaps a running (even stopped) child");
	is_int(c.pid, -1, "and leaves an empty child");
	is_int(sp_child_signal(&c, SIGKILL), -ESRCH, "an empty child cannot be signalled");
}

/* seccomp_prog: the child execs under the filter (mkdir and mkdirat refused with EPERM); we stay unfiltered */
static void test_seccomp(void)
{
	if (geteuid() != 0) {
		printf("ok %d # SKIP loading a filter without no_new_privs needs root\n", ++tap_n);
		return;
	}
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mkdir, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mkdirat, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = {.len = SP_ARRAY_SIZE(f), .filter = f};
	char dir[64];
	snprintf(dir, sizeof dir, "/tmp/sp-test-spawn-seccomp.%d", (int)getpid());
	_cleanup_free_ char *script = sp_xasprintf("mkdir %s && echo made || echo refused", dir);
	char *const argv[] = {"/bin/sh", "-c", script, NULL};
	sp_spawn_opts o = {.capture_out = true, .seccomp_prog = &prog};
	sp_child c;
	sp_error err = {0};
	ok(sp_spawn(&c, argv, &o, &err) == 0, "spawn under a filter");
	sp_child_wait(&c, sp_now_ns() + 10 * SP_NS_PER_S);
	like_str(c.out_buf.data ? c.out_buf.data : "", "refused", "the child's mkdir is refused by the filter");
	sp_child_free(&c);
	struct stat st;
	ok(stat(dir, &st) < 0, "nothing was made");
	ok(mkdir(dir, 0700) == 0 && rmdir(dir) == 0, "the parent is not filtered");
}

int main(void)
{
	int fds = count_fds();
	test_capture();
	test_stdin();
	test_exec_failure();
	test_signal();
	test_deadline();
	test_stragglers();
	test_bounds();
	test_sink();
	test_free_kills();
	test_seccomp();
	is_int(count_fds(), fds, "no descriptor left open");
	return done_testing();
}
