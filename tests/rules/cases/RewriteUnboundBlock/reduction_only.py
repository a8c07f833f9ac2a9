# A block whose only loop is a reduction: a unit loop goes above it and is
# bound; the reduction loop stays serial inside.
@T.prim_func
def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((), "float32")):
    for k in range(8):
        with T.block("C"):
            vk = T.axis.reduce(8, k)
            with T.init():
                C[()] = T.float32(1)
            C[()] = T.max(C[()], A[vk] - B[vk])
