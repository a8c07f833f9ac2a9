# Steps are counted after vectorization: the 8-lane loop is one vector store,
# so i (4 x 1 = 4 steps) unrolls under max step 4. With vectorize 0 the lane
# loop counts as a serial loop of 8 steps, over 4: it stays a loop and so
# does i.
@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
    for i in T.serial(4, annotations={"pragma_auto_unroll_max_step": 4, "pragma_unroll_explicit": 1}):
        for j in T.vectorized(8):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2) + T.float32(1)
