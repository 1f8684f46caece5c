/* F05's fault-injecting TCP proxy. Listens on 127.0.0.1 only and connects
 * to 127.0.0.1 only (the upstream port, or the redirect port); bounded: at
 * most FP_MAX_CONNS connections at once (more are closed at accept), each
 * connection handled by a forked child that dies with the proxy
 * (PR_SET_PDEATHSIG) and lives at most FP_CONN_MAX_S seconds; the proxy
 * itself lives at most --lifetime-s seconds. At each accepted connection it
 * re-reads the mode file (one line; missing or empty: pass; unparsable: the
 * connection is closed and the line named on stderr), so a fault switches
 * the proxy by writing that file:
 *   pass          relay both ways
 *   disconnect    close the client's connection at once (RST), no upstream
 *   truncate:N    relay N bytes of the upstream's answer, then close both
 *   stall         relay the request, never the answer, until the client
 *                 closes or FP_CONN_MAX_S passed
 *   slow:BPS      relay the answer at BPS bytes per second
 *   redirect:PORT connect to 127.0.0.1:PORT instead of the upstream */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "core/util.h"
#include "soak/faultproxy.h"

#define FP_MAX_CONNS 64
#define FP_CONN_MAX_S 60
#define FP_BUF 16384

static int parse_long(const char *s, size_t n, long lo, long hi, long *out)
{
	if (n == 0 || n > 10)
		return -1;
	long v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int sp_fp_mode_parse(const char *text, size_t len, sp_fp_mode_t *out, const char **why)
{
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' '))
		len--;
	static const struct {
		const char *name;
		enum sp_fp_mode m;
		long lo, hi; /* argument bounds; hi 0: no argument */
	} modes[] = {
		{"pass", SP_FP_PASS, 0, 0},
		{"disconnect", SP_FP_DISCONNECT, 0, 0},
		{"truncate", SP_FP_TRUNCATE, 0, 1L << 30},
		{"stall", SP_FP_STALL, 0, 0},
		{"slow", SP_FP_SLOW, 1, 1L << 30},
		{"redirect", SP_FP_REDIRECT, 1, 65535},
	};
	if (len == 0) {
		*out = (sp_fp_mode_t){SP_FP_PASS, 0};
		return 0;
	}
	const char *colon = memchr(text, ':', len);
	size_t nl = colon ? (size_t)(colon - text) : len;
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		if (strlen(modes[i].name) != nl || memcmp(modes[i].name, text, nl) != 0)
			continue;
		out->mode = modes[i].m;
		out->arg = 0;
		if (modes[i].hi == 0) {
			if (colon) {
				*why = "this mode takes no argument";
				return -1;
			}
			return 0;
		}
		if (!colon || parse_long(colon + 1, len - nl - 1, modes[i].lo, modes[i].hi, &out->arg) < 0) {
			*why = "this mode needs a number in range after ':'";
			return -1;
		}
		return 0;
	}
	*why = "unknown mode (pass, disconnect, truncate:N, stall, slow:BPS, redirect:PORT)";
	return -1;
}

static volatile sig_atomic_t fp_stop;

static void on_term(int sig)
{
	(void)sig;
	fp_stop = 1;
}

static int connect_loopback(int port)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void reset_close(int fd)
{
	struct linger l = {1, 0};
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
	close(fd);
}

static int write_all(int fd, const char *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* one connection, in its own child */
static void serve(int cfd, int upstream, const sp_fp_mode_t *m)
{
	if (m->mode == SP_FP_DISCONNECT) {
		reset_close(cfd);
		return;
	}
	int ufd = connect_loopback(m->mode == SP_FP_REDIRECT ? (int)m->arg : upstream);
	if (ufd < 0) {
		reset_close(cfd); /* the upstream is gone: the client sees a reset */
		return;
	}
	uint64_t end = sp_now_ns() + (uint64_t)FP_CONN_MAX_S * 1000000000ull;
	long long left = m->mode == SP_FP_TRUNCATE ? m->arg : LLONG_MAX;
	static char buf[FP_BUF];
	bool cdone = false;
	for (;;) {
		uint64_t now = sp_now_ns();
		if (now >= end)
			break;
		struct pollfd pf[2] = {{.fd = cfd, .events = cdone ? 0 : POLLIN}, {.fd = ufd, .events = POLLIN}};
		if (m->mode == SP_FP_STALL)
			pf[1].events = 0; /* the answer is never read */
		int ms = (int)((end - now) / 1000000ull);
		int r = poll(pf, 2, ms > 1000 ? 1000 : ms);
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t n = read(cfd, buf, sizeof buf);
			if (n <= 0) {
				if (m->mode == SP_FP_STALL || n < 0)
					break;
				cdone = true; /* the client half-closed: pass it on */
				shutdown(ufd, SHUT_WR);
			} else if (write_all(ufd, buf, (size_t)n) < 0) {
				break;
			}
		}
		if (pf[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			size_t want = sizeof buf;
			if (m->mode == SP_FP_SLOW && want > (size_t)m->arg / 10 + 1)
				want = (size_t)m->arg / 10 + 1; /* about a tenth of a second's bytes */
			if ((long long)want > left)
				want = (size_t)left;
			ssize_t n = want ? read(ufd, buf, want) : 0;
			if (n <= 0)
				break;
			if (write_all(cfd, buf, (size_t)n) < 0)
				break;
			left -= n;
			if (left <= 0)
				break; /* truncated: both closed below */
			if (m->mode == SP_FP_SLOW) {
				long long ns = (long long)n * 1000000000LL / m->arg;
				struct timespec ts = {ns / 1000000000LL, ns % 1000000000LL};
				nanosleep(&ts, NULL);
			}
		}
	}
	if (m->mode == SP_FP_TRUNCATE)
		reset_close(cfd); /* a reset, so no client takes the short answer for a whole one */
	else
		close(cfd);
	close(ufd);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: sandprobe soak fault-proxy --upstream PORT --mode-file FILE (--port-file FILE | --listen PORT)\n"
		   "                                  [--pid-file FILE] [--lifetime-s S]\n"
		   "a loopback TCP proxy for fault F05; modes (one line in the mode file, read at each connection):\n"
		   "  pass, disconnect, truncate:N, stall, slow:BPS, redirect:PORT\n");
}

static int write_file(const char *path, long v)
{
	char tmp[4096];
	if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
		return -1;
	FILE *f = fopen(tmp, "we");
	if (!f)
		return -1;
	fprintf(f, "%ld\n", v);
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

int sp_soak_fault_proxy_main(int argc, char **argv)
{
	const char *modefile = NULL, *portfile = NULL, *pidfile = NULL;
	long upstream = 0, listen_port = 0, lifetime = 3600;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return SP_EXIT_OK;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "sandprobe: soak fault-proxy: '%s' needs a value (or is unknown; try --help)\n", a);
			return SP_EXIT_USAGE;
		}
		const char *v = argv[++i];
		long *num = !strcmp(a, "--upstream")     ? &upstream
			    : !strcmp(a, "--listen")     ? &listen_port
			    : !strcmp(a, "--lifetime-s") ? &lifetime
							 : NULL;
		if (num) {
			long hi = num == &lifetime ? 86400 : 65535;
			if (parse_long(v, strlen(v), 1, hi, num) < 0) {
				fprintf(stderr, "sandprobe: soak fault-proxy: %s: '%s' is not a number from 1 to %ld\n", a, v, hi);
				return SP_EXIT_USAGE;
			}
		} else if (!strcmp(a, "--mode-file")) {
			modefile = v;
		} else if (!strcmp(a, "--port-file")) {
			portfile = v;
		} else if (!strcmp(a, "--pid-file")) {
			pidfile = v;
		} else {
			fprintf(stderr, "sandprobe: soak fault-proxy: unknown option '%s' (try --help)\n", a);
			return SP_EXIT_USAGE;
		}
	}
	if (!upstream || !modefile || (!portfile && !listen_port)) {
		fprintf(stderr, "sandprobe: soak fault-proxy: --upstream, --mode-file and --port-file or --listen are required\n");
		return SP_EXIT_USAGE;
	}
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)listen_port)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int one = 1;
	if (lfd >= 0)
		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 64) < 0) {
		fprintf(stderr, "sandprobe: soak fault-proxy: cannot listen on 127.0.0.1:%ld: %s\n", listen_port,
			strerror(errno));
		if (lfd >= 0)
			close(lfd);
		return SP_EXIT_FAIL;
	}
	socklen_t al = sizeof a;
	getsockname(lfd, (struct sockaddr *)&a, &al);
	int port = ntohs(a.sin_port);
	struct sigaction sa = {.sa_handler = on_term};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if ((pidfile && write_file(pidfile, (long)getpid()) < 0) || (portfile && write_file(portfile, port) < 0)) {
		fprintf(stderr, "sandprobe: soak fault-proxy: cannot write %s: %s\n", pidfile ? pidfile : portfile,
			strerror(errno));
		close(lfd);
		return SP_EXIT_FAIL;
	}
	pid_t self = getpid();
	pid_t kids[FP_MAX_CONNS] = {0};
	uint64_t end = sp_now_ns() + (uint64_t)lifetime * 1000000000ull;
	while (!fp_stop && sp_now_ns() < end) {
		for (int i = 0; i < FP_MAX_CONNS; i++)
			if (kids[i] > 0 && waitpid(kids[i], NULL, WNOHANG) == kids[i])
				kids[i] = 0;
		struct pollfd pf = {.fd = lfd, .events = POLLIN};
		if (poll(&pf, 1, 200) <= 0)
			continue;
		int cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (cfd < 0)
			continue;
		int slot = -1;
		for (int i = 0; i < FP_MAX_CONNS && slot < 0; i++)
			if (kids[i] == 0)
				slot = i;
		char line[64];
		ssize_t n = sp_read_file(modefile, line, sizeof line);
		sp_fp_mode_t m = {SP_FP_PASS, 0};
		const char *why = NULL;
		if (n > 0 && sp_fp_mode_parse(line, (size_t)n, &m, &why) < 0) {
			fprintf(stderr, "sandprobe: soak fault-proxy: %s: %s; connection closed\n", modefile, why);
			reset_close(cfd);
			continue;
		}
		if (slot < 0) {
			reset_close(cfd); /* bounded: no more than FP_MAX_CONNS at once */
			continue;
		}
		pid_t k = fork();
		if (k == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != self)
				_exit(0);
			close(lfd);
			signal(SIGTERM, SIG_DFL);
			serve(cfd, (int)upstream, &m);
			_exit(0);
		}
		if (k > 0)
			kids[slot] = k;
		close(cfd);
	}
	close(lfd);
	for (int i = 0; i < FP_MAX_CONNS; i++)
		if (kids[i] > 0) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
		}
	if (pidfile)
		unlink(pidfile);
	return SP_EXIT_OK;
}
