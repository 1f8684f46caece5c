/* F05: a registry fault, applied through the fault proxy the run owns
 * (`sandprobe soak fault-proxy`, faultproxy.c) in front of a registry the
 * run owns, for a window, then undone.
 *
 * The runner's own ground truth, independent of the workload's checks:
 *   before   the proxy (pid file) is alive and owned, its loopback port (port
 *            file) accepts, and a GET /v2/ through it is the registry's
 *            answer (200, Docker-Distribution-Api-Version: registry/2.0,
 *            a clean end); otherwise nothing is injected
 *   apply    the mode line is written to the mode file (inside the run's
 *            state dir, atomically); a GET /v2/ through the proxy must then
 *            NOT be the registry's answer within a second (the fault is in
 *            effect: reset, refused, cut short, stalled or another answer)
 *   window   the recover steps run while the fault is on (a pull that must
 *            fail, pulls that retry within bounds); the mode file is put
 *            back to "pass" when window_ms has passed (or the run stops)
 *   after    the mode file says "pass" again (else the fault could not be
 *            undone: the record fails and the run stops), the registry
 *            answers through the proxy again, and every blob in the
 *            declared stores (OCI blobs/sha256/<hex>, the registry's
 *            blobs/sha256/xx/<hex>/data) has the sha256 its name says: a
 *            partial layer stored as valid fails the record.
 * A run killed during the window leaves the proxy and the registry to the
 * supervisor's sweep like any owned process; the mode file goes with the
 * state dir. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "soak/faultproxy.h"
#include "soak/run.h"

#define PROBE_MS 1000
#define BLOBS_MAX 100000 /* files looked at per store */
#define BLOB_DEPTH 12

/* ---- the runner's probe: GET /v2/ through the proxy ---- */
enum probe_res {
	PR_VALID,
	PR_REFUSED,
	PR_RESET,
	PR_EOF,
	PR_TIMEOUT,
	PR_OTHER,
	PR_NOSOCK
};

static const char *probe_name(enum probe_res p)
{
	static const char *const n[] = {"registry-answer", "refused", "reset", "cut", "stalled", "other-answer", "no-socket"};
	return n[p];
}

static bool registry_answer(const char *buf, size_t len)
{
	if (len < 12 || strncmp(buf, "HTTP/1.", 7) || strncmp(buf + 8, " 200", 4))
		return false;
	const char *eoh = memmem(buf, len, "\r\n\r\n", 4);
	if (!eoh)
		return false;
	for (const char *l = strstr(buf, "\r\n"); l && l < eoh; l = strstr(l + 2, "\r\n"))
		if (!strncasecmp(l + 2, "docker-distribution-api-version:", 32)) {
			const char *v = l + 2 + 32;
			while (*v == ' ')
				v++;
			return !strncmp(v, "registry/2.0\r\n", 14);
		}
	return false;
}

static enum probe_res probe(int port, size_t *got)
{
	*got = 0;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return PR_NOSOCK;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	uint64_t end = sp_now_ns() + (uint64_t)PROBE_MS * 1000000ull;
	enum probe_res res = PR_TIMEOUT;
	char buf[4096];
	size_t len = 0;
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 && errno != EINPROGRESS) {
		res = PR_REFUSED;
		goto out;
	}
	struct pollfd pf = {.fd = fd, .events = POLLOUT};
	int err = 0;
	socklen_t el = sizeof err;
	if (poll(&pf, 1, PROBE_MS) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err) {
		res = PR_TIMEOUT;
		if (err)
			res = err == ECONNREFUSED ? PR_REFUSED : PR_RESET;
		goto out;
	}
	static const char req[] = "GET /v2/ HTTP/1.0\r\nHost: 127.0.0.1\r\nUser-Agent: sandprobe-soak-f05\r\n\r\n";
	if (send(fd, req, sizeof req - 1, MSG_NOSIGNAL) != (ssize_t)sizeof req - 1) {
		res = PR_RESET;
		goto out;
	}
	for (;;) {
		uint64_t now = sp_now_ns();
		if (now >= end)
			break; /* PR_TIMEOUT */
		pf = (struct pollfd){.fd = fd, .events = POLLIN};
		if (poll(&pf, 1, (int)((end - now) / 1000000ull) + 1) <= 0)
			continue;
		ssize_t n = recv(fd, buf + len, sizeof buf - 1 - len, 0);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0) {
			res = PR_RESET;
			break;
		}
		if (n == 0) {
			buf[len] = '\0';
			res = !len ? PR_EOF : registry_answer(buf, len) ? PR_VALID
									: PR_OTHER;
			break;
		}
		len += (size_t)n;
		if (len >= sizeof buf - 1) {
			res = PR_OTHER; /* no /v2/ answer is that long */
			break;
		}
	}
out:
	*got = len;
	close(fd);
	return res;
}

/* the mode file, replaced atomically (a temporary beside it, renamed) */
static int write_mode(const char *path, const char *line)
{
	char *tmp = sp_xasprintf("%s.sp-tmp", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	int rc = -1;
	if (fd >= 0) {
		size_t n = strlen(line);
		rc = write(fd, line, n) == (ssize_t)n && write(fd, "\n", 1) == 1 ? 0 : -1;
		if (close(fd) < 0)
			rc = -1;
		if (rc == 0 && rename(tmp, path) < 0)
			rc = -1;
		if (rc < 0)
			unlink(tmp);
	}
	free(tmp);
	return rc;
}

static bool mode_is_pass(const char *path)
{
	char buf[64];
	ssize_t n = sp_read_file(path, buf, sizeof buf);
	sp_fp_mode_t m;
	const char *why;
	return n >= 0 && sp_fp_mode_parse(buf, (size_t)n, &m, &why) == 0 && m.mode == SP_FP_PASS;
}

/* ---- the undo, at the end of the window (its own thread) ---- */
struct undo {
	struct run *r;
	const char *modefile;
	uint64_t at_ns;
	pthread_t thr;
	bool started;
	int rc; /* 0 undone, -1 not (yet) */
	uint64_t done_ns;
};

static void *undo_main(void *arg)
{
	struct undo *u = arg;
	uint64_t now = sp_now_ns();
	if (u->at_ns > now) /* rounded up: never undone before the window has ended */
		sp_soak_sleep_unless_aborted(&u->r->sch, (int)((u->at_ns - now + 999999ull) / 1000000ull));
	u->rc = write_mode(u->modefile, "pass");
	u->done_ns = sp_now_ns();
	return NULL;
}

/* ---- every blob of a store against its digest ---- */
struct blobcheck {
	size_t checked, bad, seen;
	char first_bad[80];
};

static bool is_hex64(const char *s)
{
	size_t i = 0;
	for (; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return i == 64;
}

static int sha256_file(int dfd, const char *name, char hex[65])
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int rc = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL) ? 0 : -1;
	static __thread char buf[65536];
	ssize_t n;
	while (rc == 0 && (n = read(fd, buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || !EVP_DigestUpdate(c, buf, (size_t)n))
			rc = -1;
	}
	unsigned char md[32];
	unsigned int ml = 0;
	if (rc == 0 && (!EVP_DigestFinal_ex(c, md, &ml) || ml != 32))
		rc = -1;
	EVP_MD_CTX_free(c);
	close(fd);
	for (unsigned i = 0; rc == 0 && i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return rc;
}

/* dfd: a directory named parent; a blob is a regular file named by its hex
 * digest under a directory "sha256", or a file "data" in a directory named
 * by the digest (the registry's storage) */
static void walk_blobs(int dfd, const char *dirname, const char *parent, int depth, struct blobcheck *bc)
{
	DIR *d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)) && bc->seen < BLOBS_MAX) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		bc->seen++;
		struct stat sb;
		if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(sb.st_mode)) {
			int sub = depth < BLOB_DEPTH ? openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW) : -1;
			if (sub >= 0)
				walk_blobs(sub, e->d_name, dirname, depth + 1, bc);
			continue;
		}
		if (!S_ISREG(sb.st_mode))
			continue;
		const char *want = NULL;
		if (!strcmp(dirname, "sha256") && is_hex64(e->d_name))
			want = e->d_name;
		else if (!strcmp(e->d_name, "data") && is_hex64(dirname) && parent && strlen(parent) == 2)
			want = dirname;
		if (!want)
			continue;
		char hex[65] = "";
		bc->checked++;
		if (sha256_file(dirfd(d), e->d_name, hex) < 0 || strcmp(hex, want)) {
			if (!bc->bad++)
				snprintf(bc->first_bad, sizeof bc->first_bad, "%.12s", want);
		}
	}
	closedir(d);
}

static void check_stores(struct run *r, const sp_soak_wfault *f, const sp_soak_vars *v, char *desc, size_t dsz, bool *ok)
{
	struct blobcheck bc = {0};
	size_t missing = 0;
	for (size_t i = 0; i < f->blobs.n; i++) {
		char *dir = sp_expand(f->blobs.v[i], v);
		int fd = dir && sp_soak_path_in_state(r, dir) ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
		if (fd < 0)
			missing++;
		else
			walk_blobs(fd, "", NULL, 0, &bc);
		free(dir);
	}
	size_t dl = strlen(desc);
	if (missing || bc.bad || !bc.checked) {
		*ok = false;
		snprintf(desc + dl, dsz - dl, " blobs:checked=%zu,bad=%zu%s%s,stores-missing=%zu", bc.checked, bc.bad,
			 bc.bad ? ",first=" : "", bc.first_bad, missing);
		sp_soak_note(&r->notes, "fault %s: %zu of %zu blob(s) do not match their digest%s%s; %zu store(s) missing or outside the state dir",
			     f->id, bc.bad, bc.checked, bc.bad ? ", first sha256:" : "", bc.first_bad, missing);
	} else {
		snprintf(desc + dl, dsz - dl, " blobs:%zu-verified", bc.checked);
	}
}

void sp_soak_registry_fault(struct run *r, struct scen_state *st, unsigned long long gen)
{
	const sp_soak_wfault *f = &st->sc->fault;
	char idbuf[96], genbuf[32], buf[64], target[256];
	sp_soak_vars v;
	sp_soak_vars_for(r, st, gen, &v, idbuf, sizeof idbuf, genbuf, sizeof genbuf);
	if (f->after_ms > 0)
		sp_soak_sleep_unless_aborted(&r->sch, f->after_ms);
	if (atomic_load(&r->sch.abort_ops))
		return;
	char *pidfile = sp_expand(f->pidfile, &v), *portfile = sp_expand(f->portfile, &v), *modefile = sp_expand(f->modefile, &v);
	const char *why = NULL;
	long pid = -1;
	int port = -1;
	if (!modefile || !sp_soak_path_in_state(r, modefile)) {
		why = "target-not-owned"; /* the mode file must be the run's own */
	} else if (!pidfile || sp_read_file(pidfile, buf, sizeof buf) <= 0) {
		why = "pidfile-unreadable";
	} else {
		char *end;
		pid = strtol(buf, &end, 10);
		if (end == buf || pid <= 1 || pid == getpid())
			why = "pidfile-invalid";
	}
	if (!why) {
		int pfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
		if (pfd < 0)
			why = "target-gone";
		else if (!(sp_sampler_owner(r->smp.sampler, (pid_t)pid) & (SP_OWN_TREE | SP_OWN_ENV | SP_OWN_CGROUP)))
			why = "target-not-owned";
		if (pfd >= 0)
			close(pfd);
	}
	if (!why && (port = sp_soak_port_read(portfile)) < 0)
		why = "portfile-invalid";
	else if (!why && sp_soak_port_accepts(port) != 1)
		why = "port-not-listening";
	size_t got = 0;
	enum probe_res before = PR_NOSOCK;
	if (!why && (before = probe(port, &got)) != PR_VALID)
		why = "registry-not-answering"; /* nothing to fault: not injected */
	snprintf(target, sizeof target, "pid:%ld(%s) port:%d mode:%s", pid, pidfile ? pidfile : "?", port, f->mode);
	if (!why && write_mode(modefile, f->mode) < 0)
		why = "apply-failed";
	uint64_t t = sp_now_ns();
	bool seen = false;
	char code[64];
	if (!why) {
		enum probe_res during = probe(port, &got);
		seen = during != PR_VALID;
		size_t tl = strlen(target);
		snprintf(target + tl, sizeof target - tl, " probe:%s:%zuB", probe_name(during), got);
		snprintf(code, sizeof code, "%s/%s", f->mode, seen ? "in-effect" : "not-in-effect");
		if (!seen)
			sp_soak_note(&r->notes, "fault %s: the registry still answers through the proxy after mode '%s' was applied", f->id,
				     f->mode);
	} else {
		snprintf(code, sizeof code, "%s", why);
	}
	sp_soak_record_op(r, st, f->id, why || !seen ? OP_FAIL : OP_FAULT, t, sp_now_ns(), gen, code);
	if (why && !strcmp(why, "target-not-owned")) {
		sp_soak_note(&r->notes, "fault %s target %s (mode file %s) is not owned by the run; stopping", f->id, target,
			     modefile ? modefile : "?");
		sp_soak_set_stop(&r->sch, 2, "invariant");
	}
	/* the window: recover steps while the fault is on, the undo at its end */
	struct undo u = {.r = r, .modefile = modefile, .at_ns = t + (uint64_t)f->window_ms * 1000000ull, .rc = -1};
	if (!why)
		u.started = pthread_create(&u.thr, NULL, undo_main, &u) == 0;
	bool ok = atomic_load(&r->sch.abort_ops) ? false : sp_soak_run_steps(r, st, &st->sc->recover, gen);
	char desc[256] = "";
	if (!why) {
		if (u.started)
			pthread_join(u.thr, NULL);
		if (u.rc < 0 || !mode_is_pass(modefile)) { /* once more, then it cannot be undone */
			u.rc = write_mode(modefile, "pass") == 0 && mode_is_pass(modefile) ? 0 : -1;
			u.done_ns = sp_now_ns();
		}
		size_t dl = strlen(desc);
		if (u.rc < 0) {
			ok = false;
			snprintf(desc + dl, sizeof desc - dl, " undo-failed");
			sp_soak_note(&r->notes, "fault %s: the mode file %s cannot be put back to pass: the fault cannot be undone; stopping",
				     f->id, modefile);
			sp_soak_set_stop(&r->sch, 1, "error");
		} else {
			snprintf(desc + dl, sizeof desc - dl, " undone-after:%llums",
				 (unsigned long long)((u.done_ns - t) / 1000000ull));
			enum probe_res after = probe(port, &got);
			dl = strlen(desc);
			snprintf(desc + dl, sizeof desc - dl, " registry:%s", after == PR_VALID ? "answers" : probe_name(after));
			if (after != PR_VALID) {
				ok = false;
				sp_soak_note(&r->notes, "fault %s: the registry does not answer through the proxy after the fault was undone (%s)",
					     f->id, probe_name(after));
			}
		}
		if (f->blobs.n)
			check_stores(r, f, &v, desc, sizeof desc, &ok);
	}
	uint64_t end = sp_now_ns();
	long long rec_ms = (long long)((end - t) / 1000000ull);
	char *tt = sp_xasprintf("%s%s", target, desc);
	sp_soak_record_fault(&r->rec, f, tt, sp_soak_ns_to_ts(r, t), sp_soak_ns_to_ts(r, end), rec_ms,
			     !why && seen && ok && rec_ms <= f->rto_ms);
	free(tt);
	free(pidfile);
	free(portfile);
	free(modefile);
}
