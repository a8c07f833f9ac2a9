# Reduction with two reduce iterators: the init runs when both are at the
# start of their domains (the guard is a conjunction).
@T.prim_func
def main(A: T.Buffer((8, 6, 6), "float32"), B: T.Buffer((8,), "float32")):
    for i, r, s in T.grid(8, 6, 6):
        with T.block("B"):
            vi, vr, vs = T.axis.remap("SRR", [i, r, s])
            with T.init():
                B[vi] = T.float32(-3.0e38)
            B[vi] = T.max(B[vi], A[vi, vr, vs])
