# pragma_unroll_explicit = 0: the loops that qualify (k: 8 steps, j: 32,
# under max step 64) are left to the target's unroller as UNROLLED loops
# instead of being copied; the expected form marks them T.unroll under the
# same pragma_unroll_explicit = 0 (a T.unroll loop is copied otherwise).
@T.prim_func
def main(A: T.Buffer((4, 4, 8), "float32"), B: T.Buffer((4, 4, 8), "float32")):
    for i in T.serial(4, annotations={"pragma_auto_unroll_max_step": 64, "pragma_unroll_explicit": 0}):
        for j in range(4):
            for k in range(8):
                with T.block("B"):
                    vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                    B[vi, vj, vk] = A[vi, vj, vk] + T.float32(1)
