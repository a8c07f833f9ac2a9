# max step 16 on a 4x4x8 nest around one store (k: 8 steps, j: 4 x 8 = 32,
# i: 4 x 32 = 128): k unrolls.
@T.prim_func
def main(A: T.Buffer((4, 4, 8), "float32"), B: T.Buffer((4, 4, 8), "float32")):
    for i in T.serial(4, annotations={"pragma_auto_unroll_max_step": 16, "pragma_unroll_explicit": 1}):
        for j in range(4):
            for k in range(8):
                with T.block("B"):
                    vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                    B[vi, vj, vk] = A[vi, vj, vk] + T.float32(1)
