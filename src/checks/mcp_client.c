/* The mcp.* checks' MCP client (checks/mcp.h): JSON-RPC 2.0 over a stdio
 * server's pipes, one message per line. Every write reads what the server
 * sends meanwhile (a server that answers while we write a large request
 * cannot block us both), every read has a deadline, and a line has a
 * bound. */
#include "checks/mcp.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/version.h"

int sp_mcp_split_command(const char *s, sp_strv *out, sp_outcome *o)
{
	sp_strv_split(out, NULL, ",");
	_cleanup_free_ char *word = sp_xmalloc(strlen(s ? s : "") + 1);
	size_t n = 0;
	bool in = false;
	for (const char *c = s ? s : "";; c++) {
		if (*c == '\'' || *c == '"') {
			const char *end = strchr(c + 1, *c);
			if (!end) {
				sp_why(o, "unterminated %c quote", *c);
				return -1;
			}
			memcpy(word + n, c + 1, (size_t)(end - c - 1));
			n += (size_t)(end - c - 1);
			in = true;
			c = end;
			continue;
		}
		if (*c == '\0' || *c == ' ' || *c == '\t' || *c == '\n') {
			if (in) {
				if (out->n == SP_MCP_MAX_WORDS) {
					sp_why(o, "more than %d words", SP_MCP_MAX_WORDS);
					return -1;
				}
				word[n] = '\0';
				sp_strv_push(out, word);
			}
			n = 0;
			in = false;
			if (!*c)
				break;
			continue;
		}
		word[n++] = *c;
		in = true;
	}
	if (out->n == 0) {
		sp_why(o, "no program");
		return -1;
	}
	return 0;
}

int sp_mcp_start(sp_mcp *m, const char *command, unsigned timeout_ms, sp_outcome *o)
{
	memset(m, 0, sizeof *m);
	sp_child_init(&m->child);
	m->timeout_ms = timeout_ms ? timeout_ms : 10000;
	m->next_id = 1;
	m->sock = -1;
	sp_mcp_http_reset(&m->stream);
	signal(SIGPIPE, SIG_IGN); /* a server that died is a write error, not our death */
	sp_strv argv;
	if (sp_mcp_split_command(command, &argv, o) < 0) {
		sp_strv_free(&argv);
		return -1;
	}
	sp_spawn_opts so = {.pipe_in = true, .capture_out = true, .capture_err = true, .die_with_parent = true};
	sp_error err = {0};
	int rc = sp_spawn(&m->child, argv.v, &so, &err);
	sp_strv_free(&argv);
	if (rc < 0) {
		sp_why(o, "%s", err.msg);
		return -1;
	}
	int fds[] = {m->child.in, m->child.out, m->child.err};
	for (size_t i = 0; i < SP_ARRAY_SIZE(fds); i++)
		fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
	return 0;
}

void sp_mcp_close(sp_mcp *m)
{
	if (m->transport != SP_MCP_STDIO)
		sp_mcp_http_close(m);
	if (m->child.pid > 0 || m->child.in >= 0 || m->child.out >= 0)
		sp_child_free(&m->child);
	free(m->buf);
	m->buf = NULL;
	m->len = m->cap = 0;
}

/* keep the last bytes of the server's stderr, for a reason that names them */
static void err_append(sp_mcp *m, const char *data, size_t n)
{
	/* keep the last sizeof errtail - 1 bytes: what is there, then data */
	size_t room = sizeof m->errtail - 1, take = n < room ? n : room;
	size_t keep = m->errlen + take > room ? room - take : m->errlen;
	memmove(m->errtail, m->errtail + m->errlen - keep, keep);
	for (size_t i = 0; i < take; i++) {
		char ch = data[n - take + i];
		m->errtail[keep + i] = (unsigned char)ch < 0x20 ? ' ' : ch;
	}
	m->errlen = keep + take;
	m->errtail[m->errlen] = '\0';
}

static void read_err(sp_mcp *m)
{
	char tmp[4096];
	while (m->child.err >= 0) {
		ssize_t n = read(m->child.err, tmp, sizeof tmp);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close(m->child.err);
			m->child.err = -1;
			return;
		}
		err_append(m, tmp, (size_t)n);
	}
}

/* Is there no room to read more? A line past the bound ends the session;
 * complete lines wait to be consumed while SP_MCP_MAX_LINE bytes are held. */
static bool out_full(sp_mcp *m)
{
	if (m->overlong)
		return true;
	if (m->len > m->nl_free && memchr(m->buf + m->nl_free, '\n', m->len - m->nl_free))
		return m->len >= SP_MCP_MAX_LINE;
	m->nl_free = m->len;
	if (m->len > SP_MCP_MAX_LINE)
		m->overlong = true;
	return m->overlong;
}

/* read what stdout has now, bounded */
static void read_out(sp_mcp *m)
{
	while (m->child.out >= 0 && !out_full(m)) {
		if (m->cap - m->len < 65536) {
			m->cap = m->cap ? m->cap * 2 : 131072;
			m->buf = sp_xrealloc(m->buf, m->cap);
		}
		ssize_t n = read(m->child.out, m->buf + m->len, m->cap - m->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close(m->child.out);
			m->child.out = -1;
			m->eof = true;
			return;
		}
		m->len += (size_t)n;
	}
}

/* wait until fd is writable (want_out) or output arrives, at most until deadline; -1 at the deadline */
static int pump(sp_mcp *m, bool want_out, uint64_t deadline_ns)
{
	uint64_t now = sp_now_ns();
	if (now >= deadline_ns)
		return -1;
	if (m->transport == SP_MCP_HTTP)
		return -1; /* every reply was read whole with its request: nothing more comes */
	if (m->transport == SP_MCP_SSE) {
		if (m->sock < 0 || m->broken[0])
			return 0;
		struct pollfd one = {.fd = m->sock, .events = POLLIN};
		if (poll(&one, 1, (int)((deadline_ns - now + 999999) / 1000000ull)) < 0 && errno != EINTR)
			return -1;
		sp_mcp_http_read_stream(m);
		return 0;
	}
	struct pollfd pf[3];
	nfds_t k = 0;
	if (want_out && m->child.in >= 0)
		pf[k++] = (struct pollfd){.fd = m->child.in, .events = POLLOUT};
	if (m->child.out >= 0 && !out_full(m))
		pf[k++] = (struct pollfd){.fd = m->child.out, .events = POLLIN};
	if (m->child.err >= 0)
		pf[k++] = (struct pollfd){.fd = m->child.err, .events = POLLIN};
	if (k == 0)
		return 0;
	int ms = (int)((deadline_ns - now + 999999) / 1000000ull);
	int rc = poll(pf, k, ms);
	if (rc < 0 && errno != EINTR)
		return -1;
	read_out(m);
	read_err(m);
	return 0;
}

/* append the server's exit status, when it has one by now */
static void ended(sp_mcp *m, sp_outcome *o)
{
	read_err(m);
	if (m->child.pid > 0 && (sp_child_poll(&m->child, 200) == 1 || m->child.reaped)) {
		/* what the poll and the wait read from its stderr lands in err_buf */
		sp_child_wait(&m->child, sp_now_ns() + SP_NS_PER_S);
		if (m->child.err_buf.len)
			err_append(m, m->child.err_buf.data, m->child.err_buf.len);
		char d[80];
		sp_child_describe(&m->child, d, sizeof d);
		size_t l = strlen(o->why);
		snprintf(o->why + l, sizeof o->why - l, "; it ended: %s", d);
	}
}

static void with_stderr(sp_mcp *m, sp_outcome *o)
{
	read_err(m);
	size_t l = strlen(o->why);
	if (m->errlen && l + 20 < sizeof o->why)
		snprintf(o->why + l, sizeof o->why - l, " (server stderr: ...%s)",
			 m->errtail + (m->errlen > 120 ? m->errlen - 120 : 0));
}

int sp_mcp_send_raw(sp_mcp *m, const char *text, size_t len, sp_outcome *o)
{
	if (m->transport != SP_MCP_STDIO)
		return sp_mcp_http_send(m, text, len, o);
	uint64_t deadline = sp_now_ns() + (uint64_t)m->timeout_ms * SP_NS_PER_MS;
	for (size_t part = 0; part < 2; part++) {
		const char *p = part ? "\n" : text;
		size_t left = part ? 1 : len, done = 0;
		while (done < left) {
			if (m->child.in < 0) {
				sp_why(o, "the server's stdin is closed");
				return -1;
			}
			ssize_t n = write(m->child.in, p + done, left - done);
			if (n > 0) {
				done += (size_t)n;
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno != EAGAIN) {
				sp_why(o, "writing to the server: %s", strerror(errno));
				ended(m, o);
				with_stderr(m, o);
				return -1;
			}
			if (pump(m, true, deadline) < 0) {
				sp_why(o, "the server read %zu of %zu bytes in %u ms", done, left, m->timeout_ms);
				return -1;
			}
		}
	}
	return 0;
}

int sp_mcp_recv(sp_mcp *m, uint64_t deadline_ns, json_t **out, sp_outcome *o)
{
	*out = NULL;
	for (;;) {
		char *nl = m->buf ? memchr(m->buf, '\n', m->len) : NULL;
		if (nl) {
			size_t l = (size_t)(nl - m->buf);
			size_t skip = l + 1;
			while (l && (m->buf[l - 1] == '\r' || m->buf[l - 1] == ' '))
				l--;
			json_error_t je;
			json_t *v = l ? json_loadb(m->buf, l, JSON_DECODE_ANY, &je) : NULL;
			char head[60];
			snprintf(head, sizeof head, "%.*s", (int)(l < 50 ? l : 50), m->buf);
			memmove(m->buf, m->buf + skip, m->len - skip);
			m->len -= skip;
			m->nl_free = 0;
			if (!l)
				continue; /* blank line */
			if (!v) {
				for (char *c = head; *c; c++)
					if ((unsigned char)*c < 0x20)
						*c = '?';
				sp_why(o, "the server wrote a line that is not JSON (%s): '%s'", je.text, head);
				return -1;
			}
			*out = v;
			return 1;
		}
		if (m->broken[0]) {
			sp_why(o, "%s", m->broken);
			return -1;
		}
		if (m->overlong) {
			sp_why(o, "the server wrote a line longer than %u bytes", SP_MCP_MAX_LINE);
			return -1;
		}
		if (m->eof) {
			sp_why(o, "the server closed its stdout%s", m->len ? " in the middle of a line" : "");
			ended(m, o);
			with_stderr(m, o);
			return -1;
		}
		if (pump(m, false, deadline_ns) < 0)
			return 0;
	}
}

int sp_mcp_response(const json_t *msg, long long id, bool *is_error, long long *code, sp_outcome *o)
{
	*is_error = false;
	*code = 0;
	if (!json_is_object(msg))
		return 0;
	json_t *jid = json_object_get(msg, "id");
	if (!json_is_integer(jid) || json_integer_value(jid) != id || json_object_get(msg, "method"))
		return 0;
	json_t *res = json_object_get(msg, "result"), *err = json_object_get(msg, "error");
	if (!json_is_string(json_object_get(msg, "jsonrpc")) ||
	    strcmp(json_string_value(json_object_get(msg, "jsonrpc")), "2.0") != 0) {
		sp_why(o, "the response to request %lld has no \"jsonrpc\": \"2.0\"", id);
		return -1;
	}
	if ((res != NULL) == (err != NULL)) {
		sp_why(o, "the response to request %lld has %s", id, res ? "both result and error" : "neither result nor error");
		return -1;
	}
	if (err) {
		json_t *c = json_object_get(err, "code");
		if (!json_is_object(err) || !json_is_integer(c) || !json_is_string(json_object_get(err, "message"))) {
			sp_why(o, "the error answering request %lld has no integer code and message string", id);
			return -1;
		}
		*is_error = true;
		*code = json_integer_value(c);
	}
	return 1;
}

int sp_mcp_request(sp_mcp *m, const char *method, json_t *params, json_t **resp, sp_outcome *o)
{
	*resp = NULL;
	long long id = m->next_id++;
	json_t *req = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", (json_int_t)id, "method", method);
	if (params)
		json_object_set_new(req, "params", params);
	_cleanup_free_ char *text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (!text) {
		sp_why(o, "%s: cannot encode the request", method);
		return -1;
	}
	if (sp_mcp_send_raw(m, text, strlen(text), o) < 0)
		return -1;
	uint64_t deadline = sp_now_ns() + (uint64_t)m->timeout_ms * SP_NS_PER_MS;
	for (;;) {
		json_t *msg = NULL;
		int rc = sp_mcp_recv(m, deadline, &msg, o);
		if (rc == 0 && m->transport == SP_MCP_HTTP) {
			sp_why(o, "%s: no response in the HTTP reply (status %d)", method, m->last_status);
			return -1;
		}
		if (rc == 0 && m->transport == SP_MCP_SSE && (m->last_status < 200 || m->last_status > 299)) {
			sp_why(o, "%s: no response within %u ms (the POST got HTTP status %d)", method, m->timeout_ms,
			       m->last_status);
			return -1;
		}
		if (rc == 0) {
			sp_why(o, "%s: no response within %u ms", method, m->timeout_ms);
			return -1;
		}
		if (rc < 0) {
			sp_why_prefix(o, "%s", method);
			return -1;
		}
		bool is_err;
		long long code;
		int r = sp_mcp_response(msg, id, &is_err, &code, o);
		if (r == 1) {
			*resp = msg;
			return 0;
		}
		json_decref(msg);
		if (r < 0)
			return -1;
		m->unsolicited++;
	}
}

int sp_mcp_init_result(const json_t *result, char *proto, size_t protosz, char *server, size_t serversz, sp_outcome *o)
{
	const char *pv = json_string_value(json_object_get(result, "protocolVersion"));
	json_t *info = json_object_get(result, "serverInfo");
	const char *name = json_string_value(json_object_get(info, "name"));
	json_t *caps = json_object_get(result, "capabilities");
	if (!json_is_object(result)) {
		sp_why(o, "the initialize result is not an object");
		return -1;
	}
	if (!pv || !*pv) {
		sp_why(o, "the initialize result has no protocolVersion string");
		return -1;
	}
	snprintf(proto, protosz, "%s", pv);
	if (!name || !*name) {
		sp_why(o, "the initialize result has no serverInfo.name");
		return -1;
	}
	snprintf(server, serversz, "%s", name);
	const char *ver = json_string_value(json_object_get(info, "version"));
	if (ver) {
		size_t l = strlen(server);
		snprintf(server + l, serversz - l, " %s", ver);
	}
	if (!json_is_object(caps) || !json_is_object(json_object_get(caps, "tools"))) {
		sp_why(o, "the server declares no tools capability");
		return -1;
	}
	return 0;
}

int sp_mcp_tools_page(const json_t *result, sp_strv *names, char **cursor, sp_outcome *o)
{
	*cursor = NULL;
	json_t *tools = json_object_get(result, "tools");
	if (!json_is_array(tools)) {
		sp_why(o, "the tools/list result has no tools array");
		return -1;
	}
	size_t i;
	json_t *t;
	json_array_foreach(tools, i, t) {
		const char *name = json_string_value(json_object_get(t, "name"));
		if (!name || !*name) {
			sp_why(o, "tool %zu has no name", i);
			return -1;
		}
		if (strlen(name) > 128 || strcspn(name, " \t\r\n,;\"'") != strlen(name)) {
			sp_why(o, "tool %zu: the name '%.40s' is not a tool name", i, name);
			return -1;
		}
		if (sp_strv_contains(names, name)) {
			sp_why(o, "the tool '%s' is listed twice", name);
			return -1;
		}
		const char *desc = json_string_value(json_object_get(t, "description"));
		if (!desc || !*desc) {
			sp_why(o, "the tool '%s' has no description", name);
			return -1;
		}
		json_t *schema = json_object_get(t, "inputSchema");
		const char *type = json_string_value(json_object_get(schema, "type"));
		if (!json_is_object(schema) || !type || strcmp(type, "object") != 0) {
			sp_why(o, "the tool '%s' has no inputSchema of type object", name);
			return -1;
		}
		json_t *props = json_object_get(schema, "properties");
		if (props && !json_is_object(props)) {
			sp_why(o, "the tool '%s': inputSchema.properties is not an object", name);
			return -1;
		}
		sp_strv_push(names, name);
	}
	json_t *next = json_object_get(result, "nextCursor");
	if (next && !json_is_null(next)) {
		if (!json_is_string(next) || !*json_string_value(next)) {
			sp_why(o, "the tools/list nextCursor is not a string");
			return -1;
		}
		*cursor = sp_xstrdup(json_string_value(next));
	}
	return 0;
}

int sp_mcp_initialize(sp_mcp *m, json_t **result, sp_outcome *o)
{
	*result = NULL;
	json_t *params = json_pack("{s:s, s:{}, s:{s:s, s:s}}", "protocolVersion", SP_MCP_PROTOCOL, "capabilities",
				   "clientInfo", "name", "sandprobe-doctor", "version", SP_VERSION);
	json_t *resp = NULL;
	if (sp_mcp_request(m, "initialize", params, &resp, o) < 0)
		return -1;
	json_t *err = json_object_get(resp, "error");
	if (err) {
		sp_why(o, "initialize refused: %d %.100s", (int)json_integer_value(json_object_get(err, "code")),
		       json_string_value(json_object_get(err, "message")) ? json_string_value(json_object_get(err, "message")) : "");
		json_decref(resp);
		return -1;
	}
	*result = json_incref(json_object_get(resp, "result"));
	json_decref(resp);
	static const char note[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
	if (sp_mcp_send_raw(m, note, sizeof note - 1, o) < 0) {
		json_decref(*result);
		*result = NULL;
		return -1;
	}
	return 0;
}
