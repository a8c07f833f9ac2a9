#!/usr/bin/env python3
"""TAP: the meson files of core/ declare every real link dependency between
libtessel's folder libraries, and the declared graph has no cycle.

For each folder library (core/*/meson.build, `tsl_X = static_library(...)`)
the symbols it leaves undefined (nm -u on the built archive) are matched
with the symbols the other folder libraries define; each library so needed
must be in the closure of the library's `link_with`, and no library may
reach itself through it.
"""
import glob
import os
import re
import subprocess
import sys

src = os.environ.get("TESSEL_SOURCE_ROOT", ".")
build = os.environ.get("TESSEL_BUILD_ROOT", "build")
n = bad = 0


def case(good, what):
    global n, bad
    n += 1
    bad += not good
    print(f"{'' if good else 'not '}ok {n} - {what}")


def symbols(archive, *args):
    out = subprocess.run(["nm", *args, archive], capture_output=True, text=True).stdout
    return {line.split()[-1] for line in out.splitlines()
            if line.strip() and not line.endswith(":")}


declared = {}
for mf in sorted(glob.glob(os.path.join(src, "core", "*", "meson.build"))):
    text = open(mf).read()
    for m in re.finditer(r"(tsl_\w+) = static_library\(", text):
        body = text[m.end():].split("\n\n")[0]
        lw = re.search(r"link_with\s*:\s*(\[[^\]]*\]|\w+)", body, re.S)
        names = lw.group(1).strip("[]").split(",") if lw else []
        declared[m.group(1)] = {x.strip() for x in names if x.strip()}

defined, undefined = {}, {}
for lib in declared:
    found = glob.glob(os.path.join(build, "core", "**", f"lib{lib}.a"), recursive=True)
    if not found:
        continue
    defined[lib] = symbols(found[0], "--defined-only", "-g", "-j")
    undefined[lib] = symbols(found[0], "-u", "-j")
case(len(defined) == len(declared) and len(declared) >= 10,
     f"{len(defined)} of {len(declared)} folder libraries found built under {build}/core")


def closure(lib):
    seen, todo = set(), list(declared.get(lib, ()))
    while todo:
        x = todo.pop()
        if x not in seen:
            seen.add(x)
            todo.extend(declared.get(x, ()))
    return seen


for lib in sorted(defined):
    needs = {o for o in defined if o != lib and undefined[lib] & defined[o]}
    missing = sorted(needs - closure(lib))
    case(not missing, f"{lib} declares what it calls ({', '.join(sorted(needs)) or 'nothing'})"
         + (f": missing {', '.join(missing)}" if missing else ""))
    case(lib not in closure(lib), f"{lib} does not reach itself through link_with")
print(f"1..{n}")
sys.exit(1 if bad else 0)
