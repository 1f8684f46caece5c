/* Helpers shared by checks: mountinfo, unique probe names, kernel version,
 * capability names, running a probe function in a bounded child. */
#ifndef SP_PROBE_H
#define SP_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/caps.h"
#include "core/check.h"
#include "core/mountinfo.h" /* sp_mount, sp_mountinfo_each, sp_mountinfo_find */
#include "core/outcome.h"
#include "core/spawn.h" /* sp_fork_piped, sp_child_call */

/* "dir/.sandprobe-PID-N-RAND": unique, for O_CREAT|O_EXCL probes */
void sp_probe_name(char *buf, size_t size, const char *dir);

/* kernel version as major*10000+minor*100+patch (0 if unknown) */
unsigned sp_kernel_version(void);

/* A sequence of probes run in as few children as possible: a child runs
 * probes next..n-1 in order and reports each before the next; when a filter
 * kills it (or it hangs), the probe it was in is the first unreported one,
 * and a new child resumes after it. */
#define SP_PROBE_SEQ_REC_MAX 256
typedef struct sp_probe_seq {
	size_t n;            /* probes 0 .. n-1 */
	size_t rec_size;     /* bytes of one probe's record, at most SP_PROBE_SEQ_REC_MAX */
	unsigned timeout_ms; /* each child's bound */
	/* in the child: run probe i, fill rec (rec_size bytes, zeroed) */
	void (*run)(size_t i, void *rec, void *arg);
	/* in the parent: probe i's record */
	void (*got)(size_t i, const void *rec, void *arg);
	/* in the parent: the child ended in probe i without reporting it. sig is
	 * the signal that killed it (0 when it exited, or hung and was killed at
	 * the bound); timed_out when the bound ran out. Return true to resume
	 * with probe i + 1, false to stop. */
	bool (*lost)(size_t i, int sig, bool timed_out, void *arg);
	void *arg;
} sp_probe_seq;
/* Returns 0, or -1 with o when a pipe or child cannot be made (o->errnum its
 * errno; the probes not yet run are then neither reported nor lost) or the
 * record is over SP_PROBE_SEQ_REC_MAX (EINVAL). */
int sp_probe_seq_run(const sp_probe_seq *s, sp_outcome *o);

/* For a probe child about to mount: unshare a mount namespace and make every
 * mount in it private, so nothing it mounts can propagate out. Best effort:
 * when unshare is refused, the caller goes on in its own namespace. */
void sp_private_mountns(void);

/* For a policy type's parser: "'NAME' is not WHAT (a, b, c)" in o, the
 * known names being name_at(0 .. n-1). Returns -1. */
int sp_not_one_of(const char *name, const char *what, const char *(*name_at)(size_t i), size_t n, sp_outcome *o);

/* errno name ("EPERM"), never NULL */
const char *sp_errname(int e);

/* Create a private directory (mode 0700) for probes under the first
 * writable of fs.writable, /tmp, /dev/shm, /var/tmp, /run. 0, or -1 with o
 * (o->errnum the last mkdtemp's errno, o->why its text). */
int sp_private_dir(const sp_ctx *ctx, char *out, size_t size, sp_outcome *o);
/* Remove the private directory and what is in it (one level); proves it
 * is gone. 0, or -1 with o (o->why the error's text; EEXIST when it is
 * still there). */
int sp_private_dir_remove(const char *dir, sp_outcome *o);

/* Open path for writing without O_TRUNC or O_CREAT (never changes it), and
 * write zero bytes when write0. Returns 1 when the open (and the zero-byte
 * write) succeeded, 0 when refused (*err set), -1 when absent (*err ENOENT). */
int sp_write_probe(const char *path, bool write0, int *err);

/* Create a new file in dir (a unique sp_probe_name, exclusive create, no
 * byte written) and remove it at once; its name is left in name. Returns 1
 * when the create succeeded and the removal is proven, 0 when the create
 * was refused (*err set), -1 when the file was created but could not be
 * removed. */
int sp_create_probe(const char *dir, char *name, size_t size, int *err);

/* current effective capability mask (/proc/self/status CapEff), 0 on error */
uint64_t sp_cap_eff(void);
static inline bool sp_has_cap(unsigned cap) { return (sp_cap_eff() >> cap) & 1u; }
/* seccomp mode from /proc/self/status (0, 1, 2), -1 if unknown */
int sp_seccomp_mode(void);
/* NoNewPrivs, from prctl */
bool sp_no_new_privs(void);
/* is id (as seen inside) mapped in /proc/self/{uid,gid}_map? */
bool sp_id_mapped(unsigned id, bool gid);
/* an id other than the caller's that is mapped (for setuid/chown probes),
 * or -1 when only the caller's is mapped */
long sp_other_mapped_id(unsigned self, bool gid);
/* is a list-valued policy key containing item (case-sensitive)? */
bool sp_policy_list_has(const sp_ctx *ctx, const char *key, const char *item);

/* Compile a policy's extended regex (regcomp(3) flags given): 0, or -1 with
 * o's reason ("bad regex: ..."). A pattern whose counted or stacked repetitions
 * would make glibc's compiler build more than SP_REGEX_MAX_NODES nodes (it
 * copies them out: "a{1,255}{1,255}", "a++++...") is refused first, since
 * its compile time grows exponentially and the policy loader runs it. */
#define SP_REGEX_MAX_NODES 4096
struct re_pattern_buffer;
int sp_regex_compile(struct re_pattern_buffer *re, const char *pattern, int flags, sp_outcome *o);
/* Is the boolean policy key (default true) required? Sets r's expected
 * text to expected when it is, else to "any (not required by policy)". */
bool sp_expect_required(const sp_ctx *ctx, sp_result *r, const char *key, const char *expected);

/* One-pass scan for setuid, setgid (with group exec) and file-capability
 * (security.capability) files over every mount that honours setuid (not
 * nosuid, not a pseudo filesystem), below the given roots, bounded in time,
 * on up to `threads` threads. */
typedef struct sp_scan_opts {
	char *const *roots;   /* default "/" when nroots == 0 */
	size_t nroots;
	uint64_t budget_ns;   /* 0: unbounded */
	unsigned threads;     /* 1 or 2 */
	bool all_mounts;      /* also walk nosuid mounts (benchmarks, audits) */
	bool fcaps;           /* look for file capabilities too */
} sp_scan_opts;

typedef struct sp_scan_hit {
	char path[256];
	unsigned mode, uid, gid;
	bool fcap;
} sp_scan_hit;

typedef struct sp_scan_result {
	uint64_t files, dirs, errors, elapsed_ns;
	size_t suid, sgid, fcap;
	size_t nhits;             /* hits recorded (at most 64) */
	sp_scan_hit hits[64];
	size_t mounts_walked, mounts_skipped;
	bool over_budget;
	char last_dir[256];       /* where the scan was when the budget ran out */
} sp_scan_result;

/* 0, or -errno when mountinfo cannot be read */
int sp_suid_scan(const sp_scan_opts *o, sp_scan_result *res);

/* Run path (no arguments, an empty environment) in a child and wait: its
 * exit status (the set-user-ID probe's: the low byte of its euid), -2 with
 * errno when the exec itself was refused (EACCES on a noexec mount), -1
 * with errno when there is no answer. For sp_child_call: a is a struct
 * sp_exec_arg. */
struct sp_exec_arg {
	const char *path;
};
long sp_exec_status(void *a);

#endif
