# B is a 4x8 tile stored flattened (B[vi * 8 + vj]); C reads it through the
# flat index. The store index map is bijective, so each load B[k] becomes
# A at (k // 8, k % 8).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), C: T.Buffer((32,), "float32")):
    B = T.alloc_buffer((32,))
    for i, j in T.grid(4, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi * 8 + vj] = A[vi, vj] * T.float32(3)
    for k in range(32):
        with T.block("C"):
            vk = T.axis.spatial(32, k)
            C[vk] = B[vk] + T.float32(1)
