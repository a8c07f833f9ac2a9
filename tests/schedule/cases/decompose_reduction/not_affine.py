# Row sums over a squared index: the reduce binding is not affine.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 128), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 16):
        with T.block("B"):
            vi = T.axis.spatial(16, i)
            vk = T.axis.reduce(128, k * k // 2)
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
