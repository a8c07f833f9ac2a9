# Symbolic extents: a loop over n never unrolls and, being a loop that stays,
# keeps the loops around it rolled (second nest); inside it, constant loops
# unroll (first nest). A T.unroll loop over n cannot be copied and stays an
# UNROLLED loop (third nest; TVM refuses it).
@T.prim_func
def main(a: T.handle, b: T.handle, c: T.handle, d: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, 4), "float32")
    B = T.match_buffer(b, (n, 4), "float32")
    C = T.match_buffer(c, (4, n), "float32")
    D = T.match_buffer(d, (n,), "float32")
    for i in T.serial(n, annotations={"pragma_auto_unroll_max_step": 64, "pragma_unroll_explicit": 1}):
        for j in range(4):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)
    for j in T.serial(4, annotations={"pragma_auto_unroll_max_step": 64, "pragma_unroll_explicit": 1}):
        for i in range(n):
            with T.block("C"):
                vj, vi = T.axis.remap("SS", [j, i])
                C[vj, vi] = A[vi, vj] * T.float32(2)
    for i in T.unroll(n):
        with T.block("D"):
            vi = T.axis.spatial(n, i)
            D[vi] = A[vi, 0]
