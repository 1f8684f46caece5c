/* The agent's tools (mcp.*): an agent in a sandbox rarely opens sockets
 * itself; it calls tools, most often over the Model Context Protocol, and
 * the tool server does the fetching, the file access, the shell. These
 * checks talk to the MCP server the policy names (mcp.command: started over
 * stdio, inside the sandbox, as the agent would start it) and prove by
 * exchange what it does:
 *   mcp.handshake  initialize answered with a known protocol version, the
 *                  server's name and a tools capability; a ping answered;
 *   mcp.tools      tools/list well-formed (names, descriptions, object input
 *                  schemas, every page) and exactly the tools of mcp.tools
 *                  (an unexpected shell or exec tool fails);
 *   mcp.robust     malformed JSON, an unknown method, an oversized request and
 *                  notifications between requests: errors where JSON-RPC
 *                  wants them, no reply to a notification, and the session
 *                  answers a ping after each;
 *   mcp.fs_roots   the file tool reads a marker inside its root and not one
 *                  outside, asked through '..', an absolute path or a symlink;
 *   mcp.egress     the fetch tool is refused the denied URLs and reaches the
 *                  allowed ones (and the doctor's own connection to a denied
 *                  IP says whether the tool reaches what the sandbox cannot).
 * Each check starts its own server and kills its process group at the end.
 * With no server declared every check skips, naming the key. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks/mcp.h"
#include "checks/net_probe.h"
#include "checks/types.h"
#include "core/check.h"
#include "core/cleanup.h"
#include "catalog/catalog.h"

#define MCP_TIMEOUT_DEFAULT 10000
#define MCP_MAX_PAGES 32
#define MCP_BIG_DEFAULT (1u << 20)
#define MCP_BIG_MAX (64u << 20)

/* ---- policy value: the server's HTTP URL ------------------------------------------ */

static int url_parse(const char *text, sp_outcome *o)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	char hp[80], path[512];
	/* https parses (the check then skips, saying the doctor does not speak it) */
	if (sp_mcp_parse_url(text, &ss, &sl, hp, sizeof hp, path, sizeof path, o) != -1)
		return 0;
	return -1;
}

const sp_policy_type sp_ptype_mcp_url = {.name = "mcp_url", .what = "http://IP:PORT/PATH (an IP literal: the doctor resolves no name)", .parse = url_parse};

/* ---- policy value: the server's command line --------------------------------- */

static int command_parse(const char *text, sp_outcome *o)
{
	sp_strv v;
	int rc = sp_mcp_split_command(text, &v, o);
	sp_strv_free(&v);
	return rc;
}

const sp_policy_type sp_ptype_mcp_command = {.name = "mcp_command",
					     .what = "a command line: PROGRAM ARG... ('...' and \"...\" quote)",
					     .parse = command_parse};

/* ---- a session every check starts the same way -------------------------------- */

static const char *const known_protocols[] = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", NULL};

static unsigned mcp_timeout(const sp_ctx *ctx)
{
	long long t = sp_policy_int(ctx->policy, "mcp.timeout_ms", MCP_TIMEOUT_DEFAULT);
	if (t <= 0)
		t = MCP_TIMEOUT_DEFAULT;
	return (unsigned)(t > 20000 ? 20000 : t);
}

#define NO_SERVER_KEYS "mcp.command, mcp.url or mcp.sse_url"

/* Which key names the server (stdio, streamable HTTP, SSE): how many do */
static int server_key(const sp_ctx *ctx, const char **key, const char **val)
{
	static const char *const keys[] = {"mcp.command", "mcp.url", "mcp.sse_url"};
	int n = 0;
	for (size_t i = 0; i < SP_ARRAY_SIZE(keys); i++) {
		const char *v = sp_policy_get(ctx->policy, keys[i]);
		if (v && *v) {
			*key = keys[i];
			*val = v;
			n++;
		}
	}
	return n;
}

static bool has_server(const sp_ctx *ctx)
{
	const char *k, *v;
	return server_key(ctx, &k, &v) > 0;
}

/* Start the server and make the handshake. 1: a session (m open), 0: no
 * server declared (r skipped), -1: r judged (fail or error, m closed). */
static int open_session(const sp_ctx *ctx, sp_result *r, sp_mcp *m, char *proto, size_t protosz, char *server,
			size_t serversz)
{
	const char *cmd = NULL, *key = NULL;
	int n = server_key(ctx, &key, &cmd);
	if (n == 0) {
		sp_skip(r, "the policy declares no MCP server (" NO_SERVER_KEYS ")");
		return 0;
	}
	sp_outcome o = {0};
	if (n > 1) {
		sp_errorr(r, "the policy declares more than one MCP server (" NO_SERVER_KEYS "): one at a time");
		return -1;
	}
	int rc = strcmp(key, "mcp.command") == 0 ? sp_mcp_start(m, cmd, mcp_timeout(ctx), &o)
						 : sp_mcp_start_http(m, cmd, strcmp(key, "mcp.sse_url") == 0, mcp_timeout(ctx), &o);
	if (rc < 0) {
		sp_observed(r, "%s '%.200s'", key, cmd);
		if (rc == -2)
			sp_skip(r, "%s", o.why);
		else
			sp_errorr(r, "cannot %s the MCP server: %s", strcmp(key, "mcp.command") == 0 ? "start" : "reach", o.why);
		sp_mcp_close(m);
		return -1;
	}
	json_t *res = NULL;
	int irc = sp_mcp_initialize(m, &res, &o);
	if (irc < 0 && m->framing) {
		/* no HTTP to speak MCP over: not a verdict on the server's MCP */
		sp_observed(r, "%s '%.200s': %s", key, cmd, o.why);
		sp_errorr(r, "the MCP server's HTTP replies are malformed: %.300s", o.why);
		sp_mcp_close(m);
		return -1;
	} else if (irc < 0) {
		sp_observed(r, "server '%.200s': %s", cmd, o.why);
		sp_failr(r, "no MCP handshake: %.300s", o.why);
		sp_mcp_close(m);
		return -1;
	}
	rc = sp_mcp_init_result(res, proto, protosz, server, serversz, &o);
	json_decref(res);
	if (rc < 0) {
		sp_observed(r, "server '%.200s': %s", cmd, o.why);
		sp_failr(r, "malformed initialize result: %s", o.why);
		sp_mcp_close(m);
		return -1;
	}
	return 1;
}

/* a ping answered with a result: 0, or -1 with why */
static int ping(sp_mcp *m, sp_outcome *o)
{
	json_t *resp = NULL;
	if (sp_mcp_request(m, "ping", NULL, &resp, o) < 0)
		return -1;
	bool ok = json_object_get(resp, "result") != NULL;
	if (!ok)
		sp_why(o, "ping answered with error %lld",
		       (long long)json_integer_value(json_object_get(json_object_get(resp, "error"), "code")));
	json_decref(resp);
	return ok ? 0 : -1;
}

/* ---- mcp.handshake ---------------------------------------------------------------- */

static void run_handshake(const sp_ctx *ctx, sp_result *r)
{
	sp_expected(r, "initialize answered with a known protocol version, the server's name and a tools capability; "
		       "a ping answered");
	sp_mcp m;
	char proto[64] = "", server[160] = "";
	sp_outcome o = {0};
	int rc = open_session(ctx, r, &m, proto, sizeof proto, server, sizeof server);
	if (rc <= 0)
		return;
	sp_observed(r, "server %s, protocol %s (we offered %s)", server, proto, SP_MCP_PROTOCOL);
	bool known = false;
	for (size_t i = 0; known_protocols[i]; i++)
		known |= strcmp(proto, known_protocols[i]) == 0;
	if (!known) {
		sp_failr(r, "the server answered with protocol version '%s', which is no MCP version", proto);
	} else if (ping(&m, &o) < 0) {
		sp_observed_add(r, "%s", o.why);
		sp_failr(r, "the session does not answer after the handshake: %.300s", o.why);
	} else {
		sp_observed_add(r, "ping answered");
		sp_pass(r, "MCP handshake with %s, protocol %s", server, proto);
	}
	sp_mcp_close(&m);
}

/* ---- mcp.tools -------------------------------------------------------------------- */

static bool shell_like(const char *name)
{
	static const char *const words[] = {"shell", "exec", "bash", "command", "terminal", "eval", "spawn", "process", NULL};
	for (size_t i = 0; words[i]; i++)
		if (strcasestr(name, words[i]))
			return true;
	return false;
}

static void list_add(char *buf, size_t size, const char *item)
{
	size_t l = strlen(buf);
	if (l < size)
		snprintf(buf + l, size - l, "%s%s", l ? ", " : "", item);
}

static void run_tools(const sp_ctx *ctx, sp_result *r)
{
	sp_strv want;
	sp_policy_list(ctx->policy, "mcp.tools", &want);
	sp_expected(r, "tools/list well-formed and exactly the %zu tool%s of mcp.tools", want.n, want.n == 1 ? "" : "s");
	sp_mcp m;
	char proto[64] = "", server[160] = "";
	sp_outcome o = {0};
	if (open_session(ctx, r, &m, proto, sizeof proto, server, sizeof server) <= 0) {
		sp_strv_free(&want);
		return;
	}
	sp_strv have;
	sp_strv_split(&have, NULL, ",");
	_cleanup_free_ char *cursor = NULL;
	int pages = 0;
	bool bad = false, err = false;
	do {
		json_t *params = cursor ? json_pack("{s:s}", "cursor", cursor) : NULL;
		free(cursor);
		cursor = NULL;
		json_t *resp = NULL;
		if (sp_mcp_request(&m, "tools/list", params, &resp, &o) < 0) {
			err = true;
			break;
		}
		json_t *res = json_object_get(resp, "result");
		if (!res) {
			sp_why(&o, "tools/list answered with error %lld",
			       (long long)json_integer_value(json_object_get(json_object_get(resp, "error"), "code")));
			bad = true;
		} else if (sp_mcp_tools_page(res, &have, &cursor, &o) < 0) {
			bad = true;
		}
		json_decref(resp);
		pages++;
	} while (!bad && cursor && pages < MCP_MAX_PAGES);
	if (!bad && !err && cursor) {
		sp_why(&o, "tools/list still has a next page after %d pages", pages);
		bad = true;
	}
	sp_mcp_close(&m);
	if (err || bad) {
		sp_observed(r, "server %s: %s", server, o.why);
		sp_failr(r, "%s", o.why);
		goto out;
	}
	char names[700] = "";
	for (size_t i = 0; i < have.n; i++)
		list_add(names, sizeof names, have.v[i]);
	sp_observed(r, "server %s lists %zu tool%s in %d page%s: %s", server, have.n, have.n == 1 ? "" : "s", pages,
		    pages == 1 ? "" : "s", have.n ? names : "none");
	if (want.n == 0) {
		sp_skip(r, "tools/list is well-formed (%zu tools), but the policy declares none to compare (mcp.tools)", have.n);
		goto out;
	}
	char extra[500] = "", missing[500] = "";
	for (size_t i = 0; i < have.n; i++)
		if (!sp_strv_contains(&want, have.v[i])) {
			char item[200];
			snprintf(item, sizeof item, "%s%s", have.v[i], shell_like(have.v[i]) ? " (shell-like)" : "");
			list_add(extra, sizeof extra, item);
		}
	for (size_t i = 0; i < want.n; i++)
		if (!sp_strv_contains(&have, want.v[i]))
			list_add(missing, sizeof missing, want.v[i]);
	if (extra[0] && missing[0])
		sp_failr(r, "unexpected tools: %s; declared but missing: %s", extra, missing);
	else if (extra[0])
		sp_failr(r, "unexpected tools: %s", extra);
	else if (missing[0])
		sp_failr(r, "declared but missing: %s", missing);
	else
		sp_pass(r, "exactly the %zu declared tools, each named, described and with an object input schema", have.n);
out:
	sp_strv_free(&have);
	sp_strv_free(&want);
}

/* ---- mcp.robust ------------------------------------------------------------------- */

typedef struct awaited {
	long long id;
	bool got, is_error;
	long long code;
} awaited;

typedef struct strays {
	size_t errors, results, notes;
	long long code; /* of the last stray error */
} strays;

/* Send text (one or more lines) and read until every awaited id has its
 * response, or the deadline. Other messages are counted in s: an error
 * or a result answering none of ours, notifications of the server. 0, or
 * -1 with why when the session ended. */
static int exchange(sp_mcp *m, const char *text, size_t len, awaited *w, size_t nw, strays *s, sp_outcome *o)
{
	memset(s, 0, sizeof *s);
	if (sp_mcp_send_raw(m, text, len, o) < 0)
		return -1;
	uint64_t deadline = sp_now_ns() + (uint64_t)m->timeout_ms * SP_NS_PER_MS;
	for (;;) {
		size_t left = 0;
		for (size_t i = 0; i < nw; i++)
			left += !w[i].got;
		if (!left)
			return 0;
		json_t *msg = NULL;
		int rc = sp_mcp_recv(m, deadline, &msg, o);
		if (rc == 0)
			return 0; /* the caller sees who is missing */
		if (rc < 0)
			return -1;
		bool matched = false;
		for (size_t i = 0; i < nw && !matched; i++) {
			sp_outcome bad = {0};
			bool is_error;
			long long code;
			int k = sp_mcp_response(msg, w[i].id, &is_error, &code, &bad);
			if (k != 0) {
				/* a broken response counts as neither error nor result */
				matched = true;
				w[i].got = true;
				w[i].is_error = k > 0 && is_error;
				w[i].code = k > 0 ? code : 0;
			}
		}
		if (!matched && json_is_object(msg)) {
			if (json_object_get(msg, "method"))
				s->notes++;
			else if (json_object_get(msg, "error")) {
				s->errors++;
				s->code = json_integer_value(json_object_get(json_object_get(msg, "error"), "code"));
			} else
				s->results++;
		} else if (!matched) {
			s->results++;
		}
		json_decref(msg);
	}
}

static json_int_t take_id(sp_mcp *m)
{
	return (json_int_t)m->next_id++;
}

static char *ping_line(json_int_t id)
{
	return sp_xasprintf("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"ping\"}", (long long)id);
}

static void run_robust(const sp_ctx *ctx, sp_result *r)
{
	long long big = sp_policy_int(ctx->policy, "mcp.oversized_bytes", MCP_BIG_DEFAULT);
	if (big <= 0)
		big = MCP_BIG_DEFAULT;
	if (big > MCP_BIG_MAX)
		big = MCP_BIG_MAX;
	sp_expected(r, "malformed JSON: a parse error or nothing; an unknown method and a %lld-byte request: an error; "
		       "notifications: no reply; a ping answered after each",
		    big);
	sp_mcp m;
	char proto[64] = "", server[160] = "";
	sp_outcome o = {0};
	if (open_session(ctx, r, &m, proto, sizeof proto, server, sizeof server) <= 0)
		return;
	sp_observed(r, "server %s", server);
	char fails[600] = "";
	const char *dead = NULL;
	awaited w[3];
	strays s;

	/* 1: malformed JSON, then a ping */
	{
		json_int_t p = take_id(&m);
		_cleanup_free_ char *pl = ping_line(p);
		_cleanup_free_ char *t = sp_xasprintf("{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":\n%s", pl);
		w[0] = (awaited){.id = p};
		if (exchange(&m, t, strlen(t), w, 1, &s, &o) < 0 || !w[0].got) {
			dead = "malformed JSON";
		} else {
			if (s.results)
				list_add(fails, sizeof fails, "malformed JSON answered with a result");
			else if (s.errors && s.code != -32700)
				list_add(fails, sizeof fails, "malformed JSON answered with an error that is not -32700");
			sp_observed_add(r, "malformed JSON: %s, ping answered",
					s.errors ? (s.code == -32700 ? "parse error -32700" : "an error") : "no reply");
		}
	}
	/* 2: an unknown method */
	if (!dead) {
		json_int_t u = take_id(&m), p = take_id(&m);
		_cleanup_free_ char *pl = ping_line(p);
		_cleanup_free_ char *t =
			sp_xasprintf("{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"sandprobe/no-such-method\"}\n%s", (long long)u, pl);
		w[0] = (awaited){.id = u};
		w[1] = (awaited){.id = p};
		if (exchange(&m, t, strlen(t), w, 2, &s, &o) < 0 || !w[1].got) {
			dead = "an unknown method";
		} else if (!w[0].got) {
			list_add(fails, sizeof fails, "an unknown method got no reply");
		} else if (!w[0].is_error) {
			list_add(fails, sizeof fails, "an unknown method answered with a result");
		} else {
			sp_observed_add(r, "unknown method: error %lld%s", w[0].code, w[0].code == -32601 ? "" : " (not -32601)");
		}
	}
	/* 3: an oversized request */
	if (!dead) {
		json_int_t q = take_id(&m), p = take_id(&m);
		_cleanup_free_ char *pl = ping_line(p);
		size_t n = (size_t)big;
		char *t = sp_xmalloc(n + 200 + strlen(pl));
		int h = snprintf(t, 200, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"method\":\"sandprobe/oversized\",\"params\":{\"pad\":\"",
				 (long long)q);
		memset(t + h, 'x', n);
		size_t l = (size_t)h + n;
		l += (size_t)snprintf(t + l, 200 + strlen(pl), "\"}}\n%s", pl);
		w[0] = (awaited){.id = q};
		w[1] = (awaited){.id = p};
		if (exchange(&m, t, l, w, 2, &s, &o) < 0 || !w[1].got) {
			dead = "an oversized request";
		} else if (!w[0].got) {
			list_add(fails, sizeof fails, "an oversized request got no reply");
		} else if (!w[0].is_error) {
			list_add(fails, sizeof fails, "an oversized request to an unknown method answered with a result");
		} else {
			sp_observed_add(r, "%lld-byte request: error %lld", big, w[0].code);
		}
		free(t);
	}
	/* 4: notifications between requests */
	if (!dead) {
		json_int_t a = take_id(&m), b = take_id(&m);
		_cleanup_free_ char *pa = ping_line(a);
		_cleanup_free_ char *pb = ping_line(b);
		_cleanup_free_ char *t =
			sp_xasprintf("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/sandprobe-probe\",\"params\":{}}\n%s\n"
				     "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":"
				     "987654321,\"reason\":\"sandprobe\"}}\n%s",
				     pa, pb);
		w[0] = (awaited){.id = a};
		w[1] = (awaited){.id = b};
		if (exchange(&m, t, strlen(t), w, 2, &s, &o) < 0 || !w[0].got || !w[1].got) {
			dead = "notifications between requests";
		} else if (s.errors || s.results) {
			list_add(fails, sizeof fails, "a notification was answered");
		} else {
			sp_observed_add(r, "2 notifications between 2 pings: no reply to either, both pings answered");
		}
	}
	if (dead) {
		sp_observed_add(r, "after %s: %s", dead, o.why[0] ? o.why : "the ping got no answer");
		sp_failr(r, "the session stopped answering after %s", dead);
	} else if (fails[0]) {
		sp_failr(r, "%s", fails);
	} else {
		sp_pass(r, "malformed JSON, an unknown method, a %lld-byte request and notifications: the session answers after each",
			big);
	}
	sp_mcp_close(&m);
}

/* ---- mcp.fs_roots ----------------------------------------------------------------- */

typedef struct tool_answer {
	bool answered;  /* a response came */
	bool refused;   /* a JSON-RPC error, or a result with isError */
	bool has_mark;  /* the text holds the marker looked for */
	char head[160]; /* the start of its text or error, for observed */
} tool_answer;

/* tools/call NAME {ARG: path}; -1 with why when the session ended */
static int call_tool(sp_mcp *m, const char *tool, json_t *args, const char *mark, tool_answer *a, sp_outcome *o)
{
	memset(a, 0, sizeof *a);
	json_t *params = json_pack("{s:s, s:o}", "name", tool, "arguments", args);
	json_t *resp = NULL;
	if (sp_mcp_request(m, "tools/call", params, &resp, o) < 0)
		return -1;
	a->answered = true;
	json_t *err = json_object_get(resp, "error");
	if (err) {
		a->refused = true;
		snprintf(a->head, sizeof a->head, "error %lld %.100s", (long long)json_integer_value(json_object_get(err, "code")),
			 json_string_value(json_object_get(err, "message")) ? json_string_value(json_object_get(err, "message")) : "");
	} else {
		json_t *res = json_object_get(resp, "result");
		a->refused = json_is_true(json_object_get(res, "isError"));
		size_t i;
		json_t *c;
		json_array_foreach(json_object_get(res, "content"), i, c) {
			const char *t = json_string_value(json_object_get(c, "text"));
			if (!t)
				continue;
			if (!a->head[0]) {
				snprintf(a->head, sizeof a->head, "%.150s", t);
				for (char *q = a->head; *q; q++)
					if ((unsigned char)*q < 0x20)
						*q = ' ';
			}
			if (strstr(t, mark))
				a->has_mark = true;
		}
		/* structuredContent may carry the text too */
		_cleanup_free_ char *sc = json_dumps(json_object_get(res, "structuredContent"), JSON_COMPACT | JSON_ENCODE_ANY);
		if (sc && strstr(sc, mark))
			a->has_mark = true;
	}
	json_decref(resp);
	return 0;
}

/* tools/call NAME {ARG: path} */
static int call_path_tool(sp_mcp *m, const char *tool, const char *arg, const char *path, const char *mark,
			  tool_answer *a, sp_outcome *o)
{
	return call_tool(m, tool, json_pack("{s:s}", arg, path), mark, a, o);
}

static bool under(const char *path, const char *root)
{
	size_t l = strlen(root);
	while (l > 1 && root[l - 1] == '/')
		l--;
	return strncmp(path, root, l) == 0 && (path[l] == '/' || path[l] == '\0' || (l == 1 && root[0] == '/'));
}

/* a file of its own, holding mark, created exclusively in dir; 0, or -1
 * with o (o->why the error's text) */
static int place_marker(const char *dir, const char *mark, char *path, size_t size, sp_outcome *o)
{
	snprintf(path, size, "%s/.sandprobe-mcp-%d-%08x", dir, (int)getpid(), (unsigned)(sp_now_ns() & 0xffffffffu));
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return sp_why_errno(o, errno, "%s", strerror(errno));
	int rc = sp_write_all(fd, mark, strlen(mark));
	close(fd);
	if (rc < 0) {
		unlink(path);
		return sp_why_errno(o, -rc, "%s", strerror(-rc));
	}
	return 0;
}

static void remove_placed(sp_result *r, const char *path)
{
	struct stat st;
	if (!path[0])
		return;
	if (unlink(path) < 0 && errno != ENOENT)
		sp_observed_add(r, "cannot remove %s: %s", path, strerror(errno));
	else if (lstat(path, &st) == 0)
		sp_observed_add(r, "%s is still there", path);
}

static void run_fs_roots(const sp_ctx *ctx, sp_result *r)
{
	const char *tool = sp_policy_get(ctx->policy, "mcp.fs_tool");
	const char *arg = sp_policy_get(ctx->policy, "mcp.fs_arg");
	if (!arg || !*arg)
		arg = "path";
	sp_strv roots;
	sp_policy_list(ctx->policy, "mcp.fs_roots", &roots);
	sp_expected(r, "the file tool %s reads inside its roots (%zu) and refuses '..', an absolute path and a symlink "
		       "leading out",
		    tool && *tool ? tool : "(mcp.fs_tool)", roots.n);
	char in_mark[PATH_MAX] = "", out_mark[PATH_MAX] = "", link_path[PATH_MAX] = "";
	sp_outcome o = {0};
	sp_mcp m;
	bool opened = false;
	if (!has_server(ctx)) {
		sp_skip(r, "the policy declares no MCP server (" NO_SERVER_KEYS ")");
		goto out;
	}
	if (!tool || !*tool || roots.n == 0) {
		sp_skip(r, "the policy names no file tool and its roots (mcp.fs_tool, mcp.fs_roots)");
		goto out;
	}
	/* the markers: one inside the first root, one outside every root */
	char mark_in[64], mark_out[64];
	snprintf(mark_in, sizeof mark_in, "sandprobe-inside-%d-%llx", (int)getpid(), (unsigned long long)sp_now_ns());
	snprintf(mark_out, sizeof mark_out, "sandprobe-outside-%d-%llx", (int)getpid(), (unsigned long long)sp_now_ns());
	if (place_marker(roots.v[0], mark_in, in_mark, sizeof in_mark, &o) < 0) {
		in_mark[0] = '\0';
		sp_skip(r, "cannot place a file in the root %s (%s): the tool's reach cannot be proven", roots.v[0],
			o.why);
		goto out;
	}
	const char *tmp = getenv("TMPDIR");
	const char *dirs[] = {tmp && *tmp == '/' ? tmp : "/tmp", "/tmp", "/var/tmp", "/dev/shm", NULL};
	for (size_t i = 0; dirs[i] && !out_mark[0]; i++) {
		bool inside = false;
		for (size_t k = 0; k < roots.n; k++)
			inside |= under(dirs[i], roots.v[k]);
		if (!inside && place_marker(dirs[i], mark_out, out_mark, sizeof out_mark, &o) < 0)
			out_mark[0] = '\0';
	}
	if (!out_mark[0]) {
		sp_skip(r, "no writable directory outside the roots for a marker (/tmp, /var/tmp, /dev/shm)");
		goto out;
	}
	snprintf(link_path, sizeof link_path, "%s.link", in_mark);
	bool have_link = symlink(out_mark, link_path) == 0;
	int link_err = have_link ? 0 : errno;
	if (!have_link)
		link_path[0] = '\0';
	char proto[64] = "", server[160] = "";
	if (open_session(ctx, r, &m, proto, sizeof proto, server, sizeof server) <= 0)
		goto out;
	opened = true;
	sp_observed(r, "server %s, tool %s", server, tool);
	tool_answer a;
	if (call_path_tool(&m, tool, arg, in_mark, mark_in, &a, &o) < 0) {
		sp_failr(r, "the session ended on a read inside the root: %.300s", o.why);
		goto out;
	}
	if (!a.has_mark) {
		sp_observed_add(r, "%s: %s", in_mark, a.head);
		sp_errorr(r, "%s cannot read %s inside its root: the refusals below would prove nothing", tool, in_mark);
		goto out;
	}
	sp_observed_add(r, "inside %s: read", roots.v[0]);
	/* the escapes */
	char dotdot[PATH_MAX * 2] = "";
	size_t depth = 0;
	for (const char *c = roots.v[0]; *c; c++)
		depth += c[0] == '/' && c[1] && c[1] != '/';
	size_t l = (size_t)snprintf(dotdot, sizeof dotdot, "%s", roots.v[0]);
	for (size_t i = 0; i < depth && l < sizeof dotdot; i++)
		l += (size_t)snprintf(dotdot + l, sizeof dotdot - l, "/..");
	if (l < sizeof dotdot)
		snprintf(dotdot + l, sizeof dotdot - l, "%s", out_mark);
	struct {
		const char *what, *path;
	} esc[] = {{"'..'", dotdot}, {"an absolute path", out_mark}, {"a symlink leading out", link_path}};
	char reached[300] = "";
	size_t refused = 0;
	for (size_t i = 0; i < SP_ARRAY_SIZE(esc); i++) {
		if (!esc[i].path[0]) {
			sp_observed_add(r, "%s: not probed (no symlink could be made: %s)", esc[i].what, strerror(link_err));
			continue;
		}
		if (call_path_tool(&m, tool, arg, esc[i].path, mark_out, &a, &o) < 0) {
			sp_failr(r, "the session ended on %s: %.300s", esc[i].what, o.why);
			goto out;
		}
		if (a.has_mark) {
			list_add(reached, sizeof reached, esc[i].what);
			sp_observed_add(r, "%s (%s): READ", esc[i].what, esc[i].path);
		} else {
			refused++;
			sp_observed_add(r, "%s: refused (%.80s)", esc[i].what, a.head);
		}
	}
	if (reached[0])
		sp_failr(r, "the tool %s reads outside its roots through %s", tool, reached);
	else if (!have_link)
		sp_errorr(r, "%zu escapes refused, but the symlink could not be made in %s", refused, roots.v[0]);
	else
		sp_pass(r, "%s reads inside %s and refuses '..', an absolute path and a symlink leading out", tool, roots.v[0]);
out:
	if (opened)
		sp_mcp_close(&m);
	remove_placed(r, link_path);
	remove_placed(r, in_mark);
	remove_placed(r, out_mark);
	sp_strv_free(&roots);
}

/* ---- mcp.egress ------------------------------------------------------------------- */

/* tools/call of the fetch tool: 1 reached (a result that is no error), 0
 * refused, -1 with why when the session ended */
static int call_fetch(sp_mcp *m, const char *tool, const char *arg, const char *url, char *head, size_t headsz,
		      sp_outcome *o)
{
	tool_answer a;
	if (call_path_tool(m, tool, arg, url, "\x01", &a, o) < 0)
		return -1;
	snprintf(head, headsz, "%.80s", a.head);
	return a.refused ? 0 : 1;
}

/* Can the sandbox itself connect to the URL's host, without the tool? Only
 * for an IP literal (the static doctor resolves no name): "connects",
 * "cannot connect (...)", or "" when the host is a name. */
static void direct_reach(const char *url, char *out, size_t size)
{
	out[0] = '\0';
	const char *p = strstr(url, "://");
	if (!p)
		return;
	bool tls = strncmp(url, "https", 5) == 0;
	p += 3;
	size_t n = strcspn(p, "/?#");
	char hp[300];
	if (n == 0 || n >= sizeof hp)
		return;
	snprintf(hp, sizeof hp, "%.*s", (int)n, p);
	char *at = strrchr(hp, '@');
	const char *host = at ? at + 1 : hp;
	struct sockaddr_storage sa;
	socklen_t len;
	sp_outcome o = {0};
	if (sp_net_parse_hostport(host, tls ? 443 : 80, &sa, &len, &o) < 0)
		return;
	int fd = sp_net_connect_deadline((struct sockaddr *)&sa, len, sp_now_ns() + 2 * SP_NS_PER_S);
	if (fd >= 0) {
		close(fd);
		snprintf(out, size, "connects");
	} else {
		snprintf(out, size, "cannot connect (%s)", strerror(-fd));
	}
}

static void run_egress(const sp_ctx *ctx, sp_result *r)
{
	const char *tool = sp_policy_get(ctx->policy, "mcp.fetch_tool");
	const char *arg = sp_policy_get(ctx->policy, "mcp.fetch_arg");
	if (!arg || !*arg)
		arg = "url";
	sp_strv allowed, denied, readonly;
	sp_policy_list(ctx->policy, "mcp.fetch_allowed", &allowed);
	sp_policy_list(ctx->policy, "mcp.fetch_denied", &denied);
	sp_policy_list(ctx->policy, "mcp.fetch_readonly", &readonly);
	sp_expected(r, "the fetch tool %s reaches the %zu allowed URL%s and is refused the %zu denied", tool && *tool ? tool : "(mcp.fetch_tool)",
		    allowed.n, allowed.n == 1 ? "" : "s", denied.n);
	sp_mcp m;
	bool opened = false;
	char head[100];
	sp_outcome o = {0};
	if (!has_server(ctx)) {
		sp_skip(r, "the policy declares no MCP server (" NO_SERVER_KEYS ")");
		goto out;
	}
	if (!tool || !*tool || denied.n == 0) {
		sp_skip(r, "the policy names no fetch tool and URLs it must be refused (mcp.fetch_tool, mcp.fetch_denied)");
		goto out;
	}
	char proto[64] = "", server[160] = "";
	if (open_session(ctx, r, &m, proto, sizeof proto, server, sizeof server) <= 0)
		goto out;
	opened = true;
	sp_observed(r, "server %s, tool %s", server, tool);
	char reached[400] = "", blocked[400] = "";
	for (size_t i = 0; i < denied.n; i++) {
		int rc = call_fetch(&m, tool, arg, denied.v[i], head, sizeof head, &o);
		if (rc < 0) {
			sp_failr(r, "the session ended on %s: %.300s", denied.v[i], o.why);
			goto out;
		}
		char direct[120];
		direct_reach(denied.v[i], direct, sizeof direct);
		sp_observed_add(r, "denied %s: %s (%s)%s%s", denied.v[i], rc ? "REACHED" : "refused", head,
				direct[0] ? "; the sandbox itself " : "", direct);
		if (rc) {
			char item[400];
			snprintf(item, sizeof item, "%s%s", denied.v[i],
				 strncmp(direct, "cannot", 6) == 0 ? " (which the sandbox itself cannot connect to)" : "");
			list_add(reached, sizeof reached, item);
		}
	}
	const char *marg = sp_policy_get(ctx->policy, "mcp.fetch_method_arg");
	const char *barg = sp_policy_get(ctx->policy, "mcp.fetch_body_arg");
	long long body = sp_policy_int(ctx->policy, "mcp.fetch_body_bytes", MCP_BIG_DEFAULT);
	if (body <= 0)
		body = MCP_BIG_DEFAULT;
	if (body > MCP_BIG_MAX)
		body = MCP_BIG_MAX;
	for (size_t i = 0; i < readonly.n; i++) {
		/* a GET there is allowed: the control for the refusal of the POST */
		sp_strv_push(&allowed, readonly.v[i]);
		char *pad = sp_xmalloc((size_t)body + 1);
		memset(pad, 'x', (size_t)body);
		pad[body] = '\0';
		json_t *args = json_pack("{s:s, s:s, s:s}", arg, readonly.v[i], marg && *marg ? marg : "method", "POST",
					 barg && *barg ? barg : "body", pad);
		free(pad);
		tool_answer a;
		if (call_tool(&m, tool, args, "\x01", &a, &o) < 0) {
			sp_failr(r, "the session ended on a POST to %s: %.300s", readonly.v[i], o.why);
			goto out;
		}
		sp_observed_add(r, "read-only %s, POST of %lld bytes: %s (%.80s)", readonly.v[i], body,
				a.refused ? "refused" : "SENT", a.head);
		if (!a.refused) {
			char item[400];
			snprintf(item, sizeof item, "a %lld-byte POST to %s", body, readonly.v[i]);
			list_add(reached, sizeof reached, item);
		}
	}
	for (size_t i = 0; i < allowed.n; i++) {
		int rc = call_fetch(&m, tool, arg, allowed.v[i], head, sizeof head, &o);
		if (rc < 0) {
			sp_failr(r, "the session ended on %s: %.300s", allowed.v[i], o.why);
			goto out;
		}
		sp_observed_add(r, "allowed %s: %s (%s)", allowed.v[i], rc ? "reached" : "refused", head);
		if (!rc)
			list_add(blocked, sizeof blocked, allowed.v[i]);
	}
	if (reached[0])
		sp_failr(r, "the tool %s reaches what the sandbox denies: %s", tool, reached);
	else if (allowed.n == 0)
		sp_skip(r, "every denied URL refused, but no allowed URL (mcp.fetch_allowed) shows the tool can fetch at all");
	else if (blocked[0])
		sp_errorr(r, "the tool %s cannot reach the allowed %s: its refusals prove nothing", tool, blocked);
	else
		sp_pass(r, "%s reaches the %zu allowed URL%s and is refused the %zu denied%s", tool, allowed.n,
			allowed.n == 1 ? "" : "s", denied.n, readonly.n ? " and the POSTs to read-only hosts" : "");
out:
	if (opened)
		sp_mcp_close(&m);
	sp_strv_free(&allowed);
	sp_strv_free(&denied);
	sp_strv_free(&readonly);
}

/* ---- descriptors -------------------------------------------------------------------- */

#define MCP_KEYS "mcp.command:mcp_command,mcp.url:mcp_url,mcp.sse_url:mcp_url,mcp.timeout_ms:int"

const sp_check sp_check_mcp_handshake = {
	.id = SP_CKID(mcp_handshake),
	.category = "mcp",
	.title = "the agent's MCP server answers the protocol handshake",
	.rationale = "the checks of the agent's tools need a server that speaks MCP; one that does not is no tool endpoint",
	.techniques = "AML.T0086",
	.policy_keys = MCP_KEYS,
	.method = "action",
	.run = run_handshake,
	.timeout_ms = 30000,
};

const sp_check sp_check_mcp_tools = {
	.id = SP_CKID(mcp_tools),
	.category = "mcp",
	.title = "the MCP server offers exactly the declared tools, each well-formed",
	.rationale = "an unexpected shell or exec tool gives the agent what the sandbox denies it directly",
	.techniques = "AML.T0086,AML.T0053",
	.policy_keys = MCP_KEYS ",mcp.tools:list",
	.method = "action",
	.run = run_tools,
	.timeout_ms = 30000,
};

const sp_check sp_check_mcp_robust = {
	.id = SP_CKID(mcp_robust),
	.category = "mcp",
	.title = "the MCP server survives malformed, unknown, oversized and interleaved messages",
	.rationale = "a tool endpoint that a bad message kills or confuses is one an agent can take down or desynchronise",
	.techniques = "AML.T0086",
	.policy_keys = MCP_KEYS ",mcp.oversized_bytes:int",
	.method = "action",
	.run = run_robust,
	.timeout_ms = 60000,
};

const sp_check sp_check_mcp_fs_roots = {
	.id = SP_CKID(mcp_fs_roots),
	.category = "mcp",
	.title = "the MCP file tool stays inside its declared roots",
	.rationale = "a file tool that follows '..', an absolute path or a symlink out reads what the sandbox keeps from the agent",
	.techniques = "AML.T0086,AML.T0053",
	.policy_keys = MCP_KEYS ",mcp.fs_tool:str,mcp.fs_arg:str,mcp.fs_roots:paths",
	.method = "action",
	.run = run_fs_roots,
	.timeout_ms = 30000,
};

const sp_check sp_check_mcp_egress = {
	.id = SP_CKID(mcp_egress),
	.category = "mcp",
	.title = "the MCP fetch tool reaches the allowed URLs and is refused the denied ones",
	.rationale = "a sandbox whose network is locked down but whose fetch tool reaches anywhere exfiltrates through the tool",
	.techniques = "AML.T0086,AML.T0025",
	.policy_keys = MCP_KEYS ",mcp.fetch_tool:str,mcp.fetch_arg:str,mcp.fetch_allowed:list,mcp.fetch_denied:list,"
				"mcp.fetch_readonly:list,mcp.fetch_method_arg:str,mcp.fetch_body_arg:str,mcp.fetch_body_bytes:int",
	.method = "action",
	.run = run_egress,
	.timeout_ms = 60000,
};
