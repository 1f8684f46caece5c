/* The mcp.* checks' HTTP transports (checks/mcp.h): streamable HTTP (each
 * message POSTed to the endpoint; the reply is a JSON body or an SSE
 * stream; the Mcp-Session-Id of the initialize reply goes with every later
 * request; DELETE ends the session) and the older SSE transport (a GET
 * event stream whose first endpoint event names where to POST; replies
 * arrive on the stream as message events). Plain HTTP/1.1 to an IP
 * literal, one connection per request; every wait has a deadline, every
 * buffer a bound. The parser delivers each message as one line into the
 * session's buffer, so sp_mcp_recv reads them as it reads stdio. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "checks/mcp.h"
#include "core/cleanup.h"

#define MAX_REPLY (4ull * SP_MCP_MAX_LINE) /* the body of one reply, or of the stream */

int sp_mcp_parse_url(const char *url, struct sockaddr_storage *ss, socklen_t *sl, char *hostport, size_t hpsz,
		     char *path, size_t pathsz, sp_outcome *o)
{
	memset(ss, 0, sizeof *ss);
	if (!strncmp(url, "https://", 8)) {
		sp_why(o, "https is not supported by the doctor's MCP client (plain http only)");
		return -2;
	}
	if (strncmp(url, "http://", 7) != 0) {
		sp_why(o, "not an http:// URL");
		return -1;
	}
	const char *h = url + 7, *slash = strchr(h, '/');
	size_t hl = slash ? (size_t)(slash - h) : strlen(h);
	char host[80];
	if (hl == 0 || hl >= sizeof host || hl >= hpsz) {
		sp_why(o, "no IP:PORT after http://");
		return -1;
	}
	memcpy(host, h, hl);
	host[hl] = '\0';
	memcpy(hostport, h, hl);
	hostport[hl] = '\0';
	const char *p = slash ? slash : "/";
	if (strlen(p) >= pathsz || strcspn(p, " \t\r\n") != strlen(p)) {
		sp_why(o, "the path is too long or holds a blank");
		return -1;
	}
	snprintf(path, pathsz, "%s", p);
	char *port = NULL, *addr = host;
	if (host[0] == '[') {
		char *close = strchr(host, ']');
		if (!close || close[1] != ':') {
			sp_why(o, "an IPv6 address is written [ADDR]:PORT");
			return -1;
		}
		*close = '\0';
		addr = host + 1;
		port = close + 2;
	} else {
		port = strrchr(host, ':');
		if (!port) {
			sp_why(o, "no :PORT (the doctor needs IP:PORT)");
			return -1;
		}
		*port++ = '\0';
	}
	char *end;
	long pn = strtol(port, &end, 10);
	if (!*port || *end || pn < 1 || pn > 65535) {
		sp_why(o, "the port '%.10s' is not 1-65535", port);
		return -1;
	}
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, addr, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)pn);
		*sl = sizeof *v4;
	} else if (inet_pton(AF_INET6, addr, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)pn);
		*sl = sizeof *v6;
	} else {
		sp_why(o, "'%.40s' is not an IP address (the doctor resolves no name)", addr);
		return -1;
	}
	return 0;
}

/* ---- the reply parser ------------------------------------------------------- */

void sp_mcp_http_reset(sp_mcp_http *h)
{
	free(h->acc);
	free(h->data);
	memset(h, 0, sizeof *h);
	h->clen = -1;
}

void sp_mcp_http_free(sp_mcp_http *h)
{
	sp_mcp_http_reset(h);
}

static void grow(char **p, size_t *cap, size_t need)
{
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap : 4096;
	while (c < need)
		c *= 2;
	*p = sp_xrealloc(*p, c);
	*cap = c;
}

/* one message, as one line of the session's buffer (CR and LF, which JSON
 * allows only as blanks outside strings, become blanks) */
static int deliver(sp_mcp *m, sp_mcp_http *h, const char *msg, size_t n, sp_outcome *o)
{
	while (n && (msg[0] == ' ' || msg[0] == '\n' || msg[0] == '\r' || msg[0] == '\t'))
		msg++, n--;
	if (!n)
		return 0;
	if (n > SP_MCP_MAX_LINE) {
		sp_why(o, "the server sent a message longer than %u bytes", SP_MCP_MAX_LINE);
		return -1;
	}
	if (m->len + n + 1 > MAX_REPLY) {
		sp_why(o, "the server sent more than %llu bytes not yet read", MAX_REPLY);
		return -1;
	}
	grow(&m->buf, &m->cap, m->len + n + 2);
	for (size_t i = 0; i < n; i++)
		m->buf[m->len + i] = msg[i] == '\n' || msg[i] == '\r' ? ' ' : msg[i];
	m->len += n;
	m->buf[m->len++] = '\n';
	h->messages++;
	return 0;
}

/* one complete SSE line (no line end) */
static int sse_line(sp_mcp *m, sp_mcp_http *h, const char *l, size_t n, sp_outcome *o)
{
	if (n == 0) { /* dispatch */
		int rc = 0;
		if (h->datalen && (!h->event[0] || !strcmp(h->event, "message")))
			rc = deliver(m, h, h->data, h->datalen, o);
		else if (h->datalen && !strcmp(h->event, "endpoint") && !h->endpoint[0])
			snprintf(h->endpoint, sizeof h->endpoint, "%.*s", (int)(h->datalen < 511 ? h->datalen : 511), h->data);
		h->datalen = 0;
		h->event[0] = '\0';
		return rc;
	}
	if (l[0] == ':')
		return 0; /* a comment */
	const char *colon = memchr(l, ':', n);
	size_t fl = colon ? (size_t)(colon - l) : n;
	const char *v = colon ? colon + 1 : l + n;
	size_t vl = (size_t)(l + n - v);
	if (vl && v[0] == ' ')
		v++, vl--;
	if (fl == 4 && !memcmp(l, "data", 4)) {
		if (h->datalen + vl + 1 > SP_MCP_MAX_LINE) {
			sp_why(o, "an SSE event longer than %u bytes", SP_MCP_MAX_LINE);
			return -1;
		}
		grow(&h->data, &h->datacap, h->datalen + vl + 2);
		if (h->datalen)
			h->data[h->datalen++] = '\n';
		memcpy(h->data + h->datalen, v, vl);
		h->datalen += vl;
	} else if (fl == 5 && !memcmp(l, "event", 5)) {
		snprintf(h->event, sizeof h->event, "%.*s", (int)(vl < 39 ? vl : 39), v);
	}
	return 0; /* id, retry and unknown fields: nothing for us */
}

static int body_bytes(sp_mcp *m, sp_mcp_http *h, const char *p, size_t n, sp_outcome *o)
{
	h->got += (long long)n;
	if ((unsigned long long)h->got > MAX_REPLY && !h->sse) {
		sp_why(o, "a reply body longer than %llu bytes", MAX_REPLY);
		return -1;
	}
	if (h->sse) {
		for (size_t i = 0; i < n; i++) {
			if (p[i] != '\n') {
				if (h->acclen >= SP_MCP_MAX_LINE) {
					sp_why(o, "an SSE line longer than %u bytes", SP_MCP_MAX_LINE);
					return -1;
				}
				/* take the run up to the next LF at once */
				const char *nl = memchr(p + i, '\n', n - i);
				size_t run = nl ? (size_t)(nl - (p + i)) : n - i;
				if (h->acclen + run > SP_MCP_MAX_LINE)
					run = SP_MCP_MAX_LINE - h->acclen + 1;
				grow(&h->acc, &h->acccap, h->acclen + run + 1);
				memcpy(h->acc + h->acclen, p + i, run);
				h->acclen += run;
				i += run - 1;
				continue;
			}
			size_t l = h->acclen;
			if (l && h->acc[l - 1] == '\r')
				l--;
			int rc = sse_line(m, h, h->acc ? h->acc : "", l, o);
			h->acclen = 0;
			if (rc < 0)
				return -1;
		}
		return 0;
	}
	if (!h->json)
		return 0; /* an HTTP error's text, "Accepted": not a message */
	grow(&h->acc, &h->acccap, h->acclen + n + 1);
	memcpy(h->acc + h->acclen, p, n);
	h->acclen += n;
	return 0;
}

static int body_done(sp_mcp *m, sp_mcp_http *h, sp_outcome *o)
{
	h->phase = 2;
	if (h->sse && h->acclen) { /* a last line without its end */
		size_t l = h->acclen;
		h->acclen = 0;
		if (sse_line(m, h, h->acc, l, o) < 0)
			return -1;
	}
	if (h->sse && h->datalen)
		return sse_line(m, h, "", 0, o);
	if (h->json && h->acclen) {
		size_t l = h->acclen;
		h->acclen = 0;
		return deliver(m, h, h->acc, l, o);
	}
	return 0;
}

static bool hdr_is(const char *line, const char *name, const char **val)
{
	size_t n = strlen(name);
	if (strncasecmp(line, name, n) != 0 || line[n] != ':')
		return false;
	const char *v = line + n + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	*val = v;
	return true;
}

static int parse_head(sp_mcp_http *h, sp_outcome *o)
{
	char *save = NULL, *line = strtok_r(h->head, "\n", &save);
	int minor, status;
	char c;
	if (!line || sscanf(line, "HTTP/1.%d %3d%c", &minor, &status, &c) < 2 || status < 100 || status > 599) {
		sp_why(o, "the server's reply does not begin with an HTTP/1.x status line");
		return -1;
	}
	h->status = status;
	while ((line = strtok_r(NULL, "\n", &save))) {
		size_t l = strlen(line);
		if (l && line[l - 1] == '\r')
			line[--l] = '\0';
		const char *v;
		if (hdr_is(line, "Content-Length", &v)) {
			char *end;
			long long n = strtoll(v, &end, 10);
			if (end == v || *end || n < 0) {
				sp_why(o, "a malformed Content-Length");
				return -1;
			}
			h->clen = n;
		} else if (hdr_is(line, "Transfer-Encoding", &v)) {
			if (strcasecmp(v, "chunked") != 0) {
				sp_why(o, "a Transfer-Encoding other than chunked: '%.30s'", v);
				return -1;
			}
			h->chunked = true;
		} else if (hdr_is(line, "Content-Type", &v)) {
			h->sse = !strncasecmp(v, "text/event-stream", 17);
			h->json = !strncasecmp(v, "application/json", 16);
		} else if (hdr_is(line, "Mcp-Session-Id", &v)) {
			if (strlen(v) >= sizeof h->session || strspn(v, "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz"
									"ABCDEFGHIJKLMNOPQRSTUVWXYZ") != strlen(v)) {
				sp_why(o, "a malformed Mcp-Session-Id");
				return -1;
			}
			snprintf(h->session, sizeof h->session, "%s", v);
		}
	}
	/* no body: 1xx, 204, 304, or nothing to come */
	if (status == 204 || status == 304 || (!h->chunked && h->clen == 0))
		h->phase = 2;
	else
		h->phase = 1;
	return 0;
}

int sp_mcp_http_feed(sp_mcp *m, sp_mcp_http *h, const char *data, size_t n, sp_outcome *o)
{
	size_t i = 0;
	while (i < n && h->phase != 2) {
		if (h->phase == 0) {
			/* the head ends at an empty line (CRLF CRLF, or LF LF) */
			char ch = data[i++];
			if (h->headlen + 1 >= sizeof h->head) {
				sp_why(o, "the reply's head is longer than %d bytes", SP_MCP_MAX_HEAD);
				return -1;
			}
			if (ch == '\0') {
				sp_why(o, "a NUL byte in the reply's head");
				return -1;
			}
			h->head[h->headlen++] = ch;
			h->head[h->headlen] = '\0';
			size_t l = h->headlen;
			if (ch == '\n' && ((l >= 2 && h->head[l - 2] == '\n') || (l >= 3 && !memcmp(h->head + l - 3, "\n\r\n", 3)))) {
				if (parse_head(h, o) < 0)
					return -1;
				if (h->status >= 100 && h->status < 200) { /* an interim reply: the real one follows */
					sp_mcp_http_reset(h);
				}
				if (h->phase == 2 && body_done(m, h, o) < 0)
					return -1;
			}
			continue;
		}
		if (!h->chunked) {
			size_t take = n - i;
			if (h->clen >= 0 && (long long)take > h->clen - h->got)
				take = (size_t)(h->clen - h->got);
			if (body_bytes(m, h, data + i, take, o) < 0)
				return -1;
			i += take;
			if (h->clen >= 0 && h->got == h->clen && body_done(m, h, o) < 0)
				return -1;
			continue;
		}
		if (h->cphase == 1) {
			size_t take = n - i;
			if (take > h->cleft)
				take = (size_t)h->cleft;
			if (body_bytes(m, h, data + i, take, o) < 0)
				return -1;
			i += take;
			h->cleft -= take;
			if (!h->cleft)
				h->cphase = 2;
			continue;
		}
		/* a size line, the CRLF after a chunk's data, a trailer line */
		char ch = data[i++];
		if (ch != '\n') {
			if (h->clinelen + 1 >= sizeof h->cline) {
				sp_why(o, "a chunk size line longer than %zu bytes", sizeof h->cline);
				return -1;
			}
			h->cline[h->clinelen++] = ch;
			continue;
		}
		size_t l = h->clinelen;
		h->clinelen = 0;
		if (l && h->cline[l - 1] == '\r')
			l--;
		h->cline[l] = '\0';
		if (h->cphase == 2) {
			if (l) {
				sp_why(o, "a chunk longer than its size");
				return -1;
			}
			h->cphase = 0;
		} else if (h->cphase == 3) {
			if (!l && body_done(m, h, o) < 0)
				return -1;
		} else {
			char *end;
			errno = 0;
			unsigned long long sz = strtoull(h->cline, &end, 16);
			if (end == h->cline || errno || (*end && *end != ';') || h->cline[0] == '-' || sz > MAX_REPLY) {
				sp_why(o, "a malformed chunk size '%.20s'", h->cline);
				return -1;
			}
			h->cleft = sz;
			h->cphase = sz ? 1 : 3;
		}
	}
	return 0;
}

int sp_mcp_http_end(sp_mcp *m, sp_mcp_http *h, sp_outcome *o)
{
	if (h->phase == 2)
		return 0;
	if (h->phase == 0) {
		sp_why(o, "the server closed the connection %s", h->headlen ? "in the reply's head" : "without a reply");
		return -1;
	}
	if (h->chunked || h->clen >= 0) {
		sp_why(o, "the server closed the connection in the middle of the reply body");
		return -1;
	}
	return body_done(m, h, o);
}

/* ---- connections -------------------------------------------------------------- */

static int wait_fd(int fd, short ev, uint64_t deadline)
{
	for (;;) {
		uint64_t now = sp_now_ns();
		if (now >= deadline)
			return -1;
		struct pollfd pf = {.fd = fd, .events = ev};
		int rc = poll(&pf, 1, (int)((deadline - now + 999999) / 1000000ull));
		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR)
			return -1;
	}
}

/* connect to the server, bounded; the socket, or -1 with why */
static int dial(sp_mcp *m, uint64_t deadline, sp_outcome *o)
{
	int s = socket(m->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0) {
		sp_why(o, "socket: %s", strerror(errno));
		return -1;
	}
	if (connect(s, (struct sockaddr *)&m->addr, m->addrlen) < 0 && errno != EINPROGRESS) {
		sp_why(o, "connecting to %s: %s", m->hostport, strerror(errno));
		close(s);
		return -1;
	}
	int err = 0;
	socklen_t el = sizeof err;
	if (wait_fd(s, POLLOUT, deadline) < 0) {
		sp_why(o, "connecting to %s: no answer in %u ms", m->hostport, m->timeout_ms);
		close(s);
		return -1;
	}
	if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err) {
		sp_why(o, "connecting to %s: %s", m->hostport, strerror(err ? err : errno));
		close(s);
		return -1;
	}
	return s;
}

static int write_all(int s, const char *p, size_t n, uint64_t deadline, const char *host, sp_outcome *o)
{
	size_t done = 0;
	while (done < n) {
		ssize_t w = send(s, p + done, n - done, MSG_NOSIGNAL);
		if (w > 0) {
			done += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno != EAGAIN) {
			sp_why(o, "writing to %s: %s", host, strerror(errno));
			return -1;
		}
		if (wait_fd(s, POLLOUT, deadline) < 0) {
			sp_why(o, "%s read %zu of %zu bytes in time", host, done, n);
			return -1;
		}
	}
	return 0;
}

/* send a request on a new connection; the socket, or -1 with why */
static int request_on(sp_mcp *m, const char *method, const char *path, const char *accept, const char *body, size_t len,
		      uint64_t deadline, sp_outcome *o)
{
	int s = dial(m, deadline, o);
	if (s < 0)
		return -1;
	char sess[200] = "";
	if (m->session[0])
		snprintf(sess, sizeof sess, "Mcp-Session-Id: %s\r\n", m->session);
	char clen[80] = "";
	if (body)
		snprintf(clen, sizeof clen, "Content-Type: application/json\r\nContent-Length: %zu\r\n", len);
	/* one connection a request; the event stream's stays open */
	_cleanup_free_ char *head =
		sp_xasprintf("%s %s HTTP/1.1\r\nHost: %s\r\nAccept: %s\r\nUser-Agent: sandprobe-doctor\r\n%s%s%s\r\n", method,
			     path, m->hostport, accept, sess, clen, strcmp(method, "GET") ? "Connection: close\r\n" : "");
	if (write_all(s, head, strlen(head), deadline, m->hostport, o) < 0 ||
	    (body && write_all(s, body, len, deadline, m->hostport, o) < 0)) {
		close(s);
		return -1;
	}
	return s;
}

/* read a reply until it is whole (or the connection ends); messages land in m->buf */
static int read_reply(sp_mcp *m, int s, sp_mcp_http *h, uint64_t deadline, sp_outcome *o)
{
	char tmp[65536];
	for (;;) {
		if (h->phase == 2)
			return 0;
		ssize_t n = recv(s, tmp, sizeof tmp, 0);
		if (n > 0) {
			if (sp_mcp_http_feed(m, h, tmp, (size_t)n, o) < 0) {
				m->framing = true;
				return -1;
			}
			continue;
		}
		if (n == 0) {
			int rc = sp_mcp_http_end(m, h, o);
			m->framing |= rc < 0;
			return rc;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN) {
			sp_why(o, "reading from %s: %s", m->hostport, strerror(errno));
			return -1;
		}
		if (wait_fd(s, POLLIN, deadline) < 0) {
			sp_why(o, "no whole HTTP reply from %s in %u ms", m->hostport, m->timeout_ms);
			return -1;
		}
	}
}

/* POST one message; what the reply carries lands in m->buf */
static int post_one(sp_mcp *m, const char *msg, size_t len, sp_outcome *o)
{
	uint64_t deadline = sp_now_ns() + (uint64_t)m->timeout_ms * SP_NS_PER_MS;
	const char *path = m->transport == SP_MCP_SSE ? m->post : m->path;
	int s = request_on(m, "POST", path, "application/json, text/event-stream", msg, len, deadline, o);
	if (s < 0)
		return -1;
	sp_mcp_http h;
	memset(&h, 0, sizeof h);
	sp_mcp_http_reset(&h);
	int rc = read_reply(m, s, &h, deadline, o);
	close(s);
	m->last_status = h.status;
	if (rc == 0 && h.session[0] && !m->session[0])
		snprintf(m->session, sizeof m->session, "%s", h.session);
	/* an HTTP error status is the server refusing this message (a parse
	 * error over SSE is a 400): whether the session still answers is for
	 * the next request to tell */
	sp_mcp_http_free(&h);
	return rc;
}

int sp_mcp_http_send(sp_mcp *m, const char *text, size_t len, sp_outcome *o)
{
	/* one message a line, as over stdio: each line its own POST */
	size_t i = 0;
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (text + i)) : len - i;
		if (l && post_one(m, text + i, l, o) < 0)
			return -1;
		i += l + 1;
	}
	return 0;
}

/* SSE transport: read what the event stream has now */
void sp_mcp_http_read_stream(sp_mcp *m)
{
	char tmp[65536];
	while (m->sock >= 0 && !m->broken[0]) {
		ssize_t n = recv(m->sock, tmp, sizeof tmp, 0);
		if (n > 0) {
			sp_outcome o = {0};
			if (sp_mcp_http_feed(m, &m->stream, tmp, (size_t)n, &o) < 0) {
				snprintf(m->broken, sizeof m->broken, "%s", o.why);
				m->framing = true;
				return;
			}
			if (m->stream.phase == 2)
				snprintf(m->broken, sizeof m->broken, "the server ended the event stream");
			continue;
		}
		if (n < 0 && (errno == EINTR))
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		snprintf(m->broken, sizeof m->broken, "the server closed the event stream");
		close(m->sock);
		m->sock = -1;
		return;
	}
}

int sp_mcp_start_http(sp_mcp *m, const char *url, bool sse, unsigned timeout_ms, sp_outcome *o)
{
	memset(m, 0, sizeof *m);
	sp_child_init(&m->child);
	m->sock = -1;
	sp_mcp_http_reset(&m->stream);
	m->timeout_ms = timeout_ms ? timeout_ms : 10000;
	m->next_id = 1;
	m->transport = sse ? SP_MCP_SSE : SP_MCP_HTTP;
	signal(SIGPIPE, SIG_IGN);
	int rc = sp_mcp_parse_url(url, &m->addr, &m->addrlen, m->hostport, sizeof m->hostport, m->path, sizeof m->path, o);
	if (rc < 0)
		return rc;
	uint64_t deadline = sp_now_ns() + (uint64_t)m->timeout_ms * SP_NS_PER_MS;
	if (!sse) { /* is anything listening? (the handshake tells the rest) */
		int s = dial(m, deadline, o);
		if (s < 0)
			return -1;
		close(s);
		return 0;
	}
	m->sock = request_on(m, "GET", m->path, "text/event-stream", NULL, 0, deadline, o);
	if (m->sock < 0)
		return -1;
	/* read until the endpoint event */
	for (;;) {
		sp_mcp_http_read_stream(m);
		if (m->stream.phase >= 1 && (m->stream.status != 200 || !m->stream.sse)) {
			sp_why(o, "GET %.100s: HTTP status %d, %s", m->path, m->stream.status,
			       m->stream.sse ? "an event stream" : "not an event stream");
			return -1;
		}
		if (m->stream.endpoint[0])
			break;
		if (m->broken[0]) {
			sp_why(o, "GET %.100s: %s before an endpoint event", m->path, m->broken);
			return -1;
		}
		if (wait_fd(m->sock, POLLIN, deadline) < 0) {
			sp_why(o, "GET %.100s: no endpoint event in %u ms", m->path, m->timeout_ms);
			return -1;
		}
	}
	const char *ep = m->stream.endpoint;
	if (!strncmp(ep, "http://", 7)) {
		const char *slash = strchr(ep + 7, '/');
		if (strncmp(ep + 7, m->hostport, strlen(m->hostport)) != 0 || !slash || slash != ep + 7 + strlen(m->hostport)) {
			sp_why(o, "the endpoint event names another server: '%.100s'", ep);
			return -1;
		}
		ep = slash;
	}
	if (ep[0] != '/' || strcspn(ep, " \t\r\n") != strlen(ep)) {
		sp_why(o, "the endpoint event is no path: '%.100s'", ep);
		return -1;
	}
	snprintf(m->post, sizeof m->post, "%s", ep);
	return 0;
}

void sp_mcp_http_close(sp_mcp *m)
{
	if (m->transport == SP_MCP_HTTP && m->session[0]) {
		/* end the session, briefly */
		sp_outcome o = {0}; /* a failed goodbye changes nothing */
		uint64_t deadline = sp_now_ns() + (uint64_t)(m->timeout_ms < 2000 ? m->timeout_ms : 2000) * SP_NS_PER_MS;
		int s = request_on(m, "DELETE", m->path, "application/json, text/event-stream", NULL, 0, deadline, &o);
		if (s >= 0) {
			sp_mcp_http h;
			memset(&h, 0, sizeof h);
			sp_mcp_http_reset(&h);
			size_t len = m->len;
			read_reply(m, s, &h, deadline, &o);
			m->len = len; /* nothing it says is a message of ours */
			sp_mcp_http_free(&h);
			close(s);
		}
		m->session[0] = '\0';
	}
	if (m->sock >= 0)
		close(m->sock);
	m->sock = -1;
	sp_mcp_http_free(&m->stream);
}
