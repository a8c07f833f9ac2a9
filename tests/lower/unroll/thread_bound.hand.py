@T.prim_func
def main(A: T.Buffer((4, 32), "float32"), B: T.Buffer((4, 32), "float32")):
    for i in T.unroll(4):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, tx])
                B[vi, vj] = A[vi, vj] + T.float32(1)
