# A chain through a fused load and a unit iterator: C reads B[vi * 16 + vj,
# vk], D writes a leading unit dimension. Both fold into B, which ends up
# writing D[0, vi // 16, vi % 16, vj].
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 8), "float32"), D: T.Buffer((1, 2, 16, 8), "float32")):
    B = T.alloc_buffer((32, 8))
    C = T.alloc_buffer((2, 16, 8))
    for i, j in T.grid(32, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j, k in T.grid(2, 16, 8):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            C[vi, vj, vk] = B[vi * 16 + vj, vk] + T.float32(1)
    for u, i, j, k in T.grid(1, 2, 16, 8):
        with T.block("D"):
            vu, vi, vj, vk = T.axis.remap("SSSS", [u, i, j, k])
            D[vu, vi, vj, vk] = C[vi, vj, vk]
