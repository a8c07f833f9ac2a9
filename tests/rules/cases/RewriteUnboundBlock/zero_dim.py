# A block with no loop: a unit loop is added above it, fused (to itself) and
# bound to 1 block x 1 thread.
@T.prim_func
def main(A: T.Buffer((), "float32"), B: T.Buffer((), "float32"), C: T.Buffer((), "float32")):
    with T.block("C"):
        vi = T.axis.spatial(1, 0)
        C[()] = A[()] * B[()] + T.float32(1)
