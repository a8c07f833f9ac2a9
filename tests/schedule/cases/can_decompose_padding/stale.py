# Zero padding of 6 values to 8.
@T.prim_func
def main(X: T.Buffer((6,), "float32"), P: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.block("P"):
            vi = T.axis.spatial(8, i)
            P[vi] = T.if_then_else(vi < 6, X[vi], T.float32(0))
