# A scalar sum of two 0-d buffers, a block with no loop around it.
@T.prim_func
def main(A: T.Buffer((), "int32"), B: T.Buffer((), "int32"), C: T.Buffer((), "int32")):
    with T.block("C"):
        T.reads(A[()], B[()])
        T.writes(C[()])
        C[()] = A[()] + B[()] * 3
