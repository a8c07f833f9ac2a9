# A block with no loop: add_unit_loop on the block, then as above.
@T.prim_func
def main(A: T.Buffer((), "float32"), B: T.Buffer((), "float32"), C: T.Buffer((), "float32")):
    with T.block("C"):
        vi = T.axis.spatial(1, 0)
        C[()] = A[()] - B[()]
