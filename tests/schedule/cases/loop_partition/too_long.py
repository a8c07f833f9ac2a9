# out[i] = in[i] over 16 elements.
@T.prim_func
def main(X: T.Buffer((16,), "float32"), Y: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("Y"):
            vi = T.axis.spatial(16, i)
            Y[vi] = X[vi]
