# B's loop is fused (vi = f // 64, vj = f % 64) and C needs 60x63 of it:
# the predicate f // 64 < 60 and f % 64 < 63 is simplified as TVM's
# analyzer does, to f < 3839 and f % 64 < 63.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), C: T.Buffer((60, 63), "float32")):
    B = T.alloc_buffer((64, 64))
    for f in range(4096):
        with T.block("B"):
            vi = T.axis.spatial(64, f // 64)
            vj = T.axis.spatial(64, f % 64)
            B[vi, vj] = A[vi, vj] + T.float32(1)
    for i, j in T.grid(60, 63):
        with T.block("C"):
            ci, cj = T.axis.remap("SS", [i, j])
            C[ci, cj] = B[ci, cj] * B[ci, cj]
