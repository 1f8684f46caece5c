#!/usr/bin/env python3
"""Helpers for tests/report/*.t (standard library only).

  check_html.py parse FILE     structure check of an HTML page; prints JSON:
                               {"ok", "errors", "svgs", "paths": {chart id: [d, ...]},
                                "external": [...], "scripts": N, "rects": {class: N}}
  check_html.py png FILE       decode a PNG; prints JSON {"width", "height", "colors",
                               "non_background"} (fraction of pixels unlike the corner)
  check_html.py netlog FILE    Chromium NetLog: prints JSON list of URLs the page
                               requested (browser-internal background requests, with
                               no page isolation key, are excluded)
"""
import json
import struct
import sys
import zlib
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}
# SVG elements written self-closing (<rect .../>) need no end tag
SVG_LEAF = {"path", "line", "rect", "circle", "polyline", "polygon"}


class Checker(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.external = [], [], []
        self.svgs, self.scripts = 0, 0
        self.paths, self.rects = {}, {}
        self.chart = None
        self.counts = {}

    def _attrs(self, tag, attrs):
        a = dict(attrs)
        for k, v in attrs:
            v = v or ""
            if k in ("src", "href", "xlink:href", "action", "srcset", "poster", "data") and not v.startswith("#"):
                self.external.append(f"{tag} {k}={v}")
            if "http:" in v or "https:" in v or "url(" in v:
                self.external.append(f"{tag} {k}={v}")
        if tag == "link" or tag == "iframe" or tag == "object" or tag == "embed":
            self.external.append(tag)
        return a

    def handle_starttag(self, tag, attrs, push=True):
        a = self._attrs(tag, attrs)
        key = "svg:" + tag if "svg" in self.stack else tag
        self.counts[key] = self.counts.get(key, 0) + 1
        if tag == "script":
            self.scripts += 1
        if tag == "svg":
            self.svgs += 1
            self.chart = a.get("id", "")
        if tag == "path":
            self.paths.setdefault(self.chart or "", []).append(a.get("d", ""))
        if tag == "rect":
            c = a.get("class", "")
            self.rects[c] = self.rects.get(c, 0) + 1
        if push and tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        # <path .../> and friends: count them, nothing to close
        if tag not in SVG_LEAF and tag not in VOID:
            self.errors.append(f"line {self.getpos()[0]}: <{tag}/> is not a void or SVG leaf element")
        self.handle_starttag(tag, attrs, push=False)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"line {self.getpos()[0]}: </{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
            if tag in self.stack:
                while self.stack and self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()
        if tag == "svg":
            self.chart = None

    def handle_data(self, data):
        if "@import" in data:
            self.external.append("@import")


def parse(path):
    text = open(path, encoding="utf-8").read()
    c = Checker()
    c.feed(text)
    c.close()
    if c.stack:
        c.errors.append("unclosed: " + " ".join(c.stack))
    for t in ("html", "head", "body", "title"):
        if c.counts.get(t, 0) != 1:
            c.errors.append(f"{t}: {c.counts.get(t, 0)} elements, want 1")
    if not text.lstrip().lower().startswith("<!doctype html>"):
        c.errors.append("no <!DOCTYPE html>")
    print(json.dumps({"ok": not c.errors, "errors": c.errors[:20], "svgs": c.svgs, "paths": c.paths,
                      "external": c.external, "scripts": c.scripts, "rects": c.rects}))


def png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        ln, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + ln]
        if typ == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif typ == b"IDAT":
            idat += body
        pos += 12 + ln
    w, h, depth, ctype, _, _, interlace = hdr
    assert depth == 8 and interlace == 0 and ctype in (2, 6), f"unsupported PNG {hdr}"
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    colors, bg, differ = set(), None, 0
    i = 0
    for y in range(h):
        ft = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ft == 1:
                line[x] = (line[x] + a) & 255
            elif ft == 2:
                line[x] = (line[x] + b) & 255
            elif ft == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        if y % 4 == 0:
            for x in range(0, w, 4):
                px = bytes(line[x * bpp:x * bpp + 3])
                if bg is None:
                    bg = px
                colors.add(px)
                differ += px != bg
    samples = ((h + 3) // 4) * ((w + 3) // 4)
    print(json.dumps({"width": w, "height": h, "colors": len(colors), "non_background": differ / samples}))


def netlog(path):
    d = json.load(open(path))
    types = {v: k for k, v in d["constants"]["logEventTypes"].items()}
    urls = {}
    page = set()
    for e in d["events"]:
        p = e.get("params") or {}
        src = e["source"]["id"]
        u = p.get("url") or p.get("original_url")
        if u:
            urls.setdefault(src, u)
        # a request on behalf of a page carries the page's isolation key
        # (file://...); the browser's own background requests carry "null null"
        if types.get(e["type"]) == "URL_REQUEST_START_JOB" and (
                "file:" in str(p.get("network_isolation_key", "")) or
                p.get("initiator") not in (None, "not an origin")):
            page.add(src)
    print(json.dumps(sorted(urls[s] for s in page if s in urls)))


if __name__ == "__main__":
    {"parse": parse, "png": png, "netlog": netlog}[sys.argv[1]](sys.argv[2])
