# Column sums written through the reduce iterator: B[vk] is reset by every
# row i (init at vk's first value), so the rows are not independent.
# from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 16), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(8, 16):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vk] = T.float32(0)
            B[vk] = B[vk] + A[vi, vk]
