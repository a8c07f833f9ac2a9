# Older TVMScript spelling: @tvm.script.ir_module, T.Buffer[(..), ".."] parameters, an explicit root block, -> None; computes C = A @ B + 1 (64x64 float32).
# from tvm.script import tir as T

@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def main(A: T.Buffer[(64, 64), "float32"], B: T.Buffer[(64, 64), "float32"], C: T.Buffer[(64, 64), "float32"]) -> None:
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        with T.block("root"):
            T.reads([])
            T.writes([])
            Y = T.alloc_buffer([64, 64], dtype="float32")
            for i, j, k in T.grid(64, 64, 64):
                with T.block("Y"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    T.reads([A[vi, vk], B[vk, vj]])
                    T.writes([Y[vi, vj]])
                    with T.init():
                        Y[vi, vj] = T.float32(0)
                    Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
            for i, j in T.grid(64, 64):
                with T.block("C"):
                    vi = T.axis.spatial(64, i)
                    vj = T.axis.spatial(64, j)
                    C[vi, vj] = Y[vi, vj] + T.float32(1)
