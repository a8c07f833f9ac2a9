# C views B through T.match_buffer: inlining B would leave the view of a
# buffer that no longer exists, so compute_inline refuses (as TVM).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    B = T.alloc_buffer((8, 8))
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(8, 8):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(B[vi, vj])
            T.writes(C[vi, vj])
            Bv = T.match_buffer(B[vi, vj], (1, 1))
            C[vi, vj] = Bv[0, 0] + T.float32(1)
