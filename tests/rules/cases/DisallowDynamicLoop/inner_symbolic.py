# The loop with a variable extent is inner, its extent from a scalar
# parameter: rejected, naming that loop.
@T.prim_func
def main(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8,), "float32"), m: T.int32):
    for i in range(8):
        for j in range(m):
            with T.block("B"):
                vi, vj = T.axis.remap("SR", [i, j])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vj]
