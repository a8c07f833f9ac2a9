# A reduction whose innermost loop (extent 2) binds no iterator: rfactor
# over it is refused: each of its iterations would add a copy of the sum.
@T.prim_func
def main(A: T.Buffer((8, 64), "float32"), S: T.Buffer((8,), "float32")):
    for b, k, u in T.grid(8, 64, 2):
        with T.block("S"):
            vb = T.axis.spatial(8, b)
            vk = T.axis.reduce(64, k)
            with T.init():
                S[vb] = T.float32(0)
            S[vb] = S[vb] + A[vb, vk] * A[vb, vk]
