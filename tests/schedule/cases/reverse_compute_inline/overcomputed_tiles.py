# B holds A in 8x8 tiles (B[ti, tj, ii, jj]); C reads a 30x29 corner through
# B[ci // 8, cj // 8, ci % 8, cj % 8]. The load map pads ci and cj to 32;
# its inverse is ci = ii + ti * 8, and B gets the predicate
# ti * 8 + ii < 30 and tj * 8 + jj < 29.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32, 32), "float32"), C: T.Buffer((30, 29), "float32")):
    B = T.alloc_buffer((4, 4, 8, 8))
    for ti, tj, ii, jj in T.grid(4, 4, 8, 8):
        with T.block("B"):
            vti, vtj, vii, vjj = T.axis.remap("SSSS", [ti, tj, ii, jj])
            B[vti, vtj, vii, vjj] = A[vti * 8 + vii, vtj * 8 + vjj] + T.float32(3)
    for i, j in T.grid(30, 29):
        with T.block("C"):
            ci, cj = T.axis.remap("SS", [i, j])
            C[ci, cj] = B[ci // 8, cj // 8, ci % 8, cj % 8] * T.float32(0.5)
