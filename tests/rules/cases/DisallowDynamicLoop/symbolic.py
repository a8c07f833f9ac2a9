# A loop over a symbolic size: rejected.
@T.prim_func
def main(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        with T.block("B"):
            vi = T.axis.spatial(n, i)
            B[vi] = A[vi]
