/* A small Model Context Protocol client for the mcp.* checks: JSON-RPC 2.0
 * over a server's stdin/stdout (the stdio transport: one JSON message per
 * line), bounded in time (every wait has a deadline) and size (a reply line
 * longer than SP_MCP_MAX_LINE ends the session). The server is started as
 * the leader of its own process group (core/spawn.h) and killed with it. */
#ifndef SP_CHECKS_MCP_H
#define SP_CHECKS_MCP_H

#include <jansson.h>
#include <sys/socket.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/outcome.h"
#include "core/spawn.h"
#include "core/util.h"

#define SP_MCP_MAX_LINE (8u << 20) /* one message from the server */
#define SP_MCP_MAX_WORDS 64        /* words of mcp.command */
#define SP_MCP_PROTOCOL "2025-06-18"

/* The HTTP transports (mcp_http.c): one reply's parser. Status line and
 * headers (at most SP_MCP_MAX_HEAD bytes), then a body by Content-Length,
 * chunked or to the end of the connection. A JSON body, or each SSE event
 * "message" of a text/event-stream body, is one message: appended to the
 * session's buffer as one line, as the stdio transport reads them. */
#define SP_MCP_MAX_HEAD 8192
typedef struct sp_mcp_http {
	int phase; /* 0 head, 1 body, 2 complete */
	char head[SP_MCP_MAX_HEAD];
	size_t headlen;
	int status;
	bool chunked, sse, json;
	long long clen, got; /* Content-Length (-1: none), body bytes seen */
	int cphase;          /* chunked: 0 size line, 1 data, 2 CRLF after data, 3 trailers */
	unsigned long long cleft;
	char cline[80];
	size_t clinelen;
	char *acc; /* SSE: the current line; JSON: the body */
	size_t acclen, acccap;
	char *data; /* SSE: the current event's data */
	size_t datalen, datacap;
	char event[40];
	char session[160];  /* its Mcp-Session-Id header */
	char endpoint[512]; /* SSE transport: the data of an endpoint event */
	size_t messages;    /* delivered */
} sp_mcp_http;

enum { SP_MCP_STDIO,
       SP_MCP_HTTP,
       SP_MCP_SSE };

typedef struct sp_mcp {
	sp_child child;
	int transport;
	struct sockaddr_storage addr; /* HTTP: the server */
	socklen_t addrlen;
	char hostport[80];
	char path[512];     /* the endpoint (streamable HTTP) or the event stream (SSE) */
	char post[512];     /* SSE: where messages are POSTed (its endpoint event) */
	char session[160];  /* streamable HTTP: Mcp-Session-Id after initialize */
	int sock;           /* SSE: the event stream */
	sp_mcp_http stream; /* its parser */
	int last_status;    /* of the last POST */
	char broken[240];   /* why the event stream is unusable */
	bool framing;       /* HTTP: a reply's framing was malformed (not its JSON) */
	char *buf; /* bytes read from the server, not yet consumed */
	size_t len, cap;
	size_t nl_free;    /* the first nl_free bytes of buf hold no newline */
	bool eof;          /* the server closed its stdout */
	bool overlong;     /* a line went past SP_MCP_MAX_LINE */
	char errtail[240]; /* the end of the server's stderr */
	size_t errlen;
	unsigned timeout_ms; /* each exchange */
	long long next_id;
	size_t unsolicited; /* messages read while waiting that answered nothing of ours */
} sp_mcp;

/* Each function below that fails "with why" returns -1 (or -2) and fills
 * the sp_outcome it is given (core/outcome.h). */

/* Split a command line into words at blanks; '...' and "..." quote (no
 * escapes). 0, or -1 with why (unterminated quote, no word, too many). */
int sp_mcp_split_command(const char *s, sp_strv *out, sp_outcome *o);

/* Start the server (argv from sp_mcp_split_command). 0, or -1 with why. */
int sp_mcp_start(sp_mcp *m, const char *command, unsigned timeout_ms, sp_outcome *o);
/* Reach the server over HTTP instead: url is http://IP:PORT/PATH (the
 * doctor resolves no name); sse: the older transport (GET an event
 * stream, POST to its endpoint). 0, -1 with why (cannot connect, no
 * endpoint event), -2 with why (https, not supported). */
int sp_mcp_start_http(sp_mcp *m, const char *url, bool sse, unsigned timeout_ms, sp_outcome *o);
/* Parse such a URL: 0, -1 with why (malformed), -2 (https). */
int sp_mcp_parse_url(const char *url, struct sockaddr_storage *ss, socklen_t *sl, char *hostport, size_t hpsz,
		     char *path, size_t pathsz, sp_outcome *o);
/* Feed reply bytes; messages land in m->buf as lines. 0, or -1 with why
 * (a malformed status line, header or chunk; a head, body, line or
 * message past its bound). */
int sp_mcp_http_feed(sp_mcp *m, sp_mcp_http *h, const char *data, size_t n, sp_outcome *o);
/* The connection ended: 0 (the reply is whole), or -1 with why. */
int sp_mcp_http_end(sp_mcp *m, sp_mcp_http *h, sp_outcome *o);
void sp_mcp_http_reset(sp_mcp_http *h);
/* the client's side of the HTTP transports (used by mcp_client.c): POST
 * each line of text; read what the event stream has now; end the session */
int sp_mcp_http_send(sp_mcp *m, const char *text, size_t len, sp_outcome *o);
void sp_mcp_http_read_stream(sp_mcp *m);
void sp_mcp_http_close(sp_mcp *m);
void sp_mcp_http_free(sp_mcp_http *h);

/* Kill the server's group and free everything (safe on a zeroed sp_mcp). */
void sp_mcp_close(sp_mcp *m);

/* Write len bytes and a newline, reading what the server sends meanwhile.
 * 0, or -1 with why (the server closed its stdin, the deadline passed). */
int sp_mcp_send_raw(sp_mcp *m, const char *text, size_t len, sp_outcome *o);
/* The next message from the server: 1 and *out (a JSON value, may be any
 * type), 0 at the deadline (*out NULL), -1 with why (end of stream, a line
 * that is not JSON, an overlong line). */
int sp_mcp_recv(sp_mcp *m, uint64_t deadline_ns, json_t **out, sp_outcome *o);

/* Send a request (params stolen, may be NULL) and wait for the response
 * with its id; messages in between (notifications, requests of the
 * server) are counted in unsolicited. 0 and *resp (the response object),
 * or -1 with why. */
int sp_mcp_request(sp_mcp *m, const char *method, json_t *params, json_t **resp, sp_outcome *o);
/* initialize + notifications/initialized; 0 and *result (the initialize
 * result, for the caller to judge), or -1 with why */
int sp_mcp_initialize(sp_mcp *m, json_t **result, sp_outcome *o);

/* ---- judging what came back (pure: the fuzz harness drives these) ---- */

/* Classify one parsed message: a response to id (result or error), with
 * the error code when it is one. 1: a response with that id, 0: some other
 * message, -1 with why: a response that breaks JSON-RPC 2.0 (both result
 * and error, neither, an error without an integer code). */
int sp_mcp_response(const json_t *msg, long long id, bool *is_error, long long *code, sp_outcome *o);
/* Judge an initialize result: 0 and the protocol version and server name,
 * or -1 with why (no protocolVersion string, no serverInfo.name, no tools
 * capability). */
int sp_mcp_init_result(const json_t *result, char *proto, size_t protosz, char *server, size_t serversz, sp_outcome *o);
/* Judge one page of tools/list: push each tool's name to names; -1 with
 * why naming the first tool that is malformed (no name, a name twice, no
 * description, an inputSchema that is not an object schema). *cursor
 * becomes nextCursor (a new string) or NULL. */
int sp_mcp_tools_page(const json_t *result, sp_strv *names, char **cursor, sp_outcome *o);

#endif
