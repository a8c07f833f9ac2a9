# 2-D padding of a 6x5 image to 8x9 (1 row above and below, 2 columns
# either side), with -1 as the pad value.
@T.prim_func
def main(X: T.Buffer((6, 5), "int32"), P: T.Buffer((8, 9), "int32")):
    for i, j in T.grid(8, 9):
        with T.block("P"):
            vi, vj = T.axis.remap("SS", [i, j])
            P[vi, vj] = T.if_then_else(1 <= vi and vi < 7 and 2 <= vj and vj < 7, X[vi - 1, vj - 2], -1)
