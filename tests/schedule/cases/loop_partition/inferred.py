# out[i] = in[i] * 2 + 1 over 30 elements.
@T.prim_func
def main(X: T.Buffer((30,), "float32"), Y: T.Buffer((30,), "float32")):
    for i in range(30):
        with T.block("Y"):
            vi = T.axis.spatial(30, i)
            Y[vi] = X[vi] * T.float32(2) + T.float32(1)
