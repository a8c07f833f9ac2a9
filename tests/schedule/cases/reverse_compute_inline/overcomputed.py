# B computes 64x64 but C only needs 60x62: after inlining, B's iterations
# past C's domain must not write C (which is only 60x62), so B gets
# T.where(i < 60 and j < 62).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), C: T.Buffer((60, 62), "float32")):
    B = T.alloc_buffer((64, 64))
    for i, j in T.grid(64, 64):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(60, 62):
        with T.block("C"):
            ci, cj = T.axis.remap("SS", [i, j])
            C[ci, cj] = B[ci, cj] - T.float32(1)
