# Under a threadIdx loop only: the serial spatial loops above it are fused
# and bound to blockIdx.x; nothing is sampled.
@T.prim_func
def main(A: T.Buffer((4, 8, 64), "float32"), B: T.Buffer((4, 8, 64), "float32")):
    for i, j in T.grid(4, 8):
        for k in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("B"):
                vi, vj, vk = T.axis.remap("SSS", [i, j, k])
                B[vi, vj, vk] = A[vi, vj, vk] + T.float32(3)
