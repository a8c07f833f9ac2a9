# C reads B[vi - 16] for vi in [16, 48) only, under a guard; over B's 32
# iterations the inverse vi = vi' + 16 reaches only [16, 48) of C's
# [0, 48): B cannot compute all of C, so the inline is refused (as TVM).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((32,), "float32"), C: T.Buffer((48,), "float32")):
    B = T.alloc_buffer((32,))
    for i in range(32):
        with T.block("B"):
            vi = T.axis.spatial(32, i)
            B[vi] = A[vi] * T.float32(2)
    for i in range(48):
        with T.block("C"):
            vi = T.axis.spatial(48, i)
            C[vi] = T.if_then_else(vi >= 16, B[vi - 16], T.float32(0))
