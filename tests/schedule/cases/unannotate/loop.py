# CPU-scheduled matrix multiplication C = A @ B, 64x64x64 float32: tiled loops, parallel outer loop, unrolled and vectorized inner loops, annotations.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_0_j_0_fused in T.parallel(32, annotations={"pragma_auto_unroll_max_step": 64, "pragma_unroll_explicit": 1}):
        for k_0 in range(16):
            for i_1 in T.unroll(8):
                for k_1 in range(4):
                    for j_1 in T.vectorized(16):
                        with T.block("C"):
                            vi = T.axis.spatial(64, i_0_j_0_fused // 4 * 8 + i_1)
                            vj = T.axis.spatial(64, i_0_j_0_fused % 4 * 16 + j_1)
                            vk = T.axis.reduce(64, k_0 * 4 + k_1)
                            T.reads(A[vi, vk], B[vk, vj])
                            T.writes(C[vi, vj])
                            T.block_attr({"meta_schedule.tiling_structure": "SSRSRS"})
                            with T.init():
                                C[vi, vj] = T.float32(0)
                            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
