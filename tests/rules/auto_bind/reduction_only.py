# A block whose only loop is a reduction: a unit loop above it, fused and
# split [None, 1] (no candidate fits an extent of 1, so no sample).
@T.prim_func
def main(A: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32"), C: T.Buffer((), "float32")):
    for k in range(2):
        with T.block("C"):
            vk = T.axis.reduce(2, k)
            with T.init():
                C[()] = T.float32(1)
            C[()] = T.min(C[()], A[vk] / B[vk])
