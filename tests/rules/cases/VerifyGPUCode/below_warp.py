# A block tiled for 32 to 1024 threads (MultiLevelTiling's annotations) that runs on 16.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32")):
    for b in T.thread_binding(16, thread="blockIdx.x"):
        for t in T.thread_binding(16, thread="threadIdx.x"):
            with T.block("B"):
                v = T.axis.spatial(256, b * 16 + t)
                T.block_attr({"meta_schedule.thread_extent_low_inclusive": 32, "meta_schedule.thread_extent_high_inclusive": 1024})
                B[v] = A[v] + T.float32(1)
