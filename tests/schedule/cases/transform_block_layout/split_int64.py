# int64 iterators: the index map's parameters and constants are int64.
@T.prim_func
def copy(A: T.Buffer((T.int64(24),), "float32"), B: T.Buffer((T.int64(24),), "float32")):
    for i in range(T.int64(24)):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            B[vi] = A[vi]
