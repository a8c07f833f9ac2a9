# Y = X + Z over 10x7 followed by a consumer of Y.
@T.prim_func
def main(X: T.Buffer((10, 7), "float32"), Z: T.Buffer((10, 7), "float32"), W: T.Buffer((10, 7), "float32")):
    Y = T.alloc_buffer((10, 7))
    for i, j in T.grid(10, 7):
        with T.block("Y"):
            vi, vj = T.axis.remap("SS", [i, j])
            Y[vi, vj] = X[vi, vj] + Z[vi, vj]
    for i, j in T.grid(10, 7):
        with T.block("W"):
            vi, vj = T.axis.remap("SS", [i, j])
            W[vi, vj] = Y[vi, vj] * T.float32(2)
