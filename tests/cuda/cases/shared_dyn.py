# Two buffers in dynamic shared memory (shared.dyn), 20 float32 and 64 float16 per block: each thread reads elements other threads stored, so a barrier goes between. They share one block of 80 + 128 bytes (each place 16-byte aligned), the size the launch gives.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((80,), "float32"), H: T.Buffer((256,), "float16"), B: T.Buffer((80,), "float32"), G: T.Buffer((256,), "float16")):
    S = T.alloc_buffer((80,), scope="shared.dyn")
    D = T.alloc_buffer((256,), "float16", scope="shared.dyn")
    for b in T.thread_binding(4, thread="blockIdx.x"):
        for t in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("load_s"):
                v = T.axis.spatial(80, b * 20 + t)
                T.where(t < 20)
                S[v] = A[v]
            with T.block("load_d"):
                v = T.axis.spatial(256, b * 64 + t)
                D[v] = H[v]
        for t in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("store_s"):
                v = T.axis.spatial(80, b * 20 + t)
                T.where(t < 20)
                B[v] = S[b * 20 + 19 - t] * T.float32(2)
            with T.block("store_d"):
                v = T.axis.spatial(256, b * 64 + t)
                G[v] = D[b * 64 + 63 - t]
