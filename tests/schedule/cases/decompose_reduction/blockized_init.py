# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((10,), "float32"), B: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 3):
        with T.block("S"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi + vk]
