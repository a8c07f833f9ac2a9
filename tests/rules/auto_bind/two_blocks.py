# A producer, then a loop i holding two consumers: the space generator
# visits the blocks last first, so E comes first; i holds two blocks, so E
# fuses only i and binds it; C is then under both thread loops and stays;
# D's two loops are fused and bound.
@T.prim_func
def main(A: T.Buffer((64, 16), "float32"), C: T.Buffer((64, 16), "float32"),
         E: T.Buffer((64, 16), "float32")):
    D = T.alloc_buffer((64, 16))
    for i, j in T.grid(64, 16):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = A[vi, vj] * T.float32(2)
    for i in range(64):
        for j in range(16):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = D[vi, vj] + T.float32(1)
        for j in range(16):
            with T.block("E"):
                vi, vj = T.axis.remap("SS", [i, j])
                E[vi, vj] = D[vi, vj] - T.float32(1)
