# A reduction whose reduction loop is bound to threadIdx.x (a cross-thread
# reduction): left alone.
@T.prim_func
def main(A: T.Buffer((4, 32), "float32"), S: T.Buffer((4,), "float32")):
    for i in range(4):
        for k in T.thread_binding(32, thread="threadIdx.x"):
            with T.block("S"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    S[vi] = T.float32(0)
                S[vi] = S[vi] + A[vi, vk]
