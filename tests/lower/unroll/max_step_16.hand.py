@T.prim_func
def main(A: T.Buffer((4, 4, 8), "float32"), B: T.Buffer((4, 4, 8), "float32")):
    for i in range(4):
        for j in range(4):
            for k in T.unroll(8):
                with T.block("B"):
                    vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                    B[vi, vj, vk] = A[vi, vj, vk] + T.float32(1)
