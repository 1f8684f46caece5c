// A fetch tool over MCP (stdio), built with @modelcontextprotocol/sdk, for
// tests/doctor/mcp_egress.t. It fetches http:// URLs through the proxy in
// HTTP_PROXY (an absolute URI to the proxy), as an agent's fetch tool should;
// with --bypass it ignores the proxy and connects to the host itself (the
// negative control). Arguments: url, and method and body for a POST. A
// status of 400 or more is an error result.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import http from "node:http";
import { z } from "zod";

const bypass = process.argv.includes("--bypass");
const proxy = !bypass && process.env.HTTP_PROXY ? new URL(process.env.HTTP_PROXY) : null;

function get(url, method = "GET", body = "") {
	return new Promise((resolve, reject) => {
		const u = new URL(url);
		const opts = proxy
			? { host: proxy.hostname, port: proxy.port || 80, path: url, headers: { Host: u.host } }
			: { host: u.hostname, port: u.port || 80, path: u.pathname + u.search, headers: {} };
		if (body) opts.headers["Content-Length"] = Buffer.byteLength(body);
		const req = http.request({ ...opts, method, agent: false, timeout: 3000 }, (res) => {
			let body = "";
			res.on("data", (d) => { if (body.length < 2000) body += d; });
			res.on("end", () => resolve({ status: res.statusCode, body }));
		});
		req.on("timeout", () => req.destroy(new Error("timed out")));
		req.on("error", reject);
		req.end(body || undefined);
	});
}

const server = new McpServer({ name: "sandprobe-test-fetch", version: "1.0.0" });
const schema = { url: z.string(), method: z.string().optional(), body: z.string().optional() };
server.registerTool("fetch", { description: "fetch an http:// URL (GET, or POST with a body)", inputSchema: schema }, async ({ url, method, body }) => {
	try {
		const r = await get(url, method || "GET", body || "");
		return { content: [{ type: "text", text: `HTTP ${r.status}: ${r.body.slice(0, 200)}` }], isError: r.status >= 400 };
	} catch (e) {
		return { content: [{ type: "text", text: `fetch failed: ${e.message}` }], isError: true };
	}
});
await server.connect(new StdioServerTransport());
