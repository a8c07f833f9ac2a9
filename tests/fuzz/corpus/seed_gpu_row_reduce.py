# GPU row reduction with shared memory: each of 16 thread blocks sums one 128-element float32 row; 32 threads write partial sums to shared memory, then thread 0 combines them.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 128), "float32"), B: T.Buffer((16,), "float32")):
    T.func_attr({"global_symbol": "main", "target": "cuda", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    partial = T.alloc_buffer((16, 32), scope="shared")
    for bx in T.thread_binding(16, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            for k_1 in range(4):
                with T.block("partial"):
                    v_i = T.axis.spatial(16, bx)
                    v_t = T.axis.spatial(32, tx)
                    v_k = T.axis.reduce(4, k_1)
                    T.reads(A[v_i, v_t * 4 + v_k])
                    T.writes(partial[v_i, v_t])
                    with T.init():
                        partial[v_i, v_t] = T.float32(0)
                    partial[v_i, v_t] = partial[v_i, v_t] + A[v_i, v_t * 4 + v_k]
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            for k in range(32):
                with T.block("B"):
                    v_i = T.axis.spatial(16, bx)
                    v_k = T.axis.reduce(32, k)
                    T.where(tx < 1)
                    T.reads(partial[v_i, v_k])
                    T.writes(B[v_i])
                    with T.init():
                        B[v_i] = T.float32(0)
                    B[v_i] = B[v_i] + partial[v_i, v_k]
