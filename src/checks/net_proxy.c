/* Proxy-aware egress probes (see net_proxy.h). Each request runs in its own
 * forked child (so a stuck proxy costs one deadline, not one per request);
 * the child speaks plain HTTP/1.1 to the proxy (or opens a SOCKS5 tunnel and
 * speaks HTTP to the origin through it) with non-blocking sockets and an
 * absolute deadline, and writes back one sp_preq_out. */
#include "checks/net_proxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "checks/types.h"
#include "core/runner.h"
#include "core/util.h"

/* ---- the child side ---------------------------------------------------------- */

typedef struct io {
	int fd;
	uint64_t deadline;
} io;

static int io_wait(io *c, short ev)
{
	return sp_net_wait(c->fd, ev, c->deadline);
}

/* send all; stops early (returns 1) when the peer has something to say */
static int io_send(io *c, const void *buf, size_t len, bool stop_on_input)
{
	return sp_net_send_all(c->fd, buf, len, c->deadline, stop_on_input);
}

/* read until the end of the response head (or EOF); returns bytes or -errno */
static ssize_t io_read_head(io *c, char *buf, size_t size)
{
	return sp_net_read_head(c->fd, buf, size, c->deadline, false);
}

int sp_http_status(const char *head)
{
	int maj, min, st;
	if (sscanf(head, "HTTP/%d.%d %d", &maj, &min, &st) == 3 && st >= 100 && st <= 999)
		return st;
	return -1;
}

/* value of a response header, case-insensitive name */
static void header(const char *head, const char *name, char *out, size_t size)
{
	out[0] = '\0';
	size_t nl = strlen(name);
	for (const char *p = strstr(head, "\r\n"); p; p = strstr(p + 2, "\r\n")) {
		const char *h = p + 2;
		if (!strncasecmp(h, name, nl) && h[nl] == ':') {
			h += nl + 1;
			while (*h == ' ')
				h++;
			size_t l = strcspn(h, "\r\n");
			snprintf(out, size, "%.*s", (int)(l < size ? l : size - 1), h);
			return;
		}
	}
}

static void classify_status(sp_preq_out *o, const char *head, bool connect)
{
	char serr[64], server[48];
	o->status = sp_http_status(head);
	header(head, "X-Squid-Error", serr, sizeof serr);
	header(head, "Server", server, sizeof server);
	int st = o->status;
	snprintf(o->note, sizeof o->note, "%d%s%s%s%s", st, serr[0] ? " X-Squid-Error: " : "", serr,
		 server[0] ? " Server: " : "", server);
	if (st < 0) {
		o->verdict = SP_PV_ERROR;
		snprintf(o->note, sizeof o->note, "not an HTTP response");
		return;
	}
	bool proxy_made = serr[0] != '\0';
	if (st >= 200 && st < 400)
		o->verdict = (connect && st != 200) ? SP_PV_DENIED : SP_PV_REACHED;
	else if (st >= 400 && st < 500) {
		bool refusal = st == 400 || st == 403 || st == 405 || st == 407 || st == 411 || st == 413 || st == 417 ||
			       st == 431 || st == 451;
		o->verdict = (proxy_made || refusal || connect) ? SP_PV_DENIED : SP_PV_REACHED;
	} else if (st == 501)
		o->verdict = SP_PV_DENIED;
	else if (st >= 500)
		o->verdict = SP_PV_UPSTREAM;
	else
		o->verdict = SP_PV_ERROR;
}

static void transport_fail(sp_preq_out *o, int e, const char *stage)
{
	o->err = e;
	o->verdict = e == ETIMEDOUT ? SP_PV_TIMEOUT : SP_PV_ERROR;
	snprintf(o->note, sizeof o->note, "%s: %s", stage, strerrorname_np(e) ? strerrorname_np(e) : "?");
}

static const char *method_name(sp_pkind k)
{
	switch (k) {
	case SP_PK_GET: return "GET";
	case SP_PK_PUT: return "PUT";
	case SP_PK_POST:
	case SP_PK_POST_LARGE:
	case SP_PK_POST_LATE: return "POST";
	case SP_PK_CONNECT:
	case SP_PK_CONNECT_NONTLS: return "CONNECT";
	}
	return "GET";
}

/* after a refusal mid-upload: read whatever the proxy said */
static void read_verdict(io *c, sp_preq_out *o, bool connect)
{
	char head[8192];
	ssize_t h = io_read_head(c, head, sizeof head);
	if (h > 0) {
		classify_status(o, head, connect);
	} else if (h == 0 || h == -ECONNRESET || h == -EPIPE) {
		o->verdict = SP_PV_DENIED;
		snprintf(o->note, sizeof o->note, "proxy closed the connection without an answer (%s)",
			 h == 0 ? "EOF" : strerrorname_np((int)-h));
	} else {
		transport_fail(o, (int)-h, "reading the answer");
	}
}

/* ---- the HTTP request, for a proxy or through a tunnel ------------------------ */

static const char small_body[] = "sandprobe read-only probe: this body must never reach the origin\n";

/* The request line and headers for kind. prefix is "http://TARGET" for an
 * HTTP proxy (absolute form) or "" inside a tunnel (origin form). */
static void request_head(const sp_preq *q, sp_pkind kind, const char *prefix, char *req, size_t size)
{
	if (kind == SP_PK_GET)
		snprintf(req, size,
			 "GET %s/%s HTTP/1.1\r\nHost: %s\r\nUser-Agent: sandprobe-doctor\r\nAccept: */*\r\n"
			 "Connection: close\r\n\r\n",
			 prefix, q->marker, q->target);
	else if (kind == SP_PK_POST_LATE)
		snprintf(req, size,
			 "POST %s/%s HTTP/1.1\r\nHost: %s\r\nUser-Agent: sandprobe-doctor\r\n"
			 "Content-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
			 prefix, q->marker, q->target);
	else
		snprintf(req, size,
			 "%s %s/%s HTTP/1.1\r\nHost: %s\r\nUser-Agent: sandprobe-doctor\r\n"
			 "Content-Type: application/octet-stream\r\nContent-Length: %llu\r\nConnection: close\r\n\r\n",
			 method_name(kind), prefix, q->marker, q->target,
			 kind == SP_PK_POST_LARGE ? q->body_bytes : (unsigned long long)(sizeof small_body - 1));
}

/* The body of q's kind (none for GET and CONNECT): the small read-only probe
 * for POST/PUT, body_bytes of a pattern for the large and the (chunked) late
 * body. Stops when the peer starts to answer (returns 1) or fails (-errno);
 * o->body_sent counts what went out. */
static int send_body(io *c, const sp_preq *q, sp_preq_out *o)
{
	int s = 0;
	if (q->kind == SP_PK_POST || q->kind == SP_PK_PUT) {
		s = io_send(c, small_body, sizeof small_body - 1, true);
		if (s == 0)
			o->body_sent = sizeof small_body - 1;
		return s;
	}
	if (q->kind != SP_PK_POST_LARGE && q->kind != SP_PK_POST_LATE)
		return 0;
	bool chunked = q->kind == SP_PK_POST_LATE;
	char chunk[16384];
	for (size_t i = 0; i < sizeof chunk; i++)
		chunk[i] = (char)('A' + i % 26);
	while (o->body_sent < q->body_bytes && s == 0) {
		size_t part = q->body_bytes - o->body_sent < sizeof chunk ? (size_t)(q->body_bytes - o->body_sent)
									 : sizeof chunk;
		if (chunked) {
			char hdr[32];
			snprintf(hdr, sizeof hdr, "%zx\r\n", part);
			s = io_send(c, hdr, strlen(hdr), true);
		}
		if (s == 0)
			s = io_send(c, chunk, part, true);
		if (s == 0 && chunked)
			s = io_send(c, "\r\n", 2, true);
		if (s == 0)
			o->body_sent += part;
	}
	if (s == 0 && chunked)
		s = io_send(c, "0\r\n\r\n", 5, true);
	return s;
}

/* ---- SOCKS5 (RFC 1928, method "no authentication") --------------------------- */

/* exactly len bytes: len, 0 at EOF before len, or -errno */
static ssize_t io_read_exact(io *c, void *buf, size_t len)
{
	return sp_net_read_exact(c->fd, buf, len, c->deadline);
}

static const char *socks_reply_name(int rep)
{
	static const char *const names[] = {"succeeded",
					    "general SOCKS server failure",
					    "connection not allowed by ruleset",
					    "network unreachable",
					    "host unreachable",
					    "connection refused",
					    "TTL expired",
					    "command not supported",
					    "address type not supported"};
	return rep >= 0 && rep < (int)SP_ARRAY_SIZE(names) ? names[rep] : "unassigned reply";
}

/* "host[:port]" / "[v6][:port]" -> host and port (default when absent) */
static int split_target(const char *t, unsigned defport, char *host, size_t hsz, unsigned *port)
{
	sp_outcome o = {0};
	return sp_net_parse_name_port(t, defport, host, hsz, port, &o);
}

/* Greeting and CONNECT. Returns 1 when the tunnel is open, 0 when o holds
 * the verdict. A name goes to the proxy as a name (ATYP 3: the proxy
 * resolves it, as socks5h does), a literal address as an address. */
static int socks_open(io *c, const sp_preq *q, sp_preq_out *o)
{
	static const unsigned char hello[] = {5, 1, 0};
	int s = io_send(c, hello, sizeof hello, false);
	unsigned char b[4 + 256 + 2];
	ssize_t n = s < 0 ? s : io_read_exact(c, b, 2);
	if (n <= 0) {
		o->verdict = SP_PV_PROXYDOWN;
		snprintf(o->note, sizeof o->note, "no SOCKS5 greeting from the proxy (%s)",
			 n == 0 ? "EOF" : strerrorname_np((int)-n));
		return 0;
	}
	if (b[0] != 5 || b[1] != 0) {
		o->verdict = SP_PV_PROXYDOWN;
		if (b[0] != 5)
			snprintf(o->note, sizeof o->note, "not a SOCKS5 proxy (greeting answered with version %u)", b[0]);
		else
			snprintf(o->note, sizeof o->note, "the SOCKS5 proxy demands authentication (method 0x%02x): the doctor "
							  "has no credentials, nothing can be proven", b[1]);
		return 0;
	}
	char host[160];
	unsigned port;
	bool connect = q->kind == SP_PK_CONNECT || q->kind == SP_PK_CONNECT_NONTLS;
	if (split_target(q->target, connect ? 443 : 80, host, sizeof host, &port) < 0) {
		o->verdict = SP_PV_ERROR;
		snprintf(o->note, sizeof o->note, "bad target %s", q->target);
		return 0;
	}
	size_t len = 0;
	b[len++] = 5;
	b[len++] = 1; /* CONNECT */
	b[len++] = 0;
	struct in_addr a4;
	struct in6_addr a6;
	if (inet_pton(AF_INET, host, &a4) == 1) {
		b[len++] = 1;
		memcpy(b + len, &a4, 4);
		len += 4;
	} else if (inet_pton(AF_INET6, host, &a6) == 1) {
		b[len++] = 4;
		memcpy(b + len, &a6, 16);
		len += 16;
	} else {
		size_t hl = strlen(host);
		if (hl > 255) {
			o->verdict = SP_PV_ERROR;
			snprintf(o->note, sizeof o->note, "target name longer than SOCKS5 allows");
			return 0;
		}
		b[len++] = 3;
		b[len++] = (unsigned char)hl;
		memcpy(b + len, host, hl);
		len += hl;
	}
	b[len++] = (unsigned char)(port >> 8);
	b[len++] = (unsigned char)(port & 0xff);
	s = io_send(c, b, len, false);
	n = s < 0 ? s : io_read_exact(c, b, 4);
	if (n == 0 || n == -ECONNRESET || n == -EPIPE) {
		o->verdict = SP_PV_DENIED;
		snprintf(o->note, sizeof o->note, "proxy closed the connection on the SOCKS5 CONNECT (%s)",
			 n == 0 ? "EOF" : strerrorname_np((int)-n));
		return 0;
	}
	if (n < 0) {
		transport_fail(o, (int)-n, "SOCKS5 CONNECT");
		return 0;
	}
	if (b[0] != 5) {
		o->verdict = SP_PV_ERROR;
		snprintf(o->note, sizeof o->note, "not a SOCKS5 reply (version %u)", b[0]);
		return 0;
	}
	int rep = b[1];
	if (rep != 0) {
		/* 2 is a refusal by the proxy's rules; 3-6 mean it tried the target
		 * (nothing proven); anything else is not a refusal either */
		o->verdict = rep == 2 ? SP_PV_DENIED : SP_PV_UPSTREAM;
		snprintf(o->note, sizeof o->note, "SOCKS5 reply %d: %s", rep, socks_reply_name(rep));
		return 0;
	}
	/* the bound address: consume it so the tunnel starts clean */
	size_t alen = b[3] == 1 ? 4 : b[3] == 4 ? 16 : 0;
	if (b[3] == 3) {
		n = io_read_exact(c, b, 1);
		alen = n == 1 ? b[0] : 0;
	}
	n = io_read_exact(c, b, alen + 2);
	if (n <= 0) {
		o->verdict = SP_PV_ERROR;
		snprintf(o->note, sizeof o->note, "truncated SOCKS5 reply");
		return 0;
	}
	return 1;
}

/* Through an open tunnel the proxy sees bytes, not requests: once it is
 * open, the request reached the target. The request is still sent (origin
 * form) so the origin's own record shows it, and its answer is noted. */
static void socks_request(io *c, const sp_preq *q, sp_preq_out *o)
{
	o->verdict = SP_PV_REACHED;
	if (q->kind == SP_PK_CONNECT) {
		snprintf(o->note, sizeof o->note, "SOCKS5 tunnel to %s opened", q->target);
		return;
	}
	char req[1024];
	request_head(q, q->kind == SP_PK_CONNECT_NONTLS ? SP_PK_GET : q->kind, "", req, sizeof req);
	int s = io_send(c, req, strlen(req), false);
	if (s == 0)
		s = send_body(c, q, o);
	char head[1024];
	ssize_t n = s < 0 ? s : io_read_head(c, head, sizeof head);
	int st = n > 0 ? sp_http_status(head) : -1;
	o->status = st > 0 ? st : 0;
	if (st > 0)
		snprintf(o->note, sizeof o->note, "SOCKS5 tunnel opened; the origin answered %d%s", st,
			 o->body_sent ? " after the body" : "");
	else
		snprintf(o->note, sizeof o->note, "SOCKS5 tunnel opened; %llu body bytes sent, no HTTP answer (%s)",
			 o->body_sent, n == 0 ? "EOF" : n > 0 ? "not HTTP" : strerrorname_np((int)-n));
}

static int do_request(sp_preq *q)
{
	sp_preq_out *o = &q->out;
	uint64_t deadline = sp_now_ns() + (uint64_t)q->timeout_ms * 1000000ull;
	int fd = sp_net_connect_deadline((struct sockaddr *)&q->proxy, q->proxylen, deadline);
	if (fd < 0) {
		o->err = -fd;
		o->verdict = SP_PV_PROXYDOWN;
		snprintf(o->note, sizeof o->note, "cannot connect to the proxy: %s", strerrorname_np(-fd));
		return 0;
	}
	io c = {.fd = fd, .deadline = deadline};
	if (q->socks) {
		if (socks_open(&c, q, o) == 1)
			socks_request(&c, q, o);
		close(fd);
		return 0;
	}
	bool connect = q->kind == SP_PK_CONNECT || q->kind == SP_PK_CONNECT_NONTLS;
	char req[1024];
	if (connect)
		snprintf(req, sizeof req, "CONNECT %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: sandprobe-doctor\r\n\r\n", q->target,
			 q->target);
	else {
		char prefix[200];
		snprintf(prefix, sizeof prefix, "http://%s", q->target);
		request_head(q, q->kind, prefix, req, sizeof req);
	}
	int s = io_send(&c, req, strlen(req), false);
	if (s < 0) {
		transport_fail(o, -s, "sending the request");
		close(fd);
		return 0;
	}
	if (q->kind == SP_PK_POST_LATE) {
		/* the late part: the proxy has the headers and nothing else for late_ms */
		io w = {.fd = fd, .deadline = sp_now_ns() + (uint64_t)q->late_ms * 1000000ull};
		if (w.deadline > deadline)
			w.deadline = deadline;
		int ev = io_wait(&w, POLLIN);
		if (ev > 0) {
			read_verdict(&c, o, false);
			snprintf(o->note + strlen(o->note), sizeof o->note - strlen(o->note), " (before the body)");
			close(fd);
			return 0;
		}
	}
	s = send_body(&c, q, o);
	if (s < 0 && s != -EPIPE && s != -ECONNRESET) {
		transport_fail(o, -s, "sending the body");
		close(fd);
		return 0;
	}
	read_verdict(&c, o, connect);
	if (s < 0 && o->verdict == SP_PV_DENIED)
		snprintf(o->note + strlen(o->note), sizeof o->note - strlen(o->note), " (body cut after %llu bytes)",
			 o->body_sent);
	if (q->kind == SP_PK_CONNECT_NONTLS && o->verdict == SP_PV_REACHED) {
		/* the tunnel is open: does it carry plain HTTP? */
		char probe[256];
		snprintf(probe, sizeof probe, "GET /%s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", q->marker, q->target);
		s = io_send(&c, probe, strlen(probe), false);
		char back[512];
		ssize_t n = s < 0 ? s : io_read_head(&c, back, sizeof back);
		if (n > 0) {
			o->verdict = SP_PV_REACHED;
			snprintf(o->note, sizeof o->note, "tunnel opened and carried plain HTTP: %zd bytes came back (%.24s)", n,
				 back);
		} else if (n == 0 || n == -ECONNRESET || n == -EPIPE) {
			o->verdict = SP_PV_DENIED;
			snprintf(o->note, sizeof o->note, "tunnel opened, closed on non-TLS bytes (%s)",
				 n == 0 ? "EOF" : strerrorname_np((int)-n));
		} else {
			o->verdict = SP_PV_TIMEOUT;
			snprintf(o->note, sizeof o->note, "tunnel opened, no answer to non-TLS bytes (%s): delivery unknown",
				 strerrorname_np((int)-n));
		}
	}
	close(fd);
	return 0;
}

static int child_main(void *arg, int fd)
{
	sp_preq *q = arg;
	memset(&q->out, 0, sizeof q->out);
	do_request(q);
	return sp_write_all(fd, &q->out, sizeof q->out) == 0 ? 0 : 3;
}

/* ---- plan ---------------------------------------------------------------------- */

static bool on(const sp_ctx *ctx, const char *id)
{
	return sp_policy_expect(ctx->policy, id) != SP_EXPECT_OFF;
}

/* a name from /etc/hosts (the static doctor has no NSS); 0 or -1 */
static int hosts_lookup(const char *name, char *addr, size_t size)
{
	int e = 0;
	_cleanup_free_ char *h = sp_read_file_alloc("/etc/hosts", 1 << 20, NULL, &e);
	if (!h)
		return -1;
	char *save = NULL;
	for (char *line = strtok_r(h, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, "#")] = '\0';
		char *s2 = NULL, *ip = strtok_r(line, " \t", &s2);
		if (!ip)
			continue;
		for (char *n = strtok_r(NULL, " \t", &s2); n; n = strtok_r(NULL, " \t", &s2))
			if (!strcasecmp(n, name)) {
				snprintf(addr, size, "%s", ip);
				return 0;
			}
	}
	return -1;
}

/* The syntax of a proxy URL ("http://[user:pw@]host[:port][/]", socks5://,
 * socks5h://, or a bare host[:port]): whether it is SOCKS, and its host and
 * port. Credentials are skipped and never shown. 0, or -1 with o's reason. */
static int proxy_url_syntax(const char *url, bool *socks, char *host, size_t hsz, unsigned *port, sp_outcome *o)
{
	const char *p = url;
	*socks = false;
	if (!strncasecmp(p, "http://", 7)) {
		p += 7;
	} else if (!strncasecmp(p, "socks5://", 9) || !strncasecmp(p, "socks5h://", 10)) {
		*socks = true;
		p = strstr(p, "://") + 3;
	} else if (!strncasecmp(p, "https://", 8)) {
		sp_why(o, "TLS to the proxy (https://) is not supported by the static doctor: use its http:// "
			  "or socks5:// address");
		return -1;
	} else if (!strncasecmp(p, "socks", 5)) {
		sp_why(o, "only socks5:// and socks5h:// SOCKS proxies are supported");
		return -1;
	} else if (strstr(p, "://")) {
		sp_why(o, "unknown proxy scheme (http://, socks5://, socks5h://)");
		return -1;
	}
	const char *at = strchr(p, '@');
	const char *slash = strchr(p, '/');
	if (at && (!slash || at < slash))
		p = at + 1; /* credentials: never shown */
	char hp[160];
	size_t hl = strcspn(p, "/");
	if (hl >= sizeof hp) {
		sp_why(o, "the proxy address is too long");
		return -1;
	}
	snprintf(hp, sizeof hp, "%.*s", (int)hl, p);
	return sp_net_parse_name_port(hp, *socks ? 1080 : 80, host, hsz, port, o);
}

static int parse_proxy_url(const char *url, struct sockaddr_storage *sa, socklen_t *len, bool *socks, sp_outcome *o)
{
	char host[128];
	unsigned port;
	if (proxy_url_syntax(url, socks, host, sizeof host, &port, o) < 0)
		return -1;
	char addr[128];
	if (!strcasecmp(host, "localhost"))
		snprintf(addr, sizeof addr, "127.0.0.1");
	else
		snprintf(addr, sizeof addr, "%s", host);
	struct in_addr a4;
	struct in6_addr a6;
	if (inet_pton(AF_INET, addr, &a4) != 1 && inet_pton(AF_INET6, addr, &a6) != 1 &&
	    hosts_lookup(host, addr, sizeof addr) < 0) {
		sp_why(o, "proxy host '%s' is not an address and not in /etc/hosts", host);
		return -1;
	}
	char hostport[200];
	snprintf(hostport, sizeof hostport, strchr(addr, ':') ? "[%s]:%u" : "%s:%u", addr, port);
	return sp_net_parse_hostport(hostport, 0, sa, len, o);
}

/* ---- the grammars of the proxy keys (core/policy.h) ---- */

static int proxy_url_parse(const char *s, sp_outcome *o)
{
	bool socks;
	char host[128];
	unsigned port;
	if (proxy_url_syntax(s, &socks, host, sizeof host, &port, o) == 0)
		return 0;
	return -1;
}

static int proxy_target_parse(const char *s, sp_outcome *o)
{
	char host[160];
	unsigned port;
	if (sp_net_parse_name_port(s, 80, host, sizeof host, &port, o) == 0)
		return 0;
	return -1;
}

const sp_policy_type sp_ptype_proxy_url = {.name = "proxy_url",
					   .what = "http://HOST[:PORT], socks5://HOST[:PORT] or socks5h://HOST[:PORT]",
					   .parse = proxy_url_parse};
const sp_policy_type sp_ptype_proxy_hosts = {.name = "proxy_hosts", .what = "HOST[:PORT] (a name or an address)",
					     .list = true, .max = SP_PROXY_MAX_HOSTS, .parse = proxy_target_parse};
const sp_policy_type sp_ptype_proxy_host = {.name = "proxy_host", .what = "one HOST[:PORT] (a name or an address)",
					    .parse = proxy_target_parse};

static sp_preq *add_req(sp_proxy_plan *pl, const char *check, sp_pkind kind, const char *target, unsigned timeout_ms)
{
	pl->req = sp_xrealloc(pl->req, (pl->n + 1) * sizeof *pl->req);
	sp_preq *q = &pl->req[pl->n++];
	memset(q, 0, sizeof *q);
	q->check = check;
	q->kind = kind;
	q->socks = pl->socks;
	q->timeout_ms = timeout_ms;
	q->proxy = pl->proxy;
	q->proxylen = pl->proxylen;
	q->log_seen = -1;
	snprintf(q->target, sizeof q->target, "%s", target);
	static unsigned seq;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(q->marker, sizeof q->marker, "sandprobe-%s-%d-%u-%06lx", check + strlen("net.proxy."), (int)getpid(),
		 seq++, (unsigned long)(ts.tv_nsec & 0xffffff));
	const char *m = method_name(kind);
	const char *via = q->socks ? "SOCKS5 " : "";
	if (kind == SP_PK_CONNECT || kind == SP_PK_CONNECT_NONTLS)
		snprintf(q->label, sizeof q->label, "%sCONNECT %s%s", via, target,
			 kind == SP_PK_CONNECT_NONTLS ? " +plain HTTP" : "");
	else
		snprintf(q->label, sizeof q->label, "%s%s http://%s/%s", via, m, target,
			 kind == SP_PK_POST_LARGE ? "(large body)" : kind == SP_PK_POST_LATE ? "(late chunked body)" : "");
	return q;
}

/* "host[:port]" -> host part */
static void host_only(const char *hp, char *out, size_t size)
{
	if (hp[0] == '[') {
		snprintf(out, size, "%.*s", (int)strcspn(hp, "]") + 1, hp);
		return;
	}
	snprintf(out, size, "%.*s", (int)strcspn(hp, ":"), hp);
}

void sp_proxy_plan_build(const sp_ctx *ctx, sp_proxy_plan *pl, unsigned timeout_ms)
{
	memset(pl, 0, sizeof *pl);
	pl->log_offset = -1;
	const char *url = sp_policy_get(ctx->policy, "net.proxy");
	if (url && *url) {
		snprintf(pl->source, sizeof pl->source, "net.proxy");
	} else {
		static const char *const envs[] = {"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
						   "ALL_PROXY",   "all_proxy"};
		url = NULL;
		for (size_t i = 0; i < SP_ARRAY_SIZE(envs) && !url; i++) {
			const char *v = getenv(envs[i]);
			if (v && *v) {
				url = v;
				snprintf(pl->source, sizeof pl->source, "%s", envs[i]);
			}
		}
	}
	if (!url)
		return;
	pl->configured = true;
	/* keep credentials out of every report */
	const char *at = strchr(url, '@');
	if (at)
		snprintf(pl->url, sizeof pl->url, "%.*s<redacted>@%s", (int)(strstr(url, "://") ? strstr(url, "://") - url + 3 : 0),
			 url, at + 1);
	else
		snprintf(pl->url, sizeof pl->url, "%s", url);
	sp_outcome o = {0};
	if (parse_proxy_url(url, &pl->proxy, &pl->proxylen, &pl->socks, &o) < 0) {
		snprintf(pl->error, sizeof pl->error, "%s = %s: %s", pl->source, pl->url, o.why);
		return;
	}
	unsigned long long body = (unsigned long long)sp_policy_int(ctx->policy, "net.proxy.body_bytes", 1 << 20);
	unsigned late = (unsigned)sp_policy_int(ctx->policy, "net.proxy.late_ms", 300);
	if (late >= timeout_ms)
		late = timeout_ms / 3;
	sp_strv allowed, ro, deny;
	sp_policy_list(ctx->policy, "net.proxy.allowed_hosts", &allowed);
	sp_policy_list(ctx->policy, "net.proxy.readonly_hosts", &ro);
	sp_policy_list(ctx->policy, "net.egress.deny", &deny);
	const char *canary = sp_policy_get(ctx->policy, "net.proxy.canary_host");
	const char *priv = sp_policy_get(ctx->policy, "net.proxy.private_host");
	/* the positive control runs whenever any proxy check does */
	for (size_t i = 0; i < allowed.n && i < 3; i++) {
		bool tls = sp_endswith(allowed.v[i], ":443");
		sp_preq *q = add_req(pl, "net.proxy.allowed", tls ? SP_PK_CONNECT : SP_PK_GET, allowed.v[i], timeout_ms);
		q->positive = true;
	}
	if (canary && *canary && on(ctx, "net.proxy.canary")) {
		char h[160], t[170];
		host_only(canary, h, sizeof h);
		add_req(pl, "net.proxy.canary", SP_PK_GET, canary, timeout_ms);
		snprintf(t, sizeof t, "%s:443", h);
		add_req(pl, "net.proxy.canary", SP_PK_CONNECT, t, timeout_ms);
	}
	if (on(ctx, "net.proxy.readonly"))
		for (size_t i = 0; i < ro.n && i < SP_PROXY_MAX_HOSTS; i++) {
			add_req(pl, "net.proxy.readonly", SP_PK_POST, ro.v[i], timeout_ms);
			add_req(pl, "net.proxy.readonly", SP_PK_PUT, ro.v[i], timeout_ms);
		}
	/* bodies go to a host that may be written to, so only the size can refuse them */
	const char *writable = NULL;
	for (size_t i = 0; i < allowed.n && !writable; i++)
		if (!sp_strv_contains(&ro, allowed.v[i]) && !sp_endswith(allowed.v[i], ":443"))
			writable = allowed.v[i];
	if (!writable && ro.n)
		writable = ro.v[0];
	if (writable && on(ctx, "net.proxy.body")) {
		sp_preq *q = add_req(pl, "net.proxy.body", SP_PK_POST_LARGE, writable, timeout_ms);
		q->body_bytes = body;
	}
	if (writable && on(ctx, "net.proxy.late_body")) {
		sp_preq *q = add_req(pl, "net.proxy.late_body", SP_PK_POST_LATE, writable, timeout_ms);
		q->body_bytes = body;
		q->late_ms = late;
	}
	if (on(ctx, "net.proxy.connect_ip")) {
		size_t v4 = 0, v6 = 0;
		for (size_t i = 0; i < deny.n; i++) {
			struct sockaddr_storage sa;
			socklen_t len;
			if (sp_net_parse_hostport(deny.v[i], 0, &sa, &len, &o) < 0)
				continue;
			char t[200];
			if (sa.ss_family == AF_INET && v4++ < 2) {
				const struct sockaddr_in *a = (const struct sockaddr_in *)&sa;
				for (sp_ipform f = SP_IPF_DOTTED; f < SP_IPF_COUNT; f++) {
					char txt[64];
					sp_ipv4_format(ntohl(a->sin_addr.s_addr), f, txt, sizeof txt);
					snprintf(t, sizeof t, f == SP_IPF_MAPPED ? "[%s]:%u" : "%s:%u", txt, ntohs(a->sin_port));
					sp_preq *q = add_req(pl, "net.proxy.connect_ip", SP_PK_CONNECT, t, timeout_ms);
					/* proxies log the address they decoded, not the spelling sent */
					sp_net_format_sa((struct sockaddr *)&sa, q->canon, sizeof q->canon);
				}
			} else if (sa.ss_family == AF_INET6 && v6++ < 1) {
				sp_net_format_sa((struct sockaddr *)&sa, t, sizeof t);
				add_req(pl, "net.proxy.connect_ip", SP_PK_CONNECT, t, timeout_ms);
			}
		}
	}
	if (allowed.n && on(ctx, "net.proxy.connect_nontls")) {
		char h[160], t[170];
		host_only(allowed.v[0], h, sizeof h);
		snprintf(t, sizeof t, "%s:443", h);
		add_req(pl, "net.proxy.connect_nontls", SP_PK_CONNECT_NONTLS, t, timeout_ms);
	}
	if (priv && *priv && on(ctx, "net.proxy.private_dest"))
		add_req(pl, "net.proxy.private_dest", SP_PK_GET, priv, timeout_ms);
	sp_strv_free(&allowed);
	sp_strv_free(&ro);
	sp_strv_free(&deny);

	pl->access_log = sp_policy_get(ctx->policy, "net.proxy.access_log");
	if (pl->access_log && !*pl->access_log)
		pl->access_log = NULL;
	/* a SOCKS proxy's log names connections, not requests: no marker to
	 * find again, so the verdict stays the client's (said in observed) */
	if (pl->socks)
		pl->access_log = NULL;
	if (pl->access_log) {
		struct stat st;
		if (stat(pl->access_log, &st) < 0)
			snprintf(pl->log_error, sizeof pl->log_error, "net.proxy.access_log %s: %s", pl->access_log,
				 strerror(errno));
		else
			pl->log_offset = st.st_size;
	}
	pl->child = sp_xcalloc(pl->n ? pl->n : 1, sizeof *pl->child);
	for (size_t i = 0; i < pl->n; i++) {
		pl->child[i].fn = child_main;
		pl->child[i].arg = &pl->req[i];
		pl->child[i].out = &pl->req[i].out;
		pl->child[i].outsz = sizeof pl->req[i].out;
		/* the late body needs its delay on top of an ordinary exchange */
		pl->child[i].timeout_ms = timeout_ms;
	}
}

/* classify one access-log line: 1 deny, 2 forwarded/allowed, 0 unknown */
static int log_line_kind(const char *line)
{
	if (strstr(line, "DENIED") || strstr(line, "denied") || strstr(line, "refused") || strstr(line, "filtered"))
		return 1;
	/* squid native format: TAG/status ... HIER_x/peer */
	const char *slash = NULL;
	for (const char *p = line; (p = strchr(p, '/')); p++)
		if (p > line && (p[-1] == '_' || (p[-1] >= 'A' && p[-1] <= 'Z')) && p[1] >= '0' && p[1] <= '9') {
			slash = p;
			break;
		}
	int st = slash ? atoi(slash + 1) : 0;
	if (strstr(line, "HIER_DIRECT") || strstr(line, "_PARENT") || strstr(line, "TCP_TUNNEL"))
		return 2;
	if (strstr(line, "HIER_NONE") && st >= 400)
		return 1;
	if (st >= 200 && st < 400)
		return 2;
	return 0;
}

static void scan_log(sp_proxy_plan *pl, bool *complete)
{
	*complete = true;
	int e = 0;
	size_t len = 0;
	_cleanup_free_ char *all = sp_read_file_alloc(pl->access_log, 64u << 20, &len, &e);
	if (!all) {
		snprintf(pl->log_error, sizeof pl->log_error, "net.proxy.access_log %s: %s", pl->access_log, strerror(e));
		return;
	}
	char *from = (long long)len >= pl->log_offset ? all + pl->log_offset : all;
	/* split into lines; each line can be claimed by one request only, since
	 * several CONNECT spellings of one address are logged identically */
	size_t nl = 0, cap = 64;
	char **lines = sp_xcalloc(cap, sizeof *lines);
	bool *claimed = NULL;
	char *save = NULL;
	for (char *l = strtok_r(from, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (nl == cap)
			lines = sp_xrealloc(lines, (cap *= 2) * sizeof *lines);
		lines[nl++] = l;
	}
	claimed = sp_xcalloc(nl ? nl : 1, sizeof *claimed);
	for (size_t i = 0; i < pl->n; i++) {
		sp_preq *q = &pl->req[i];
		bool connect = q->kind == SP_PK_CONNECT || q->kind == SP_PK_CONNECT_NONTLS;
		q->log_seen = 0;
		for (size_t k = 0; k < nl; k++) {
			const char *line = lines[k];
			if (claimed[k])
				continue;
			bool mine = connect ? strstr(line, "CONNECT") &&
						      (strstr(line, q->target) || (q->canon[0] && strstr(line, q->canon)))
					    : strstr(line, q->marker) != NULL;
			if (!mine)
				continue;
			claimed[k] = true;
			int kind = log_line_kind(line);
			q->log_seen = kind ? kind : 3; /* 3: an entry we cannot classify */
			snprintf(q->log_line, sizeof q->log_line, "%.150s", line);
			break;
		}
		if (q->log_seen == 0 && q->out.verdict != SP_PV_PROXYDOWN)
			*complete = false;
	}
	free(lines);
	free(claimed);
}

void sp_proxy_plan_collect(sp_proxy_plan *pl)
{
	if (!pl->configured || !pl->access_log || pl->log_error[0] || !pl->n)
		return;
	/* the proxy writes its log line when the transaction ends: give it a moment */
	uint64_t until = sp_now_ns() + 1000000000ull;
	bool complete = false;
	while (!complete) {
		scan_log(pl, &complete);
		if (complete || pl->log_error[0] || sp_now_ns() >= until)
			break;
		struct timespec ts = {0, 20 * 1000000};
		nanosleep(&ts, NULL);
	}
}

void sp_proxy_plan_free(sp_proxy_plan *pl)
{
	free(pl->req);
	free(pl->child);
	memset(pl, 0, sizeof *pl);
}

/* ---- judging ---------------------------------------------------------------------- */

static const char *pv_name(sp_pverdict v)
{
	switch (v) {
	case SP_PV_NONE: return "no answer";
	case SP_PV_REACHED: return "REACHED";
	case SP_PV_DENIED: return "denied";
	case SP_PV_UPSTREAM: return "upstream failure";
	case SP_PV_PROXYDOWN: return "proxy unreachable";
	case SP_PV_TIMEOUT: return "timeout";
	case SP_PV_ERROR: return "error";
	}
	return "error";
}

static void effective(const sp_proxy_plan *pl, size_t i, sp_pverdict *v, const char **why)
{
	const sp_netchild *c = &pl->child[i];
	*why = NULL;
	if (c->start_err) {
		*v = SP_PV_ERROR;
		*why = "could not fork the probe";
	} else if (c->timed_out) {
		*v = SP_PV_TIMEOUT;
		*why = "no answer before the deadline";
	} else if (!c->done) {
		*v = SP_PV_ERROR;
		*why = "probe died without a verdict";
	} else {
		*v = pl->req[i].out.verdict;
	}
}

static void describe(sp_result *r, const sp_proxy_plan *pl, size_t i)
{
	const sp_preq *q = &pl->req[i];
	sp_pverdict v;
	const char *why;
	effective(pl, i, &v, &why);
	char logpart[200] = "";
	if (q->log_seen >= 0)
		snprintf(logpart, sizeof logpart, "; log: %s",
			 q->log_seen == 0 ? "no entry" : q->log_seen == 1 ? "deny" : q->log_seen == 2 ? "FORWARDED" : "entry");
	sp_observed_add(r, "%s: %s (%s)%s", q->label, pv_name(v), why ? why : q->out.note, logpart);
}

void sp_proxy_judge(const sp_ctx *ctx, const sp_proxy_plan *pl, const char *check, sp_result *r)
{
	bool positive_check = !strcmp(check, "net.proxy.allowed");
	sp_expected(r, "%s", positive_check ? "every net.proxy.allowed_hosts entry is reachable through the proxy"
					     : "the proxy refuses the request (and its access log, when named, shows a deny entry)");
	if (!pl->configured) {
		sp_skip(r, "no proxy named (net.proxy unset, no HTTPS_PROXY/HTTP_PROXY/ALL_PROXY in the environment)");
		return;
	}
	if (pl->error[0]) {
		sp_errorr(r, "%s", pl->error);
		return;
	}
	sp_observed(r, "proxy %s (from %s)", pl->url, pl->source);
	if (pl->socks && sp_policy_get(ctx->policy, "net.proxy.access_log") &&
	    *sp_policy_get(ctx->policy, "net.proxy.access_log"))
		sp_observed_add(r, "net.proxy.access_log not read: a SOCKS5 proxy logs connections, not the requests in them");
	size_t n = 0, reached = 0, denied = 0, down = 0, upstream = 0, other = 0, log_missing = 0, log_fwd = 0;
	/* the requests that were not cleanly refused first: they must survive
	 * the truncation of observed */
	for (size_t i = 0; i < pl->n; i++) {
		sp_pverdict v;
		const char *why;
		effective(pl, i, &v, &why);
		bool clean = v == SP_PV_DENIED && pl->req[i].log_seen != 0 && pl->req[i].log_seen != 2;
		if (!strcmp(pl->req[i].check, check) && !clean)
			describe(r, pl, i);
	}
	for (size_t i = 0; i < pl->n; i++) {
		if (strcmp(pl->req[i].check, check))
			continue;
		sp_pverdict v;
		const char *why;
		effective(pl, i, &v, &why);
		n++;
		bool clean = v == SP_PV_DENIED && pl->req[i].log_seen != 0 && pl->req[i].log_seen != 2;
		if (clean)
			describe(r, pl, i);
		switch (v) {
		case SP_PV_REACHED: reached++; break;
		case SP_PV_DENIED: denied++; break;
		case SP_PV_PROXYDOWN: down++; break;
		case SP_PV_UPSTREAM: upstream++; break;
		case SP_PV_NONE:
		case SP_PV_TIMEOUT:
		case SP_PV_ERROR: other++; break;
		}
		if (pl->req[i].log_seen == 0)
			log_missing++;
		if (pl->req[i].log_seen == 2)
			log_fwd++;
	}
	if (n == 0) {
		static const struct { const char *id, *why; } need[] = {
			{"net.proxy.allowed", "net.proxy.allowed_hosts is empty: no positive control"},
			{"net.proxy.canary", "net.proxy.canary_host is not set"},
			{"net.proxy.readonly", "net.proxy.readonly_hosts is empty"},
			{"net.proxy.body", "no host to send a body to (net.proxy.allowed_hosts/readonly_hosts empty)"},
			{"net.proxy.late_body", "no host to send a body to (net.proxy.allowed_hosts/readonly_hosts empty)"},
			{"net.proxy.connect_ip", "no IP target in net.egress.deny to CONNECT to"},
			{"net.proxy.connect_nontls", "net.proxy.allowed_hosts is empty: no tunnel to try"},
			{"net.proxy.private_dest", "net.proxy.private_host is not set"},
		};
		for (size_t i = 0; i < SP_ARRAY_SIZE(need); i++)
			if (!strcmp(need[i].id, check)) {
				sp_skip(r, "%s", need[i].why);
				return;
			}
		sp_skip(r, "nothing to probe");
		return;
	}
	if (down) {
		sp_errorr(r, "cannot connect to the proxy: nothing is proven");
		return;
	}
	if (positive_check) {
		if (reached == n)
			sp_pass(r, "all %zu allowed request%s answered through the proxy", n, n == 1 ? "" : "s");
		else
			sp_failr(r, "%zu of %zu allowed request%s did not get through: the proxy's positive control failed",
				 n - reached, n, n == 1 ? "" : "s");
		return;
	}
	if (reached || log_fwd) {
		sp_failr(r, "%zu of %zu request%s got through the proxy%s", reached ? reached : log_fwd, n, n == 1 ? "" : "s",
			 log_fwd ? " (the access log shows it forwarded)" : "");
		return;
	}
	if (other || upstream) {
		sp_errorr(r, "%zu request%s ended without a refusal from the proxy (%s): denial not proven",
			  other + upstream, other + upstream == 1 ? "" : "s", upstream ? "the proxy tried the target" : "no answer");
		return;
	}
	/* every request was refused; is the refusal worth anything? */
	size_t controls = 0, controls_ok = 0;
	for (size_t i = 0; i < pl->n; i++)
		if (pl->req[i].positive) {
			sp_pverdict v;
			const char *why;
			effective(pl, i, &v, &why);
			controls++;
			controls_ok += v == SP_PV_REACHED;
		}
	if (controls && controls_ok < controls) {
		sp_errorr(r, "refused, but the positive control failed too: a proxy that refuses everything proves nothing");
		return;
	}
	if (pl->access_log) {
		if (pl->log_error[0]) {
			sp_errorr(r, "%s", pl->log_error);
			return;
		}
		if (log_missing) {
			sp_errorr(r, "the client saw a refusal but %zu request%s left no deny entry in %s", log_missing,
				  log_missing == 1 ? "" : "s", pl->access_log);
			return;
		}
		sp_pass(r, "all %zu request%s refused, confirmed by the proxy's access log", n, n == 1 ? "" : "s");
		return;
	}
	sp_pass(r, "all %zu request%s refused by the proxy%s", n, n == 1 ? "" : "s",
		controls ? "" : " (no positive control: net.proxy.allowed_hosts is empty)");
}
