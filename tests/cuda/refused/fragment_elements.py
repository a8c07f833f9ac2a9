# A tensor-core fragment read and written element by element (the cache of C in wmma.accumulator, not tensorized): a fragment's elements belong to the threads of a warp in an order the hardware keeps to itself, so the target refuses the program and says to tensorize it.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    C_acc = T.alloc_buffer((16, 16), scope="wmma.accumulator")
    for b in T.thread_binding(1, thread="blockIdx.x"):
        for t in T.thread_binding(32, thread="threadIdx.x"):
            for i in range(8):
                with T.block("fill"):
                    vi = T.axis.spatial(16, t // 2)
                    vj = T.axis.spatial(16, t % 2 * 8 + i)
                    T.reads(A[vi, vj])
                    T.writes(C_acc[vi, vj])
                    C_acc[vi, vj] = A[vi, vj] * T.float32(2)
            for i in range(8):
                with T.block("store"):
                    vi = T.axis.spatial(16, t // 2)
                    vj = T.axis.spatial(16, t % 2 * 8 + i)
                    T.reads(C_acc[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = C_acc[vi, vj]
