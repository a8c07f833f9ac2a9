# A binding whose inner loop is scaled past the outer one: vi = i * 2 + j with j in [0, 4).
@T.prim_func
def main(A: T.Buffer((40,), "float32"), B: T.Buffer((40,), "float32")):
    for i, j in T.grid(16, 4):
        with T.block("B"):
            vi = T.axis.spatial(40, i * 2 + j)
            B[vi] = A[vi] + T.float32(1)
