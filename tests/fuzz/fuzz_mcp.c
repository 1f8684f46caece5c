/* libFuzzer: what an MCP server sends the doctor (src/checks/mcp_client.c):
 * the byte stream cut into lines and parsed (through a pipe, as the
 * server's stdout), each message judged as a response, an initialize
 * result and a tools/list page; mcp.command's word splitter; and
 * (src/checks/mcp_http.c) an HTTP reply fed to the HTTP/SSE parser in
 * pieces the input chooses, then read back as messages, and mcp.url's
 * parser. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks/mcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0 || size > 60000) /* the whole stream fits in a pipe */
		return 0;
	sp_outcome o = {0};
	if (data[0] & 2) {
		sp_mcp m;
		memset(&m, 0, sizeof m);
		sp_child_init(&m.child);
		m.sock = -1;
		m.transport = SP_MCP_HTTP;
		sp_mcp_http h;
		memset(&h, 0, sizeof h);
		sp_mcp_http_reset(&h);
		/* data[0]'s high bits: the size of each piece fed */
		size_t step = 1 + ((size_t)(data[0] >> 2) * 97) % 4096, i = 1;
		int rc = 0;
		while (i < size && rc == 0) {
			size_t n = size - i < step ? size - i : step;
			rc = sp_mcp_http_feed(&m, &h, (const char *)data + i, n, &o);
			i += n;
		}
		if (rc == 0)
			sp_mcp_http_end(&m, &h, &o);
		if (h.phase > 2 || h.headlen >= sizeof h.head || strlen(h.endpoint) >= sizeof h.endpoint)
			abort();
		/* every delivered message is one line, no longer than the bound */
		size_t lines = 0;
		for (size_t k = 0; k < m.len; k++)
			lines += m.buf[k] == '\n';
		if (lines != h.messages || (m.len && m.buf[m.len - 1] != '\n'))
			abort();
		for (size_t k = 0; k < h.messages; k++) {
			json_t *msg = NULL;
			if (sp_mcp_recv(&m, sp_now_ns(), &msg, &o) < 0)
				continue;
			json_decref(msg);
		}
		sp_mcp_http_free(&h);
		sp_mcp_close(&m);
		char *url = strndup((const char *)data + 1, size - 1);
		struct sockaddr_storage ss;
		socklen_t sl;
		char hp[80], path[512];
		if (sp_mcp_parse_url(url, &ss, &sl, hp, sizeof hp, path, sizeof path, &o) == 0 && path[0] != '/')
			abort();
		free(url);
		return 0;
	}
	if (data[0] & 1) {
		char *cmd = strndup((const char *)data + 1, size - 1);
		sp_strv v;
		if (sp_mcp_split_command(cmd, &v, &o) == 0 && (v.n == 0 || v.n > SP_MCP_MAX_WORDS))
			abort();
		sp_strv_free(&v);
		free(cmd);
		return 0;
	}
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return 0;
	if (write(pfd[1], data + 1, size - 1) != (ssize_t)(size - 1))
		abort();
	close(pfd[1]);
	sp_mcp m;
	memset(&m, 0, sizeof m);
	sp_child_init(&m.child);
	m.child.out = pfd[0];
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	m.timeout_ms = 100;
	sp_strv names;
	sp_strv_split(&names, NULL, ",");
	for (int i = 0; i < 1000; i++) {
		json_t *msg = NULL;
		if (sp_mcp_recv(&m, sp_now_ns() + 100 * SP_NS_PER_MS, &msg, &o) <= 0)
			break;
		bool is_error;
		long long code;
		sp_mcp_response(msg, 1, &is_error, &code, &o);
		char proto[64], server[160];
		sp_mcp_init_result(json_object_get(msg, "result"), proto, sizeof proto, server, sizeof server, &o);
		char *cursor = NULL;
		size_t before = names.n;
		if (sp_mcp_tools_page(json_object_get(msg, "result"), &names, &cursor, &o) == 0 && cursor &&
		    !*cursor)
			abort();
		for (size_t k = before; k < names.n; k++)
			for (size_t j = 0; j < k; j++)
				if (!strcmp(names.v[j], names.v[k]))
					abort(); /* a name twice is malformed, never accepted */
		free(cursor);
		json_decref(msg);
	}
	sp_strv_free(&names);
	sp_mcp_close(&m);
	return 0;
}
