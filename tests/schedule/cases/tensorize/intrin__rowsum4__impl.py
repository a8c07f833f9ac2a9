# rowsum4's implementation: one row at a time, the four terms unrolled.
@T.prim_func
def rowsum4_impl(a: T.handle, c: T.handle):
    A = T.match_buffer(a, (4, 4), offset_factor=1)
    C = T.match_buffer(c, (4,), offset_factor=1)
    with T.block("root"):
        T.reads(C[0:4], A[0:4, 0:4])
        T.writes(C[0:4])
        for i in range(4):
            C[i] = C[i] + A[i, 0] + A[i, 1] + A[i, 2] + A[i, 3]
