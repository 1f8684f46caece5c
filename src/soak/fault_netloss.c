/* F06, bounded connection loss: instead of terminating the egress proxy,
 * the path to it is cut for a bounded window and then restored. The cut is
 * made by a fault proxy the run owns in front of the proxy (`sandprobe soak
 * fault-proxy`, its mode file under the state dir): the runner writes the
 * fault's mode (disconnect: every new connection is reset; stall: requests
 * are relayed, answers never) and restores the file's former content when
 * the window ends, while the workload's recover steps run (so that a recover
 * step can show the failure, expect: fail, and a later one the recovery).
 * Ground truth is the runner's own: an HTTP request over loopback to the
 * path's port must get an answer (any bytes) before the cut (else nothing
 * is cut), must show the cut within rto_ms after it (disconnect: reset;
 * stall: connected and silent, which the proxy behind being down never
 * gives), and must get an answer again within rto_ms of the restore (the
 * record fails otherwise, whatever the workload's checks said). Undoable: the cut lives
 * in the fault proxy, a process of the run that dies with it, and in a file
 * under the state dir; the runner restores the file on every path out of
 * the window (end, run stopping) and nothing of it is on the host. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "soak/run.h"

#define NL_PROBE_MS 1000

static void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

enum { NL_ERR = -1,
       NL_ANSWER = 1,
       NL_SILENT,
       NL_CLOSED };

/* What a request to 127.0.0.1:port gets within NL_PROBE_MS: NL_ANSWER (any
 * bytes), NL_SILENT (connected, the request sent, no byte and no close),
 * NL_CLOSED (refused, reset or closed), NL_ERR (no socket). Loopback only. */
static int probe_path(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return NL_ERR;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int res = NL_CLOSED;
	int rc = connect(fd, (struct sockaddr *)&a, sizeof a);
	if (rc < 0 && errno == EINPROGRESS) {
		struct pollfd pf = {.fd = fd, .events = POLLOUT};
		int err = 0;
		socklen_t el = sizeof err;
		rc = poll(&pf, 1, NL_PROBE_MS) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == 0 && err == 0 ? 0 : -1;
	}
	static const char req[] = "GET http://127.0.0.1/ HTTP/1.0\r\n\r\n";
	if (rc == 0 && send(fd, req, sizeof req - 1, MSG_NOSIGNAL) == (ssize_t)(sizeof req - 1)) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		char c;
		int pr = poll(&pf, 1, NL_PROBE_MS);
		if (pr == 0)
			res = NL_SILENT;
		else if (pr == 1 && recv(fd, &c, 1, 0) == 1)
			res = NL_ANSWER;
	}
	close(fd);
	return res;
}

/* the cut is proven by what only the cut gives: a reset for disconnect, a
 * connection that stays open and silent for stall (a stall cannot be taken
 * for the proxy behind being down: that is a reset) */
static bool is_cut(const char *mode, int probe)
{
	return !strcmp(mode, "stall") ? probe == NL_SILENT : probe == NL_CLOSED;
}

static int write_mode(const char *path, const char *text, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	int rc = sp_write_all(fd, text, n);
	if (close(fd) < 0)
		rc = -1;
	return rc;
}

struct restorer {
	struct run *r;
	const char *path;
	char old[256]; /* the mode file's content before the cut */
	ssize_t oldn;  /* -1: there was none (the file is removed) */
	uint64_t deadline;
	uint64_t restored_ns;
	int rc;
};

static void *restore_at_deadline(void *arg)
{
	struct restorer *x = arg;
	while (sp_now_ns() < x->deadline && !atomic_load(&x->r->sch.abort_ops))
		nap_ms(10);
	x->rc = x->oldn < 0 ? (unlink(x->path) == 0 || errno == ENOENT ? 0 : -1) : write_mode(x->path, x->old, (size_t)x->oldn);
	x->restored_ns = sp_now_ns();
	return NULL;
}

void sp_soak_inject_netloss(struct run *r, struct scen_state *st, unsigned long long gen)
{
	const sp_soak_wfault *f = &st->sc->fault;
	char idbuf[96], genbuf[32], target[240];
	sp_soak_vars v;
	sp_soak_vars_for(r, st, gen, &v, idbuf, sizeof idbuf, genbuf, sizeof genbuf);
	uint64_t aft = sp_now_ns() + (uint64_t)f->after_ms * 1000000ull;
	while (sp_now_ns() < aft && !atomic_load(&r->sch.abort_ops))
		nap_ms(20);
	if (atomic_load(&r->sch.abort_ops))
		return;
	char *portfile = sp_expand(f->portfile, &v), *modefile = sp_expand(f->modefile, &v);
	int port = sp_soak_port_read(portfile);
	const char *why = NULL;
	struct restorer x = {.r = r, .path = modefile, .oldn = -1};
	if (port < 0)
		why = "portfile-invalid";
	else if (!modefile || !sp_startswith(modefile, r->state_dir) || modefile[strlen(r->state_dir)] != '/')
		why = "modefile-outside-state"; /* the runner writes only under its own state dir */
	else {
		/* the path must answer before the cut (waiting up to the RTO: it may be recovering from another fault) */
		uint64_t deadline = sp_now_ns() + (uint64_t)f->rto_ms * 1000000ull;
		int pr;
		while ((pr = probe_path(port)) != NL_ANSWER && sp_now_ns() < deadline && !atomic_load(&r->sch.abort_ops))
			nap_ms(50);
		if (pr != NL_ANSWER)
			why = "path-not-answering"; /* nothing to cut: not injected */
	}
	snprintf(target, sizeof target, "path:127.0.0.1:%d(%s) cut:%s", port, modefile ? modefile : "?", f->cut);
	uint64_t t = sp_now_ns(), t_closed = t;
	bool cut = false;
	if (!why) {
		x.oldn = sp_read_file(modefile, x.old, sizeof x.old);
		if (x.oldn < 0 && errno != ENOENT)
			why = "modefile-unreadable";
		else if (x.oldn >= (ssize_t)sizeof x.old - 1)
			why = "modefile-too-long";
	}
	if (!why) {
		char line[32];
		int n = snprintf(line, sizeof line, "%s\n", f->cut);
		t = sp_now_ns();
		if (write_mode(modefile, line, (size_t)n) < 0)
			why = "modefile-unwritable";
	}
	char code[64];
	snprintf(code, sizeof code, "%s", why ? why : f->cut);
	pthread_t th;
	bool restoring = false;
	if (!why) {
		/* the route must close: no answer within the RTO */
		uint64_t deadline = t + (uint64_t)f->rto_ms * 1000000ull;
		while (!(cut = is_cut(f->cut, probe_path(port))) && sp_now_ns() < deadline && !atomic_load(&r->sch.abort_ops))
			nap_ms(20);
		t_closed = sp_now_ns();
		snprintf(code, sizeof code, "%s/path-%s", f->cut, cut ? "cut" : "still-open");
		size_t tl = strlen(target);
		snprintf(target + tl, sizeof target - tl, cut ? "-closed-after:%llums" : "-still-open",
			 (unsigned long long)((t_closed - t) / 1000000ull));
		if (!cut)
			sp_soak_note(&r->notes, "fault %s: 127.0.0.1:%d still answers after the path was cut (%s)", f->id, port, f->cut);
		/* the window: restored at its end (at once when the cut did not take, or the run stops) */
		x.deadline = cut ? t + (uint64_t)f->window_ms * 1000000ull : 0;
		restoring = pthread_create(&th, NULL, restore_at_deadline, &x) == 0;
		if (!restoring)
			restore_at_deadline(&x);
	}
	sp_soak_record_op(r, st, f->id, why ? OP_FAIL : OP_FAULT, t, t_closed, gen, code);
	bool ok = sp_soak_run_steps(r, st, &st->sc->recover, gen); /* during the window, and after it */
	if (restoring)
		pthread_join(th, NULL);
	uint64_t end = sp_now_ns(), from = x.restored_ns ? x.restored_ns : end;
	if (!why) {
		size_t tl = strlen(target);
		if (x.rc < 0) {
			ok = false;
			snprintf(target + tl, sizeof target - tl, " restore-failed");
			sp_soak_note(&r->notes, "fault %s: the mode file %s could not be restored", f->id, modefile);
		} else {
			/* the runner's own proof that the path is back */
			uint64_t deadline = from + (uint64_t)f->rto_ms * 1000000ull;
			bool back;
			while (!(back = probe_path(port) == NL_ANSWER) && sp_now_ns() < deadline &&
			       !atomic_load(&r->sch.abort_ops))
				nap_ms(20);
			end = sp_now_ns();
			snprintf(target + tl, sizeof target - tl, " cut-for:%llums path-%s-after:%llums",
				 (unsigned long long)((from - t) / 1000000ull), back ? "reopened" : "not-reopened",
				 (unsigned long long)((end - from) / 1000000ull));
			if (!back) {
				ok = false;
				sp_soak_note(&r->notes, "fault %s: 127.0.0.1:%d does not answer after the path was restored", f->id, port);
			}
		}
	}
	/* recovery: from the cut to the path answering again, the window included
	 * (faults.tsv's recovery_ms is ended - started), within rto_ms */
	long long rec_ms = (long long)((end - t) / 1000000ull);
	sp_soak_record_fault(&r->rec, f, target, sp_soak_ns_to_ts(r, t), sp_soak_ns_to_ts(r, end), rec_ms,
			     !why && cut && ok && rec_ms <= f->rto_ms);
	free(portfile);
	free(modefile);
}
