# Views of the buffer get the separators too: as many zeros when their
# rank differs, the same list when it is equal.
@T.prim_func
def views(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
    B = T.alloc_buffer((8, 8))
    for i, j in T.grid(8, 8):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            Bs = T.match_buffer(B[vi, vj], ())
            Bs[()] = A[vi, vj]
    for i in range(2):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            Bt = T.match_buffer(B[vi * 4:vi * 4 + 4, 0:8], (4, 8))
            for j, k in T.grid(4, 8):
                C[vi * 4 + j, k] = Bt[j, k] + T.float32(1)
