# pragma_unroll_explicit = 0: loops that qualify become UNROLLED loops (for
# the target's unroller) instead of copies: k (2 steps) and j (8 x 2 = 16
# steps); i would be 128 steps, over max step 16, and stays a loop.
@T.prim_func
def main(A: T.Buffer((8, 8, 2), "float32"), B: T.Buffer((8, 8, 2), "float32")):
    with T.block("root"):
        T.block_attr({"pragma_auto_unroll_max_step": 16, "pragma_unroll_explicit": 0})
        for i, j, k in T.grid(8, 8, 2):
            with T.block("B"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                B[vi, vj, vk] = A[vi, vj, vk] + T.float32(1)
