#!/usr/bin/env python3
"""Ground truth and fixtures for tests/doctor/mcp_http.t, independent of the
doctor (Python's own http.client and socketserver, loopback only).
  http_truth.py tools URL     streamable HTTP: initialize, then the names
                              tools/list gives, one a line, sorted
  http_truth.py port          a free loopback TCP port
  http_truth.py serve PORT KIND   a broken SSE-transport server on
                              127.0.0.1:PORT: GET /sse gives an endpoint
                              event, then KIND: badjson (a message event
                              that is not JSON), badchunk (a chunk size
                              that is no number), silent (never answers),
                              html (GET answers text/html, no stream)
"""
import http.client, json, socket, socketserver, sys, threading, time


def post(conn, path, msg, sess):
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if sess:
        h["Mcp-Session-Id"] = sess
    conn.request("POST", path, json.dumps(msg), h)
    r = conn.getresponse()
    body = r.read().decode()
    out = []
    if r.getheader("Content-Type", "").startswith("text/event-stream"):
        for ev in body.split("\n\n"):
            data = [l[5:].lstrip() for l in ev.splitlines() if l.startswith("data:")]
            if data:
                out.append(json.loads("\n".join(data)))
    elif body.strip():
        out.append(json.loads(body))
    return r.getheader("Mcp-Session-Id"), out


def tools(url):
    hp, _, path = url[len("http://"):].partition("/")
    host, _, port = hp.rpartition(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=15)
    sess, _ = post(conn, "/" + path, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "truth", "version": "1"}}}, None)
    post(conn, "/" + path, {"jsonrpc": "2.0", "method": "notifications/initialized"}, sess)
    _, out = post(conn, "/" + path, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, sess)
    for n in sorted(t["name"] for m in out if m.get("id") == 2 for t in m["result"]["tools"]):
        print(n)


def serve(port, kind):
    streams = []

    class H(socketserver.StreamRequestHandler):
        def handle(self):
            line = self.rfile.readline().decode()
            hdrs = {}
            while True:
                l = self.rfile.readline().decode().strip()
                if not l:
                    break
                k, _, v = l.partition(":")
                hdrs[k.lower()] = v.strip()
            if line.startswith("GET"):
                if kind == "html":
                    self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nhello")
                    return
                self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
                ev = b"event: endpoint\ndata: /msg\n\n"
                streams.append(self.wfile)  # before the endpoint event: a POST may follow at once
                self.wfile.write(b"%x\r\n%s\r\n" % (len(ev), ev))
                self.wfile.flush()
                time.sleep(60)
                return
            self.rfile.read(int(hdrs.get("content-length", "0")))
            self.wfile.write(b"HTTP/1.1 202 Accepted\r\nContent-Length: 8\r\nConnection: close\r\n\r\nAccepted")
            self.wfile.flush()
            for w in streams:
                try:
                    if kind == "badjson":
                        ev = b"event: message\ndata: {\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {oops\n\n"
                        w.write(b"%x\r\n%s\r\n" % (len(ev), ev))
                    elif kind == "badchunk":
                        w.write(b"zz\r\nevent: message\r\n")
                    w.flush()
                except OSError:
                    pass

    class S(socketserver.ThreadingMixIn, socketserver.TCPServer):
        allow_reuse_address = True
        daemon_threads = True

    S(("127.0.0.1", port), H).serve_forever()


if __name__ == "__main__":
    if sys.argv[1] == "tools":
        tools(sys.argv[2])
    elif sys.argv[1] == "port":
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        print(s.getsockname()[1])
    else:
        serve(int(sys.argv[2]), sys.argv[3])
