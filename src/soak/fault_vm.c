/* F08: reboot of an isolated canary VM. The workload boots a qemu VM the
 * run owns (its pid file, its QMP socket and its disk image under the
 * run's state dir); after the fault's step the injector
 *   1. reads the pid file, pins the qemu process with a pidfd and proves
 *      it owned (else nothing is injected: target-gone, target-not-owned);
 *   2. reads the canary's state with the workload's `state` command (lines
 *      the VM keeps on its own disk; none: nothing to reconcile, nothing
 *      injected);
 *   3. resets the VM through its QMP socket (`system_reset`: a hard reset
 *      of the virtual machine, as the reset button does, initiated from the
 *      host; the qemu process lives on and the guest boots again from its
 *      disk) and waits for qemu's own RESET event as proof that it happened;
 *   4. runs the recover steps (the workload waits for the guest to have
 *      booted again), then reads the state again.
 * The record passes only when the reset happened, the recover steps
 * succeeded inside the RTO, the state after equals the state before (what
 * the canary wrote before the reboot is read back after it), and the pinned
 * qemu process is still the one the pid file names. Nothing is ever
 * signalled: the pidfd is what proves the process is the same one (a pid
 * reused by another process would fail the pidfd poll). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/outcome.h"
#include "soak/run.h"

#define QMP_TIMEOUT_MS 5000
#define QMP_BUF 65536

/* QMP over a unix socket: a line-oriented JSON exchange, bounded in size and time */
struct qmp {
	int fd;
	char buf[QMP_BUF];
	size_t len;
	uint64_t deadline;
};

/* the next line (NUL-terminated in q->buf, consumed by the next call): 1, 0 timeout/EOF/overflow */
static int qmp_line(struct qmp *q, char **line, size_t *consumed)
{
	if (*consumed) {
		memmove(q->buf, q->buf + *consumed, q->len - *consumed);
		q->len -= *consumed;
		*consumed = 0;
	}
	for (;;) {
		char *nl = memchr(q->buf, '\n', q->len);
		if (nl) {
			*nl = '\0';
			*line = q->buf;
			*consumed = (size_t)(nl - q->buf) + 1;
			return 1;
		}
		uint64_t now = sp_now_ns();
		if (now >= q->deadline || q->len >= sizeof q->buf - 1)
			return 0;
		struct pollfd pf = {.fd = q->fd, .events = POLLIN};
		int pr = poll(&pf, 1, (int)((q->deadline - now) / 1000000ull) + 1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			return 0;
		ssize_t n = read(q->fd, q->buf + q->len, sizeof q->buf - 1 - q->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		q->len += (size_t)n;
	}
}

/* send cmd, then read lines until its answer; events seen on the way are
 * checked for `event` (when not NULL: *seen set when one names it) */
static int qmp_exec(struct qmp *q, size_t *consumed, const char *cmd, const char *event, bool *seen, sp_outcome *o)
{
	if (sp_write_all(q->fd, cmd, strlen(cmd)) < 0) {
		int e = errno;
		return sp_why_errno(o, e, "qmp-write-%s", strerrorname_np(e) ? strerrorname_np(e) : "error");
	}
	char *line;
	while (qmp_line(q, &line, consumed) == 1) {
		if (event && strstr(line, "\"event\"") && strstr(line, event))
			*seen = true;
		if (strstr(line, "\"return\""))
			return 0;
		if (strstr(line, "\"error\""))
			return sp_why(o, "qmp-error");
	}
	return sp_why(o, "qmp-no-answer");
}

/* reset the VM behind the QMP socket at path; 0 with the RESET event seen, -1 (o: a short code) */
static int qmp_reset(const char *path, sp_outcome *o)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if (!path || strlen(path) >= sizeof a.sun_path)
		return sp_why(o, "qmp-path-invalid");
	memcpy(a.sun_path, path, strlen(path) + 1);
	struct qmp *q = sp_xcalloc(1, sizeof *q);
	int rc = -1;
	q->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	q->deadline = sp_now_ns() + (uint64_t)QMP_TIMEOUT_MS * 1000000ull;
	if (q->fd < 0 || connect(q->fd, (struct sockaddr *)&a, sizeof a) < 0) {
		sp_why(o, "qmp-unreachable");
		goto out;
	}
	size_t consumed = 0;
	char *line;
	if (qmp_line(q, &line, &consumed) != 1 || !strstr(line, "\"QMP\"")) {
		sp_why(o, "qmp-no-greeting");
		goto out;
	}
	bool seen = false;
	if (qmp_exec(q, &consumed, "{\"execute\":\"qmp_capabilities\"}\n", NULL, NULL, o) < 0 ||
	    qmp_exec(q, &consumed, "{\"execute\":\"system_reset\"}\n", "\"RESET\"", &seen, o) < 0)
		goto out;
	/* the RESET event may follow the answer */
	while (!seen && qmp_line(q, &line, &consumed) == 1)
		seen = strstr(line, "\"event\"") && strstr(line, "\"RESET\"");
	if (!seen) {
		sp_why(o, "qmp-no-reset-event");
		goto out;
	}
	rc = 0;
out:
	if (q->fd >= 0)
		close(q->fd);
	free(q);
	return rc;
}

static bool pidfd_alive(int pfd)
{
	struct pollfd pf = {.fd = pfd, .events = POLLIN};
	return pfd >= 0 && poll(&pf, 1, 0) == 0;
}

static long read_pid(const char *path)
{
	char buf[64];
	if (!path || sp_read_file(path, buf, sizeof buf) <= 0)
		return -1;
	char *end;
	long pid = strtol(buf, &end, 10);
	return end == buf || pid <= 1 ? -1 : pid;
}

void sp_soak_inject_vm_fault(struct run *r, struct scen_state *st, unsigned long long gen)
{
	const sp_soak_wfault *f = &st->sc->fault;
	char idbuf[96], genbuf[32], target[256], why[48] = "";
	sp_soak_vars v;
	sp_soak_vars_for(r, st, gen, &v, idbuf, sizeof idbuf, genbuf, sizeof genbuf);
	if (f->after_ms > 0) {
		uint64_t end = sp_now_ns() + (uint64_t)f->after_ms * 1000000ull;
		while (!atomic_load(&r->sch.abort_ops) && sp_now_ns() < end) {
			struct timespec ts = {0, 50000000L};
			nanosleep(&ts, NULL);
		}
	}
	if (atomic_load(&r->sch.abort_ops))
		return;
	char *pidfile = sp_expand(f->pidfile, &v);
	char *qmp = sp_expand(f->qmp, &v);
	long pid = read_pid(pidfile);
	int pfd = -1;
	if (pid < 0 || pid == getpid())
		snprintf(why, sizeof why, "%s", pidfile && access(pidfile, R_OK) == 0 ? "pidfile-invalid" : "pidfile-unreadable");
	snprintf(target, sizeof target, "vm:pid:%ld(%s)", pid, pidfile ? pidfile : "?");
	if (!why[0]) {
		pfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
		if (pfd < 0)
			snprintf(why, sizeof why, "target-gone");
		else if (!(sp_sampler_owner(r->smp.sampler, (pid_t)pid) & (SP_OWN_TREE | SP_OWN_ENV | SP_OWN_CGROUP)))
			snprintf(why, sizeof why, "target-not-owned");
	}
	sp_strv before = {0}, after = {0};
	if (!why[0]) {
		if (sp_soak_command_lines(r, &f->state, &v, &before) < 0)
			snprintf(why, sizeof why, "state-unreadable");
		else if (!before.n)
			snprintf(why, sizeof why, "no-state"); /* nothing to reconcile: not injected */
		else {
			size_t tl = strlen(target);
			snprintf(target + tl, sizeof target - tl, " state:%zu", before.n);
		}
	}
	if (!why[0] && !pidfd_alive(pfd))
		snprintf(why, sizeof why, "target-gone");
	uint64_t t = sp_now_ns();
	sp_outcome qo = {0};
	if (!why[0] && qmp_reset(qmp, &qo) < 0)
		snprintf(why, sizeof why, "%s", qo.why[0] ? qo.why : "qmp-failed");
	uint64_t t_reset = sp_now_ns();
	bool injected = !why[0];
	sp_soak_record_op(r, st, f->id, injected ? OP_FAULT : OP_FAIL, t, t_reset, gen, injected ? "system_reset" : why);
	if (!strcmp(why, "target-not-owned")) {
		/* the workload pointed the fault outside the run: a safety invariant */
		sp_soak_note(&r->notes, "fault %s target %s is not owned by the run; stopping", f->id, target);
		sp_soak_set_stop(&r->sch, 2, "invariant");
	}
	bool ok = sp_soak_run_steps(r, st, &st->sc->recover, gen);
	uint64_t end = sp_now_ns();
	size_t tl = strlen(target);
	if (injected) {
		int lr = sp_soak_command_lines(r, &f->state, &v, &after);
		bool same = lr == 0 && after.n == before.n;
		for (size_t i = 0; same && i < after.n; i++)
			same = !strcmp(after.v[i], before.v[i]);
		if (lr < 0)
			snprintf(target + tl, sizeof target - tl, " state:unreadable-after");
		else
			snprintf(target + tl, sizeof target - tl, same ? " state:%zu-reconciled" : " state:before=%zu,after=%zu,differ",
				 before.n, after.n);
		if (!same) {
			ok = false;
			sp_soak_note(&r->notes, "fault %s: the canary's state after the reboot differs from the one before it", f->id);
		}
		/* the same qemu process, still the one the pid file names (never signalled) */
		tl = strlen(target);
		bool alive = pidfd_alive(pfd), same_pid = read_pid(pidfile) == pid;
		snprintf(target + tl, sizeof target - tl, " vm:%s", alive && same_pid ? "same-process" : alive ? "pidfile-changed"
													       : "gone");
		if (!alive || !same_pid) {
			ok = false;
			sp_soak_note(&r->notes, "fault %s: the VM's qemu process %ld %s after the reset", f->id, pid,
				     alive ? "is no longer the one its pid file names" : "is gone");
		}
	}
	long long rec_ms = (long long)((end - t) / 1000000ull);
	sp_soak_record_fault(&r->rec, f, target, sp_soak_ns_to_ts(r, t), sp_soak_ns_to_ts(r, end), rec_ms,
			     injected && ok && rec_ms <= f->rto_ms);
	if (pfd >= 0)
		close(pfd);
	sp_strv_free(&before);
	sp_strv_free(&after);
	free(pidfile);
	free(qmp);
}
