# Already under blockIdx.x and threadIdx.x (and a serial loop inside): left
# as it is.
@T.prim_func
def main(A: T.Buffer((16, 32, 4), "float32"), B: T.Buffer((16, 32, 4), "float32")):
    for i in T.thread_binding(16, thread="blockIdx.x"):
        for j in T.thread_binding(32, thread="threadIdx.x"):
            for k in range(4):
                with T.block("B"):
                    vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                    B[vi, vj, vk] = A[vi, vj, vk] * A[vi, vj, vk]
