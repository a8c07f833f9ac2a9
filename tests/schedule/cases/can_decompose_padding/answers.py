# A padding block and a consumer that is not one.
@T.prim_func
def main(X: T.Buffer((8,), "float32"), Y: T.Buffer((10,), "float32")):
    P = T.alloc_buffer((10,))
    for i in range(10):
        with T.block("P"):
            vi = T.axis.spatial(10, i)
            P[vi] = T.if_then_else(1 <= vi and vi < 9, X[vi - 1], T.float32(0))
    for i in range(10):
        with T.block("Y"):
            vi = T.axis.spatial(10, i)
            Y[vi] = P[vi] * T.float32(2)
