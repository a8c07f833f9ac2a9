# A loop holding two blocks: the first block fuses only the loops down to
# the one with several children (i), and binds it; the second block is then
# under both thread loops and is left alone.
@T.prim_func
def main(A: T.Buffer((64, 16), "float32"), C: T.Buffer((64, 16), "float32")):
    B = T.alloc_buffer((64, 16))
    for i in range(64):
        for j in range(16):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)
        for j in range(16):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, vj] * T.float32(2)
