// A small MCP server over stdio, built with @modelcontextprotocol/sdk, for
// tests/doctor/mcp*.t: the tools it offers come from its arguments, so the
// tests can add the one that must not be there.
//   node server.mjs [--tools a,b,...] [--fragile]
// --fragile: the process exits on a line that is not JSON (a server that a
// malformed message takes down: the negative control of mcp.robust).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const args = process.argv.slice(2);
let tools = ["echo"];
let fragile = false;
for (let i = 0; i < args.length; i++) {
	if (args[i] === "--tools") tools = args[++i].split(",").filter(Boolean);
	else if (args[i] === "--fragile") fragile = true;
}
const server = new McpServer({ name: "sandprobe-test-server", version: "1.0.0" });
for (const name of tools) {
	server.registerTool(name, { description: `test tool ${name}`, inputSchema: { text: z.string() } },
		async ({ text }) => ({ content: [{ type: "text", text: `${name}: ${text}` }] }));
}
await server.connect(new StdioServerTransport());
if (fragile) server.server.onerror = () => process.exit(3);
