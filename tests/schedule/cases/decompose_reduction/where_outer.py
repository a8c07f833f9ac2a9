# Matrix multiplication C = A @ B with 60x60x60 float32 operands, loops split by 16 (imperfect), guarded with T.where predicates.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((60, 60), "float32"), B: T.Buffer((60, 60), "float32"), C: T.Buffer((60, 60), "float32")):
    T.func_attr({"global_symbol": "main", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i_0, j_0, i_1, j_1 in T.grid(4, 4, 16, 16):
        for k in range(60):
            with T.block("C"):
                vi = T.axis.spatial(60, i_0 * 16 + i_1)
                vj = T.axis.spatial(60, j_0 * 16 + j_1)
                vk = T.axis.reduce(60, k)
                T.where(i_0 * 16 + i_1 < 60 and j_0 * 16 + j_1 < 60)
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
