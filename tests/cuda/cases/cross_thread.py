# Cross-thread reductions as CrossThreadReduction schedules them: a sum over 32 threads with a serial part in each (warp shuffles), a max over 64 threads (a tree in shared memory), both with their init, in two kernels.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 256), "float32"), S: T.Buffer((8,), "float32"), M: T.Buffer((8,), "float32")):
    for i in T.thread_binding(8, thread="blockIdx.x"):
        for k0 in T.thread_binding(32, thread="threadIdx.x"):
            for k1 in range(8):
                with T.block("S"):
                    vi = T.axis.spatial(8, i)
                    vk = T.axis.reduce(256, k0 * 8 + k1)
                    with T.init():
                        S[vi] = T.float32(0)
                    S[vi] = S[vi] + A[vi, vk]
    for i in T.thread_binding(8, thread="blockIdx.x"):
        for k0 in T.thread_binding(64, thread="threadIdx.x"):
            for k1 in range(4):
                with T.block("M"):
                    vi = T.axis.spatial(8, i)
                    vk = T.axis.reduce(256, k1 * 64 + k0)
                    with T.init():
                        M[vi] = T.float32(-3.4e38)
                    M[vi] = T.max(M[vi], A[vi, vk])
