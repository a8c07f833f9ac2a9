# An argmax over the threads: its two outputs depend on each other, which the cross-thread reduction does not lower; refused rather than compiled into a race.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 32), "float32"), I: T.Buffer((8,), "int32"), V: T.Buffer((8,), "float32")):
    for i in T.thread_binding(8, thread="blockIdx.x"):
        for k in T.thread_binding(32, thread="threadIdx.x"):
            with T.block("argmax"):
                vi = T.axis.spatial(8, i)
                vk = T.axis.reduce(32, k)
                T.reads(A[vi, vk])
                T.writes(I[vi], V[vi])
                with T.init():
                    I[vi] = -1
                    V[vi] = T.float32(-3.4e38)
                I[vi] = T.Select(V[vi] >= A[vi, vk], I[vi], vk)
                V[vi] = T.max(V[vi], A[vi, vk])
