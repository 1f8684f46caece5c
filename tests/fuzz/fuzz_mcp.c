/* libFuzzer: what an MCP server sends the doctor (src/checks/mcp_client.c):
 * the byte stream cut into lines and parsed (through a pipe, as the
 * server's stdout), each message judged as a response, an initialize
 * result and a tools/list page; and mcp.command's word splitter. */
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
	char why[700];
	if (data[0] & 1) {
		char *cmd = strndup((const char *)data + 1, size - 1);
		sp_strv v;
		if (sp_mcp_split_command(cmd, &v, why, sizeof why) == 0 && (v.n == 0 || v.n > SP_MCP_MAX_WORDS))
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
		if (sp_mcp_recv(&m, sp_now_ns() + 100 * SP_NS_PER_MS, &msg, why, sizeof why) <= 0)
			break;
		bool is_error;
		long long code;
		sp_mcp_response(msg, 1, &is_error, &code, why, sizeof why);
		char proto[64], server[160];
		sp_mcp_init_result(json_object_get(msg, "result"), proto, sizeof proto, server, sizeof server, why, sizeof why);
		char *cursor = NULL;
		size_t before = names.n;
		if (sp_mcp_tools_page(json_object_get(msg, "result"), &names, &cursor, why, sizeof why) == 0 && cursor &&
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
