# A reduction with its init inside the loops: the guarded init is an IF with
# one store, so each k iteration is 2 steps; under max step 16 k (4 x 2 = 8)
# unrolls (the copies keep the init store only for k = 0) and i (4 x 8 =
# 32) stays a loop.
@T.prim_func
def main(A: T.Buffer((4, 4), "float32"), C: T.Buffer((4,), "float32")):
    for i in T.serial(4, annotations={"pragma_auto_unroll_max_step": 16, "pragma_unroll_explicit": 1}):
        for k in range(4):
            with T.block("C"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    C[vi] = T.float32(0)
                C[vi] = C[vi] + A[vi, vk]
