#!/usr/bin/env python3
"""Helpers for tests/report/*.t (standard library only).

  check_html.py parse FILE     structure check of an HTML page; prints JSON:
                               {"ok", "errors", "svgs", "paths": {chart id: [d, ...]},
                                "external": [...], "scripts": N, "rects": {class: N}}
                               SVG documents embedded as <img src="data:image/svg+xml;base64,...">
                               are decoded and checked as part of the page (their
                               paths under the img's id)
  check_html.py svgs FILE      the embedded SVG documents, decoded, one after another
  check_html.py svg FILE ID DEST   write the embedded SVG of chart ID to DEST
  check_html.py geometry SVG   a chart's geometry from its elements, JSON: x ticks
                               [[value, px]], fault bands [[x0, x1]], texts by class,
                               circles by class, axis titles
  check_html.py overlap-page SVG DEST  an HTML page with the SVG inline and a script
                               that, once Chromium has laid it out, writes into
                               <pre id="result"> how many pairs of text boxes intersect
  check_html.py pngcolor FILE RRGGBB TOL [X0 Y0 X1 Y1]  pixels within TOL of the
                               colour (JSON: count, fraction) in the box
  check_html.py png FILE       decode a PNG; prints JSON {"width", "height", "colors",
                               "non_background"} (fraction of pixels unlike the corner)
  check_html.py netlog FILE    Chromium NetLog: prints JSON list of URLs the page
                               requested (browser-internal background requests, with
                               no page isolation key, are excluded)
"""
import base64
import json
import struct
import sys
import zlib
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}
# SVG elements written self-closing (<rect .../>) need no end tag
SVG_LEAF = {"path", "line", "rect", "circle", "polyline", "polygon"}
SVG_URI = "data:image/svg+xml;base64,"


class Checker(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.external = [], [], []
        self.svgs, self.scripts = 0, 0
        self.paths, self.rects = {}, {}
        self.chart = None
        self.counts = {}
        self.svg_texts = []

    def _attrs(self, tag, attrs):
        a = dict(attrs)
        for k, v in attrs:
            v = v or ""
            inline_svg = tag == "img" and k == "src" and v.startswith(SVG_URI)
            if k in ("src", "href", "xlink:href", "action", "srcset", "poster", "data") and not v.startswith("#") \
                    and not inline_svg:
                self.external.append(f"{tag} {k}={v[:80]}")
            if k != "xmlns" and ("http:" in v or "https:" in v or "url(" in v):
                self.external.append(f"{tag} {k}={v[:80]}")
        if tag == "link" or tag == "iframe" or tag == "object" or tag == "embed":
            self.external.append(tag)
        return a

    def handle_starttag(self, tag, attrs, push=True):
        a = self._attrs(tag, attrs)
        key = "svg:" + tag if "svg" in self.stack else tag
        self.counts[key] = self.counts.get(key, 0) + 1
        if tag == "script":
            self.scripts += 1
        if tag == "img" and a.get("src", "").startswith(SVG_URI):
            self.embedded(a.get("id", ""), a["src"][len(SVG_URI):])
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

    def embedded(self, cid, b64):
        try:
            svg = base64.b64decode(b64, validate=True).decode("utf-8")
        except ValueError as e:
            self.errors.append(f"img {cid}: embedded SVG does not decode: {e}")
            return
        self.svg_texts.append(svg)
        sub = Checker()
        sub.stack = ["svg-doc"]
        sub.feed(svg)
        sub.close()
        if sub.stack != ["svg-doc"]:
            self.errors.append(f"img {cid}: unclosed in the SVG: {' '.join(sub.stack[1:])}")
        self.errors += [f"img {cid}: {e}" for e in sub.errors]
        self.external += sub.external
        self.scripts += sub.scripts
        self.svgs += sub.svgs
        for k, v in sub.paths.items():
            self.paths.setdefault(cid if k in ("", cid) else k, []).extend(v)
        for k, v in sub.rects.items():
            self.rects[k] = self.rects.get(k, 0) + v
        for k, v in sub.counts.items():
            if k.startswith("svg:") or k == "svg":
                self.counts[k] = self.counts.get(k, 0) + v

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


def svgs(path):
    c = Checker()
    c.feed(open(path, encoding="utf-8").read())
    c.close()
    sys.stdout.write("\n".join(c.svg_texts))


def svg_of(path, cid, dest):
    c = Checker()
    text = open(path, encoding="utf-8").read()
    c.feed(text)
    c.close()
    for t in c.svg_texts:
        if f'id="{cid}"' in t.split(">", 1)[0]:
            open(dest, "w", encoding="utf-8").write(t)
            return
    sys.exit(f"no embedded chart {cid}")


def geometry(path):
    import xml.etree.ElementTree as ET
    ns = "{http://www.w3.org/2000/svg}"
    root = ET.parse(path).getroot()
    out = {"ticks": [], "bands": [], "texts": {}, "circles": {}, "titles": []}
    xt = [e for e in root.iter(ns + "text") if e.get("class") == "xt"]
    for e in xt:
        out["ticks"].append([float(e.text), float(e.get("x"))])
    for e in root.iter(ns + "rect"):
        cls = e.get("class", "").split()
        if "fault" in cls and "key" not in cls:
            x = float(e.get("x"))
            out["bands"].append([x, x + float(e.get("width"))])
    for e in root.iter(ns + "text"):
        out["texts"].setdefault(e.get("class", ""), []).append("".join(e.itertext()))
    for e in root.iter(ns + "circle"):
        k = e.get("class", "")
        out["circles"][k] = out["circles"].get(k, 0) + 1
    out["titles"] = out["texts"].get("at", [])
    print(json.dumps(out))


OVERLAP_JS = """
const r = [...document.querySelectorAll('svg text')].map(e => [e.textContent, e.getBoundingClientRect()]);
let bad = [];
for (let i = 0; i < r.length; i++)
  for (let j = i + 1; j < r.length; j++) {
    const a = r[i][1], b = r[j][1];
    if (a.width && b.width && a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
        a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
      bad.push(r[i][0] + ' / ' + r[j][0]);
  }
const o = document.createElement('pre');
o.id = 'result';
o.textContent = 'texts=' + r.length + ' overlaps=' + bad.length + ' ' + bad.slice(0, 5).join(' | ');
document.body.appendChild(o);
"""


def overlap_page(path, dest):
    svg = open(path, encoding="utf-8").read()
    open(dest, "w", encoding="utf-8").write(
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>overlap</title></head><body style="margin:0">\n'
        + svg + "\n<script>" + OVERLAP_JS + "</script></body></html>\n")


def decode_png(path):
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
    rows = []
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
        rows.append(bytes(line))
    return w, h, bpp, rows


def pngcolor(path, rgb, tol, *box):
    w, h, bpp, rows = decode_png(path)
    want = bytes.fromhex(rgb)
    tol = int(tol)
    x0, y0, x1, y1 = (int(v) for v in box) if box else (0, 0, w, h)
    n = hit = 0
    for y in range(max(0, y0), min(h, y1)):
        line = rows[y]
        for x in range(max(0, x0), min(w, x1)):
            px = line[x * bpp:x * bpp + 3]
            n += 1
            if all(abs(px[k] - want[k]) <= tol for k in range(3)):
                hit += 1
    print(json.dumps({"count": hit, "fraction": hit / n if n else 0}))


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
    {"parse": parse, "svgs": svgs, "svg": svg_of, "geometry": geometry, "overlap-page": overlap_page,
     "pngcolor": pngcolor, "png": png, "netlog": netlog}[sys.argv[1]](*sys.argv[2:])
