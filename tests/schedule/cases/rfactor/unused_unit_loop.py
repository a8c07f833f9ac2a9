# A reduction whose innermost loop (extent 1) binds no iterator: rfactor
# over it is accepted, as TVM does (the rf buffer gets a unit dimension).
@T.prim_func
def main(A: T.Buffer((8, 64), "float32"), S: T.Buffer((8,), "float32")):
    for b, k, u in T.grid(8, 64, 1):
        with T.block("S"):
            vb = T.axis.spatial(8, b)
            vk = T.axis.reduce(64, k)
            with T.init():
                S[vb] = T.float32(0)
            S[vb] = S[vb] + A[vb, vk] * A[vb, vk]
