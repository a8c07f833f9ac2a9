# The pragmas on a block (as MetaSchedule's postprocessor would write them
# from the root block's meta_schedule.unroll_explicit) cover every loop of
# the block's body, max step 16: in the first nest j (4) and i (4 x 4 = 16)
# unroll, in the second only j (8; i would be 32). An inner block's own
# pragma wins inside it: max step 0 keeps its 2-iteration loop rolled.
@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 8), "float32"), D: T.Buffer((2,), "float32")):
    with T.block("root"):
        T.block_attr({"pragma_auto_unroll_max_step": 16, "pragma_unroll_explicit": 1})
        for i, j in T.grid(4, 4):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)
        for i, j in T.grid(4, 8):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = A[vi, vj] * T.float32(2)
        with T.block("inner"):
            T.block_attr({"pragma_auto_unroll_max_step": 0})
            for k in range(2):
                with T.block("D"):
                    vk = T.axis.spatial(2, k)
                    D[vk] = A[vk, 0]
