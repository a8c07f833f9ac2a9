@T.prim_func
def main(a: T.handle, b: T.handle, c: T.handle, d: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, 4), "float32")
    B = T.match_buffer(b, (n, 4), "float32")
    C = T.match_buffer(c, (4, n), "float32")
    D = T.match_buffer(d, (n,), "float32")
    for i in range(n):
        for j in T.unroll(4):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)
    for j in range(4):
        for i in range(n):
            with T.block("C"):
                vj, vi = T.axis.remap("SS", [j, i])
                C[vj, vi] = A[vi, vj] * T.float32(2)
    for i in T.unroll(n):
        with T.block("D"):
            vi = T.axis.spatial(n, i)
            D[vi] = A[vi, 0]
