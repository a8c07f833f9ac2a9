# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 32), "float32"), C: T.Buffer((16,), "float32")):
    B = T.alloc_buffer((16,))
    for i in range(16):
        for k in range(32):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0)
                B[vi] = B[vi] + A[vi, vk]
        with T.block("C"):
            vi = T.axis.spatial(16, i)
            C[vi] = B[vi] * T.float32(2)
