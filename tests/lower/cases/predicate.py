# A non-dividing split: T.where becomes an IF around the block's body and
# sits outside the init guard.
@T.prim_func
def main(A: T.Buffer((10, 7), "float32"), B: T.Buffer((10,), "float32")):
    for i in range(10):
        for k_0, k_1 in T.grid(2, 4):
            with T.block("B"):
                vi = T.axis.spatial(10, i)
                vk = T.axis.reduce(7, k_0 * 4 + k_1)
                T.where(k_0 * 4 + k_1 < 7)
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]
