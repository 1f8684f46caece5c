/* Privileges through container runtime control sockets: priv.runtime_sockets
 * walks the whole mount tree and asks what answers, in a child of its own, so
 * a mount that stalls the walk costs that check alone; priv.abstract_sockets
 * connects to abstract sockets (nothing is ever sent), in one child. Split
 * from privileges.c. */

#include <errno.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <time.h>
#include <sys/wait.h>
#include <poll.h>
#include <sys/xattr.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <dirent.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include "checks/probe.h"
#include "checks/runtime.h"
#include "core/emul.h"
#include "core/util.h"
#include "catalog/catalog.h"

static const sp_batch priv_sockets = {
	.id = "priv.sockets",
	.what = "abstract sockets in /proc/net/unix, connected to only",
};

/* ---- container runtime control sockets ---- */

static const char *const runtime_words[] = {"docker", "containerd", "podman", "libpod", "crio", "cri-o", "kubelet",
					    "buildkit", "cri-dockerd", "conmon", "runc", "k3s", "dockershim",
					    "firecracker", "lxd", "incus"};

static bool runtime_name(const char *s)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(runtime_words); i++)
		if (strstr(s, runtime_words[i]))
			return true;
	return false;
}

/* connect only: nothing is ever sent; 0 when something listens, or -1 with
 * o (errnum: why the connect failed) */
static int unix_connect(const char *name, bool abstract, sp_outcome *o)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return sp_why_errno(o, errno, "socket: %s", strerror(errno));
	struct sockaddr_un a;
	memset(&a, 0, sizeof a);
	a.sun_family = AF_UNIX;
	size_t len = strlen(name);
	if (len + 2 > sizeof a.sun_path) {
		close(fd);
		return sp_why_errno(o, ENAMETOOLONG, "@%.100s: the name is too long for a socket address", name);
	}
	socklen_t sl;
	if (abstract) {
		memcpy(a.sun_path + 1, name, len);
		sl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
	} else {
		memcpy(a.sun_path, name, len + 1);
		sl = (socklen_t)sizeof a;
	}
	int rc = connect(fd, (struct sockaddr *)&a, sl);
	int e = errno;
	if (rc < 0 && e == EPROTOTYPE) {
		close(fd);
		fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		rc = fd >= 0 ? connect(fd, (struct sockaddr *)&a, sl) : -1;
		e = errno;
	}
	if (fd >= 0)
		close(fd);
	if (rc == 0 || e == EAGAIN || e == EINPROGRESS)
		return 0;
	return sp_why_errno(o, e, "connect @%.100s: %s", name, strerror(e));
}

/* ---- runtime sockets found by what answers on them ----
 *
 * A socket path proves nothing (a host root mounted at /host holds
 * /host/run/docker.sock; an engine may listen anywhere), so the whole mount
 * tree is walked for unix sockets, level by level (shallow sockets first),
 * and each one is asked what it is: an HTTP "GET /_ping" (read-only in the
 * Docker and Podman APIs) whose reply names an engine API (an Api-Version,
 * Libpod or Docker header), or an HTTP/2 SETTINGS frame (a gRPC server:
 * containerd, CRI-O, the kubelet, buildkit) sent on connect or in answer to
 * the HTTP/2 client preface. The walk prunes what holds no live control
 * socket and is large (proc, sys, dev, usr, lib*, bin, sbin, boot, .git,
 * node_modules, image layer stores, package databases, man pages, locales)
 * and is bounded in depth, entries and
 * time; a walk stopped by its bound says so and cannot pass. The same
 * socket reached by two paths (/run and /var/run) is one socket. */

#define SOCK_MAX_DEPTH 6
#define SOCK_MAX_ENTRIES 200000
#define SOCK_WALK_MS 1000
#define SOCK_MAX_PROBED 64
#define SOCK_PROBE_MS 150
#define SOCK_ASK_MS 2500
#define SOCK_STR_(x) #x
#define SOCK_STR(x) SOCK_STR_(x)

static const char *const sock_prune[] = {
	"proc", "sys", "dev", "usr", "lib", "lib32", "lib64", "libx32",
	"bin", "sbin", "boot", ".git", "node_modules", "site-packages", "__pycache__",
	"overlay2", "overlay", "snapshots", "fuse-overlayfs", "vfs", "dpkg", "apt", "rpm",
	"man", "doc", "locale", "zoneinfo", "firmware", "modules", "include"};

static long mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

typedef enum sock_kind {
	SK_REFUSED,  /* connect refused (no listener, no permission) */
	SK_CONNECTS, /* a listener, but it answers as no API we know */
	SK_HTTP,     /* an HTTP/1 server that is no engine API */
	SK_ENGINE,   /* HTTP engine API (docker, podman) */
	SK_HTTP2,    /* HTTP/2 (gRPC: containerd, CRI-O, kubelet, buildkit) */
} sock_kind;

/* connect to a path socket (stream); fd, or -1 with o (errnum: why not) */
static int sock_open(const char *path, sp_outcome *o)
{
	struct sockaddr_un a;
	memset(&a, 0, sizeof a);
	a.sun_family = AF_UNIX;
	if (strlen(path) + 1 > sizeof a.sun_path)
		return sp_why_errno(o, ENAMETOOLONG, "%.100s: the path is too long for a socket address", path);
	memcpy(a.sun_path, path, strlen(path) + 1);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return sp_why_errno(o, errno, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 && errno != EAGAIN && errno != EINPROGRESS) {
		int e = errno;
		close(fd);
		return sp_why_errno(o, e, "connect %.100s: %s", path, strerror(e));
	}
	return fd;
}

/* send req (may be NULL), then read what comes within ms; bytes read */
static size_t sock_exchange(int fd, const void *req, size_t reqlen, char *buf, size_t size, int ms)
{
	if (req && send(fd, req, reqlen, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		return 0;
	size_t n = 0;
	long end = mono_ms() + ms;
	while (n + 1 < size) {
		long left = end - mono_ms();
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			break;
		ssize_t got = recv(fd, buf + n, size - 1 - n, MSG_DONTWAIT);
		if (got <= 0)
			break;
		n += (size_t)got;
		buf[n] = '\0';
		/* an HTTP head, or an HTTP/2 frame header: enough to name it */
		if (strstr(buf, "\r\n\r\n") || (n >= 9 && (unsigned char)buf[3] == 4))
			break;
	}
	buf[n] = '\0';
	return n;
}

static bool is_settings_frame(const char *b, size_t n)
{
	/* length (3), type 4 SETTINGS, flags 0 or ACK, stream 0 */
	return n >= 9 && (unsigned char)b[3] == 4 && ((unsigned char)b[4] & ~1u) == 0 && !b[5] && !b[6] && !b[7] &&
	       !b[8];
}

/* what answers on path (what: how it answered); SK_REFUSED with o when the
 * connect failed */
static sock_kind sock_identify(const char *path, sp_outcome *o, char *what, size_t wsz)
{
	static const char ping[] = "GET /_ping HTTP/1.1\r\nHost: sandprobe\r\nConnection: close\r\n\r\n";
	static const char h2[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\4\0\0\0\0\0";
	snprintf(what, wsz, "connects");
	int fd = sock_open(path, o);
	if (fd < 0)
		return SK_REFUSED;
	char buf[2048];
	size_t n = sock_exchange(fd, ping, sizeof ping - 1, buf, sizeof buf, SOCK_PROBE_MS);
	close(fd);
	if (is_settings_frame(buf, n)) {
		snprintf(what, wsz, "answers HTTP/2 (gRPC)");
		return SK_HTTP2;
	}
	if (n >= 7 && !strncmp(buf, "HTTP/1.", 7)) {
		char *eol = strstr(buf, "\r\n");
		int status = atoi(buf + 8);
		bool engine = strcasestr(buf, "\nApi-Version:") || strcasestr(buf, "\nLibpod-") ||
			      strcasestr(buf, "\nServer: Docker") || strcasestr(buf, "\nDocker-");
		snprintf(what, wsz, "answers %.*s%s", eol ? (int)(eol - buf) : 20, buf,
			 engine ? " with an engine API's headers" : "");
		(void)status;
		return engine ? SK_ENGINE : SK_HTTP;
	}
	if (n > 0) {
		snprintf(what, wsz, "answers %zu bytes of another protocol", n);
		return SK_CONNECTS;
	}
	/* silent: an HTTP/2 server that waits for the client preface */
	fd = sock_open(path, o);
	if (fd < 0)
		return SK_CONNECTS;
	n = sock_exchange(fd, h2, sizeof h2 - 1, buf, sizeof buf, SOCK_PROBE_MS);
	close(fd);
	if (is_settings_frame(buf, n)) {
		snprintf(what, wsz, "answers the HTTP/2 preface (gRPC)");
		return SK_HTTP2;
	}
	snprintf(what, wsz, "connects, answers neither HTTP nor HTTP/2");
	return SK_CONNECTS;
}

/* sockets that are not asked: logging and notification sockets would take
 * the request as a log line */
static bool sock_polite_skip(const char *path)
{
	static const char *const names[] = {"log", "syslog", "dev-log", "stdout", "notify", "journal"};
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < SP_ARRAY_SIZE(names); i++)
		if (!strcmp(base, names[i]))
			return true;
	return strstr(path, "/systemd/journal/") != NULL;
}

struct sock_found {
	dev_t dev;
	ino_t ino;
};

struct sock_walk {
	sp_result *r;
	struct sock_found *seen;
	size_t nseen, capseen;
	size_t found, probed, answering, entries;
	char first[256];
	const char *bound; /* why the search stopped short, or NULL */
	long deadline, ask_deadline;
};

static void sock_consider(struct sock_walk *w, const char *path)
{
	struct stat st;
	if (lstat(path, &st) < 0 || !S_ISSOCK(st.st_mode))
		return;
	for (size_t i = 0; i < w->nseen; i++)
		if (w->seen[i].dev == st.st_dev && w->seen[i].ino == st.st_ino)
			return;
	if (w->nseen == w->capseen) {
		w->capseen = w->capseen ? w->capseen * 2 : 32;
		w->seen = sp_xrealloc(w->seen, w->capseen * sizeof *w->seen);
	}
	w->seen[w->nseen++] = (struct sock_found){st.st_dev, st.st_ino};
	w->found++;
	if (sock_polite_skip(path))
		return;
	if (w->probed == SOCK_MAX_PROBED) {
		if (!w->bound)
			w->bound = "more than " SOCK_STR(SOCK_MAX_PROBED) " sockets to ask";
		return;
	}
	/* within the batch's time: each silent socket costs two probe waits */
	if (mono_ms() > w->ask_deadline) {
		if (!w->bound)
			w->bound = "the time bound for asking sockets (" SOCK_STR(SOCK_ASK_MS) " ms)";
		return;
	}
	w->probed++;
	sp_outcome o = {0};
	char what[160];
	sock_kind k = sock_identify(path, &o, what, sizeof what);
	bool bad = k == SK_ENGINE || k == SK_HTTP2 || (k != SK_REFUSED && runtime_name(path));
	if (bad) {
		w->answering++;
		if (!w->first[0])
			snprintf(w->first, sizeof w->first, "%s (%s)", path, what);
	}
	if (bad || w->probed <= 12)
		sp_observed_add(w->r, "%s: %s%s", path, k == SK_REFUSED ? sp_errname(o.errnum) : what,
				bad ? " -- RUNTIME API" : "");
}

static bool sock_pruned(const char *name)
{
	for (size_t i = 0; i < SP_ARRAY_SIZE(sock_prune); i++)
		if (!strcmp(name, sock_prune[i]))
			return true;
	return false;
}

/* breadth first from "/", SOCK_MAX_DEPTH levels, symlinks not followed */
static void sock_walk_tree(struct sock_walk *w)
{
	sp_strv level, next;
	sp_strv_split(&level, NULL, ",");
	sp_strv_split(&next, NULL, ",");
	sp_strv_push(&level, "");
	for (int depth = 0; depth < SOCK_MAX_DEPTH && level.n && !w->bound; depth++) {
		for (size_t i = 0; i < level.n && !w->bound; i++) {
			DIR *d = opendir(level.v[i][0] ? level.v[i] : "/");
			if (!d)
				continue;
			struct dirent *de;
			while ((de = readdir(d))) {
				if (de->d_name[0] == '.' &&
				    (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
					continue;
				if (++w->entries > SOCK_MAX_ENTRIES) {
					w->bound = "the entry bound (" SOCK_STR(SOCK_MAX_ENTRIES) ")";
					break;
				}
				if ((w->entries & 1023) == 0 && mono_ms() > w->deadline) {
					w->bound = "the time bound (" SOCK_STR(SOCK_WALK_MS) " ms)";
					break;
				}
				char p[1024];
				int pl = snprintf(p, sizeof p, "%s/%s", level.v[i], de->d_name);
				if (pl < 0 || (size_t)pl >= sizeof p)
					continue;
				unsigned char t = de->d_type;
				if (t == DT_UNKNOWN) {
					struct stat st;
					if (lstat(p, &st) < 0)
						continue;
					t = S_ISSOCK(st.st_mode) ? DT_SOCK : S_ISDIR(st.st_mode) ? DT_DIR
												 : DT_REG;
				}
				if (t == DT_SOCK)
					sock_consider(w, p);
				else if (t == DT_DIR && !sock_pruned(de->d_name))
					sp_strv_push(&next, p);
			}
			closedir(d);
		}
		sp_strv_free(&level);
		level = next;
		sp_strv_split(&next, NULL, ",");
	}
	sp_strv_free(&level);
	sp_strv_free(&next);
}

/* a socket bind-mounted onto a file: readdir reports the type of the file
 * under it, so mount points are looked at themselves */
static int sock_mount_cb(const sp_mount *m, void *arg)
{
	sock_consider(arg, m->mountpoint);
	return 0;
}

static void run_runtime_sockets(const sp_ctx *ctx, sp_result *r)
{
	bool must = !sp_policy_bool(ctx->policy, "priv.runtime_sockets_allowed", false);
	sp_expected(r, "%s", must ? "no unix socket in the mount tree answers as a container engine or CRI API" : "any (allowed by policy)");
	static const char *const known[] = {
		"/var/run/docker.sock",
		"/run/docker.sock",
		"/run/containerd/containerd.sock",
		"/var/run/containerd/containerd.sock",
		"/run/podman/podman.sock",
		"/var/run/podman/podman.sock",
		"/run/crio/crio.sock",
		"/var/run/crio/crio.sock",
		"/var/lib/kubelet/pod-resources/kubelet.sock",
		"/run/k3s/containerd/containerd.sock",
		"/run/buildkit/buildkitd.sock",
		"/var/run/cri-dockerd.sock",
		"/run/dockershim.sock",
		"/var/snap/lxd/common/lxd/unix.socket",
		"/var/lib/incus/unix.socket",
	};
	long t0 = mono_ms();
	struct sock_walk w = {.r = r, .deadline = t0 + SOCK_WALK_MS, .ask_deadline = t0 + SOCK_ASK_MS};
	sp_observed(r, "the mount tree from / (%d levels; not into proc sys dev usr lib* bin sbin boot, image layer "
		       "stores, package databases), every mount point and the known paths",
		    SOCK_MAX_DEPTH);
	for (size_t i = 0; i < SP_ARRAY_SIZE(known); i++)
		sock_consider(&w, known[i]);
	sp_mountinfo_each(sock_mount_cb, &w);
	sock_walk_tree(&w);
	free(w.seen);
	sp_observed_add(r, "%zu entries walked in %ld ms; %zu socket(s) (each counted once), %zu asked, %zu answering as "
			   "a runtime API",
			w.entries, mono_ms() - t0, w.found, w.probed, w.answering);
	if (w.bound)
		sp_observed_add(r, "the search stopped at %s", w.bound);
	if (w.answering && must)
		sp_failr(r, "runtime control socket answers: %s", w.first);
	else if (w.answering)
		sp_pass(r, "runtime socket reachable, allowed by policy");
	else if (w.bound)
		sp_errorr(r, "the search stopped at %s before it looked everywhere: no verdict", w.bound);
	else
		sp_pass(r, "%zu socket(s) found, none answers as a runtime API", w.found);
}

static void run_abstract_sockets(const sp_ctx *ctx, sp_result *r)
{
	bool must = !sp_policy_bool(ctx->policy, "priv.runtime_sockets_allowed", false);
	sp_expected(r, "%s", must ? "no runtime abstract unix socket (containerd-shim ...) reachable" : "any (allowed by policy)");
	int e = 0;
	_cleanup_free_ char *buf = sp_read_file_alloc("/proc/net/unix", 8u << 20, NULL, &e);
	if (!buf) {
		sp_observed(r, "/proc/net/unix unreadable: %s", strerror(e));
		/* abstract sockets are reachable whether or not they can be listed */
		if (e == ENOENT)
			sp_skip(r, "no /proc/net/unix: abstract sockets cannot be listed, so none was tried");
		else
			sp_errorr(r, "cannot read /proc/net/unix: %s", strerror(e));
		return;
	}
	size_t abstract = 0, runtime = 0, reach = 0;
	char first[256] = "";
	char *save = NULL;
	sp_observed(r, "/proc/net/unix read");
	for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *at = strstr(l, " @");
		if (!at)
			continue;
		abstract++;
		char *name = sp_trim(at + 2);
		if (!runtime_name(name))
			continue;
		runtime++;
		sp_outcome o = {0};
		int rc = unix_connect(name, true, &o);
		if (rc == 0) {
			reach++;
			if (!first[0])
				snprintf(first, sizeof first, "@%s", name);
		}
		if (runtime <= 8)
			sp_observed_add(r, "@%s %s", name, rc == 0 ? "ANSWERS" : sp_errname(o.errnum));
	}
	sp_observed_add(r, "%zu abstract sockets, %zu with runtime names, %zu answering", abstract, runtime, reach);
	if (reach && must)
		sp_failr(r, "runtime abstract socket answers: %s (shared network namespace?)", first);
	else
		sp_pass(r, "no runtime abstract socket answers");
}

const sp_check sp_check_priv_runtime_sockets = {
	.id = SP_CKID(priv_runtime_sockets),
	.category = "privileges",
	.title = "no container runtime control socket reachable",
	.rationale = "a reachable docker/containerd/podman/kubelet socket starts a privileged container on the host",
	.techniques = "T1610,T1611,T1552.007,T1609,T1612,AML.T0112.000",
	.policy_keys = "priv.runtime_sockets_allowed:bool",
	.method = "action",
	.run = run_runtime_sockets,
};

const sp_check sp_check_priv_abstract_sockets = {
	.id = SP_CKID(priv_abstract_sockets),
	.category = "privileges",
	.title = "no runtime abstract unix socket reachable",
	.rationale = "abstract sockets follow the network namespace: containerd-shim sockets leak into host-network sandboxes",
	.techniques = "T1610,T1611",
	.policy_keys = "priv.runtime_sockets_allowed:bool",
	.method = "action",
	.run = run_abstract_sockets,
	.batch = &priv_sockets,
};
