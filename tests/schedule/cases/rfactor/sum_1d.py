# Sum of a 1-D vector, with the reduction loop already split in two.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((), "float32")):
    for k_0, k_1 in T.grid(16, 4):
        with T.block("B"):
            vk = T.axis.reduce(64, k_0 * 4 + k_1)
            T.reads(A[vk])
            T.writes(B[()])
            with T.init():
                B[()] = T.float32(0)
            B[()] = B[()] + A[vk]
