# Under a blockIdx loop but no threadIdx loop: TVM's rule stops there
# (unsupported), and so does the space generation, naming the block.
@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), B: T.Buffer((16, 32), "float32")):
    for i in T.thread_binding(16, thread="blockIdx.x"):
        for j in range(32):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] + T.float32(1)
