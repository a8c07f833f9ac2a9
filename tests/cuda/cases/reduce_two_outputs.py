# A reduction with two outputs (a sum and a sum of squares, as layer norm's) over 128 threads of which the first 64 take part (a split that does not divide: T.where): one allreduce per output.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 64), "float32"), S: T.Buffer((8,), "float32"), Q: T.Buffer((8,), "float32")):
    for i in T.thread_binding(8, thread="blockIdx.x"):
        for k in T.thread_binding(128, thread="threadIdx.x"):
            with T.block("R"):
                vi = T.axis.spatial(8, i)
                vk = T.axis.reduce(64, k)
                T.where(k < 64)
                T.reads(A[vi, vk])
                T.writes(S[vi], Q[vi])
                with T.init():
                    S[vi] = T.float32(0)
                    Q[vi] = T.float32(0)
                S[vi] = S[vi] + A[vi, vk]
                Q[vi] = Q[vi] + A[vi, vk] * A[vi, vk]
