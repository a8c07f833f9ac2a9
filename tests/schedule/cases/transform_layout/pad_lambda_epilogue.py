# The producer also writes another buffer, so its loop cannot be replaced:
# a block after it fills the padding with a value of the new indices.
@T.prim_func
def two_outputs(A: T.Buffer((6, 5), "float32"), D: T.Buffer((6, 5), "float32"),
                C: T.Buffer((6, 5), "float32")):
    B = T.alloc_buffer((6, 5))
    for i, j in T.grid(6, 5):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + T.float32(1)
            D[vi, vj] = A[vi, vj]
    for i, j in T.grid(6, 5):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] * T.float32(2)
