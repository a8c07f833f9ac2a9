# A loop that stays a loop stops every loop around it from unrolling: under
# max step 512, k unrolls (4 steps), j is parallel and stays, so i stays a
# loop although 4 x 4 x 4 = 64 steps would fit.
@T.prim_func
def main(A: T.Buffer((4, 4, 4), "float32"), B: T.Buffer((4, 4, 4), "float32")):
    for i in T.serial(4, annotations={"pragma_auto_unroll_max_step": 512, "pragma_unroll_explicit": 1}):
        for j in T.parallel(4):
            for k in range(4):
                with T.block("B"):
                    vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                    B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2)
