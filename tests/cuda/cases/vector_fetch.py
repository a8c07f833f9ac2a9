# Copies in vectors of 4 float32 (a float4), 8 float16 (16 bytes) and 2 float16 (a half2), each from an aligned offset, through shared memory; and one copy whose offset is not a multiple of its lanes (written lane by lane). Each thread then reads another thread's elements, so a barrier goes between.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((1024,), "float32"), H: T.Buffer((1024,), "float16"), B: T.Buffer((1024,), "float32"), G: T.Buffer((1024,), "float16"), U: T.Buffer((1024,), "float32")):
    A_s = T.alloc_buffer((1024,), scope="shared")
    H_s = T.alloc_buffer((1024,), "float16", scope="shared")
    for b in T.thread_binding(4, thread="blockIdx.x"):
        for t in T.thread_binding(64, thread="threadIdx.x"):
            for v in T.vectorized(4):
                with T.block("A_s"):
                    i = T.axis.spatial(1024, b * 256 + t * 4 + v)
                    A_s[i] = A[i]
            for h in range(2):
                for v in T.vectorized(2):
                    with T.block("H_s"):
                        i = T.axis.spatial(1024, b * 256 + h * 128 + t * 2 + v)
                        H_s[i] = H[i]
            for v in T.vectorized(2):
                with T.block("G_odd"):
                    i = T.axis.spatial(1024, b * 256 + t * 2 + v + 1)
                    T.where(t * 2 + v + 1 < 256)
                    U[i] = A[i]
        for t in T.thread_binding(64, thread="threadIdx.x"):
            for k in range(4):
                with T.block("B"):
                    i = T.axis.spatial(1024, b * 256 + k * 64 + t)
                    B[i] = A_s[b * 256 + (i + 1) % 256]
            for k in range(32):
                for v in T.vectorized(8):
                    with T.block("G"):
                        i = T.axis.spatial(1024, b * 256 + k * 8 + v)
                        T.where(t == 0)
                        G[i] = H_s[i]
