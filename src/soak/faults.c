/* The fault injector. F01/F07 interrupt a step's own process group (the
 * runner's child, not yet reaped, so its pid cannot have been reused).
 * F02/F03 read a pid file, pin the process with a pidfd, prove it is owned,
 * note every process that descends from it, and only then signal it; after
 * the recover steps, the record passes only when they all succeeded inside
 * the RTO and none of the target's processes survived (a recover check of
 * the workload's own cannot pass a survivor: this is the runner's ground
 * truth, read from /proc and the pidfds).
 * F06 is F02/F03 aimed at the proxy the run's sandboxes egress through, with
 * the port as ground truth as well: before the signal the proxy's loopback
 * port must accept a connection (else nothing is injected and the record
 * fails), after it the port must refuse one within the RTO (the route is
 * closed), and after the recover steps it must accept again (the record
 * fails otherwise, whatever the workload's own checks said).
 * F04 is F03 aimed at a container daemon the run owns (its own root, state
 * and socket), with the daemon's task list as ground truth: the workload's
 * `tasks` command lists the tasks before the signal (none listed: nothing
 * is injected) and again after the recover steps; the record passes only
 * when the two lists are the same with no line twice (the running tasks
 * and their shims reconciled, nothing lost, nothing duplicated). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "soak/run.h"

/* F04/F09: the tasks command's lines */
static int list_tasks(struct run *r, const sp_soak_wfault *f, const sp_soak_vars *v, sp_strv *out)
{
	return sp_soak_command_lines(r, &f->tasks, v, out);
}

/* the processes of a fault target: pidfds of the target and its descendants */
struct victims {
	int *fd;
	pid_t *pid;
	size_t n;
};

static void victims_free(struct victims *v)
{
	for (size_t i = 0; i < v->n; i++)
		close(v->fd[i]);
	free(v->fd);
	free(v->pid);
	memset(v, 0, sizeof *v);
}

static unsigned long long start_time_of(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (sp_read_file(path, buf, sizeof buf) <= 0)
		return 0;
	const char *c = strrchr(buf, ')');
	for (int f = 2; c && f < 22; f++) /* field 22: starttime */
		c = strchr(c + 1, ' ');
	return c ? strtoull(c + 1, NULL, 10) : 0;
}

/* pin the target's descendants (each proven the same process after its
 * pidfd is open: same start time as in the scan) */
static void pin_descendants(struct run *r, pid_t target, struct victims *v)
{
	pid_t *pids = NULL;
	unsigned long long *starts = NULL;
	size_t n = sp_sampler_descendants(r->smp.sampler, target, &pids, &starts);
	v->fd = sp_xrealloc(v->fd, (v->n + n + 1) * sizeof *v->fd);
	v->pid = sp_xrealloc(v->pid, (v->n + n + 1) * sizeof *v->pid);
	for (size_t i = 0; i < n; i++) {
		int fd = (int)syscall(SYS_pidfd_open, pids[i], 0);
		if (fd < 0)
			continue;
		if (start_time_of(pids[i]) != starts[i]) {
			close(fd);
			continue;
		}
		v->fd[v->n] = fd;
		v->pid[v->n++] = pids[i];
	}
	free(pids);
	free(starts);
}

/* Wait until every pinned process has exited, at most until deadline;
 * survivors are killed (they descend from an owned target) and described. */
static size_t reap_survivors(struct run *r, struct victims *v, uint64_t deadline, char *desc, size_t descsz)
{
	for (;;) {
		size_t alive = 0;
		for (size_t i = 0; i < v->n; i++) {
			struct pollfd pf = {.fd = v->fd[i], .events = POLLIN};
			if (poll(&pf, 1, 0) == 0)
				alive++;
		}
		if (!alive || sp_now_ns() >= deadline || atomic_load(&r->sch.abort_ops))
			break;
		struct timespec ts = {0, 50000000L};
		nanosleep(&ts, NULL);
	}
	size_t survivors = 0, dl = 0;
	desc[0] = '\0';
	for (size_t i = 0; i < v->n; i++) {
		struct pollfd pf = {.fd = v->fd[i], .events = POLLIN};
		if (poll(&pf, 1, 0) != 0)
			continue;
		char path[64], comm[32] = "?";
		snprintf(path, sizeof path, "/proc/%d/comm", (int)v->pid[i]);
		if (sp_read_file(path, comm, sizeof comm) > 0)
			comm[strcspn(comm, "\n")] = '\0';
		if (survivors++ < 4 && dl + 1 < descsz)
			dl += (size_t)snprintf(desc + dl, descsz - dl, " survivor:%d(%s)", (int)v->pid[i], comm);
		syscall(SYS_pidfd_send_signal, v->fd[i], SIGKILL, NULL, 0);
	}
	return survivors;
}

static void recover_after_fault(struct run *r, struct scen_state *st, unsigned long long gen, const char *target,
				uint64_t fault_ns, bool injected, struct victims *v, int port, const sp_strv *tasks_before,
				const sp_soak_vars *vars)
{
	const sp_soak_wfault *f = &st->sc->fault;
	bool ok = sp_soak_run_steps(r, st, &st->sc->recover, gen);
	char desc[256] = "";
	size_t survivors = 0;
	if (v && v->n)
		survivors = reap_survivors(r, v, fault_ns + (uint64_t)f->rto_ms * 1000000ull, desc, sizeof desc);
	uint64_t end = sp_now_ns();
	if (port > 0 && injected) {
		/* F06: the runner's own proof that the route is back */
		bool back = sp_soak_port_accepts(port) == 1;
		size_t dl = strlen(desc);
		snprintf(desc + dl, sizeof desc - dl, " port:%d-%s", port, back ? "reopened" : "not-reopened");
		if (!back) {
			ok = false;
			sp_soak_note(&r->notes, "fault %s: port 127.0.0.1:%d does not accept a connection after the recover steps", f->id,
				     port);
		}
	}
	if (tasks_before && injected) {
		/* F04: the same tasks, each once, as before the restart */
		sp_strv after = {0};
		int lr = list_tasks(r, f, vars, &after);
		size_t dup = 0, dl = strlen(desc);
		for (size_t i = 1; i < after.n; i++)
			dup += !strcmp(after.v[i - 1], after.v[i]);
		bool same = lr == 0 && after.n == tasks_before->n && !dup;
		for (size_t i = 0; same && i < after.n; i++)
			same = !strcmp(after.v[i], tasks_before->v[i]);
		if (lr < 0)
			snprintf(desc + dl, sizeof desc - dl, " tasks:unreadable-after");
		else if (same)
			snprintf(desc + dl, sizeof desc - dl, " tasks:%zu-reconciled", after.n);
		else
			snprintf(desc + dl, sizeof desc - dl, " tasks:before=%zu,after=%zu,duplicated=%zu,differ", tasks_before->n,
				 after.n, dup);
		if (!same) {
			ok = false;
			sp_soak_note(&r->notes, "fault %s: the task list after the recovery differs from the one before it", f->id);
		}
		sp_strv_free(&after);
	}
	long long rec_ms = (long long)((end - fault_ns) / 1000000ull);
	char *t = sp_xasprintf("%s%s", target, desc);
	sp_soak_record_fault(&r->rec, f, t, sp_soak_ns_to_ts(r, fault_ns), sp_soak_ns_to_ts(r, end), rec_ms,
			     injected && ok && !survivors && rec_ms <= f->rto_ms);
	if (survivors)
		sp_soak_note(&r->notes, "fault %s: %zu process(es) of the target outlived the recovery:%s (killed)", f->id, survivors,
			     desc);
	free(t);
}

/* F02/F03/F04/F06: signal the owned process named by the pidfile */
static void inject_pidfile_fault(struct run *r, struct scen_state *st, unsigned long long gen)
{
	const sp_soak_wfault *f = &st->sc->fault;
	char idbuf[96], genbuf[32], target[200], buf[64];
	sp_soak_vars v;
	sp_soak_vars_for(r, st, gen, &v, idbuf, sizeof idbuf, genbuf, sizeof genbuf);
	if (f->after_ms > 0)
		sp_soak_sleep_unless_aborted(&r->sch, f->after_ms);
	if (atomic_load(&r->sch.abort_ops))
		return;
	char *pidfile = sp_expand(f->pidfile, &v);
	long pid = -1;
	const char *why = NULL;
	if (!pidfile || sp_read_file(pidfile, buf, sizeof buf) <= 0) {
		why = "pidfile-unreadable";
	} else {
		char *end;
		pid = strtol(buf, &end, 10);
		if (end == buf || pid <= 1 || pid == getpid())
			why = "pidfile-invalid";
	}
	int port = 0;
	bool f06 = !strcmp(f->id, "F06");
	if (!why && f06) {
		char *portfile = sp_expand(f->portfile, &v);
		port = sp_soak_port_read(portfile);
		free(portfile);
		if (port < 0)
			why = "portfile-invalid";
		else if (sp_soak_port_accepts(port) != 1)
			why = "port-not-listening"; /* nothing to cut: not injected */
	}
	snprintf(target, sizeof target, "pid:%ld(%s)", pid, pidfile ? pidfile : "?");
	if (port > 0) {
		size_t tl = strlen(target);
		snprintf(target + tl, sizeof target - tl, " port:%d", port);
	}
	sp_strv tasks = {0};
	bool f04 = !strcmp(f->id, "F04");
	if (!why && f04) {
		if (list_tasks(r, f, &v, &tasks) < 0)
			why = "tasks-unreadable";
		else if (!tasks.n)
			why = "no-tasks"; /* nothing to reconcile: not injected */
		else {
			size_t tl = strlen(target);
			snprintf(target + tl, sizeof target - tl, " tasks:%zu", tasks.n);
		}
	}
	struct victims vic = {0};
	if (!why) {
		int pfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
		if (pfd < 0) {
			why = "target-gone";
		} else {
			/* ownership proven after the pidfd pins the process, before the signal */
			int own = sp_sampler_owner(r->smp.sampler, (pid_t)pid);
			if (!(own & (SP_OWN_TREE | SP_OWN_ENV | SP_OWN_CGROUP))) {
				why = "target-not-owned";
				close(pfd);
			} else {
				pin_descendants(r, (pid_t)pid, &vic);
				if (syscall(SYS_pidfd_send_signal, pfd, f->signal, NULL, 0) < 0) {
					why = "signal-failed";
					close(pfd);
				} else {
					vic.fd = sp_xrealloc(vic.fd, (vic.n + 1) * sizeof *vic.fd);
					vic.pid = sp_xrealloc(vic.pid, (vic.n + 1) * sizeof *vic.pid);
					vic.fd[vic.n] = pfd; /* the target itself must be gone too */
					vic.pid[vic.n++] = (pid_t)pid;
				}
			}
		}
	}
	uint64_t t = sp_now_ns(), t_closed = t;
	char code[64];
	snprintf(code, sizeof code, "%s", why ? why : sigabbrev_np(f->signal));
	bool closed = true;
	if (!why && f06) {
		/* the route must close: the port refuses a connection within the RTO */
		uint64_t deadline = t + (uint64_t)f->rto_ms * 1000000ull;
		while ((closed = sp_soak_port_accepts(port) == 0) == false && sp_now_ns() < deadline &&
		       !atomic_load(&r->sch.abort_ops)) {
			struct timespec ts = {0, 20000000L};
			nanosleep(&ts, NULL);
		}
		t_closed = sp_now_ns();
		snprintf(code, sizeof code, "%s/port-%s", sigabbrev_np(f->signal), closed ? "closed" : "still-open");
		size_t tl = strlen(target);
		snprintf(target + tl, sizeof target - tl, closed ? "-closed-after:%llums" : "-still-open",
			 (unsigned long long)((t_closed - t) / 1000000ull));
		if (!closed)
			sp_soak_note(&r->notes, "fault %s: port 127.0.0.1:%d still accepts connections after the proxy was signalled",
				     f->id, port);
	}
	sp_soak_record_op(r, st, f->id, why ? OP_FAIL : OP_FAULT, t, t_closed, gen, code);
	if (why && !strcmp(why, "target-not-owned")) {
		/* the workload pointed a fault outside the run: a safety invariant */
		sp_soak_note(&r->notes, "fault %s target %s is not owned by the run; stopping", f->id, target);
		sp_soak_set_stop(&r->sch, 2, "invariant");
	}
	free(pidfile);
	recover_after_fault(r, st, gen, target, t, why == NULL && closed, &vic, port, f04 ? &tasks : NULL, &v);
	victims_free(&vic);
	sp_strv_free(&tasks);
}

bool sp_soak_fault_step(struct run *r, struct scen_state *st, const sp_soak_wstep *step, unsigned long long gen)
{
	const sp_soak_scenario *sc = st->sc;
	const sp_soak_wfault *f = &sc->fault;
	bool interrupt = !strcmp(f->id, "F01") || !strcmp(f->id, "F07");
	bool first = step == &sc->steps.v[0];
	sp_soak_proc_result res;
	enum op_result o = r->sch.run_step(r, st, step, gen, true, interrupt ? f->after_ms : -1, f->signal, &res);
	if (o == OP_SKIPPED) {
		if (!first && !atomic_load(&r->sch.abort_ops))
			sp_soak_run_steps(r, st, &sc->recover, gen);
		return true;
	}
	if (interrupt) {
		char target[160];
		snprintf(target, sizeof target, "%s:%s(client)", sc->id, step->op);
		/* finished (or failed) before the planned interruption: not injected */
		recover_after_fault(r, st, gen, target, o == OP_FAULT ? res.interrupt_ns : res.end_ns, o == OP_FAULT, NULL, 0, NULL,
				    NULL);
		return true;
	}
	if (o != OP_OK) {
		if (!atomic_load(&r->sch.abort_ops))
			sp_soak_run_steps(r, st, &sc->recover, gen);
		return true;
	}
	if (!strcmp(f->id, "F05"))
		return sp_soak_registry_fault(r, st, gen), true; /* fault_registry.c */
	if (!strcmp(f->id, "F09"))
		return sp_soak_upgrade_fault(r, st, gen), true; /* fault_upgrade.c */
	if (!strcmp(f->id, "F08"))
		return sp_soak_inject_vm_fault(r, st, gen), true; /* fault_vm.c */
	if (f->cut)
		sp_soak_inject_netloss(r, st, gen); /* F06 bounded connection loss (fault_netloss.c) */
	else
		inject_pidfile_fault(r, st, gen); /* F02 / F03 / F04 / F06 after this step */
	return true;
}
