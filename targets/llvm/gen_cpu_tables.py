#!/usr/bin/env python3
"""Writes targets/llvm/cpu_tables.c from LLVM 19's own answers.

  python3 targets/llvm/gen_cpu_tables.py [--llc PATH] [-o FILE]
  python3 targets/llvm/gen_cpu_tables.py --check [--cpus a,b,c] [--llc PATH]

The CPU and feature names are what `llc -march=x86-64 -mcpu=help` lists.
The instruction sets each CPU implies are asked of LLVM's instruction
selector: for every (CPU, feature) pair a one-line function calling an
intrinsic that only that feature can select is compiled with
`llc -mcpu=CPU`; it compiles exactly when the CPU has the feature ("Cannot
select" otherwise). LLVM's C API has no call that lists a CPU's features,
and a table written by hand would drift from the LLVM that compiles the
code, hence this generator (README.md, "Which CPUs can run here").

--check compares the file with what LLVM answers now and exits 1 on a
difference: the names, and the features of the CPUs named by --cpus (all of
them without it, which takes a minute or two; tests/llvm/meson.build checks
the CPUs the project runs on).
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

# feature -> (extra -mattr that removes other ways of selecting it,
#             declaration, body over %p). The features are those whose
# instructions the target's code may contain (vector arithmetic, FMA,
# conversions, dot products, tiles); a CPU without one of them faults on
# such code with SIGILL.
PROBES = [
    ("sse3", "", "<4 x float> @llvm.x86.sse3.hadd.ps(<4 x float>, <4 x float>)",
     "%v = load <4 x float>, ptr %p\n"
     "%r = call <4 x float> @llvm.x86.sse3.hadd.ps(<4 x float> %v, <4 x float> %v)\n"
     "store <4 x float> %r, ptr %p"),
    ("ssse3", "", "<16 x i8> @llvm.x86.ssse3.pshuf.b.128(<16 x i8>, <16 x i8>)",
     "%v = load <16 x i8>, ptr %p\n"
     "%r = call <16 x i8> @llvm.x86.ssse3.pshuf.b.128(<16 x i8> %v, <16 x i8> %v)\n"
     "store <16 x i8> %r, ptr %p"),
    ("sse4.1", "", "i32 @llvm.x86.sse41.ptestz(<2 x i64>, <2 x i64>)",
     "%v = load <2 x i64>, ptr %p\n"
     "%r = call i32 @llvm.x86.sse41.ptestz(<2 x i64> %v, <2 x i64> %v)\n"
     "store i32 %r, ptr %p"),
    ("sse4.2", "", "i32 @llvm.x86.sse42.pcmpistri128(<16 x i8>, <16 x i8>, i8)",
     "%v = load <16 x i8>, ptr %p\n"
     "%r = call i32 @llvm.x86.sse42.pcmpistri128(<16 x i8> %v, <16 x i8> %v, i8 0)\n"
     "store i32 %r, ptr %p"),
    ("avx", "", "i32 @llvm.x86.avx.vtestz.ps.256(<8 x float>, <8 x float>)",
     "%v = load <8 x float>, ptr %p\n"
     "%r = call i32 @llvm.x86.avx.vtestz.ps.256(<8 x float> %v, <8 x float> %v)\n"
     "store i32 %r, ptr %p"),
    ("avx2", "", "<8 x i32> @llvm.x86.avx2.pmadd.wd(<16 x i16>, <16 x i16>)",
     "%v = load <16 x i16>, ptr %p\n"
     "%r = call <8 x i32> @llvm.x86.avx2.pmadd.wd(<16 x i16> %v, <16 x i16> %v)\n"
     "store <8 x i32> %r, ptr %p"),
    ("fma", "-fma4",
     "<4 x float> @llvm.x86.fma.vfmaddsub.ps(<4 x float>, <4 x float>, <4 x float>)",
     "%v = load <4 x float>, ptr %p\n"
     "%r = call <4 x float> @llvm.x86.fma.vfmaddsub.ps(<4 x float> %v, <4 x float> %v, "
     "<4 x float> %v)\n"
     "store <4 x float> %r, ptr %p"),
    ("f16c", "", "<8 x i16> @llvm.x86.vcvtps2ph.128(<4 x float>, i32)",
     "%v = load <4 x float>, ptr %p\n"
     "%r = call <8 x i16> @llvm.x86.vcvtps2ph.128(<4 x float> %v, i32 0)\n"
     "store <8 x i16> %r, ptr %p"),
    ("bmi2", "", "i32 @llvm.x86.bmi.pdep.32(i32, i32)",
     "%v = load i32, ptr %p\n"
     "%r = call i32 @llvm.x86.bmi.pdep.32(i32 %v, i32 %v)\n"
     "store i32 %r, ptr %p"),
    ("avx512f", "", "<16 x float> @llvm.x86.avx512.rcp14.ps.512(<16 x float>, <16 x float>, i16)",
     "%v = load <16 x float>, ptr %p\n"
     "%r = call <16 x float> @llvm.x86.avx512.rcp14.ps.512(<16 x float> %v, <16 x float> %v, "
     "i16 -1)\n"
     "store <16 x float> %r, ptr %p"),
    ("avx512cd", "", "<16 x i32> @llvm.x86.avx512.conflict.d.512(<16 x i32>)",
     "%v = load <16 x i32>, ptr %p\n"
     "%r = call <16 x i32> @llvm.x86.avx512.conflict.d.512(<16 x i32> %v)\n"
     "store <16 x i32> %r, ptr %p"),
    ("avx512bw", "", "<16 x i32> @llvm.x86.avx512.pmaddw.d.512(<32 x i16>, <32 x i16>)",
     "%v = load <32 x i16>, ptr %p\n"
     "%r = call <16 x i32> @llvm.x86.avx512.pmaddw.d.512(<32 x i16> %v, <32 x i16> %v)\n"
     "store <16 x i32> %r, ptr %p"),
    ("avx512dq", "", "<16 x i1> @llvm.x86.avx512.fpclass.ps.512(<16 x float>, i32)",
     "%v = load <16 x float>, ptr %p\n"
     "%r = call <16 x i1> @llvm.x86.avx512.fpclass.ps.512(<16 x float> %v, i32 1)\n"
     "store <16 x i1> %r, ptr %p"),
    ("avx512vl", "", "<8 x float> @llvm.x86.avx512.rcp14.ps.256(<8 x float>, <8 x float>, i8)",
     "%v = load <8 x float>, ptr %p\n"
     "%r = call <8 x float> @llvm.x86.avx512.rcp14.ps.256(<8 x float> %v, <8 x float> %v, "
     "i8 -1)\n"
     "store <8 x float> %r, ptr %p"),
    ("avx512vnni", "",
     "<16 x i32> @llvm.x86.avx512.vpdpbusd.512(<16 x i32>, <16 x i32>, <16 x i32>)",
     "%v = load <16 x i32>, ptr %p\n"
     "%r = call <16 x i32> @llvm.x86.avx512.vpdpbusd.512(<16 x i32> %v, <16 x i32> %v, "
     "<16 x i32> %v)\n"
     "store <16 x i32> %r, ptr %p"),
    ("avxvnni", "-avx512vnni",
     "<8 x i32> @llvm.x86.avx512.vpdpbusd.256(<8 x i32>, <8 x i32>, <8 x i32>)",
     "%v = load <8 x i32>, ptr %p\n"
     "%r = call <8 x i32> @llvm.x86.avx512.vpdpbusd.256(<8 x i32> %v, <8 x i32> %v, "
     "<8 x i32> %v)\n"
     "store <8 x i32> %r, ptr %p"),
    ("avx512bf16", "",
     "<16 x float> @llvm.x86.avx512bf16.dpbf16ps.512(<16 x float>, <32 x bfloat>, "
     "<32 x bfloat>)",
     "%v = load <16 x float>, ptr %p\n"
     "%w = load <32 x bfloat>, ptr %p\n"
     "%r = call <16 x float> @llvm.x86.avx512bf16.dpbf16ps.512(<16 x float> %v, "
     "<32 x bfloat> %w, <32 x bfloat> %w)\n"
     "store <16 x float> %r, ptr %p"),
    ("avx512fp16", "",
     "<32 x half> @llvm.x86.avx512fp16.mask.rcp.ph.512(<32 x half>, <32 x half>, i32)",
     "%v = load <32 x half>, ptr %p\n"
     "%r = call <32 x half> @llvm.x86.avx512fp16.mask.rcp.ph.512(<32 x half> %v, "
     "<32 x half> %v, i32 -1)\n"
     "store <32 x half> %r, ptr %p"),
    ("avx512vbmi", "", "<64 x i8> @llvm.x86.avx512.permvar.qi.512(<64 x i8>, <64 x i8>)",
     "%v = load <64 x i8>, ptr %p\n"
     "%r = call <64 x i8> @llvm.x86.avx512.permvar.qi.512(<64 x i8> %v, <64 x i8> %v)\n"
     "store <64 x i8> %r, ptr %p"),
    ("amx-tile", "", "void @llvm.x86.ldtilecfg(ptr)", "call void @llvm.x86.ldtilecfg(ptr %p)"),
    ("amx-int8", "", "void @llvm.x86.tdpbssd(i8, i8, i8)",
     "call void @llvm.x86.tdpbssd(i8 0, i8 1, i8 2)"),
    ("amx-bf16", "", "void @llvm.x86.tdpbf16ps(i8, i8, i8)",
     "call void @llvm.x86.tdpbf16ps(i8 0, i8 1, i8 2)"),
    ("amx-fp16", "", "void @llvm.x86.tdpfp16ps(i8, i8, i8)",
     "call void @llvm.x86.tdpfp16ps(i8 0, i8 1, i8 2)"),
]

# Features whose probe compiles for every CPU of the list would say nothing;
# the baseline x86-64 (SSE2) is assumed of every host.


def llc_help(llc):
    version = subprocess.run([llc, "--version"], capture_output=True, text=True).stdout
    if "LLVM version 19." not in version:
        sys.exit(f"gen_cpu_tables: {llc} is not LLVM 19's llc (the target links LLVM 19); "
                 "pass --llc /usr/lib/llvm-19/bin/llc")
    out = subprocess.run([llc, "-march=x86-64", "-mcpu=help"], capture_output=True,
                         text=True).stderr + ""
    cpus, feats, part = [], [], None
    for line in out.splitlines():
        if line.startswith("Available CPUs"):
            part = cpus
        elif line.startswith("Available features"):
            part = feats
        elif part is not None:
            m = re.match(r"^  (\S+)\s+- ", line)
            if m:
                part.append(m.group(1))
    if not cpus or not feats:
        sys.exit(f"gen_cpu_tables: '{llc} -march=x86-64 -mcpu=help' listed no CPUs")
    return sorted(set(cpus)), sorted(set(feats))


def has(llc, tmp, cpu, probe):
    name, attr, decl, body = probe
    path = os.path.join(tmp, f"{cpu}-{name}.ll")
    body = "\n  ".join(body.split("\n"))
    with open(path, "w") as f:
        f.write(f"declare {decl}\n\ndefine void @f(ptr %p) {{\n  {body}\n  ret void\n}}\n")
    cmd = [llc, "-O0", "-mtriple=x86_64-unknown-linux-gnu", f"-mcpu={cpu}", path,
           "-o", os.devnull]
    if attr:
        cmd.insert(3, f"-mattr={attr}")
    return subprocess.run(cmd, capture_output=True).returncode == 0


def wrap(items, indent="    ", width=79):
    lines, line = [], indent
    for it in items:
        piece = f'"{it}",'
        if len(line) + len(piece) + 1 > width:
            lines.append(line.rstrip())
            line = indent
        line += piece + " "
    if line.strip():
        lines.append(line.rstrip())
    return "\n".join(lines)


def probe_all(llc, cpus):
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        jobs = {(c, p[0]): pool.submit(has, llc, tmp, c, p) for c in cpus for p in PROBES}
        return {c: sum(1 << i for i, p in enumerate(PROBES) if jobs[(c, p[0])].result())
                for c in cpus}


def generate(llc):
    cpus, feats = llc_help(llc)
    isa = probe_all(llc, cpus)
    if isa.get("x86-64", 1) != 0 or isa.get("sapphirerapids", 0) == 0:
        sys.exit("gen_cpu_tables: the probes gave implausible answers "
                 "(x86-64 must have none, sapphirerapids some)")
    rows = "\n".join(f"    0x{isa[c]:08x}, /* {c} */" for c in cpus)
    return f"""/*
 * targets/llvm/cpu_tables.c — GENERATED by gen_cpu_tables.py from LLVM 19's
 * llc; do not edit (regenerate: python3 targets/llvm/gen_cpu_tables.py).
 *
 * The x86-64 CPU and feature names LLVM 19 accepts (`llc -march=x86-64
 * -mcpu=help`), for validating the mcpu and mattr options before LLVM
 * silently ignores a typo, and the instruction-set features each CPU
 * implies, as LLVM's instruction selector answers for it, for refusing
 * code this host cannot run (cpu.c).
 */
#include "llvm_internal.h"

const char *const tll_cpu_names[] = {{
{wrap(cpus)}
    NULL}};

const char *const tll_feature_names[] = {{
{wrap(feats)}
    NULL}};

/* Bit i of a CPU's word: it has tll_isa_features[i]. */
const char *const tll_isa_features[] = {{
{wrap([p[0] for p in PROBES])}
    NULL}};

/* One word per tll_cpu_names entry, in the same order. */
const uint32_t tll_cpu_isa[] = {{
{rows}
}};
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--llc", default=os.environ.get("LLC", "/usr/lib/llvm-19/bin/llc"))
    ap.add_argument("-o", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                               "cpu_tables.c"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--cpus", help="with --check: only these CPUs' features")
    a = ap.parse_args()
    if a.check:
        return check(a.llc, a.o, a.cpus.split(",") if a.cpus else None)
    text = generate(a.llc)
    with open(a.o, "w") as f:
        f.write(text)
    return 0


def check(llc, path, only):
    """TAP: one case for the names, one per CPU checked."""
    with open(path) as f:
        text = f.read()
    rows = dict((c, int(w, 16)) for w, c in
                re.findall(r"^    0x([0-9a-f]{8}), /\* (\S+) \*/$", text, re.M))
    cpus, feats = llc_help(llc)
    listed = re.findall(r'"([^"]+)"', text[text.index("tll_cpu_names"):
                                            text.index("tll_isa_features")])
    n, bad = 0, 0
    n += 1
    same = sorted(listed) == sorted(cpus + feats) and sorted(rows) == cpus
    bad += not same
    print(f"{'' if same else 'not '}ok {n} - the CPU and feature names are llc's "
          f"({len(cpus)} CPUs, {len(feats)} features)")
    names = [p[0] for p in PROBES]
    for c in only or cpus:
        if c not in rows:
            n += 1
            bad += 1
            print(f"not ok {n} - {c}: not in cpu_tables.c")
            continue
        got = probe_all(llc, [c])[c]
        n += 1
        bad += got != rows[c]
        have = ",".join(f for i, f in enumerate(names) if got >> i & 1) or "(none)"
        print(f"{'' if got == rows[c] else 'not '}ok {n} - {c}: the table's features are "
              f"what LLVM selects for it ({have})")
        if got != rows[c]:
            print(f"# table 0x{rows[c]:08x}, LLVM 0x{got:08x}; regenerate cpu_tables.c")
    print(f"1..{n}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
