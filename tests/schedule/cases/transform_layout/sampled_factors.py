# A temporary tiled by sampled factors: the index map divides by the
# product of two of them, as MultiLevelTilingTensorCore's output layout does.
@T.prim_func
def scale_shift(A: T.Buffer((32, 24), "float32"), C: T.Buffer((32, 24), "float32")):
    B = T.alloc_buffer((32, 24))
    for i, j in T.grid(32, 24):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(3)
    for i, j in T.grid(32, 24):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)
