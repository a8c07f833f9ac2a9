# 256 threads, 1 KiB of shared memory, 2 virtual threads, within a tiling's 32 to 1024: kept as it is.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((2048,), "float32"), B: T.Buffer((2048,), "float32")):
    S = T.alloc_buffer((256,), scope="shared")
    for b in T.thread_binding(4, thread="blockIdx.x"):
        for v in T.thread_binding(2, thread="vthread.x"):
            for t in T.thread_binding(256, thread="threadIdx.x"):
                with T.block("S"):
                    i = T.axis.spatial(2048, b * 512 + v * 256 + t)
                    S[i % 256] = A[i]
                for t2 in T.thread_binding(256, thread="threadIdx.x"):
                    with T.block("B"):
                        i = T.axis.spatial(2048, b * 512 + v * 256 + t2)
                        T.block_attr({"meta_schedule.thread_extent_low_inclusive": 32, "meta_schedule.thread_extent_high_inclusive": 1024})
                        B[i] = S[255 - i % 256]
