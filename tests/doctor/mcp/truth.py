#!/usr/bin/env python3
"""Ground truth for tests/doctor/mcp*.t, independent of the doctor: a plain
MCP client over a server's stdio.
  truth.py tools CMD...    the names tools/list gives, one a line, sorted
  truth.py survives CMD... 'survives' when a ping is answered after a line
                           that is not JSON, else 'dies'
  truth.py read TOOL PATH CMD...  the text tools/call TOOL {path: PATH}
                           returns, or 'refused: TEXT' (an error or isError)
"""
import json, os, select, subprocess, sys, time

def main():
    what, cmd = sys.argv[1], sys.argv[2:]
    if what == "read":
        tool, path, cmd = cmd[0], cmd[1], cmd[2:]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    def send(line):
        p.stdin.write(line.encode() + b"\n")
        p.stdin.flush()
    buf = bytearray()  # our own line buffer: select() cannot see one a file object holds
    def wait_id(i, t=15):
        end = time.time() + t
        while time.time() < end:
            while b"\n" in buf:
                line, _, rest = bytes(buf).partition(b"\n")
                buf[:] = rest
                if not line.strip():
                    continue
                m = json.loads(line)
                if m.get("id") == i and "method" not in m:
                    return m
            r, _, _ = select.select([p.stdout], [], [], 0.2)
            if not r:
                continue
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                return "eof"
            buf.extend(chunk)
        return "timeout"
    try:
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "truth", "version": "1"}}}))
        if not isinstance(wait_id(1), dict):
            print("no-handshake")
            return
        send('{"jsonrpc":"2.0","method":"notifications/initialized"}')
        if what == "tools":
            names, cursor, n = [], None, 2
            while True:
                req = {"jsonrpc": "2.0", "id": n, "method": "tools/list"}
                if cursor:
                    req["params"] = {"cursor": cursor}
                send(json.dumps(req))
                m = wait_id(n)
                if not isinstance(m, dict):
                    print(m)
                    return
                names += [t["name"] for t in m["result"]["tools"]]
                cursor = m["result"].get("nextCursor")
                n += 1
                if not cursor:
                    break
            print("\n".join(sorted(names)))
        elif what == "read":
            send(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                             "params": {"name": tool, "arguments": {"path": path}}}))
            m = wait_id(2)
            if not isinstance(m, dict):
                print(m)
            elif "error" in m:
                print("refused: " + m["error"]["message"])
            else:
                text = "".join(c.get("text", "") for c in m["result"].get("content", []))
                print(("refused: " if m["result"].get("isError") else "") + text)
        else:
            try:
                send('{"jsonrpc":"2.0","method":')
                send('{"jsonrpc":"2.0","id":2,"method":"ping"}')
                m = wait_id(2, 20)
                print("survives" if isinstance(m, dict) else "dies" if m == "eof" else "no answer in 20 s")
            except BrokenPipeError:
                print("dies")
    finally:
        p.kill()
        p.wait()

main()
