# A loop over tiles: the tile is read by other threads, then overwritten by the next iteration (a barrier at the loop's start) and read after it is written (a barrier before the reads).
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((512,), "float32"), B: T.Buffer((64,), "float32")):
    S = T.alloc_buffer((64,), scope="shared")
    for t in T.thread_binding(64, thread="threadIdx.x"):
        with T.block("init"):
            v = T.axis.spatial(64, t)
            B[v] = T.float32(0)
    for b in T.thread_binding(1, thread="blockIdx.x"):
        for k in range(8):
            for t in T.thread_binding(64, thread="threadIdx.x"):
                with T.block("load"):
                    vk, v = T.axis.remap("SS", [k, t])
                    S[v] = A[vk * 64 + v]
            for t in T.thread_binding(64, thread="threadIdx.x"):
                with T.block("sum"):
                    vk, v = T.axis.remap("RS", [k, t])
                    B[v] = B[v] + S[(v + 1) % 64]
