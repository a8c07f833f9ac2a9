# Zero padding: P holds X with 3 zeros on each side.
@T.prim_func
def main(X: T.Buffer((10,), "float32"), P: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.block("P"):
            vi = T.axis.spatial(16, i)
            P[vi] = T.if_then_else(3 <= vi and vi < 13, X[vi - 3], T.float32(0))
