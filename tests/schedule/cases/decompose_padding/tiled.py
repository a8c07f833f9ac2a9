# A padded row (18 from 16) consumed in tiles of 6 by a 3-tap sum.
@T.prim_func
def main(X: T.Buffer((16,), "float32"), Y: T.Buffer((16,), "float32")):
    P = T.alloc_buffer((18,))
    for i in range(18):
        with T.block("P"):
            vi = T.axis.spatial(18, i)
            P[vi] = T.if_then_else(1 <= vi and vi < 17, X[vi - 1], T.float32(0))
    for i, r in T.grid(16, 3):
        with T.block("Y"):
            vi, vr = T.axis.remap("SR", [i, r])
            with T.init():
                Y[vi] = T.float32(0)
            Y[vi] = Y[vi] + P[vi + vr]
