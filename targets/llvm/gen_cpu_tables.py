#!/usr/bin/env python3
"""Writes targets/llvm/cpu_tables.c from LLVM 19's own answers.

  python3 targets/llvm/gen_cpu_tables.py [--llc PATH] [-o FILE]
  python3 targets/llvm/gen_cpu_tables.py --check [--cpus a,b] [--features c,d] [--llc PATH]

The CPU and feature names are what `llc -march=x86-64 -mcpu=help` lists.
Which instruction sets a CPU has, and which a `-mattr=+F` turns on, are
asked of LLVM's code generator: for every (CPU or feature, instruction set)
pair a one-line function is compiled with `llc -mcpu=CPU` (or `-mcpu=x86-64
-mattr=+F`), the probes of one CPU together in one module (answers()). The
function calls an intrinsic that only that instruction set can select (it
compiles exactly when the set is there: "Cannot select" otherwise), or a
generic operation whose instruction LLVM picks only with it (the mnemonic
is in the assembly). LLVM's C API has no call that lists
a CPU's features, and a table written by hand would drift from the LLVM
that compiles the code, hence this generator (README.md, "Which CPUs can
run here"). Regenerating takes a few minutes.

--check compares the file with what LLVM answers now and exits 1 on a
difference, as TAP: the names, the instruction sets, and the rows of the
CPUs and features named (all of them without --cpus / --features, which
takes minutes; tests/llvm/meson.build checks the project's CPUs).
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

# (instruction set = an LLVM feature name, extra -mattr that removes other
# ways of selecting it, declaration, body over %p, None or the mnemonic
# whose presence in the -O2 assembly is the answer). The sets are those
# whose instructions a kernel's code may contain (vector arithmetic, FMA,
# conversions, bit manipulation, dot products, tiles); a CPU without one of
# them faults on such code with SIGILL. The baseline x86-64 (SSE2) is
# assumed of every host.
PROBES = [
    ('sse3', '', '<4 x float> @llvm.x86.sse3.hadd.ps(<4 x float>, <4 x float>)',
     ['%v = load <4 x float>, ptr %p',
      '%r = call <4 x float> @llvm.x86.sse3.hadd.ps(<4 x float> %v, <4 x float> %v)',
      'store <4 x float> %r, ptr %p'],
     None),
    ('ssse3', '', '<16 x i8> @llvm.x86.ssse3.pshuf.b.128(<16 x i8>, <16 x i8>)',
     ['%v = load <16 x i8>, ptr %p',
      '%r = call <16 x i8> @llvm.x86.ssse3.pshuf.b.128(<16 x i8> %v, <16 x i8> %v)',
      'store <16 x i8> %r, ptr %p'],
     None),
    ('sse4.1', '', 'i32 @llvm.x86.sse41.ptestz(<2 x i64>, <2 x i64>)',
     ['%v = load <2 x i64>, ptr %p',
      '%r = call i32 @llvm.x86.sse41.ptestz(<2 x i64> %v, <2 x i64> %v)',
      'store i32 %r, ptr %p'],
     None),
    ('sse4.2', '', 'i32 @llvm.x86.sse42.pcmpistri128(<16 x i8>, <16 x i8>, i8)',
     ['%v = load <16 x i8>, ptr %p',
      '%r = call i32 @llvm.x86.sse42.pcmpistri128(<16 x i8> %v, <16 x i8> %v, i8 0)',
      'store i32 %r, ptr %p'],
     None),
    ('avx', '', 'i32 @llvm.x86.avx.vtestz.ps.256(<8 x float>, <8 x float>)',
     ['%v = load <8 x float>, ptr %p',
      '%r = call i32 @llvm.x86.avx.vtestz.ps.256(<8 x float> %v, <8 x float> %v)',
      'store i32 %r, ptr %p'],
     None),
    ('avx2', '', '<8 x i32> @llvm.x86.avx2.pmadd.wd(<16 x i16>, <16 x i16>)',
     ['%v = load <16 x i16>, ptr %p',
      '%r = call <8 x i32> @llvm.x86.avx2.pmadd.wd(<16 x i16> %v, <16 x i16> %v)',
      'store <8 x i32> %r, ptr %p'],
     None),
    ('fma', '-fma4', '<4 x float> @llvm.x86.fma.vfmaddsub.ps(<4 x float>, <4 x float>, <4 x float>)',
     ['%v = load <4 x float>, ptr %p',
      '%r = call <4 x float> @llvm.x86.fma.vfmaddsub.ps(<4 x float> %v, <4 x float> %v, <4 x float> %v)',
      'store <4 x float> %r, ptr %p'],
     None),
    ('f16c', '', '<8 x i16> @llvm.x86.vcvtps2ph.128(<4 x float>, i32)',
     ['%v = load <4 x float>, ptr %p',
      '%r = call <8 x i16> @llvm.x86.vcvtps2ph.128(<4 x float> %v, i32 0)',
      'store <8 x i16> %r, ptr %p'],
     None),
    ('bmi2', '', 'i32 @llvm.x86.bmi.pdep.32(i32, i32)',
     ['%v = load i32, ptr %p',
      '%r = call i32 @llvm.x86.bmi.pdep.32(i32 %v, i32 %v)',
      'store i32 %r, ptr %p'],
     None),
    ('avx512f', '', '<16 x float> @llvm.x86.avx512.rcp14.ps.512(<16 x float>, <16 x float>, i16)',
     ['%v = load <16 x float>, ptr %p',
      '%r = call <16 x float> @llvm.x86.avx512.rcp14.ps.512(<16 x float> %v, <16 x float> %v, i16 -1)',
      'store <16 x float> %r, ptr %p'],
     None),
    ('avx512cd', '', '<16 x i32> @llvm.x86.avx512.conflict.d.512(<16 x i32>)',
     ['%v = load <16 x i32>, ptr %p',
      '%r = call <16 x i32> @llvm.x86.avx512.conflict.d.512(<16 x i32> %v)',
      'store <16 x i32> %r, ptr %p'],
     None),
    ('avx512bw', '', '<16 x i32> @llvm.x86.avx512.pmaddw.d.512(<32 x i16>, <32 x i16>)',
     ['%v = load <32 x i16>, ptr %p',
      '%r = call <16 x i32> @llvm.x86.avx512.pmaddw.d.512(<32 x i16> %v, <32 x i16> %v)',
      'store <16 x i32> %r, ptr %p'],
     None),
    ('avx512dq', '', '<16 x i1> @llvm.x86.avx512.fpclass.ps.512(<16 x float>, i32)',
     ['%v = load <16 x float>, ptr %p',
      '%r = call <16 x i1> @llvm.x86.avx512.fpclass.ps.512(<16 x float> %v, i32 1)',
      'store <16 x i1> %r, ptr %p'],
     None),
    ('avx512vl', '', '<8 x float> @llvm.x86.avx512.rcp14.ps.256(<8 x float>, <8 x float>, i8)',
     ['%v = load <8 x float>, ptr %p',
      '%r = call <8 x float> @llvm.x86.avx512.rcp14.ps.256(<8 x float> %v, <8 x float> %v, i8 -1)',
      'store <8 x float> %r, ptr %p'],
     None),
    ('avx512vnni', '', '<16 x i32> @llvm.x86.avx512.vpdpbusd.512(<16 x i32>, <16 x i32>, <16 x i32>)',
     ['%v = load <16 x i32>, ptr %p',
      '%r = call <16 x i32> @llvm.x86.avx512.vpdpbusd.512(<16 x i32> %v, <16 x i32> %v, <16 x i32> %v)',
      'store <16 x i32> %r, ptr %p'],
     None),
    ('avxvnni', '-avx512vnni', '<8 x i32> @llvm.x86.avx512.vpdpbusd.256(<8 x i32>, <8 x i32>, <8 x i32>)',
     ['%v = load <8 x i32>, ptr %p',
      '%r = call <8 x i32> @llvm.x86.avx512.vpdpbusd.256(<8 x i32> %v, <8 x i32> %v, <8 x i32> %v)',
      'store <8 x i32> %r, ptr %p'],
     None),
    ('avx512bf16', '', '<16 x float> @llvm.x86.avx512bf16.dpbf16ps.512(<16 x float>, <32 x bfloat>, <32 x bfloat>)',
     ['%v = load <16 x float>, ptr %p',
      '%w = load <32 x bfloat>, ptr %p',
      '%r = call <16 x float> @llvm.x86.avx512bf16.dpbf16ps.512(<16 x float> %v, <32 x bfloat> %w, <32 x bfloat> %w)',
      'store <16 x float> %r, ptr %p'],
     None),
    ('avx512fp16', '', '<32 x half> @llvm.x86.avx512fp16.mask.rcp.ph.512(<32 x half>, <32 x half>, i32)',
     ['%v = load <32 x half>, ptr %p',
      '%r = call <32 x half> @llvm.x86.avx512fp16.mask.rcp.ph.512(<32 x half> %v, <32 x half> %v, i32 -1)',
      'store <32 x half> %r, ptr %p'],
     None),
    ('avx512vbmi', '', '<64 x i8> @llvm.x86.avx512.permvar.qi.512(<64 x i8>, <64 x i8>)',
     ['%v = load <64 x i8>, ptr %p',
      '%r = call <64 x i8> @llvm.x86.avx512.permvar.qi.512(<64 x i8> %v, <64 x i8> %v)',
      'store <64 x i8> %r, ptr %p'],
     None),
    ('amx-tile', '', 'void @llvm.x86.ldtilecfg(ptr)',
     ['call void @llvm.x86.ldtilecfg(ptr %p)'],
     None),
    ('amx-int8', '', 'void @llvm.x86.tdpbssd(i8, i8, i8)',
     ['call void @llvm.x86.tdpbssd(i8 0, i8 1, i8 2)'],
     None),
    ('amx-bf16', '', 'void @llvm.x86.tdpbf16ps(i8, i8, i8)',
     ['call void @llvm.x86.tdpbf16ps(i8 0, i8 1, i8 2)'],
     None),
    ('amx-fp16', '', 'void @llvm.x86.tdpfp16ps(i8, i8, i8)',
     ['call void @llvm.x86.tdpfp16ps(i8 0, i8 1, i8 2)'],
     None),
    ('popcnt', '', 'i32 @llvm.ctpop.i32(i32)',
     ['%v = load i32, ptr %p',
      '%r = call i32 @llvm.ctpop.i32(i32 %v)',
      'store i32 %r, ptr %p'],
     'popcnt'),
    ('lzcnt', '', 'i32 @llvm.ctlz.i32(i32, i1)',
     ['%v = load i32, ptr %p',
      '%r = call i32 @llvm.ctlz.i32(i32 %v, i1 false)',
      'store i32 %r, ptr %p'],
     'lzcnt'),
    ('movbe', '', 'i32 @llvm.bswap.i32(i32)',
     ['%v = load i32, ptr %p',
      '%r = call i32 @llvm.bswap.i32(i32 %v)',
      'store i32 %r, ptr %p'],
     'movbe'),
    ('bmi', '', 'i32 @llvm.x86.bmi.bextr.32(i32, i32)',
     ['%v = load i32, ptr %p',
      '%r = call i32 @llvm.x86.bmi.bextr.32(i32 %v, i32 %v)',
      'store i32 %r, ptr %p'],
     None),
    ('gfni', '', '<16 x i8> @llvm.x86.vgf2p8affineqb.128(<16 x i8>, <16 x i8>, i8)',
     ['%v = load <16 x i8>, ptr %p',
      '%r = call <16 x i8> @llvm.x86.vgf2p8affineqb.128(<16 x i8> %v, <16 x i8> %v, i8 0)',
      'store <16 x i8> %r, ptr %p'],
     None),
    ('avx512ifma', '', '<8 x i64> @llvm.x86.avx512.vpmadd52l.uq.512(<8 x i64>, <8 x i64>, <8 x i64>)',
     ['%v = load <8 x i64>, ptr %p',
      '%r = call <8 x i64> @llvm.x86.avx512.vpmadd52l.uq.512(<8 x i64> %v, <8 x i64> %v, <8 x i64> %v)',
      'store <8 x i64> %r, ptr %p'],
     None),
    ('avx512vbmi2', '', '<32 x i16> @llvm.fshl.v32i16(<32 x i16>, <32 x i16>, <32 x i16>)',
     ['%v = load <32 x i16>, ptr %p',
      '%r = call <32 x i16> @llvm.fshl.v32i16(<32 x i16> %v, <32 x i16> %v, <32 x i16> %v)',
      'store <32 x i16> %r, ptr %p'],
     'vpshldvw'),
    ('avx512bitalg', '', '<64 x i1> @llvm.x86.avx512.vpshufbitqmb.512(<64 x i8>, <64 x i8>)',
     ['%v = load <64 x i8>, ptr %p',
      '%r = call <64 x i1> @llvm.x86.avx512.vpshufbitqmb.512(<64 x i8> %v, <64 x i8> %v)',
      'store <64 x i1> %r, ptr %p'],
     None),
    ('avx512vpopcntdq', '', '<16 x i32> @llvm.ctpop.v16i32(<16 x i32>)',
     ['%v = load <16 x i32>, ptr %p',
      '%r = call <16 x i32> @llvm.ctpop.v16i32(<16 x i32> %v)',
      'store <16 x i32> %r, ptr %p'],
     'vpopcntd'),
]


def llc_help(llc):
    """The CPU and feature names llc lists (sorted), after checking it is 19's."""
    version = subprocess.run([llc, "--version"], capture_output=True, text=True).stdout
    if "LLVM version 19." not in version:
        sys.exit(f"gen_cpu_tables: {llc} is not LLVM 19's llc (the target links LLVM 19); "
                 "pass --llc /usr/lib/llvm-19/bin/llc")
    out = subprocess.run([llc, "-march=x86-64", "-mcpu=help"], capture_output=True,
                         text=True).stderr
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


def llc_run(llc, tmp, cpu, attr, extra, asm, text):
    """llc's result on the module `text` for `cpu` with `attr` (and `extra`)."""
    fd, path = tempfile.mkstemp(suffix=".ll", dir=tmp)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    mattr = ",".join(a for a in (attr, extra) if a)
    cmd = [llc, "-O2" if asm else "-O0", "-mtriple=x86_64-unknown-linux-gnu", f"-mcpu={cpu}",
           path, "-o", "-"]
    if mattr:
        cmd.insert(3, f"-mattr={mattr}")
    # a failing llc prints its stack: unsymbolized, 3 times faster
    env = dict(os.environ, LLVM_DISABLE_SYMBOLIZATION="1")
    return subprocess.run(cmd, capture_output=True, text=True, env=env)


def module(probes):
    """One function @fI per probe (index I, probe): a module of them all."""
    decls = sorted({p[2] for _, p in probes})
    return "".join(f"declare {d}\n" for d in decls) + "".join(
        f"\ndefine void @f{i}(ptr %p) {{\n  " + "\n  ".join(p[3]) + "\n  ret void\n}\n"
        for i, p in probes)


def has_mnemonic(out, i, asm):
    """Whether function @fI's body in llc's assembly `out` has `asm`."""
    m = re.search(rf"^f{i}:.*?^\.Lfunc_end", out, re.M | re.S)
    # an instruction line starts with a tab and the mnemonic
    return m is not None and re.search(r"^\t" + asm, m.group(0), re.M) is not None


def present(probes, r, asm):
    """The probes of a module llc compiled (result r) whose set is there."""
    return [i for i, p in probes if not asm or has_mnemonic(r.stdout, i, p[4])]


def answers(llc, tmp, cpu, attr):
    """The probes' indices whose instruction set code for `cpu` with `attr` has.

    One llc run answers a group of probes (same extra -mattr, same kind):
    the mnemonic probes by each function's assembly; the selection probes
    by compiling all of them, and when one fails (llc's crash report names
    the function being selected), again without it. So a CPU costs a run
    per group and one per set it lacks, not one per probe."""
    groups = {}
    for i, p in enumerate(PROBES):
        groups.setdefault((p[1], p[4] is not None), []).append((i, p))
    have = set()
    for (extra, asm), probes in groups.items():
        while probes:
            r = llc_run(llc, tmp, cpu, attr, extra, asm, module(probes))
            if r.returncode == 0:
                have.update(present(probes, r, asm))
                break
            m = re.search(r"on function '@f(\d+)'", r.stderr)
            failed = int(m.group(1)) if m else None
            if asm or failed not in [i for i, _ in probes]:  # none named: each alone
                for one in probes:
                    r = llc_run(llc, tmp, cpu, attr, extra, asm, module([one]))
                    have.update(present([one], r, asm) if r.returncode == 0 else [])
                break
            probes = [(i, p) for i, p in probes if i != failed]
    return have


def rows(llc, keys):
    """{key: bit set} for keys (cpu, attr): what code for them may use."""
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        jobs = {k: pool.submit(answers, llc, tmp, k[0], k[1]) for k in keys}
        return {k: sum(1 << i for i in jobs[k].result()) for k in keys}


def cpu_rows(llc, cpus):
    return {c: v for (c, _), v in rows(llc, [(c, "") for c in cpus]).items()}


def feature_rows(llc, feats):
    return {f[1:]: v for (_, f), v in rows(llc, [("x86-64", "+" + f) for f in feats]).items()}


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


def generate(llc):
    cpus, feats = llc_help(llc)
    cpu_isa = cpu_rows(llc, cpus)
    feat_isa = feature_rows(llc, feats)
    names = [p[0] for p in PROBES]
    for i, n in enumerate(names):
        if not feat_isa.get(n, 0) >> i & 1:
            sys.exit(f"gen_cpu_tables: the probe of {n} does not compile even with -mattr=+{n} "
                     "(an intrinsic renamed?); fix PROBES")
    if cpu_isa.get("x86-64", 1) != 0:
        sys.exit("gen_cpu_tables: the probes say x86-64 has more than SSE2; fix PROBES")
    cpu_rows_c = "\n".join(f"    0x{cpu_isa[c]:016x}, /* {c} */" for c in cpus)
    feat_rows_c = "\n".join(f"    0x{feat_isa[f]:016x}, /* {f} */" for f in feats)
    return f"""/*
 * targets/llvm/cpu_tables.c — GENERATED by gen_cpu_tables.py from LLVM 19's
 * llc; do not edit (regenerate: python3 targets/llvm/gen_cpu_tables.py).
 *
 * The x86-64 CPU and feature names LLVM 19 accepts (`llc -march=x86-64
 * -mcpu=help`), for validating the mcpu and mattr options before LLVM
 * silently ignores a typo; the instruction sets each CPU has and each
 * feature turns on, as LLVM's code generator answers, for refusing code
 * this host cannot run (cpu_isa.c).
 */
#include "llvm_internal.h"

const char *const tll_cpu_names[] = {{
{wrap(cpus)}
    NULL}};

const char *const tll_feature_names[] = {{
{wrap(feats)}
    NULL}};

/* Bit i of a set: tll_isa_features[i]. */
const char *const tll_isa_features[] = {{
{wrap(names)}
    NULL}};

/* The set of each tll_cpu_names entry, in the same order. */
const uint64_t tll_cpu_isa[] = {{
{cpu_rows_c}
}};

/* The set -mattr=+name turns on (with what it implies) for each
 * tll_feature_names entry, in the same order. */
const uint64_t tll_feature_isa[] = {{
{feat_rows_c}
}};
"""


def table(text, name):
    """The rows of one generated table: {name: bits}."""
    part = text[text.index(name):]
    part = part[:part.index("};")]
    return {k: int(v, 16) for v, k in re.findall(r"^    0x([0-9a-f]{16}), /\* (\S+) \*/$",
                                                  part, re.M)}


def strings(text, name):
    part = text[text.index(name):]
    return re.findall(r'"([^"]+)"', part[:part.index("NULL")])


def check(llc, path, only_cpus, only_feats):
    """TAP: the names, the instruction sets, one case per row checked."""
    with open(path) as f:
        text = f.read()
    cpus, feats = llc_help(llc)
    names = [p[0] for p in PROBES]
    n = bad = 0

    def case(good, what, diag=None):
        nonlocal n, bad
        n += 1
        bad += not good
        print(f"{'' if good else 'not '}ok {n} - {what}")
        if diag and not good:
            print(f"# {diag}")

    case(strings(text, "tll_cpu_names[]") == cpus and strings(text, "tll_feature_names[]") ==
         feats, f"the CPU and feature names are llc's ({len(cpus)} CPUs, {len(feats)} features)")
    case(strings(text, "tll_isa_features[]") == names and len(names) <= 64,
         f"the instruction sets are the generator's {len(names)} probes")
    cpu_tab, feat_tab = table(text, "tll_cpu_isa[]"), table(text, "tll_feature_isa[]")
    got = cpu_rows(llc, only_cpus or cpus)
    for c, v in got.items():
        have = ",".join(x for i, x in enumerate(names) if v >> i & 1) or "(none)"
        case(cpu_tab.get(c) == v, f"{c}: the table's instruction sets are LLVM's ({have})",
             f"table 0x{cpu_tab.get(c, 0):016x}, LLVM 0x{v:016x}; regenerate cpu_tables.c")
    got = feature_rows(llc, only_feats or feats)
    for f, v in got.items():
        have = ",".join(x for i, x in enumerate(names) if v >> i & 1) or "(none)"
        case(feat_tab.get(f) == v, f"+{f}: the table's implied instruction sets are LLVM's "
             f"({have})", f"table 0x{feat_tab.get(f, 0):016x}, LLVM 0x{v:016x}; regenerate")
    print(f"1..{n}")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--llc", default=os.environ.get("LLC", "/usr/lib/llvm-19/bin/llc"))
    ap.add_argument("-o", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                               "cpu_tables.c"))
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--cpus", help="with --check: only these CPUs' rows")
    ap.add_argument("--features", help="with --check: only these features' rows")
    a = ap.parse_args()
    if a.check:
        cpus = a.cpus.split(",") if a.cpus else None
        features = a.features.split(",") if a.features else None
        # The sanitizer pass (TESSEL_TEST_LIGHT=1) runs no instrumented code
        # here, only llc: the first CPU and feature named, the plain pass
        # checks them all.
        if os.environ.get("TESSEL_TEST_LIGHT") == "1":
            cpus, features = cpus and cpus[:1], features and features[:1]
        return check(a.llc, a.o, cpus, features)
    text = generate(a.llc)
    with open(a.o, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
