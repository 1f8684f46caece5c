#!/usr/bin/env python3
"""Ground truth for tests/doctor/mcp*.t, independent of the doctor: a plain
MCP client over a server's stdio.
  truth.py tools CMD...    the names tools/list gives, one a line, sorted
  truth.py survives CMD... 'survives' when a ping is answered after a line
                           that is not JSON, else 'dies'
"""
import json, select, subprocess, sys, time

def main():
    what, cmd = sys.argv[1], sys.argv[2:]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    def send(line):
        p.stdin.write(line.encode() + b"\n")
        p.stdin.flush()
    def wait_id(i, t=15):
        end = time.time() + t
        while time.time() < end:
            r, _, _ = select.select([p.stdout], [], [], 0.2)
            if not r:
                continue
            line = p.stdout.readline()
            if not line:
                return None
            m = json.loads(line)
            if m.get("id") == i and "method" not in m:
                return m
        return None
    try:
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "truth", "version": "1"}}}))
        if not wait_id(1):
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
                names += [t["name"] for t in m["result"]["tools"]]
                cursor = m["result"].get("nextCursor")
                n += 1
                if not cursor:
                    break
            print("\n".join(sorted(names)))
        else:
            try:
                send('{"jsonrpc":"2.0","method":')
                send('{"jsonrpc":"2.0","id":2,"method":"ping"}')
                print("survives" if wait_id(2, 5) else "dies")
            except BrokenPipeError:
                print("dies")
    finally:
        p.kill()
        p.wait()

main()
