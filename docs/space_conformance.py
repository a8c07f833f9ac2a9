#!/usr/bin/env python3
"""Compare tessel's design spaces with MetaSchedule's CPU or CUDA design-space tests.

TVM's tests/python/meta_schedule/test_meta_schedule_space_cpu.py lists, for
each workload, the sketches its default llvm rules derive (as programs) and
the decisions that made them. This script reads that file from a bare git
folder of apache/tvm (nothing of it is imported or executed: it is parsed with
`ast`), and for each workload tessel has in workloads/:

  1. runs `tessel space WORKLOAD --num-cores 18 --json` (TVM's test target,
     aws/cpu/c5.9xlarge, has 18 cores) and checks that it gives as many
     sketches as TVM, each with the same sample_* instructions in the same
     order (perfect tiles of the same lengths);
  2. puts TVM's decisions into each sketch, replays it with `tessel schedule`
     and compares the program with TVM's expected one using `tessel eq`, the
     blocks of both renamed by their order first: TVM's check_sketches uses
     structural equality, which ignores block and buffer names.

TVM's text stays in a temporary folder. Usage, from the repository root after
a build:

    python3 docs/space_conformance.py --git-dir GITDIR [--tag v0.19.0]

With `--kind cuda` the same for test_meta_schedule_space_cuda.py and the
cuda target's rules (`tessel space --target cuda`). With `--kind intrin` the
same for test_meta_schedule_schedule_rule_mlt_intrin.py's x86 cases
(MultiLevelTilingWithIntrin with dot_16x4_vnni and dot_16x4_avx512 on an
int8 NCHWc convolution). With `--kind tensorcore`
the same for test_meta_schedule_schedule_rule_mlt_tc.py, whose tests give
their own rule lists (MultiLevelTilingTensorCore with one WMMA group and its
reuse scopes, some with AutoInline): `tessel space --rule ...` with the same
rules; a parametrized test runs once per parameter, its expected program
with the parameter filled in.

Prints one line per workload and a total. Standard library only.
"""
import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap

TEST = "tests/python/meta_schedule/test_meta_schedule_space_cpu.py"
# TVM's test -> tessel's TVMScript version of the same TE workload
WORKLOADS = [
    ("test_cpu_gmm", "workloads/batch_matmul_1x128.py"),
    ("test_cpu_sfm", "workloads/softmax_256.py"),
    ("test_cpu_nrm", "workloads/norm_bmn.py"),
    ("test_cpu_c2d", "bench/tune/conv2d_nhwc_stem.py"),  # too big for the tests,
    ("test_cpu_c1d", "bench/space/conv1d_nlc.py"),
    ("test_cpu_c3d", "bench/space/conv3d_ndhwc.py"),
    ("test_cpu_cap", "bench/space/conv2d_capsule_nhwijc.py"),
    ("test_cpu_dep", "bench/space/depthwise_conv2d_nhwc.py"),
    ("test_cpu_dil", "bench/space/conv2d_dilated_nhwc.py"),
    ("test_cpu_grp", "bench/space/conv2d_group_nhwc.py"),
    ("test_cpu_t2d", "bench/space/conv2d_transpose_nhwc.py"),
    ("test_cpu_cbr", "bench/space/conv2d_nhwc_bn_relu.py"),
    ("test_cpu_tbg", "bench/space/transpose_batch_matmul.py"),
]
# test, its parameters, tessel's workload, the rules (tessel space --rule)
AUTO_INLINE_CUDA = ("AutoInline;into_producer=true;into_consumer=true;inline_const_tensor=true;"
                    "disallow_if_then_else=false;require_injective=false;require_ordered=false;"
                    "disallow_op=")


MLT_CUDA = ("MultiLevelTiling;structure=SSSRRSRS;tile_binds=blockIdx.x,vthread.x,threadIdx.x;"
            "max_innermost_factor=64;vector_load_lens=1,2,3,4,8,16;reuse_read_req=must;"
            "reuse_read_levels=4;reuse_read_scope=shared;reuse_write_req=must;"
            "reuse_write_levels=3;reuse_write_scope=local;thread_warp_size=32;"
            "max_threads_per_block=1024")


def mlt_tc(read="shared", write="shared"):
    return (f"MultiLevelTilingTensorCore;intrin_groups=wmma_sync_16x16x16_f16f16f32;"
            f"reuse_read_scope={read};reuse_write_scope={write}")


TC_TEST = "tests/python/meta_schedule/test_meta_schedule_schedule_rule_mlt_tc.py"
TC_WORKLOADS = [
    ("test_matmul_relu", {"shared_scope": s}, "bench/space/matmul_relu_fp16.py",
     [mlt_tc(s, s), AUTO_INLINE_CUDA]) for s in ("shared", "shared.dyn")
] + [
    ("test_conv2d", {"shared_scope": s}, "bench/space/conv2d_nhwc_fp16.py", [mlt_tc(s, s)])
    for s in ("shared", "shared.dyn")
] + [
    ("test_matmul_relu_pipeline", {"shared_scope": s}, "bench/space/matmul_relu_fp16.py",
     [mlt_tc(s, s) + ";use_software_pipeline=true"])
    for s in ("shared", "shared.dyn")
] + [
    ("test_padded_matmul_relu", {}, "bench/space/matmul_relu_fp16_127.py",
     [mlt_tc(write="shared"), AUTO_INLINE_CUDA]),
    ("test_matmul_relu_with_fallback", {}, "bench/space/matmul_relu_fp16.py",
     [mlt_tc(), MLT_CUDA, AUTO_INLINE_CUDA]),
    ("test_padded_matmul_single_padded_input", {}, "bench/space/matmul_fp16_1023x1024x4096.py",
     [mlt_tc(), AUTO_INLINE_CUDA]),
    ("test_padded_matmul_no_padded_output", {}, "bench/space/matmul_fp16_1024x1024x4095.py",
     [mlt_tc(), AUTO_INLINE_CUDA]),
    ("test_conv_1x1", {}, "bench/space/conv2d_nhwc_1x1_fp16.py",
     [mlt_tc(write="shared"), AUTO_INLINE_CUDA]),
    ("test_padded_conv", {}, "bench/space/conv2d_nhwc_stem_fp16.py",
     [mlt_tc(write="shared"), AUTO_INLINE_CUDA]),
    # no decisions: one sketch, the program unchanged
    ("test_matmul_relu_non_tensorizable", {}, "bench/space/matmul_relu_fp32.py",
     [mlt_tc(write="shared")]),
]

INTRIN_TEST = "tests/python/meta_schedule/test_meta_schedule_schedule_rule_mlt_intrin.py"
# test_x86_conv2d_nchwc with each x86 intrinsic (its default and the call in
# the file's __main__); the dp4a cases are CUDA's and not run here
INTRIN_WORKLOADS = [
    ("test_x86_conv2d_nchwc", {"intrin": i}, "bench/space/conv2d_nchwc_int8.py",
     [f"MultiLevelTilingWithIntrin;intrin_name={i};structure=SSRSRS;max_innermost_factor=64;"
      "reuse_write_req=may;reuse_write_levels=1,2;reuse_write_scope=global"])
    for i in ("dot_16x4_vnni", "dot_16x4_avx512")
]

KIND = {"sample_perfect_tile": "SamplePerfectTile",
        "sample_categorical": "SampleCategorical",
        "sample_compute_location": "SampleComputeLocation"}
EXE = "build/core/cli/tessel"


def test_function(tree, name):
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)


def expected(src, tree, name, params=None):
    """TVM's decision lists and expected programs of one test, in order; a
    parametrized test's parameters (and the intrinsic suffix its tests derive
    from the scope) filled into the program text."""
    fn = test_function(tree, name)
    decisions, programs = {}, []
    for st in fn.body:
        if (isinstance(st, ast.Assign) and isinstance(st.targets[0], ast.Name)
                and st.targets[0].id.startswith("decision_")):
            decisions[int(st.targets[0].id.split("_")[1])] = ast.literal_eval(st.value)
        elif isinstance(st, ast.FunctionDef):
            text = textwrap.dedent(ast.get_source_segment(src, st, padded=True))
            for key, value in (params or {}).items():
                text = text.replace("{intrin_suffix}", value.replace(".", "_"))
                text = re.sub(rf"\b{key}\b", json.dumps(value), text)
            programs.append(text.replace('f"', '"'))
    if len(programs) > len(decisions):  # an input program defined in the test itself
        names = [st.name for st in fn.body if isinstance(st, ast.FunctionDef)]
        programs = [p for p, n in zip(programs, names) if re.search(r"_\d+$", n)]
    return [decisions[k] for k in sorted(decisions)], programs


def sketches(workload, kind, rules=()):
    cmd = [EXE, "space", workload, "--num-cores", "18", "--target",
           "llvm" if kind in ("cpu", "intrin") else "cuda", "--cpu-features", "all", "--json"]
    for r in rules:
        cmd += ["--rule", r]
    out = subprocess.check_output(cmd)
    return [s["trace"] for s in json.loads(out)["sketches"]]


def samples(trace):
    seq = []
    for line in trace.splitlines():
        m = re.search(r"sch\.(sample_\w+)\(.*decision=(.*)\)$", line)
        if m:
            seq.append((KIND[m.group(1)], json.loads(m.group(2))))
    return seq


def shape(seq):
    return [(k, len(v) if isinstance(v, list) else None) for k, v in seq]


def unnamed_blocks(text):
    """Blocks named by their order: TVM's check_sketches compares with
    structural equality, which ignores block (and buffer) names."""
    count = iter(range(1 << 30))
    return re.sub(r'^(\s*with )T\.block\("[^"]*"\)',
                  lambda m: f'{m.group(1)}T.block("b{next(count)}")', text, flags=re.M)


def with_decisions(trace, decisions):
    out, k = [], 0
    for line in trace.splitlines():
        m = re.search(r"(sch\.sample_\w+\(.*decision=)(.*)(\))$", line)
        if m:
            line = line[:m.start(2)] + json.dumps(decisions[k][1]) + ")"
            k += 1
        out.append(line)
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--git-dir", required=True, help="bare git folder of apache/tvm")
    ap.add_argument("--tag", default="v0.19.0")
    ap.add_argument("--kind", choices=["cpu", "cuda", "tensorcore", "intrin"], default="cpu")
    args = ap.parse_args()
    test_file = {"cpu": TEST, "cuda": TEST.replace("space_cpu", "space_cuda"),
                 "tensorcore": TC_TEST, "intrin": INTRIN_TEST}[args.kind]
    src = subprocess.check_output(["git", "--git-dir", args.git_dir, "show",
                                   f"refs/tags/{args.tag}:{test_file}"], text=True)
    tree = ast.parse(src)
    tmp = tempfile.mkdtemp(prefix="tessel_space_")
    total = equal = kinds_ok = 0
    cases = ({"tensorcore": TC_WORKLOADS, "intrin": INTRIN_WORKLOADS}.get(args.kind) or
             [(t.replace("test_cpu_", f"test_{args.kind}_"), {}, w, ()) for t, w in WORKLOADS])
    for test, params, workload, rules in cases:
        decisions, programs = expected(src, tree, test, params)
        if not decisions and not programs:  # TVM checks one sketch equal to the input
            decisions, programs = [[]], [open(workload).read().split("@T.prim_func\n", 1)[1]]
        ours = sketches(workload, args.kind if args.kind == "intrin" else
                        "cuda" if rules else args.kind, rules)
        test += "".join(f"[{v}]" for v in params.values())
        same_kinds = len(ours) == len(decisions) and all(
            shape(samples(t)) == shape(d) for t, d in zip(ours, decisions))
        n_eq = 0
        for i, (trace, dec, prog) in enumerate(zip(ours, decisions, programs)):
            stem = re.sub(r"\W", "_", test)
            sch = os.path.join(tmp, f"{stem}_{i}.sch")
            want = os.path.join(tmp, f"{stem}_{i}_tvm.py")
            got = os.path.join(tmp, f"{stem}_{i}_tessel.py")
            with open(sch, "w") as f:
                f.write(with_decisions(trace, dec))
            with open(want, "w") as f:
                f.write(unnamed_blocks("from tvm.script import tir as T\n@T.prim_func\n" + prog))
            r = subprocess.run([EXE, "schedule", workload, sch], capture_output=True, text=True)
            if r.returncode:
                print(f"  {test} sketch {i}: replay failed: {r.stderr.strip()[:300]}")
                continue
            with open(got, "w") as f:
                f.write(unnamed_blocks(r.stdout))
            e = subprocess.run([EXE, "eq", want, got], capture_output=True, text=True)
            if e.returncode == 0:
                n_eq += 1
            else:
                print(f"  {test} sketch {i}: differs: {(e.stdout + e.stderr).strip()[:300]}")
        print(f"{test:14s} {workload:38s} sketches TVM {len(decisions)} tessel {len(ours)}, "
              f"samples in the same order: {'yes' if same_kinds else 'no'}, "
              f"programs equal with TVM's decisions: {n_eq}/{len(programs)}")
        total += len(programs)
        equal += n_eq
        kinds_ok += same_kinds
    print(f"design spaces: {kinds_ok}/{len(cases)} workloads with TVM's sketches; "
          f"{equal}/{total} sketch programs equal to TVM's (files in {tmp})")
    return 0 if equal == total and kinds_ok == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
