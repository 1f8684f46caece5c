#!/usr/bin/env python3
"""A tiny DNS server for the net.dns.* tests, over UDP and TCP.

  dnsd.py --ready FILE --listen ADDR/PORT [--zone NAME=IP]... [--other nx|IP]
          [--tcp answer|none|garbage] [--udp answer|tc] [--big NAME=N]
          [--log FILE]

A name in --zone gets its address (A or AAAA by the address's family;
the other type gets an empty NOERROR). Any other name gets NXDOMAIN
(--other nx, the default) or a lie: every A query answered with IP.
--tcp none serves UDP only; --tcp garbage answers TCP with bytes that are
not DNS. --big NAME=N answers NAME's A query with N addresses
(10.205.X.Y); over UDP a reply over 512 bytes is truncated as RFC 1035
says: TC set, no answer records. --udp tc sends every UDP reply truncated
(TC, no records), as a server does that wants every query over TCP.
Each query is logged as "PROTO NAME QTYPE RCODE ANSWER" (ANSWER: the
first address, or "-"; a truncated UDP reply logs "tc").
"""
import argparse
import ipaddress
import socket
import struct
import threading


def parse_q(m):
    if len(m) < 12:
        return None
    qid, flags, qd = struct.unpack("!HHH", m[:6])
    off, labels = 12, []
    while off < len(m) and m[off]:
        n = m[off]
        labels.append(m[off + 1:off + 1 + n].decode("ascii", "replace"))
        off += 1 + n
    if off + 5 > len(m):
        return None
    qtype = struct.unpack("!H", m[off + 1:off + 3])[0]
    return qid, flags, ".".join(labels).lower(), qtype, m[12:off + 5]


def answer(a, m, proto):
    q = parse_q(m)
    if not q:
        return None
    qid, flags, name, qtype, question = q
    addrs = []
    if name in a.big:
        addrs = ["10.205.%d.%d" % (i // 250, i % 250 + 1) for i in range(a.big[name])]
    else:
        addr = a.zone.get(name)
        if addr is None and a.other != "nx":
            addr = a.other
        if addr is not None:
            addrs = [addr]
    rcode = 0 if addrs else 3
    rrs = []
    for addr in addrs:
        ip = ipaddress.ip_address(addr)
        t = 1 if ip.version == 4 else 28
        if t == qtype:
            rrs.append(b"\xc0\x0c" + struct.pack("!HHIH", t, 1, 60, len(ip.packed)) + ip.packed)
    tc = proto == "udp" and (a.udp == "tc" or 12 + len(question) + sum(map(len, rrs)) > 512)
    if tc:
        rrs = []
    with open(a.log, "a") as f:
        f.write("%s %s %d %d %s\n" % (proto, name, qtype, rcode, "tc" if tc else addrs[0] if rrs else "-"))
    hdr = struct.pack("!HHHHHH", qid, 0x8180 | (0x0200 if tc else 0) | (flags & 0x0100) | rcode, 1, len(rrs), 0, 0)
    return hdr + question + b"".join(rrs)


def udp_loop(a, s):
    while True:
        m, peer = s.recvfrom(4096)
        r = answer(a, m, "udp")
        if r:
            s.sendto(r, peer)


def tcp_conn(a, c):
    with c:
        try:
            while True:
                ln = c.recv(2)
                if len(ln) < 2:
                    return
                n = struct.unpack("!H", ln)[0]
                m = b""
                while len(m) < n:
                    b = c.recv(n - len(m))
                    if not b:
                        return
                    m += b
                if a.tcp == "garbage":
                    c.sendall(b"\x00\x10" + b"not a dns reply!")
                    continue
                r = answer(a, m, "tcp")
                if r:
                    c.sendall(struct.pack("!H", len(r)) + r)
        except OSError:
            return


def tcp_loop(a, s):
    while True:
        c, _ = s.accept()
        threading.Thread(target=tcp_conn, args=(a, c), daemon=True).start()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ready", required=True)
    ap.add_argument("--listen", required=True)
    ap.add_argument("--zone", action="append", default=[])
    ap.add_argument("--other", default="nx")
    ap.add_argument("--tcp", default="answer", choices=["answer", "none", "garbage"])
    ap.add_argument("--udp", default="answer", choices=["answer", "tc"])
    ap.add_argument("--big", action="append", default=[])
    ap.add_argument("--log", default="/dev/null")
    a = ap.parse_args()
    a.zone = {k.lower(): v for k, v in (z.split("=", 1) for z in a.zone)}
    a.big = {k.lower(): int(v) for k, v in (z.split("=", 1) for z in a.big)}
    host, port = a.listen.rsplit("/", 1)
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    u = socket.socket(fam, socket.SOCK_DGRAM)
    u.bind((host, int(port)))
    threading.Thread(target=udp_loop, args=(a, u), daemon=True).start()
    if a.tcp != "none":
        t = socket.socket(fam, socket.SOCK_STREAM)
        t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        t.bind((host, int(port)))
        t.listen(16)
        threading.Thread(target=tcp_loop, args=(a, t), daemon=True).start()
    open(a.ready, "w").close()
    threading.Event().wait()


if __name__ == "__main__":
    main()
