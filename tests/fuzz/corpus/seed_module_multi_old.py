# An older-style IRModule (@tvm.script.ir_module) with three prim_funcs: a copy, a scaled add with T.Buffer[(..)] parameters and a handle-based reduction.
# from tvm.script import tir as T

@tvm.script.ir_module
class Module:
    @T.prim_func
    def copy(A: T.Buffer[(8, 8), "float32"], B: T.Buffer[(8, 8), "float32"]) -> None:
        T.func_attr({"global_symbol": "copy", "tir.noalias": True})
        for i, j in T.grid(8, 8):
            with T.block("copy"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]

    @T.prim_func
    def scaled_add(A: T.Buffer[(8, 8), "float32"], B: T.Buffer[(8, 8), "float32"], C: T.Buffer[(8, 8), "float32"]) -> None:
        T.func_attr({"global_symbol": "scaled_add", "tir.noalias": True})
        for i, j in T.grid(8, 8):
            with T.block("scaled_add"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] * T.float32(0.5) + B[vi, vj]

    @T.prim_func
    def total(a: T.handle, b: T.handle) -> None:
        T.func_attr({"global_symbol": "total", "tir.noalias": True})
        A = T.match_buffer(a, [8, 8], dtype="float32")
        B = T.match_buffer(b, [1], dtype="float32")
        for i, j in T.grid(8, 8):
            with T.block("total"):
                vi, vj = T.axis.remap("RR", [i, j])
                with T.init():
                    B[0] = T.float32(0)
                B[0] = B[0] + A[vi, vj]
