#!/usr/bin/env python3
"""The fake internet for the network tests: run inside a network namespace
that the test created. Only binds the addresses it is given (all inside the
test's own namespaces).

  fakenet.py --ready FILE [--tcp ADDR/PORT]... [--dns ADDR/PORT/ANSWER]...
             [--http ADDR/PORT]... [--record FILE]

--tcp   accept and close TCP connections (a plain listener)
--udp   UDP echo: send every datagram back
--dns   UDP DNS responder: ANSWER is an IPv4 address (every A query gets it)
        or "nx" (NXDOMAIN for everything)
--http  HTTP/1.1 origin: answers 200 to anything, and appends one JSON line per
        request to --record: method, path, declared length, body bytes
        actually received, whether the body was complete
"""
import argparse
import json
import socket
import struct
import sys
import threading


def split(spec):
    host, port = spec.rsplit("/", 1)
    return host, int(port)


def family(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


record_lock = threading.Lock()


def record(path, entry):
    if not path:
        return
    with record_lock, open(path, "a") as f:
        f.write(json.dumps(entry) + "\n")


def tcp_server(host, port):
    s = socket.socket(family(host), socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, port))
    s.listen(64)

    def loop():
        while True:
            c, _ = s.accept()
            c.close()

    return loop


def udp_echo(host, port):
    s = socket.socket(family(host), socket.SOCK_DGRAM)
    s.bind((host, port))

    def loop():
        while True:
            d, peer = s.recvfrom(2048)
            s.sendto(d, peer)

    return loop


def dns_server(host, port, answer):
    s = socket.socket(family(host), socket.SOCK_DGRAM)
    s.bind((host, port))

    def loop():
        while True:
            q, peer = s.recvfrom(512)
            if len(q) < 12:
                continue
            qid = q[:2]
            # question section ends after the name's zero byte + 4
            end = 12
            while end < len(q) and q[end] != 0:
                end += q[end] + 1
            question = q[12:end + 5]
            qtype = struct.unpack("!H", q[end + 1:end + 3])[0] if end + 3 <= len(q) else 0
            if answer == "nx":
                hdr = qid + b"\x81\x83" + struct.pack("!HHHH", 1, 0, 0, 0)
                s.sendto(hdr + question, peer)
                continue
            if qtype != 1:  # only A records; AAAA gets an empty NOERROR
                hdr = qid + b"\x81\x80" + struct.pack("!HHHH", 1, 0, 0, 0)
                s.sendto(hdr + question, peer)
                continue
            hdr = qid + b"\x81\x80" + struct.pack("!HHHH", 1, 1, 0, 0)
            rr = b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) + socket.inet_aton(answer)
            s.sendto(hdr + question + rr, peer)

    return loop


def read_until(c, buf, marker):
    while marker not in buf:
        d = c.recv(65536)
        if not d:
            return buf, False
        buf += d
    return buf, True


def http_conn(c, rec):
    entry = {"method": None, "path": None, "declared": None, "chunked": False,
             "received": 0, "complete": False}
    try:
        c.settimeout(10)
        buf, ok = read_until(c, b"", b"\r\n\r\n")
        if not ok:
            return
        head, rest = buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        method, path = lines[0].split(" ")[:2]
        entry["method"], entry["path"] = method, path
        headers = {}
        for ln in lines[1:]:
            if ":" in ln:
                k, v = ln.split(":", 1)
                headers[k.strip().lower()] = v.strip()
        if "content-length" in headers:
            want = int(headers["content-length"])
            entry["declared"] = want
            got = len(rest)
            while got < want:
                d = c.recv(65536)
                if not d:
                    break
                got += len(d)
            entry["received"] = min(got, want)
            entry["complete"] = got >= want
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            entry["chunked"] = True
            buf = rest
            total = 0
            while True:
                buf, ok = read_until(c, buf, b"\r\n")
                if not ok:
                    break
                size_line, buf = buf.split(b"\r\n", 1)
                size = int(size_line.split(b";")[0], 16)
                if size == 0:
                    entry["complete"] = True
                    break
                while len(buf) < size + 2:
                    d = c.recv(65536)
                    if not d:
                        break
                    buf += d
                if len(buf) < size + 2:
                    total += len(buf)
                    break
                total += size
                buf = buf[size + 2:]
                entry["received"] = total
            entry["received"] = total
        else:
            entry["complete"] = True
        body = b"origin says hello\n"
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "
                  + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
    except (OSError, ValueError):
        pass
    finally:
        record(rec, entry)
        c.close()


def http_server(host, port, rec):
    s = socket.socket(family(host), socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, port))
    s.listen(64)

    def loop():
        while True:
            c, _ = s.accept()
            threading.Thread(target=http_conn, args=(c, rec), daemon=True).start()

    return loop


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ready", required=True)
    ap.add_argument("--tcp", action="append", default=[])
    ap.add_argument("--dns", action="append", default=[])
    ap.add_argument("--udp", action="append", default=[])
    ap.add_argument("--http", action="append", default=[])
    ap.add_argument("--record")
    a = ap.parse_args()
    loops = []
    for t in a.tcp:
        loops.append(tcp_server(*split(t)))
    for u in a.udp:
        loops.append(udp_echo(*split(u)))
    for d in a.dns:
        spec, answer = d.rsplit("/", 1)
        loops.append(dns_server(*split(spec), answer))
    for h in a.http:
        loops.append(http_server(*split(h), a.record))
    for fn in loops:
        threading.Thread(target=fn, daemon=True).start()
    with open(a.ready, "w") as f:
        f.write("ready\n")
    threading.Event().wait()


if __name__ == "__main__":
    sys.exit(main())
