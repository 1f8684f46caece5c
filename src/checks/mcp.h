/* A small Model Context Protocol client for the mcp.* checks: JSON-RPC 2.0
 * over a server's stdin/stdout (the stdio transport: one JSON message per
 * line), bounded in time (every wait has a deadline) and size (a reply line
 * longer than SP_MCP_MAX_LINE ends the session). The server is started as
 * the leader of its own process group (core/spawn.h) and killed with it. */
#ifndef SP_CHECKS_MCP_H
#define SP_CHECKS_MCP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/spawn.h"
#include "core/util.h"

#define SP_MCP_MAX_LINE (8u << 20) /* one message from the server */
#define SP_MCP_MAX_WORDS 64        /* words of mcp.command */
#define SP_MCP_PROTOCOL "2025-06-18"

typedef struct sp_mcp {
	sp_child child;
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

/* Split a command line into words at blanks; '...' and "..." quote (no
 * escapes). 0, or -1 with why (unterminated quote, no word, too many). */
int sp_mcp_split_command(const char *s, sp_strv *out, char *why, size_t whysz);

/* Start the server (argv from sp_mcp_split_command). 0, or -1 with why. */
int sp_mcp_start(sp_mcp *m, const char *command, unsigned timeout_ms, char *why, size_t whysz);
/* Kill the server's group and free everything (safe on a zeroed sp_mcp). */
void sp_mcp_close(sp_mcp *m);

/* Write len bytes and a newline, reading what the server sends meanwhile.
 * 0, or -1 with why (the server closed its stdin, the deadline passed). */
int sp_mcp_send_raw(sp_mcp *m, const char *text, size_t len, char *why, size_t whysz);
/* The next message from the server: 1 and *out (a JSON value, may be any
 * type), 0 at the deadline (*out NULL), -1 with why (end of stream, a line
 * that is not JSON, an overlong line). */
int sp_mcp_recv(sp_mcp *m, uint64_t deadline_ns, json_t **out, char *why, size_t whysz);

/* Send a request (params stolen, may be NULL) and wait for the response
 * with its id; messages in between (notifications, requests of the
 * server) are counted in unsolicited. 0 and *resp (the response object),
 * or -1 with why. */
int sp_mcp_request(sp_mcp *m, const char *method, json_t *params, json_t **resp, char *why, size_t whysz);
/* initialize + notifications/initialized; 0 and *result (the initialize
 * result, for the caller to judge), or -1 with why */
int sp_mcp_initialize(sp_mcp *m, json_t **result, char *why, size_t whysz);

/* ---- judging what came back (pure: the fuzz harness drives these) ---- */

/* Classify one parsed message: a response to id (result or error), with
 * the error code when it is one. 1: a response with that id, 0: some other
 * message, -1 with why: a response that breaks JSON-RPC 2.0 (both result
 * and error, neither, an error without an integer code). */
int sp_mcp_response(const json_t *msg, long long id, bool *is_error, long long *code, char *why, size_t whysz);
/* Judge an initialize result: 0 and the protocol version and server name,
 * or -1 with why (no protocolVersion string, no serverInfo.name, no tools
 * capability). */
int sp_mcp_init_result(const json_t *result, char *proto, size_t protosz, char *server, size_t serversz, char *why,
		       size_t whysz);
/* Judge one page of tools/list: push each tool's name to names; -1 with
 * why naming the first tool that is malformed (no name, a name twice, no
 * description, an inputSchema that is not an object schema). *cursor
 * becomes nextCursor (a new string) or NULL. */
int sp_mcp_tools_page(const json_t *result, sp_strv *names, char **cursor, char *why, size_t whysz);

#endif
