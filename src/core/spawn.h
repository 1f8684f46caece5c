/* Child processes with a deadline: spawn an argument vector as the leader of
 * its own process group, with stdin, stdout and stderr each either a pipe to
 * us or /dev/null, read its output (bounded), and at the deadline kill the
 * whole group; then reap it and say how it ended.
 *
 * The group is signalled only while its leader is unreaped (a zombie still
 * pins its pid, so the group id cannot name anyone else), and when the
 * leader exits, what is left in its group is killed before the reap unless
 * the caller keeps it (keep_group). A program that cannot be executed is an
 * error of sp_spawn() itself (ENOENT, EACCES ...), not an exit status 127.
 *
 *   sp_child c;
 *   sp_spawn_opts o = {.capture_out = true, .capture_err = true};
 *   if (sp_spawn(&c, argv, &o, &err) < 0) ...;
 *   sp_child_wait(&c, sp_now_ns() + 5 * SP_NS_PER_S);  // -ETIMEDOUT: killed
 *   ... c.out_buf.data, sp_child_code(&c) ...
 *   sp_child_free(&c);
 *
 * One-shot form: sp_run_cmd(argv, &out, &err, timeout_ms). */
#ifndef SP_SPAWN_H
#define SP_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "core/error.h"

#define SP_NS_PER_MS 1000000ull
#define SP_NS_PER_S 1000000000ull

/* output of one stream, NUL-terminated; bytes beyond max are dropped */
typedef struct sp_spawn_buf {
	char *data; /* NULL until something arrived */
	size_t len, cap, max;
	bool overflow; /* something was dropped */
} sp_spawn_buf;

typedef struct sp_spawn_opts {
	bool pipe_in;      /* stdin is a pipe (child->in), else /dev/null */
	bool capture_out;  /* stdout is a pipe to us, else /dev/null */
	bool capture_err;  /* stderr is a pipe to us, else /dev/null */
	bool err_to_out;   /* stderr goes where stdout goes (one stream, in order) */
	size_t out_max;    /* stdout bound in bytes (0: 16 MiB) */
	size_t err_max;    /* stderr bound in bytes (0: 1 MiB) */
	bool overflow_kills; /* stdout past out_max kills the group at once (stderr is only cut) */
	const char *path;  /* the program to execute; NULL: argv[0], searched in $PATH */
	char *const *envp; /* NULL: our environment */
	bool die_with_parent; /* the child gets SIGKILL when we die (PR_SET_PDEATHSIG) */
	bool keep_group;   /* leave the group's other members alone when the leader exits */
	const struct rlimit *rlimit_nofile; /* the child's RLIMIT_NOFILE, set before exec (NULL: ours) */
	/* a seccomp filter (struct sock_fprog) loaded in the child right before exec (NULL: none); the
	 * caller has CAP_SYS_ADMIN or set no_new_privs */
	const void *seccomp_prog;
	/* when set, output goes here (stream 1 or 2) instead of the buffers */
	void (*sink)(void *ctx, int stream, const char *buf, size_t len);
	void *sink_ctx;
} sp_spawn_opts;

typedef struct sp_child {
	pid_t pid;         /* leader and process group id; -1 once reaped */
	int in, out, err;  /* our ends, -1 when closed or not piped */
	int pidfd;         /* pidfd of the leader, -1 when the kernel has none */
	sp_spawn_buf out_buf, err_buf;
	int status;        /* wait status, valid once reaped */
	bool reaped;
	bool timed_out;    /* killed at its deadline */
	bool overflowed;   /* killed because stdout went past its bound (overflow_kills) */
	bool keep_group;
	bool overflow_kills;
	void (*sink)(void *ctx, int stream, const char *buf, size_t len);
	void *sink_ctx;
	uint64_t start_ns, end_ns;
} sp_child;

/* an sp_child that owns nothing (safe to sp_child_free) */
void sp_child_init(sp_child *c);
/* 0, or -1 with err (pipes, fork, or exec: "cannot execute X: ...") */
int sp_spawn(sp_child *c, char *const argv[], const sp_spawn_opts *o, sp_error *err);
/* read output for at most timeout_ms (0: what is there now) and notice the
 * leader's exit without reaping it; 1: the leader has exited, 0: running,
 * -errno on a poll failure */
int sp_child_poll(sp_child *c, int timeout_ms);
/* read until stdout holds needle (1), both streams are at EOF (0), or the
 * deadline passes (-ETIMEDOUT); needle NULL: until EOF or the deadline */
int sp_child_read_until(sp_child *c, const char *needle, uint64_t deadline_ns);
/* signal the whole group (only while the leader is unreaped); 0 or -errno */
int sp_child_signal(sp_child *c, int sig);
/* close stdin, read output until the leader exits; at deadline_ns kill the
 * group (SIGKILL); then kill what is left in the group (unless keep_group),
 * read what remains and reap. 0: it ended by itself; -ETIMEDOUT: killed at
 * the deadline (reaped too); -1: it could not be reaped (still unkillable
 * 5 s after SIGKILL; sp_child_free tries again) */
int sp_child_wait(sp_child *c, uint64_t deadline_ns);
/* exit code, 128 + signal number, or -1 when not reaped */
int sp_child_code(const sp_child *c);
/* "exit 0", "signal 9 (Killed)", "timed out after 1500 ms (killed)" ... */
void sp_child_describe(const sp_child *c, char *buf, size_t size);
/* kill the group (when still unreaped), reap, close our ends, free the buffers */
void sp_child_free(sp_child *c);

/* run argv to completion within timeout_ms, capturing stdout and stderr
 * into new strings (either pointer may be NULL: discarded); the exit code,
 * 128 + signal, or -1 when it cannot run or was killed at the deadline */
int sp_run_cmd(char *const argv[], char **out, char **errout, unsigned timeout_ms);

/* A pipe (O_CLOEXEC) and a child: the child keeps the write end pfd[1],
 * the parent the read end pfd[0] (each closes the other end). Returns the
 * pid (0 in the child), or -errno with nothing left open. */
pid_t sp_fork_piped(int pfd[2]);

/* Outcome of a call made in a bounded child (sp_child_call). */
typedef struct sp_call {
	long ret;       /* the function's return value */
	int err;        /* errno after the call (0 when ret >= 0) */
	int sig;        /* signal that killed the child, 0 if it exited */
	bool timed_out; /* killed after timeout_ms */
	bool ran;       /* the child reported a result */
} sp_call;

/* Run fn(arg) in a forked child (timeout_ms bound) and hand back its return
 * value and errno. A SIGSYS kill (seccomp) is reported in ->sig. Returns 0,
 * or -errno when the child cannot be started. */
int sp_child_call(long (*fn)(void *arg), void *arg, unsigned timeout_ms, sp_call *out);

#endif
