#!/usr/bin/env python3
"""TAP: libtessel's exports are its ABI and nothing else.

- every function declared TSL_API in core/include/tessel/*.h is listed in
  core/libtessel.map, and every listed name is declared;
- build/core/libtessel.so exports exactly the listed functions, each in
  version TESSEL_1, and no data;
- the in-tree plugins (targets, strategies, cost models) import libtessel's
  functions at TESSEL_1 only.
"""
import glob
import os
import re
import subprocess
import sys

src = os.environ.get("TESSEL_SOURCE_ROOT", ".")
build = os.environ.get("TESSEL_BUILD_ROOT", "build")
n = bad = 0


def case(good, what, detail=None):
    global n, bad
    n += 1
    bad += not good
    print(f"{'' if good else 'not '}ok {n} - {what}")
    if detail and not good:
        for line in detail:
            print(f"# {line}")


def declared():
    names = {}
    for h in sorted(glob.glob(os.path.join(src, "core/include/tessel/*.h"))):
        text = re.sub(r"/\*.*?\*/", "", open(h).read(), flags=re.S)
        for m in re.finditer(r"TSL_API\b[^;{]*?\b(tsl_\w+)\s*\(", text):
            names[m.group(1)] = os.path.basename(h)
    return names


def listed():
    text = re.sub(r"/\*.*?\*/", "", open(os.path.join(src, "core/libtessel.map")).read(),
                  flags=re.S)
    m = re.search(r"TESSEL_1\s*\{\s*global:(.*?)local:\s*\*;\s*\};", text, re.S)
    return set(re.findall(r"(\w+);", m.group(1))) if m else set()


def nm(path, *flags):
    out = subprocess.run(["nm", "-D", *flags, path], capture_output=True, text=True)
    return out.stdout.splitlines() if out.returncode == 0 else None


decl, mapped = declared(), listed()
case(mapped and set(decl) <= mapped,
     f"every TSL_API function of the public headers is in libtessel.map ({len(decl)})",
     [f"not listed: {f} ({decl[f]})" for f in sorted(set(decl) - mapped)])
case(mapped and mapped <= set(decl),
     f"every name libtessel.map lists is declared TSL_API ({len(mapped)})",
     [f"not declared: {f}" for f in sorted(mapped - set(decl))])

lib = os.path.join(build, "core/libtessel.so")
lines = nm(lib, "--defined-only")
syms = [line.split() for line in lines or [] if len(line.split()) == 3]
funcs = {s[2].split("@")[0]: s[2] for s in syms if s[1] == "T"}
case(lines is not None and set(funcs) == mapped,
     f"libtessel.so exports exactly the listed functions ({len(funcs)})",
     [f"exported, not listed: {f}" for f in sorted(set(funcs) - mapped)] +
     [f"listed, not exported: {f}" for f in sorted(mapped - set(funcs))] +
     ([f"nm -D {lib} failed"] if lines is None else []))
case(funcs and all(v.endswith("@@TESSEL_1") for v in funcs.values()),
     "each in version TESSEL_1",
     [v for v in funcs.values() if not v.endswith("@@TESSEL_1")])
others = [s for s in syms if s[1] not in ("T", "A")]
case(lines is not None and not others, "and no data symbols", [" ".join(s) for s in others])

plugins = sorted(glob.glob(os.path.join(build, "targets/*/*.so")) +
                 glob.glob(os.path.join(build, "strategies/*/*.so")) +
                 glob.glob(os.path.join(build, "plugins/*/*.so")))
wrong = []
for p in plugins:
    for line in nm(p, "--undefined-only") or []:
        name = line.split()[-1]
        if name.startswith("tsl_") and not name.endswith("@TESSEL_1"):
            wrong.append(f"{os.path.relpath(p, build)}: {name}")
case(len(plugins) >= 5 and not wrong,
     f"the {len(plugins)} in-tree plugins import libtessel's functions at TESSEL_1", wrong)
print(f"1..{n}")
sys.exit(1 if bad else 0)
