#!/usr/bin/env python3
"""Checks one page written by `tessel report` (tests/report).

Parses the whole page as XML (the renderer writes XHTML-compatible markup),
checks that every SVG coordinate is a finite number inside the chart's
viewBox and that each tuning curve is a step line that only rises, then
prints one line per series section:
  pts=N errs=N best_rows=N err_rows=N curve=N best=VALUE|- h2=TEXT
Exits 1 with a message on stderr when the page is malformed."""
import math
import re
import sys
import xml.etree.ElementTree as ET

NUM = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def local(tag):
    return tag.rsplit("}", 1)[-1]


def fail(msg):
    print("check_report: " + msg, file=sys.stderr)
    sys.exit(1)


def number(v, what):
    if not re.fullmatch(NUM, v.strip()):
        fail("%s: not a plain number: %r" % (what, v))
    x = float(v)
    if not math.isfinite(x):
        fail("%s: not finite: %r" % (what, v))
    return x


def check_svg(svg):
    vb = [number(v, "viewBox") for v in svg.get("viewBox", "").split()]
    if len(vb) != 4:
        fail("svg without a 4-number viewBox")
    x0, y0, w, h = vb
    def inside(x, y, what):
        if not (x0 - 1e-6 <= x <= x0 + w + 1e-6 and y0 - 1e-6 <= y <= y0 + h + 1e-6):
            fail("%s: (%g, %g) outside the viewBox" % (what, x, y))
    for el in svg.iter():
        tag = local(el.tag)
        for a in ("x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "width", "height"):
            if a in el.attrib:
                number(el.get(a), "%s@%s" % (tag, a))
        for a, b in (("x1", "y1"), ("x2", "y2"), ("cx", "cy"), ("x", "y")):
            if a in el.attrib and b in el.attrib and tag != "text":
                inside(float(el.get(a)), float(el.get(b)), tag)
        for a in ("points", "d"):
            if a in el.attrib:
                raw = el.get(a)
                if re.search(r"nan|inf", raw, re.I):
                    fail("%s@%s has nan/inf: %r" % (tag, a, raw))
                nums = [number(v, tag) for v in NUM.findall(raw)]
                if len(nums) % 2:
                    fail("%s@%s: odd number count" % (tag, a))
                for i in range(0, len(nums), 2):
                    inside(nums[i], nums[i + 1], tag)


def main():
    try:
        root = ET.parse(sys.argv[1]).getroot()
    except ET.ParseError as e:
        fail("not well-formed: %s" % e)
    for el in root.iter():
        for k, v in el.attrib.items():
            if re.search(r"\b(nan|inf)\b", v, re.I):
                fail("attribute %s=%r" % (k, v))
        if local(el.tag) in ("script", "link", "img", "iframe", "object", "embed"):
            fail("external or script element <%s>" % local(el.tag))
        for k in ("src", "href"):
            if k in el.attrib and not el.get(k).startswith("#"):
                fail("external reference %s=%r" % (k, el.get(k)))
    for svg in root.iter():
        if local(svg.tag) == "svg":
            check_svg(svg)
    for sec in root.iter("section"):
        def cls(tag, c, within=None):
            out = []
            for g in sec.iter():
                if within and not (local(g.tag) == "g" and g.get("class") == within):
                    continue
                for e in (g.iter() if within else [g]):
                    if local(e.tag) == tag and e.get("class") == c:
                        out.append(e)
            return out
        pts = cls("circle", "pt", "scatter")
        errs = cls("path", "err", "errors")
        curves = [e for e in sec.iter() if local(e.tag) == "polyline" and e.get("class") == "best"]
        for c in curves:
            xy = [float(v) for v in NUM.findall(c.get("points"))]
            xs, ys = xy[0::2], xy[1::2]
            if any(b < a for a, b in zip(xs, xs[1:])) or any(b > a for a, b in zip(ys, ys[1:])):
                fail("the tuning curve goes back or down: %s" % c.get("points"))
            # a step line: each segment horizontal or vertical
            if any(xs[i] != xs[i + 1] and ys[i] != ys[i + 1] for i in range(len(xs) - 1)):
                fail("the tuning curve is not a step line: %s" % c.get("points"))
        rows = {}
        for t in sec.iter("table"):
            body = t.find("tbody")
            rows[t.get("class")] = len(body.findall("tr")) if body is not None else 0
        best = [e.text for e in sec.iter("span") if e.get("class") == "best-value"]
        h2 = sec.find("h2")
        print("pts=%d errs=%d best_rows=%d err_rows=%d curve=%d best=%s h2=%s" % (
            len(pts), len(errs), rows.get("best", 0), rows.get("errors", 0), len(curves),
            best[0] if best else "-", "".join(h2.itertext()).strip().replace("\n", " ")))


main()
