# show() accepts being called at any point.
@T.prim_func
def main(A: T.Buffer((32, 16), "float32"), B: T.Buffer((32, 16), "float32")):
    for i, j in T.grid(32, 16):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
