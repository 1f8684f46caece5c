#!/usr/bin/env python3
"""A TLS (and plain HTTP) origin for the agent tests, run inside a network
namespace the test created. Every connection is recorded (one JSON line:
the listener, the peer address, the TLS server name, the request line), so
a test can tell whether a probe reached the origin itself.

  tlsorigin.py --ready FILE --record FILE --cert PEM --key PEM
               [--tls ADDR/PORT]... [--http ADDR/PORT]...
"""
import argparse
import json
import socket
import ssl
import sys
import threading

lock = threading.Lock()


def record(path, entry):
    with lock, open(path, "a") as f:
        f.write(json.dumps(entry) + "\n")


def serve_conn(c, peer, listener, ctx, rec):
    entry = {"listener": listener, "peer": peer[0], "tls": ctx is not None, "sni": None, "request": None}
    try:
        c.settimeout(10)
        if ctx is not None:
            c = ctx.wrap_socket(c, server_side=True)
            entry["sni"] = getattr(c, "sni_name", None)
        buf = b""
        while b"\r\n\r\n" not in buf and len(buf) < 65536:
            d = c.recv(4096)
            if not d:
                break
            buf += d
        entry["request"] = buf.split(b"\r\n", 1)[0].decode("latin-1")
        body = b"origin says hello\n"
        c.sendall(b"HTTP/1.1 200 OK\r\nServer: sp-origin\r\nContent-Type: text/plain\r\nContent-Length: "
                  + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
    except (OSError, ssl.SSLError, ValueError) as e:
        entry["error"] = str(e)[:120]
    finally:
        record(rec, entry)
        try:
            c.close()
        except OSError:
            pass


def listener(spec, ctx, rec):
    host, port = spec.rsplit("/", 1)
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, int(port)))
    s.listen(64)

    def loop():
        while True:
            c, peer = s.accept()
            threading.Thread(target=serve_conn, args=(c, peer, spec, ctx, rec), daemon=True).start()

    return loop


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ready", required=True)
    ap.add_argument("--record", required=True)
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--tls", action="append", default=[])
    ap.add_argument("--http", action="append", default=[])
    a = ap.parse_args()
    ctx = None
    if a.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.cert, a.key)

        def remember(sock, name, _ctx):
            sock.sni_name = name

        ctx.sni_callback = remember
    loops = [listener(t, ctx, a.record) for t in a.tls] + [listener(h, None, a.record) for h in a.http]
    for fn in loops:
        threading.Thread(target=fn, daemon=True).start()
    with open(a.ready, "w") as f:
        f.write("ready\n")
    threading.Event().wait()


if __name__ == "__main__":
    sys.exit(main())
